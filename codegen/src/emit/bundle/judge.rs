//! `tests/<judge file>`: a Reward Kit judge TOML (`[judge]`, `[[judge.mcp_servers]]`,
//! `[[criterion]]`), serialized by the `toml` crate. The MCP server is the judge-side copy of
//! this server (the verifier image's binary over stdio, its own audit file), and its
//! `allowed_tools` are exactly the tools the server publishes.

use serde::Serialize;

use crate::emit::bundle::layout::binary_name;
use crate::emit::options::{EmitOptions, generated_notice};
use crate::model::Model;
use crate::model::bundle::{BundleModel, JudgeModel};

/// (path inside the bundle, text) of the judge TOML, when the manifest asks for a judge.
pub(crate) fn judge_file(
    model: &Model,
    bundle: &BundleModel,
    options: &EmitOptions,
) -> Option<(String, String)> {
    let judge = bundle.judge.as_ref()?;
    let document = JudgeToml::new(model, bundle, judge);
    let body = toml::to_string(&document).expect("the judge TOML is plain TOML");
    let text = format!("# {}\n{body}", generated_notice(&options.manifest_name));
    Some((format!("tests/{}", judge.file), text))
}

#[derive(Serialize)]
struct JudgeToml {
    judge: JudgeTable,
    criterion: Vec<Criterion>,
}

#[derive(Serialize)]
struct JudgeTable {
    judge: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    files: Vec<String>,
    mcp_servers: Vec<JudgeServer>,
}

#[derive(Serialize)]
struct JudgeServer {
    name: String,
    transport: &'static str,
    command: String,
    args: Vec<String>,
    allowed_tools: Vec<String>,
}

#[derive(Serialize)]
struct Criterion {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    description: String,
    #[serde(rename = "type")]
    kind: &'static str,
}

impl JudgeToml {
    fn new(model: &Model, bundle: &BundleModel, judge: &JudgeModel) -> Self {
        let server = JudgeServer {
            name: judge.server.clone(),
            transport: "stdio",
            // The verifier image holds the binary at /tests/<name> (tests/Dockerfile copies
            // tests/ there).
            command: format!("/tests/{}", binary_name(bundle)),
            args: [
                "serve",
                "--transport",
                "stdio",
                "--audit-path",
                &judge.audit_path,
            ]
            .map(str::to_owned)
            .to_vec(),
            allowed_tools: model.tools.iter().map(|tool| tool.name.clone()).collect(),
        };
        Self {
            judge: JudgeTable {
                judge: judge.judge.clone(),
                model: judge.model.clone(),
                files: judge.files.clone(),
                mcp_servers: vec![server],
            },
            criterion: judge
                .criteria
                .iter()
                .map(|(name, description)| Criterion {
                    name: name.clone(),
                    description: description.clone(),
                    kind: "binary",
                })
                .collect(),
        }
    }
}
