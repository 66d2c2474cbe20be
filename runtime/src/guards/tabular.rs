//! Tabular blockade: a result that is a table (an array of at least `max_rows` objects, at
//! the top level or in any field) floods the context window. It is refused with a
//! `TokenStarvationError`, or replaced by a compact summary: a text of one line for the
//! table and one per column, which costs a model about 30 tokens per column instead of the
//! whole table's tens of thousands.
//!
//! ```text
//! table: 1000 rows, 3 columns
//! order_id: integer, nulls 0, 0..999, mean 499.5
//! region: string, nulls 0, 2 distinct, top eu (500), us (500)
//! shipped: date, nulls 12, 2026-01-01..2026-03-31
//! ```
//!
//! Per column: its name, its type (`integer`, `number`, `string`, `date`, `boolean`, `object`,
//! `array`, or `mixed(a|b)`), how many rows hold no value (`null` or the key absent), then a
//! range for numbers and dates (`min..max`, numbers with their mean) or, for the rest, the
//! distinct count and the most frequent values with their counts (ties in value order). The
//! text is deterministic: columns in the order they first appear, values cut at 40
//! characters with line breaks shown as `\n`.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde_json::Value;

/// The message for a refused table: it tells the model what to return instead.
pub const BLOCK_MESSAGE: &str = "Raw DataFrames are strictly prohibited in MCP tools. Return scalar metrics or token-compressed strings.";

pub use harness_contract::TabularAction;

/// Values listed per non-range column.
const TOP_VALUES: usize = 3;
/// Columns described; the rest are counted on the last line.
const MAX_COLUMNS: usize = 40;
/// Characters of a value shown.
const VALUE_CHARS: usize = 40;

fn is_table(items: &[Value], max_rows: u64) -> bool {
    items.len() as u64 >= max_rows && !items.is_empty() && items.iter().all(Value::is_object)
}

/// True when `value` holds a table anywhere.
pub fn contains_table(value: &Value, max_rows: u64) -> bool {
    match value {
        Value::Array(items) => {
            is_table(items, max_rows) || items.iter().any(|item| contains_table(item, max_rows))
        }
        Value::Object(object) => object.values().any(|item| contains_table(item, max_rows)),
        _ => false,
    }
}

/// Replaces every table in `value` by its summary; returns how many were replaced.
pub fn summarize_tables(value: &mut Value, max_rows: u64) -> usize {
    match value {
        Value::Array(items) if is_table(items, max_rows) => {
            *value = Value::String(summarize(items));
            1
        }
        Value::Array(items) => items
            .iter_mut()
            .map(|item| summarize_tables(item, max_rows))
            .sum(),
        Value::Object(object) => object
            .values_mut()
            .map(|item| summarize_tables(item, max_rows))
            .sum(),
        _ => 0,
    }
}

/// The kind of one cell, as the summary names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Integer,
    Number,
    Date,
    String,
    Boolean,
    Object,
    Array,
}

impl Kind {
    fn of(cell: &Value) -> Option<Self> {
        Some(match cell {
            Value::Null => return None,
            Value::Number(number) if number.is_f64() => Self::Number,
            Value::Number(_) => Self::Integer,
            Value::String(text) if is_date(text) => Self::Date,
            Value::String(_) => Self::String,
            Value::Bool(_) => Self::Boolean,
            Value::Object(_) => Self::Object,
            Value::Array(_) => Self::Array,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Date => "date",
            Self::String => "string",
            Self::Boolean => "boolean",
            Self::Object => "object",
            Self::Array => "array",
        }
    }
}

/// An ISO 8601 date or date-time: `YYYY-MM-DD`, optionally followed by `T` or a space and a
/// time. Such strings order as their dates do (within one offset).
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    bytes.len() >= 10
        && digits(0..4)
        && bytes[4] == b'-'
        && digits(5..7)
        && bytes[7] == b'-'
        && digits(8..10)
        && (bytes.len() == 10
            || (matches!(bytes[10], b'T' | b' ') && bytes.len() > 11 && bytes.len() <= 35))
}

/// What the summary learns of one column in one pass.
#[derive(Default)]
struct Column {
    kinds: Vec<Kind>,
    min: f64,
    max: f64,
    sum: f64,
    numbers: usize,
    first_date: Option<String>,
    last_date: Option<String>,
    counts: HashMap<String, usize>,
}

impl Column {
    fn add(&mut self, cell: &Value) {
        let Some(kind) = Kind::of(cell) else {
            return;
        };
        if let Err(at) = self.kinds.binary_search(&kind) {
            self.kinds.insert(at, kind);
        }
        match cell {
            Value::Number(number) => {
                let number = number.as_f64().unwrap_or_default();
                if self.numbers == 0 {
                    (self.min, self.max) = (number, number);
                }
                self.min = self.min.min(number);
                self.max = self.max.max(number);
                self.sum += number;
                self.numbers += 1;
            }
            Value::String(text) if kind == Kind::Date => {
                if self
                    .first_date
                    .as_deref()
                    .is_none_or(|first| text.as_str() < first)
                {
                    self.first_date = Some(text.clone());
                }
                if self
                    .last_date
                    .as_deref()
                    .is_none_or(|last| text.as_str() > last)
                {
                    self.last_date = Some(text.clone());
                }
            }
            _ => {}
        }
        *self.counts.entry(label(cell)).or_default() += 1;
    }

    /// The type, e.g. `integer` or `mixed(integer|string)`; `null` when no row has a value.
    fn type_name(&self) -> String {
        let mut kinds = self.kinds.clone();
        if kinds.contains(&Kind::Number) {
            kinds.retain(|kind| *kind != Kind::Integer);
        }
        match kinds.as_slice() {
            [] => "null".to_owned(),
            [kind] => kind.name().to_owned(),
            many => {
                let names: Vec<&str> = many.iter().map(|kind| kind.name()).collect();
                format!("mixed({})", names.join("|"))
            }
        }
    }

    /// The column's line; `rows` is the table's row count (a row without the key, or with
    /// `null`, holds no value).
    fn describe(&self, name: &str, rows: usize, out: &mut String) {
        let present: usize = self.counts.values().sum();
        let nulls = rows - present;
        let _ = write!(
            out,
            "\n{}: {}, nulls {nulls}",
            clean(name),
            self.type_name()
        );
        let numeric = self
            .kinds
            .iter()
            .all(|kind| matches!(kind, Kind::Integer | Kind::Number));
        if self.kinds.is_empty() {
            // Only nulls: nothing more to say.
        } else if numeric {
            let mean = self.sum / self.numbers as f64;
            let _ = write!(
                out,
                ", {}..{}, mean {}",
                number(self.min),
                number(self.max),
                number(mean)
            );
        } else if let (true, Some(first), Some(last)) = (
            self.kinds == [Kind::Date],
            &self.first_date,
            &self.last_date,
        ) {
            let _ = write!(out, ", {}..{}", clean(first), clean(last));
        } else {
            let mut counts: Vec<(&String, &usize)> = self.counts.iter().collect();
            counts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let _ = write!(out, ", {} distinct, top ", counts.len());
            for (i, (value, count)) in counts.into_iter().take(TOP_VALUES).enumerate() {
                let separator = if i == 0 { "" } else { ", " };
                let _ = write!(out, "{separator}{value} ({count})");
            }
        }
    }
}

/// A cell as the top values show it: strings bare, anything else as compact JSON; cut.
fn label(cell: &Value) -> String {
    match cell {
        Value::String(text) => clean(text),
        other => clean(&other.to_string()),
    }
}

/// At most [`VALUE_CHARS`] characters, line breaks and other controls escaped so each column
/// stays on its line.
fn clean(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().take(VALUE_CHARS) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A number as short as it stays exact to six significant digits: `999`, `249.5`, `0.00731`.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{value:.0}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (5 - magnitude).clamp(0, 12) as usize;
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// The summary of one table: its row count, then per column its name, type, null count, and
/// range (numbers, dates) or distinct count and top values (everything else).
pub fn summarize(rows: &[Value]) -> String {
    let mut names: Vec<&str> = Vec::new();
    let mut columns: BTreeMap<&str, Column> = BTreeMap::new();
    for row in rows {
        let Value::Object(row) = row else { continue };
        for (key, cell) in row {
            columns
                .entry(key.as_str())
                .or_insert_with(|| {
                    names.push(key.as_str());
                    Column::default()
                })
                .add(cell);
        }
    }
    let mut out = format!("table: {} rows, {} columns", rows.len(), names.len());
    for name in names.iter().take(MAX_COLUMNS) {
        columns[name].describe(name, rows.len(), &mut out);
    }
    if names.len() > MAX_COLUMNS {
        let _ = write!(out, "\n({} more columns)", names.len() - MAX_COLUMNS);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn orders(n: usize) -> Value {
        let regions = ["eu", "us"];
        let row = |i: usize| json!({"order_id": i, "amount": (i % 10) as f64 + 0.5, "region": regions[i % 2]});
        Value::Array((0..n).map(row).collect())
    }

    #[test]
    fn finds_tables_at_the_top_and_in_fields() {
        assert!(contains_table(&orders(1000), 50));
        assert!(contains_table(&json!({"data": {"rows": orders(60)}}), 50));
        assert!(!contains_table(&orders(10), 50));
        assert!(!contains_table(
            &json!({"ids": (0..1000).collect::<Vec<_>>()}),
            50
        ));
    }

    #[test]
    fn a_table_in_a_field_becomes_its_summary_text() {
        let mut value = json!({"orders": orders(1000), "source": "db"});
        assert_eq!(summarize_tables(&mut value, 50), 1);
        assert_eq!(
            value["orders"],
            "table: 1000 rows, 3 columns\n\
             order_id: integer, nulls 0, 0..999, mean 499.5\n\
             amount: number, nulls 0, 0.5..9.5, mean 5\n\
             region: string, nulls 0, 2 distinct, top eu (500), us (500)"
        );
        assert_eq!(value["source"], "db");
    }

    #[test]
    fn nulls_absent_keys_dates_booleans_and_mixed_columns() {
        let rows = vec![
            json!({"day": "2026-03-01", "ok": true, "v": 1, "note": "a\nb"}),
            json!({"day": "2026-01-15T08:00:00Z", "ok": false, "v": "x", "note": null}),
            json!({"day": null, "ok": true, "v": 2.5}),
        ];
        assert_eq!(
            summarize(&rows),
            "table: 3 rows, 4 columns\n\
             day: date, nulls 1, 2026-01-15T08:00:00Z..2026-03-01\n\
             ok: boolean, nulls 0, 2 distinct, top true (2), false (1)\n\
             v: mixed(number|string), nulls 0, 3 distinct, top 1 (1), 2.5 (1), x (1)\n\
             note: string, nulls 2, 1 distinct, top a\\nb (1)"
        );
        assert_eq!(
            summarize(&[json!({"gone": null})]),
            "table: 1 rows, 1 columns\ngone: null, nulls 1"
        );
    }

    #[test]
    fn top_values_are_the_most_frequent_ties_in_value_order_and_cut() {
        let long = "x".repeat(100);
        let rows: Vec<Value> = ["b", "a", "c", "a", "d", &long]
            .iter()
            .map(|s| json!({"s": s}))
            .collect();
        let summary = summarize(&rows);
        assert!(
            summary.ends_with("s: string, nulls 0, 5 distinct, top a (2), b (1), c (1)"),
            "{summary}"
        );
        let rows: Vec<Value> = (0..3).map(|_| json!({"s": long})).collect();
        assert!(summarize(&rows).ends_with(&format!("top {} (3)", "x".repeat(40))));
    }

    #[test]
    fn wide_tables_list_forty_columns_and_count_the_rest() {
        let row: serde_json::Map<String, Value> =
            (0..45).map(|i| (format!("c{i}"), json!(i))).collect();
        let summary = summarize(&[Value::Object(row)]);
        assert_eq!(summary.lines().count(), 1 + 40 + 1);
        assert!(summary.ends_with("\n(5 more columns)"), "{summary}");
    }

    #[test]
    fn numbers_keep_six_significant_digits() {
        assert_eq!(number(999.0), "999");
        assert_eq!(number(-3.0), "-3");
        assert_eq!(number(249.5), "249.5");
        assert_eq!(number(499.87000000000006), "499.87");
        assert_eq!(number(0.007_314_159), "0.00731416");
        assert_eq!(number(123_456.789), "123457");
        assert_eq!(number(1e20), "100000000000000000000");
    }
}
