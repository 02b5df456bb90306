//! The contact fields of the mutation root: create, update and delete.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends the create of a contact to the fields gathered so far (`[...]`) and hands them
/// on to the next macro named.
macro_rules! contact_create_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates a contact (1 credit).
            #[expect(
                clippy::too_many_arguments,
                reason = "one argument per GraphQL argument"
            )]
            async fn create_contact(
                context: &Ctx<St>,
                name: String,
                contact_type: ContactType,
                email: Option<String>,
                phone: Option<String>,
                tax_id: Option<String>,
                website: Option<String>,
                reference: Option<String>,
                country: Option<String>,
                currency_id: Option<String>,
            ) -> GqlResult<Option<ContactNode>> {
                let access = context.own(Scope::Write, "contacts").await?;
                let input = NewContactInput {
                    contact_type: contact_type.as_str().to_owned(),
                    name,
                    email,
                    phone,
                    website,
                    tax_number: tax_id,
                    reference,
                    country,
                    currency_id,
                    ..NewContactInput::default()
                };
                let contact = context
                    .submit_and_read(&access, Write::CreateContact(input), async |access, id| {
                        context.ledger.get_contact(access, id).await
                    })
                    .await?;
                Ok(Some(ContactNode(contact)))
            }

        ] $($rest)* }
    };
}
pub(super) use contact_create_fields;

/// Appends the update and the delete of a contact to the fields gathered so far (`[...]`)
/// and hands them on to the next macro named.
macro_rules! contact_change_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Changes a contact (1 credit). Omitted arguments keep their value; `""` clears an
            /// optional one.
            #[expect(
                clippy::too_many_arguments,
                reason = "one argument per GraphQL argument"
            )]
            async fn update_contact(
                context: &Ctx<St>,
                id: ID,
                name: Option<String>,
                email: Option<String>,
                phone: Option<String>,
                tax_id: Option<String>,
                website: Option<String>,
                reference: Option<String>,
                enabled: Option<bool>,
            ) -> GqlResult<Option<ContactNode>> {
                let access = context.own(Scope::Write, "contacts").await?;
                let changes = ContactChanges {
                    name,
                    email,
                    phone,
                    tax_number: tax_id,
                    website,
                    reference,
                    enabled,
                    ..ContactChanges::default()
                };
                let write = Write::UpdateContact {
                    id: id.to_string(),
                    changes,
                };
                context.submit(&access, write).await?;
                let contact = context.ledger.get_contact(&access, &id).await.gql()?;
                Ok(Some(ContactNode(contact)))
            }

            /// Soft-deletes a contact no live transaction names (1 credit; needs `admin`).
            async fn delete_contact(context: &Ctx<St>, id: ID) -> GqlResult<Option<bool>> {
                let access = context.own(Scope::Admin, "contacts").await?;
                let write = Write::DeleteContact { id: id.to_string() };
                context.submit(&access, write).await?;
                Ok(Some(true))
            }

        ] $($rest)* }
    };
}
pub(super) use contact_change_fields;
