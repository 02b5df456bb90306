//! The `ledger-server` binary.

use std::net::TcpListener;

use anyhow::Context;
use server::{Command, Environment, open_store, spawn_workers};

/// mimalloc: the request path allocates many small short-lived values (JSON, rows,
/// strings), where it spends less CPU than the system allocator (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let cli = server::config::parse_cli()?;
    if matches!(cli.command, Some(Command::Mcp)) {
        // Stdout carries only protocol messages: no log subscriber, no database.
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the async runtime")?
            .block_on(ledger_mcp::stdio::serve_from_env());
        return Ok(());
    }
    // The subscriber and the trace pipeline start before the runtime (the exporter's HTTP
    // client runs on its own thread) and are flushed after it stops.
    let telemetry = server::telemetry::init(&cli.config)?;
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(run(cli));
    telemetry.shutdown();
    result
}

async fn run(cli: server::config::Cli) -> anyhow::Result<()> {
    let config = cli.config;
    let db = open_store(&config).await?;
    match cli.command.unwrap_or(Command::Serve) {
        // Served by `main` before anything here starts.
        Command::Mcp => Ok(()),
        Command::Migrate => {
            println!("migrations applied ({})", db.backend_name());
            Ok(())
        }
        Command::VerifyBalances => {
            let differences = db.verify_balances().await?;
            for d in &differences {
                println!(
                    "{} {} {} {}: journal debit {} credit {} in {} lines, maintained debit {} credit {} in {} lines",
                    d.organization_id,
                    if d.livemode { "live" } else { "test" },
                    d.account_id,
                    d.day
                        .map_or_else(|| "running".to_owned(), |day| format!("on {day}")),
                    d.journal.debit,
                    d.journal.credit,
                    d.journal_entries,
                    d.stored.debit,
                    d.stored.credit,
                    d.stored_entries,
                );
            }
            if differences.is_empty() {
                println!("balances agree with the journal ({})", db.backend_name());
                Ok(())
            } else {
                anyhow::bail!(
                    "{} maintained totals differ from the journal",
                    differences.len()
                )
            }
        }
        Command::Worker => {
            let runtime = server::TokioRuntime::default();
            let ledger = server::ledger(
                &config,
                db,
                std::sync::Arc::new(ledger_domain::ports::SystemClock),
                &runtime,
            )?;
            server::check_webhooks(&config)?;
            let (stop, _) = tokio::sync::watch::channel(false);
            let mut tasks = spawn_workers(&ledger, config.workers.max(1), &runtime, &stop);
            tasks.push(server::spawn_recurring(&ledger, &stop));
            tasks.push(server::spawn_credit_reset(&ledger, &stop));
            let poll = std::time::Duration::from_millis(config.webhook_poll_ms.max(1));
            tasks.push(server::spawn_webhooks(&ledger, poll, &stop));
            tracing::info!(
                workers = config.workers.max(1),
                "workers running; Ctrl-C or SIGTERM stops them after the job in hand"
            );
            shutdown_signal().await;
            let _ = stop.send(true);
            for task in tasks {
                let _ = task.await;
            }
            Ok(())
        }
        Command::Serve => {
            let listener = TcpListener::bind(&config.addr)
                .with_context(|| format!("binding {}", config.addr))?;
            let running = server::start(
                &config,
                db,
                listener,
                std::sync::Arc::new(ledger_domain::ports::SystemClock),
            )
            .await?;
            if config.environment == Environment::Development && config.demo {
                server::ensure_demo(&running.ledger).await?;
            }
            tracing::info!(addr = %running.addr, "ledger-server listening");
            running.wait().await
        }
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        if let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
