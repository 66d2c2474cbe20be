//! The manifest edit: `[[tools]]` tables found, appended, removed, re-pinned (and, for a
//! check only, pointed at staged schema files) in a `toml_edit` document, so that everything
//! else the user wrote (comments, blank lines, key order, formatting, unrelated tables)
//! stays byte for byte.

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table};

/// A `[[tools]]` entry that an upstream serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoundTool {
    /// Its index in `[[tools]]`.
    pub(crate) index: usize,
    /// Its name in the manifest.
    pub(crate) name: String,
    /// The upstream's name for it (`upstream_tool`, else `name`).
    pub(crate) remote_name: String,
    /// Its `pin_sha256`.
    pub(crate) pin: Option<String>,
    /// Its `input_schema` (the file that keeps its inputSchema whole), if it has one.
    pub(crate) input_schema: Option<String>,
}

/// The `[[tools]]` array, when the manifest has one written as tables.
fn tools(doc: &DocumentMut) -> Result<Option<&ArrayOfTables>, String> {
    match doc.get("tools") {
        None => Ok(None),
        Some(Item::ArrayOfTables(tools)) => Ok(Some(tools)),
        Some(_) => Err("`tools` is not written as [[tools]] tables".to_owned()),
    }
}

fn text<'a>(table: &'a Table, key: &str) -> Option<&'a str> {
    table.get(key).and_then(Item::as_str)
}

/// Every tool name in the manifest.
pub(crate) fn tool_names(doc: &DocumentMut) -> Result<Vec<String>, String> {
    Ok(tools(doc)?
        .into_iter()
        .flat_map(ArrayOfTables::iter)
        .filter_map(|table| text(table, "name").map(str::to_owned))
        .collect())
}

/// The tools `upstream` serves, in manifest order.
pub(crate) fn bound_tools(doc: &DocumentMut, upstream: &str) -> Result<Vec<BoundTool>, String> {
    Ok(tools(doc)?
        .into_iter()
        .flat_map(ArrayOfTables::iter)
        .enumerate()
        .filter(|(_, table)| text(table, "upstream") == Some(upstream))
        .filter_map(|(index, table)| {
            let name = text(table, "name")?.to_owned();
            Some(BoundTool {
                index,
                remote_name: text(table, "upstream_tool").unwrap_or(&name).to_owned(),
                name,
                pin: text(table, "pin_sha256").map(str::to_owned),
                input_schema: text(table, "input_schema").map(str::to_owned),
            })
        })
        .collect())
}

/// The `[[tools]]` table at `index`.
pub(crate) fn tool(doc: &DocumentMut, index: usize) -> Option<&Table> {
    tools(doc).ok().flatten()?.get(index)
}

/// The starting output caps (`max_chars`, `max_lines`) that `[defaults.guards]` does not set.
pub(crate) fn caps_the_defaults_lack(doc: &DocumentMut) -> Vec<(&'static str, u64)> {
    let defaults = doc
        .get("defaults")
        .and_then(|defaults| defaults.get("guards"));
    crate::new_project::STARTING_OUTPUT_CAPS
        .iter()
        .filter(|(key, _)| defaults.and_then(|guards| guards.get(key)).is_none())
        .copied()
        .collect()
}

/// Appends `table` to `[[tools]]` (after the last tool; the array is created at the end of
/// the document when there is none) and returns its index.
pub(crate) fn append(doc: &mut DocumentMut, table: Table) -> Result<usize, String> {
    tools(doc)?;
    let tools = doc
        .entry("tools")
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .expect("checked above");
    tools.push(table);
    Ok(tools.len() - 1)
}

/// Removes the `[[tools]]` table at `index` (one [`append`] just added).
pub(crate) fn remove_last(doc: &mut DocumentMut) {
    if let Some(tools) = doc.get_mut("tools").and_then(Item::as_array_of_tables_mut) {
        tools.remove(tools.len() - 1);
        if tools.is_empty() {
            doc.remove("tools");
        }
    }
}

/// Replaces the value of `pin_sha256` of the tool at `index`, keeping the line's own
/// formatting (spacing, a trailing comment); nothing else of the entry changes.
pub(crate) fn set_pin(doc: &mut DocumentMut, index: usize, pin: &str) -> bool {
    set_pin_in(doc, "tools", index, pin)
}

/// [`set_pin`] of the entry at `index` of the array of tables `array` (`prompts`...).
pub(crate) fn set_pin_in(doc: &mut DocumentMut, array: &str, index: usize, pin: &str) -> bool {
    let Some(value) = doc
        .get_mut(array)
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|tools| tools.get_mut(index))
        .and_then(|table| table.get_mut("pin_sha256"))
        .and_then(Item::as_value_mut)
    else {
        return false;
    };
    let decor = value.decor().clone();
    *value = pin.into();
    *value.decor_mut() = decor;
    true
}

/// Replaces every tool's `input_schema` value for which `to` gives another (the staged
/// schema files, read from where they are staged).
pub(crate) fn redirect_input_schemas(doc: &mut DocumentMut, to: impl Fn(&str) -> Option<String>) {
    let Some(tools) = doc.get_mut("tools").and_then(Item::as_array_of_tables_mut) else {
        return;
    };
    for table in tools.iter_mut() {
        let Some(value) = table.get_mut("input_schema").and_then(Item::as_value_mut) else {
            continue;
        };
        if let Some(target) = value.as_str().and_then(&to) {
            *value = target.into();
        }
    }
}
