//! The direct lane to a stdio upstream: a `tools/call` written to the child's stdin by the
//! task that makes it, and its reply handed straight back by the reader of the child's
//! stdout. Every byte to the child goes through one [`StdinWriter`], rmcp's sends included, so
//! lines never interleave.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, RequestId};
use tokio::sync::oneshot;

use crate::sync::lock;
use crate::upstream::lane::call::{self, Answer, Ids};
use crate::upstream::stdin::StdinWriter;

/// One stdio connection's direct lane: its writer and the calls waiting for their replies.
pub(crate) struct PipeLane {
    pub(in crate::upstream::lane) ids: Ids,
    writer: Arc<StdinWriter>,
    waiting: Mutex<Waiting>,
}

#[derive(Default)]
struct Waiting {
    calls: HashMap<i64, oneshot::Sender<Answer>>,
    /// The connection ended: nothing more will be answered.
    closed: bool,
}

/// A call's place among those waiting, taken out when it is dropped (answered or abandoned).
pub(crate) struct Pending<'a> {
    lane: &'a PipeLane,
    id: i64,
    answer: oneshot::Receiver<Answer>,
}

impl PipeLane {
    /// The lane over `writer`, which rmcp's sends share.
    pub(crate) fn new(writer: Arc<StdinWriter>) -> Self {
        Self {
            ids: Ids::default(),
            writer,
            waiting: Mutex::default(),
        }
    }

    /// Writes `params` as `tools/call` number `id` (from
    /// [`Lane::next_id`](crate::upstream::lane::Lane::next_id)); the reply comes to the
    /// returned [`Pending`].
    pub(crate) fn call(
        &self,
        id: i64,
        params: &CallToolRequestParams,
    ) -> Result<Pending<'_>, ServiceError> {
        let mut line = call::request(id, params, 1)?;
        line.push(b'\n');
        let (sender, answer) = oneshot::channel();
        {
            let mut waiting = lock(&self.waiting);
            if waiting.closed {
                return Err(ServiceError::TransportClosed);
            }
            waiting.calls.insert(id, sender);
        }
        // Registered before it is written, so a reply that comes at once finds its call.
        let pending = Pending {
            lane: self,
            id,
            answer,
        };
        self.writer.write(&line).map_err(|error| {
            tracing::warn!(%error, "a call could not be written to the upstream");
            ServiceError::TransportClosed
        })?;
        Ok(pending)
    }

    /// Hands `answer` to the call waiting for `id` (a lane id,
    /// [`is_lane_id`](crate::upstream::lane::is_lane_id)); the answer to a call no longer
    /// waiting (abandoned) is dropped.
    pub(crate) fn answer(&self, id: &RequestId, answer: Answer) {
        let RequestId::Number(id) = id else {
            return;
        };
        let waiting = lock(&self.waiting).calls.remove(id);
        if let Some(call) = waiting {
            let _ = call.send(answer);
        }
    }

    /// The connection has ended (its transport dropped): every call still waiting fails, and
    /// later ones at once.
    pub(crate) fn close(&self) {
        let mut waiting = lock(&self.waiting);
        waiting.closed = true;
        waiting.calls.clear();
    }
}

impl Pending<'_> {
    /// The call's reply; `TransportClosed` when the connection ends first.
    pub(crate) async fn answered(&mut self) -> Answer {
        (&mut self.answer)
            .await
            .unwrap_or(Err(ServiceError::TransportClosed))
    }

    /// The call's id (what `notifications/cancelled` names).
    pub(crate) fn id(&self) -> RequestId {
        RequestId::Number(self.id)
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        lock(&self.lane.waiting).calls.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{
        CallToolRequest, CallToolResult, ClientJsonRpcMessage, ClientRequest, ContentBlock,
        ServerResult,
    };
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, BufReader};

    use super::*;
    use crate::upstream::lane::call::{FIRST_ID, is_lane_id, progress_token};
    use crate::upstream::stdin::tests::cat;

    fn params() -> CallToolRequestParams {
        let arguments = json!({"message": "hi \"there\"\n", "n": [1, 2]});
        CallToolRequestParams::new("echo").with_arguments(arguments.as_object().unwrap().clone())
    }

    #[tokio::test]
    async fn a_call_is_written_as_rmcp_writes_it_with_its_progress_token() {
        let (_child, writer, stdout) = cat();
        let lane = PipeLane::new(writer);
        let mut lines = BufReader::new(stdout).lines();
        let id = lane.ids.next();
        let mut with_token = params();
        with_token
            .meta
            .get_or_insert_with(Default::default)
            .set_progress_token(progress_token(id));
        for sent in [params(), with_token] {
            let id = lane.ids.next();
            let _pending = lane.call(id, &sent).unwrap();
            let line = lines.next_line().await.unwrap().unwrap();
            let written: Value = serde_json::from_str(&line).unwrap();
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(sent));
            let rmcp = ClientJsonRpcMessage::request(request, RequestId::Number(id));
            assert_eq!(written, serde_json::to_value(rmcp).unwrap());
        }
        assert!(id >= FIRST_ID && is_lane_id(&RequestId::Number(id)));
        assert!(!is_lane_id(&RequestId::Number(i64::from(u32::MAX))));
        assert!(!is_lane_id(&RequestId::String("1099511627776".into())));
    }

    #[tokio::test]
    async fn each_reply_reaches_its_own_call_and_a_dropped_call_is_forgotten() {
        let (_child, writer, _stdout) = cat();
        let lane = PipeLane::new(writer);
        let (first, second, dropped) = (lane.ids.next(), lane.ids.next(), lane.ids.next());
        let mut one = lane.call(first, &params()).unwrap();
        let mut two = lane.call(second, &params()).unwrap();
        drop(lane.call(dropped, &params()).unwrap());
        let result = |text: &str| {
            Ok(ServerResult::CallToolResult(CallToolResult::success(vec![
                ContentBlock::text(text),
            ])))
        };
        // Answered out of order; the dropped call's answer goes nowhere.
        lane.answer(&RequestId::Number(dropped), result("dropped"));
        lane.answer(&RequestId::Number(second), result("two"));
        lane.answer(&RequestId::Number(first), result("one"));
        let text = |answer: Answer| match answer {
            Ok(ServerResult::CallToolResult(result)) => serde_json::to_value(result).unwrap(),
            other => panic!("not a tool result: {other:?}"),
        };
        assert_eq!(
            text(one.answered().await),
            json!({"content": [{"type": "text", "text": "one"}], "isError": false, "resultType": "complete"})
        );
        assert_eq!(text(two.answered().await)["content"][0]["text"], "two");
        assert!(lock(&lane.waiting).calls.is_empty());
    }

    #[tokio::test]
    async fn calls_fail_once_the_upstream_has_closed() {
        let (_child, writer, _stdout) = cat();
        let lane = PipeLane::new(writer);
        let mut waiting = lane.call(lane.ids.next(), &params()).unwrap();
        lane.close();
        assert!(matches!(
            waiting.answered().await,
            Err(ServiceError::TransportClosed)
        ));
        assert!(matches!(
            lane.call(lane.ids.next(), &params()),
            Err(ServiceError::TransportClosed)
        ));
    }
}
