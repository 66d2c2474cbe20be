//! The manifest loader on any text: it never panics, and every error it reports has a
//! location (file:line:col) in the manifest.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|source: &str| {
    if let Err(errors) = harness_codegen::load(source, "harness.toml", std::path::Path::new(".")) {
        assert!(
            !errors.diagnostics().is_empty(),
            "an error without diagnostics"
        );
        for (diagnostic, location) in errors.diagnostics().iter().zip(errors.locations()) {
            assert!(
                location.is_some(),
                "no location for {diagnostic:?} in {source:?}"
            );
        }
        let rendered = errors.render_plain();
        assert!(rendered.contains("harness.toml:"), "{rendered}");
    }
});
