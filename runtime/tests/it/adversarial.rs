//! The tag strip against an adversarial corpus (tests/corpus/adversarial.jsonl: tag tricks,
//! nesting, splicing, case, confusables, control and invisible characters, huge inputs,
//! JSON-looking payloads, plain "ignore previous instructions" text), run through the real
//! pipeline as a text result, inside a structured result and as a tool's error message; and
//! its invariants as properties: a fixed point whose output is what the independent oracle
//! (harness_test_support::strip_oracle) says the strip promises: no construct it removes, no
//! block contents kept, nothing it keeps removed. Secret redaction, which runs after the
//! strip, has its own properties here: idempotent, and a text without a secret comes back
//! unchanged (never longer).

use harness_runtime::guards::redact::{Redactions, redact, redact_with};
use harness_runtime::guards::strip::{sanitize, strip_hidden};
use harness_runtime::spec::*;
use harness_runtime::validate::NoArguments;
use harness_runtime::{Call, Pipeline, ToolError};
use harness_test_support::strip_oracle::{expected_strip, find_leak, is_plain, only_removes};
use proptest::prelude::*;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common;

use common::{GUARDS, SERVER, tool};

static TOOLS: [ToolSpec; 1] = [tool("echo", GUARDS)];

struct Entry {
    line: usize,
    category: String,
    input: String,
    left: bool,
    expect: Option<String>,
}

fn corpus() -> Vec<Entry> {
    let text = include_str!("../corpus/adversarial.jsonl");
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let value: Value = serde_json::from_str(line).expect("corpus line is JSON");
            let input = value["input"].as_str().expect("input").repeat(
                value
                    .get("repeat")
                    .and_then(Value::as_u64)
                    .map_or(1, |n| n as usize),
            );
            Entry {
                line: index + 1,
                category: value["category"].as_str().expect("category").to_owned(),
                input,
                left: value.get("left").and_then(Value::as_bool).unwrap_or(false),
                expect: value
                    .get("expect")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }
        })
        .collect()
}

fn text_of(result: &CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}

/// Every string in `value`, object keys included: checked one by one, not through the JSON
/// text, where control characters are `\u001b`-escaped and out of the oracle's sight.
fn strings_in(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::String(text) => into.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings_in(item, into)),
        Value::Object(object) => {
            for (key, item) in object {
                into.push(key.clone());
                strings_in(item, into);
            }
        }
        _ => {}
    }
}

/// Text without `<` and without anything the strip hides (newline and tab aside).
const PLAIN: &str = concat!(
    r"(?:[\n\t]|[^<\p{Cc}\p{Default_Ignorable_Code_Point}",
    r"\x{2028}\x{2029}\x{fff9}-\x{fffb}]){0,64}"
);

/// The three ways an untrusted string reaches the model: as the result, inside a
/// structured result (its key and its value, each), and as the message of a tool's error.
async fn through_pipeline(pipeline: &Pipeline, input: &str) -> [Vec<String>; 3] {
    let run = |output: Result<Value, ToolError>| async {
        let call = Call::new(None, None, CancellationToken::new());
        pipeline
            .run(0, call, |_: NoArguments, _| async move { output })
            .await
            .expect("a tool result")
    };
    let plain = run(Ok(Value::String(input.to_owned()))).await;
    let structured = run(Ok(json!({"log": input, input: 1}))).await;
    let error = run(Err(ToolError::new("E", input.to_owned()))).await;
    let structured_value = structured.structured_content.clone().expect("structured");
    let error_message = error.structured_content.as_ref().expect("envelope")["message"]
        .as_str()
        .expect("message")
        .to_owned();
    // The text block is the structured value's JSON, nothing more.
    assert_eq!(
        serde_json::from_str::<Value>(&text_of(&structured)).expect("JSON text"),
        structured_value
    );
    // The value of `log` and the other key are the input; `log` and `1` are the body's own.
    let mut structured_strings = Vec::new();
    for (key, item) in structured_value.as_object().expect("an object") {
        if key == "log" {
            strings_in(item, &mut structured_strings);
        } else {
            assert_eq!(*item, json!(1), "{structured_value}");
            structured_strings.push(key.clone());
        }
    }
    [
        vec![text_of(&plain)],
        structured_strings,
        vec![error_message],
    ]
}

#[tokio::test]
async fn the_adversarial_corpus_has_no_passthrough() {
    let pipeline = Pipeline::new(&SERVER, &TOOLS);
    let entries = corpus();
    assert!(entries.len() >= 150, "{} strings", entries.len());
    let mut passthrough = Vec::new();
    for entry in &entries {
        let forms = ["text", "structured", "error"]
            .into_iter()
            .zip(through_pipeline(&pipeline, &entry.input).await)
            .flat_map(|(form, outputs)| outputs.into_iter().map(move |output| (form, output)));
        for (form, output) in forms {
            let problem = find_leak(&entry.input, &output)
                .or_else(|| {
                    (!entry.left && output.contains("PWNED")).then(|| "payload kept".to_owned())
                })
                .or_else(|| {
                    let expected = entry.expect.as_deref().filter(|_| form != "structured");
                    expected
                        .filter(|expected| output != *expected)
                        .map(|expected| format!("expected {expected:?}"))
                })
                .or_else(|| {
                    (entry.left && form != "structured" && output != entry.input)
                        .then(|| "a form left on purpose was changed".to_owned())
                });
            if let Some(problem) = problem {
                let shown: String = output.chars().take(80).collect();
                passthrough.push(format!(
                    "line {} ({}, {form}): {problem}: {shown:?}",
                    entry.line, entry.category
                ));
            }
        }
    }
    println!(
        "adversarial corpus: {} strings, {} passthrough",
        entries.len(),
        passthrough.len()
    );
    assert!(passthrough.is_empty(), "{}", passthrough.join("\n"));
}

/// Inputs built from the pieces constructs are made of, so splices and nestings are common.
fn markup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<"),
        Just(">"),
        Just("</"),
        Just("/>"),
        Just("/"),
        Just("a"),
        Just("A"),
        Just("b"),
        Just("SYSTEM"),
        Just(" "),
        Just("x=\"1\""),
        Just("<!--"),
        Just("-->"),
        Just("-"),
        Just("!"),
        Just("<![CDATA["),
        Just("]]>"),
        Just("<|"),
        Just("|>"),
        Just("|"),
        Just("\u{200b}"),
        Just("\u{1b}["),
        Just("\u{1b}]"),
        Just("m"),
        Just("\u{7}"),
        Just("\u{e0041}"),
        Just("é"),
        Just("\n"),
    ];
    prop::collection::vec(piece, 0..48).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn the_strip_is_a_fixed_point_and_leaves_no_construct(input in markup()) {
        let once = sanitize(&input, true).into_owned();
        prop_assert_eq!(sanitize(&once, true), once.as_str());
        prop_assert_eq!(find_leak(&input, &once), None, "input {:?} gave {:?}", input, once);
    }

    #[test]
    fn the_strip_only_removes(input in markup()) {
        let visible = strip_hidden(&input).into_owned();
        let once = sanitize(&input, true);
        let mut rest = visible.chars();
        for c in once.chars() {
            prop_assert!(rest.any(|kept| kept == c), "{:?} is not a subsequence of {:?}", once, visible);
        }
        // Without tag stripping, exactly the hidden characters go.
        let hidden_only = sanitize(&input, false);
        prop_assert_eq!(hidden_only.as_ref(), expected_strip(&input, false));
        prop_assert!(only_removes(&input, &hidden_only));
    }

    #[test]
    fn arbitrary_text_never_panics_and_stays_clean(input in any::<String>()) {
        let once = sanitize(&input, true).into_owned();
        prop_assert_eq!(sanitize(&once, true), once.as_str());
        prop_assert_eq!(find_leak(&input, &once), None);
    }

    #[test]
    fn text_with_nothing_to_strip_comes_back_unchanged(input in PLAIN) {
        prop_assume!(is_plain(&input));
        prop_assert_eq!(sanitize(&input, true), input.as_str());
    }
}

/// Texts built from the pieces secrets are made of (prefixes, labels, separators, runs of
/// token characters), so many of them hold a secret, some half of one, some two that touch.
fn secretish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("AKIA"),
        Just("ASIA"),
        Just("Q7Q7Q7Q7"),
        Just("ghp_"),
        Just("github_pat_"),
        Just("glpat-"),
        Just("xoxb-"),
        Just("sk-"),
        Just("sk-ant-"),
        Just("sk_live_"),
        Just("npm_"),
        Just("AIza"),
        Just("eyJ"),
        Just("eyJhbGciOiJIUzI1NiJ9"),
        Just("aB3dE6gH9jK2"),
        Just("0123456789"),
        Just("."),
        Just("-"),
        Just("_"),
        Just("="),
        Just(":"),
        Just("@"),
        Just("/"),
        Just("://"),
        Just("postgres://u:"),
        Just("Authorization: "),
        Just("Bearer "),
        Just("aws_secret_access_key="),
        Just("-----BEGIN RSA PRIVATE KEY-----"),
        Just("-----END RSA PRIVATE KEY-----"),
        Just("[REDACTED:jwt]"),
        Just("https://hooks.slack.com/services/"),
        Just("\n"),
        Just("\\n"),
        Just(" "),
        Just("\""),
        Just("é"),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// Texts of the look-alikes' pieces only, space-separated: hex, UUID-like runs, words,
/// versions.
fn secret_free() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[0-9a-f]{7,64}",
        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "v[0-9]\\.[0-9]{1,2}\\.[0-9]{1,3}(-rc\\.[0-9])?",
        "[a-z]{1,12}",
        Just("sk-learn".to_owned()),
        Just("scikit-learn".to_owned()),
        Just("AKIA".to_owned()),
        // Followed by `;`: 16 token characters after `Authorization:` are a credential.
        Just("Authorization: denied; ".to_owned()),
        Just("https://example.com:8443/x".to_owned()),
        Just(" ".to_owned()),
        Just("\n".to_owned()),
        Just(", ".to_owned()),
    ];
    // Words are delimited in text: glued together, `sk-` and a camelCase run is a key's shape.
    prop::collection::vec(piece, 0..30).prop_map(|pieces| pieces.join(" "))
}

proptest! {
    // Fewer cases than the strip's: the regex automata are slow in a debug build.
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn redaction_is_idempotent(input in secretish()) {
        let once = redact(&input).into_owned();
        prop_assert_eq!(redact(&once), once.as_str());
    }

    #[test]
    fn redaction_changes_a_text_only_where_it_counts_a_secret(input in secretish()) {
        let mut tally = Redactions::default();
        let out = redact_with(&input, &[], &mut tally);
        if tally.is_empty() {
            prop_assert_eq!(out.as_ref(), input.as_str());
        } else {
            // One marker per redaction; a redacted span may have held markers of its own.
            let markers = out.matches("[REDACTED:").count() as u64;
            let before = input.matches("[REDACTED:").count() as u64;
            prop_assert!(tally.total() <= markers && markers <= tally.total() + before);
        }
    }

    #[test]
    fn a_text_without_a_secret_comes_back_unchanged(input in secret_free()) {
        prop_assert_eq!(redact(&input), input.as_str());
    }
}

/// Found by the fuzzer: a Unicode space after a tag name once ended the name and left a tag
/// the oracle (and a model) reads as one.
#[test]
fn a_fuzzed_tag_with_unicode_spaces_and_controls_leaves_nothing() {
    let fuzzed = "<SYS\u{2001}\t\t\t\t\t\t\t\t\t\t\0\0\0\0\0A> \u{1}\0\0/N /\t\t0\tT\t\tE&P/Y";
    let once = sanitize(fuzzed, true);
    assert_eq!(find_leak(fuzzed, &once), None, "{once:?}");
    assert_eq!(sanitize(&once, true), once);
}
