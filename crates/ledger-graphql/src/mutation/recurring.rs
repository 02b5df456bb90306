//! The recurring schedule fields of the mutation root: create, update, run and delete.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends these fields to the fields gathered so far (`[...]`) and hands them on to
/// the next macro named.
macro_rules! recurring_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates a recurring schedule (1 credit): `template` is the create body of
            /// `recurableType` (REST's snake_case JSON, validated now), generated every
            /// `interval` `frequency` units from `startDate`, until `endDate` or `count`.
            async fn create_recurring_schedule(
                context: &Ctx<St>,
                organization_id: Option<ID>,
                input: crate::recurring::RecurringScheduleInputGql,
                template: Option<Json>,
            ) -> GqlResult<Option<crate::recurring::RecurringScheduleNode<St>>> {
                let node = crate::recurring::write(
                    context,
                    organization_id.as_deref(),
                    None,
                    input,
                    template,
                )
                .await?;
                Ok(Some(node))
            }

            /// Changes a recurring schedule (1 credit); status `paused` pauses it and status
            /// `active` resumes it; `template` replaces the template.
            async fn update_recurring_schedule(
                context: &Ctx<St>,
                organization_id: Option<ID>,
                id: ID,
                input: crate::recurring::RecurringScheduleInputGql,
                template: Option<Json>,
            ) -> GqlResult<Option<crate::recurring::RecurringScheduleNode<St>>> {
                let node = crate::recurring::write(
                    context,
                    organization_id.as_deref(),
                    Some(&*id),
                    input,
                    template,
                )
                .await?;
                Ok(Some(node))
            }

            /// Generates a recurring schedule's document now, dated today, outside its rule;
            /// answers the run (a refused document is a failed run).
            async fn run_recurring_schedule(
                context: &Ctx<St>,
                organization_id: Option<ID>,
                id: ID,
            ) -> GqlResult<Option<crate::recurring::RecurringRunNode>> {
                Ok(Some(
                    crate::recurring::run(context, organization_id.as_deref(), &id).await?,
                ))
            }

            /// Soft-deletes a recurring schedule (1 credit; needs `admin`).
            async fn delete_recurring_schedule(
                context: &Ctx<St>,
                organization_id: Option<ID>,
                id: ID,
            ) -> GqlResult<Option<bool>> {
                Ok(Some(
                    crate::recurring::delete(context, organization_id.as_deref(), &id).await?,
                ))
            }

        ] $($rest)* }
    };
}
pub(super) use recurring_fields;
