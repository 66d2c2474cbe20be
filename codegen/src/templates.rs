//! The templates of the bundle's prose-like files (Dockerfiles, shell scripts, SKILL.md), in
//! `codegen/templates/` so the published crate carries them; this is the one place that
//! reaches them, compiled into the generator.

/// `(name, source)` of `templates/<name>`.
macro_rules! template {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/templates/", $name)),
        )
    };
}

/// Every template, by file name.
pub(crate) const TEMPLATES: &[(&str, &str)] = &[
    template!("main.Dockerfile.j2"),
    template!("main-start.sh.j2"),
    template!("sidecar.Dockerfile.j2"),
    template!("tests.Dockerfile.j2"),
    template!("test.sh.j2"),
    template!("solve.sh.j2"),
];
