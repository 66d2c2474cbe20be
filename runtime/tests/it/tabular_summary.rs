//! The tabular summary read back as a model would read it: the test parses the text and checks
//! every fact it states (row count; per column its name, type, null count, and range or top
//! values) against the table itself, computed here without the summarizer's code.

use std::collections::HashMap;

use harness_runtime::guards::tabular::summarize;
use serde_json::{Value, json};

/// 1,000 orders: an integer id, a high-cardinality customer, a three-valued region, a float
/// amount, a two-valued status, a date with gaps (`null` every 7th row, absent every 13th),
/// and a boolean.
fn table() -> Vec<Value> {
    (0..1000usize)
        .map(|id| {
            const REGIONS: [&str; 3] = ["eu-west", "us-east", "ap-south"];
            let mut row = json!({
                "order_id": id,
                "customer": format!("customer-{:04}", id % 137),
                "region": REGIONS[id % 3],
                "amount": (id as f64 * 7.31) % 500.0,
                "status": if id % 11 == 0 { "refunded" } else { "paid" },
                "shipped": format!("2026-{:02}-{:02}", 1 + id % 12, 1 + id % 28),
                "gift": id % 4 == 0,
            });
            if id % 7 == 0 {
                row["shipped"] = Value::Null;
            }
            if id % 13 == 0 {
                row.as_object_mut().unwrap().remove("shipped");
            }
            row
        })
        .collect()
}

/// One column's line, parsed.
#[derive(Debug)]
struct Line {
    name: String,
    kind: String,
    nulls: usize,
    range: Option<(String, String)>,
    distinct: Option<usize>,
    top: Vec<(String, usize)>,
}

fn parse_line(line: &str) -> Line {
    let (name, rest) = line.split_once(": ").expect("name: ...");
    let mut parts = rest.splitn(3, ", ");
    let kind = parts.next().unwrap().to_owned();
    let nulls = parts
        .next()
        .and_then(|part| part.strip_prefix("nulls "))
        .expect("nulls N")
        .parse()
        .unwrap();
    let rest = parts.next().unwrap_or_default();
    let (mut range, mut distinct, mut top) = (None, None, Vec::new());
    if let Some((count, values)) = rest.split_once(" distinct, top ") {
        distinct = Some(count.parse().unwrap());
        for item in values.split(", ") {
            let (value, count) = item.rsplit_once(" (").expect("value (count)");
            top.push((
                value.to_owned(),
                count.trim_end_matches(')').parse().unwrap(),
            ));
        }
    } else {
        let bounds = rest.split(", mean ").next().unwrap();
        let (min, max) = bounds.split_once("..").expect("min..max");
        range = Some((min.to_owned(), max.to_owned()));
    }
    Line {
        name: name.to_owned(),
        kind,
        nulls,
        range,
        distinct,
        top,
    }
}

fn close(shown: &str, actual: f64) -> bool {
    let shown: f64 = shown.parse().unwrap();
    (shown - actual).abs() <= 1e-5 * actual.abs().max(1.0)
}

#[test]
fn every_fact_of_the_summary_holds_for_the_table() {
    let rows = table();
    let summary = summarize(&rows);
    let mut lines = summary.lines();
    assert_eq!(lines.next(), Some("table: 1000 rows, 7 columns"));
    let lines: Vec<Line> = lines.map(parse_line).collect();
    let names: Vec<&str> = lines.iter().map(|line| line.name.as_str()).collect();
    // In the order the columns first appear: row 0 has no `shipped`, so `gift` comes first.
    assert_eq!(
        names,
        [
            "order_id", "customer", "region", "amount", "status", "gift", "shipped"
        ]
    );
    for line in &lines {
        let cells: Vec<&Value> = rows
            .iter()
            .filter_map(|row| row.get(&line.name).filter(|cell| !cell.is_null()))
            .collect();
        assert_eq!(line.nulls, rows.len() - cells.len(), "{line:?}");
        let expected_kind = match &cells[0] {
            Value::Number(_) if cells.iter().all(|cell| cell.is_u64()) => "integer",
            Value::Number(_) => "number",
            Value::String(text) if text.len() == 10 && text.as_bytes()[4] == b'-' => "date",
            Value::String(_) => "string",
            Value::Bool(_) => "boolean",
            other => panic!("no such column in the table: {other}"),
        };
        assert_eq!(line.kind, expected_kind, "{line:?}");
        match expected_kind {
            "integer" | "number" => {
                let numbers: Vec<f64> = cells.iter().map(|cell| cell.as_f64().unwrap()).collect();
                let (min, max) = line.range.as_ref().expect("a range");
                assert!(
                    close(min, numbers.iter().copied().fold(f64::MAX, f64::min)),
                    "{line:?}"
                );
                assert!(
                    close(max, numbers.iter().copied().fold(f64::MIN, f64::max)),
                    "{line:?}"
                );
            }
            "date" => {
                let dates: Vec<&str> = cells.iter().map(|cell| cell.as_str().unwrap()).collect();
                let range = line.range.clone().expect("a range");
                let min = dates.iter().min().unwrap().to_string();
                let max = dates.iter().max().unwrap().to_string();
                assert_eq!(range, (min, max), "{line:?}");
            }
            _ => {
                let mut counts: HashMap<String, usize> = HashMap::new();
                for cell in &cells {
                    let label = cell
                        .as_str()
                        .map_or_else(|| cell.to_string(), str::to_owned);
                    *counts.entry(label).or_default() += 1;
                }
                assert_eq!(line.distinct, Some(counts.len()), "{line:?}");
                assert!(!line.top.is_empty(), "{line:?}");
                assert!(line.top.len() <= counts.len());
                for (value, count) in &line.top {
                    assert_eq!(counts.get(value), Some(count), "{value} in {line:?}");
                }
                let least_shown = line.top.iter().map(|(_, n)| *n).min().unwrap();
                let shown: Vec<&String> = line.top.iter().map(|(value, _)| value).collect();
                for (value, count) in &counts {
                    assert!(
                        shown.contains(&value) || *count <= least_shown,
                        "{value} ({count}) is more frequent than a value shown: {line:?}"
                    );
                }
                assert!(line.top.windows(2).all(|pair| pair[0].1 >= pair[1].1));
            }
        }
    }
    let regions = &lines[2].top;
    assert_eq!(regions.len(), 3, "every region is listed");
}
