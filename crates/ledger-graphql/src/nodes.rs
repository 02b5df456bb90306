//! Object types of spec 2 (accounts, money, transactions, contacts, currencies) (GraphQL names and camelCase fields) and their resolvers. Each
//! resolver clears the key for what it reads and calls one service method.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::DomainError;
use ledger_domain::accounts::{Account, Totals};
use ledger_domain::attachments::{Attachment, OwnerKind};
use ledger_domain::contacts::Contact;
use ledger_domain::money::{Currency, format_units};
use ledger_domain::ports::{HistoryRow, PageRequest, Store};
use ledger_domain::services::Access;
use ledger_domain::transactions::Transaction;
use ledger_domain::views::decimals_of;
use tokio::sync::OnceCell;

use crate::context::Ctx;
pub use crate::enums::{AccountStatus, AccountType, ContactType, EntryType, TransactionStatus};
use crate::errors::{GqlResult, IntoGql, field_error};
pub use crate::organization::{CreditBalanceNode, OrganizationNode};
use crate::scalars::{DateTime, Decimal, Json};

/// Page size of list fields: the domain's bounds (spec 8).
pub(crate) fn page(limit: Option<i32>, default: i64) -> GqlResult<PageRequest> {
    PageRequest::bounded(limit.map(i64::from), None, default).gql()
}

/// The page of a list field with `limit` and `offset` (20 items unless told).
pub(crate) fn list_page(limit: Option<i32>, offset: Option<i32>) -> GqlResult<PageRequest> {
    PageRequest::bounded(limit.map(i64::from), offset.map(i64::from), 20).gql()
}

/// An `i64` count as a GraphQL `Int` (32-bit), refusing rather than wrapping.
pub(crate) fn int(value: i64) -> GqlResult<i32> {
    i32::try_from(value).map_err(|_| {
        field_error(DomainError::Internal(format!(
            "{value} exceeds a GraphQL Int"
        )))
    })
}

/// Units of `currency` as a `Decimal`.
pub(crate) fn decimal(units: i64, currency: &str) -> Decimal {
    Decimal(format_units(units, decimals_of(currency)))
}

/// An ISO 4217 currency.
pub struct CurrencyNode(pub Currency);

/// An ISO 4217 currency.
#[graphql_object(name = "CurrencyNode", scalar = DefaultScalarValue)]
impl CurrencyNode {
    /// Three-letter code (`USD`).
    fn code(&self) -> String {
        self.0.code()
    }
    /// English name.
    fn name(&self) -> String {
        self.0.name()
    }
    /// Symbol (`$`).
    fn symbol(&self) -> String {
        self.0.symbol()
    }
    /// Decimals of the minor unit (2 for USD).
    fn decimal_places(&self) -> i32 {
        i32::try_from(self.0.decimals()).unwrap_or(4)
    }
    /// Id (`cur_USD`), as REST shows it.
    fn id(&self) -> ID {
        ID::new(ledger_domain::exchange::currency_id(&self.0))
    }
}

/// The currency node of a stored code (codes are validated on the way in).
pub(crate) fn currency_node(code: &str) -> GqlResult<CurrencyNode> {
    Currency::from_code(code)
        .map(CurrencyNode)
        .ok_or_else(|| field_error(DomainError::Internal(format!("unknown currency {code}"))))
}

/// An amount of money.
pub struct MoneyNode {
    units: i64,
    currency: String,
}

/// An amount of money.
#[graphql_object(name = "MoneyNode", scalar = DefaultScalarValue)]
impl MoneyNode {
    /// The exact amount, at the currency's decimals (`"1250.00"`).
    fn amount(&self) -> Decimal {
        decimal(self.units, &self.currency)
    }
    /// ISO 4217 code.
    fn currency(&self) -> &str {
        &self.currency
    }
    /// For people: symbol, amount and code (`"$1250.00 USD"`, `"-$3.00 USD"`).
    fn formatted(&self) -> String {
        let symbol = Currency::from_code(&self.currency).map_or_else(String::new, |c| c.symbol());
        let amount = format_units(self.units.abs(), decimals_of(&self.currency));
        let sign = if self.units < 0 { "-" } else { "" };
        format!("{sign}{symbol}{amount} {}", self.currency)
    }
}

/// The histories of a set of sibling accounts for one `limit`.
type Histories = HashMap<String, Vec<(HistoryRow, i64)>>;

/// Balances and histories of a set of sibling accounts (one list, or one account), each
/// loaded on first use for all of them at once: one store query for the balances and
/// one per distinct `transactions(limit:)`, however many accounts the list holds.
pub(crate) struct BalanceBatch {
    access: Access,
    accounts: Vec<Account>,
    loaded: OnceCell<HashMap<String, Totals>>,
    histories: Mutex<HashMap<i64, Arc<OnceCell<Histories>>>>,
}

impl BalanceBatch {
    pub(crate) fn new(access: Access, accounts: Vec<Account>) -> Arc<Self> {
        Arc::new(Self {
            access,
            accounts,
            loaded: OnceCell::new(),
            histories: Mutex::new(HashMap::new()),
        })
    }

    async fn totals<St: Store>(&self, ctx: &Ctx<St>, id: &str) -> GqlResult<Totals> {
        let loaded = self
            .loaded
            .get_or_try_init(|| async {
                let ids: Vec<String> = self.accounts.iter().map(|a| a.id.clone()).collect();
                ctx.ledger
                    .totals_of_accounts(&self.access, &ids)
                    .await
                    .gql()
            })
            .await?;
        Ok(loaded.get(id).copied().unwrap_or_default())
    }

    async fn history<St: Store>(
        &self,
        ctx: &Ctx<St>,
        id: &str,
        limit: i64,
    ) -> GqlResult<Vec<(HistoryRow, i64)>> {
        let cell = {
            let mut map = self
                .histories
                .lock()
                .map_err(|_| field_error(DomainError::Internal("history batch poisoned".into())))?;
            map.entry(limit).or_default().clone()
        };
        let loaded = cell
            .get_or_try_init(|| async {
                ctx.ledger
                    .first_history_of_accounts(&self.access, &self.accounts, limit)
                    .await
                    .gql()
            })
            .await?;
        Ok(loaded.get(id).cloned().unwrap_or_default())
    }
}

/// A ledger account (spec 2.3).
pub struct AccountNode<St> {
    pub(crate) account: Account,
    pub(crate) balances: Arc<BalanceBatch>,
    pub(crate) _store: PhantomData<fn() -> St>,
}

impl<St> AccountNode<St> {
    /// Nodes for `accounts` of the access's tenant (cleared to read accounts), sharing
    /// one batch.
    pub(crate) fn many(access: &Access, accounts: Vec<Account>) -> Vec<Self> {
        let batch = BalanceBatch::new(access.clone(), accounts.clone());
        accounts
            .into_iter()
            .map(|account| Self {
                account,
                balances: batch.clone(),
                _store: PhantomData,
            })
            .collect()
    }

    pub(crate) fn one(access: &Access, account: Account) -> Self {
        Self::many(access, vec![account]).remove(0)
    }
}

/// A ledger account (spec 2.3).
#[graphql_object(name = "AccountNode", context = Ctx<St>, scalar = DefaultScalarValue)]
impl<St: Store> AccountNode<St> {
    fn id(&self) -> ID {
        ID::new(&self.account.id)
    }
    fn organization_id(&self) -> ID {
        ID::new(&self.account.organization_id)
    }
    /// Numeric code, unique in the organization.
    fn code(&self) -> &str {
        &self.account.code
    }
    fn name(&self) -> &str {
        &self.account.name
    }
    fn account_type(&self) -> AccountType {
        self.account.account_type.into()
    }
    fn subtype(&self) -> Option<&str> {
        self.account.subtype.as_deref()
    }
    /// ISO 4217 code of the account's currency.
    fn currency(&self) -> &str {
        &self.account.currency
    }
    fn parent_account_id(&self) -> Option<ID> {
        self.account.parent_id.as_deref().map(ID::new)
    }
    fn status(&self) -> AccountStatus {
        self.account.status.into()
    }
    fn description(&self) -> Option<&str> {
        self.account.description.as_deref()
    }
    /// Part of the default chart (cannot be deleted).
    fn is_system(&self) -> bool {
        self.account.is_system
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.account.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.account.updated_at)
    }
    fn metadata(&self) -> Json {
        Json(self.account.metadata.clone())
    }
    /// Net balance of posted entries, in the account type's normal direction; in
    /// `currency` when given, converted at today's rate.
    async fn balance(&self, context: &Ctx<St>, currency: Option<String>) -> GqlResult<MoneyNode> {
        let totals = self.balances.totals(context, &self.account.id).await?;
        let Some(code) = currency.filter(|c| !c.eq_ignore_ascii_case(&self.account.currency))
        else {
            return Ok(MoneyNode {
                units: self.account.account_type.net(totals.debit, totals.credit),
                currency: self.account.currency.clone(),
            });
        };
        let access = context
            .own(ledger_domain::organizations::Scope::Read, "accounts")
            .await?;
        let target = context.ledger.report_currency(&access, Some(&code)).gql()?;
        let today = context.ledger.now().date();
        let (_, converted) = context
            .ledger
            .convert_totals(&access, &self.account, totals, target, today)
            .await
            .gql()?;
        Ok(MoneyNode {
            units: self
                .account
                .account_type
                .net(converted.debit, converted.credit),
            currency: target.code(),
        })
    }
    /// Posted history, oldest first, with the running balance (default 20, at most 100).
    /// The histories of sibling accounts load together in one query.
    async fn transactions(
        &self,
        context: &Ctx<St>,
        limit: Option<i32>,
    ) -> GqlResult<Vec<AccountTransactionNode>> {
        let page = page(limit, 20)?;
        let rows = self
            .balances
            .history(context, &self.account.id, page.limit)
            .await?;
        Ok(rows
            .into_iter()
            .map(|(row, balance)| AccountTransactionNode {
                currency: self.account.currency.clone(),
                transaction_id: row.transaction_id,
                date: row.date,
                description: row.description,
                debit: row.debit,
                credit: row.credit,
                balance,
            })
            .collect())
    }
}

/// One row of an account's history (spec 2.4).
pub struct AccountTransactionNode {
    currency: String,
    transaction_id: String,
    date: time::OffsetDateTime,
    description: String,
    debit: i64,
    credit: i64,
    balance: i64,
}

/// One row of an account's history (spec 2.4).
#[graphql_object(name = "AccountTransactionNode", scalar = DefaultScalarValue)]
impl AccountTransactionNode {
    fn transaction_id(&self) -> ID {
        ID::new(&self.transaction_id)
    }
    fn date(&self) -> DateTime {
        DateTime::at(self.date)
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn debit(&self) -> Decimal {
        decimal(self.debit, &self.currency)
    }
    fn credit(&self) -> Decimal {
        decimal(self.credit, &self.currency)
    }
    /// Running balance after this row, in the account's normal direction.
    fn balance(&self) -> Decimal {
        decimal(self.balance, &self.currency)
    }
}

/// A journal transaction (spec 2.4).
pub struct TransactionNode<St>(pub Transaction, PhantomData<fn() -> St>);

impl<St> TransactionNode<St> {
    /// The node of `transaction`.
    pub fn new(transaction: Transaction) -> Self {
        Self(transaction, PhantomData)
    }
}

/// A journal transaction (spec 2.4).
#[graphql_object(name = "TransactionNode", context = Ctx<St>, scalar = DefaultScalarValue)]
impl<St: Store> TransactionNode<St> {
    /// Files kept with the transaction (upload through REST), oldest first.
    async fn attachments(&self, context: &Ctx<St>) -> GqlResult<Vec<AttachmentNode>> {
        let tenant = ledger_domain::ports::Tenant {
            organization_id: self.0.organization_id.clone(),
            livemode: self.0.livemode,
        };
        attachment_nodes(context, &tenant, OwnerKind::Transaction, &self.0.id).await
    }
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    fn organization_id(&self) -> ID {
        ID::new(&self.0.organization_id)
    }
    fn description(&self) -> &str {
        &self.0.description
    }
    fn date(&self) -> DateTime {
        DateTime::at(self.0.date)
    }
    fn status(&self) -> TransactionStatus {
        self.0.status.into()
    }
    /// Total of the debit entries.
    fn amount(&self) -> Decimal {
        decimal(self.0.amount, &self.0.currency)
    }
    fn currency(&self) -> GqlResult<CurrencyNode> {
        currency_node(&self.0.currency)
    }
    fn reference(&self) -> Option<&str> {
        self.0.reference.as_deref()
    }
    fn contact_id(&self) -> Option<ID> {
        self.0.contact_id.as_deref().map(ID::new)
    }
    fn category_id(&self) -> Option<ID> {
        self.0.category_id.as_deref().map(ID::new)
    }
    /// The transaction this one reverses.
    fn reversal_of(&self) -> Option<ID> {
        self.0.reversal_of.as_deref().map(ID::new)
    }
    /// The mirror transaction that reversed this one.
    fn reversed_by(&self) -> Option<ID> {
        self.0.reversed_by.as_deref().map(ID::new)
    }
    fn entries(&self) -> Vec<LedgerEntryNode> {
        self.0
            .entries
            .iter()
            .map(|e| LedgerEntryNode {
                id: ID::new(&e.id),
                account_id: ID::new(&e.line.account_id),
                entry_type: e.line.entry_type.into(),
                amount: decimal(e.line.amount, e.line.currency_in(&self.0.currency)),
                currency: e.line.currency_in(&self.0.currency).to_owned(),
                description: e.line.description.clone(),
            })
            .collect()
    }
    /// For a transaction across currencies, each other currency's debit total per unit
    /// of the transaction's currency: the rates it used. Empty in one currency.
    fn exchange_rates(&self) -> Vec<ImpliedRateNode> {
        let lines: Vec<_> = self.0.entries.iter().map(|e| e.line.clone()).collect();
        ledger_domain::transactions::implied_rates(&lines, &self.0.currency)
            .into_iter()
            .map(|(currency, rate)| ImpliedRateNode {
                currency,
                rate: Decimal(rate),
            })
            .collect()
    }
    fn posted_at(&self) -> Option<DateTime> {
        self.0.posted_at.map(DateTime::at)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.0.updated_at)
    }
    fn metadata(&self) -> Json {
        Json(self.0.metadata.clone())
    }
}

/// One line of a transaction.
#[derive(juniper::GraphQLObject)]
#[graphql(name = "LedgerEntryNode")]
pub struct LedgerEntryNode {
    id: ID,
    account_id: ID,
    entry_type: EntryType,
    /// In the line's currency (its account's).
    amount: Decimal,
    /// ISO 4217 code of the line's currency.
    currency: String,
    description: Option<String>,
}

/// A rate a cross-currency transaction used.
#[derive(juniper::GraphQLObject)]
#[graphql(name = "ImpliedRateNode")]
pub struct ImpliedRateNode {
    /// The other currency.
    currency: String,
    /// Its units per unit of the transaction's currency.
    rate: Decimal,
}

/// A customer, vendor, employee or other party (spec 2.5).
pub struct ContactNode(pub Contact);

/// A customer, vendor, employee or other party (spec 2.5).
#[graphql_object(name = "ContactNode", scalar = DefaultScalarValue)]
impl ContactNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    fn organization_id(&self) -> ID {
        ID::new(&self.0.organization_id)
    }
    fn contact_type(&self) -> ContactType {
        self.0.contact_type.into()
    }
    fn name(&self) -> &str {
        &self.0.fields.name
    }
    fn email(&self) -> Option<&str> {
        self.0.fields.email.as_deref()
    }
    fn phone(&self) -> Option<&str> {
        self.0.fields.phone.as_deref()
    }
    fn website(&self) -> Option<&str> {
        self.0.fields.website.as_deref()
    }
    /// Tax or VAT number.
    fn tax_id(&self) -> Option<&str> {
        self.0.fields.tax_number.as_deref()
    }
    fn reference(&self) -> Option<&str> {
        self.0.fields.reference.as_deref()
    }
    fn address(&self) -> Option<&str> {
        self.0.fields.address.as_deref()
    }
    fn city(&self) -> Option<&str> {
        self.0.fields.city.as_deref()
    }
    fn state(&self) -> Option<&str> {
        self.0.fields.state.as_deref()
    }
    fn zip_code(&self) -> Option<&str> {
        self.0.fields.zip_code.as_deref()
    }
    /// ISO 3166-1 alpha-2.
    fn country(&self) -> Option<&str> {
        self.0.fields.country.as_deref()
    }
    /// Default currency (ISO 4217 code).
    fn currency_id(&self) -> &str {
        &self.0.fields.currency_id
    }
    fn enabled(&self) -> bool {
        self.0.fields.enabled
    }
    /// Id of the API key that created it.
    fn created_by(&self) -> ID {
        ID::new(&self.0.created_by)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.0.updated_at)
    }
    fn metadata(&self) -> Json {
        Json(self.0.fields.metadata.clone())
    }
}

/// An attachment's metadata (spec: issue 18). Uploads, downloads and deletes are REST
/// only (`downloadUrl` is the REST path of the bytes).
pub struct AttachmentNode(pub Attachment);

#[graphql_object(name = "AttachmentNode", scalar = DefaultScalarValue)]
impl AttachmentNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    /// `transaction`, `invoice` or `bill`.
    fn owner_type(&self) -> &str {
        self.0.owner_type.as_str()
    }
    fn owner_id(&self) -> ID {
        ID::new(&self.0.owner_id)
    }
    fn file_name(&self) -> &str {
        &self.0.file_name
    }
    /// Sniffed from the bytes at upload.
    fn content_type(&self) -> &str {
        &self.0.content_type
    }
    /// Bytes.
    fn size(&self) -> GqlResult<i32> {
        int(self.0.size_bytes)
    }
    /// Lowercase hex SHA-256 of the bytes (also the download's ETag).
    fn sha256(&self) -> &str {
        &self.0.sha256
    }
    /// The REST path that answers the bytes (`GET`, with a key that reads them).
    fn download_url(&self) -> String {
        format!(
            "/organizations/{}/attachments/{}/content",
            self.0.organization_id, self.0.id
        )
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
}

/// The live attachments of an owner the caller already read, in the owner's tenant.
pub(crate) async fn attachment_nodes<St: Store>(
    context: &Ctx<St>,
    tenant: &ledger_domain::ports::Tenant,
    owner_type: OwnerKind,
    owner_id: &str,
) -> GqlResult<Vec<AttachmentNode>> {
    Ok(context
        .ledger
        .attachments_of(tenant, owner_type, owner_id)
        .await
        .gql()?
        .into_iter()
        .map(AttachmentNode)
        .collect())
}
