//! `call` of a tool whose calls become tasks (`[tools.task]`, the tasks extension): the call
//! goes out as a 2026-07-28 request declaring the extension, and the task it is answered with
//! is polled with `tasks/get` at the interval the server suggests until it ends. Each change of
//! status goes to stderr; the end is handed back as the JSON-RPC response an inline call would
//! have had (a completed task's result, a failed task's error), so `call` prints it the same
//! way. The same loop serves the in-process call (`call.rs`) and `--url` (`call_remote.rs`).

use std::time::Duration;

use rmcp::model::TASKS_EXTENSION_ID;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::cli::error::CallError;

/// The protocol revision the tasks extension is defined for: each request carries it.
pub(crate) const TASK_PROTOCOL_VERSION: &str = "2026-07-28";

/// The JSON-RPC id of the `tools/call` itself; polls count up from the next.
pub(crate) const CALL_ID: u64 = 2;

/// Slowest and fastest polling `call` does, whatever the server suggests.
const POLL_BOUNDS: (u64, u64) = (50, 5_000);

/// One request to the server, already written out.
pub(crate) struct Outgoing {
    /// Its JSON-RPC id.
    pub(crate) id: u64,
    /// Its method, for the `Mcp-Method` header.
    pub(crate) method: &'static str,
    /// The tool's name or the task's id, for the `Mcp-Name` header.
    pub(crate) name: String,
    /// The JSON-RPC message.
    pub(crate) message: String,
}

/// A way to send requests one at a time and read each one's response.
pub(crate) trait Requests {
    /// The whole JSON-RPC response to `request`.
    async fn send(&mut self, request: Outgoing) -> Result<Value, CallError>;
}

/// The protocol metadata each 2026-07-28 request carries, the tasks extension declared.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": TASK_PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "harness-call", "version": env!("CARGO_PKG_VERSION")},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION_ID: {}}},
    })
}

/// The `tools/call` of `tool` with `arguments` (JSON object text, checked by the caller and
/// sent as typed, so repeated keys reach the server's ingress), as a task's request.
pub(crate) fn tools_call(tool: &str, arguments: &str) -> Outgoing {
    let name = serde_json::to_string(tool).expect("a string serializes");
    Outgoing {
        id: CALL_ID,
        method: "tools/call",
        name: tool.to_owned(),
        message: format!(
            r#"{{"jsonrpc":"2.0","id":{CALL_ID},"method":"tools/call","params":{{"name":{name},"arguments":{arguments},"_meta":{}}}}}"#,
            meta()
        ),
    }
}

fn task_request(id: u64, method: &'static str, task_id: &str) -> Outgoing {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method,
        "params": {"taskId": task_id, "_meta": meta()}});
    Outgoing {
        id,
        method,
        name: task_id.to_owned(),
        message: message.to_string(),
    }
}

/// Sends `call` and, when the server answers with a task, polls it until it ends (or until
/// `deadline`, when the task is cancelled). Returns the response an inline call would have
/// had; a server that answered inline (a refusal before any task existed) is returned as it
/// answered.
pub(crate) async fn call_as_task<R: Requests>(
    requests: &mut R,
    call: Outgoing,
    deadline: Option<Instant>,
) -> Result<Value, CallError> {
    let far = || Instant::now() + Duration::from_secs(86_400 * 365);
    let reply = tokio::time::timeout_at(deadline.unwrap_or_else(far), requests.send(call))
        .await
        .map_err(|_| CallError::Task("the call got no answer in time".to_owned()))??;
    let created = match reply.get("result") {
        Some(result) if result["resultType"] == "task" => result,
        _ => return Ok(reply),
    };
    let Some(task_id) = created["taskId"].as_str().map(str::to_owned) else {
        return Err(CallError::Task(format!(
            "the server answered with a task without a taskId: {created}"
        )));
    };
    let mut next_id = CALL_ID + 1;
    let polled = tokio::time::timeout_at(
        deadline.unwrap_or_else(far),
        poll(requests, &task_id, created, &mut next_id),
    )
    .await;
    let ended = match polled {
        Ok(Ended::Answer(answer)) => return answer,
        Ok(Ended::AsksForInput(questions)) => format!(
            "task {task_id} asks for input `call` cannot give ({questions}); it was cancelled"
        ),
        Err(_) => format!("task {task_id} did not end in time; it was cancelled"),
    };
    let cancel = task_request(next_id, "tasks/cancel", &task_id);
    let _ = tokio::time::timeout(Duration::from_secs(5), requests.send(cancel)).await;
    Err(CallError::Task(ended))
}

/// How polling a task ended.
enum Ended {
    /// With what `call` hands back.
    Answer(Result<Value, CallError>),
    /// With questions `call` cannot answer: the task is to be cancelled.
    AsksForInput(Value),
}

/// `tasks/get` at the suggested interval until the task leaves `working`.
async fn poll<R: Requests>(
    requests: &mut R,
    task_id: &str,
    created: &Value,
    next_id: &mut u64,
) -> Ended {
    let mut last = report(task_id, created, None);
    let mut interval = poll_interval(created);
    loop {
        tokio::time::sleep(interval).await;
        let reply = match requests
            .send(task_request(*next_id, "tasks/get", task_id))
            .await
        {
            Ok(reply) => reply,
            Err(error) => return Ended::Answer(Err(error)),
        };
        *next_id += 1;
        if reply.get("error").is_some() {
            return Ended::Answer(Ok(reply));
        }
        let task = &reply["result"];
        last = report(task_id, task, last);
        interval = poll_interval(task);
        let response = |key: &str, value: &Value| {
            Ended::Answer(Ok(json!({"jsonrpc": "2.0", "id": CALL_ID, key: value})))
        };
        match task["status"].as_str() {
            Some("working") => {}
            Some("completed") => return response("result", &task["result"]),
            Some("failed") => return response("error", &task["error"]),
            Some("input_required") => return Ended::AsksForInput(task["inputRequests"].clone()),
            Some("cancelled") => {
                return Ended::Answer(Err(CallError::Task(format!(
                    "task {task_id} was cancelled before it ended"
                ))));
            }
            _ => {
                return Ended::Answer(Err(CallError::Task(format!(
                    "task {task_id} has a status this client does not know: {task}"
                ))));
            }
        }
    }
}

/// The interval the task suggests, within [`POLL_BOUNDS`].
fn poll_interval(task: &Value) -> Duration {
    let suggested = task["pollIntervalMs"].as_u64().unwrap_or(1_000);
    Duration::from_millis(suggested.clamp(POLL_BOUNDS.0, POLL_BOUNDS.1))
}

/// Prints the task's status on stderr when it changed; returns it.
fn report(task_id: &str, task: &Value, last: Option<String>) -> Option<String> {
    let status = task["status"].as_str().unwrap_or("?").to_owned();
    if last.as_deref() != Some(status.as_str()) {
        match task["statusMessage"].as_str() {
            Some(message) => eprintln!("task {task_id}: {status}: {message}"),
            None => eprintln!("task {task_id}: {status}"),
        }
    }
    Some(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers from a script, recording what was sent.
    struct Scripted {
        answers: std::collections::VecDeque<Value>,
        sent: Vec<Value>,
    }

    impl Requests for Scripted {
        async fn send(&mut self, request: Outgoing) -> Result<Value, CallError> {
            let message: Value = serde_json::from_str(&request.message).expect("JSON");
            assert_eq!(message["id"], request.id);
            assert_eq!(message["method"], request.method);
            self.sent.push(message);
            Ok(self.answers.pop_front().expect("an answer left"))
        }
    }

    fn scripted(answers: &[Value]) -> Scripted {
        Scripted {
            answers: answers.iter().cloned().collect(),
            sent: Vec::new(),
        }
    }

    fn task(status: &str, extra: Value) -> Value {
        let mut task = json!({"taskId": "t1", "status": status, "pollIntervalMs": 1});
        task.as_object_mut()
            .expect("object")
            .extend(extra.as_object().expect("object").clone());
        json!({"jsonrpc": "2.0", "id": 9, "result": task})
    }

    #[tokio::test]
    async fn a_task_is_polled_until_it_completes_and_its_result_is_the_answer() {
        let result = json!({"content": [{"type": "text", "text": "done"}]});
        let mut server = scripted(&[
            task("working", json!({"resultType": "task"})),
            task("working", json!({})),
            task("completed", json!({"result": result})),
        ]);
        let reply = call_as_task(&mut server, tools_call("slow", r#"{"a":1,"a":2}"#), None)
            .await
            .expect("answered");
        assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 2, "result": result}));
        let methods: Vec<_> = server.sent.iter().map(|m| m["method"].clone()).collect();
        assert_eq!(methods, ["tools/call", "tasks/get", "tasks/get"]);
        for message in &server.sent {
            let meta = &message["params"]["_meta"];
            assert_eq!(
                meta["io.modelcontextprotocol/protocolVersion"],
                "2026-07-28"
            );
            assert!(
                meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]
                    .get(TASKS_EXTENSION_ID)
                    .is_some()
            );
        }
        assert_eq!(server.sent[1]["params"]["taskId"], "t1");
        assert_eq!(server.sent[2]["id"], 4);
    }

    #[test]
    fn the_arguments_go_out_as_typed() {
        let call = tools_call("slow", r#"{"a":1,"a":2}"#);
        assert!(
            call.message.contains(r#""arguments":{"a":1,"a":2}"#),
            "{}",
            call.message
        );
    }

    #[tokio::test]
    async fn an_inline_answer_and_a_failed_task_are_answers_too() {
        let refusal = json!({"jsonrpc": "2.0", "id": 2, "result": {"isError": true}});
        let mut server = scripted(std::slice::from_ref(&refusal));
        let reply = call_as_task(&mut server, tools_call("slow", "{}"), None).await;
        assert_eq!(reply.expect("answered"), refusal);

        let error = json!({"code": -32603, "message": "expired"});
        let mut server = scripted(&[
            task("working", json!({"resultType": "task"})),
            task("failed", json!({"error": error})),
        ]);
        let reply = call_as_task(&mut server, tools_call("slow", "{}"), None).await;
        assert_eq!(reply.expect("answered")["error"], error);
    }

    #[tokio::test]
    async fn a_task_that_asks_for_input_is_cancelled_and_reported() {
        let mut server = scripted(&[
            task("working", json!({"resultType": "task"})),
            task("input_required", json!({"inputRequests": {"confirm": {}}})),
            json!({"jsonrpc": "2.0", "id": 4, "result": {}}),
        ]);
        let error = call_as_task(&mut server, tools_call("slow", "{}"), None)
            .await
            .expect_err("cannot answer");
        assert!(error.to_string().contains("t1"), "{error}");
        assert_eq!(server.sent[2]["method"], "tasks/cancel");
    }

    #[tokio::test]
    async fn past_the_deadline_the_task_is_cancelled() {
        let mut server = scripted(&[
            task(
                "working",
                json!({"resultType": "task", "pollIntervalMs": 5000}),
            ),
            json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
        ]);
        let deadline = Instant::now() + Duration::from_millis(100);
        let error = call_as_task(&mut server, tools_call("slow", "{}"), Some(deadline))
            .await
            .expect_err("out of time");
        assert!(error.to_string().contains("cancelled"), "{error}");
        assert_eq!(server.sent[1]["method"], "tasks/cancel");
    }
}
