//! Tabular blockade: a result that is a table (an array of at least `max_rows` objects, at
//! the top level or in any field) floods the context window. It is refused with a
//! `TokenStarvationError`, or replaced by a compact summary.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// The message for a refused table: it tells the model what to return instead.
pub const BLOCK_MESSAGE: &str = "Raw DataFrames are strictly prohibited in MCP tools. Return scalar metrics or token-compressed strings.";

pub use harness_contract::TabularAction;

/// Rows shown in a summary.
const SAMPLE_ROWS: usize = 3;
/// Columns with at most this many distinct values get a top-values list.
const LOW_CARDINALITY: usize = 20;
/// Values listed per low-cardinality column.
const TOP_VALUES: usize = 5;

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
            *value = summarize(items);
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

#[derive(Default)]
struct Column {
    numbers: Vec<f64>,
    counts: BTreeMap<String, u64>,
    distinct_overflow: bool,
}

/// The summary of one table: row count, columns, numeric statistics, top values of
/// low-cardinality columns, and the first rows.
pub fn summarize(rows: &[Value]) -> Value {
    let mut columns: Vec<String> = Vec::new();
    let mut stats: BTreeMap<String, Column> = BTreeMap::new();
    for row in rows {
        let Value::Object(row) = row else { continue };
        for (key, cell) in row {
            let column = stats.entry(key.clone()).or_insert_with(|| {
                columns.push(key.clone());
                Column::default()
            });
            if let Some(number) = cell.as_f64().filter(|_| cell.is_number()) {
                column.numbers.push(number);
            } else if !column.distinct_overflow {
                let label = match cell {
                    Value::String(text) => text.chars().take(40).collect(),
                    other => other.to_string(),
                };
                *column.counts.entry(label).or_default() += 1;
                if column.counts.len() > LOW_CARDINALITY {
                    column.distinct_overflow = true;
                    column.counts.clear();
                }
            }
        }
    }
    let mut numeric = Map::new();
    let mut top_values = Map::new();
    for name in &columns {
        let column = &stats[name];
        if !column.numbers.is_empty() {
            let sum: f64 = column.numbers.iter().sum();
            let min = column.numbers.iter().copied().fold(f64::INFINITY, f64::min);
            let max = column
                .numbers
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            numeric.insert(
                name.clone(),
                json!({"min": min, "max": max, "mean": sum / column.numbers.len() as f64, "sum": sum}),
            );
        }
        if !column.counts.is_empty() {
            let mut counts: Vec<(&String, &u64)> = column.counts.iter().collect();
            counts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let top: Vec<Value> = counts
                .into_iter()
                .take(TOP_VALUES)
                .map(|(v, n)| json!([v, n]))
                .collect();
            top_values.insert(name.clone(), Value::Array(top));
        }
    }
    json!({
        "table_summary": {
            "rows": rows.len(),
            "columns": columns,
            "numeric": numeric,
            "top_values": top_values,
            "first_rows": rows.iter().take(SAMPLE_ROWS).cloned().collect::<Vec<_>>(),
        }
    })
}

#[cfg(test)]
mod tests {
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
    fn summary_is_small_and_informative() {
        let mut value = json!({"orders": orders(1000), "source": "db"});
        assert_eq!(summarize_tables(&mut value, 50), 1);
        let summary = &value["orders"]["table_summary"];
        assert_eq!(summary["rows"], 1000);
        assert_eq!(summary["columns"], json!(["order_id", "amount", "region"]));
        assert_eq!(summary["numeric"]["order_id"]["max"], 999.0);
        assert_eq!(summary["numeric"]["amount"]["mean"], 5.0);
        assert_eq!(
            summary["top_values"]["region"],
            json!([["eu", 500], ["us", 500]])
        );
        assert_eq!(summary["first_rows"].as_array().unwrap().len(), 3);
        assert!(value.to_string().len() < 800, "{}", value.to_string().len());
    }
}
