//! What an import did, tool by tool, as data (for tests and callers) and as the text the
//! command prints.

use std::fmt;

use crate::import::cargo_features::CargoFeatures;
use crate::import::poisoning::DescriptionAudit;

/// The outcome of one `harness-codegen import`.
#[derive(Debug, Clone)]
pub struct ImportReport {
    /// The upstream's name.
    pub upstream: String,
    /// The manifest's display name.
    pub manifest: String,
    /// How many tools the upstream offered.
    pub offered: usize,
    /// One entry per tool considered, in the upstream's order, then pins it no longer offers.
    pub tools: Vec<ToolReport>,
    /// How many prompts, resources, resource templates and skills the upstream offered.
    pub offered_catalog: usize,
    /// One entry per prompt, resource, template and skill considered (named `prompt NAME`,
    /// `resource URI`, `resource template TEMPLATE`, `skill URI`), then pins it no longer
    /// offers.
    pub catalog: Vec<ToolReport>,
    /// A unified diff of the manifest before and after (empty when nothing changed).
    pub manifest_diff: String,
    /// Whether the manifest file was rewritten (never with `--dry-run`).
    pub written: bool,
    /// The schema files beside the manifest that import wrote (or, with `--dry-run`, would
    /// write).
    pub schema_files: Vec<SchemaFileChange>,
    /// The harness-runtime features added to the package's Cargo.toml (or, with `--dry-run`,
    /// that would be), when the manifest needs any.
    pub cargo_features: Option<CargoFeatures>,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// Whether the tools were chosen with `--tools` (then a tool left out needs attention).
    pub asked_for_tools: bool,
}

/// A schema file import writes beside the manifest (`schemas/<tool>.json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFileChange {
    /// The path, as the manifest's `input_schema` names it (relative to its directory).
    pub file: String,
    /// A unified diff of the file before and after (from nothing for a new file).
    pub diff: String,
    /// Whether it was written (never with `--dry-run`).
    pub written: bool,
}

/// What happened to one tool.
#[derive(Debug, Clone)]
pub struct ToolReport {
    /// The upstream's name for the tool.
    pub name: String,
    /// What import did with it.
    pub outcome: Outcome,
    /// Descriptions the poisoning audit changed or warns about, by place (`description`,
    /// `arguments.path.description`...).
    pub audits: Vec<(String, DescriptionAudit)>,
    /// Where the manifest admits less than the upstream (a null it refuses...).
    pub notes: Vec<String>,
}

/// What import did with one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Added as a new `[[tools]]` entry pinned to `pin_sha256`.
    Added {
        /// The pin written.
        pin_sha256: String,
    },
    /// Added as a new `[[tools]]` entry pinned to `pin_sha256`, its inputSchema (which the
    /// grammar cannot say) kept whole in `file` and named by `input_schema`.
    AddedWithSchemaFile {
        /// The pin written.
        pin_sha256: String,
        /// The schema file, relative to the manifest's directory (`schemas/<tool>.json`).
        file: String,
        /// Why: each construct the grammar cannot say, with its place.
        constructs: Vec<String>,
        /// Draft-07 spellings written as their 2020-12 equivalents, each with its place.
        rewritten: Vec<String>,
        /// Whether the file was already there with exactly the content import makes (then
        /// it is used as it is).
        existing: bool,
    },
    /// Already in the manifest, and its pin matches the live definition (and its schema
    /// file, if it has one, is the one the live inputSchema makes).
    Unchanged,
    /// Already in the manifest, and the live definition hashes to another digest.
    Drifted {
        /// The manifest's pin.
        pinned: String,
        /// The live digest.
        live: String,
        /// The manifest entry against the entry the live definition makes (or the live
        /// definition itself when the grammar cannot say it), then the schema file against
        /// the one the live inputSchema makes.
        diff: String,
        /// Whether the pin (and the schema file) was replaced (`--update-pins`).
        updated: bool,
        /// The entry's schema file (`input_schema`), when it keeps its inputSchema whole:
        /// `--update-pins` rewrites it with the pin. `pinned` and `live` are equal when only
        /// the file differs from what the live inputSchema makes.
        file: Option<String>,
    },
    /// Not imported: its input schema uses constructs the grammar cannot say, and cannot be
    /// kept whole in a schema file either.
    Unsupported {
        /// Each construct the grammar cannot say, with its place in the schema.
        constructs: Vec<String>,
        /// Why the schema cannot be kept whole as it is: each problem with its place.
        refused: Vec<String>,
    },
    /// Not imported: a file the manifest does not name is already where its schema would be
    /// kept, with other content; import never overwrites it.
    SchemaFileTaken {
        /// The path, relative to the manifest's directory.
        file: String,
    },
    /// Not imported: a manifest tool of another origin already has its name.
    Collision,
    /// Not imported: the entry it makes does not validate (the model's errors, rendered).
    Invalid {
        /// Why.
        errors: String,
    },
    /// Pinned in the manifest, but the upstream no longer offers it.
    Missing,
    /// Asked for with `--tools`, but the upstream does not offer it.
    NotOffered,
    /// Not imported by least privilege: the upstream does not annotate it read-only.
    LeftOut {
        /// Why: a write tool, a destructive hint, no annotation.
        why: String,
    },
    /// Not imported: a skill whose files could not be read, or whose bytes are not those its
    /// `skills/list` entry lists (the gateway would withhold it).
    Unread {
        /// Why.
        why: String,
    },
    /// Not imported: the gateway does not carry what it is.
    NotCarried {
        /// What it is, and what the gateway does instead.
        why: &'static str,
    },
}

impl ImportReport {
    /// The features the user must turn on by hand, and why import could not.
    fn write_cargo_features_by_hand(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(CargoFeatures::ByHand { features, reason }) = &self.cargo_features {
            writeln!(
                f,
                "note: the manifest needs harness-runtime feature {} ({reason}): add `features = [{}]` to harness-runtime in your Cargo.toml",
                quoted(features),
                features
                    .iter()
                    .map(|feature| format!("{feature:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
        Ok(())
    }

    /// Whether the user must act: a drift not accepted, a pinned tool gone, a schema file
    /// import will not overwrite, or a tool asked for with `--tools` that was not imported. The command then exits with failure.
    pub fn needs_attention(&self) -> bool {
        self.tools
            .iter()
            .chain(&self.catalog)
            .any(|tool| match tool.outcome {
                Outcome::Drifted { updated, .. } => !updated,
                Outcome::Missing | Outcome::NotOffered | Outcome::SchemaFileTaken { .. } => true,
                Outcome::Unsupported { .. }
                | Outcome::Collision
                | Outcome::Invalid { .. }
                | Outcome::Unread { .. } => self.asked_for_tools,
                Outcome::Added { .. }
                | Outcome::AddedWithSchemaFile { .. }
                | Outcome::Unchanged
                | Outcome::LeftOut { .. }
                | Outcome::NotCarried { .. } => false,
            })
    }

    /// The tools, prompts, resources and templates with this outcome kind, by name (for tests
    /// and summaries).
    pub fn names(&self, matches: impl Fn(&Outcome) -> bool) -> Vec<&str> {
        self.tools
            .iter()
            .chain(&self.catalog)
            .filter(|tool| matches(&tool.outcome))
            .map(|tool| tool.name.as_str())
            .collect()
    }
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|line| format!("{by}{line}\n")).collect()
}

fn list(f: &mut fmt::Formatter<'_>, items: &[String]) -> fmt::Result {
    items
        .iter()
        .try_for_each(|item| writeln!(f, "    - {item}"))
}

fn drifted(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    pinned: &str,
    live: &str,
    diff: &str,
    updated: bool,
    file: Option<&str>,
) -> fmt::Result {
    let accepted = match file {
        Some(file) => format!("pin updated and {file} rewritten (--update-pins)"),
        None => "pin updated (--update-pins)".to_owned(),
    };
    let action = if updated {
        format!("{accepted}; review the entry's description and arguments against the diff")
    } else {
        "pin kept; review, then run again with --update-pins to accept it".to_owned()
    };
    if pinned == live {
        let file = file.unwrap_or("its schema file");
        writeln!(
            f,
            "~ {name}: DRIFTED: {file} is not what the upstream's inputSchema makes, though the pin matches (was it edited?)"
        )?;
    } else {
        writeln!(
            f,
            "~ {name}: DRIFTED: the upstream's definition changed since it was pinned (the digest cannot say what it was before)"
        )?;
    }
    writeln!(f, "    pinned {pinned}\n    live   {live}\n    {action}")?;
    match file {
        Some(file) => writeln!(
            f,
            "    the manifest's entry and {file} against those the live definition makes:"
        )?,
        None => writeln!(
            f,
            "    the manifest's entry against the entry the live definition makes:"
        )?,
    }
    f.write_str(&indent(diff, "    "))
}

impl fmt::Display for ToolReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.outcome {
            Outcome::Added { pin_sha256 } => writeln!(f, "+ {name}: added, pinned {pin_sha256}")?,
            Outcome::AddedWithSchemaFile {
                pin_sha256,
                file,
                constructs,
                rewritten,
                existing,
            } => {
                writeln!(
                    f,
                    "+ {name}: added, pinned {pin_sha256}; its inputSchema falls back to {file} (kept whole, enforced as JSON Schema 2020-12), as the manifest grammar cannot say:"
                )?;
                list(f, constructs)?;
                if !rewritten.is_empty() {
                    writeln!(
                        f,
                        "    draft-07 spellings the build refuses, written as their 2020-12 equivalents:"
                    )?;
                    list(f, rewritten)?;
                }
                if *existing {
                    writeln!(
                        f,
                        "    {file} was already there with exactly this content: used as it is"
                    )?;
                }
            }
            Outcome::Unchanged => writeln!(f, "= {name}: unchanged (the pin matches)")?,
            Outcome::Drifted {
                pinned,
                live,
                diff,
                updated,
                file,
            } => drifted(f, name, pinned, live, diff, *updated, file.as_deref())?,
            Outcome::Unsupported {
                constructs,
                refused,
            } => {
                writeln!(
                    f,
                    "! {name}: skipped: its inputSchema uses JSON Schema the manifest grammar cannot say:"
                )?;
                list(f, constructs)?;
                writeln!(
                    f,
                    "    and it cannot fall back to schemas/{name}.json as it is:"
                )?;
                list(f, refused)?;
                writeln!(
                    f,
                    "    (to serve it, write that file in 2020-12 form and an entry with input_schema = \"schemas/{name}.json\" by hand)"
                )?;
            }
            Outcome::SchemaFileTaken { file } => writeln!(
                f,
                "! {name}: skipped: its inputSchema falls back to {file}, which is already there with other content, and import does not overwrite a file the manifest does not name; move it away (or name it in an entry of your own) and run again"
            )?,
            Outcome::Collision => writeln!(
                f,
                "! {name}: skipped: the manifest already has a tool of that name that `{name}` of this upstream is not; rename one of them (upstream_tool = \"{name}\" binds a renamed entry)"
            )?,
            Outcome::Invalid { errors } => {
                writeln!(
                    f,
                    "! {name}: skipped: the entry it makes does not validate:"
                )?;
                f.write_str(&indent(errors, "    "))?;
            }
            Outcome::Missing => writeln!(
                f,
                "! {name}: pinned in the manifest, but the upstream no longer offers it"
            )?,
            Outcome::NotOffered => writeln!(
                f,
                "! {name}: asked for with --tools, but the upstream does not offer it"
            )?,
            Outcome::LeftOut { why } => writeln!(
                f,
                "- {name}: left out: {why}; name it with --tools (or pass --all) to pin it"
            )?,
            Outcome::Unread { why } => writeln!(
                f,
                "! {name}: skipped: its files could not be read and checked against its skills/list entry ({why}); the gateway would withhold it"
            )?,
            Outcome::NotCarried { why } => writeln!(f, "- {name}: not imported: {why}")?,
        }
        for (place, audit) in &self.audits {
            let changes = audit.changes();
            if !changes.is_empty() {
                writeln!(f, "    {name}: {place}: {changes}")?;
            }
            if !audit.kept_instructions.is_empty() {
                let phrases: Vec<String> = audit
                    .kept_instructions
                    .iter()
                    .map(|p| format!("{p:?}"))
                    .collect();
                writeln!(
                    f,
                    "    warning: {name}: {place}: instruction-like text kept: {}: review it before you serve this tool",
                    phrases.join(", ")
                )?;
            }
        }
        for note in &self.notes {
            writeln!(f, "    note: {note}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.offered == 1 { "" } else { "s" };
        writeln!(
            f,
            "import {}: {} tool{plural} offered, into {}",
            self.upstream, self.offered, self.manifest
        )?;
        for tool in &self.tools {
            write!(f, "{tool}")?;
        }
        if self.offered_catalog > 0 || !self.catalog.is_empty() {
            writeln!(
                f,
                "and {} prompts, resources, resource templates and skills offered:",
                self.offered_catalog
            )?;
            for entry in &self.catalog {
                write!(f, "{entry}")?;
            }
        }
        if self.dry_run {
            if self.manifest_diff.is_empty() {
                writeln!(f, "dry run: the manifest would not change")?;
            } else {
                writeln!(
                    f,
                    "dry run: the manifest would change as follows (nothing written):"
                )?;
                f.write_str(&self.manifest_diff)?;
            }
            for change in &self.schema_files {
                writeln!(
                    f,
                    "dry run: {} would be written as follows (nothing written):",
                    change.file
                )?;
                f.write_str(&change.diff)?;
            }
            if let Some(CargoFeatures::Added { file, diff, .. }) = &self.cargo_features {
                writeln!(
                    f,
                    "dry run: {} would change as follows (nothing written):",
                    file.display()
                )?;
                f.write_str(diff)?;
            }
            return self.write_cargo_features_by_hand(f);
        }
        for change in self.schema_files.iter().filter(|change| change.written) {
            writeln!(f, "wrote {}", change.file)?;
        }
        if self.written {
            writeln!(f, "wrote {} (it validates)", self.manifest)?;
        } else {
            writeln!(f, "{} unchanged", self.manifest)?;
        }
        match &self.cargo_features {
            Some(CargoFeatures::Added {
                file,
                features,
                written: true,
                ..
            }) => writeln!(
                f,
                "wrote {}: harness-runtime feature {} on",
                file.display(),
                quoted(features)
            )?,
            Some(CargoFeatures::Added {
                file,
                features,
                written: false,
                ..
            }) => writeln!(
                f,
                "{} left as it was while the import needs attention: the manifest needs harness-runtime feature {}",
                file.display(),
                quoted(features)
            )?,
            _ => {}
        }
        self.write_cargo_features_by_hand(f)
    }
}

/// `gateway`, or `gateway` and `oauth`.
fn quoted(features: &[String]) -> String {
    let quoted: Vec<String> = features
        .iter()
        .map(|feature| format!("`{feature}`"))
        .collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}
