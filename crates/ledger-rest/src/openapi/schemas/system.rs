//! The system's own records: audit events, the soft-delete trail, the system
//! information and readiness; the views the handlers serialize.

use ledger_domain::views;

pub(crate) type Event = ledger_domain::events::EventView<'static>;
pub(crate) type DeletionList = views::List<views::DeletionView<'static>>;
pub(crate) type SystemInfo = views::SystemInfoView<'static>;
pub(crate) type Readiness = views::ReadinessView;
