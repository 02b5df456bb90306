//! A TCP proxy on 127.0.0.1 between the server and PostgreSQL that the fault injector
//! tells to drop or stall its connections, as a flaky network or a failing-over
//! database would.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Instant;

/// What the injector last asked of every open connection.
#[derive(Debug, Clone, Copy, Default)]
struct Order {
    /// Bumped on every drop order.
    generation: u64,
    /// Of the open connections, this share (per mille) is cut.
    drop_per_mille: u64,
    /// Until then, no byte is forwarded either way.
    stalled_until: Option<Instant>,
}

/// The running proxy; stops when dropped.
pub(crate) struct Proxy {
    pub(crate) addr: String,
    orders: watch::Sender<Order>,
    pub(crate) accepted: Arc<AtomicU64>,
    pub(crate) dropped: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Listens on a free loopback port and forwards every connection to `upstream`
    /// (`host:port`).
    pub(crate) async fn start(upstream: String) -> anyhow::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .context("binding the proxy")?;
        let addr = listener.local_addr()?.to_string();
        let (orders, watcher) = watch::channel(Order::default());
        let accepted = Arc::new(AtomicU64::new(0));
        let dropped = Arc::new(AtomicU64::new(0));
        let (accepted_in, dropped_in) = (Arc::clone(&accepted), Arc::clone(&dropped));
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let n = accepted_in.fetch_add(1, Ordering::Relaxed);
                let upstream = upstream.clone();
                let watcher = watcher.clone();
                let dropped = Arc::clone(&dropped_in);
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(&upstream).await else {
                        return;
                    };
                    if forward(client, server, watcher, n).await {
                        dropped.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        Ok(Proxy {
            addr,
            orders,
            accepted,
            dropped,
            task,
        })
    }

    /// Cuts `per_mille` of the open connections (1000: all of them).
    pub(crate) fn drop_connections(&self, per_mille: u64) {
        self.orders.send_modify(|o| {
            o.generation += 1;
            o.drop_per_mille = per_mille;
        });
    }

    /// Forwards nothing, either way, for `pause`.
    pub(crate) fn stall(&self, pause: Duration) {
        self.orders
            .send_modify(|o| o.stalled_until = Some(Instant::now() + pause));
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
        // Cuts every connection still open.
        self.drop_connections(1000);
    }
}

/// Copies bytes both ways until either side closes or an order cuts the connection;
/// answers whether it was cut.
async fn forward(
    client: TcpStream,
    server: TcpStream,
    mut orders: watch::Receiver<Order>,
    connection: u64,
) -> bool {
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let up = pump(client_read, server_write, orders.clone());
    let down = pump(server_read, client_write, orders.clone());
    let seen = orders.borrow_and_update().generation;
    let cut = async move {
        let mut generation = seen;
        loop {
            if orders.changed().await.is_err() {
                return;
            }
            let order = *orders.borrow_and_update();
            if order.generation != generation {
                generation = order.generation;
                // Whether this connection is among the share cut: a hash of its number
                // and the order's, so each order cuts a different subset.
                let pick = (connection.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ generation)
                    .wrapping_mul(0xBF58_476D_1CE4_E5B9)
                    >> 33;
                if pick % 1000 < order.drop_per_mille {
                    return;
                }
            }
        }
    };
    tokio::select! {
        () = up => false,
        () = down => false,
        () = cut => true,
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    orders: watch::Receiver<Order>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let stalled_until = orders.borrow().stalled_until;
        if let Some(until) = stalled_until {
            tokio::time::sleep_until(until).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
