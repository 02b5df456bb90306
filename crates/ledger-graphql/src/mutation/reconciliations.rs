//! The reconciliation fields of the mutation root: create, update, complete and delete a
//! reconciliation; import its statement, and accept or book a statement line.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends the writes on a reconciliation itself to the fields gathered so far (`[...]`)
/// and hands them on to the next macro named.
macro_rules! reconciliation_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Starts reconciling an asset or liability account for a statement period against
            /// the statement's closing balance (1 credit). One open reconciliation per account.
            async fn create_reconciliation(
                context: &Ctx<St>,
                account_id: ID,
                start_date: DateTime,
                end_date: DateTime,
                closing_balance: Decimal,
            ) -> GqlResult<Option<ReconciliationNode>> {
                let node = crate::reconciliations::create(
                    context,
                    account_id.to_string(),
                    start_date,
                    end_date,
                    closing_balance,
                )
                .await?;
                Ok(Some(node))
            }

            /// Changes an open reconciliation (1 credit): its period, closing balance, and the
            /// entries matched (`matchEntryIds`) or unmatched (`unmatchEntryIds`).
            async fn update_reconciliation(
                context: &Ctx<St>,
                id: ID,
                start_date: Option<DateTime>,
                end_date: Option<DateTime>,
                closing_balance: Option<Decimal>,
                match_entry_ids: Option<Vec<ID>>,
                unmatch_entry_ids: Option<Vec<ID>>,
            ) -> GqlResult<Option<ReconciliationNode>> {
                let day = |d: &DateTime| ledger_domain::views::date(d.0.at.date());
                let ids = |v: Option<Vec<ID>>| {
                    v.unwrap_or_default()
                        .into_iter()
                        .map(|i| i.to_string())
                        .collect()
                };
                let changes = ReconciliationChanges {
                    start_date: start_date.as_ref().map(day),
                    end_date: end_date.as_ref().map(day),
                    closing_balance: closing_balance.map(|b| b.0),
                    match_entry_ids: ids(match_entry_ids),
                    unmatch_entry_ids: ids(unmatch_entry_ids),
                };
                Ok(Some(
                    crate::reconciliations::update(context, &id, changes).await?,
                ))
            }

            /// Completes a reconciliation whose difference is zero (1 credit); its matched
            /// transactions are then locked. Refused with `reconciliation_not_balanced` otherwise.
            async fn complete_reconciliation(
                context: &Ctx<St>,
                id: ID,
            ) -> GqlResult<Option<ReconciliationNode>> {
                Ok(Some(crate::reconciliations::complete(context, &id).await?))
            }

            /// Soft-deletes an open reconciliation (1 credit; needs `admin`).
            async fn delete_reconciliation(context: &Ctx<St>, id: ID) -> GqlResult<Option<bool>> {
                Ok(Some(crate::reconciliations::delete(context, &id).await?))
            }

        ] $($rest)* }
    };
}
pub(super) use reconciliation_fields;

/// Appends the writes on its statement and lines to the fields gathered so far (`[...]`)
/// and hands them on to the next macro named.
macro_rules! statement_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Imports a bank statement (CSV with an optional `mapping`, or OFX/QFX; `format`
            /// sniffed when absent) into an open reconciliation (1 credit).
            async fn import_reconciliation_statement(
                context: &Ctx<St>,
                id: ID,
                content: String,
                format: Option<String>,
                mapping: Option<Json>,
            ) -> GqlResult<Option<StatementImportNode>> {
                Ok(Some(
                    crate::reconciliations::import(context, &id, content, format, mapping).await?,
                ))
            }

            /// Matches a statement line to its proposed entry, or to `entryId` (1 credit).
            async fn accept_statement_line(
                context: &Ctx<St>,
                reconciliation_id: ID,
                line_id: ID,
                entry_id: Option<ID>,
            ) -> GqlResult<Option<StatementLineNode>> {
                Ok(Some(
                    crate::reconciliations::accept(
                        context,
                        &reconciliation_id,
                        &line_id,
                        entry_id.map(|e| e.to_string()),
                    )
                    .await?,
                ))
            }

            /// Books an unmatched statement line as a posted transaction against
            /// `counterAccountId` and matches it (1 credit).
            async fn create_transaction_from_statement_line(
                context: &Ctx<St>,
                reconciliation_id: ID,
                line_id: ID,
                counter_account_id: ID,
                description: Option<String>,
            ) -> GqlResult<Option<StatementLineNode>> {
                Ok(Some(
                    crate::reconciliations::create_transaction(
                        context,
                        &reconciliation_id,
                        &line_id,
                        counter_account_id.to_string(),
                        description,
                    )
                    .await?,
                ))
            }

        ] $($rest)* }
    };
}
pub(super) use statement_fields;
