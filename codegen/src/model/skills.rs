//! `[[skills]]`: the Agent Skills the server publishes over the skills extension (and a task
//! bundle copies into main's image). A skill is either written from the manifest (`name`,
//! `description`, `body_file`: its `SKILL.md` rendered here, frontmatter and body) or a
//! directory (`dir`: its `SKILL.md`, whose YAML frontmatter names and describes it, beside
//! supporting files). Either way the files' bytes are fixed here, once: the server embeds
//! them and lists their digests, the bundle writes the same bytes and the ledger records the
//! same digests. Every check is located: the name's rules (Agent Skills': 1 to 64 lowercase
//! letters, digits and single hyphens, the directory's own name), the frontmatter's required
//! fields, and the extension's limits (512 files, 16 MiB a skill).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use harness_contract::skills::{MAX_BYTES, MAX_FILES, media_type_of};
use regex::Regex;
use serde_json::{Map, Value};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::bundle::Skill;
use crate::manifest_path::ManifestPath;
use crate::model::input_files::read_text;

/// Agent Skills' name rule (`--` is checked apart: the regex crate has no look-around).
static SKILL_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$").expect("valid"));

/// The file that makes a directory a skill.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// One skill, its files' bytes fixed.
#[derive(Debug, Clone)]
pub struct SkillModel {
    /// The frontmatter's `name`: the skill's directory and the last segment of its URI.
    pub name: String,
    /// The frontmatter's `description`.
    pub description: String,
    /// The whole frontmatter, as JSON.
    pub frontmatter: Map<String, Value>,
    /// Its files, `SKILL.md` first, then the others by path.
    pub files: Vec<SkillFile>,
}

/// One file of a skill.
#[derive(Debug, Clone)]
pub struct SkillFile {
    /// Its path inside the skill's directory (`/`-separated).
    pub path: String,
    /// Its text (skills are UTF-8 text).
    pub text: String,
    /// Its media type, from its extension.
    pub mime_type: &'static str,
}

impl SkillModel {
    /// The URI of `file` of this skill.
    pub fn uri_of(&self, file: &SkillFile) -> String {
        format!("skill://{}/{}", self.name, file.path)
    }
}

impl SkillFile {
    /// `sha256:` and the lowercase hex SHA-256 of its bytes, as the extension lists it.
    pub fn digest(&self) -> String {
        format!("sha256:{}", harness_contract::sha256_hex(&self.text))
    }
}

/// Checks `[[skills]]` and fixes each skill's files; a skill that fails leaves no model.
pub(crate) fn build(
    skills: &[Skill],
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Vec<SkillModel> {
    let root = ManifestPath::root().key("skills");
    let mut models: Vec<SkillModel> = Vec::new();
    for (index, skill) in skills.iter().enumerate() {
        if is_upstream(skill) {
            continue;
        }
        let path = root.index(index);
        let each = errors.child();
        let model = match (&skill.dir, &skill.body_file) {
            (Some(dir), None) => from_directory(skill, dir, &path, base_dir, inputs, &each),
            (None, Some(body_file)) => {
                from_manifest(skill, body_file, &path, base_dir, inputs, &each)
            }
            (Some(_), Some(_)) => {
                each.report(
                    Diagnostic::key(path.key("body_file"), "a skill is a directory or a body, not both")
                        .label("beside `dir`")
                        .help("remove body_file and put the body in the directory's SKILL.md, or remove dir"),
                );
                None
            }
            (None, None) => {
                each.report(
                    Diagnostic::key(path.clone(), "a skill needs `dir` or `body_file`")
                        .label("no content")
                        .help("set dir = \"skills/<name>\" (a directory with SKILL.md), or name, description and body_file"),
                );
                None
            }
        };
        let Some(model) = model else { continue };
        if models.iter().any(|other| other.name == model.name) {
            each.report(
                Diagnostic::key(
                    path.clone(),
                    format!("a second skill named `{}`", model.name),
                )
                .label("the URI skill://<name>/SKILL.md names one skill")
                .help("rename one of them"),
            );
            continue;
        }
        if let Some(model) = each.unless_failed(model) {
            models.push(model);
        }
    }
    models
}

/// Whether `skill` is an upstream's (or says something only an upstream's skill says): such
/// an entry is checked and bound by `upstream_skills`, whose files are the upstream's.
pub(crate) fn is_upstream(skill: &Skill) -> bool {
    skill.upstream.is_some() || skill.uri.is_some() || skill.pin_sha256.is_some()
}

/// A skill written from the manifest: its `SKILL.md` is the frontmatter (name and
/// description, as JSON strings, which YAML reads back unchanged) and the body.
fn from_manifest(
    skill: &Skill,
    body_file: &str,
    path: &ManifestPath,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<SkillModel> {
    let required = |value: &Option<String>, key: &str| -> Option<String> {
        let value = value.clone().filter(|value| !value.trim().is_empty());
        if value.is_none() {
            errors.report(
                Diagnostic::key(
                    path.key(key),
                    format!("a skill with body_file needs `{key}`"),
                )
                .label("missing or empty")
                .help("name is the skill's directory name; description says when to use it"),
            );
        }
        value
    };
    let (name, description) = (
        required(&skill.name, "name"),
        required(&skill.description, "description"),
    );
    if let Some(name) = &name {
        check_name(name, &path.key("name"), errors);
    }
    let body = read_text(base_dir, body_file, &path.key("body_file"), inputs, errors);
    let (name, description, body) = (name?, description?, body?);
    let text = format!(
        "---\nname: {}\ndescription: {}\n---\n\n{}\n",
        Value::from(name.as_str()),
        Value::from(description.as_str()),
        body.trim_end()
    );
    let mut frontmatter = Map::new();
    frontmatter.insert("name".to_owned(), Value::from(name.as_str()));
    frontmatter.insert("description".to_owned(), Value::from(description.as_str()));
    Some(SkillModel {
        name,
        description,
        frontmatter,
        files: vec![SkillFile {
            path: SKILL_MD.to_owned(),
            text,
            mime_type: "text/markdown",
        }],
    })
}

/// A skill read from a directory: `SKILL.md` and every file beside it, its frontmatter
/// parsed (name and description required, the rest kept).
fn from_directory(
    skill: &Skill,
    dir: &str,
    path: &ManifestPath,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<SkillModel> {
    for (key, value) in [("name", &skill.name), ("description", &skill.description)] {
        if value.is_some() {
            errors.report(
                Diagnostic::key(
                    path.key(key),
                    format!("a directory skill takes its {key} from SKILL.md"),
                )
                .label("beside `dir`")
                .help(format!(
                    "remove {key}: the frontmatter of the directory's SKILL.md says it"
                )),
            );
        }
    }
    let full = base_dir.join(dir);
    // A directory input: a file added or removed there rebuilds too.
    inputs.push(full.clone());
    let mut relative = Vec::new();
    if let Err(error) = walk(&full, "", &mut relative) {
        errors.report(
            Diagnostic::value(
                path.key("dir"),
                format!("cannot read the skill directory {dir}: {error}"),
            )
            .label("unreadable")
            .help("paths are relative to the manifest's directory"),
        );
        return None;
    }
    relative.sort();
    if let Some(position) = relative.iter().position(|file| file == SKILL_MD) {
        let skill_md = relative.remove(position);
        relative.insert(0, skill_md);
    } else {
        errors.report(
            Diagnostic::value(path.key("dir"), format!("{dir} has no SKILL.md"))
                .label("not a skill")
                .help("a skill is a directory whose SKILL.md begins with YAML frontmatter (name, description)"),
        );
        return None;
    }
    if relative.len() > MAX_FILES {
        errors.report(
            Diagnostic::value(
                path.key("dir"),
                format!(
                    "{dir} holds {} files, over the {MAX_FILES} a skill may have",
                    relative.len()
                ),
            )
            .label("too many files")
            .help("hosts refuse a skill past the extension's limits; split it"),
        );
        return None;
    }
    let mut files = Vec::new();
    for file in relative {
        let text = read_text(
            base_dir,
            &format!("{dir}/{file}"),
            &path.key("dir"),
            inputs,
            errors,
        )?;
        files.push(SkillFile {
            mime_type: media_type_of(&file),
            path: file,
            text,
        });
    }
    let total: u64 = files.iter().map(|file| file.text.len() as u64).sum();
    if total > MAX_BYTES {
        errors.report(
            Diagnostic::value(
                path.key("dir"),
                format!("{dir} holds {total} bytes, over the {MAX_BYTES} a skill may have"),
            )
            .label("too large")
            .help("hosts refuse a skill past the extension's limits; split it"),
        );
        return None;
    }
    let frontmatter = frontmatter(&files[0].text, dir, &path.key("dir"), errors)?;
    let text_field = |key: &str| {
        frontmatter
            .get(key)
            .and_then(Value::as_str)
            .filter(|value| !value.trim().is_empty())
    };
    let (Some(name), Some(description)) = (text_field("name"), text_field("description")) else {
        errors.report(
            Diagnostic::value(
                path.key("dir"),
                format!("{dir}/SKILL.md's frontmatter lacks a name or a description"),
            )
            .label("required fields")
            .help("begin SKILL.md with ---, name: <name>, description: <when to use it>, ---"),
        );
        return None;
    };
    let (name, description) = (name.to_owned(), description.to_owned());
    check_name(&name, &path.key("dir"), errors);
    let directory_name = Path::new(dir)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    if directory_name != name {
        errors.report(
            Diagnostic::value(
                path.key("dir"),
                format!("the directory is `{directory_name}`, its SKILL.md names `{name}`"),
            )
            .label("the directory must carry the skill's name")
            .help(format!(
                "rename the directory to `{name}`, or the frontmatter's name"
            )),
        );
    }
    Some(SkillModel {
        name,
        description,
        frontmatter,
        files,
    })
}

/// The paths of the regular files under `directory` (recursively), `/`-separated, relative
/// to it; a symbolic link is an error (a skill is what its directory holds).
fn walk(directory: &Path, prefix: &str, files: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(directory)? {
        let entry = entry?;
        let name = entry.file_name().into_string().map_err(|name| {
            std::io::Error::other(format!(
                "{} is not a UTF-8 file name",
                name.to_string_lossy()
            ))
        })?;
        let kind = entry.file_type()?;
        let relative = format!("{prefix}{name}");
        if kind.is_dir() {
            walk(&entry.path(), &format!("{relative}/"), files)?;
        } else if kind.is_file() {
            files.push(relative);
        } else {
            return Err(std::io::Error::other(format!(
                "{relative} is not a regular file"
            )));
        }
    }
    Ok(())
}

/// The YAML frontmatter at the start of `text`, as a JSON object.
fn frontmatter(
    text: &str,
    dir: &str,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<Map<String, Value>> {
    let report = |why: String| {
        errors.report(
            Diagnostic::value(path.clone(), format!("{dir}/SKILL.md: {why}"))
                .label("bad frontmatter")
                .help("begin SKILL.md with ---, name: <name>, description: <when to use it>, ---"),
        );
    };
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        report("it does not begin with `---`".to_owned());
        return None;
    };
    let Some(end) = rest.find("\n---") else {
        report("its frontmatter has no closing `---`".to_owned());
        return None;
    };
    match serde_yaml_ng::from_str::<Value>(&rest[..end]) {
        Ok(Value::Object(fields)) => Some(fields),
        Ok(_) => {
            report("its frontmatter is not a mapping".to_owned());
            None
        }
        Err(error) => {
            report(format!("its frontmatter is not YAML: {error}"));
            None
        }
    }
}

/// Reports `name` when Agent Skills' rules refuse it.
fn check_name(name: &str, path: &ManifestPath, errors: &ErrorSink<'_>) {
    if !SKILL_NAME.is_match(name) || name.contains("--") {
        errors.report(
            Diagnostic::value(path.clone(), format!("skill name `{name}` breaks the Agent Skills naming rules"))
                .label("invalid skill name")
                .help("1 to 64 lowercase letters, digits and single hyphens, not at either end, e.g. \"incident-triage\""),
        );
    }
}
