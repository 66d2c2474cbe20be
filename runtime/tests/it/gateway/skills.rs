//! The hostile upstream's skill through the gateway: pinned from its own `skills/list` (as
//! `import` pins it), every file read and checked against the pinned entry's digest, its text
//! cleaned as descriptions are (tags, hidden characters), and served with the digest and size
//! of what is served; a file whose bytes change under the same listing is refused, and a skill
//! whose listing changes is refused (or, with `on_drift = "drop"`, leaves the lists).

use std::sync::Arc;
use std::time::{Duration, Instant};

use harness_contract::pin_sha256;
use harness_runtime::Pipeline;
use harness_runtime::catalog::{Resolved, UpstreamSkills};
use harness_runtime::spec::{OnDrift, PinKind, PinSpec, ServerSpec, UpstreamSpec};
use harness_runtime::upstream::{Upstreams, fetch_offered};
use rmcp::model::{ErrorData, ReadResourceRequestParams, ReadResourceResult, ResourceContents};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{audit_in, audited, hostile, leak};
use crate::common::SERVER;
use crate::common::clients::Session;

const SKILL: &str = "skill://hostile-guide/SKILL.md";
const NOTES: &str = "skill://hostile-guide/references/notes.md";

/// A gateway of no catalog of its own: every skill it serves is the upstream's.
static SKILLS_SERVER: ServerSpec = SERVER;

struct SkillGateway {
    pipeline: Pipeline,
    upstreams: Arc<Upstreams>,
    dir: tempfile::TempDir,
    session: Session,
}

/// A gateway in front of the hostile upstream (`mode` its extra arguments), its skill
/// pinned from the `skills/list` of an upstream started without `mode`.
async fn gateway(mode: &[&str], on_drift: OnDrift) -> SkillGateway {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("upstream.jsonl");
    let plain = hostile(&dir.path().join("plain.jsonl"), &[], on_drift);
    let offered = fetch_offered(leak(Box::new(plain(&[]))))
        .await
        .expect("the upstream starts");
    let listed = offered
        .of(PinKind::Skill)
        .iter()
        .find(|entry| PinKind::Skill.name_of(entry) == Some(SKILL))
        .expect("the skill is listed");
    let pins = vec![PinSpec {
        kind: PinKind::Skill,
        name: SKILL,
        remote_name: SKILL,
        sha256: leak(pin_sha256(PinKind::Skill, listed).into_boxed_str()),
        schema: None,
        subscribe: false,
    }];
    let spec = hostile(&log, mode, on_drift);
    let upstream: &'static [UpstreamSpec] =
        leak(vec![spec(leak(pins.into_boxed_slice()))].into_boxed_slice());
    let pipeline = audited(&SKILLS_SERVER, &[], dir.path());
    let upstreams = Arc::new(Upstreams::new(upstream));
    upstreams.start().await;
    SkillGateway {
        pipeline,
        upstreams,
        dir,
        session: Session::new(json!({}), Value::Null),
    }
}

impl SkillGateway {
    fn skills(&self) -> UpstreamSkills {
        self.upstreams.skills()
    }

    /// The `skills/list` entries, as JSON.
    fn listed(&self) -> Vec<Value> {
        let list = self.pipeline.catalog().list_skills_with(&self.skills());
        list.skills
            .iter()
            .map(|skill| serde_json::to_value(skill).unwrap())
            .collect()
    }

    fn get(&self, uri: &str) -> Result<Value, ErrorData> {
        let got = self
            .pipeline
            .catalog()
            .get_skill_with(uri, &self.skills())?;
        Ok(serde_json::to_value(got).unwrap())
    }

    fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let request = ReadResourceRequestParams::new(uri);
        let context = self.session.context();
        match self
            .pipeline
            .catalog()
            .resolve_resource_with(&request, &context, &self.skills())
        {
            Resolved::Done(result) => result,
            _ => panic!("a skill file is read from what the gateway kept"),
        }
    }

    /// How many `resources/read` of `uri` reached the upstream.
    fn reads_of(&self, uri: &str) -> usize {
        std::fs::read_to_string(self.dir.path().join("upstream.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|message| message["method"] == "resources/read")
            .filter(|message| message["params"]["uri"] == uri)
            .count()
    }
}

fn text_of(result: &ReadResourceResult) -> &str {
    match &result.contents[..] {
        [ResourceContents::TextResourceContents { text, .. }] => text,
        other => panic!("not one text: {other:?}"),
    }
}

/// The oracle: `sha256:` and the hex SHA-256 of `text`, computed here.
fn digest(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

fn is_drift(error: &ErrorData) -> bool {
    error
        .data
        .as_ref()
        .is_some_and(|data| data["error_code"] == "UpstreamDrift")
}

#[tokio::test]
async fn an_upstream_skill_is_served_cleaned_with_the_digests_of_what_is_served() {
    let gateway = gateway(&[], OnDrift::Refuse).await;
    let listed = gateway.listed();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let entry = &listed[0];
    assert_eq!(entry["uri"], SKILL);
    assert_eq!(
        entry["frontmatter"]["description"], "How to read the notes.",
        "the frontmatter is cleaned too"
    );
    let files = entry["resources"].as_array().expect("files with digests");
    assert_eq!(files.len(), 2);
    for file in files {
        let uri = file["uri"].as_str().unwrap();
        let served = gateway.read(uri).expect("a kept file");
        let text = text_of(&served);
        for hostile in [
            "<system",
            "</system>",
            "<img",
            "onerror",
            "~/.ssh",
            "\u{200b}",
            "\u{202e}",
            "\u{2066}",
        ] {
            assert!(
                !text.contains(hostile),
                "{uri} still holds {hostile:?}: {text:?}"
            );
        }
        assert_eq!(
            file["digest"],
            digest(text),
            "{uri}: the listed digest is of the served bytes"
        );
        assert_eq!(
            file["size"],
            text.len(),
            "{uri}: the listed size is of the served bytes"
        );
    }
    let skill_md = text_of(&gateway.read(SKILL).unwrap()).to_owned();
    assert!(
        skill_md.contains("Read the notes. Then  answer. Done."),
        "{skill_md:?}"
    );
    assert_eq!(gateway.get(SKILL).unwrap()["skill"], *entry);
    let children = gateway
        .pipeline
        .catalog()
        .read_skill_directory_with("skill://hostile-guide", &gateway.skills())
        .expect("the skill's root");
    let names: Vec<&str> = children
        .resources
        .iter()
        .map(|child| child.name.as_str())
        .collect();
    assert_eq!(names, ["SKILL.md", "references"]);
    let resources = gateway
        .pipeline
        .catalog()
        .list_resources_with(&gateway.skills());
    assert_eq!(resources.resources.len(), 1);
    assert_eq!(resources.resources[0].uri, SKILL);
    // Served from what was kept: the upstream read each file once, at the check.
    assert_eq!(gateway.reads_of(SKILL), 1);
    let audited: Vec<Value> = audit_in(gateway.dir.path())
        .into_iter()
        .filter(|record| record["method"] == "resources/read")
        .collect();
    assert_eq!(audited.len(), 3, "every read audited: {audited:?}");
}

#[tokio::test]
async fn a_skill_whose_file_changes_under_the_same_listing_is_refused() {
    let gateway = gateway(&["skill-rewritten"], OnDrift::Refuse).await;
    assert!(gateway.listed().is_empty(), "never kept, never listed");
    let error = gateway.get(SKILL).expect_err("withheld");
    assert!(is_drift(&error), "{error:?}");
    for uri in [SKILL, NOTES] {
        let error = gateway.read(uri).expect_err("withheld");
        assert!(is_drift(&error), "{uri}: {error:?}");
    }
    let health = gateway.upstreams.health();
    assert_eq!(health["hostile"]["drifted"], json!([SKILL]), "{health}");
    let refused = audit_in(gateway.dir.path());
    assert!(
        refused
            .iter()
            .any(|record| record["method"] == "resources/read"
                && record["error_code"] == "UpstreamDrift"),
        "{refused:?}"
    );
}

/// Waits until the skill's pin drifted (the upstream's list change was checked).
async fn until_drifted(gateway: &SkillGateway) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while gateway.upstreams.health()["hostile"]["drifted"] != json!([SKILL]) {
        assert!(
            Instant::now() < deadline,
            "the relisted skill never drifted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_skill_whose_listing_changes_is_refused() {
    let gateway = gateway(&["rugpull-skill"], OnDrift::Refuse).await;
    until_drifted(&gateway).await;
    let error = gateway.get(SKILL).expect_err("refused");
    assert!(is_drift(&error), "{error:?}");
    let error = gateway.read(SKILL).expect_err("refused");
    assert!(is_drift(&error), "{error:?}");
    // Still listed as it was checked: the description the upstream now lists is never shown.
    let listed = gateway.listed();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0]["frontmatter"]["description"],
        "How to read the notes."
    );
}

#[tokio::test]
async fn with_on_drift_drop_a_skill_whose_listing_changes_leaves_the_lists() {
    let gateway = gateway(&["rugpull-skill"], OnDrift::Drop).await;
    until_drifted(&gateway).await;
    assert!(gateway.listed().is_empty());
    let resources = gateway
        .pipeline
        .catalog()
        .list_resources_with(&gateway.skills());
    assert!(resources.resources.is_empty(), "{resources:?}");
    let error = gateway.get(SKILL).expect_err("refused");
    assert!(is_drift(&error), "{error:?}");
    let error = gateway.read(NOTES).expect_err("refused");
    assert!(is_drift(&error), "{error:?}");
    let capabilities = gateway
        .upstreams
        .advertise(SKILLS_SERVER.server_info())
        .capabilities;
    assert_eq!(
        capabilities
            .resources
            .as_ref()
            .and_then(|resources| resources.list_changed),
        Some(true),
        "the sessions are told when a skill leaves the list"
    );
    assert!(capabilities.supports_skills());
}
