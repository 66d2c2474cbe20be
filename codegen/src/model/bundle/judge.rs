//! `[judge]`: a Reward Kit agent judge (the chapter's section 15.2.2). Its MCP server is a
//! judge-side copy of this server, the verifier's binary over stdio with an audit of its own,
//! so the judge's calls never mix with the candidate's evidence; `allowed_tools` is what
//! the server publishes, filled in by the emitter from the tool model.

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Manifest;
use crate::manifest::bundle::EnvironmentMode;
use crate::manifest_path::ManifestPath;

/// Reward Kit 0.2's agent judges that honour `allowed_tools` (its `fx` judge refuses them).
const AGENT_JUDGES: [&str; 2] = ["claude-code", "codex"];

/// The judge TOML as the model decides it.
#[derive(Debug, Clone)]
pub struct JudgeModel {
    /// Its file name under tests/.
    pub file: String,
    /// The judging agent.
    pub judge: String,
    /// The judge's model.
    pub model: Option<String>,
    /// Files the judge reads.
    pub files: Vec<String>,
    /// (name, description) of each binary criterion.
    pub criteria: Vec<(Option<String>, String)>,
    /// The name the judge's MCP server goes by: the agent's, so tool names match.
    pub server: String,
    /// The judge-side copy's audit file, apart from the candidate's.
    pub audit_path: String,
}

/// Where the judge-side copy writes its audit.
pub const JUDGE_AUDIT_PATH: &str = "/tmp/judge-mcp-audit.jsonl";

pub(crate) fn judge(manifest: &Manifest, errors: &ErrorSink<'_>) -> Option<JudgeModel> {
    let judge = manifest.judge.as_ref()?;
    let path = ManifestPath::root().key("judge");
    let mut ok = true;
    if !AGENT_JUDGES.contains(&judge.judge.as_str()) {
        ok = false;
        errors.report(
            Diagnostic::value(
                path.key("judge"),
                format!("`{}` is not an agent judge", judge.judge),
            )
            .label("allowed_tools applies only to an agent judge")
            .help("set judge = \"claude-code\" or \"codex\""),
        );
    }
    if judge.criteria.is_empty() {
        ok = false;
        errors.report(
            Diagnostic::key(path.clone(), "a judge needs at least one criterion")
                .label("no [[judge.criteria]]")
                .help("add [[judge.criteria]] with a description (Reward Kit refuses a judge without one)"),
        );
    }
    let file = judge
        .file
        .clone()
        .unwrap_or_else(|| "judge.toml".to_owned());
    let plain = !file.contains('/') && file.ends_with(".toml") && file != ".toml";
    if !plain {
        ok = false;
        errors.report(
            Diagnostic::value(
                path.key("file"),
                "the judge file must be a plain .toml name",
            )
            .label("Reward Kit reads *.toml directly under tests/")
            .help("use a name such as \"judge.toml\""),
        );
    }
    let separate = manifest
        .verifier
        .as_ref()
        .is_some_and(|verifier| verifier.environment_mode == Some(EnvironmentMode::Separate));
    if !separate {
        ok = false;
        errors.report(
            Diagnostic::key(path.clone(), "a judge needs a separate verifier")
                .label("its copy of the server is the verifier image's binary")
                .help("set environment_mode = \"separate\" in [verifier]"),
        );
    }
    let server = manifest
        .environment
        .as_ref()
        .and_then(|environment| environment.mcp_servers.first())
        .map(|server| server.name.clone());
    if server.is_none() {
        ok = false;
        errors.report(
            Diagnostic::key(path, "a judge needs the agent's MCP server")
                .label("its copy takes the agent's server name, so tool names match")
                .help("add [[environment.mcp_servers]]"),
        );
    }
    ok.then(|| JudgeModel {
        file,
        judge: judge.judge.clone(),
        model: judge.model.clone(),
        files: judge.files.clone(),
        criteria: judge
            .criteria
            .iter()
            .map(|criterion| (criterion.name.clone(), criterion.description.clone()))
            .collect(),
        server: server.unwrap_or_default(),
        audit_path: JUDGE_AUDIT_PATH.to_owned(),
    })
}
