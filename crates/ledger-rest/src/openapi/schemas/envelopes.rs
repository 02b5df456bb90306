//! The envelopes every resource shares: the error envelope with its stable codes, the
//! request envelope of a queued write, and the answer to a delete; the views the
//! handlers serialize.

use ledger_domain::views;

pub(crate) type ErrorEnvelope = views::ErrorEnvelopeView;
pub(crate) type QueuedRequest = views::QueuedRequestView<'static>;
pub(crate) type Deleted = views::DeletedView<'static>;
