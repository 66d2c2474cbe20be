//! The prose-like files, rendered from templates/: the Dockerfiles, tests/test.sh and each
//! skill's SKILL.md.

use minijinja::{Environment, context};

use crate::emit::EmitOptions;
use crate::model::Model;
use crate::model::bundle::BundleModel;

const TEMPLATES: &[(&str, &str)] = &[
    (
        "main.Dockerfile",
        include_str!("../../../../templates/main.Dockerfile.j2"),
    ),
    (
        "sidecar.Dockerfile",
        include_str!("../../../../templates/sidecar.Dockerfile.j2"),
    ),
    (
        "tests.Dockerfile",
        include_str!("../../../../templates/tests.Dockerfile.j2"),
    ),
    ("test.sh", include_str!("../../../../templates/test.sh.j2")),
    (
        "SKILL.md",
        include_str!("../../../../templates/SKILL.md.j2"),
    ),
];

/// The image the separate verifier builds from when the manifest names none: seed 004's
/// pinned base (it has /bin/sh, which test.sh needs).
pub const DEFAULT_VERIFIER_IMAGE: &str =
    "python:3.12-slim@sha256:c3d81d25b3154142b0b42eb1e61300024426268edeb5b5a26dd7ddf64d9daf28";

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .trim_blocks(true)
            .build()
            .expect("a valid syntax config"),
    );
    for (name, source) in TEMPLATES {
        env.add_template(name, source).expect("templates parse");
    }
    env
}

/// Every templated file of the bundle: (path inside the bundle, text).
pub fn files(_model: &Model, bundle: &BundleModel, options: &EmitOptions) -> Vec<(String, String)> {
    let env = environment();
    let render = |name: &str, ctx: minijinja::Value| {
        env.get_template(name)
            .and_then(|template| template.render(ctx))
            .expect("templates render")
    };
    let manifest = &options.manifest_name;
    let binary = &super::binary_name(bundle);
    let sidecar = &bundle.compose.sidecar;
    let mut files = Vec::new();
    let skill_names: Vec<String> = bundle
        .skills
        .iter()
        .map(|skill| skill.name.clone())
        .collect();
    files.push((
        "environment/Dockerfile".to_owned(),
        render(
            "main.Dockerfile",
            context! {
                manifest,
                base_image => &bundle.compose.main.base_image,
                uid => bundle.compose.main.uid,
                workdir => &bundle.environment.workdir,
                skills_dir => &bundle.environment.skills_dir,
                skills => skill_names,
            },
        ),
    ));
    if sidecar.image.is_none() {
        files.push((
            format!("environment/{}/Dockerfile", sidecar.name),
            render(
                "sidecar.Dockerfile",
                context! {
                    manifest,
                    binary,
                    uid => sidecar.uid,
                    bind => bundle.sidecar_bind.to_string(),
                    transport => bundle.sidecar_transport,
                    audit_path => &bundle.audit_path,
                    log_dir => &bundle.log_dir,
                    health_url => format!("http://{}{}", bundle.sidecar_bind, bundle.health_path),
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
    let verifier_image = bundle
        .verifier
        .image
        .as_deref()
        .unwrap_or(DEFAULT_VERIFIER_IMAGE);
    files.push((
        "tests/Dockerfile".to_owned(),
        render(
            "tests.Dockerfile",
            context! { manifest, binary, base_image => verifier_image },
        ),
    ));
    // Harbor restores each artifact at its source path inside the separate verifier.
    files.push((
        "tests/test.sh".to_owned(),
        render(
            "test.sh",
            context! { manifest, binary, artifacts_dir => "/" },
        ),
    ));
    for skill in &bundle.skills {
        files.push((
            format!("environment/skills/{}/SKILL.md", skill.name),
            render(
                "SKILL.md",
                context! { manifest, name => &skill.name, description => &skill.description, body => skill.body.trim_end() },
            ),
        ));
    }
    files
}
