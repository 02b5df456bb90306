//! The organization transfer fields of the mutation root: initiate, accept, reject and
//! cancel a transfer of ownership.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends these fields to the fields gathered so far (`[...]`) and hands them on to
/// the next macro named.
macro_rules! ownership_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Initiates the ownership transfer of `organizationId` (default the key's own
            /// organization; never a root) to the registered user named by exactly one of
            /// `toProviderUsername` or `toEmail` (1 credit; needs `admin`).
            async fn initiate_organization_transfer(
                context: &Ctx<St>,
                organization_id: Option<ID>,
                to_provider_username: Option<String>,
                to_email: Option<String>,
            ) -> GqlResult<Option<OrganizationTransferNode>> {
                let node = crate::ownership::initiate(
                    context,
                    organization_id.as_deref(),
                    to_provider_username,
                    to_email,
                )
                .await?;
                Ok(Some(node))
            }

            /// Accepts a transfer with a key of one of the recipient's root organizations: the
            /// organization and its subtree move under that root (1 credit; needs `admin`).
            async fn accept_organization_transfer(
                context: &Ctx<St>,
                id: ID,
                relationship: OrganizationRelationship,
            ) -> GqlResult<Option<OrganizationTransferNode>> {
                let write = crate::ownership::accept_write(&id, relationship);
                Ok(Some(crate::ownership::act(context, None, write).await?))
            }

            /// Rejects a transfer (the recipient's root key; 1 credit; needs `admin`).
            async fn reject_organization_transfer(
                context: &Ctx<St>,
                id: ID,
            ) -> GqlResult<Option<OrganizationTransferNode>> {
                let write = Write::RejectOrganizationTransfer { id: id.to_string() };
                Ok(Some(crate::ownership::act(context, None, write).await?))
            }

            /// Cancels a transfer (a key of the transferred organization or an ancestor; acts in
            /// `organizationId`, default the key's own; 1 credit; needs `admin`).
            async fn cancel_organization_transfer(
                context: &Ctx<St>,
                id: ID,
                organization_id: Option<ID>,
            ) -> GqlResult<Option<OrganizationTransferNode>> {
                let write = Write::CancelOrganizationTransfer { id: id.to_string() };
                Ok(Some(
                    crate::ownership::act(context, organization_id.as_deref(), write).await?,
                ))
            }

        ] $($rest)* }
    };
}
pub(super) use ownership_fields;
