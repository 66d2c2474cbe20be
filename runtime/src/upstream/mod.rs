//! The gateway: tools served by MCP servers that already exist, behind every guard of the
//! pipeline. Only pinned tools are published and callable; each upstream call is validated
//! before the upstream sees it (by the generated validator, in the pipeline), bounded by the
//! tool's timeout and the upstream's `timeout_ms`, cancelled upstream when the client
//! cancels, and its output guarded like a local body's.

mod catalog;
mod child;
mod connect;
mod definitions;
mod forward;
mod handler;
mod lane;
mod link;
mod listing;
mod pins;
mod remote;
mod replies;
mod reply;
mod request;
mod rounds;
mod served_skills;
mod skills;
mod stdin;
mod tasks;
mod updates;

pub use self::reply::Reply;
pub use self::skills::SkillFile;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResponse, InitializeResult, Tool};
use rmcp::service::{Peer, RoleServer};
use serde::Serialize;
use serde_json::Value;

use crate::context::CallContext;
use crate::error::ToolError;
use crate::pipeline::refusal::{Refusal, UpstreamFailure};
use crate::spec::{OnDrift, PinKind, UpstreamSpec};
use crate::upstream::connect::Handle;
use crate::upstream::link::{Link, LinkState};
use crate::upstream::listing::Listing;
use crate::upstream::pins::PinStatus;
use crate::upstream::reply::failed;
use crate::upstream::updates::Updates;

/// Why [`fetch_offered`] could not read an upstream's lists.
#[derive(Debug, thiserror::Error)]
#[error("upstream {upstream}: {reason}")]
pub struct FetchError {
    /// The upstream's name.
    pub upstream: &'static str,
    /// What failed.
    pub reason: String,
}

/// What an upstream offers, each entry as its list gives it (JSON): what `harness-codegen
/// import` pins from. A list the upstream's capabilities do not declare is empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Offered {
    /// `tools/list`.
    pub tools: Vec<Value>,
    /// `prompts/list`.
    pub prompts: Vec<Value>,
    /// `resources/list`.
    pub resources: Vec<Value>,
    /// `resources/templates/list`.
    pub templates: Vec<Value>,
    /// `skills/list` (the skills extension).
    pub skills: Vec<Value>,
    /// The files of each listed skill, by its `SKILL.md` URI, read (`resources/read`) and
    /// checked against the digests its entry lists, as the gateway reads them; or why they
    /// could not be.
    pub skill_files: BTreeMap<String, Result<Vec<SkillFile>, String>>,
    /// Whether clients may subscribe to its resources (`resources.subscribe`).
    pub subscribe: bool,
}

impl Offered {
    /// The entries of the list of `kind`.
    pub fn of(&self, kind: PinKind) -> &[Value] {
        match kind {
            PinKind::Tool => &self.tools,
            PinKind::Prompt => &self.prompts,
            PinKind::Resource => &self.resources,
            PinKind::ResourceTemplate => &self.templates,
            PinKind::Skill => &self.skills,
        }
    }
}

/// Connects to `spec` once (as a server would: the same environment allowlist, headers and
/// time limit), reads every list its capabilities declare, whole, and the files of each
/// skill listed, and disconnects.
pub async fn fetch_offered(spec: &'static UpstreamSpec) -> Result<Offered, FetchError> {
    let failed = |reason: String| FetchError {
        upstream: spec.name,
        reason,
    };
    // Declaring what the gateway forwards, as a server would: an upstream may offer some
    // tools only to clients that can answer what they ask.
    let handler =
        handler::UpstreamHandler::new(spec.name, spec.forward, Arc::default(), Arc::default());
    let connection = connect::connect(spec, handler)
        .await
        .map_err(|error| failed(error.to_string()))?
        .0;
    let peer = connection.peer().clone();
    let capabilities = peer
        .peer_info()
        .map(|info| info.capabilities.clone())
        .unwrap_or_default();
    let declared = |kind: PinKind| match kind {
        PinKind::Tool => capabilities.tools.is_some(),
        PinKind::Prompt => capabilities.prompts.is_some(),
        PinKind::Resource | PinKind::ResourceTemplate => capabilities.resources.is_some(),
        PinKind::Skill => capabilities.supports_skills(),
    };
    let limit = Duration::from_millis(spec.timeout_ms);
    let mut offered = Offered {
        subscribe: capabilities
            .resources
            .as_ref()
            .is_some_and(|resources| resources.subscribe == Some(true)),
        ..Offered::default()
    };
    for &kind in PinKind::ALL.iter().filter(|kind| declared(**kind)) {
        let listed = tokio::time::timeout(limit, definitions::list(&peer, kind))
            .await
            .map_err(|_| {
                failed(format!(
                    "no answer to {} within {} ms",
                    kind.list_method(),
                    spec.timeout_ms
                ))
            })?
            .map_err(|error| failed(format!("{}: {error}", kind.list_method())))?;
        match kind {
            PinKind::Tool => offered.tools = listed,
            PinKind::Prompt => offered.prompts = listed,
            PinKind::Resource => offered.resources = listed,
            PinKind::ResourceTemplate => offered.templates = listed,
            PinKind::Skill => offered.skills = listed,
        }
    }
    // Skills are instructions: what import pins of them is audited, so their files are read
    // too, within the same bounds as the gateway's own reads.
    for entry in &offered.skills {
        if let Some(uri) = PinKind::Skill.name_of(entry) {
            let files = skills::read_files(&peer, entry, spec.timeout_ms)
                .await
                .map_err(|unread| unread.to_string());
            offered.skill_files.insert(uri.to_owned(), files);
        }
    }
    let _ = connection.cancel().await;
    Ok(offered)
}

/// The tools of [`fetch_offered`], typed.
pub async fn fetch_tools(spec: &'static UpstreamSpec) -> Result<Vec<Tool>, FetchError> {
    let offered = fetch_offered(spec).await?;
    offered
        .tools
        .into_iter()
        .map(|tool| {
            serde_json::from_value(tool).map_err(|error| FetchError {
                upstream: spec.name,
                reason: format!("a tool of its tools/list: {error}"),
            })
        })
        .collect()
}

/// An upstream tool's pinned JSON Schema does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool {tool}: its pinned input_schema does not compile: {reason}")]
pub struct SchemaError {
    /// The tool.
    pub tool: &'static str,
    /// The compiler's message.
    pub reason: String,
}

/// Every upstream of a generated server, connected once [`Upstreams::start`] has run.
pub struct Upstreams {
    links: Vec<Arc<Link>>,
    listing: Arc<Listing>,
    updates: Updates,
    started: OnceLock<()>,
}

impl std::fmt::Debug for Upstreams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstreams")
            .field(
                "names",
                &self.links.iter().map(|l| l.spec.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Upstreams {
    /// The upstreams of `specs`, not yet connected.
    pub fn new(specs: &'static [UpstreamSpec]) -> Self {
        let listing = Arc::<Listing>::default();
        let updates = Updates::default();
        Self {
            links: specs
                .iter()
                .map(|spec| Arc::new(Link::new(spec, Arc::clone(&listing), updates.clone())))
                .collect(),
            listing,
            updates,
            started: OnceLock::new(),
        }
    }

    /// Whether the published list of `kind` can change while the server runs (an upstream
    /// with `on_drift = "drop"` that serves one of its entries): then the server says so in
    /// its capabilities (`listChanged`) and tells the sessions that
    /// [`Upstreams::watch_list`] registered.
    fn list_may_change(&self, kind: PinKind) -> bool {
        self.links.iter().any(|link| {
            link.spec.on_drift == OnDrift::Drop && link.spec.pins.iter().any(|pin| pin.kind == kind)
        })
    }

    /// `info` with `listChanged` set on each list that may change
    /// (`Upstreams::list_may_change`), and the skills extension where an upstream's skills are
    /// served.
    pub fn advertise(&self, info: InitializeResult) -> InitializeResult {
        let mut info = self.advertise_skills(info);
        let capabilities = &mut info.capabilities;
        if self.list_may_change(PinKind::Tool)
            && let Some(tools) = capabilities.tools.as_mut()
        {
            tools.list_changed = Some(true);
        }
        if self.list_may_change(PinKind::Prompt)
            && let Some(prompts) = capabilities.prompts.as_mut()
        {
            prompts.list_changed = Some(true);
        }
        if (self.list_may_change(PinKind::Resource)
            || self.list_may_change(PinKind::ResourceTemplate)
            || self.list_may_change(PinKind::Skill))
            && let Some(resources) = capabilities.resources.as_mut()
        {
            resources.list_changed = Some(true);
        }
        info
    }

    /// Sends `peer` (an initialized session) the `list_changed` notification of each list
    /// that loses or regains an entry, until its session closes.
    pub fn watch_list(&self, peer: Peer<RoleServer>) {
        if PinKind::ALL.iter().any(|kind| self.list_may_change(*kind)) {
            self.listing.watch(peer);
        }
    }

    /// Every later update of a resource an upstream serves and the manifest marks
    /// `subscribe = true`, by URI: what the server passes on to its own subscribers
    /// (`serve` relays it to [`crate::subscriptions::Subscriptions::resource_updated`]).
    pub fn resource_updates(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.updates.subscribe()
    }

    /// Refuses to start a server whose pinned schemas do not compile (checked by `serve`
    /// before anything else).
    pub fn check_setup(&self) -> Result<(), SchemaError> {
        for link in &self.links {
            for pin in link.spec.pins {
                if let Some(schema) = pin.schema
                    && let Err(reason) = schema.check()
                {
                    return Err(SchemaError {
                        tool: pin.name,
                        reason,
                    });
                }
            }
        }
        Ok(())
    }

    /// Starts every upstream's supervisor (once; later calls only wait) and waits until each
    /// has tried its first connection. An upstream that cannot connect is logged and tried
    /// again by its restart policy; its tools answer `UpstreamUnavailable` meanwhile.
    pub async fn start(&self) {
        self.started.get_or_init(|| {
            for link in &self.links {
                tokio::spawn(Arc::clone(link).supervise());
            }
            let listing = Arc::clone(&self.listing);
            tokio::spawn(async move { listing.announce().await });
        });
        futures::future::join_all(self.links.iter().map(|link| link.first_attempt())).await;
    }

    /// Calls pin `pin` of upstream `upstream` with validated `args`: the body of a generated
    /// upstream tool.
    pub async fn call<A: Serialize>(
        &self,
        upstream: usize,
        pin: usize,
        args: A,
        ctx: CallContext,
    ) -> Result<Reply, ToolError> {
        let arguments = object_of(args)?;
        // Boxed: its state (the rounds, the request, their timeouts) is kilobytes, and a
        // body's future is moved several times on its way to the runtime.
        Box::pin(self.call_with(upstream, pin, arguments, ctx)).await
    }

    async fn call_with(
        &self,
        upstream: usize,
        pin: usize,
        arguments: serde_json::Map<String, Value>,
        ctx: CallContext,
    ) -> Result<Reply, ToolError> {
        let (link, handle) = self.admit(upstream, pin, &ctx).await?;
        let spec = link.spec;
        let pinned = &spec.pins[pin];
        let mut params = CallToolRequestParams::new(pinned.remote_name).with_arguments(arguments);
        if let Some(level) = ctx.log_level() {
            params
                .meta
                .get_or_insert_with(Default::default)
                .set_log_level(level.to_rmcp());
        }
        let input = ctx.input_session();
        // A 2026-07-28 upstream's questions (rounds.rs): the round a client's retry answers,
        // and whether this request's input responses are still unused.
        let mut round = rounds::previous(input)?;
        let mut unused = true;
        for _ in 0..=rounds::MAX_ROUNDS {
            if let Some(asked) = round.take() {
                let Some(input) = input.filter(|input| input.can_ask()) else {
                    return Err(rounds::cannot_ask());
                };
                if !(unused || input.in_session()) {
                    return Err(rounds::ask_next_round(input, &asked)?);
                }
                unused = false;
                params.input_responses = Some(rounds::answers(input, &asked).await?);
                params.request_state = asked.state();
            }
            // Dropping the request (the tool's timeout, the client's cancellation) sends
            // notifications/cancelled to the upstream.
            let limit = Duration::from_millis(spec.timeout_ms);
            let request = request::call_tool(&handle, &link.routes, &params, &ctx, spec);
            match tokio::time::timeout(limit, request).await {
                Err(_) => {
                    let failure = UpstreamFailure::NoAnswer(Some(spec.timeout_ms));
                    return Err(Refusal::Upstream(failure).into_tool_error());
                }
                Ok(Err(error)) => {
                    return Err(rounds::missing_capability(input, &error)
                        .unwrap_or_else(|| reply::from_service_error(spec.name, error)));
                }
                Ok(Ok(CallToolResponse::InputRequired(asked))) => {
                    let Some(input) = input else {
                        return Err(rounds::cannot_ask());
                    };
                    let requests = asked.input_requests.unwrap_or_default();
                    round = Some(rounds::clean(spec, input, requests, asked.request_state)?);
                }
                Ok(Ok(CallToolResponse::Complete(result))) => {
                    return reply::from_result(spec.name, result);
                }
                Ok(Ok(CallToolResponse::Task(created))) => {
                    // Boxed: following a task is the rare path, and inline its state (the
                    // polls, the cancel to send) would be part of every call's future, which is
                    // moved and boxed once per call.
                    return Box::pin(tasks::follow(&handle.peer, spec, created)).await;
                }
                Ok(Ok(_)) => {
                    return Err(failed(
                        "the upstream answered with a kind of response this gateway does not carry",
                    ));
                }
            }
        }
        Err(failed(format!(
            "the upstream still asked for input after {} rounds",
            rounds::MAX_ROUNDS
        )))
    }

    /// The link of pin `pin` of upstream `upstream` and its connection, once the upstream is
    /// connected and serves the pinned definition (or `on_drift = "warn"` lets a drifted one
    /// through, logged): what every request to an upstream starts with.
    async fn admit(
        &self,
        upstream: usize,
        pin: usize,
        ctx: &CallContext,
    ) -> Result<(&Link, Handle), ToolError> {
        self.start().await;
        let link = &*self.links[upstream];
        let spec = link.spec;
        let pinned = &spec.pins[pin];
        let LinkState::Up(handle) = link.state() else {
            return Err(Refusal::Upstream(UpstreamFailure::NotConnected).into_tool_error());
        };
        match link.pin(pin) {
            PinStatus::Matches => {}
            status if spec.on_drift == OnDrift::Warn => {
                tracing::warn!(
                    upstream = spec.name,
                    kind = pinned.kind.as_str(),
                    name = pinned.name,
                    ?status,
                    trace_id = ctx.trace_id(),
                    "using a definition the upstream no longer serves as pinned (on_drift = \"warn\")"
                );
            }
            status => {
                let checked = !matches!(status, PinStatus::Unchecked);
                return Err(
                    Refusal::Upstream(UpstreamFailure::Drifted { checked }).into_tool_error()
                );
            }
        }
        Ok((link, handle))
    }

    /// `definitions` without the tools an upstream drifted on where `on_drift = "drop"`.
    pub fn visible(&self, definitions: &[Tool]) -> Vec<Tool> {
        definitions
            .iter()
            .filter(|tool| !self.hides(PinKind::Tool, &tool.name))
            .cloned()
            .collect()
    }

    /// Whether the definition of `kind` this server publishes as `name` is out of its list:
    /// its upstream drifted on it and says `on_drift = "drop"`.
    fn hides(&self, kind: PinKind, name: &str) -> bool {
        self.links.iter().any(|link| {
            link.spec
                .pins
                .iter()
                .enumerate()
                .any(|(index, pin)| pin.kind == kind && pin.name == name && link.hides(index))
        })
    }

    /// Whether every upstream is connected.
    pub fn all_up(&self) -> bool {
        self.links
            .iter()
            .all(|link| matches!(link.state(), LinkState::Up(_)))
    }

    /// Each upstream's state for `/health`: `{"NAME": {"status": "up" | "down" |
    /// "starting", "transport", "drifted": [tools], "reason"?}}`.
    pub fn health(&self) -> Value {
        Value::Object(
            self.links
                .iter()
                .map(|link| (link.spec.name.to_owned(), link.health()))
                .collect(),
        )
    }
}

/// Validated arguments as the JSON object a request to an upstream carries.
fn object_of<A: Serialize>(args: A) -> Result<serde_json::Map<String, Value>, ToolError> {
    match serde_json::to_value(args) {
        Ok(Value::Object(arguments)) => Ok(arguments),
        Ok(Value::Null) => Ok(serde_json::Map::new()),
        Ok(other) => Err(ToolError::internal(format!(
            "validated arguments are not an object: {other}"
        ))),
        Err(error) => Err(ToolError::internal(error)),
    }
}
