//! What import writes for one upstream tool: its live definition read into a manifest entry
//! (arguments translated, every description audited and cleaned, annotations mapped, the
//! digest computed) or, where the grammar cannot say its inputSchema, pointing at the file
//! that keeps it whole, and that entry as a `[[tools]]` table.

use harness_contract::definition_sha256;
use serde_json::Value;
use toml_edit::{Array, ArrayOfTables, InlineTable, Item, Table};

use crate::import::poisoning::{DescriptionAudit, audit};
use crate::import::translate::{Arg, Unsupported, translate};

/// MCP annotation hints and the manifest keys they become, in the manifest's order.
const ANNOTATION_KEYS: &[(&str, &str)] = &[
    ("readOnlyHint", "read_only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open_world"),
];

/// One upstream tool as a manifest entry.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The upstream's name for the tool.
    pub(crate) remote_name: String,
    /// The display title, cleaned.
    pub(crate) title: Option<String>,
    /// The description, cleaned.
    pub(crate) description: String,
    /// Annotation keys of the manifest that the upstream set.
    pub(crate) annotations: Vec<(&'static str, bool)>,
    /// The arguments, descriptions cleaned.
    pub(crate) args: Vec<Arg>,
    /// The file that keeps the inputSchema whole (`schemas/<tool>.json`), instead of
    /// arguments.
    pub(crate) input_schema: Option<String>,
    /// Every description (and the title) that the audit changed or warns about, by place:
    /// `description`, `arguments.query.description`...
    pub(crate) audits: Vec<(String, DescriptionAudit)>,
    /// Where the manifest admits less than the upstream, or leaves something out.
    pub(crate) notes: Vec<String>,
    /// sha256 of the live definition.
    pub(crate) pin_sha256: String,
}

/// `live` (one `tools/list` entry) as a manifest entry, or the constructs of its input
/// schema that the grammar cannot say.
pub(crate) fn entry(live: &Value) -> Result<Entry, Vec<Unsupported>> {
    let schema = live.get("inputSchema").cloned().unwrap_or(Value::Null);
    let translation = translate(&schema)?;
    Ok(described(live, translation.args, translation.notes, None))
}

/// `live` as a manifest entry whose inputSchema is kept whole in `file` (relative to the
/// manifest's directory) instead of arguments; `audits` are those of the descriptions in
/// that schema.
pub(crate) fn schema_file_entry(
    live: &Value,
    file: &str,
    audits: Vec<(String, DescriptionAudit)>,
) -> Entry {
    let mut entry = described(live, Vec::new(), Vec::new(), Some(file.to_owned()));
    entry.audits.extend(audits);
    entry
}

/// The entry for `live` with these arguments (or this schema file), every description
/// audited and cleaned.
fn described(
    live: &Value,
    args: Vec<Arg>,
    notes: Vec<String>,
    input_schema: Option<String>,
) -> Entry {
    let remote_name = live["name"].as_str().unwrap_or_default().to_owned();
    let mut audits = Vec::new();
    let mut clean = |place: String, text: &str| {
        let audit = audit(text);
        let cleaned = audit.cleaned.clone();
        if !audit.is_clean() {
            audits.push((place, audit));
        }
        cleaned
    };
    let title = live["title"]
        .as_str()
        .or_else(|| live["annotations"]["title"].as_str())
        .map(|title| clean("title".to_owned(), title))
        .filter(|title| !title.is_empty());
    let description = clean(
        "description".to_owned(),
        live["description"].as_str().unwrap_or_default(),
    );
    let mut args = args;
    clean_args(&mut args, "arguments", &mut clean);
    let annotations = ANNOTATION_KEYS
        .iter()
        .filter_map(|(hint, key)| live["annotations"][hint].as_bool().map(|set| (*key, set)))
        .collect();
    let mut notes = notes;
    if live
        .get("outputSchema")
        .is_some_and(|schema| !schema.is_null())
    {
        notes.push(
            "outputSchema: pinned (a change is drift), but the manifest does not publish it"
                .to_owned(),
        );
    }
    Entry {
        pin_sha256: definition_sha256(live),
        remote_name,
        title,
        description,
        annotations,
        args,
        input_schema,
        audits,
        notes,
    }
}

fn clean_args(args: &mut [Arg], at: &str, clean: &mut impl FnMut(String, &str) -> String) {
    for arg in args {
        let place = format!("{at}.{}", arg.name);
        if let Some(text) = &arg.description {
            let cleaned = clean(format!("{place}.description"), text);
            arg.description = Some(cleaned).filter(|text| !text.is_empty());
        }
        if let Some(items) = &mut arg.items
            && let Some(text) = &items.description
        {
            let cleaned = clean(format!("{place}.items.description"), text);
            items.description = Some(cleaned).filter(|text| !text.is_empty());
        }
        clean_args(&mut arg.fields, &format!("{place}.fields"), clean);
    }
}

/// The `[[tools]]` table for `entry`, named `name` and bound to `upstream`.
pub(crate) fn table(entry: &Entry, name: &str, upstream: &str) -> Table {
    let mut table = Table::new();
    table.decor_mut().set_prefix("\n");
    table.insert("name", toml_edit::value(name));
    if let Some(title) = &entry.title {
        table.insert("title", toml_edit::value(title.as_str()));
    }
    table.insert("description", toml_edit::value(entry.description.as_str()));
    table.insert("upstream", toml_edit::value(upstream));
    if name != entry.remote_name {
        table.insert(
            "upstream_tool",
            toml_edit::value(entry.remote_name.as_str()),
        );
    }
    table.insert("pin_sha256", toml_edit::value(entry.pin_sha256.as_str()));
    if !entry.annotations.is_empty() {
        let mut annotations = InlineTable::new();
        for (key, set) in &entry.annotations {
            annotations.insert(*key, (*set).into());
        }
        table.insert("annotations", toml_edit::value(annotations));
    }
    if let Some(file) = &entry.input_schema {
        table.insert("input_schema", toml_edit::value(file.as_str()));
    }
    if !entry.args.is_empty() {
        table.insert("arguments", Item::ArrayOfTables(arguments(&entry.args)));
    }
    table
}

fn arguments(args: &[Arg]) -> ArrayOfTables {
    let mut list = ArrayOfTables::new();
    for arg in args {
        let mut table = Table::new();
        table.decor_mut().set_prefix("\n");
        table.insert("name", toml_edit::value(arg.name.as_str()));
        table.insert("type", toml_edit::value(arg.ty));
        if let Some(description) = &arg.description {
            table.insert("description", toml_edit::value(description.as_str()));
        }
        match &arg.default {
            Some(default) => {
                table.insert("default", toml_edit::value(toml_value(default)));
            }
            None if !arg.required => {
                table.insert("required", toml_edit::value(false));
            }
            None => {}
        }
        for (key, value) in &arg.constraints {
            table.insert(key, toml_edit::value(toml_value(value)));
        }
        if let Some(items) = &arg.items {
            let mut inline = InlineTable::new();
            inline.insert("type", items.ty.into());
            if let Some(description) = &items.description {
                inline.insert("description", description.as_str().into());
            }
            for (key, value) in &items.constraints {
                inline.insert(*key, toml_value(value));
            }
            table.insert("items", toml_edit::value(inline));
        }
        if !arg.fields.is_empty() {
            table.insert("fields", Item::ArrayOfTables(arguments(&arg.fields)));
        }
        list.push(table);
    }
    list
}

/// A JSON scalar or array of scalars as a TOML value (the translation admits nothing else).
fn toml_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::String(text) => text.as_str().into(),
        Value::Bool(set) => (*set).into(),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => integer.into(),
            None => number.as_f64().unwrap_or_default().into(),
        },
        Value::Array(items) => {
            let mut array = Array::new();
            for item in items {
                array.push(toml_value(item));
            }
            toml_edit::Value::Array(array)
        }
        Value::Null | Value::Object(_) => unreachable!("the translation admits no such value"),
    }
}
