//! The reference data of an organization: taxes, categories, currencies and exchange
//! rates, and a conversion between currencies; the views the handlers serialize.

use ledger_domain::views;

pub(crate) type Tax = views::TaxView<'static>;
pub(crate) type TaxList = views::List<views::TaxSummaryView<'static>>;
pub(crate) type Category = views::CategoryView<'static>;
pub(crate) type CategoryList = views::List<views::CategorySummaryView<'static>>;
pub(crate) type Currency = views::CurrencyView;
pub(crate) type CurrencyList = views::List<views::CurrencyView>;
pub(crate) type ExchangeRate = views::ExchangeRateView<'static>;
pub(crate) type ExchangeRateList = views::List<views::ExchangeRateView<'static>>;
pub(crate) type Conversion = views::ConversionView<'static>;
