//! The exchange rate fields of the mutation root: create, update and delete.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends these fields to the fields gathered so far (`[...]`) and hands them on to
/// the next macro named.
macro_rules! exchange_rate_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates an exchange rate of the key's organization (1 credit): units of
            /// `toCurrencyId` per unit of `fromCurrencyId` (ids such as `cur_EUR`, or ISO codes)
            /// from `effectiveDate` on. One live rate per pair and date.
            async fn create_exchange_rate(
                context: &Ctx<St>,
                from_currency_id: String,
                to_currency_id: String,
                rate: Decimal,
                effective_date: DateTime,
            ) -> GqlResult<Option<ExchangeRateNode>> {
                let node = crate::exchange::create(
                    context,
                    from_currency_id,
                    to_currency_id,
                    rate,
                    effective_date,
                )
                .await?;
                Ok(Some(node))
            }

            /// Changes an exchange rate's value or effective date (1 credit); the pair is fixed.
            async fn update_exchange_rate(
                context: &Ctx<St>,
                id: ID,
                rate: Option<Decimal>,
                effective_date: Option<DateTime>,
            ) -> GqlResult<Option<ExchangeRateNode>> {
                let node = crate::exchange::update(context, &id, rate, effective_date).await?;
                Ok(Some(node))
            }

            /// Soft-deletes an exchange rate (1 credit; needs `admin`).
            async fn delete_exchange_rate(context: &Ctx<St>, id: ID) -> GqlResult<Option<bool>> {
                Ok(Some(crate::exchange::delete(context, &id).await?))
            }

        ] $($rest)* }
    };
}
pub(super) use exchange_rate_fields;
