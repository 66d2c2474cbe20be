//! Duplicate keys in tool arguments, caught on the raw message before rmcp parses it.
//!
//! A JSON parser keeps the last of two equal keys, so `{"incident_id":"42","incident_id":42}`
//! would reach the validator as a valid integer and the audit would hash only the winner.
//! Every transport hands each incoming message to [`mark_duplicate_arguments`] first; a
//! message whose `params.arguments` (at any depth) repeats a key gets the repeated paths in
//! `params._meta["harness/duplicate_keys"]`, and the pipeline refuses that call with
//! `InvalidArguments` naming them. Messages without duplicates (nearly all) pass unchanged,
//! byte for byte; malformed JSON passes too, for rmcp to answer with its parse error. A
//! client that sets the key itself can only get its own call refused. The one reader that
//! comes before the marking, the stateless fast path's plain call, reads `arguments` as a
//! [`UniqueKeysObject`], which fails on a repeat, so a message with one goes on to be marked
//! like any other.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::Deserializer;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::pipeline::call::DUPLICATE_KEYS_META;
use crate::strict_json::StrictValue;

/// The repeated argument paths of each message (one entry per batch item; a single message
/// is item 0), or `None` when there are none or the text is not JSON.
fn duplicate_arguments(message: &[u8]) -> Option<Vec<(usize, Vec<String>)>> {
    let mut deserializer = serde_json::Deserializer::from_slice(message);
    let found = MessageOrBatch.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    let found: Vec<_> = found
        .into_iter()
        .enumerate()
        .filter(|(_, paths)| !paths.is_empty())
        .collect();
    (!found.is_empty()).then_some(found)
}

/// The message with its duplicate argument keys marked, or `None` when it has none.
pub fn mark_duplicate_arguments(message: &[u8]) -> Option<Vec<u8>> {
    let found = duplicate_arguments(message)?;
    let mut value: Value = serde_json::from_slice(message).ok()?;
    for (index, paths) in found {
        let item = match &mut value {
            Value::Array(items) => items.get_mut(index)?,
            single => single,
        };
        let params = item.get_mut("params")?.as_object_mut()?;
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(serde_json::Map::new());
        }
        meta.as_object_mut()
            .expect("made an object above")
            .insert(DUPLICATE_KEYS_META.to_owned(), paths.into());
    }
    serde_json::to_vec(&value).ok()
}

/// The visitor methods of every JSON scalar, each answering `Self::Value::default()`: only
/// objects and arrays can hold argument keys.
macro_rules! scalars_are_nothing {
    () => {
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }

        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }

        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }

        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }

        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

/// A message (one item) or a batch (one item per message).
struct MessageOrBatch;

impl<'de> DeserializeSeed<'de> for MessageOrBatch {
    type Value = Vec<Vec<String>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MessageOrBatch {
    type Value = Vec<Vec<String>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message or batch")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(vec![Message.visit_map(map)?])
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(paths) = seq.next_element_seed(Message)? {
            items.push(paths);
        }
        Ok(items)
    }
}

/// A message: only `params.arguments` is looked at.
struct Message;

impl<'de> DeserializeSeed<'de> for Message {
    type Value = Vec<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Message {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut paths = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "params" {
                paths.extend(map.next_value_seed(Params)?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(paths)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Vec::new())
    }

    scalars_are_nothing!();
}

/// `params`: only `arguments` is looked at.
struct Params;

impl<'de> DeserializeSeed<'de> for Params {
    type Value = Vec<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        // Anything but an object is rmcp's to refuse; the walk accepts every JSON value.
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Params {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON-RPC params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut paths = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "arguments" {
                map.next_value_seed(Walk {
                    path: Step::Root,
                    found: &mut paths,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(paths)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Message.visit_seq(seq)
    }

    scalars_are_nothing!();
}

/// Any value under `arguments`: every object's keys are checked for repeats, at any depth.
/// The path is rendered only for a repeat: nearly every message has none, and formatting a
/// path for every key cost more than the rest of the walk.
struct Walk<'p, 'f> {
    path: Step<'p>,
    found: &'f mut Vec<String>,
}

/// The keys of one object so far: a short list for the few keys arguments have (cheaper than
/// hashing), a hash set past that, so a hostile object of many keys stays linear.
enum SeenKeys<'de> {
    Few(Vec<Cow<'de, str>>),
    Many(HashSet<Cow<'de, str>>),
}

impl Default for SeenKeys<'_> {
    fn default() -> Self {
        SeenKeys::Few(Vec::new())
    }
}

impl<'de> SeenKeys<'de> {
    const FEW: usize = 16;

    fn contains(&self, key: &str) -> bool {
        match self {
            SeenKeys::Few(keys) => keys.iter().any(|seen| seen == key),
            SeenKeys::Many(set) => set.contains(key),
        }
    }

    /// Adds a key not seen yet.
    fn insert(&mut self, key: Cow<'de, str>) {
        match self {
            SeenKeys::Few(keys) if keys.len() < Self::FEW => keys.push(key),
            SeenKeys::Few(keys) => {
                let mut set: HashSet<_> = keys.drain(..).collect();
                set.insert(key);
                *self = SeenKeys::Many(set);
            }
            SeenKeys::Many(set) => {
                set.insert(key);
            }
        }
    }
}

/// Where a value sits under `arguments`, as a chain back to the root.
#[derive(Clone, Copy)]
enum Step<'p> {
    Root,
    Key(&'p Step<'p>, &'p str),
    Index(&'p Step<'p>, usize),
}

impl Step<'_> {
    /// `a.b[0].c`.
    fn render(&self) -> String {
        match self {
            Step::Root => String::new(),
            Step::Key(parent, key) => match parent {
                Step::Root => (*key).to_owned(),
                _ => format!("{}.{key}", parent.render()),
            },
            Step::Index(parent, index) => format!("{}[{index}]", parent.render()),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = SeenKeys::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            map.next_value_seed(Walk {
                path: Step::Key(&self.path, &key),
                found: self.found,
            })?;
            if seen.contains(&key) {
                self.found.push(Step::Key(&self.path, &key).render());
            } else {
                seen.insert(key);
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        loop {
            let walk = Walk {
                path: Step::Index(&self.path, index),
                found: self.found,
            };
            if seq.next_element_seed(walk)?.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    scalars_are_nothing!();
}

/// An HTTP POST's body, read (at most `limit` bytes, else 413 as rmcp answers) and refused
/// when it is a JSON-RPC batch (crate::transport::batch); `Err` is the answer.
pub(crate) async fn read_body<B>(
    body: B,
    limit: usize,
) -> Result<axum::body::Bytes, axum::response::Response>
where
    B: hyper::body::Body<Data = axum::body::Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    use axum::response::IntoResponse;
    use http_body_util::BodyExt;
    let Ok(collected) = http_body_util::Limited::new(body, limit).collect().await else {
        return Err(too_large(limit).into_response());
    };
    let bytes = collected.to_bytes();
    if crate::transport::batch::is_batch(&bytes) {
        return Err(crate::transport::batch::refusal());
    }
    Ok(bytes)
}

/// `bytes` with its duplicate argument keys marked. A marked body's length changed, so its
/// `Content-Length` is dropped from `parts`.
pub(crate) fn marked(
    parts: &mut axum::http::request::Parts,
    bytes: axum::body::Bytes,
) -> axum::body::Bytes {
    match mark_duplicate_arguments(&bytes) {
        Some(marked) => {
            parts.headers.remove(axum::http::header::CONTENT_LENGTH);
            marked.into()
        }
        None => bytes,
    }
}

/// A call's `arguments` object, read only when no object in it, at any depth, repeats a key:
/// where [`mark_duplicate_arguments`] would mark nothing. A repeat fails the read, so a reader
/// that takes this type instead of a plain object (the stateless fast path's plain call)
/// needs no separate pass over the message; what it refuses goes on to be marked.
pub(crate) struct UniqueKeysObject(pub(crate) serde_json::Map<String, Value>);

impl<'de> serde::Deserialize<'de> for UniqueKeysObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_map(StrictValue)? {
            Value::Object(object) => Ok(Self(object)),
            // serde_json visits only a map here; another format may visit something else.
            _ => Err(serde::de::Error::custom("arguments must be a JSON object")),
        }
    }
}

/// The answer to a body over the limit, worded as rmcp words it.
pub(crate) fn too_large(limit: usize) -> (axum::http::StatusCode, String) {
    (
        axum::http::StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: request body exceeds {limit} bytes"),
    )
}

/// Standard input for the stdio transport, each line (one JSON-RPC message) marked.
pub(crate) fn marked_stdin() -> impl tokio::io::AsyncRead + Send + Unpin + 'static {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (mut writer, reader) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let written = match mark_duplicate_arguments(&line) {
                Some(mut marked) => {
                    marked.push(b'\n');
                    writer.write_all(&marked).await
                }
                None => writer.write_all(&line).await,
            };
            if written.is_err() {
                break;
            }
        }
        let _ = writer.shutdown().await;
    });
    reader
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(message: &str) -> Option<Value> {
        mark_duplicate_arguments(message.as_bytes())
            .map(|bytes| serde_json::from_slice(&bytes).unwrap())
    }

    #[test]
    fn clean_and_malformed_messages_pass_unchanged() {
        for message in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1,"b":{"a":2}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            r#"{"params":{"arguments":{"a":1,"a":2}"#,
            "not json",
            r#"{"a":1,"a":2}"#,
        ] {
            assert_eq!(marked(message), None, "{message}");
        }
    }

    #[test]
    fn repeated_argument_keys_are_marked_at_any_depth() {
        let value = marked(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"traceparent":"x"},"arguments":{"incident_id":"42","incident_id":42,"f":[{"x":1,"x":2}]}}}"#,
        )
        .unwrap();
        assert_eq!(
            value["params"]["_meta"],
            serde_json::json!({"traceparent": "x", DUPLICATE_KEYS_META: ["incident_id", "f[0].x"]})
        );
        assert_eq!(value["params"]["arguments"]["incident_id"], 42);
    }

    #[test]
    fn paths_are_rendered_only_for_repeats_and_objects_of_many_keys_stay_exact() {
        let value = marked(
            r#"{"method":"tools/call","params":{"arguments":{"a":{"b":[0,{"c":1,"c":2}]},"x\u0041":1,"xA":2}}}"#,
        )
        .unwrap();
        assert_eq!(
            value["params"]["_meta"][DUPLICATE_KEYS_META],
            serde_json::json!(["a.b[1].c", "xA"]),
            "an escaped key equals its plain spelling"
        );

        // Past the short list, the hash set takes over without losing a key.
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        let message = format!(
            r#"{{"method":"tools/call","params":{{"arguments":{{{},"k3":0,"k39":0}}}}}}"#,
            keys.join(",")
        );
        let value = marked(&message).unwrap();
        assert_eq!(
            value["params"]["_meta"][DUPLICATE_KEYS_META],
            serde_json::json!(["k3", "k39"])
        );
    }

    /// The oracle is serde_json itself: where the walk finds no repeat, the unique-keys read
    /// gives serde_json's own value; where it finds one, the read fails.
    #[test]
    fn the_unique_keys_read_is_serde_json_where_nothing_repeats_and_fails_where_something_does() {
        for arguments in [
            r#"{}"#,
            r#"{"a":1,"b":-2,"c":1.5,"d":1e300,"e":null,"f":true,"g":"x\u0041","h":[1,{"a":1}]}"#,
            r#"{"big":18446744073709551615,"small":-9223372036854775808,"nested":{"a":{"b":{"c":[[],{}]}}}}"#,
            r#"{"a":{"b":[0,{"c":1,"c":2}]}}"#,
            r#"{"x\u0041":1,"xA":2}"#,
            r#"{"a":1,"a":1}"#,
        ] {
            let message = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{arguments}}}}}"#
            );
            let repeats = mark_duplicate_arguments(message.as_bytes()).is_some();
            let read = serde_json::from_str::<UniqueKeysObject>(arguments);
            if repeats {
                assert!(read.is_err(), "{arguments}");
            } else {
                let expected: Value = serde_json::from_str(arguments).unwrap();
                assert_eq!(Value::Object(read.unwrap().0), expected, "{arguments}");
            }
        }
        for not_an_object in ["[]", "1", "\"a\"", "null"] {
            assert!(serde_json::from_str::<UniqueKeysObject>(not_an_object).is_err());
        }
    }

    #[test]
    fn batches_are_marked_per_item() {
        let value = marked(
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"a":1,"a":1}}}]"#,
        )
        .unwrap();
        assert!(value[0]["params"].get("_meta").is_none());
        assert_eq!(
            value[1]["params"]["_meta"][DUPLICATE_KEYS_META],
            serde_json::json!(["a"])
        );
    }
}
