//! The transfer fields of the mutation root (create, post and reverse), with the reading
//! back of what they wrote.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

use ledger_domain::ports::Store;
use ledger_domain::services::{Access, Write};

use crate::context::Ctx;
use crate::errors::GqlResult;
use crate::transfers::TransferNode;

/// Submits a transfer write and reads the transfer back.
pub(super) async fn written_transfer<St: Store>(
    context: &Ctx<St>,
    access: &Access,
    write: Write,
) -> GqlResult<Option<TransferNode<St>>> {
    let transaction = context
        .submit_and_read(access, write, async |access, id| {
            context.ledger.get_transfer(access, id).await
        })
        .await?;
    Ok(TransferNode::of(transaction))
}

/// Appends these fields to the fields gathered so far (`[...]`) and hands them on to
/// the next macro named.
macro_rules! transfer_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates a transfer between two accounts (1 credit), pending unless `autoPost`.
            /// Between currencies `toAmount` is what the destination receives.
            #[expect(
                clippy::too_many_arguments,
                reason = "one argument per GraphQL argument"
            )]
            async fn create_transfer(
                context: &Ctx<St>,
                from_account_id: ID,
                to_account_id: ID,
                amount: Decimal,
                to_amount: Option<Decimal>,
                date: Option<DateTime>,
                description: Option<String>,
                reference: Option<String>,
                auto_post: Option<bool>,
                metadata: Option<Json>,
            ) -> GqlResult<Option<TransferNode<St>>> {
                let access = context.own(Scope::Write, "transfers").await?;
                let input = TransferInput {
                    from_account_id: from_account_id.to_string(),
                    to_account_id: to_account_id.to_string(),
                    amount: amount.0,
                    to_amount: to_amount.map(|a| a.0),
                    date: date.map(|d| d.0.at),
                    description,
                    reference,
                    metadata: metadata.map(|m| m.0),
                    auto_post: auto_post.unwrap_or(false),
                };
                written_transfer(context, &access, Write::CreateTransfer(input)).await
            }

            /// Posts a pending transfer (1 credit).
            async fn post_transfer(
                context: &Ctx<St>,
                id: ID,
            ) -> GqlResult<Option<TransferNode<St>>> {
                let access = context.own(Scope::Write, "transfers").await?;
                let write = Write::PostTransfer { id: id.to_string() };
                written_transfer(context, &access, write).await
            }

            /// Reverses a posted transfer (1 credit); `reason` is required.
            async fn reverse_transfer(
                context: &Ctx<St>,
                id: ID,
                reason: String,
            ) -> GqlResult<Option<TransferNode<St>>> {
                let access = context.own(Scope::Write, "transfers").await?;
                let write = Write::ReverseTransfer {
                    id: id.to_string(),
                    reason: Some(reason),
                };
                written_transfer(context, &access, write).await
            }

        ] $($rest)* }
    };
}
pub(super) use transfer_fields;
