//! The prose-like files, rendered from templates/: the Dockerfiles, tests/test.sh and each
//! skill's SKILL.md.

use minijinja::{Environment, context};

use crate::emit::bundle::layout::{
    MAIN_BASE_IMAGE_ARG, MAIN_BASE_IMAGE_ENV, MAIN_START, MAIN_START_FILE, VERIFIER_BASE_IMAGE_ARG,
    binary_name, health_url, service_base_image_env, sidecar_files_dir,
};
use crate::emit::options::{EmitOptions, generated_notice};
use crate::model::Model;
use crate::model::bundle::{BundleModel, MAIN_FILES_DIR, binary_in_main};
use crate::model::verifier::CheckModel;

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .trim_blocks(true)
            .build()
            .expect("a valid syntax config"),
    );
    for (name, source) in crate::templates::TEMPLATES {
        env.add_template(name, source).expect("templates parse");
    }
    env
}

/// Every templated file of the bundle: (path inside the bundle, text).
pub(crate) fn files(
    model: &Model,
    bundle: &BundleModel,
    options: &EmitOptions,
) -> Vec<(String, String)> {
    let env = environment();
    let render = |name: &str, ctx: minijinja::Value| {
        env.get_template(name)
            .and_then(|template| template.render(ctx))
            .expect("templates render")
    };
    let generated = &generated_notice(&options.manifest_name);
    let binary = &binary_name(bundle);
    let sidecar = &bundle.sidecar;
    let programs = &bundle.main.programs;
    let mut files = Vec::new();
    let skill_names: Vec<String> = bundle
        .skills
        .iter()
        .map(|skill| skill.name.clone())
        .collect();
    files.push((
        "environment/Dockerfile".to_owned(),
        render(
            "main.Dockerfile.j2",
            context! { generated,
                base_image => &bundle.main.base_image,
                base_image_arg => MAIN_BASE_IMAGE_ARG,
                base_image_env => MAIN_BASE_IMAGE_ENV,
                uid => bundle.main.uid,
                workdir => &bundle.main.workdir,
                skills_dir => &bundle.main.skills_dir,
                skills => skill_names,
                main_files => (!programs.files.is_empty()).then_some(MAIN_FILES_DIR),
                setup => programs.setup.as_deref().map(json_string),
                start => (!programs.processes.is_empty()).then_some(MAIN_START),
                start_file => MAIN_START_FILE,
                server => sidecar.in_main.then(|| context! {
                    binary,
                    path => binary_in_main(binary),
                    launcher => harness_contract::transport::stdio_launcher(&binary_in_main(binary)),
                    log_dir => &sidecar.log_dir,
                }),
            },
        ),
    ));
    if !programs.processes.is_empty() {
        let processes: Vec<minijinja::Value> = programs
            .processes
            .iter()
            .map(|process| {
                context! {
                    name => &process.name,
                    user => &process.user,
                    command => shell_quoted(&process.command),
                }
            })
            .collect();
        files.push((
            format!("environment/{MAIN_START_FILE}"),
            render("main-start.sh.j2", context! { generated, processes }),
        ));
    }
    let sidecar_image = !sidecar.in_main && sidecar.image.is_none();
    if sidecar_image {
        files.push((
            format!("environment/{}/Dockerfile", sidecar.name),
            render(
                "sidecar.Dockerfile.j2",
                context! { generated,
                    binary,
                    uid => sidecar.uid,
                    bind => sidecar.listen.to_string(),
                    transport => sidecar.transport.as_str(),
                    audit_path => &sidecar.audit_path,
                    log_dir => &sidecar.log_dir,
                    base => sidecar.base.as_ref().map(|base| context! {
                        image => &base.image,
                        setup => base.setup.as_deref().map(json_string),
                        files => base.files.as_ref().map(|(dir, _)| dir),
                    }),
                    base_env => service_base_image_env(&sidecar.name),
                    files_dir => sidecar_files_dir(&sidecar.name),
                    health_url => health_url(bundle),
                    healthcheck => context! {
                        interval => &sidecar.healthcheck.interval,
                        timeout => &sidecar.healthcheck.timeout,
                        retries => sidecar.healthcheck.retries,
                        start_period => &sidecar.healthcheck.start_period,
                    },
                },
            ),
        ));
    }
    if sidecar_image {
        // Copied by the sidecar's Dockerfile to create its log directory, owned by its uid,
        // in an image that has no shell to `mkdir` it.
        files.push((
            format!("environment/{}/log/.keep", sidecar.name),
            format!(
                "# {generated}\n# The sidecar's log directory, {}\n",
                sidecar.log_dir
            ),
        ));
    }
    files.push((
        "tests/Dockerfile".to_owned(),
        render(
            "tests.Dockerfile.j2",
            context! { generated,
                binary,
                base_image => &bundle.verifier.image,
                base_image_arg => VERIFIER_BASE_IMAGE_ARG,
                workdir => &bundle.verifier.workdir,
            },
        ),
    ));
    if let Some(solution) = oracle(model, bundle) {
        files.push((
            "solution/solve.sh".to_owned(),
            render(
                "solve.sh.j2",
                context! { generated,
                    url => solution.url,
                    calls_json => serde_json::to_string(&solution.calls).expect("plain JSON"),
                    files => solution.files,
                },
            ),
        ));
    }
    // Harbor restores each artifact at its source path inside the separate verifier.
    files.push((
        "tests/test.sh".to_owned(),
        render(
            "test.sh.j2",
            context! { generated, binary, artifacts_dir => "/" },
        ),
    ));
    // The bytes the server serves and lists the digests of (crate::model::skills).
    for skill in &bundle.skills {
        for file in &skill.files {
            files.push((
                format!("environment/skills/{}/{}", skill.name, file.path),
                file.text.clone(),
            ));
        }
    }
    files
}

/// `text` as one word of a POSIX shell: single-quoted, each `'` closed, escaped and reopened.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` as a JSON string: the exec form of a Dockerfile instruction takes one per word, so a
/// command of several lines stays one instruction.
fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// What the generated oracle solution does.
struct Oracle {
    url: String,
    calls: Vec<serde_json::Value>,
    files: Vec<String>,
}

/// The oracle solution of the task: the calls of its `audit_call` checks and the files of its
/// `file_exists` checks, over its first MCP server when that speaks streamable HTTP (the
/// script's small client speaks only that).
fn oracle(model: &Model, bundle: &BundleModel) -> Option<Oracle> {
    let url = bundle.oracle_url.clone()?;
    let mut calls = Vec::new();
    let mut files = Vec::new();
    for check in &model.verifier.checks {
        match check {
            CheckModel::AuditCall {
                tool, arguments, ..
            } => calls.push(serde_json::json!({
                "name": tool,
                "arguments": serde_json::from_str::<serde_json::Value>(arguments).ok()?,
            })),
            CheckModel::FileExists { path } => files.push(path.clone()),
            _ => {}
        }
    }
    Some(Oracle { url, calls, files })
}
