"""The Python client that openapi-python-client generates from `/openapi.json`, used as a
client author would use it: only its `api` modules, its models and its `Client` /
`AuthenticatedClient`, never raw HTTP.

1. Sign-up (`organizations_master`, no key) gives a test key and the organization.
2. Four accounts (`accounts_create`), then `accounts_list` finds them.
3. Two transactions with `Prefer: wait=10` (the generated functions take the header as
   the `prefer` argument): each answer is 201 with the posted `Transaction`.
4. The cash account's balance (`accounts_balance`) and the three reports, read through
   their typed attributes; every amount is a decimal string, compared as
   `decimal.Decimal`, and every moment a `datetime`.

Usage: python_client.py BASE_URL CLIENT_DIR, where CLIENT_DIR holds the generated
package `ledger_rest_api_client`. Prints `ok: ...` per step; exits non-zero on failure.
"""

import datetime
import sys
from decimal import Decimal
from http import HTTPStatus

sys.path.insert(0, sys.argv[2])

from ledger_rest_api_client import AuthenticatedClient, Client  # noqa: E402
from ledger_rest_api_client.api.accounts import (  # noqa: E402
    accounts_balance,
    accounts_create,
    accounts_list,
)
from ledger_rest_api_client.api.organizations import organizations_master  # noqa: E402
from ledger_rest_api_client.api.reports import (  # noqa: E402
    reports_balance_sheet,
    reports_income_statement,
    reports_trial_balance,
)
from ledger_rest_api_client.api.transactions import transactions_create  # noqa: E402
from ledger_rest_api_client.models import (  # noqa: E402
    Account,
    AccountBalance,
    AccountCreateRequest,
    AccountCreateRequestAccountType,
    AccountList,
    BalanceSheet,
    IncomeStatement,
    OrganizationMasterRequest,
    Signup,
    Transaction,
    TransactionCreateRequest,
    TransactionEntryRequest,
    TransactionEntryRequestEntryType,
    TrialBalance,
)

BASE = sys.argv[1]


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def answer(response, status: HTTPStatus, model: type):
    """The parsed answer, after checking its status and type (the whole answer on failure)."""
    check(
        response.status_code == status and isinstance(response.parsed, model),
        f"expected {status.value} {model.__name__}, got {response.status_code}: {response.content!r}",
    )
    return response.parsed


def main() -> None:
    anonymous = Client(base_url=BASE, raise_on_unexpected_status=True)
    signup = answer(
        organizations_master.sync_detailed(
            client=anonymous,
            body=OrganizationMasterRequest(
                name="Generated client",
                user_provider_id="python-client",
                user_email="python-client@example.com",
            ),
        ),
        HTTPStatus.CREATED,
        Signup,
    )
    check(signup.api_key is not None and signup.api_key.key, "the sign-up shows its test key")
    org = signup.organization.id
    print(f"ok: sign-up ({org})")

    client = AuthenticatedClient(base_url=BASE, token=signup.api_key.key, raise_on_unexpected_status=True)
    kind = AccountCreateRequestAccountType
    accounts: dict[str, Account] = {}
    for code, name, account_type in [
        ("1901", "Till", kind.ASSET),
        ("3901", "Owner capital", kind.EQUITY),
        ("4901", "Market sales", kind.REVENUE),
        ("5901", "Stall rent", kind.EXPENSE),
    ]:
        made = answer(
            accounts_create.sync_detailed(
                org,
                client=client,
                body=AccountCreateRequest(account_type=account_type, code=code, name=name),
                prefer="wait=10",
            ),
            HTTPStatus.CREATED,
            Account,
        )
        check(made.code == code and made.type_ == account_type.value, f"account {code}: {made}")
        accounts[code] = made
    listed = answer(accounts_list.sync_detailed(org, client=client, limit=100), HTTPStatus.OK, AccountList)
    listed_ids = {account.id for account in listed.data}
    check(all(a.id in listed_ids for a in accounts.values()), "the list holds the new accounts")
    check(listed.total_count >= len(accounts), "total_count counts them")
    print(f"ok: accounts ({len(accounts)} created, {listed.total_count} listed)")

    today = datetime.datetime.now(datetime.UTC).date()
    debit, credit = TransactionEntryRequestEntryType.DEBIT, TransactionEntryRequestEntryType.CREDIT
    for description, amount, debited, credited in [
        ("Sale", "1250.00", "1901", "4901"),
        ("Rent", "250.25", "5901", "1901"),
    ]:
        body = TransactionCreateRequest(
            date=today,
            description=description,
            auto_post=True,
            entries=[
                TransactionEntryRequest(account_id=accounts[debited].id, amount=amount, entry_type=debit),
                TransactionEntryRequest(account_id=accounts[credited].id, amount=amount, entry_type=credit),
            ],
        )
        made = answer(
            transactions_create.sync_detailed(org, client=client, body=body, prefer="wait=10"),
            HTTPStatus.CREATED,
            Transaction,
        )
        check(made.status == "posted", f"{description} is posted: {made.status}")
        check(len(made.entries) == 2, f"{description} has its two entries")
        check(
            all(Decimal(entry.amount) == Decimal(amount) for entry in made.entries),
            f"{description}'s entries carry {amount}",
        )
    print("ok: two waited transactions (201, posted)")

    cash = answer(
        accounts_balance.sync_detailed(org, accounts["1901"].id, client=client),
        HTTPStatus.OK,
        AccountBalance,
    )
    check(isinstance(cash.as_of, datetime.datetime), "as_of is a datetime")
    check(Decimal(cash.balance.debit) == Decimal("1250.00"), f"cash debits: {cash.balance.debit}")
    check(Decimal(cash.balance.credit) == Decimal("250.25"), f"cash credits: {cash.balance.credit}")
    check(Decimal(cash.balance.net) == Decimal("999.75"), f"cash net: {cash.balance.net}")
    print(f"ok: balance (till {cash.balance.net} {cash.currency})")

    trial = answer(reports_trial_balance.sync_detailed(org, client=client), HTTPStatus.OK, TrialBalance)
    check(isinstance(trial.as_of, datetime.datetime), "the trial balance's as_of is a datetime")
    check(Decimal(trial.total_debits) == Decimal(trial.total_credits), "debits equal credits")
    check(Decimal(trial.total_debits) == Decimal("1250.00"), f"total debits: {trial.total_debits}")
    check(
        sum(Decimal(row.debit) for row in trial.accounts) == Decimal(trial.total_debits),
        "the rows' debits add up to the total",
    )
    print(f"ok: trial balance ({trial.total_debits} = {trial.total_credits})")

    sheet = answer(reports_balance_sheet.sync_detailed(org, client=client), HTTPStatus.OK, BalanceSheet)
    check(
        Decimal(sheet.total_assets) == Decimal(sheet.total_liabilities_and_equity),
        "assets equal liabilities and equity",
    )
    check(Decimal(sheet.total_assets) == Decimal("999.75"), f"total assets: {sheet.total_assets}")
    check(Decimal(sheet.equity.current_earnings) == Decimal("999.75"), "current earnings")
    check(Decimal(sheet.assets.total) == Decimal(sheet.total_assets), "the assets section's total")
    print(f"ok: balance sheet ({sheet.total_assets} = {sheet.total_liabilities_and_equity})")

    income = answer(
        reports_income_statement.sync_detailed(org, client=client),
        HTTPStatus.OK,
        IncomeStatement,
    )
    check(isinstance(income.end_date, datetime.date), "end_date is a date")
    check(Decimal(income.total_revenue) == Decimal("1250.00"), f"revenue: {income.total_revenue}")
    check(Decimal(income.total_expenses) == Decimal("250.25"), f"expenses: {income.total_expenses}")
    check(
        Decimal(income.net_income) == Decimal(income.total_revenue) - Decimal(income.total_expenses),
        "net income is revenue less expenses",
    )
    print(f"ok: income statement (net income {income.net_income})")


if __name__ == "__main__":
    main()
