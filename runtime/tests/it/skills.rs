//! The skills extension through the pipeline, as the generated handler calls it: the entries
//! with their digests and frontmatter, `skills/get` and its refusal, directory reads at every
//! level, and a skill file read byte for byte (not through the output guards, which would cut
//! and strip it here) and audited. Digests are written here, computed by Python's hashlib, not by the
//! code that serves them.

use crate::common;

use harness_runtime::catalog::{CatalogSpec, SkillFileSpec, SkillSpec};
use harness_runtime::spec::{GuardSpec, ServerSpec, ToolSpec};
use harness_runtime::{AuditLog, Pipeline};
use rmcp::model::{ErrorCode, ReadResourceRequestParams, ResourceContents, SkillResources};
use serde_json::{Value, json};

use common::clients::Session;
use common::{AUDIT, GUARDS, SERVER};

/// Its digest, by Python's hashlib.
const SKILL_MD: &str = "---\nname: triage\ndescription: Triage an incident.\nlicense: MIT\n---\n\nRead <IMPORTANT>the runbook</IMPORTANT> first.\n";
const SKILL_MD_DIGEST: &str =
    "sha256:b1fbcab544cf47be279bcb51cb714989cc35ffb9baf48041850d45e0fce6e46a";
const GUIDE: &str = "# Guide\n";

static SKILLS_SERVER: ServerSpec = ServerSpec {
    catalog: CatalogSpec {
        skills: &[SkillSpec {
            name: "triage",
            description: "Triage an incident.",
            frontmatter: r#"{"name":"triage","description":"Triage an incident.","license":"MIT"}"#,
            files: &[
                SkillFileSpec {
                    uri: "skill://triage/SKILL.md",
                    mime_type: "text/markdown",
                    text: SKILL_MD,
                    size: SKILL_MD.len() as u64,
                    digest: SKILL_MD_DIGEST,
                },
                SkillFileSpec {
                    uri: "skill://triage/references/deep/GUIDE.md",
                    mime_type: "text/markdown",
                    text: GUIDE,
                    size: GUIDE.len() as u64,
                    digest: "sha256:bc553ffe57e544498b12a9865dbf3abc2004c474e349c52c378eaa402287424b",
                },
            ],
        }],
        // Guards that would cut and strip the file, were it guarded.
        guards: GuardSpec {
            max_bytes: 16,
            ..GUARDS
        },
        ..CatalogSpec::EMPTY
    },
    ..SERVER
};

static TOOLS: [ToolSpec; 0] = [];

#[test]
fn the_server_declares_the_extension_with_directory_reads_and_resources() {
    let info = serde_json::to_value(SKILLS_SERVER.server_info()).unwrap();
    assert_eq!(
        info["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(info["capabilities"]["resources"].is_object(), "{info}");
}

#[test]
fn skills_are_listed_and_got_with_their_frontmatter_and_digests() {
    let pipeline = Pipeline::new(&SKILLS_SERVER, &TOOLS);
    let listed = serde_json::to_value(pipeline.catalog().list_skills()).unwrap();
    let entry = &listed["skills"][0];
    assert_eq!(entry["uri"], "skill://triage/SKILL.md");
    assert_eq!(
        entry["frontmatter"],
        json!({"name": "triage", "description": "Triage an incident.", "license": "MIT"}),
        "every field of the frontmatter"
    );
    assert_eq!(entry["resources"][0]["digest"], SKILL_MD_DIGEST);
    assert_eq!(entry["resources"][0]["size"], SKILL_MD.len());
    assert_eq!(
        entry["resources"][1]["uri"],
        "skill://triage/references/deep/GUIDE.md"
    );
    assert!(
        listed["ttlMs"].is_u64() && listed["cacheScope"].is_string(),
        "{listed}"
    );

    let got = pipeline
        .catalog()
        .get_skill("skill://triage/SKILL.md")
        .expect("the skill");
    let SkillResources::Files(files) = &got.skill.resources else {
        panic!("files");
    };
    assert_eq!(files.len(), 2);
    let unknown = pipeline
        .catalog()
        .get_skill("skill://other/SKILL.md")
        .expect_err("no such skill");
    assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);
}

#[test]
fn directories_list_their_direct_children_and_anything_else_is_refused() {
    let pipeline = Pipeline::new(&SKILLS_SERVER, &TOOLS);
    let children = |uri: &str| -> Vec<(String, Option<String>)> {
        let listed = pipeline.catalog().read_skill_directory(uri).expect(uri);
        listed
            .resources
            .into_iter()
            .map(|resource| (resource.uri.clone(), resource.mime_type.clone()))
            .collect()
    };
    assert_eq!(
        children("skill://triage"),
        [
            (
                "skill://triage/SKILL.md".to_owned(),
                Some("text/markdown".to_owned())
            ),
            (
                "skill://triage/references".to_owned(),
                Some("inode/directory".to_owned())
            ),
        ]
    );
    assert_eq!(
        children("skill://triage/references"),
        [(
            "skill://triage/references/deep".to_owned(),
            Some("inode/directory".to_owned())
        )]
    );
    assert_eq!(
        children("skill://triage/references/deep"),
        [(
            "skill://triage/references/deep/GUIDE.md".to_owned(),
            Some("text/markdown".to_owned())
        )]
    );
    for not_a_directory in [
        "skill://triage/SKILL.md",
        "skill://triage/nothing",
        "skill://other",
        "skill://tri",
    ] {
        let refused = pipeline
            .catalog()
            .read_skill_directory(not_a_directory)
            .expect_err(not_a_directory);
        assert_eq!(refused.code, ErrorCode::INVALID_PARAMS, "{not_a_directory}");
    }
}

#[tokio::test]
async fn a_skill_file_is_read_byte_for_byte_and_audited() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = Pipeline::new(&SKILLS_SERVER, &TOOLS);
    pipeline
        .install_audit(AuditLog::open(&dir.path().join("audit.jsonl"), AUDIT).unwrap())
        .unwrap();
    let context = Session::new(json!({}), Value::Null).context();
    let request = ReadResourceRequestParams::new("skill://triage/SKILL.md");
    let harness_runtime::catalog::Resolved::Done(read) =
        pipeline.catalog().resolve_resource(&request, &context)
    else {
        panic!("a skill file is static");
    };
    let read = read.expect("served");
    let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &read.contents[0]
    else {
        panic!("text");
    };
    assert_eq!(text, SKILL_MD, "neither cut to 16 bytes nor stripped");
    assert_eq!(mime_type.as_deref(), Some("text/markdown"));
    let listed = pipeline.catalog().list_resources();
    assert_eq!(listed.resources.len(), 1, "the SKILL.md of each skill");
    assert_eq!(listed.resources[0].name, "triage");
    assert_eq!(
        listed.resources[0].description.as_deref(),
        Some("Triage an incident.")
    );
    let audit = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    let record: Value = serde_json::from_str(audit.lines().next().expect("a record")).unwrap();
    assert_eq!(record["outcome"], "ok", "{record}");
}
