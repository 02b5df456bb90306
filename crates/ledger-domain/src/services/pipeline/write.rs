//! The writes of every interface, as clients ask for them before validation, and the
//! row of the cost table each is priced by.

use crate::contacts::ContactChanges;
use crate::documents::DocumentKind;
use crate::services::{
    AccountChanges, CategoryChanges, DocumentInput, ExchangeRateChanges, NewAccountInput,
    NewAttachmentInput, NewCategoryInput, NewContactInput, NewExchangeRateInput,
    NewReconciliationInput, NewTaxInput, NewTransactionInput, NewWebhookEndpointInput,
    OrganizationTransferInput, PaymentInput, ReconciliationChanges, RecurringScheduleInput,
    StatementImportInput, StatementTransactionInput, TaxChanges, TransactionChanges, TransferInput,
    WebhookEndpointChanges,
};

use super::Operation;

/// A write as a client asked for it, before validation.
#[derive(Debug, Clone)]
pub enum Write {
    CreateAccount(NewAccountInput),
    UpdateAccount {
        id: String,
        changes: AccountChanges,
    },
    DeleteAccount {
        id: String,
    },
    CreateTransaction(NewTransactionInput),
    UpdateTransaction {
        id: String,
        changes: TransactionChanges,
    },
    PostTransaction {
        id: String,
    },
    ReverseTransaction {
        id: String,
        reason: Option<String>,
    },
    DeleteTransaction {
        id: String,
    },
    CreateContact(NewContactInput),
    UpdateContact {
        id: String,
        changes: ContactChanges,
    },
    DeleteContact {
        id: String,
    },
    CreateTax(NewTaxInput),
    UpdateTax {
        id: String,
        changes: TaxChanges,
    },
    DeleteTax {
        id: String,
    },
    CreateCategory(NewCategoryInput),
    UpdateCategory {
        id: String,
        changes: CategoryChanges,
    },
    DeleteCategory {
        id: String,
    },
    CreateDocument {
        kind: DocumentKind,
        input: DocumentInput,
    },
    UpdateDocument {
        kind: DocumentKind,
        id: String,
        input: DocumentInput,
    },
    DeleteDocument {
        kind: DocumentKind,
        id: String,
    },
    /// Send an invoice or approve a bill.
    IssueDocument {
        kind: DocumentKind,
        id: String,
    },
    RecordPayment {
        kind: DocumentKind,
        id: String,
        payment: PaymentInput,
    },
    VoidDocument {
        kind: DocumentKind,
        id: String,
    },
    CreateTransfer(TransferInput),
    /// Several transaction creates, all or none.
    CreateTransactionBatch(Vec<NewTransactionInput>),
    /// Revalue the open currency positions at the end of a date (default today).
    Revalue {
        date: Option<time::Date>,
    },
    PostTransfer {
        id: String,
    },
    ReverseTransfer {
        id: String,
        reason: Option<String>,
    },
    CreateExchangeRate(NewExchangeRateInput),
    UpdateExchangeRate {
        id: String,
        changes: ExchangeRateChanges,
    },
    DeleteExchangeRate {
        id: String,
    },
    /// Initiate the ownership transfer of the access's organization.
    InitiateOrganizationTransfer(OrganizationTransferInput),
    /// Accept a transfer with `relationship` (`owned` or `linked`; required).
    AcceptOrganizationTransfer {
        id: String,
        relationship: Option<String>,
    },
    RejectOrganizationTransfer {
        id: String,
    },
    CancelOrganizationTransfer {
        id: String,
    },
    /// Upload an attachment (synchronous: the bytes and the row are written at once).
    CreateAttachment(NewAttachmentInput),
    DeleteAttachment {
        id: String,
    },
    CreateRecurringSchedule(RecurringScheduleInput),
    /// Change a schedule, pause (`status: paused`) or resume (`status: active`) it.
    UpdateRecurringSchedule {
        id: String,
        input: RecurringScheduleInput,
    },
    DeleteRecurringSchedule {
        id: String,
    },
    CreateWebhookEndpoint(NewWebhookEndpointInput),
    UpdateWebhookEndpoint {
        id: String,
        changes: WebhookEndpointChanges,
    },
    DeleteWebhookEndpoint {
        id: String,
    },
    RotateWebhookSecret {
        id: String,
    },
    /// Send a delivered or given-up delivery again.
    ReplayWebhookDelivery {
        endpoint_id: String,
        delivery_id: String,
    },
    CreateReconciliation(NewReconciliationInput),
    /// Change an open reconciliation's period or closing balance, match and unmatch.
    UpdateReconciliation {
        id: String,
        changes: ReconciliationChanges,
    },
    DeleteReconciliation {
        id: String,
    },
    CompleteReconciliation {
        id: String,
    },
    ImportStatement {
        id: String,
        input: StatementImportInput,
    },
    /// Match a statement line to `entry_id`, or to the entry proposed for it.
    AcceptStatementLine {
        id: String,
        line_id: String,
        entry_id: Option<String>,
    },
    CreateStatementTransaction {
        id: String,
        line_id: String,
        input: StatementTransactionInput,
    },
}

impl Write {
    /// The row of the cost table this write is priced by.
    pub fn operation(&self) -> Operation {
        match self {
            Self::CreateAccount(_) => Operation::AccountCreate,
            Self::UpdateAccount { .. } => Operation::AccountUpdate,
            Self::DeleteAccount { .. } => Operation::AccountDelete,
            Self::CreateTransaction(_) => Operation::TransactionCreate,
            Self::UpdateTransaction { .. } => Operation::TransactionUpdate,
            Self::PostTransaction { .. } => Operation::TransactionPost,
            Self::ReverseTransaction { .. } => Operation::TransactionReverse,
            Self::DeleteTransaction { .. } => Operation::TransactionDelete,
            Self::CreateContact(_) => Operation::ContactCreate,
            Self::UpdateContact { .. } => Operation::ContactUpdate,
            Self::DeleteContact { .. } => Operation::ContactDelete,
            Self::CreateTax(_) => Operation::TaxCreate,
            Self::UpdateTax { .. } => Operation::TaxUpdate,
            Self::DeleteTax { .. } => Operation::TaxDelete,
            Self::CreateCategory(_) => Operation::CategoryCreate,
            Self::UpdateCategory { .. } => Operation::CategoryUpdate,
            Self::DeleteCategory { .. } => Operation::CategoryDelete,
            Self::CreateDocument { kind, .. } => Operation::DocumentCreate(*kind),
            Self::UpdateDocument { kind, .. } => Operation::DocumentUpdate(*kind),
            Self::DeleteDocument { kind, .. } => Operation::DocumentDelete(*kind),
            Self::IssueDocument { kind, .. } => Operation::DocumentIssue(*kind),
            Self::RecordPayment { kind, .. } => Operation::DocumentPayment(*kind),
            Self::VoidDocument { kind, .. } => Operation::DocumentVoid(*kind),
            Self::CreateTransfer(_) => Operation::TransferCreate,
            Self::CreateTransactionBatch(items) => Operation::TransactionBatch(items.len()),
            Self::Revalue { .. } => Operation::Revaluation,
            Self::PostTransfer { .. } => Operation::TransferPost,
            Self::ReverseTransfer { .. } => Operation::TransferReverse,
            Self::CreateExchangeRate(_) => Operation::ExchangeRateCreate,
            Self::UpdateExchangeRate { .. } => Operation::ExchangeRateUpdate,
            Self::DeleteExchangeRate { .. } => Operation::ExchangeRateDelete,
            Self::InitiateOrganizationTransfer(_) => Operation::OrganizationTransferInitiate,
            Self::AcceptOrganizationTransfer { .. } => Operation::OrganizationTransferAccept,
            Self::RejectOrganizationTransfer { .. } => Operation::OrganizationTransferReject,
            Self::CancelOrganizationTransfer { .. } => Operation::OrganizationTransferCancel,
            Self::CreateAttachment(_) => Operation::AttachmentCreate,
            Self::DeleteAttachment { .. } => Operation::AttachmentDelete,
            Self::CreateRecurringSchedule(_) => Operation::RecurringScheduleCreate,
            Self::UpdateRecurringSchedule { .. } => Operation::RecurringScheduleUpdate,
            Self::DeleteRecurringSchedule { .. } => Operation::RecurringScheduleDelete,
            Self::CreateWebhookEndpoint(_) => Operation::WebhookEndpointCreate,
            Self::UpdateWebhookEndpoint { .. } => Operation::WebhookEndpointUpdate,
            Self::DeleteWebhookEndpoint { .. } => Operation::WebhookEndpointDelete,
            Self::RotateWebhookSecret { .. } => Operation::WebhookSecretRotate,
            Self::ReplayWebhookDelivery { .. } => Operation::WebhookDeliveryReplay,
            Self::CreateReconciliation(_) => Operation::ReconciliationCreate,
            Self::UpdateReconciliation { .. } => Operation::ReconciliationUpdate,
            Self::DeleteReconciliation { .. } => Operation::ReconciliationDelete,
            Self::CompleteReconciliation { .. } => Operation::ReconciliationComplete,
            Self::ImportStatement { .. } => Operation::StatementImport,
            Self::AcceptStatementLine { .. } => Operation::StatementLineAccept,
            Self::CreateStatementTransaction { .. } => Operation::StatementLineTransaction,
        }
    }
}
