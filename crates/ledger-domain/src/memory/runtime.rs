//! A [`Runtime`] on tokio for the crate's own tests (tokio is a dev-dependency only:
//! the domain stays free of any runtime).

use std::time::Duration;

use crate::ports::{BoxFuture, Runtime};

/// Tokio's spawn, sleep and timeout; waking workers does nothing (tests run jobs
/// themselves or inline).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TestRuntime;

impl Runtime for TestRuntime {
    fn spawn(&self, task: BoxFuture<'static, ()>) -> BoxFuture<'static, ()> {
        let handle = tokio::spawn(task);
        Box::pin(async move {
            let _ = handle.await;
        })
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }

    fn timeout<'a>(&self, duration: Duration, future: BoxFuture<'a, ()>) -> BoxFuture<'a, bool> {
        Box::pin(async move { tokio::time::timeout(duration, future).await.is_ok() })
    }

    fn wake_workers(&self) {}
}
