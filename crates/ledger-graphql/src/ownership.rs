//! Ownership transfers of organizations in GraphQL (camelCase; spec 2.10, 3.1): the
//! transfer and stats nodes and the resolvers the query and mutation roots share. Who may
//! act is the domain's rule; writes go through its pipeline (1 credit each, `admin`).

use juniper::{DefaultScalarValue, GraphQLEnum, ID, graphql_object};
use ledger_domain::DomainError;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{Page, Store};
use ledger_domain::services::{OrganizationTransferInput, Write};
use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql};
use crate::scalars::DateTime;

/// The permission resource of transfers.
const RESOURCE: &str = "organization_transfers";

/// How a transferred organization relates to its new parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum OrganizationRelationship {
    /// Consolidated into the parent's reports.
    Owned,
    /// Stand-alone.
    Linked,
}

impl OrganizationRelationship {
    fn as_str(self) -> &'static str {
        match self {
            Self::Owned => "owned",
            Self::Linked => "linked",
        }
    }
}

/// The states of an ownership transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum OrganizationTransferStatus {
    Pending,
    Accepted,
    Rejected,
    Cancelled,
    Expired,
}

fn internal(what: &str) -> juniper::FieldError<DefaultScalarValue> {
    crate::errors::field_error(DomainError::Internal(format!("transfer view: {what}")))
}

/// An ownership transfer, read from the domain's view of it.
pub struct OrganizationTransferNode(pub Value);

impl OrganizationTransferNode {
    fn text(&self, key: &str) -> Option<String> {
        self.0[key].as_str().map(str::to_owned)
    }

    fn required(&self, key: &str) -> GqlResult<String> {
        self.text(key).ok_or_else(|| internal(key))
    }

    fn time(&self, key: &str) -> GqlResult<Option<DateTime>> {
        match self.0[key].as_str() {
            None => Ok(None),
            Some(text) => OffsetDateTime::parse(text, &Rfc3339)
                .map(|t| Some(DateTime::at(t)))
                .map_err(|_| internal(key)),
        }
    }
}

/// An ownership transfer of an organization (with its subtree) to another user.
#[graphql_object(name = "OrganizationTransferNode", scalar = DefaultScalarValue)]
impl OrganizationTransferNode {
    /// `trf_...`.
    fn id(&self) -> GqlResult<ID> {
        self.required("id").map(ID::new)
    }
    fn organization_id(&self) -> GqlResult<ID> {
        self.required("organization_id").map(ID::new)
    }
    /// The organization's name when the transfer was initiated.
    fn organization_name(&self) -> GqlResult<String> {
        self.required("organization_name")
    }
    #[graphql(name = "fromUserId")]
    fn sender_user_id(&self) -> GqlResult<ID> {
        self.required("from_user_id").map(ID::new)
    }
    #[graphql(name = "fromProviderUsername")]
    fn sender_provider_username(&self) -> Option<String> {
        self.text("from_provider_username")
    }
    #[graphql(name = "fromDisplayName")]
    fn sender_display_name(&self) -> Option<String> {
        self.text("from_display_name")
    }
    #[graphql(name = "fromEmail")]
    fn sender_email(&self) -> Option<String> {
        self.text("from_email")
    }
    fn to_user_id(&self) -> GqlResult<ID> {
        self.required("to_user_id").map(ID::new)
    }
    fn to_provider_username(&self) -> Option<String> {
        self.text("to_provider_username")
    }
    fn to_display_name(&self) -> Option<String> {
        self.text("to_display_name")
    }
    fn to_email(&self) -> Option<String> {
        self.text("to_email")
    }
    /// A pending transfer past `expiresAt` reads `EXPIRED`.
    fn status(&self) -> GqlResult<OrganizationTransferStatus> {
        match self.required("status")?.as_str() {
            "pending" => Ok(OrganizationTransferStatus::Pending),
            "accepted" => Ok(OrganizationTransferStatus::Accepted),
            "rejected" => Ok(OrganizationTransferStatus::Rejected),
            "cancelled" => Ok(OrganizationTransferStatus::Cancelled),
            "expired" => Ok(OrganizationTransferStatus::Expired),
            _ => Err(internal("status")),
        }
    }
    /// Null until accepted.
    fn relationship_on_accept(&self) -> Option<OrganizationRelationship> {
        match self.0["relationship_on_accept"].as_str() {
            Some("owned") => Some(OrganizationRelationship::Owned),
            Some("linked") => Some(OrganizationRelationship::Linked),
            _ => None,
        }
    }
    /// The recipient's root organization the subtree moved under (accepted only).
    fn to_organization_id(&self) -> Option<ID> {
        self.text("to_organization_id").map(ID::new)
    }
    fn initiated_at(&self) -> GqlResult<Option<DateTime>> {
        self.time("initiated_at")
    }
    /// Null until answered.
    fn responded_at(&self) -> GqlResult<Option<DateTime>> {
        self.time("responded_at")
    }
    fn expires_at(&self) -> GqlResult<Option<DateTime>> {
        self.time("expires_at")
    }
    fn descendant_org_count(&self) -> i32 {
        count(&self.0["descendant_org_count"])
    }
    /// Descendants plus the organization itself.
    fn total_org_count(&self) -> i32 {
        count(&self.0["total_org_count"])
    }
}

fn count(value: &Value) -> i32 {
    value
        .as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .unwrap_or(i32::MAX)
}

/// What a transfer would move: the subtree's figures in the caller's mode.
#[derive(juniper::GraphQLObject)]
#[graphql(name = "OrganizationTransferStatsNode")]
pub struct OrganizationTransferStatsNode {
    transfer_id: ID,
    descendant_organizations: i32,
    total_organizations: i32,
    accounts: i32,
    transactions: i32,
    invoices: i32,
    bills: i32,
    contacts: i32,
    categories: i32,
    /// Line items of the invoices and bills.
    items: i32,
    api_keys: i32,
}

impl OrganizationTransferStatsNode {
    /// The node of the domain's stats view (a JSON object of counts).
    fn of(view: &Value) -> Self {
        let figure = |name: &str| count(&view[name]);
        Self {
            transfer_id: ID::new(view["transfer_id"].as_str().unwrap_or_default()),
            descendant_organizations: figure("descendant_organizations"),
            total_organizations: figure("total_organizations"),
            accounts: figure("accounts"),
            transactions: figure("transactions"),
            invoices: figure("invoices"),
            bills: figure("bills"),
            contacts: figure("contacts"),
            categories: figure("categories"),
            items: figure("items"),
            api_keys: figure("api_keys"),
        }
    }
}

/// The organization a resolver works in: `organization_id`, else the key's own.
async fn access_in<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    needed: Scope,
) -> GqlResult<ledger_domain::services::Access> {
    match organization_id {
        Some(org) => context.access(org, needed, RESOURCE).await,
        None => context.own(needed, RESOURCE).await,
    }
}

/// One transfer the key's organization is a side of; `None` otherwise.
pub(crate) async fn find<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<Option<OrganizationTransferNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    match context.ledger.get_organization_transfer(&access, id).await {
        Ok(view) => Ok(Some(OrganizationTransferNode(view))),
        Err(DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(crate::errors::field_error(e)),
    }
}

/// Outgoing transfers of `organization_id` (default the key's own) and below it.
pub(crate) async fn outgoing<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<OrganizationTransferNode>> {
    let access = access_in(context, organization_id, Scope::Read).await?;
    let page = crate::nodes::list_page(limit, offset)?;
    let found = context.ledger.list_outgoing_transfers(&access, page).await;
    nodes(found)
}

/// Incoming transfers of the key's own (root) organization's owner.
pub(crate) async fn incoming<St: Store>(
    context: &Ctx<St>,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<OrganizationTransferNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    let page = crate::nodes::list_page(limit, offset)?;
    let found = context.ledger.list_incoming_transfers(&access, page).await;
    nodes(found)
}

/// The nodes of a page of transfers read.
fn nodes(
    found: ledger_domain::DomainResult<Page<Value>>,
) -> GqlResult<Vec<OrganizationTransferNode>> {
    Ok(found
        .gql()?
        .items
        .into_iter()
        .map(OrganizationTransferNode)
        .collect())
}

/// The stats of a transfer the key's organization is a side of.
pub(crate) async fn stats<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<OrganizationTransferStatsNode> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    let view = context
        .ledger
        .organization_transfer_stats(&access, id)
        .await
        .gql()?;
    Ok(OrganizationTransferStatsNode::of(&view))
}

/// Initiates the transfer of `organization_id` (default the key's own organization).
pub(crate) async fn initiate<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    to_provider_username: Option<String>,
    to_email: Option<String>,
) -> GqlResult<OrganizationTransferNode> {
    let access = access_in(context, organization_id, Scope::Admin).await?;
    let write = Write::InitiateOrganizationTransfer(OrganizationTransferInput {
        to_provider_username,
        to_email,
    });
    Ok(OrganizationTransferNode(
        context.submit(&access, write).await?,
    ))
}

/// Accepts (with the key's own root organization), rejects or cancels a transfer.
pub(crate) async fn act<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    write: Write,
) -> GqlResult<OrganizationTransferNode> {
    let access = access_in(context, organization_id, Scope::Admin).await?;
    Ok(OrganizationTransferNode(
        context.submit(&access, write).await?,
    ))
}

/// The accept write of `relationship`.
pub(crate) fn accept_write(id: &str, relationship: OrganizationRelationship) -> Write {
    Write::AcceptOrganizationTransfer {
        id: id.to_owned(),
        relationship: Some(relationship.as_str().to_owned()),
    }
}
