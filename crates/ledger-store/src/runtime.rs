//! The domain's [`Runtime`] port on tokio, which every adapter of this service runs on:
//! background tasks, timers, and the wake-up the queue workers wait on. It lives with the
//! store because the store is the one adapter every process (server, worker, tests) has.

use std::sync::Arc;
use std::time::Duration;

use ledger_domain::ports::{BoxFuture, Runtime};
use tokio::sync::Notify;

/// Tokio, with the notification that wakes this process's queue workers.
#[derive(Clone, Default)]
pub struct TokioRuntime {
    /// Notified when new work is queued; the workers wait on it between claims.
    pub wake: Arc<Notify>,
}

impl Runtime for TokioRuntime {
    fn spawn(&self, task: BoxFuture<'static, ()>) -> BoxFuture<'static, ()> {
        let handle = tokio::spawn(task);
        Box::pin(async move {
            // A panicked or cancelled task has ended too; the job's lease covers it.
            let _ = handle.await;
        })
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }

    fn timeout<'a>(&self, duration: Duration, future: BoxFuture<'a, ()>) -> BoxFuture<'a, bool> {
        Box::pin(async move { tokio::time::timeout(duration, future).await.is_ok() })
    }

    fn wake_workers(&self) {
        self.wake.notify_one();
    }
}
