//! Tools of recurring schedules (DECISIONS 7's recurring group): list, get, the runs
//! history, create, update (pause and resume through `status`), run now and delete.

use super::rows::*;
use super::{Arg, Tool, Ty, Verb};

const SCHEDULE_ID: Arg = path_id("scheduleId", "Recurring schedule id (rec_...).");

const FREQUENCIES: &[&str] = &["monthly", "daily", "weekly", "quarterly", "yearly"];

pub(super) const TOOLS: &[Tool] = &[
    tool(
        "list_recurring_schedules",
        "List recurring schedules",
        "List the organization's recurring schedules of invoices, bills and transactions, oldest first: each with its template, frequency and interval, status and next run date. Returns a page with has_more.",
        Verb::Get,
        "/organizations/{organizationId}/recurring",
        &[limit(20), OFFSET],
    ),
    tool(
        "get_recurring_schedule",
        "Get recurring schedule",
        "Get one recurring schedule by id: what it generates (its template), the rule (frequency, interval, start, end or count), whether it is active, paused or completed, and its next run date.",
        Verb::Get,
        "/organizations/{organizationId}/recurring/{scheduleId}",
        &[SCHEDULE_ID],
    ),
    tool(
        "list_recurring_runs",
        "List recurring runs",
        "List the runs of a recurring schedule, newest occurrence first: the occurrence date, whether it succeeded or failed, the id of the invoice, bill or transaction it created, or the error.",
        Verb::Get,
        "/organizations/{organizationId}/recurring/{scheduleId}/runs",
        &[SCHEDULE_ID, limit(20), OFFSET],
    ),
    tool(
        "create_recurring_schedule",
        "Create recurring schedule",
        "Schedule an invoice, bill or transaction to be created on every occurrence of a rule (e.g. monthly from a start date; the 31st becomes the last day of shorter months). The template is validated now.",
        Verb::Post,
        "/organizations/{organizationId}/recurring",
        &[
            req_body(
                "recurableType",
                Ty::Enum(&["invoice", "bill", "transaction"]),
                "What each occurrence creates.",
            ),
            req_body(
                "template",
                Ty::Object,
                "The create body of that resource, snake_case as in REST (e.g. contact_id, items; or description, entries). Its dates are replaced by each occurrence's date.",
            ),
            req_body(
                "frequency",
                Ty::Enum(FREQUENCIES),
                "Calendar unit of the rule.",
            ),
            opt_body(
                "interval",
                Ty::Int,
                "Units between occurrences (default 1).",
            ),
            opt_body(
                "startDate",
                Ty::Date,
                "First occurrence and anchor day (YYYY-MM-DD); default today.",
            ),
            opt_body(
                "endDate",
                Ty::Date,
                "Last day an occurrence may fall on (inclusive).",
            ),
            opt_body("count", Ty::Int, "Most occurrences to create."),
            opt_body(
                "autoSend",
                Ty::Bool,
                "Invoices only: send each one when created.",
            ),
            opt_body("name", Ty::Str, "A name for the schedule."),
        ],
    ),
    tool(
        "update_recurring_schedule",
        "Update recurring schedule",
        "Change a recurring schedule's rule, end, template or name, or pause (status paused) and resume (status active) it. A changed rule applies from today; resuming skips what fell due while paused.",
        Verb::Put,
        "/organizations/{organizationId}/recurring/{scheduleId}",
        &[
            SCHEDULE_ID,
            opt_body(
                "status",
                Ty::Enum(&["active", "paused"]),
                "paused stops generating; active resumes.",
            ),
            opt_body("frequency", Ty::Enum(FREQUENCIES), "New calendar unit."),
            opt_body(
                "interval",
                Ty::Int,
                "New number of units between occurrences.",
            ),
            opt_body("startDate", Ty::Date, "New anchor (YYYY-MM-DD)."),
            opt_body("endDate", Ty::Date, "New last day (YYYY-MM-DD)."),
            opt_body("count", Ty::Int, "New most occurrences."),
            opt_body("template", Ty::Object, "New create body (validated now)."),
            opt_body(
                "autoSend",
                Ty::Bool,
                "Invoices only: send each one when created.",
            ),
            opt_body("name", Ty::Str, "New name."),
        ],
    ),
    tool(
        "run_recurring_schedule",
        "Run recurring schedule now",
        "Create the schedule's invoice, bill or transaction now, dated today, outside its rule (the next scheduled date stays). Returns the run: succeeded with the document id, or failed with the error.",
        Verb::Post,
        "/organizations/{organizationId}/recurring/{scheduleId}/run",
        &[SCHEDULE_ID],
    ),
    tool(
        "delete_recurring_schedule",
        "Delete recurring schedule",
        "Delete a recurring schedule (soft delete, recoverable for seven days): nothing more is generated. Documents it already created stay. Needs admin. Returns the deletion.",
        Verb::Delete,
        "/organizations/{organizationId}/recurring/{scheduleId}",
        &[SCHEDULE_ID],
    ),
];
