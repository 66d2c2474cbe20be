//! What the audit says of one run: calls by outcome and their latency, the figures of the
//! run ledger's row (`verify --run-ledger`, see `cli::run_ledger`).

use std::collections::BTreeMap;

use serde::Serialize;

/// What the audit of one run says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunFigures {
    /// Tool calls by outcome.
    pub tool_calls: BTreeMap<String, u64>,
    /// Calls that ended `ok`.
    pub tool_ok: u64,
    /// Calls that ended otherwise (refused, failed, timed out...).
    pub tool_errors: u64,
    /// The calls' `duration_ms`: median, 95th percentile and maximum (nearest rank), `None`
    /// when no call was made.
    pub mcp_latency_ms: Option<Latency>,
}

/// Latency figures of the calls, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Latency {
    /// The median (the lower one of an even count).
    pub median: u64,
    /// The 95th percentile, nearest rank.
    pub p95: u64,
    /// The slowest call.
    pub max: u64,
}

impl RunFigures {
    /// The figures of these calls, each its (outcome, duration in milliseconds).
    pub fn of<'a>(calls: impl IntoIterator<Item = (&'a str, u64)>) -> Self {
        let mut tool_calls = BTreeMap::new();
        let mut durations = Vec::new();
        for (outcome, duration_ms) in calls {
            *tool_calls.entry(outcome.to_owned()).or_insert(0) += 1;
            durations.push(duration_ms);
        }
        let tool_ok = tool_calls.get("ok").copied().unwrap_or(0);
        durations.sort_unstable();
        // Nearest rank: the smallest value with at least `share` of the calls at or below it.
        let rank = |share: f64| {
            let index = ((share * durations.len() as f64).ceil() as usize).max(1) - 1;
            durations[index]
        };
        let mcp_latency_ms = (!durations.is_empty()).then(|| Latency {
            median: rank(0.5),
            p95: rank(0.95),
            max: durations[durations.len() - 1],
        });
        Self {
            tool_calls,
            tool_ok,
            tool_errors: durations.len() as u64 - tool_ok,
            mcp_latency_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_count_outcomes_and_take_nearest_rank_latencies() {
        // Durations 20, 19, ..., 1: nearest-rank median is the 10th smallest, p95 the 19th.
        let figures = RunFigures::of(
            (1..=20)
                .rev()
                .map(|ms| (if ms % 5 == 0 { "rate_limited" } else { "ok" }, ms)),
        );
        assert_eq!(
            figures.tool_calls,
            BTreeMap::from([("ok".to_owned(), 16), ("rate_limited".to_owned(), 4)])
        );
        assert_eq!((figures.tool_ok, figures.tool_errors), (16, 4));
        assert_eq!(
            figures.mcp_latency_ms,
            Some(Latency {
                median: 10,
                p95: 19,
                max: 20
            })
        );
    }

    #[test]
    fn one_call_is_every_percentile_and_no_call_has_no_latency() {
        let one = RunFigures::of([("timeout", 7)]);
        assert_eq!(
            one.mcp_latency_ms,
            Some(Latency {
                median: 7,
                p95: 7,
                max: 7
            })
        );
        assert_eq!((one.tool_ok, one.tool_errors), (0, 1));
        let none = RunFigures::of([]);
        assert_eq!(none.mcp_latency_ms, None);
        assert!(none.tool_calls.is_empty());
    }
}
