//! The package's `Cargo.toml` beside the manifest gets the harness-runtime features the
//! manifest needs (`gateway` once it has `[[upstreams]]`), edited with `toml_edit` so that
//! comments, layout and every other key stay as the user wrote them. Features are only ever
//! added: one the user turned on is never taken away.
//!
//! The dependency may be written `harness-runtime = "0.1"`, as an inline table, as
//! `[dependencies.harness-runtime]`, with dotted keys (`harness-runtime.workspace = true`),
//! or renamed (`runtime = { package = "harness-runtime", ... }`).

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, InlineTable, Item, Value};

/// What import did (or, with `--dry-run`, would do) to the package's Cargo.toml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CargoFeatures {
    /// Every feature the manifest needs is on already.
    Present {
        /// The Cargo.toml read.
        file: PathBuf,
    },
    /// Features added to the harness-runtime dependency.
    Added {
        /// The Cargo.toml edited.
        file: PathBuf,
        /// The features added, in the runtime's order.
        features: Vec<String>,
        /// A unified diff of the file before and after.
        diff: String,
        /// Whether it was written (never with `--dry-run`).
        written: bool,
    },
    /// The file could not be edited: the user turns the features on by hand (the build
    /// stops naming each one until then).
    ByHand {
        /// The features the manifest needs.
        features: Vec<String>,
        /// Why: no Cargo.toml beside the manifest, one that does not parse (with where), or
        /// no harness-runtime among its `[dependencies]`.
        reason: String,
    },
}

impl CargoFeatures {
    /// Whether the user must act before the package builds.
    pub fn by_hand(&self) -> bool {
        matches!(self, CargoFeatures::ByHand { .. })
    }
}

/// Plans the edit of `dir/Cargo.toml` so that harness-runtime has `needed`; writes it unless
/// `dry_run`. `None` when the manifest needs no feature.
pub(crate) fn ensure(
    dir: &Path,
    needed: &[&str],
    dry_run: bool,
) -> Result<Option<CargoFeatures>, std::io::Error> {
    if needed.is_empty() {
        return Ok(None);
    }
    let file = dir.join("Cargo.toml");
    let by_hand = |reason: String| {
        Ok(Some(CargoFeatures::ByHand {
            features: needed.iter().map(|&feature| feature.to_owned()).collect(),
            reason,
        }))
    };
    let before = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return by_hand(format!(
                "there is no {} beside the manifest",
                file.display()
            ));
        }
        Err(error) => return Err(error),
    };
    let mut doc: DocumentMut = match before.parse() {
        Ok(doc) => doc,
        Err(error) => return by_hand(format!("{} does not parse: {error}", file.display())),
    };
    let added = match add_features(&mut doc, needed) {
        Ok(added) => added,
        Err(reason) => return by_hand(format!("{}: {reason}", file.display())),
    };
    if added.is_empty() {
        return Ok(Some(CargoFeatures::Present { file }));
    }
    let after = doc.to_string();
    if !dry_run {
        std::fs::write(&file, &after)?;
    }
    let name = file.display().to_string();
    Ok(Some(CargoFeatures::Added {
        diff: crate::import::diff::unified(
            &before,
            &after,
            &format!("{name} (now)"),
            &format!("{name} (after import)"),
        ),
        file,
        features: added,
        written: !dry_run,
    }))
}

/// Adds to harness-runtime's `features` those of `needed` it lacks, and returns them; or
/// says why the dependency cannot be found or edited.
fn add_features(doc: &mut DocumentMut, needed: &[&str]) -> Result<Vec<String>, String> {
    let dependencies = doc
        .get_mut("dependencies")
        .and_then(Item::as_table_like_mut)
        .ok_or("it has no [dependencies] table")?;
    let key = dependencies
        .iter()
        .find(|(key, item)| {
            let renamed = item
                .as_table_like()
                .and_then(|table| table.get("package"))
                .and_then(Item::as_str);
            renamed.unwrap_or(key) == "harness-runtime"
        })
        .map(|(key, _)| key.to_owned())
        .ok_or("harness-runtime is not among its [dependencies]")?;
    let dependency = dependencies.get_mut(&key).expect("the key just found");
    // `harness-runtime = "0.1"` becomes an inline table that keeps the version.
    // Its comment stays where it was.
    if let Some(Value::String(version)) = dependency.as_value() {
        let decor = version.decor().clone();
        let mut table = InlineTable::new();
        table.insert("version", Value::from(version.value().as_str()));
        *table.decor_mut() = decor;
        *dependency = Item::Value(Value::InlineTable(table));
    }
    let table = dependency
        .as_table_like_mut()
        .ok_or("its harness-runtime entry is neither a version string nor a table")?;
    if table.get("features").is_none() {
        table.insert("features", Item::Value(Value::Array(Array::new())));
        // The key joins an inline table after the space that closed it: spacing is
        // normalised on that one line (an inline table holds no comments to lose).
        if let Some(inline) = dependency.as_inline_table_mut() {
            inline.fmt();
        }
    }
    let features = dependency
        .as_table_like_mut()
        .expect("a table, as just seen")
        .get_mut("features")
        .and_then(Item::as_array_mut)
        .ok_or("its harness-runtime `features` is not an array")?;
    let mut added = Vec::new();
    for &feature in needed {
        if !features.iter().any(|value| value.as_str() == Some(feature)) {
            features.push(feature);
            added.push(feature.to_owned());
        }
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(cargo_toml: &str, needed: &[&str]) -> (String, Vec<String>) {
        let mut doc: DocumentMut = cargo_toml.parse().unwrap();
        let added = add_features(&mut doc, needed).unwrap();
        (doc.to_string(), added)
    }

    #[test]
    fn every_spelling_of_the_dependency_gets_the_features() {
        let cases = [
            (
                "[dependencies]\nharness-runtime = \"0.1\" # pinned\n",
                "[dependencies]\nharness-runtime = { version = \"0.1\", features = [\"gateway\"] } # pinned\n",
            ),
            (
                "[dependencies]\nharness-runtime = { path = \"../runtime\", features = [\"otel\"] }\n",
                "[dependencies]\nharness-runtime = { path = \"../runtime\", features = [\"otel\", \"gateway\"] }\n",
            ),
            (
                "[dependencies]\nharness-runtime.workspace = true\n",
                "[dependencies]\nharness-runtime.workspace = true\nharness-runtime.features = [\"gateway\"]\n",
            ),
            (
                "[dependencies.harness-runtime]\n# ours\nversion = \"0.1\"\n",
                "[dependencies.harness-runtime]\n# ours\nversion = \"0.1\"\nfeatures = [\"gateway\"]\n",
            ),
            (
                "[dependencies]\nrt = { package = \"harness-runtime\", version = \"0.1\" }\n",
                "[dependencies]\nrt = { package = \"harness-runtime\", version = \"0.1\", features = [\"gateway\"] }\n",
            ),
        ];
        for (before, after) in cases {
            assert_eq!(
                edited(before, &["gateway"]),
                (after.to_owned(), vec!["gateway".to_owned()]),
                "{before}"
            );
        }
    }

    #[test]
    fn a_feature_already_on_is_kept_and_nothing_is_added_twice() {
        let before = "[dependencies]\nharness-runtime = { version = \"0.1\", features = [\"gateway\", \"redis\"] }\n";
        assert_eq!(
            edited(before, &["gateway", "oauth"]),
            (
                before.replace("\"redis\"]", "\"redis\", \"oauth\"]"),
                vec!["oauth".to_owned()]
            )
        );
        assert_eq!(edited(before, &["gateway"]), (before.to_owned(), vec![]));
    }

    #[test]
    fn what_cannot_be_edited_says_why() {
        let refused = |text: &str| {
            let mut doc: DocumentMut = text.parse().unwrap();
            add_features(&mut doc, &["gateway"]).unwrap_err()
        };
        assert_eq!(
            refused("[package]\nname = \"x\"\n"),
            "it has no [dependencies] table"
        );
        assert_eq!(
            refused("[dependencies]\nserde = \"1\"\n"),
            "harness-runtime is not among its [dependencies]"
        );
        assert_eq!(
            refused(
                "[dependencies]\nharness-runtime = { version = \"0.1\", features = \"gateway\" }\n"
            ),
            "its harness-runtime `features` is not an array"
        );
    }

    #[test]
    fn a_package_without_cargo_toml_or_one_that_does_not_parse_is_left_to_the_user() {
        let dir = tempfile::tempdir().unwrap();
        let missing = ensure(dir.path(), &["gateway"], false).unwrap().unwrap();
        assert!(missing.by_hand(), "{missing:?}");
        std::fs::write(dir.path().join("Cargo.toml"), "[dependencies\n").unwrap();
        let CargoFeatures::ByHand { reason, features } =
            ensure(dir.path(), &["gateway"], false).unwrap().unwrap()
        else {
            panic!("a broken Cargo.toml is left alone");
        };
        assert!(
            reason.contains("does not parse") && reason.contains("line 1"),
            "{reason}"
        );
        assert_eq!(features, ["gateway"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(),
            "[dependencies\n",
            "nothing is lost"
        );
        assert_eq!(ensure(dir.path(), &[], false).unwrap(), None);
    }

    #[test]
    fn a_dry_run_writes_nothing_and_shows_the_diff() {
        let dir = tempfile::tempdir().unwrap();
        let before = "[dependencies]\nharness-runtime = \"0.1\"\n";
        std::fs::write(dir.path().join("Cargo.toml"), before).unwrap();
        let Some(CargoFeatures::Added { diff, written, .. }) =
            ensure(dir.path(), &["gateway"], true).unwrap()
        else {
            panic!("the feature is missing");
        };
        assert!(!written);
        assert!(
            diff.contains("+harness-runtime = { version = \"0.1\", features = [\"gateway\"] }"),
            "{diff}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(),
            before
        );
        ensure(dir.path(), &["gateway"], false).unwrap();
        assert_eq!(
            ensure(dir.path(), &["gateway"], false).unwrap(),
            Some(CargoFeatures::Present {
                file: dir.path().join("Cargo.toml")
            })
        );
    }
}
