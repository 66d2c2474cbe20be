//! Which of an upstream's tools an import pins: by least privilege, the ones it annotates as
//! read-only, unless the user names them or asks for all.

use serde_json::Value;

/// Which of an upstream's tools an import pins. Tools the manifest pins already are checked
/// against their live definitions whatever the selection (with [`Selection::Named`], only
/// those named).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Selection {
    /// Least privilege: the tools the upstream annotates as read-only (`readOnlyHint` true,
    /// no `destructiveHint`); the report says why each other one was left out.
    #[default]
    ReadOnly,
    /// `--all`: every tool, write tools included.
    All,
    /// `--tools a,b`: exactly these, by the upstream's names; one that is not imported needs
    /// attention.
    Named(Vec<String>),
}

impl Selection {
    /// The selection the command line's `--tools a,b` and `--all` ask for (the two exclude
    /// each other; neither is least privilege).
    pub fn from_flags(tools: Option<Vec<String>>, all: bool) -> Self {
        match (tools, all) {
            (Some(names), _) => Self::Named(names),
            (None, true) => Self::All,
            (None, false) => Self::ReadOnly,
        }
    }

    /// Whether the user named the tools.
    pub fn is_named(&self) -> bool {
        matches!(self, Self::Named(_))
    }

    /// Why this selection leaves out `tool` (a live definition the manifest does not pin
    /// yet), or `None` when it is imported. Only least privilege leaves tools out here; a
    /// named selection skips the others before asking.
    pub(crate) fn leaves_out(&self, tool: &Value) -> Option<String> {
        match self {
            Self::ReadOnly => not_read_only(tool),
            Self::All | Self::Named(_) => None,
        }
    }
}

/// Why a live tool is not read-only by its annotations (`None` when it is): least privilege
/// pins only what says it changes nothing, and reads no further into a tool that does not
/// say.
fn not_read_only(tool: &Value) -> Option<String> {
    let annotations = &tool["annotations"];
    match (
        annotations["readOnlyHint"].as_bool(),
        annotations["destructiveHint"].as_bool(),
    ) {
        (Some(true), Some(true)) => Some(
            "it is annotated read-only and destructive at once (destructiveHint)".to_owned(),
        ),
        (Some(true), _) => None,
        (Some(false), Some(false)) => {
            Some("a write tool (readOnlyHint false), not destructive by its hints".to_owned())
        }
        (Some(false), _) => Some(
            "a write tool that may destroy data (readOnlyHint false; destructiveHint true or unset, which means true)"
                .to_owned(),
        ),
        (None, _) => Some("no read-only annotation (readOnlyHint unset)".to_owned()),
    }
}
