//! A thread of its own for each SQLite connection.
//!
//! diesel-async's default for [`SyncConnectionWrapper`](diesel_async::sync_connection_wrapper::SyncConnectionWrapper)
//! runs every statement with `spawn_blocking` on the Tokio runtime that *opened* the
//! connection. A pooled connection outlives that runtime's interest in it: one opened
//! inside an actix worker's runtime is later used by requests of other workers and by the
//! queue workers, and when that worker's runtime stops first (graceful shutdown stops the
//! idle workers before the busy ones) every statement on the connection fails with "task
//! was cancelled" — requests still in flight answered 500. The default also blocks in
//! place when a statement's future is dropped, which a current-thread runtime (an actix
//! worker's) does not allow.
//!
//! Here each connection owns one OS thread that runs its statements in order; the thread
//! ends when the connection is dropped. No runtime is involved, so a statement runs to its
//! end whichever runtime asked for it and whichever runtimes have stopped since.

use std::error::Error;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::mpsc;

use diesel_async::sync_connection_wrapper::SpawnBlocking;

type Task = Box<dyn FnOnce() + Send>;
type BoxError = Box<dyn Error + Send + Sync + 'static>;

/// The statement thread of one SQLite connection.
pub struct ConnectionThread {
    tasks: mpsc::Sender<Task>,
}

impl ConnectionThread {
    fn start() -> Result<Self, std::io::Error> {
        let (tasks, queue) = mpsc::channel::<Task>();
        std::thread::Builder::new()
            .name("ledger-sqlite".into())
            .spawn(move || {
                for task in queue {
                    task();
                }
            })?;
        Ok(Self { tasks })
    }
}

impl SpawnBlocking for ConnectionThread {
    fn spawn_blocking<'a, R>(
        &mut self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Pin<Box<dyn Future<Output = Result<R, BoxError>> + Send + 'a>>
    where
        R: Send + 'static,
    {
        let (done, result) = tokio::sync::oneshot::channel();
        // A panicking statement drops `done` (the caller gets an error) and leaves the
        // thread serving the connection's next statement.
        let sent = self.tasks.send(Box::new(move || {
            if let Ok(value) = catch_unwind(AssertUnwindSafe(task)) {
                let _ = done.send(value);
            }
        }));
        Box::pin(async move {
            sent.map_err(|_| BoxError::from("the SQLite connection thread has stopped"))?;
            result
                .await
                .map_err(|_| BoxError::from("a SQLite statement panicked"))
        })
    }

    /// Called by `establish`: the new connection's thread. If the OS refuses a thread, the
    /// connection's statements fail with an error (there is no way to report it here).
    fn get_runtime() -> Self {
        Self::start().unwrap_or_else(|e| {
            tracing::error!(error = %e, "cannot start a SQLite connection thread");
            let (tasks, _) = mpsc::channel();
            Self { tasks }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_tasks_in_order_without_a_runtime() {
        let mut thread = ConnectionThread::get_runtime();
        let first = thread.spawn_blocking(|| 1);
        let second = thread.spawn_blocking(|| 2);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        assert_eq!(rt.block_on(first).expect("first"), 1);
        drop(rt);
        // The runtime that awaited the first task is gone; the thread is not.
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        assert_eq!(rt.block_on(second).expect("second"), 2);
    }

    #[test]
    fn a_panicking_task_is_an_error_and_the_thread_goes_on() {
        let mut thread = ConnectionThread::get_runtime();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let failed = rt.block_on(thread.spawn_blocking(|| -> u8 { panic!("boom") }));
        assert!(failed.is_err());
        assert_eq!(rt.block_on(thread.spawn_blocking(|| 7)).expect("next"), 7);
    }
}
