// Compiled by run.sh with `tsc --noEmit --strict` next to the types openapi-typescript
// generated from /openapi.json (ledger.d.ts): the typed answers a TypeScript client reads.
import type { components, paths } from "./ledger";

type Schemas = components["schemas"];

// Amounts in answers are decimal strings; in requests a string, or a whole number.
const entry: Schemas["TransactionEntryRequest"] = {
  account_id: "acc_01JD0000000000000000000000",
  amount: "12.50",
  entry_type: "debit",
};
const whole: Schemas["PositiveAmount"] = 12;

type Created =
  paths["/organizations/{org}/transactions"]["post"]["responses"][201]["content"]["application/json"];

export function postedLines(created: Created): string[] {
  return created.entries.map((e) => `${e.entry_type} ${e.amount} ${e.currency}`);
}

export function balanced(report: Schemas["TrialBalance"]): boolean {
  return report.total_debits === report.total_credits && typeof report.as_of === "string";
}

export function equation(sheet: Schemas["BalanceSheet"]): [string, string] {
  return [sheet.total_assets, sheet.total_liabilities_and_equity];
}

export function netIncome(statement: Schemas["IncomeStatement"]): string {
  return statement.net_income;
}

// A number where the document says a decimal string must not compile.
// @ts-expect-error total_debits is a string
const wrong: Schemas["TrialBalance"]["total_debits"] = 1250;

export const used = [entry, whole, wrong];
