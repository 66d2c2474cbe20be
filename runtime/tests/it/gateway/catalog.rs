//! The hostile upstream's prompt, resource and template through the gateway: pinned from its
//! own lists, every answer through the catalog's guards, arguments validated before the
//! upstream sees them, each request kind rate-limited, a prompt that changes upstream refused
//! (or dropped from the list), and only the served resource's updates passed on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use harness_contract::pin_sha256;
use harness_runtime::Pipeline;
use harness_runtime::catalog::{
    CacheSpec, CatalogSpec, PromptSpec, Resolved, ResourceContent, ResourceSpec, TemplateSpec,
    VariableKind,
};
use harness_runtime::spec::{
    GuardSpec, OnDrift, PinKind, PinSpec, RateLimitBackend, RateLimitScope, RateLimitSpec,
    ServerSpec, UpstreamSpec,
};
use harness_runtime::upstream::{Upstreams, fetch_offered};
use harness_runtime::validate::{ArgErrors, ArgPath, FromArguments, JsonObject, NoArguments};
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, ContentBlock, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, PromptReference, ReadResourceRequestParams,
    ReadResourceResult, Reference, ResourceContents, ResourceTemplateReference,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use super::{GATEWAY_GUARDS, audit_in, audited, hostile, leak};
use crate::common::SERVER;
use crate::common::clients::Session;

/// The validated arguments of the prompt `review`: one required string.
#[derive(Debug, serde::Serialize)]
struct Topic {
    topic: String,
}

impl FromArguments for Topic {
    fn from_arguments(
        object: &JsonObject,
        path: ArgPath<'_>,
        errors: &mut ArgErrors,
    ) -> Option<Self> {
        match object.get("topic").and_then(Value::as_str) {
            Some(topic) if object.len() == 1 => Some(Topic {
                topic: topic.to_owned(),
            }),
            _ => {
                errors.push(path.field("topic"), "a string, and nothing else");
                None
            }
        }
    }
}

/// The validated variables of the template: one string.
#[derive(Debug)]
struct FileName;

impl FromArguments for FileName {
    fn from_arguments(
        object: &JsonObject,
        path: ArgPath<'_>,
        errors: &mut ArgErrors,
    ) -> Option<Self> {
        if object.len() == 1 && object.get("name").is_some_and(Value::is_string) {
            Some(FileName)
        } else {
            errors.push(path.field("name"), "a string, and nothing else");
            None
        }
    }
}

/// The prompt, resource and template this gateway publishes, as a generated server states
/// them, behind the caps every gateway test uses.
static CATALOG: CatalogSpec = CatalogSpec {
    resources: &[ResourceSpec {
        uri: "hostile://notes",
        name: "notes",
        title: None,
        description: None,
        mime_type: "text/plain",
        content: ResourceContent::Upstream,
        size: 0,
        subscribe: false,
    }],
    templates: &[TemplateSpec {
        uri_template: "hostile://files/{name}",
        name: "files",
        title: None,
        description: None,
        mime_type: "text/plain",
        variables: &[("name", VariableKind::Text)],
        completions: &[],
    }],
    prompts: &[PromptSpec {
        name: "review",
        title: None,
        description: "Review a change.",
        arguments: &[("topic", Some("What to review."), true)],
        completions: &[],
        validate: harness_runtime::catalog::validate_prompt::<NoArguments>,
        messages: &[],
        computed: true,
    }],
    skills: &[],
    guards: GATEWAY_GUARDS,
    cache: CacheSpec::DEFAULT,
};

static CATALOG_SERVER: ServerSpec = ServerSpec {
    catalog: CATALOG,
    ..SERVER
};

/// The same, with `[defaults.guards] rate_limit = { calls = 2, period_seconds = 3600 }`.
static LIMITED_SERVER: ServerSpec = ServerSpec {
    catalog: CatalogSpec {
        guards: GuardSpec {
            rate_limit: Some(RateLimitSpec {
                calls: 2,
                period_seconds: 3600.0,
                backend: RateLimitBackend::Memory,
                per: RateLimitScope::Tool,
            }),
            ..GATEWAY_GUARDS
        },
        ..CATALOG
    },
    ..SERVER
};

struct CatalogGateway {
    pipeline: Pipeline,
    upstreams: Arc<Upstreams>,
    dir: tempfile::TempDir,
    session: Session,
}

/// The pins of the prompt (0), the resource (1) and the template (2).
const PROMPT: usize = 0;
const RESOURCE: usize = 1;
const TEMPLATE: usize = 2;

/// A gateway in front of the hostile upstream (`mode` its extra arguments), its prompt,
/// resource and template pinned from the upstream's own lists (as `import` pins them).
async fn gateway(mode: &[&str], on_drift: OnDrift) -> CatalogGateway {
    gateway_of(&CATALOG_SERVER, mode, on_drift).await
}

/// [`gateway`] serving `server`'s catalog.
async fn gateway_of(
    server: &'static ServerSpec,
    mode: &[&str],
    on_drift: OnDrift,
) -> CatalogGateway {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("upstream.jsonl");
    let spec = hostile(&log, mode, on_drift);
    let offered = fetch_offered(leak(Box::new(spec(&[]))))
        .await
        .expect("the upstream starts");
    let pin = |kind: PinKind, name: &'static str| {
        let live = offered
            .of(kind)
            .iter()
            .find(|definition| kind.name_of(definition) == Some(name))
            .expect("listed");
        PinSpec {
            kind,
            name,
            remote_name: name,
            sha256: leak(pin_sha256(kind, live).into_boxed_str()),
            schema: None,
            subscribe: kind == PinKind::Resource,
        }
    };
    let pins = vec![
        pin(PinKind::Prompt, "review"),
        pin(PinKind::Resource, "hostile://notes"),
        pin(PinKind::ResourceTemplate, "hostile://files/{name}"),
    ];
    let upstream: &'static [UpstreamSpec] =
        leak(vec![spec(leak(pins.into_boxed_slice()))].into_boxed_slice());
    let pipeline = audited(server, &[], dir.path());
    let upstreams = Arc::new(Upstreams::new(upstream));
    upstreams.start().await;
    CatalogGateway {
        pipeline,
        upstreams,
        dir,
        session: Session::new(json!({}), Value::Null),
    }
}

impl CatalogGateway {
    fn context(&self) -> RequestContext<RoleServer> {
        self.session.context()
    }

    async fn get_prompt(&self, arguments: Value) -> Result<GetPromptResult, ErrorData> {
        let request = GetPromptRequestParams::new("review")
            .with_arguments(arguments.as_object().cloned().unwrap_or_default());
        let upstreams = &self.upstreams;
        let response = self
            .pipeline
            .catalog()
            .get_computed_prompt(request, self.context(), |args: Topic, ctx| {
                upstreams.get_prompt(0, PROMPT, args, ctx)
            })
            .await?;
        match response {
            GetPromptResponse::Complete(result) => Ok(result),
            other => panic!("not a result: {other:?}"),
        }
    }

    async fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let request = ReadResourceRequestParams::new(uri);
        let upstreams = &self.upstreams;
        let catalog = self.pipeline.catalog();
        match catalog.resolve_resource(&request, &self.context()) {
            Resolved::Done(result) => result,
            Resolved::Upstream(read) => {
                assert_eq!(read.index(), 0);
                catalog
                    .read_template(read, |_: NoArguments, uri, ctx| {
                        upstreams.read_resource(0, RESOURCE, uri, ctx)
                    })
                    .await
            }
            Resolved::Template(read) => {
                assert_eq!(read.index(), 0);
                catalog
                    .read_template(read, |_: FileName, uri, ctx| {
                        upstreams.read_resource(0, TEMPLATE, uri, ctx)
                    })
                    .await
            }
        }
    }

    /// The methods the upstream received, in order.
    fn received(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("upstream.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter_map(|message| message["method"].as_str().map(str::to_owned))
            .collect()
    }

    /// How many `prompts/get` reached the upstream.
    fn gets(&self) -> usize {
        self.received()
            .iter()
            .filter(|method| *method == "prompts/get")
            .count()
    }

    fn audit(&self) -> Vec<Value> {
        audit_in(self.dir.path())
    }
}

fn texts_of_prompt(result: &GetPromptResult) -> Vec<String> {
    result
        .messages
        .iter()
        .map(|message| match &message.content {
            ContentBlock::Text(text) => text.text.clone(),
            other => panic!("not text: {other:?}"),
        })
        .collect()
}

fn text_of_read(result: &ReadResourceResult) -> &str {
    match &result.contents[..] {
        [ResourceContents::TextResourceContents { text, .. }] => text,
        other => panic!("not one text: {other:?}"),
    }
}

fn assert_clean(text: &str) {
    for hostile in [
        "IMPORTANT",
        "~/.ssh",
        "\x1b",
        "\u{202e}",
        "QWERTYUIOPASDFGH",
    ] {
        assert!(!text.contains(hostile), "{hostile:?} passed: {text:.300}");
    }
}

#[tokio::test]
async fn an_upstream_prompt_resource_and_template_pass_every_guard() {
    let gateway = gateway(&[], OnDrift::Refuse).await;

    let prompt = gateway
        .get_prompt(json!({"topic": "the deploy"}))
        .await
        .expect("the prompt");
    let texts = texts_of_prompt(&prompt);
    assert!(
        texts[0].starts_with("Review the deploy."),
        "{:.80}",
        texts[0]
    );
    assert_clean(&texts[0]);
    let total: usize = texts.iter().map(|text| text.chars().count()).sum();
    assert!(total <= 4000, "one char budget across the prompt: {total}");
    assert_eq!(prompt.description.as_deref(), Some("Review a change."));

    let refused = gateway
        .get_prompt(json!({"topic": 7}))
        .await
        .expect_err("invalid arguments");
    assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert_eq!(
        gateway.gets(),
        1,
        "invalid arguments never reach the upstream"
    );

    let notes = gateway.read("hostile://notes").await.expect("the resource");
    let text = text_of_read(&notes);
    assert!(text.starts_with("notes"), "{text:.80}");
    assert_clean(text);
    assert!(text.chars().count() <= 4000, "{}", text.len());

    let file = gateway.read("hostile://files/readme").await.expect("read");
    assert_eq!(text_of_read(&file), "file readme");
    let unknown = gateway
        .read("hostile://elsewhere")
        .await
        .expect_err("unknown");
    assert_eq!(unknown.code, rmcp::model::ErrorCode::RESOURCE_NOT_FOUND);

    let upstreams = &gateway.upstreams;
    let context = gateway.context();
    for reference in [
        Reference::Prompt(PromptReference::new("review")),
        Reference::Resource(ResourceTemplateReference::new("hostile://files/{name}")),
    ] {
        let pin = match reference {
            Reference::Prompt(_) => PROMPT,
            _ => TEMPLATE,
        };
        let request = CompleteRequestParams::new(reference, ArgumentInfo::new("topic", "a"));
        let completed = gateway
            .pipeline
            .catalog()
            .complete_with(&request, &context, |argument, value, ctx| {
                upstreams.complete(0, pin, argument, value, ctx)
            })
            .await
            .expect("completed");
        assert_eq!(
            completed.completion.values,
            ["alpha", "beta"],
            "stripped, and the empty and overlong values left out"
        );
    }

    let methods: Vec<String> = gateway
        .audit()
        .iter()
        .map(|record| record["method"].as_str().unwrap_or_default().to_owned())
        .collect();
    for method in ["prompts/get", "resources/read", "completion/complete"] {
        assert!(
            methods.iter().any(|m| m == method),
            "{method} audited: {methods:?}"
        );
    }
}

/// Asks for the prompt until `done` says yes (the upstream's list is compared again once its
/// notification arrives), for at most 20 s.
async fn until_prompt(
    gateway: &CatalogGateway,
    done: impl Fn(&Result<GetPromptResult, ErrorData>) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = gateway.get_prompt(json!({"topic": "x"})).await;
        if done(&answer) {
            return;
        }
        assert!(Instant::now() < deadline, "still {answer:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_prompt_changed_upstream_is_refused_as_drift() {
    let gateway = gateway(&["rugpull-prompt"], OnDrift::Refuse).await;
    // The first get is answered; the upstream then rewrites the prompt's description and
    // says so with notifications/prompts/list_changed.
    gateway
        .get_prompt(json!({"topic": "x"}))
        .await
        .expect("the pinned prompt");
    until_prompt(&gateway, |answer| {
        answer.as_ref().is_err_and(|error| {
            error
                .data
                .as_ref()
                .is_some_and(|data| data["error_code"] == "UpstreamDrift")
        })
    })
    .await;
    let gets = gateway.gets();
    gateway
        .get_prompt(json!({"topic": "x"}))
        .await
        .expect_err("still drifted");
    assert_eq!(gateway.gets(), gets, "a drifted prompt is never got again");
    // The resource and the template did not change: still served.
    gateway
        .read("hostile://notes")
        .await
        .expect("unchanged resource");
}

#[tokio::test]
async fn with_on_drift_drop_a_changed_prompt_leaves_its_list() {
    let gateway = gateway(&["rugpull-prompt"], OnDrift::Drop).await;
    let listed = |gateway: &CatalogGateway| {
        gateway
            .upstreams
            .visible_prompts(gateway.pipeline.catalog().list_prompts())
            .prompts
            .len()
    };
    assert_eq!(listed(&gateway), 1);
    gateway
        .get_prompt(json!({"topic": "x"}))
        .await
        .expect("the pinned prompt");
    let deadline = Instant::now() + Duration::from_secs(20);
    while listed(&gateway) == 1 {
        assert!(
            Instant::now() < deadline,
            "the drifted prompt is still listed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let resources = gateway
        .upstreams
        .visible_resources(gateway.pipeline.catalog().list_resources());
    assert_eq!(resources.resources.len(), 1, "the resource did not change");
}

#[tokio::test]
async fn updates_of_a_served_resource_are_passed_on_and_no_others() {
    let gateway = gateway(&[], OnDrift::Refuse).await;
    let subscribed = gateway
        .received()
        .iter()
        .filter(|method| *method == "resources/subscribe")
        .count();
    assert_eq!(
        subscribed, 1,
        "the gateway subscribed upstream to the resource it serves"
    );
    let mut updates = gateway.upstreams.resource_updates();
    gateway.read("hostile://notes").await.expect("the resource");
    // The upstream announced hostile://elsewhere first, on the same stream: dropped.
    let updated = tokio::time::timeout(Duration::from_secs(20), updates.recv())
        .await
        .expect("an update passed on")
        .expect("the channel is open");
    assert_eq!(updated, "hostile://notes");
}

#[tokio::test]
async fn requests_that_reach_the_upstream_are_rate_limited_per_kind() {
    let gateway = gateway_of(&LIMITED_SERVER, &[], OnDrift::Refuse).await;
    for _ in 0..2 {
        gateway
            .get_prompt(json!({"topic": "x"}))
            .await
            .expect("within the limit");
    }
    let refused = gateway
        .get_prompt(json!({"topic": "x"}))
        .await
        .expect_err("over the limit");
    let data = refused.data.expect("the envelope's fields");
    assert_eq!(data["error_code"], "ToolRateLimitError", "{data}");
    let gets = gateway.gets();
    assert_eq!(gets, 2, "a refused get never reaches the upstream");
    // Reads have a window of their own.
    gateway
        .read("hostile://files/a")
        .await
        .expect("another kind");
    let outcomes: Vec<Value> = gateway
        .audit()
        .iter()
        .map(|record| record["outcome"].clone())
        .collect();
    assert!(outcomes.contains(&json!("rate_limited")), "{outcomes:?}");
}
