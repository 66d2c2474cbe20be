//! The harness's cost for a 2026-07-28 input-required round trip, in process, through the
//! benchmark server's generated `echo` tool (every guard on, audit off):
//!
//! - `ask`: the first call, whose body asks for a confirmation (elicitation) and ends with an
//!   input-required result: the request listed and the answers so far (none) sealed into
//!   `requestState` (HMAC-SHA256, bound to the tool and the arguments' digest);
//! - `answer`: the second call, carrying the answer and the state the first one sealed: the
//!   state opened and checked, the answer validated against the form, the body run to its
//!   result through the output guards;
//! - `answer_with_a_sealed_answer`: the last call of a two-question round trip, whose state
//!   carries the first answer, so opening it also restores that answer;
//! - `no_input`, for scale: the same call of a body that asks for nothing.
//!
//! Each call is built from its JSON-RPC parameters and `_meta` as the transport hands them to
//! the generated handler (`Call::split`), without HTTP. `cargo bench -p harness-bench --bench
//! input`; `cargo test -p harness-bench --benches` runs each once as a smoke test.

use std::sync::LazyLock;

use divan::Bencher;
use harness_bench::generated::{EchoArgs, SERVER, TOOLS};
use harness_runtime::input::{ElicitAnswer, Elicitation, ElicitationSchema};
use harness_runtime::spec::ServerSpec;
use harness_runtime::{Call, CallContext, Pipeline, ToolError};
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString, RequestMetaObject};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

fn main() {
    divan::main();
}

/// The variable the benchmark's request-state key is read from.
const KEY_ENV: &str = "HARNESS_BENCH_INPUT_STATE_KEY";

/// The benchmark server, sealing request state under the key in [`KEY_ENV`].
static SEALING_SERVER: ServerSpec = ServerSpec {
    request_state_key_env: Some(KEY_ENV),
    ..SERVER
};

static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the benchmark runtime starts")
});

static PIPELINE: LazyLock<Pipeline> = LazyLock::new(|| {
    // SAFETY: set and removed while the pipeline is built, before any benchmark thread reads
    // the environment.
    unsafe { std::env::set_var(KEY_ENV, "k".repeat(32)) };
    let pipeline = Pipeline::new(&SEALING_SERVER, TOOLS);
    unsafe { std::env::remove_var(KEY_ENV) };
    // (`check_setup` would also ask for the Redis URL of the manifest's `echo_shared`; a key
    // that did not load shows as an input-required result without a state, which fails.)
    pipeline
});

/// A server that answers nothing: its service only lends the request contexts a peer.
struct Idle;

impl rmcp::ServerHandler for Idle {}

/// The service the request contexts' peer comes from, over an in-memory pipe nobody writes to:
/// a 2026-07-28 call never uses the peer (its input travels in the request).
struct Service {
    running: rmcp::service::RunningService<RoleServer, Idle>,
    _client: tokio::io::DuplexStream,
}

static SERVICE: LazyLock<Service> = LazyLock::new(|| {
    RUNTIME.block_on(async {
        let (server_io, client) = tokio::io::duplex(4096);
        let running = rmcp::service::serve_directly(Idle, tokio::io::split(server_io), None);
        Service {
            running,
            _client: client,
        }
    })
});

fn peer() -> Peer<RoleServer> {
    SERVICE.running.peer().clone()
}

fn echo() -> usize {
    TOOLS
        .iter()
        .position(|tool| tool.name == "echo")
        .expect("the benchmark manifest has echo")
}

/// A form of one required boolean.
fn form(field: &str) -> ElicitationSchema {
    serde_json::from_value(
        json!({"type": "object", "properties": {field: {"type": "boolean"}}, "required": [field]}),
    )
    .expect("a valid form")
}

/// An accepted form's answer.
fn yes(field: &str) -> Value {
    json!({"action": "accept", "content": {field: true}})
}

/// One `tools/call` of `echo` on 2026-07-28, with these answers and this sealed state.
fn call(responses: Value, state: Option<&str>) -> Call {
    let mut params = json!({"name": "echo", "arguments": {"message": "refund order 42"}});
    if responses
        .as_object()
        .is_some_and(|answers| !answers.is_empty())
    {
        params["inputResponses"] = responses;
    }
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    let request: CallToolRequestParams = serde_json::from_value(params).expect("call params");
    let mut context = RequestContext::new(NumberOrString::Number(1), peer());
    context.meta = serde_json::from_value::<RequestMetaObject>(json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    }))
    .expect("request meta");
    let (_, call) = Call::split(request, context, None);
    call
}

/// The body: asks for each of `questions` in turn, then echoes the message.
async fn body(
    questions: &'static [&'static str],
    args: EchoArgs,
    ctx: CallContext,
) -> Result<Value, ToolError> {
    for question in questions {
        let asked = Elicitation::new(format!("Confirm {question}?"), form(question));
        if ctx.elicit(question, &asked).await? != ElicitAnswer::Accept(yes_content(question)) {
            return Err(ToolError::new("Declined", "not confirmed"));
        }
    }
    Ok(json!({"message": args.message}))
}

fn yes_content(field: &str) -> harness_runtime::validate::JsonObject {
    yes(field)["content"]
        .as_object()
        .cloned()
        .expect("an object")
}

/// Runs one call of `body` asking `questions`.
fn respond(questions: &'static [&'static str], call: Call) -> CallToolResponse {
    RUNTIME
        .block_on(PIPELINE.respond(echo(), call, |args: EchoArgs, ctx| {
            body(questions, args, ctx)
        }))
        .expect("a tool response")
}

/// The state of an input-required response.
fn sealed(response: CallToolResponse) -> String {
    match response {
        CallToolResponse::InputRequired(result) => result.request_state.expect("a sealed state"),
        other => panic!("expected an input-required result, got {other:?}"),
    }
}

fn completed(response: &CallToolResponse) -> bool {
    matches!(response, CallToolResponse::Complete(result)
        if result.is_error != Some(true)
            && result.structured_content == Some(json!({"message": "refund order 42"})))
}

const NONE: &[&str] = &[];
const ONE: &[&str] = &["confirm"];
const TWO: &[&str] = &["approve", "confirm"];

/// For scale: the same 2026-07-28 call of a body that asks for nothing.
#[divan::bench]
fn no_input(bencher: Bencher) {
    bencher
        .with_inputs(|| call(json!({}), None))
        .bench_local_values(|call| {
            let response = respond(NONE, call);
            assert!(completed(&response), "{response:?}");
            response
        });
}

/// The first call: the body asks, the state is sealed.
#[divan::bench]
fn ask(bencher: Bencher) {
    bencher
        .with_inputs(|| call(json!({}), None))
        .bench_local_values(|call| {
            let response = respond(ONE, call);
            assert!(
                matches!(&response, CallToolResponse::InputRequired(result) if result.request_state.is_some()),
                "{response:?}"
            );
            response
        });
}

/// The second call: the state opened, the answer validated, the body run to its result.
#[divan::bench]
fn answer(bencher: Bencher) {
    let state = sealed(respond(ONE, call(json!({}), None)));
    bencher
        .with_inputs(|| call(json!({"confirm": yes("confirm")}), Some(&state)))
        .bench_local_values(|call| {
            let response = respond(ONE, call);
            assert!(completed(&response), "{response:?}");
            response
        });
}

/// The last call of two rounds: the state carries the first answer, the request the second.
#[divan::bench]
fn answer_with_a_sealed_answer(bencher: Bencher) {
    let first = sealed(respond(TWO, call(json!({}), None)));
    let second = sealed(respond(
        TWO,
        call(json!({"approve": yes("approve")}), Some(&first)),
    ));
    bencher
        .with_inputs(|| call(json!({"confirm": yes("confirm")}), Some(&second)))
        .bench_local_values(|call| {
            let response = respond(TWO, call);
            assert!(completed(&response), "{response:?}");
            response
        });
}
