//! What runs on its own: recurring schedules with their runs, and webhook endpoints with
//! their deliveries; the views the handlers serialize.

use ledger_domain::recurring::{RecurringRunView, RecurringScheduleView};
use ledger_domain::views;

pub(crate) type RecurringSchedule = RecurringScheduleView<'static>;
pub(crate) type RecurringScheduleList = views::List<RecurringScheduleView<'static>>;
pub(crate) type RecurringRun = RecurringRunView<'static>;
pub(crate) type RecurringRunList = views::List<RecurringRunView<'static>>;
pub(crate) type WebhookEndpoint = views::WebhookEndpointView<'static>;
pub(crate) type WebhookEndpointList = views::List<views::WebhookEndpointView<'static>>;
pub(crate) type WebhookDelivery = views::WebhookDeliveryView<'static>;
pub(crate) type WebhookDeliveryList = views::List<views::WebhookDeliveryView<'static>>;
