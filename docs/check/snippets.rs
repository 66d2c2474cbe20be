//! The fenced code blocks and inline code spans of a Markdown page, and the rule that says
//! which `toml` blocks are harness manifests.
//!
//! A block whose info string starts with `toml` is a `harness.toml`, whole or a fragment,
//! unless its attributes (comma-separated after the language, as in `toml,not-manifest`)
//! include `not-manifest`: a client's configuration, a `Cargo.toml` or a `book.toml`. A
//! fragment (no `[server]` table) is checked after [`BASE_MANIFEST`]. Files a manifest
//! names (`file = ...`, `ca_file`, `build_files`...) are read relative to the directory of
//! a `manifest-dir=PATH` attribute (PATH from the repository root), or from an empty
//! directory when there is none. A block that is an excerpt of a whole manifest that cannot
//! stand alone (a Harbor task's `[compose.sidecar]`, say) says so with
//! `excerpt-of=PATH`: its lines must appear in that manifest in order, and that manifest
//! passes the model.

use std::path::{Path, PathBuf};

/// What a fragment is joined to: a server that names every key other tables may require.
pub const BASE_MANIFEST: &str = r#"[server]
name = "book-example"
version = "0.1.0"
request_state_key_env = "BOOK_REQUEST_STATE_KEY"
"#;

/// One fenced code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The line of its opening fence, from 1.
    pub line: usize,
    /// The language: the info string up to its first comma or space.
    pub language: String,
    /// The attributes after the language (`ignore`, `not-manifest`, `manifest-dir=...`).
    pub attributes: Vec<String>,
    /// Its text, without the fences and without the indentation of the opening fence.
    pub text: String,
}

impl Block {
    /// The value of a `name=value` attribute.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find_map(|a| a.strip_prefix(name)?.strip_prefix('='))
    }

    /// Whether the block is a harness manifest (see the module's rule).
    pub fn is_manifest(&self) -> bool {
        self.language == "toml" && !self.attributes.iter().any(|a| a == "not-manifest")
    }
}

/// Every fenced block of `markdown` (backtick or tilde fences, indented ones in lists
/// included).
pub fn code_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<(Block, String, usize)> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match open.as_mut() {
            None => {
                let fence: String = trimmed
                    .chars()
                    .take_while(|c| *c == '`' || *c == '~')
                    .collect();
                if fence.len() >= 3 && fence.chars().all(|c| c == fence.as_bytes()[0] as char) {
                    let info = trimmed[fence.len()..].trim();
                    let mut parts = info.split([',', ' ']).filter(|p| !p.is_empty());
                    let language = parts.next().unwrap_or("").to_owned();
                    let attributes = parts.map(str::to_owned).collect();
                    let block = Block {
                        line: index + 1,
                        language,
                        attributes,
                        text: String::new(),
                    };
                    open = Some((block, fence, indent));
                }
            }
            Some((block, fence, fence_indent)) => {
                if trimmed.starts_with(fence.as_str())
                    && trimmed
                        .trim_end()
                        .chars()
                        .all(|c| c == fence.as_bytes()[0] as char)
                {
                    blocks.push(open.take().expect("open").0);
                } else {
                    let cut = indent.min(*fence_indent);
                    block.text.push_str(&line[cut..]);
                    block.text.push('\n');
                }
            }
        }
    }
    blocks
}

/// The inline code spans of a Markdown text, outside fenced blocks, with their line.
pub fn inline_code(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(code), Some(_)) = (parts.next(), parts.next()) {
            spans.push((index + 1, code.to_owned()));
        }
    }
    spans
}

/// The Markdown pages under `dir`, sorted.
pub fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Checks one manifest block with the real model; the error says where the block is and
/// what the model said.
pub fn check_manifest(block: &Block, page: &str, repository: &Path) -> Result<(), String> {
    if let Some(whole) = block.attribute("excerpt-of") {
        return check_excerpt(block, page, &repository.join(whole));
    }
    let fragment = !block
        .text
        .lines()
        .any(|line| line.trim_start().starts_with("[server]"));
    let source = if fragment {
        format!("{BASE_MANIFEST}\n{}", block.text)
    } else {
        block.text.clone()
    };
    let empty = tempfile::tempdir().map_err(|e| e.to_string())?;
    let base_dir = match block.attribute("manifest-dir") {
        Some(dir) => repository.join(dir),
        None => empty.path().to_path_buf(),
    };
    let name = format!("{page}:{}", block.line);
    harness_codegen::load(&source, &name, &base_dir)
        .map(drop)
        .map_err(|errors| {
            let offset = if fragment {
                format!(
                    " (a fragment: its line 1 is line {} of what was checked, after the base manifest)",
                    BASE_MANIFEST.lines().count() + 2
                )
            } else {
                String::new()
            };
            format!("{name}: the toml block does not pass the model{offset}:\n{errors}")
        })
}

/// An `excerpt-of` block: its lines appear in order in the manifest at `whole`, which passes
/// the model.
fn check_excerpt(block: &Block, page: &str, whole: &Path) -> Result<(), String> {
    let name = format!("{page}:{}", block.line);
    let source = std::fs::read_to_string(whole)
        .map_err(|e| format!("{name}: excerpt of {}: {e}", whole.display()))?;
    let mut lines = source.lines().map(str::trim);
    for line in block.text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !lines.any(|l| l == line) {
            return Err(format!(
                "{name}: the line `{line}` is not in {} (in this order)",
                whole.display()
            ));
        }
    }
    let base_dir = whole.parent().unwrap_or(Path::new("."));
    harness_codegen::load(&source, &whole.display().to_string(), base_dir)
        .map(drop)
        .map_err(|errors| {
            format!(
                "{name}: {} does not pass the model:\n{errors}",
                whole.display()
            )
        })
}
