//! Unknown keys: each an error at its place, with the key it most likely meant (the same key
//! in snake_case, the manifest's name for another tool's key, or a near spelling) or the keys
//! its table takes.

use crate::diagnostics::Diagnostic;
use crate::manifest::schema::SCHEMA;
use crate::manifest_path::{ManifestPath, Segment};

/// The error for a key the manifest's tables do not have, with the key most likely meant.
pub(crate) fn unknown_key(path: &serde_ignored::Path<'_>) -> Diagnostic {
    let manifest_path = manifest_path(path);
    let key = match manifest_path.segments().last() {
        Some(Segment::Key(key)) => key.clone(),
        _ => path.to_string(),
    };
    let allowed = allowed_keys(&manifest_path);
    let help = match closest(&key, &allowed) {
        Some(near) => format!("did you mean `{near}`?"),
        None if allowed.is_empty() => {
            "remove it or check its spelling; harness.schema.json lists every key".to_owned()
        }
        None => format!("this table takes: {}", allowed.join(", ")),
    };
    Diagnostic::key(manifest_path, format!("unknown key `{key}`"))
        .label("not a key of this table")
        .help(help)
}

/// The keys the schema allows in the table that holds the last segment of `path`.
fn allowed_keys(path: &ManifestPath) -> Vec<String> {
    let segments = path.segments();
    let parent = &segments[..segments.len().saturating_sub(1)];
    let mut node = resolve(&SCHEMA);
    for segment in parent {
        let next = match segment {
            Segment::Key(key) => node.get("properties").and_then(|p| p.get(key)),
            Segment::Index(_) => node.get("items"),
        };
        match next {
            Some(next) => node = resolve(next),
            None => return Vec::new(),
        }
    }
    node.get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Follows `$ref`s and picks the table or array alternative of an `anyOf` (an `Option`).
fn resolve(node: &serde_json::Value) -> &serde_json::Value {
    if let Some(reference) = node.get("$ref").and_then(serde_json::Value::as_str) {
        let name = reference.trim_start_matches("#/$defs/");
        if let Some(definition) = SCHEMA.get("$defs").and_then(|defs| defs.get(name)) {
            return resolve(definition);
        }
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        let alternatives = node.get(combinator).and_then(serde_json::Value::as_array);
        if let Some(found) = alternatives
            .into_iter()
            .flatten()
            .map(resolve)
            .find(|alternative| {
                alternative.get("properties").is_some() || alternative.get("items").is_some()
            })
        {
            return found;
        }
    }
    node
}

/// Keys other tools use for what this manifest calls differently (JSON Schema's `enum`, the
/// `params` of JSON-RPC), mapped to this manifest's key.
const ALIASES: &[(&str, &str)] = &[
    ("enum", "values"),
    ("args", "arguments"),
    ("params", "arguments"),
    ("parameters", "arguments"),
    ("properties", "fields"),
    ("desc", "description"),
];

/// The allowed key `key` most likely meant: the same key in snake_case (`minLength`), the
/// manifest's name for another tool's key (`enum`), or a typo within a small edit distance.
fn closest<'a>(key: &str, allowed: &'a [String]) -> Option<&'a str> {
    let find = |wanted: &str| {
        allowed
            .iter()
            .find(|candidate| *candidate == wanted)
            .map(String::as_str)
    };
    let snake = heck::ToSnakeCase::to_snake_case(key);
    if snake != key
        && let Some(found) = find(&snake)
    {
        return Some(found);
    }
    if let Some(found) = ALIASES
        .iter()
        .filter(|(alias, _)| *alias == snake)
        .find_map(|(_, meant)| find(meant))
    {
        return Some(found);
    }
    allowed
        .iter()
        .map(|candidate| (strsim::damerau_levenshtein(key, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.as_str())
}

fn manifest_path(path: &serde_ignored::Path<'_>) -> ManifestPath {
    match path {
        serde_ignored::Path::Root => ManifestPath::root(),
        serde_ignored::Path::Seq { parent, index } => manifest_path(parent).index(*index),
        serde_ignored::Path::Map { parent, key } => manifest_path(parent).key(key),
        serde_ignored::Path::Some { parent }
        | serde_ignored::Path::NewtypeStruct { parent }
        | serde_ignored::Path::NewtypeVariant { parent } => manifest_path(parent),
    }
}
