//! Logs and traces: the `tracing` subscriber of the binary, with an OpenTelemetry layer
//! exporting request spans over OTLP/HTTP (JSON) when `LEDGER_OTLP_ENDPOINT` is set.
//!
//! Every request runs in the `request` span of `ledger-http` (fields `request_id`,
//! `method`, `path`), so an exported trace carries the same request id as the response's
//! `X-Request-Id` header and the error envelope.

use std::time::Duration;

use anyhow::Context;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::Config;

/// What must outlive the subscriber: the trace pipeline, flushed by [`Telemetry::shutdown`].
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Exports the spans still buffered and stops the export thread.
    pub fn shutdown(self) {
        if let Some(provider) = self.provider
            && let Err(e) = provider.shutdown()
        {
            eprintln!("OpenTelemetry shutdown: {e}");
        }
    }
}

/// The OTLP trace pipeline of the configuration, or `None` without an endpoint.
///
/// Build it outside the async runtime: the exporter's blocking HTTP client runs on the
/// batch processor's own thread.
///
/// # Errors
/// An endpoint that is not an `http(s)` URL, or an exporter that cannot be built.
pub fn tracer_provider(config: &Config) -> anyhow::Result<Option<SdkTracerProvider>> {
    let Some(endpoint) = config.otlp_endpoint.as_deref().filter(|e| !e.is_empty()) else {
        return Ok(None);
    };
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        anyhow::bail!("LEDGER_OTLP_ENDPOINT must be an http(s) URL, got {endpoint:?}");
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpJson)
        .with_endpoint(format!("{}/v1/traces", endpoint.trim_end_matches('/')))
        .with_timeout(Duration::from_secs(10))
        .build()
        .context("building the OTLP span exporter")?;
    let ratio = config.otlp_sample_ratio.clamp(0.0, 1.0);
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
            ratio,
        ))))
        .with_resource(
            Resource::builder()
                .with_service_name(config.otlp_service_name.clone())
                .build(),
        )
        .build();
    Ok(Some(provider))
}

/// Installs the global subscriber: the log filter, plain or JSON lines, and the trace
/// export when configured.
///
/// # Errors
/// See [`tracer_provider`].
pub fn init(config: &Config) -> anyhow::Result<Telemetry> {
    let filter = EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info"));
    let provider = tracer_provider(config)?;
    let otel = provider.as_ref().map(|p| {
        tracing_opentelemetry::layer()
            .with_tracer(p.tracer("ledger"))
            // Spans at info and above, whatever the log filter keeps.
            .with_filter(tracing_subscriber::filter::LevelFilter::INFO)
    });
    let logs = if config.log_json {
        tracing_subscriber::fmt::layer()
            .json()
            .with_filter(filter)
            .boxed()
    } else {
        // Colour codes only on a terminal: a log file or pipe gets plain text.
        use std::io::IsTerminal;
        tracing_subscriber::fmt::layer()
            .with_ansi(std::io::stdout().is_terminal())
            .with_filter(filter)
            .boxed()
    };
    tracing_subscriber::registry().with(logs).with(otel).init();
    Ok(Telemetry { provider })
}
