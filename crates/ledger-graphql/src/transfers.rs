//! Account-to-account transfers (DECISIONS 10) on GraphQL: the node the `transfer` and
//! `transfers` queries and the transfer mutations answer.

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::transactions::Transaction;
use ledger_domain::transfers::SOURCE;

use ledger_domain::ports::Store;

use crate::context::Ctx;
use crate::errors::GqlResult;
use crate::nodes::{CurrencyNode, TransactionNode, TransactionStatus, currency_node, decimal};
use crate::scalars::{DateTime, Decimal, Json};

/// A transfer between two accounts of the organization: a transaction written by
/// `transfer` (through the exchange accounts when the currencies differ).
pub struct TransferNode<St>(pub Transaction, std::marker::PhantomData<fn() -> St>);

impl<St: Store> TransferNode<St> {
    /// The transfer a transaction records, if it is one.
    pub fn of(transaction: Transaction) -> Option<Self> {
        (transaction.source.as_deref() == Some(SOURCE) && !transaction.entries.is_empty())
            .then_some(Self(transaction, std::marker::PhantomData))
    }

    fn source_line(&self) -> Option<&ledger_domain::transactions::EntryLine> {
        self.0.entries.first().map(|e| &e.line)
    }

    fn destination_line(&self) -> Option<&ledger_domain::transactions::EntryLine> {
        self.0.entries.last().map(|e| &e.line)
    }
}

/// A transfer between two accounts of the organization.
#[graphql_object(name = "TransferNode", context = Ctx<St>, scalar = DefaultScalarValue)]
impl<St: Store> TransferNode<St> {
    /// The transfer's id (its transaction's).
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    #[graphql(name = "fromAccountId")]
    fn source_account_id(&self) -> Option<ID> {
        self.source_line().map(|l| ID::new(&l.account_id))
    }
    #[graphql(name = "toAccountId")]
    fn destination_account_id(&self) -> Option<ID> {
        self.destination_line().map(|l| ID::new(&l.account_id))
    }
    /// What leaves the source account, in its currency.
    fn amount(&self) -> Option<Decimal> {
        self.source_line()
            .map(|l| decimal(l.amount, l.currency_in(&self.0.currency)))
    }
    fn currency(&self) -> GqlResult<Option<CurrencyNode>> {
        self.source_line()
            .map(|l| currency_node(l.currency_in(&self.0.currency)))
            .transpose()
    }
    /// What the destination account receives, in its currency.
    fn to_amount(&self) -> Option<Decimal> {
        self.destination_line()
            .map(|l| decimal(l.amount, l.currency_in(&self.0.currency)))
    }
    fn to_currency(&self) -> GqlResult<Option<CurrencyNode>> {
        self.destination_line()
            .map(|l| currency_node(l.currency_in(&self.0.currency)))
            .transpose()
    }
    /// `toAmount / amount`: the rate used.
    fn exchange_rate(&self) -> Option<Decimal> {
        match (self.source_line(), self.destination_line()) {
            (Some(from), Some(to)) => {
                Some(Decimal(ledger_domain::money::ratio(to.amount, from.amount)))
            }
            _ => None,
        }
    }
    fn date(&self) -> DateTime {
        DateTime::at(self.0.date)
    }
    fn description(&self) -> &str {
        &self.0.description
    }
    fn reference(&self) -> Option<&str> {
        self.0.reference.as_deref()
    }
    fn status(&self) -> TransactionStatus {
        self.0.status.into()
    }
    /// The mirror transaction that reversed it.
    fn reversed_by(&self) -> Option<ID> {
        self.0.reversed_by.as_deref().map(ID::new)
    }
    /// The transaction that records it, with its entries.
    fn transaction(&self) -> TransactionNode<St> {
        TransactionNode::new(self.0.clone())
    }
    fn metadata(&self) -> Json {
        Json(self.0.metadata.clone())
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
}
