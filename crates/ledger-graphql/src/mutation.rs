//! The mutation root (spec 4.12) with its credit costs: account create/update 1
//! (synchronous), account delete 1 (queued), transaction create 2, contact
//! create/update/delete 1 each (queued), invoice/bill create 5 and invoice/bill
//! payment 2 (queued). Queued writes are run and awaited, so the
//! mutation answers what it wrote.
//!
//! Every field is nullable: a refused alias answers `null` with its error (naming its
//! path) and the other aliases of the operation keep their results. Mutations run in
//! document order.
//! `purchaseCredits` is free and needs `admin`: it opens a hosted checkout and answers
//! its URL; the credits are added when the payment is confirmed. The x402 pair
//! (`startX402CreditPurchase`, `completeX402CreditPurchase`) is free and needs `admin`
//! too, and runs the same domain call as REST's x402 endpoint.

use std::marker::PhantomData;

use juniper::{DefaultScalarValue, GraphQLInputObject, ID, graphql_object};
use ledger_domain::DomainError;
use ledger_domain::contacts::ContactChanges;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{
    AccountChanges, EntryInput, NewAccountInput, NewContactInput, NewTransactionInput, Write,
};

use crate::context::{Ctx, id_of};
use crate::documents::{BillItemInput, BillNode, InvoiceItemInput, InvoiceNode, PaymentNode};
use crate::errors::{GqlResult, IntoGql, field_error};
use crate::exchange::ExchangeRateNode;
use crate::nodes::{
    AccountNode, AccountStatus, AccountType, ContactNode, ContactType, EntryType, TransactionNode,
};
use crate::ownership::{OrganizationRelationship, OrganizationTransferNode};
use crate::reconciliations::{ReconciliationNode, StatementImportNode, StatementLineNode};
use crate::scalars::{DateTime, Decimal, Json};
use crate::transfers::TransferNode;
use ledger_domain::documents::DocumentKind;
use ledger_domain::services::ReconciliationChanges;
use ledger_domain::services::{Access, TransferInput};

/// Submits a transfer write and reads the transfer back.
async fn written_transfer<St: Store>(
    context: &Ctx<St>,
    access: &Access,
    write: Write,
) -> GqlResult<Option<TransferNode<St>>> {
    let view = context.submit(access, write).await?;
    let transaction = context
        .ledger
        .get_transfer(access, &id_of(&view)?)
        .await
        .gql()?;
    Ok(TransferNode::of(transaction))
}

/// The transactions a batch's result names, read back.
async fn batch_nodes<St: Store>(
    context: &Ctx<St>,
    access: &Access,
    view: &serde_json::Value,
) -> GqlResult<Option<Vec<TransactionNode<St>>>> {
    let ids: Vec<String> = view["transactions"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|t| t["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut nodes = Vec::with_capacity(ids.len());
    for id in ids {
        let transaction = context.ledger.get_transaction(access, &id).await.gql()?;
        nodes.push(TransactionNode::new(transaction));
    }
    Ok(Some(nodes))
}

/// Submits a transaction write and reads the transaction back.
async fn written_transaction<St: Store>(
    context: &Ctx<St>,
    access: &Access,
    write: Write,
) -> GqlResult<Option<TransactionNode<St>>> {
    let view = context.submit(access, write).await?;
    let transaction = context
        .ledger
        .get_transaction(access, &id_of(&view)?)
        .await
        .gql()?;
    Ok(Some(TransactionNode::new(transaction)))
}

/// One line of a new transaction.
#[derive(Debug, GraphQLInputObject)]
pub struct LedgerEntryInput {
    pub account_id: ID,
    pub entry_type: EntryType,
    /// Positive, at most the currency's decimals.
    pub amount: Decimal,
    pub description: Option<String>,
    /// Accepted for the spec's shape; entries carry no reference of their own yet, so a
    /// given value is refused rather than dropped.
    pub reference: Option<String>,
}

/// One transaction of a batch (`createTransactions`).
#[derive(Debug, GraphQLInputObject)]
pub struct TransactionInput {
    pub description: String,
    pub date: DateTime,
    pub entries: Vec<LedgerEntryInput>,
    pub currency: Option<String>,
    pub reference: Option<String>,
    pub auto_post: Option<bool>,
    pub contact_id: Option<ID>,
    pub category_id: Option<ID>,
}

/// The domain lines of GraphQL entries (`prefix` names a batch item in errors).
fn entry_inputs(entries: Vec<LedgerEntryInput>, prefix: &str) -> GqlResult<Vec<EntryInput>> {
    let mut lines = Vec::with_capacity(entries.len());
    for (i, e) in entries.into_iter().enumerate() {
        if e.reference.as_deref().is_some_and(|r| !r.trim().is_empty()) {
            return Err(field_error(DomainError::invalid_field(
                format!("{prefix}entries[{i}].reference"),
                "entry references are not supported yet; use the transaction's reference",
            )));
        }
        lines.push(EntryInput {
            account_id: e.account_id.to_string(),
            entry_type: match e.entry_type {
                EntryType::Debit => "debit",
                EntryType::Credit => "credit",
            }
            .to_owned(),
            amount: e.amount.0,
            description: e.description,
        });
    }
    Ok(lines)
}

/// The mutation root.
pub struct Mutation<St>(pub(crate) PhantomData<fn() -> St>);

/// The mutation root.
#[graphql_object(name = "Mutation", context = Ctx<St>, scalar = DefaultScalarValue)]
impl<St: Store> Mutation<St> {
    /// Opens a hosted checkout for the credit package of `creditAmount` credits (free;
    /// needs `admin`). Pay at `checkoutUrl` before `expiresAt`; the credits are added once
    /// the payment is confirmed. Test keys use the development checkout (no money, no
    /// live credits).
    async fn purchase_credits(
        context: &Ctx<St>,
        credit_amount: i32,
        success_url: Option<String>,
        cancel_url: Option<String>,
    ) -> GqlResult<Option<crate::credits::CreditPurchaseNode>> {
        let access = context.own(Scope::Admin, "credits").await?;
        let input = ledger_domain::services::PurchaseInput {
            package_id: None,
            credit_amount: Some(i64::from(credit_amount)),
            success_url,
            cancel_url,
        };
        let purchase = context
            .ledger
            .purchase_credits(&access, input)
            .await
            .gql()?;
        crate::credits::CreditPurchaseNode::of(&purchase, context.ledger.now()).map(Some)
    }

    /// Asks to buy a credit package with x402 (free; needs `admin`): answers the payment
    /// requirements, what REST's 402 carries in `PAYMENT-REQUIRED` (as a typed object and
    /// as that header's value). Sign one of `accepts` (an EIP-3009 authorization as EIP-712
    /// typed data) and send it with `completeX402CreditPurchase`. In `organizationId`
    /// (default the key's own); credits go to its root's pool. Nothing is written.
    async fn start_x402_credit_purchase(
        context: &Ctx<St>,
        organization_id: Option<ID>,
        input: crate::credits::StartX402CreditPurchaseInput,
    ) -> GqlResult<Option<crate::credits::X402PaymentRequiredNode>> {
        crate::credits::start_x402(context, organization_id.as_deref(), input)
            .await
            .map(Some)
    }

    /// Pays for a credit package with a signed x402 payment (free; needs `admin`):
    /// verified and settled, the purchase is completed and its credits added once;
    /// answers the purchase and the settlement (REST's `PAYMENT-RESPONSE`). A refused
    /// payment changes nothing and is the field's error (`BUSINESS_RULE_VIOLATION`,
    /// `reason` `payment_replayed`, `payment_signature_invalid`, `payment_invalid`,
    /// `payment_amount_mismatch`, `payment_recipient_mismatch`, `payment_expired` or
    /// `payment_required`, with the requirements in `extensions.paymentRequired`).
    async fn complete_x402_credit_purchase(
        context: &Ctx<St>,
        organization_id: Option<ID>,
        input: crate::credits::CompleteX402CreditPurchaseInput,
    ) -> GqlResult<Option<crate::credits::X402CreditPurchaseNode>> {
        crate::credits::complete_x402(context, organization_id.as_deref(), input)
            .await
            .map(Some)
    }

    /// Creates an account (1 credit).
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per GraphQL argument"
    )]
    async fn create_account(
        context: &Ctx<St>,
        code: String,
        name: String,
        account_type: AccountType,
        description: Option<String>,
        parent_account_id: Option<ID>,
        currency: Option<String>,
        subtype: Option<String>,
        metadata: Option<Json>,
    ) -> GqlResult<Option<AccountNode<St>>> {
        let access = context.own(Scope::Write, "accounts").await?;
        let input = NewAccountInput {
            code,
            name,
            account_type: account_type.as_str().to_owned(),
            subtype,
            currency,
            description,
            parent_id: parent_account_id.map(|id| id.to_string()),
            metadata: metadata.map(|m| m.0),
        };
        let view = context.submit(&access, Write::CreateAccount(input)).await?;
        let account = context
            .ledger
            .get_account(&access, &id_of(&view)?)
            .await
            .gql()?;
        Ok(Some(AccountNode::one(&access, account)))
    }

    /// Changes an account's name, description or status (1 credit). The code of an
    /// account is fixed at creation.
    async fn update_account(
        context: &Ctx<St>,
        id: ID,
        name: Option<String>,
        description: Option<String>,
        status: Option<AccountStatus>,
    ) -> GqlResult<Option<AccountNode<St>>> {
        let access = context.own(Scope::Write, "accounts").await?;
        let changes = AccountChanges {
            name,
            description,
            status: status.map(|s| s.as_str().to_owned()),
            ..AccountChanges::default()
        };
        let write = Write::UpdateAccount {
            id: id.to_string(),
            changes,
        };
        let view = context.submit(&access, write).await?;
        let account = context
            .ledger
            .get_account(&access, &id_of(&view)?)
            .await
            .gql()?;
        Ok(Some(AccountNode::one(&access, account)))
    }

    /// Soft-deletes an account without entries (1 credit; needs `admin`).
    async fn delete_account(context: &Ctx<St>, id: ID) -> GqlResult<Option<bool>> {
        let access = context.own(Scope::Admin, "accounts").await?;
        let write = Write::DeleteAccount { id: id.to_string() };
        context.submit(&access, write).await?;
        Ok(Some(true))
    }

    /// Creates a transaction (2 credits), posted at once with `autoPost: true`. The
    /// debits must equal the credits. `dryRun: true` validates it and answers the
    /// would-be transaction, writing nothing and charging nothing.
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per GraphQL argument"
    )]
    async fn create_transaction(
        context: &Ctx<St>,
        description: String,
        date: DateTime,
        entries: Vec<LedgerEntryInput>,
        currency: Option<String>,
        reference: Option<String>,
        auto_post: Option<bool>,
        contact_id: Option<ID>,
        category_id: Option<ID>,
        metadata: Option<Json>,
        dry_run: Option<bool>,
    ) -> GqlResult<Option<TransactionNode<St>>> {
        let access = context.own(Scope::Write, "transactions").await?;
        let lines = entry_inputs(entries, "")?;
        let input = NewTransactionInput {
            description,
            date: Some(date.0.at),
            currency,
            reference,
            entries: lines,
            metadata: metadata.map(|m| m.0),
            auto_post: auto_post.unwrap_or(false),
            contact_id: contact_id.map(|id| id.to_string()),
            category_id: category_id.map(|id| id.to_string()),
        };
        if dry_run.unwrap_or(false) {
            // Validated and priced like a create; nothing is written or charged, and the
            // id is the one it would have had.
            let preview = context
                .ledger
                .preview_transaction(&access, input)
                .await
                .gql()?;
            return Ok(Some(TransactionNode::new(preview)));
        }
        let view = context
            .submit(&access, Write::CreateTransaction(input))
            .await?;
        let id = id_of(&view)?;
        let transaction = context.ledger.get_transaction(&access, &id).await.gql()?;
        Ok(Some(TransactionNode::new(transaction)))
    }

    /// Creates up to 1 000 transactions at once, all or none (2 credits each): a refused
    /// one refuses the batch, its index in the error's `index` and `field`.
    async fn create_transactions(
        context: &Ctx<St>,
        transactions: Vec<TransactionInput>,
    ) -> GqlResult<Option<Vec<TransactionNode<St>>>> {
        let access = context.own(Scope::Write, "transactions").await?;
        let mut inputs = Vec::with_capacity(transactions.len());
        for (i, t) in transactions.into_iter().enumerate() {
            inputs.push(NewTransactionInput {
                description: t.description,
                date: Some(t.date.0.at),
                currency: t.currency,
                reference: t.reference,
                entries: entry_inputs(t.entries, &format!("transactions[{i}]."))?,
                metadata: None,
                auto_post: t.auto_post.unwrap_or(false),
                contact_id: t.contact_id.map(|id| id.to_string()),
                category_id: t.category_id.map(|id| id.to_string()),
            });
        }
        let view = context
            .submit(&access, Write::CreateTransactionBatch(inputs))
            .await?;
        batch_nodes(context, &access, &view).await
    }

    /// Revalues the open currency positions at the end of `date` (default today): posts
    /// the unrealised gain or loss on that day and its reversal the next (1 credit each).
    async fn revalue_currencies(
        context: &Ctx<St>,
        date: Option<DateTime>,
    ) -> GqlResult<Option<Vec<TransactionNode<St>>>> {
        let access = context.own(Scope::Write, "transactions").await?;
        let write = Write::Revalue {
            date: date.map(|d| d.0.at.date()),
        };
        let view = context.submit(&access, write).await?;
        batch_nodes(context, &access, &view).await
    }

    /// Posts a pending transaction (1 credit).
    async fn post_transaction(context: &Ctx<St>, id: ID) -> GqlResult<Option<TransactionNode<St>>> {
        let access = context.own(Scope::Write, "transactions").await?;
        let write = Write::PostTransaction { id: id.to_string() };
        written_transaction(context, &access, write).await
    }

    /// Reverses a posted transaction with a posted mirror (1 credit); `reason` is
    /// required.
    async fn reverse_transaction(
        context: &Ctx<St>,
        id: ID,
        reason: String,
    ) -> GqlResult<Option<TransactionNode<St>>> {
        let access = context.own(Scope::Write, "transactions").await?;
        let write = Write::ReverseTransaction {
            id: id.to_string(),
            reason: Some(reason),
        };
        written_transaction(context, &access, write).await
    }

    /// Creates a transfer between two accounts (1 credit), pending unless `autoPost`.
    /// Between currencies `toAmount` is what the destination receives.
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per GraphQL argument"
    )]
    async fn create_transfer(
        context: &Ctx<St>,
        from_account_id: ID,
        to_account_id: ID,
        amount: Decimal,
        to_amount: Option<Decimal>,
        date: Option<DateTime>,
        description: Option<String>,
        reference: Option<String>,
        auto_post: Option<bool>,
        metadata: Option<Json>,
    ) -> GqlResult<Option<TransferNode<St>>> {
        let access = context.own(Scope::Write, "transfers").await?;
        let input = TransferInput {
            from_account_id: from_account_id.to_string(),
            to_account_id: to_account_id.to_string(),
            amount: amount.0,
            to_amount: to_amount.map(|a| a.0),
            date: date.map(|d| d.0.at),
            description,
            reference,
            metadata: metadata.map(|m| m.0),
            auto_post: auto_post.unwrap_or(false),
        };
        written_transfer(context, &access, Write::CreateTransfer(input)).await
    }

    /// Posts a pending transfer (1 credit).
    async fn post_transfer(context: &Ctx<St>, id: ID) -> GqlResult<Option<TransferNode<St>>> {
        let access = context.own(Scope::Write, "transfers").await?;
        let write = Write::PostTransfer { id: id.to_string() };
        written_transfer(context, &access, write).await
    }

    /// Reverses a posted transfer (1 credit); `reason` is required.
    async fn reverse_transfer(
        context: &Ctx<St>,
        id: ID,
        reason: String,
    ) -> GqlResult<Option<TransferNode<St>>> {
        let access = context.own(Scope::Write, "transfers").await?;
        let write = Write::ReverseTransfer {
            id: id.to_string(),
            reason: Some(reason),
        };
        written_transfer(context, &access, write).await
    }

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
        let view = context.submit(&access, Write::CreateContact(input)).await?;
        let id = id_of(&view)?;
        let contact = context.ledger.get_contact(&access, &id).await.gql()?;
        Ok(Some(ContactNode(contact)))
    }

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

    /// Creates a draft invoice (5 credits). Dates take a `YYYY-MM-DD` date or a date-time
    /// (its UTC date).
    async fn create_invoice(
        context: &Ctx<St>,
        contact_id: ID,
        invoice_date: DateTime,
        due_date: DateTime,
        items: Vec<InvoiceItemInput>,
        notes: Option<String>,
    ) -> GqlResult<Option<InvoiceNode<St>>> {
        let items = items.into_iter().map(Into::into).collect();
        let node = crate::documents::create(
            context,
            DocumentKind::Invoice,
            contact_id,
            invoice_date,
            due_date,
            items,
            notes,
        )
        .await?;
        Ok(Some(InvoiceNode(node)))
    }

    /// Creates a draft bill (5 credits).
    async fn create_bill(
        context: &Ctx<St>,
        contact_id: ID,
        bill_date: DateTime,
        due_date: DateTime,
        items: Vec<BillItemInput>,
        notes: Option<String>,
    ) -> GqlResult<Option<BillNode<St>>> {
        let items = items.into_iter().map(Into::into).collect();
        let node = crate::documents::create(
            context,
            DocumentKind::Bill,
            contact_id,
            bill_date,
            due_date,
            items,
            notes,
        )
        .await?;
        Ok(Some(BillNode(node)))
    }

    /// Records a payment on a sent invoice (2 credits). The money goes into `accountId`
    /// (an asset account in the invoice's currency; default Cash).
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per GraphQL argument"
    )]
    async fn record_invoice_payment(
        context: &Ctx<St>,
        invoice_id: ID,
        amount: Decimal,
        payment_date: DateTime,
        payment_method: String,
        reference: Option<String>,
        notes: Option<String>,
        account_id: Option<ID>,
    ) -> GqlResult<Option<PaymentNode>> {
        let payment = crate::documents::pay(
            context,
            DocumentKind::Invoice,
            invoice_id,
            amount,
            payment_date,
            payment_method,
            reference,
            notes,
            account_id,
        )
        .await?;
        Ok(Some(payment))
    }

    /// Records a payment on an approved bill (2 credits). The money leaves `accountId`
    /// (an asset account in the bill's currency; default Cash).
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per GraphQL argument"
    )]
    async fn record_bill_payment(
        context: &Ctx<St>,
        bill_id: ID,
        amount: Decimal,
        payment_date: DateTime,
        payment_method: String,
        reference: Option<String>,
        notes: Option<String>,
        account_id: Option<ID>,
    ) -> GqlResult<Option<PaymentNode>> {
        let payment = crate::documents::pay(
            context,
            DocumentKind::Bill,
            bill_id,
            amount,
            payment_date,
            payment_method,
            reference,
            notes,
            account_id,
        )
        .await?;
        Ok(Some(payment))
    }

    /// Sends a draft invoice: it is posted to the books (1 credit; beyond spec 4.12's
    /// table, as REST's `POST /invoices/{id}/send`).
    async fn send_invoice(context: &Ctx<St>, id: ID) -> GqlResult<Option<InvoiceNode<St>>> {
        let node = crate::documents::issue(context, DocumentKind::Invoice, &id).await?;
        Ok(Some(InvoiceNode(node)))
    }

    /// Approves a draft bill: it is posted to the books (1 credit; beyond spec 4.12's
    /// table, as REST's `POST /bills/{id}/approve`).
    async fn approve_bill(context: &Ctx<St>, id: ID) -> GqlResult<Option<BillNode<St>>> {
        let node = crate::documents::issue(context, DocumentKind::Bill, &id).await?;
        Ok(Some(BillNode(node)))
    }

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

    /// Creates a recurring schedule (1 credit): `template` is the create body of
    /// `recurableType` (REST's snake_case JSON, validated now), generated every
    /// `interval` `frequency` units from `startDate`, until `endDate` or `count`.
    async fn create_recurring_schedule(
        context: &Ctx<St>,
        organization_id: Option<ID>,
        input: crate::recurring::RecurringScheduleInputGql,
        template: Option<Json>,
    ) -> GqlResult<Option<crate::recurring::RecurringScheduleNode<St>>> {
        let node =
            crate::recurring::write(context, organization_id.as_deref(), None, input, template)
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
}
