//! `Idempotency-Key` records inside write transactions: the guard every audited write
//! runs first, and the replay of a key a concurrent request committed first.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::ports::{IdempotencyRecord, StoreResult};

use crate::db::{Db, TxError, is_unique_violation};
use crate::rows::IdempotencyRow;
use crate::schema::idempotency_keys;

/// Inside a [`db_write!`] body: when the idempotency row `$record`
/// (`&Option<IdempotencyRow>`) names a key the tenant already used, returns
/// `Written::Replay` with the stored record (the transaction then writes nothing);
/// otherwise inserts it first, so a concurrent request with the same key waits on the
/// unique key and then fails with [`TxError::IdempotencyRace`].
macro_rules! idempotency_guard {
    ($conn:ident, $record:expr) => {
        if let Some(record) = $record {
            use $crate::schema::idempotency_keys as ik;
            let existing: Option<$crate::rows::IdempotencyRow> = ik::table
                .filter(tenant_of!(ik, record))
                .filter(ik::key.eq(&record.key))
                .select($crate::rows::IdempotencyRow::as_select())
                .first($conn)
                .await
                .optional()?;
            if let Some(row) = existing {
                let stored = ::ledger_domain::ports::IdempotencyRecord::from(row);
                let fresh = $crate::rows::record_of(record);
                if fresh.replays(&stored) {
                    return Ok(::ledger_domain::ports::Written::Replay(stored));
                }
                // Past the window (the domain's rule): the key is free again.
                diesel::delete(
                    ik::table
                        .filter(tenant_of!(ik, record))
                        .filter(ik::key.eq(&record.key)),
                )
                .execute($conn)
                .await?;
            }
            diesel::insert_into(ik::table)
                .values(record)
                .execute($conn)
                .await
                .map_err($crate::idempotency::idempotency_insert_error)?;
        }
    };
}

/// One audited write (the domain's [`Audit`](ledger_domain::ports::Audit)), in one write
/// transaction ([`db_write!`]), in the one order every audited write shares: replay an
/// idempotency key the tenant already used (else record it, see [`idempotency_guard!`]),
/// take the credits, run `$body` (a block that writes the rows and evaluates to the written
/// value; `?` and `return Err(..)` roll everything back), insert the audit event; then
/// [`settle_idempotent`]. Evaluates to `StoreResult<Written<T>>`.
macro_rules! audited {
    ($db:expr, $audit:expr, |$conn:ident| $body:block) => {{
        let ::ledger_domain::ports::Audit {
            event,
            idempotency,
            charge,
        } = $audit;
        let event_row = $crate::rows::EventRow::from(&event);
        let idem_row = idempotency.as_ref().map($crate::rows::IdempotencyRow::from);
        let written = db_write!($db, |$conn| {
            idempotency_guard!($conn, &idem_row);
            if let Some(charge) = &charge {
                $crate::credits::take_charge(
                    $conn,
                    charge,
                    &event_row.id,
                    None,
                    event_row.created_at,
                )
                .await?;
            }
            let value = $body;
            diesel::insert_into($crate::schema::events::table)
                .values(&event_row)
                .execute($conn)
                .await?;
            Ok(::ledger_domain::ports::Written::Done(value))
        });
        $crate::idempotency::settle_idempotent($db, written, idempotency).await
    }};
}

/// A write that records its event (`$event`, an `Event`) but takes no credits and no
/// idempotency key, in one write transaction ([`db_write!`]): `$body` (a block writing the
/// rows; `?` and `return Err(..)` roll everything back), then the event's insert.
/// Evaluates to `StoreResult<()>`.
macro_rules! with_event {
    ($db:expr, $event:expr, |$conn:ident| $body:block) => {{
        let event_row = $crate::rows::EventRow::from(&$event);
        db_write!($db, |$conn| {
            $body
            diesel::insert_into($crate::schema::events::table)
                .values(&event_row)
                .execute($conn)
                .await?;
            Ok(())
        })
        .map_err(::ledger_domain::StoreError::from)
    }};
}

/// Finishes an idempotent write: when a concurrent request with the same key committed
/// first (`TxError::IdempotencyRace`), answers that request's stored record instead.
pub(crate) async fn settle_idempotent<T>(
    db: &Db,
    written: Result<ledger_domain::ports::Written<T>, TxError>,
    idempotency: Option<IdempotencyRecord>,
) -> StoreResult<ledger_domain::ports::Written<T>> {
    match (written, idempotency) {
        (Err(TxError::IdempotencyRace), Some(record)) => Ok(ledger_domain::ports::Written::Replay(
            stored_idempotency(db, &record).await?,
        )),
        (written, _) => Ok(written?),
    }
}

/// The idempotency record already stored for `record`'s key, read after a write lost
/// the race to insert it (the unique key refused the second insert).
pub(crate) async fn stored_idempotency(
    db: &Db,
    record: &IdempotencyRecord,
) -> StoreResult<IdempotencyRecord> {
    let row: Option<IdempotencyRow> = db_read!(db, |conn| {
        Ok(idempotency_keys::table
            .filter(tenant_of!(idempotency_keys, record))
            .filter(idempotency_keys::key.eq(&record.key))
            .select(IdempotencyRow::as_select())
            .first(conn)
            .await
            .optional()?)
    })?;
    row.map(IdempotencyRecord::from).ok_or_else(|| {
        ledger_domain::StoreError::Internal("idempotency record vanished".to_owned())
    })
}

/// Maps a failed idempotency insert: a unique violation means a concurrent request
/// with the same key won; the caller replays its record.
pub(crate) fn idempotency_insert_error(e: diesel::result::Error) -> TxError {
    if is_unique_violation(&e) {
        TxError::IdempotencyRace
    } else {
        TxError::Db(e)
    }
}
