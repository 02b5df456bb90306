//! The account fields of the mutation root: create, update and delete.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends these fields to the fields gathered so far (`[...]`) and hands them on to
/// the next macro named.
macro_rules! account_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates an account (1 credit).
            #[expect(
                clippy::too_many_arguments,
                reason = "one argument per GraphQL argument"
            )]
            async fn create_account(
                context: &Ctx<St>,
                code: String,
                name: String,
                account_type: AccountType,
                description: Option<String>,
                parent_account_id: Option<ID>,
                currency: Option<String>,
                subtype: Option<String>,
                metadata: Option<Json>,
            ) -> GqlResult<Option<AccountNode<St>>> {
                let access = context.own(Scope::Write, "accounts").await?;
                let input = NewAccountInput {
                    code,
                    name,
                    account_type: account_type.as_str().to_owned(),
                    subtype,
                    currency,
                    description,
                    parent_id: parent_account_id.map(|id| id.to_string()),
                    metadata: metadata.map(|m| m.0),
                };
                let account = context
                    .submit_and_read(&access, Write::CreateAccount(input), async |access, id| {
                        context.ledger.get_account(access, id).await
                    })
                    .await?;
                Ok(Some(AccountNode::one(&access, account)))
            }

            /// Changes an account's name, description or status (1 credit). The code of an
            /// account is fixed at creation.
            async fn update_account(
                context: &Ctx<St>,
                id: ID,
                name: Option<String>,
                description: Option<String>,
                status: Option<AccountStatus>,
            ) -> GqlResult<Option<AccountNode<St>>> {
                let access = context.own(Scope::Write, "accounts").await?;
                let changes = AccountChanges {
                    name,
                    description,
                    status: status.map(|s| s.as_str().to_owned()),
                    ..AccountChanges::default()
                };
                let write = Write::UpdateAccount {
                    id: id.to_string(),
                    changes,
                };
                let account = context
                    .submit_and_read(&access, write, async |access, id| {
                        context.ledger.get_account(access, id).await
                    })
                    .await?;
                Ok(Some(AccountNode::one(&access, account)))
            }

            /// Soft-deletes an account without entries (1 credit; needs `admin`).
            async fn delete_account(context: &Ctx<St>, id: ID) -> GqlResult<Option<bool>> {
                let access = context.own(Scope::Admin, "accounts").await?;
                let write = Write::DeleteAccount { id: id.to_string() };
                context.submit(&access, write).await?;
                Ok(Some(true))
            }

        ] $($rest)* }
    };
}
pub(super) use account_fields;
