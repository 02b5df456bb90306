//! The transaction fields of the mutation root (create one, create a batch, revalue,
//! post, reverse), with their input types and the reading back of what they wrote.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

use juniper::{GraphQLInputObject, ID};
use ledger_domain::DomainError;
use ledger_domain::ports::Store;
use ledger_domain::services::{Access, EntryInput, Write};

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql, field_error};
use crate::nodes::{EntryType, TransactionNode};
use crate::scalars::{DateTime, Decimal};

/// Submits a transaction write and reads the transaction back.
pub(super) async fn written_transaction<St: Store>(
    context: &Ctx<St>,
    access: &Access,
    write: Write,
) -> GqlResult<Option<TransactionNode<St>>> {
    let transaction = context
        .submit_and_read(access, write, async |access, id| {
            context.ledger.get_transaction(access, id).await
        })
        .await?;
    Ok(Some(TransactionNode::new(transaction)))
}

/// The transactions a batch's result names, read back.
pub(super) async fn batch_nodes<St: Store>(
    context: &Ctx<St>,
    access: &Access,
    view: &serde_json::Value,
) -> GqlResult<Option<Vec<TransactionNode<St>>>> {
    let ids: Vec<String> = view["transactions"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|t| t["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut nodes = Vec::with_capacity(ids.len());
    for id in ids {
        let transaction = context.ledger.get_transaction(access, &id).await.gql()?;
        nodes.push(TransactionNode::new(transaction));
    }
    Ok(Some(nodes))
}

/// One line of a new transaction.
#[derive(Debug, GraphQLInputObject)]
pub struct LedgerEntryInput {
    pub account_id: ID,
    pub entry_type: EntryType,
    /// Positive, at most the currency's decimals.
    pub amount: Decimal,
    pub description: Option<String>,
    /// Accepted for the spec's shape; entries carry no reference of their own yet, so a
    /// given value is refused rather than dropped.
    pub reference: Option<String>,
}

/// One transaction of a batch (`createTransactions`).
#[derive(Debug, GraphQLInputObject)]
pub struct TransactionInput {
    pub description: String,
    pub date: DateTime,
    pub entries: Vec<LedgerEntryInput>,
    pub currency: Option<String>,
    pub reference: Option<String>,
    pub auto_post: Option<bool>,
    pub contact_id: Option<ID>,
    pub category_id: Option<ID>,
}

/// The domain lines of GraphQL entries (`prefix` names a batch item in errors).
pub(super) fn entry_inputs(
    entries: Vec<LedgerEntryInput>,
    prefix: &str,
) -> GqlResult<Vec<EntryInput>> {
    let mut lines = Vec::with_capacity(entries.len());
    for (i, e) in entries.into_iter().enumerate() {
        if e.reference.as_deref().is_some_and(|r| !r.trim().is_empty()) {
            return Err(field_error(DomainError::invalid_field(
                format!("{prefix}entries[{i}].reference"),
                "entry references are not supported yet; use the transaction's reference",
            )));
        }
        lines.push(EntryInput {
            account_id: e.account_id.to_string(),
            entry_type: match e.entry_type {
                EntryType::Debit => "debit",
                EntryType::Credit => "credit",
            }
            .to_owned(),
            amount: e.amount.0,
            description: e.description,
        });
    }
    Ok(lines)
}

/// Appends the create of one transaction (or its dry run) to the fields gathered so far
/// (`[...]`) and hands them on to the next macro named.
macro_rules! transaction_create_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates a transaction (2 credits), posted at once with `autoPost: true`. The
            /// debits must equal the credits. `dryRun: true` validates it and answers the
            /// would-be transaction, writing nothing and charging nothing.
            #[expect(
                clippy::too_many_arguments,
                reason = "one argument per GraphQL argument"
            )]
            async fn create_transaction(
                context: &Ctx<St>,
                description: String,
                date: DateTime,
                entries: Vec<LedgerEntryInput>,
                currency: Option<String>,
                reference: Option<String>,
                auto_post: Option<bool>,
                contact_id: Option<ID>,
                category_id: Option<ID>,
                metadata: Option<Json>,
                dry_run: Option<bool>,
            ) -> GqlResult<Option<TransactionNode<St>>> {
                let access = context.own(Scope::Write, "transactions").await?;
                let lines = entry_inputs(entries, "")?;
                let input = NewTransactionInput {
                    description,
                    date: Some(date.0.at),
                    currency,
                    reference,
                    entries: lines,
                    metadata: metadata.map(|m| m.0),
                    auto_post: auto_post.unwrap_or(false),
                    contact_id: contact_id.map(|id| id.to_string()),
                    category_id: category_id.map(|id| id.to_string()),
                };
                if dry_run.unwrap_or(false) {
                    // Validated and priced like a create; nothing is written or charged, and the
                    // id is the one it would have had.
                    let preview = context
                        .ledger
                        .preview_transaction(&access, input)
                        .await
                        .gql()?;
                    return Ok(Some(TransactionNode::new(preview)));
                }
                let transaction = context
                    .submit_and_read(&access, Write::CreateTransaction(input), async |access, id| {
                        context.ledger.get_transaction(access, id).await
                    })
                    .await?;
                Ok(Some(TransactionNode::new(transaction)))
            }

        ] $($rest)* }
    };
}
pub(super) use transaction_create_fields;

/// Appends the writes that make several transactions to the fields gathered so far
/// (`[...]`) and hands them on to the next macro named.
macro_rules! transaction_batch_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates up to 1 000 transactions at once, all or none (2 credits each): a refused
            /// one refuses the batch, its index in the error's `index` and `field`.
            async fn create_transactions(
                context: &Ctx<St>,
                transactions: Vec<TransactionInput>,
            ) -> GqlResult<Option<Vec<TransactionNode<St>>>> {
                let access = context.own(Scope::Write, "transactions").await?;
                let mut inputs = Vec::with_capacity(transactions.len());
                for (i, t) in transactions.into_iter().enumerate() {
                    inputs.push(NewTransactionInput {
                        description: t.description,
                        date: Some(t.date.0.at),
                        currency: t.currency,
                        reference: t.reference,
                        entries: entry_inputs(t.entries, &format!("transactions[{i}]."))?,
                        metadata: None,
                        auto_post: t.auto_post.unwrap_or(false),
                        contact_id: t.contact_id.map(|id| id.to_string()),
                        category_id: t.category_id.map(|id| id.to_string()),
                    });
                }
                let view = context
                    .submit(&access, Write::CreateTransactionBatch(inputs))
                    .await?;
                batch_nodes(context, &access, &view).await
            }

            /// Revalues the open currency positions at the end of `date` (default today): posts
            /// the unrealised gain or loss on that day and its reversal the next (1 credit each).
            async fn revalue_currencies(
                context: &Ctx<St>,
                date: Option<DateTime>,
            ) -> GqlResult<Option<Vec<TransactionNode<St>>>> {
                let access = context.own(Scope::Write, "transactions").await?;
                let write = Write::Revalue {
                    date: date.map(|d| d.0.at.date()),
                };
                let view = context.submit(&access, write).await?;
                batch_nodes(context, &access, &view).await
            }

        ] $($rest)* }
    };
}
pub(super) use transaction_batch_fields;

/// Appends posting and reversing a transaction to the fields gathered so far (`[...]`) and
/// hands them on to the next macro named.
macro_rules! transaction_state_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Posts a pending transaction (1 credit).
            async fn post_transaction(
                context: &Ctx<St>,
                id: ID,
            ) -> GqlResult<Option<TransactionNode<St>>> {
                let access = context.own(Scope::Write, "transactions").await?;
                let write = Write::PostTransaction { id: id.to_string() };
                written_transaction(context, &access, write).await
            }

            /// Reverses a posted transaction with a posted mirror (1 credit); `reason` is
            /// required.
            async fn reverse_transaction(
                context: &Ctx<St>,
                id: ID,
                reason: String,
            ) -> GqlResult<Option<TransactionNode<St>>> {
                let access = context.own(Scope::Write, "transactions").await?;
                let write = Write::ReverseTransaction {
                    id: id.to_string(),
                    reason: Some(reason),
                };
                written_transaction(context, &access, write).await
            }

        ] $($rest)* }
    };
}
pub(super) use transaction_state_fields;
