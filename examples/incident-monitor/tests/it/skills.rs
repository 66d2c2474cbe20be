//! One digest everywhere: the skill the monitor publishes is listed by the running server with
//! the digest of the very bytes the bundle ships, the bundle's ledger records the same, and a
//! read of the file gives back those bytes. The digest is computed here, from the bundle's
//! file, with an implementation of SHA-256 of its own.

use std::path::Path;

use harness_codegen::{EmitOptions, generate};
use harness_test_support::{scratch_file, stdio_client};
use rmcp::model::{ReadResourceRequestParams, ResourceContents, SkillResources};
use serde_json::Value;
use sha2::{Digest, Sha256};

const SERVER: &str = env!("CARGO_BIN_EXE_incident-monitor");

const SKILL_MD: &str = "bundle/environment/skills/incident-triage/SKILL.md";

#[tokio::test]
async fn the_served_the_shipped_and_the_ledgered_digests_are_one() {
    let source = std::fs::read_to_string("harness.toml").unwrap();
    let artifacts =
        generate(&source, Path::new("."), &EmitOptions::default()).expect("harness.toml is valid");
    let shipped = &artifacts[SKILL_MD];
    let hex: String = Sha256::digest(shipped.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let digest = format!("sha256:{hex}");

    let ledger: Value = serde_json::from_str(&artifacts["bundle/ledger.json"]).unwrap();
    let ledgered = &ledger["skills"][0];
    assert_eq!(ledgered["name"], "incident-triage");
    assert_eq!(
        ledgered["sha256"],
        hex.as_str(),
        "the SKILL.md digest every run row copies"
    );
    assert_eq!(
        ledgered["files"][0]["uri"],
        "skill://incident-triage/SKILL.md"
    );
    assert_eq!(ledgered["files"][0]["digest"], digest.as_str());
    assert_eq!(ledgered["files"][0]["size"], shipped.len());

    let audit = scratch_file("skills-digest", "audit.jsonl");
    let client = stdio_client(SERVER, &audit).await;
    let listed = client.list_skills(None).await.expect("skills/list");
    assert_eq!(listed.skills.len(), 1);
    let skill = &listed.skills[0];
    assert_eq!(skill.uri, "skill://incident-triage/SKILL.md");
    let SkillResources::Files(files) = &skill.resources else {
        panic!("files with digests, not dynamic: {skill:?}");
    };
    assert_eq!(files.len(), 1);
    assert_eq!(
        files[0].digest, digest,
        "the server lists the shipped bytes' digest"
    );
    assert_eq!(files[0].size, shipped.len() as u64);
    let read = client
        .read_resource(ReadResourceRequestParams::new(skill.uri.clone()))
        .await
        .expect("resources/read of the SKILL.md");
    let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &read.contents[0]
    else {
        panic!("text: {read:?}");
    };
    assert_eq!(text, shipped, "served byte for byte");
    assert_eq!(mime_type.as_deref(), Some("text/markdown"));
    client.cancel().await.unwrap();
}
