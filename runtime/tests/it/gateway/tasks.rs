//! A 2026-07-28 upstream whose tool runs only as a task (the harness's own task machinery,
//! served by rmcp over streamable HTTP): the gateway declares the tasks extension, follows the
//! task to its end and answers with its result, and a gateway call dropped before the end
//! cancels the upstream's task, whose body then never does its work.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use harness_contract::definition_sha256;
use harness_runtime::spec::{
    PinKind, PinSpec, RateLimitBackend, ServerSpec, TaskSpec, TaskSupport, ToolSpec, UpstreamSpec,
};
use harness_runtime::upstream::{Reply, Upstreams, fetch_tools};
use harness_runtime::validate::NoArguments;
use harness_runtime::{Call, CallContext, Pipeline};
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ErrorData, GetTaskParams,
    GetTaskResult, InitializeResult, ListToolsResult, PaginatedRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::leak;
use crate::common::{GUARDS, SERVER, tool, upstream};

/// `slow`: only ever a task, polled every 20 ms.
static TOOLS: [ToolSpec; 1] = [ToolSpec {
    task: Some(TaskSpec {
        support: TaskSupport::Required,
        ttl_ms: 60_000,
        poll_interval_ms: 20,
        max_alive: 4,
        ask_first: &[],
        store: RateLimitBackend::Memory,
        lease_ms: 30_000,
    }),
    ..tool("slow", GUARDS)
}];

/// What the upstream saw: its task polled, the body's work done, its task cancelled.
#[derive(Default)]
struct Seen {
    polled: Notify,
    done: AtomicU32,
    cancelled: Notify,
}

/// What a generated handler does for a task tool: the pipeline answers, the body owns what
/// it uses; `delay` is how long the body works.
#[derive(Clone)]
struct TaskUpstream {
    pipeline: Arc<Pipeline>,
    seen: Arc<Seen>,
    delay: Duration,
}

impl ServerHandler for TaskUpstream {
    fn get_info(&self) -> InitializeResult {
        harness_runtime::tasks::advertise(SERVER.server_info())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![TOOLS[0].to_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (_, call) = Call::split(request, context, None);
        let (seen, delay) = (Arc::clone(&self.seen), self.delay);
        Pipeline::respond_task(
            &self.pipeline,
            0,
            call,
            move |_: NoArguments, ctx: CallContext| async move {
                tokio::select! {
                    () = ctx.cancelled() => Err(harness_runtime::ToolError::internal("cancelled")),
                    () = tokio::time::sleep(delay) => {
                        seen.done.fetch_add(1, Ordering::SeqCst);
                        Ok(json!({"done": true}))
                    }
                }
            },
        )
        .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.seen.polled.notify_one();
        self.pipeline.tasks().get(&request.task_id, &context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // The task is cancelled (its body stopped, or never started) before this answers.
        self.pipeline
            .tasks()
            .cancel(&request.task_id, &context)
            .await?;
        self.seen.cancelled.notify_one();
        Ok(())
    }
}

fn spec(url: &str, pins: &'static [PinSpec]) -> &'static UpstreamSpec {
    upstream::spec_2026("tasks", url, &[], pins)
}

/// A gateway in front of an upstream whose body works for `delay`.
async fn gateway(delay: Duration) -> (Upstreams, Arc<Seen>) {
    static UPSTREAM: ServerSpec = SERVER;
    let seen = Arc::new(Seen::default());
    let url = upstream::serve(TaskUpstream {
        pipeline: Arc::new(Pipeline::new(&UPSTREAM, &TOOLS)),
        seen: Arc::clone(&seen),
        delay,
    })
    .await;
    let live = fetch_tools(spec(&url, &[])).await.expect("tools/list");
    let pins = leak(Box::new([PinSpec {
        kind: PinKind::Tool,
        name: "slow",
        remote_name: "slow",
        sha256: leak(definition_sha256(&serde_json::to_value(&live[0]).unwrap()).into_boxed_str()),
        schema: None,
        subscribe: false,
    }]));
    let upstreams = Upstreams::new(std::slice::from_ref(spec(&url, pins)));
    upstreams.start().await;
    assert!(upstreams.all_up(), "{}", upstreams.health());
    (upstreams, seen)
}

fn context() -> CallContext {
    CallContext::new("slow", "mcp-00000000".into(), CancellationToken::new())
}

#[tokio::test]
async fn an_upstream_task_is_followed_to_its_result() {
    let (upstreams, seen) = gateway(Duration::from_millis(100)).await;
    let reply = upstreams
        .call(0, 0, json!({}), context())
        .await
        .expect("the task's result");
    assert_eq!(reply, Reply::Json(json!({"done": true})));
    assert_eq!(seen.done.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_dropped_call_cancels_the_upstream_task() {
    let (upstreams, seen) = gateway(Duration::from_secs(60)).await;
    // The tool's timeout (or the client's cancellation) drops the call while the task runs:
    // once the gateway follows it (it polled).
    let call = upstreams.call(0, 0, json!({}), context());
    tokio::select! {
        ended = call => panic!("the call ended: {ended:?}"),
        () = seen.polled.notified() => {}
    }
    tokio::time::timeout(Duration::from_secs(20), seen.cancelled.notified())
        .await
        .expect("the upstream's task was cancelled");
    assert_eq!(
        seen.done.load(Ordering::SeqCst),
        0,
        "its work never happened"
    );
}
