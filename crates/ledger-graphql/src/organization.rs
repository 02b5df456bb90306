//! `OrganizationNode` (spec 2.2) and its resolvers: the chart, recent transactions,
//! contacts, invoices, bills, the credit pool and the three paid reports.

use std::marker::PhantomData;

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::contacts::ContactFilter;
use ledger_domain::organizations::{Organization, Scope};
use ledger_domain::ports::Store;
use ledger_domain::services::Access;

use crate::context::Ctx;
use crate::documents::{BillNode, InvoiceNode};
use crate::errors::{GqlResult, IntoGql};
use crate::nodes::{
    AccountNode, ContactNode, CurrencyNode, TransactionNode, currency_node, int, page,
};
use crate::reports::{BalanceSheetNode, IncomeStatementNode, TrialBalanceNode};
use crate::scalars::{DateTime, Json};
use ledger_domain::documents::DocumentKind;

/// The credit pool that pays for the organization's writes (its root's).
#[derive(juniper::GraphQLObject)]
#[graphql(name = "CreditBalanceNode")]
pub struct CreditBalanceNode {
    /// The root organization whose pool pays.
    pool_organization_id: ID,
    credits_remaining: i32,
    /// What the pool held this period: its balance after the last reset plus purchases.
    credits_total: i32,
    /// Credits the test-mode writes used (they never touch the live pool).
    test_credits_used: i32,
    auto_recharge_enabled: bool,
    /// Free credits each month (reset monthly without roll-over).
    monthly_allowance: i32,
    /// Purchased credits left (they survive the monthly reset).
    purchased_credits_remaining: i32,
    /// When the free allowance next resets.
    next_reset_at: DateTime,
}

/// An organization (spec 2.2).
pub struct OrganizationNode<St> {
    pub(crate) org: Organization,
    pub(crate) _store: PhantomData<fn() -> St>,
}

impl<St> OrganizationNode<St> {
    pub(crate) fn new(org: Organization) -> Self {
        Self {
            org,
            _store: PhantomData,
        }
    }
}

/// An organization (spec 2.2). Report fields cost 5 credits each (spec 8).
#[graphql_object(name = "OrganizationNode", context = Ctx<St>, scalar = DefaultScalarValue)]
impl<St: Store> OrganizationNode<St> {
    fn id(&self) -> ID {
        ID::new(&self.org.id)
    }
    fn name(&self) -> &str {
        &self.org.name
    }
    fn base_currency(&self) -> GqlResult<CurrencyNode> {
        currency_node(&self.org.base_currency)
    }
    /// Root organizations cannot be transferred.
    fn is_root(&self) -> bool {
        self.org.is_root()
    }
    fn parent_organization_id(&self) -> Option<ID> {
        self.org.parent_id.as_deref().map(ID::new)
    }
    /// Live credits left in the pool that pays for this organization (its root's).
    async fn credits_remaining(&self, context: &Ctx<St>) -> GqlResult<i32> {
        if self.org.is_root() {
            return int(self.org.credits_remaining);
        }
        let access = context.access(&self.org.id, Scope::Read, "billing").await?;
        int(context
            .ledger
            .billing(&access)
            .await
            .gql()?
            .credits_remaining)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.org.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.org.updated_at)
    }
    fn metadata(&self) -> Json {
        Json(self.org.metadata.clone())
    }
    /// The chart of accounts, by code.
    async fn accounts(&self, context: &Ctx<St>) -> GqlResult<Vec<AccountNode<St>>> {
        let access = context
            .access(&self.org.id, Scope::Read, "accounts")
            .await?;
        let list = context
            .ledger
            .list_accounts(&access, None, None, None)
            .await
            .gql()?;
        Ok(AccountNode::many(&access, list.items))
    }
    /// The newest transactions first (default 20, at most 100).
    async fn recent_transactions(
        &self,
        context: &Ctx<St>,
        limit: Option<i32>,
    ) -> GqlResult<Vec<TransactionNode<St>>> {
        let access = context
            .access(&self.org.id, Scope::Read, "transactions")
            .await?;
        let list = context
            .ledger
            .list_transactions(&access, None, None, None, page(limit, 20)?)
            .await
            .gql()?;
        Ok(list.items.into_iter().map(TransactionNode::new).collect())
    }
    /// Enabled contacts, oldest first (default 20, at most 100).
    async fn contacts(&self, context: &Ctx<St>, limit: Option<i32>) -> GqlResult<Vec<ContactNode>> {
        let access = context
            .access(&self.org.id, Scope::Read, "contacts")
            .await?;
        let filter = ContactFilter {
            enabled: Some(true),
            ..ContactFilter::default()
        };
        let list = context
            .ledger
            .list_contacts(&access, &filter, page(limit, 20)?)
            .await
            .gql()?;
        Ok(list.items.into_iter().map(ContactNode).collect())
    }
    /// Invoices, newest first (default 20, at most 100), optionally by stored status
    /// (`draft`, `sent`, `partially_paid`, `paid`, `void`). Contacts load in one read.
    async fn invoices(
        &self,
        context: &Ctx<St>,
        status: Option<String>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<InvoiceNode<St>>> {
        let list = crate::documents::list(
            context,
            &self.org.id,
            DocumentKind::Invoice,
            status,
            limit,
            offset,
        )
        .await?;
        Ok(list.into_iter().map(InvoiceNode).collect())
    }
    /// Bills, newest first (default 20, at most 100), optionally by stored status
    /// (`draft`, `open`, `partially_paid`, `paid`, `void`). Contacts load in one read.
    async fn bills(
        &self,
        context: &Ctx<St>,
        status: Option<String>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<BillNode<St>>> {
        let list = crate::documents::list(
            context,
            &self.org.id,
            DocumentKind::Bill,
            status,
            limit,
            offset,
        )
        .await?;
        Ok(list.into_iter().map(BillNode).collect())
    }
    /// Every organization below this one, at any depth, in tree order (a parent before
    /// its children; default 50, at most 100).
    async fn sub_organizations(
        &self,
        context: &Ctx<St>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<OrganizationNode<St>>> {
        let access = context
            .access(&self.org.id, Scope::Read, "organizations")
            .await?;
        let page = ledger_domain::ports::PageRequest::bounded(
            limit.map(i64::from),
            offset.map(i64::from),
            50,
        )
        .gql()?;
        let found = context
            .ledger
            .list_sub_organizations(&access, page)
            .await
            .gql()?;
        Ok(found
            .items
            .into_iter()
            .map(|(org, _)| OrganizationNode::new(org))
            .collect())
    }
    /// The credit pool (free to read).
    async fn credit_balance(&self, context: &Ctx<St>) -> GqlResult<CreditBalanceNode> {
        let access = context.access(&self.org.id, Scope::Read, "billing").await?;
        let balance = context.ledger.credit_balance(&access).await.gql()?;
        Ok(CreditBalanceNode {
            pool_organization_id: ID::new(&balance.pool.organization_id),
            credits_remaining: int(balance.pool.credits_remaining)?,
            credits_total: int(balance.pool.credits_total)?,
            test_credits_used: int(balance.test_credits_used)?,
            auto_recharge_enabled: false,
            monthly_allowance: int(balance.monthly_allowance)?,
            purchased_credits_remaining: int(balance.pool.purchased_remaining)?,
            next_reset_at: DateTime::at(balance.next_reset_at),
        })
    }
    /// The credit packages on sale (free to read).
    async fn credit_packages(
        &self,
        context: &Ctx<St>,
    ) -> GqlResult<Vec<crate::credits::CreditPackageNode>> {
        context.access(&self.org.id, Scope::Read, "billing").await?;
        context
            .ledger
            .credit_packages()
            .iter()
            .map(crate::credits::CreditPackageNode::of)
            .collect()
    }
    /// Trial balance of posted entries up to and including `asOf` (default now), in
    /// `currency` (default the base currency; accounts in others are converted); with
    /// `consolidated: true`, of this organization and its owned descendants. Costs 5
    /// credits.
    async fn trial_balance(
        &self,
        context: &Ctx<St>,
        as_of: Option<DateTime>,
        currency: Option<String>,
        consolidated: Option<bool>,
    ) -> GqlResult<TrialBalanceNode> {
        let access = self.paid_report(context).await?;
        let consolidated = consolidated.unwrap_or(false);
        crate::reports::trial_balance(context, &access, as_of, currency, consolidated).await
    }
    /// Balance sheet up to and including `asOf` (default now), in `currency` (default
    /// the base currency; accounts in others are converted); `consolidated` as for the
    /// trial balance. Costs 5 credits.
    async fn balance_sheet(
        &self,
        context: &Ctx<St>,
        as_of: Option<DateTime>,
        currency: Option<String>,
        consolidated: Option<bool>,
    ) -> GqlResult<BalanceSheetNode> {
        let access = self.paid_report(context).await?;
        let consolidated = consolidated.unwrap_or(false);
        crate::reports::balance_sheet(context, &access, as_of, currency, consolidated).await
    }
    /// Income statement from `startDate` (default 1 January of this year) through
    /// `endDate` (default now); `consolidated` as for the trial balance. Costs 5 credits.
    async fn income_statement(
        &self,
        context: &Ctx<St>,
        start_date: Option<DateTime>,
        end_date: Option<DateTime>,
        currency: Option<String>,
        consolidated: Option<bool>,
    ) -> GqlResult<IncomeStatementNode> {
        let access = self.paid_report(context).await?;
        let consolidated = consolidated.unwrap_or(false);
        crate::reports::income_statement(
            context,
            &access,
            start_date,
            end_date,
            currency,
            consolidated,
        )
        .await
    }
    /// Exchange rates, newest effective date first (default 20, at most 100), optionally
    /// of one source or target currency (ISO code or `cur_` id).
    async fn exchange_rates(
        &self,
        context: &Ctx<St>,
        from_currency: Option<String>,
        to_currency: Option<String>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<crate::exchange::ExchangeRateNode>> {
        crate::exchange::list(
            context,
            &self.org.id,
            from_currency,
            to_currency,
            limit,
            offset,
        )
        .await
    }
}

impl<St: Store> OrganizationNode<St> {
    /// Clears the key for reports (the report then takes its price).
    async fn paid_report(&self, context: &Ctx<St>) -> GqlResult<Access> {
        context.access(&self.org.id, Scope::Read, "reports").await
    }
}
