//! What an import did, tool by tool, as data (for tests and callers) and as the text the
//! command prints.

use std::fmt;

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
    /// A unified diff of the manifest before and after (empty when nothing changed).
    pub manifest_diff: String,
    /// Whether the manifest file was rewritten (never with `--dry-run`).
    pub written: bool,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// Whether the tools were chosen with `--tools` (then a tool left out needs attention).
    pub asked_for_tools: bool,
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
    /// Already in the manifest, and its pin matches the live definition.
    Unchanged,
    /// Already in the manifest, and the live definition hashes to another digest.
    Drifted {
        /// The manifest's pin.
        pinned: String,
        /// The live digest.
        live: String,
        /// The manifest entry against the entry the live definition makes (or the live
        /// definition itself when the grammar cannot say it).
        diff: String,
        /// Whether the pin was replaced (`--update-pins`).
        updated: bool,
    },
    /// Not imported: its input schema uses constructs the grammar cannot say.
    Unsupported {
        /// Each construct with its place in the schema.
        constructs: Vec<String>,
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
}

impl ImportReport {
    /// Whether the user must act: a drift not accepted, a pinned tool gone, or a tool asked
    /// for with `--tools` that was not imported. The command then exits with failure.
    pub fn needs_attention(&self) -> bool {
        self.tools.iter().any(|tool| match tool.outcome {
            Outcome::Drifted { updated, .. } => !updated,
            Outcome::Missing | Outcome::NotOffered => true,
            Outcome::Unsupported { .. } | Outcome::Collision | Outcome::Invalid { .. } => {
                self.asked_for_tools
            }
            Outcome::Added { .. } | Outcome::Unchanged => false,
        })
    }

    /// The tools with this outcome kind, by name (for tests and summaries).
    pub fn names(&self, matches: impl Fn(&Outcome) -> bool) -> Vec<&str> {
        self.tools
            .iter()
            .filter(|tool| matches(&tool.outcome))
            .map(|tool| tool.name.as_str())
            .collect()
    }
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|line| format!("{by}{line}\n")).collect()
}

impl fmt::Display for ToolReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.outcome {
            Outcome::Added { pin_sha256 } => writeln!(f, "+ {name}: added, pinned {pin_sha256}")?,
            Outcome::Unchanged => writeln!(f, "= {name}: unchanged (the pin matches)")?,
            Outcome::Drifted {
                pinned,
                live,
                diff,
                updated,
            } => {
                let action = if *updated {
                    "pin updated (--update-pins); review the entry's description and arguments against the diff"
                } else {
                    "pin kept; review, then run again with --update-pins to accept it"
                };
                writeln!(
                    f,
                    "~ {name}: DRIFTED: the upstream's definition changed since it was pinned (the digest cannot say what it was before)"
                )?;
                writeln!(f, "    pinned {pinned}\n    live   {live}\n    {action}")?;
                writeln!(
                    f,
                    "    the manifest's entry against the entry the live definition makes:"
                )?;
                f.write_str(&indent(diff, "    "))?;
            }
            Outcome::Unsupported { constructs } => {
                writeln!(
                    f,
                    "! {name}: skipped: its inputSchema uses JSON Schema the manifest grammar cannot say:"
                )?;
                for construct in constructs {
                    writeln!(f, "    - {construct}")?;
                }
                writeln!(
                    f,
                    "    (import does not write the fallback yet: to serve it, keep its inputSchema whole in a file beside the manifest and set input_schema = \"schemas/{name}.json\" on an entry you write)"
                )?;
            }
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
        } else if self.written {
            writeln!(f, "wrote {} (it validates)", self.manifest)?;
        } else {
            writeln!(f, "{} unchanged", self.manifest)?;
        }
        Ok(())
    }
}
