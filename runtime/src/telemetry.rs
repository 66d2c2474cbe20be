//! OpenTelemetry export (the `otel` feature): one span per `tools/call`, continuing the
//! client's W3C `traceparent` when it sent one, and two metrics, calls by outcome and their
//! latency, sent over OTLP/HTTP (protobuf) to the collector the standard variables name
//! (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the per-signal `..._TRACES_ENDPOINT` and
//! `..._METRICS_ENDPOINT`). Off unless one of them is set; off, a call pays one `Option` check.
//!
//! Spans are built when the call has ended, with its start time, so nothing is held across the
//! body's awaits; export batches on the SDK's own threads, never on a call's path.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{
    Span as _, SpanKind, Status, TraceContextExt as _, Tracer as _, TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

/// The variables that turn export on; the SDK reads the rest (`OTEL_SERVICE_NAME`,
/// `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL`, headers, timeouts) itself.
const ENDPOINT_VARIABLES: [&str; 3] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
];

/// Span and metric attribute names.
pub(crate) mod attributes {
    /// The tool called, as the audit records it.
    pub(crate) const TOOL: &str = "mcp.tool.name";
    /// The audit outcome (`ok`, `rate_limited`, ...).
    pub(crate) const OUTCOME: &str = "harness.outcome";
    /// The envelope's error_code, on failed calls.
    pub(crate) const ERROR_CODE: &str = "harness.error_code";
    /// How long the call took, in milliseconds.
    pub(crate) const DURATION_MS: &str = "harness.duration_ms";
    /// The audit record's digest of the arguments.
    pub(crate) const ARGS_SHA256: &str = "harness.args_sha256";
    /// The audit record's trace id (`mcp-` and 8 hex digits).
    pub(crate) const TRACE_ID: &str = "harness.trace_id";
    /// The caller's subject (`enduser.id` in OpenTelemetry's conventions), when `[auth]` is on.
    pub(crate) const SUBJECT: &str = "enduser.id";
}

/// Metric names.
pub(crate) mod metrics {
    /// Calls, by tool and outcome.
    pub(crate) const CALLS: &str = "harness.tool.calls";
    /// Call duration in seconds, by tool and outcome.
    pub(crate) const DURATION: &str = "harness.tool.duration";
}

/// Export could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("OpenTelemetry export cannot start: {0}")]
pub(crate) struct TelemetryError(String);

/// The exporters of one server.
pub(crate) struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    tracer: SdkTracer,
    calls: Counter<u64>,
    duration: Histogram<f64>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

/// One finished call, as exported.
#[derive(Debug)]
pub(crate) struct FinishedCall<'a> {
    /// Tool name.
    pub tool: &'a str,
    /// The audit outcome.
    pub outcome: &'a str,
    /// The envelope's error code.
    pub error_code: Option<&'a str>,
    /// How long it took.
    pub duration: Duration,
    /// The arguments' digest.
    pub args_sha256: &'a str,
    /// The audit trace id.
    pub trace_id: &'a str,
    /// The client's W3C `traceparent`, when it sent one.
    pub traceparent: Option<&'a str>,
    /// The caller's subject, when its token was accepted.
    pub subject: Option<&'a str>,
}

impl Telemetry {
    /// Export for `service` when the environment names an OTLP endpoint; `None` otherwise.
    pub(crate) fn from_env(
        service: &'static str,
        version: &'static str,
    ) -> Result<Option<Self>, TelemetryError> {
        let configured = ENDPOINT_VARIABLES
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
        if !configured {
            return Ok(None);
        }
        // The exporter builds its own reqwest client, which needs a process-wide provider.
        crate::http_client::install_default_provider();
        let error =
            |error: opentelemetry_otlp::ExporterBuildError| TelemetryError(error.to_string());
        // The builder's detectors read OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; the
        // server's own name is the default, not an override.
        let mut resource =
            Resource::builder().with_attribute(KeyValue::new("service.version", version));
        if std::env::var_os("OTEL_SERVICE_NAME").is_none_or(|name| name.is_empty()) {
            resource = resource.with_service_name(service);
        }
        let resource = resource.build();
        let span_exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()
            .map_err(error)?;
        let tracer_provider = SdkTracerProvider::builder()
            .with_batch_exporter(span_exporter)
            .with_resource(resource.clone())
            .build();
        let metric_exporter = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .build()
            .map_err(error)?;
        let meter_provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metric_exporter).build())
            .with_resource(resource)
            .build();
        let tracer = tracer_provider.tracer("harness-runtime");
        let meter = meter_provider.meter("harness-runtime");
        let calls = meter
            .u64_counter(metrics::CALLS)
            .with_description("tools/call requests, by tool and outcome")
            .build();
        let duration = meter
            .f64_histogram(metrics::DURATION)
            .with_unit("s")
            .with_description("tools/call duration, by tool and outcome")
            .build();
        Ok(Some(Self {
            tracer_provider,
            meter_provider,
            tracer,
            calls,
            duration,
        }))
    }

    /// Exports one call: its span (a child of the client's `traceparent` when valid) and its
    /// metrics.
    pub(crate) fn record(&self, call: &FinishedCall<'_>) {
        let mut labels = vec![
            KeyValue::new(attributes::TOOL, call.tool.to_owned()),
            KeyValue::new(attributes::OUTCOME, call.outcome.to_owned()),
        ];
        self.calls.add(1, &labels);
        self.duration.record(call.duration.as_secs_f64(), &labels);

        let parent = match call.traceparent {
            Some(traceparent) => {
                let carrier = HashMap::from([("traceparent".to_owned(), traceparent.to_owned())]);
                let extracted = TraceContextPropagator::new().extract(&carrier);
                // A malformed header yields an invalid span context: start a new trace then.
                if extracted.span().span_context().is_valid() {
                    extracted
                } else {
                    Context::new()
                }
            }
            None => Context::new(),
        };
        labels.extend([
            KeyValue::new(
                attributes::DURATION_MS,
                call.duration.as_secs_f64() * 1000.0,
            ),
            KeyValue::new(attributes::ARGS_SHA256, call.args_sha256.to_owned()),
            KeyValue::new(attributes::TRACE_ID, call.trace_id.to_owned()),
        ]);
        if let Some(code) = call.error_code {
            labels.push(KeyValue::new(attributes::ERROR_CODE, code.to_owned()));
        }
        if let Some(subject) = call.subject {
            labels.push(KeyValue::new(attributes::SUBJECT, subject.to_owned()));
        }
        let ended = SystemTime::now();
        let builder = self
            .tracer
            .span_builder(format!("tools/call {}", call.tool))
            .with_kind(SpanKind::Server)
            .with_start_time(ended.checked_sub(call.duration).unwrap_or(ended))
            .with_attributes(labels);
        let mut span = builder.start_with_context(&self.tracer, &parent);
        if call.outcome != harness_contract::HarnessOutcome::Ok.as_str() {
            span.set_status(Status::error(
                call.error_code.unwrap_or(call.outcome).to_owned(),
            ));
        }
        span.end_with_timestamp(ended);
    }

    /// Sends what is buffered and stops the exporters (at shutdown).
    pub(crate) fn shutdown(&self) {
        if let Err(error) = self.tracer_provider.shutdown() {
            tracing::warn!(%error, "OpenTelemetry spans not flushed");
        }
        if let Err(error) = self.meter_provider.shutdown() {
            tracing::warn!(%error, "OpenTelemetry metrics not flushed");
        }
    }
}
