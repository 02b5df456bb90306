//! Bank reconciliations, their imported statement lines and the answer to an import: the
//! views the handlers serialize.

use ledger_domain::views;

pub(crate) type Reconciliation = views::ReconciliationView<'static>;
pub(crate) type ReconciliationList = views::List<views::ReconciliationView<'static>>;
pub(crate) type StatementLine = views::StatementLineView<'static>;
pub(crate) type StatementLineList = views::List<views::StatementLineView<'static>>;
pub(crate) type StatementImport = views::StatementImportView<'static>;
