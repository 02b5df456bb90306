//! The webhook fields of the mutation root: endpoints (create, update, rotate the secret,
//! delete) and replaying a delivery.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends these fields to the fields gathered so far (`[...]`) and hands them on to
/// the next macro named.
macro_rules! webhook_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates a webhook endpoint of the key's organization (1 credit; needs `admin`):
            /// `eventTypes` lists the kinds delivered (empty or `["*"]`: every kind). The answer
            /// is the only one, besides a rotation's, that shows the signing secret.
            async fn create_webhook_endpoint(
                context: &Ctx<St>,
                url: String,
                description: Option<String>,
                event_types: Option<Vec<String>>,
                enabled: Option<bool>,
            ) -> GqlResult<Option<crate::webhooks::WebhookEndpointWithSecret>> {
                let input = ledger_domain::services::NewWebhookEndpointInput {
                    url,
                    description,
                    event_types: event_types.unwrap_or_default(),
                    enabled,
                };
                Ok(Some(crate::webhooks::create(context, input).await?))
            }

            /// Changes a webhook endpoint (1 credit; needs `admin`); enabling it clears its
            /// failure streak.
            async fn update_webhook_endpoint(
                context: &Ctx<St>,
                id: ID,
                url: Option<String>,
                description: Option<String>,
                event_types: Option<Vec<String>>,
                enabled: Option<bool>,
            ) -> GqlResult<Option<crate::webhooks::WebhookEndpointNode>> {
                let changes = ledger_domain::services::WebhookEndpointChanges {
                    url,
                    description,
                    event_types,
                    enabled,
                };
                Ok(Some(crate::webhooks::update(context, &id, changes).await?))
            }

            /// Replaces a webhook endpoint's signing secret (1 credit; needs `admin`).
            async fn rotate_webhook_secret(
                context: &Ctx<St>,
                id: ID,
            ) -> GqlResult<Option<crate::webhooks::WebhookEndpointWithSecret>> {
                Ok(Some(crate::webhooks::rotate(context, &id).await?))
            }

            /// Soft-deletes a webhook endpoint (1 credit; needs `admin`).
            async fn delete_webhook_endpoint(context: &Ctx<St>, id: ID) -> GqlResult<Option<bool>> {
                Ok(Some(crate::webhooks::delete(context, &id).await?))
            }

            /// Sends a delivered or given-up webhook delivery again (1 credit; needs `admin`).
            async fn replay_webhook_delivery(
                context: &Ctx<St>,
                endpoint_id: ID,
                id: ID,
            ) -> GqlResult<Option<crate::webhooks::WebhookDeliveryNode>> {
                Ok(Some(
                    crate::webhooks::replay(context, &endpoint_id, &id).await?,
                ))
            }

        ] $($rest)* }
    };
}
pub(super) use webhook_fields;
