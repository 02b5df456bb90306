//! The query root (spec 4.12). Reads are free, except report fields (5 credits each).
//!
//! `invoice` and `bill` read documents of the key's organization (`invoices`/`bills`
//! list them on `OrganizationNode`).

use std::marker::PhantomData;

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::DomainError;
use ledger_domain::money::Currency;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;

use crate::context::Ctx;
use crate::documents::{BillNode, InvoiceNode};
use crate::errors::{GqlResult, IntoGql};
use crate::nodes::{
    AccountNode, ContactNode, CurrencyNode, OrganizationNode, TransactionNode, TransactionStatus,
};
use crate::scalars::{DateTime, Decimal};
use crate::transfers::TransferNode;
use ledger_domain::documents::DocumentKind;

/// Resource not found in the tenant reads as `null` (not an error).
fn absent<T>(result: Result<T, DomainError>) -> GqlResult<Option<T>> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(crate::errors::field_error(e)),
    }
}

/// The query root.
pub struct Query<St>(pub(crate) PhantomData<fn() -> St>);

/// The query root.
#[graphql_object(name = "Query", context = Ctx<St>, scalar = DefaultScalarValue)]
impl<St: Store> Query<St> {
    /// The organization of the calling key.
    async fn organization(context: &Ctx<St>) -> GqlResult<Option<OrganizationNode<St>>> {
        let access = context.own(Scope::Read, "organizations").await?;
        let organization = context.ledger.current_organization(&access).await.gql()?;
        Ok(Some(OrganizationNode::new(organization)))
    }

    /// An organization the key reaches (its own or a descendant); any other id is
    /// FORBIDDEN, whether or not it exists.
    async fn organization_by_id(
        context: &Ctx<St>,
        id: ID,
    ) -> GqlResult<Option<OrganizationNode<St>>> {
        let access = context.access(&id, Scope::Read, "organizations").await?;
        let organization = context.ledger.current_organization(&access).await.gql()?;
        Ok(Some(OrganizationNode::new(organization)))
    }

    /// An account of the key's organization; `null` when there is none with this id.
    async fn account(context: &Ctx<St>, id: ID) -> GqlResult<Option<AccountNode<St>>> {
        let access = context.own(Scope::Read, "accounts").await?;
        Ok(absent(context.ledger.get_account(&access, &id).await)?
            .map(|a| AccountNode::one(&access, a)))
    }

    /// A transaction of the key's organization; `null` when there is none with this id.
    async fn transaction(context: &Ctx<St>, id: ID) -> GqlResult<Option<TransactionNode<St>>> {
        let access = context.own(Scope::Read, "transactions").await?;
        Ok(absent(context.ledger.get_transaction(&access, &id).await)?.map(TransactionNode::new))
    }

    /// A contact of the key's organization; `null` when there is none with this id.
    async fn contact(context: &Ctx<St>, id: ID) -> GqlResult<Option<ContactNode>> {
        let access = context.own(Scope::Read, "contacts").await?;
        Ok(absent(context.ledger.get_contact(&access, &id).await)?.map(ContactNode))
    }

    /// An invoice of the key's organization; `null` when there is none with this id.
    async fn invoice(context: &Ctx<St>, id: ID) -> GqlResult<Option<InvoiceNode<St>>> {
        Ok(crate::documents::find(context, DocumentKind::Invoice, &id)
            .await?
            .map(InvoiceNode))
    }

    /// A bill of the key's organization; `null` when there is none with this id.
    async fn bill(context: &Ctx<St>, id: ID) -> GqlResult<Option<BillNode<St>>> {
        Ok(crate::documents::find(context, DocumentKind::Bill, &id)
            .await?
            .map(BillNode))
    }

    /// A transfer of the key's organization; `null` when there is none with this id.
    async fn transfer(context: &Ctx<St>, id: ID) -> GqlResult<Option<TransferNode<St>>> {
        let access = context.own(Scope::Read, "transfers").await?;
        Ok(absent(context.ledger.get_transfer(&access, &id).await)?.and_then(TransferNode::of))
    }

    /// The transfers of the key's organization, newest first, in `status` when given.
    async fn transfers(
        context: &Ctx<St>,
        status: Option<TransactionStatus>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<TransferNode<St>>> {
        let access = context.own(Scope::Read, "transfers").await?;
        let page = crate::nodes::list_page(limit, offset)?;
        let found = context
            .ledger
            .list_transfers(&access, status.map(TransactionStatus::domain), page)
            .await
            .gql()?;
        Ok(found
            .items
            .into_iter()
            .filter_map(TransferNode::of)
            .collect())
    }

    /// Every ISO 4217 currency with a minor unit, by code.
    /// Reference data: any authenticated key may read it.
    fn currencies() -> Vec<CurrencyNode> {
        Currency::all().into_iter().map(CurrencyNode).collect()
    }

    /// One currency by ISO code (`USD`) or id (`cur_USD`); `null` when there is none.
    /// Reference data: any authenticated key may read it.
    fn currency(code: String) -> Option<CurrencyNode> {
        ledger_domain::services::find_currency(&code)
            .ok()
            .map(CurrencyNode)
    }

    /// An exchange rate of the key's organization; `null` when there is none with this id.
    async fn exchange_rate(
        context: &Ctx<St>,
        id: ID,
    ) -> GqlResult<Option<crate::exchange::ExchangeRateNode>> {
        crate::exchange::find(context, &id).await
    }

    /// Converts `amount` (at most the source currency's decimals) with the key's
    /// organization's rates on `date` (default today, UTC): the latest rate of the pair
    /// effective on or before it, else the inverse of the reversed pair's. Free.
    async fn convert_currency(
        context: &Ctx<St>,
        from_currency: String,
        to_currency: String,
        amount: Decimal,
        date: Option<DateTime>,
    ) -> GqlResult<crate::exchange::ConversionNode> {
        crate::exchange::convert(context, from_currency, to_currency, amount, date).await
    }

    /// The live recurring schedules of `organizationId` (default the key's own), oldest
    /// first.
    async fn recurring_schedules(
        context: &Ctx<St>,
        organization_id: Option<ID>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<crate::recurring::RecurringScheduleNode<St>>> {
        crate::recurring::list(context, organization_id.as_deref(), limit, offset).await
    }

    /// A recurring schedule of `organizationId` (default the key's own); `null` when
    /// there is none with this id.
    async fn recurring_schedule(
        context: &Ctx<St>,
        organization_id: Option<ID>,
        id: ID,
    ) -> GqlResult<Option<crate::recurring::RecurringScheduleNode<St>>> {
        crate::recurring::find(context, organization_id.as_deref(), &id).await
    }

    /// The webhook endpoints of the key's organization (its mode), oldest first.
    async fn webhook_endpoints(
        context: &Ctx<St>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<crate::webhooks::WebhookEndpointNode>> {
        crate::webhooks::list(context, limit, offset).await
    }

    /// A webhook endpoint of the key's organization; `null` when there is none.
    async fn webhook_endpoint(
        context: &Ctx<St>,
        id: ID,
    ) -> GqlResult<Option<crate::webhooks::WebhookEndpointNode>> {
        crate::webhooks::find(context, &id).await
    }

    /// The deliveries of a webhook endpoint, newest event first.
    async fn webhook_deliveries(
        context: &Ctx<St>,
        endpoint_id: ID,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<crate::webhooks::WebhookDeliveryNode>> {
        crate::webhooks::deliveries(context, &endpoint_id, limit, offset).await
    }

    /// A delivery of a webhook endpoint with its attempt log; `null` when there is none.
    async fn webhook_delivery(
        context: &Ctx<St>,
        endpoint_id: ID,
        id: ID,
    ) -> GqlResult<Option<crate::webhooks::WebhookDeliveryNode>> {
        crate::webhooks::delivery(context, &endpoint_id, &id).await
    }

    /// An ownership transfer the key's organization is a side of (the sender's
    /// organization or an ancestor, or the recipient's root); `null` otherwise.
    async fn organization_transfer(
        context: &Ctx<St>,
        id: ID,
    ) -> GqlResult<Option<crate::ownership::OrganizationTransferNode>> {
        crate::ownership::find(context, &id).await
    }

    /// Outgoing ownership transfers of `organizationId` (default the key's own
    /// organization) and of the organizations below it, newest first.
    async fn organization_transfers(
        context: &Ctx<St>,
        organization_id: Option<ID>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<crate::ownership::OrganizationTransferNode>> {
        crate::ownership::outgoing(context, organization_id.as_deref(), limit, offset).await
    }

    /// Ownership transfers designated to the owner of the key's organization, which must
    /// be a root organization, newest first.
    async fn incoming_organization_transfers(
        context: &Ctx<St>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<crate::ownership::OrganizationTransferNode>> {
        crate::ownership::incoming(context, limit, offset).await
    }

    /// What a transfer moves: the subtree's figures in the key's mode.
    async fn organization_transfer_stats(
        context: &Ctx<St>,
        id: ID,
    ) -> GqlResult<crate::ownership::OrganizationTransferStatsNode> {
        crate::ownership::stats(context, &id).await
    }

    /// A reconciliation of the key's organization; `null` when there is none with this id.
    async fn reconciliation(
        context: &Ctx<St>,
        id: ID,
    ) -> GqlResult<Option<crate::reconciliations::ReconciliationNode>> {
        crate::reconciliations::find(context, &id).await
    }

    /// The key's organization's reconciliations, latest statement end date first,
    /// optionally of one account or status (`open`, `completed`).
    async fn reconciliations(
        context: &Ctx<St>,
        account_id: Option<ID>,
        status: Option<String>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<crate::reconciliations::ReconciliationNode>> {
        crate::reconciliations::list(
            context,
            account_id.map(|a| a.to_string()),
            status,
            limit,
            offset,
        )
        .await
    }

    /// The statement lines of a reconciliation, each matched or with its proposed match.
    async fn reconciliation_statement_lines(
        context: &Ctx<St>,
        id: ID,
    ) -> GqlResult<Vec<crate::reconciliations::StatementLineNode>> {
        crate::reconciliations::statement_lines(context, &id).await
    }
}
