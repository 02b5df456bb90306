//! Organizations and what belongs to one as a tenant: sign-up, API keys, ownership
//! transfers, settings and billing; the views the handlers serialize.

use ledger_domain::views;

pub(crate) type Organization = views::OrganizationView<'static>;
pub(crate) type OrganizationList = views::List<views::SubOrganizationView<'static>>;
pub(crate) type Signup = views::SignupView<'static>;
pub(crate) type ApiKey = views::ApiKeyView<'static>;
pub(crate) type ApiKeyList = views::List<views::ApiKeyView<'static>>;
pub(crate) type OrganizationTransfer = views::OrganizationTransferView<'static>;
pub(crate) type OrganizationTransferList = views::List<views::OrganizationTransferView<'static>>;
pub(crate) type TransferStats = views::TransferStatsView<'static>;
pub(crate) type Setting = views::SettingView<'static>;
pub(crate) type Billing = views::BillingView<'static>;
