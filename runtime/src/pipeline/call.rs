//! One `tools/call` as the pipeline receives it: arguments, trace context, cancellation, and
//! the keys the transport found repeated in the raw message.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, InputResponses, MetaObject, RequestMetaObject,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::auth::Caller;
use crate::guards::strip;
use crate::notify::{LogLevel, Requested};
use crate::validate::{ArgErrors, ArgPath, FromArguments, JsonObject, QUOTE_LIMIT};

/// The `_meta` key under which a transport lists the argument paths a raw message repeated
/// (`a.b[0].c`); the pipeline refuses such a call with `InvalidArguments` naming them. A client
/// that sets the key itself can only get its own call refused.
pub const DUPLICATE_KEYS_META: &str = "harness/duplicate_keys";

/// A call whose tool name the generated dispatcher is about to match.
pub struct Call {
    pub(crate) arguments: Option<JsonObject>,
    pub(crate) traceparent: Option<String>,
    pub(crate) cancellation: CancellationToken,
    duplicate_keys: Vec<String>,
    /// The client, for notifications (none on the stateless fast path, which answers JSON).
    pub(crate) peer: Option<Peer<RoleServer>>,
    /// The progress token and log level the client asked for.
    pub(crate) requested: Requested,
    /// What the request carries for a body that asks the client for input.
    pub(crate) input: CallInput,
    /// Who is calling, when the HTTP auth layer accepted a token for the request.
    pub(crate) caller: Option<Arc<Caller>>,
}

/// A request's side of asking the client: its answers, sealed state and capabilities.
#[derive(Debug, Default)]
pub(crate) struct CallInput {
    /// 2026-07-28: the request carried its own protocol metadata (so it is stateless).
    pub(crate) stateless: bool,
    /// The client's answers (`inputResponses`).
    pub(crate) responses: Option<InputResponses>,
    /// The sealed state of the previous round (`requestState`).
    pub(crate) request_state: Option<String>,
    /// What the client declared.
    pub(crate) capabilities: Option<ClientCapabilities>,
    /// The request declared the tasks extension in its own capabilities (2026-07-28), so
    /// it may be answered with a task.
    pub(crate) tasks_declared: bool,
    /// The task this call runs as, once it became one: the body asks the client through it.
    pub(crate) task: Option<crate::tasks::store::TaskHandle>,
}

impl Call {
    /// A call with these arguments, W3C `traceparent` (if the client sent one) and
    /// cancellation token.
    pub fn new(
        arguments: Option<JsonObject>,
        traceparent: Option<String>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            arguments,
            traceparent,
            cancellation,
            duplicate_keys: Vec::new(),
            peer: None,
            requested: Requested::default(),
            input: CallInput::default(),
            caller: None,
        }
    }

    /// The same call, made by `caller` (the HTTP auth layer's accepted token).
    pub fn with_caller(mut self, caller: Option<Arc<Caller>>) -> Self {
        self.caller = caller;
        self
    }

    /// Who is calling, when the request's token was accepted.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_deref()
    }

    /// The same call, whose raw arguments repeated these keys (paths such as `a.b[0].c`).
    pub fn with_duplicate_keys(mut self, paths: Vec<String>) -> Self {
        self.duplicate_keys = paths;
        self
    }

    /// Splits a request into the tool name (to dispatch on) and the rest of the call.
    /// `session_level` is what the session set with `logging/setLevel`; a level in the
    /// request's own `_meta` (2026-07-28) overrides it.
    pub fn split(
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        session_level: Option<LogLevel>,
    ) -> (Cow<'static, str>, Call) {
        let request_meta = request.meta.clone();
        let ask = |meta: &RequestMetaObject| Requested {
            progress_token: meta.get_progress_token(),
            log_level: meta.log_level().map(LogLevel::from_rmcp),
        };
        let from_params = request_meta.as_ref().map(ask).unwrap_or_default();
        let from_context = ask(&context.meta);
        let requested = Requested {
            progress_token: from_params.progress_token.or(from_context.progress_token),
            log_level: from_params
                .log_level
                .or(from_context.log_level)
                .or(session_level),
        };
        let peer = context.peer.clone();
        let stateless = context.meta.protocol_version().is_some();
        let capabilities = context.client_capabilities();
        let input = CallInput {
            stateless,
            responses: request.input_responses.clone(),
            request_state: request.request_state.clone(),
            // The extension is defined only for requests carrying their own metadata.
            tasks_declared: stateless
                && capabilities
                    .as_ref()
                    .is_some_and(ClientCapabilities::supports_tasks),
            capabilities,
            task: None,
        };
        let caller = Caller::of_context(&context);
        let (name, mut call) = Self::from_parts(request, Some(&context.meta.0), context.ct);
        call.caller = caller;
        call.peer = Some(peer);
        call.requested = requested;
        call.input = input;
        (name, call)
    }

    /// [`Call::split`] for a request that reached no rmcp service (the stateless fast path),
    /// with the request's `_meta` as rmcp's deserializer put it aside.
    pub fn from_request(
        request: CallToolRequestParams,
        request_meta: &MetaObject,
        cancellation: CancellationToken,
    ) -> (Cow<'static, str>, Call) {
        Self::from_parts(request, Some(request_meta), cancellation)
    }

    fn from_parts(
        request: CallToolRequestParams,
        context_meta: Option<&MetaObject>,
        cancellation: CancellationToken,
    ) -> (Cow<'static, str>, Call) {
        let meta = request.meta.as_deref();
        let traceparent = meta
            .and_then(MetaObject::get_traceparent)
            .or_else(|| context_meta.and_then(|meta| meta.get_traceparent()))
            .map(str::to_owned);
        // Set by the transports' duplicate-key check on the raw message.
        let duplicate_keys = meta
            .and_then(|meta| meta.0.get(DUPLICATE_KEYS_META))
            .or_else(|| context_meta.and_then(|meta| meta.0.get(DUPLICATE_KEYS_META)))
            .and_then(Value::as_array)
            .map(|paths| {
                paths
                    .iter()
                    .map(|path| path.as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let call = Call::new(request.arguments, traceparent, cancellation)
            .with_duplicate_keys(duplicate_keys);
        (request.name, call)
    }

    /// The call's arguments, strictly validated into `A`: refused when the raw message
    /// repeated a key, since a parser keeps only the last of two equal keys.
    pub(crate) fn validated<A: FromArguments>(&self) -> Result<A, ArgErrors> {
        if self.duplicate_keys.is_empty() {
            return A::from_call(self.arguments.as_ref());
        }
        let mut errors = ArgErrors::default();
        for path in &self.duplicate_keys {
            errors.push(
                ArgPath::Root.field(path),
                "duplicate key; each argument may appear once",
            );
        }
        Err(errors)
    }

    /// The raw arguments as JSON (what the audit hashes when validation never succeeded).
    pub(crate) fn raw_arguments(&self) -> Value {
        Value::Object(self.arguments.clone().unwrap_or_default())
    }
}

/// A call's trace: the audit's trace id and the client's `traceparent`, which an exported span
/// continues.
pub(crate) struct CallTrace<'a> {
    pub(crate) id: &'a str,
    /// The caller's subject, when the request's token was accepted.
    pub(crate) subject: Option<&'a str>,
    #[cfg_attr(
        not(feature = "otel"),
        expect(dead_code, reason = "only OTLP export reads it")
    )]
    pub(crate) parent: Option<&'a str>,
    /// The task the call became, if it did.
    pub(crate) task: Option<&'a str>,
}

/// A client-sent tool name as the audit records it: sanitized, at most 40 characters.
pub(crate) fn audited_tool_name(name: &str) -> String {
    let clean = strip::sanitize(name, true);
    match clean.char_indices().nth(QUOTE_LIMIT) {
        None => clean.into_owned(),
        Some((cut, _)) => format!("{}...", &clean[..cut]),
    }
}
