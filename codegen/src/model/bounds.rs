//! The scalar types' constraints: lengths and bounds that some value can satisfy, patterns
//! that compile, and the Rust integer type that fits an integer's range.

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Number;
use crate::manifest_path::ManifestPath;
use crate::model::constraints::Constraints;
use crate::model::types::{IntRepr, TypeModel};

/// A string with its lengths and pattern, or `None` after reporting why not.
pub(crate) fn string_type(
    constraints: &Constraints<'_>,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<TypeModel> {
    let errors = errors.child();
    check_order(
        Limit {
            key: "min_length",
            value: constraints.min_length,
        },
        Limit {
            key: "max_length",
            value: constraints.max_length,
        },
        path,
        &errors,
    );
    if let Some(pattern) = constraints.pattern
        && let Err(error) = regex::Regex::new(pattern)
    {
        let reason = error.to_string();
        let reason = reason.lines().last().unwrap_or("invalid").trim().to_owned();
        errors.report(
                Diagnostic::value(path.key("pattern"), format!("pattern does not compile: {reason}"))
                    .label("invalid regular expression")
                    .help("use the syntax of the `regex` crate, which JSON Schema validators also accept (no look-around or back-references)"),
            );
    }
    errors.unless_failed(TypeModel::String {
        min_length: constraints.min_length,
        max_length: constraints.max_length,
        pattern: constraints.pattern.cloned(),
    })
}

/// A count limit (a length or a number of items) and the key that sets it; the key goes with
/// its value so a caller cannot report one limit under the other's name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limit<'k> {
    /// The manifest key, e.g. `min_length`.
    pub(crate) key: &'k str,
    /// Its value, if the manifest sets it.
    pub(crate) value: Option<u64>,
}

/// Reports a lower limit above its upper limit.
pub(crate) fn check_order(
    low: Limit<'_>,
    high: Limit<'_>,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) {
    if let (Some(low_value), Some(high_value)) = (low.value, high.value)
        && low_value > high_value
    {
        let (low_key, high_key) = (low.key, high.key);
        errors.report(
            Diagnostic::value(
                path.key(low_key),
                format!("{low_key} ({low_value}) is greater than {high_key} ({high_value})"),
            )
            .label("no value can satisfy both")
            .help(format!("make {low_key} <= {high_key}")),
        );
    }
}

/// An integer with its inclusive range (the Rust type's range where the manifest sets none),
/// or `None` after reporting why not.
pub(crate) fn integer_type(
    constraints: &Constraints<'_>,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<TypeModel> {
    let errors = errors.child();
    let integer = |key: &str, bound: Option<Number>| match bound {
        Some(Number::Integer(value)) => Some(value),
        Some(Number::Float(value)) => {
            errors.report(
                Diagnostic::value(
                    path.key(key),
                    format!("{key} of an integer argument must be an integer, not {value:?}"),
                )
                .label("a float")
                .help("write the bound without a fraction, e.g. 10 rather than 10.0"),
            );
            None
        }
        None => None,
    };
    let minimum = integer("minimum", constraints.minimum);
    let maximum = integer("maximum", constraints.maximum);
    let exclusive_minimum = integer("exclusive_minimum", constraints.exclusive_minimum);
    let exclusive_maximum = integer("exclusive_maximum", constraints.exclusive_maximum);
    let low = inclusive_bound(
        minimum,
        exclusive_minimum.map(|v| v.checked_add(1)),
        "minimum",
        path,
        &errors,
    );
    let high = inclusive_bound(
        maximum,
        exclusive_maximum.map(|v| v.checked_sub(1)),
        "maximum",
        path,
        &errors,
    );
    if errors.failed() {
        return None;
    }
    let (low, high) = (low.unwrap_or(i64::MIN), high.unwrap_or(i64::MAX));
    if low > high {
        errors.report(
            Diagnostic::value(
                path.key(if minimum.is_some() {
                    "minimum"
                } else {
                    "exclusive_minimum"
                }),
                format!("the lower bound ({low}) is greater than the upper bound ({high})"),
            )
            .label("no integer can satisfy both")
            .help("make the lower bound <= the upper bound"),
        );
        return None;
    }
    Some(TypeModel::Integer {
        minimum: low,
        maximum: high,
        repr: IntRepr::fitting(low, high),
    })
}

/// One side's inclusive and exclusive integer bound merged into an inclusive bound; the
/// exclusive bound comes already moved inward, `None` inside when that leaves the 64-bit range.
fn inclusive_bound(
    inclusive: Option<i64>,
    exclusive: Option<Option<i64>>,
    side: &str,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<i64> {
    match (inclusive, exclusive) {
        (Some(_), Some(_)) => {
            report_both_bounds(side, path, errors);
            None
        }
        (Some(value), None) | (None, Some(Some(value))) => Some(value),
        (None, Some(None)) => {
            errors.report(
                Diagnostic::value(
                    path.key(&format!("exclusive_{side}")),
                    format!("exclusive_{side} leaves no 64-bit integer"),
                )
                .label("out of range")
                .help("use a bound inside the 64-bit range"),
            );
            None
        }
        (None, None) => None,
    }
}

/// Reports that one side (`minimum` or `maximum`) is bounded both inclusively and exclusively.
fn report_both_bounds(side: &str, path: &ManifestPath, errors: &ErrorSink<'_>) {
    errors.report(
        Diagnostic::key(
            path.key(&format!("exclusive_{side}")),
            format!("both {side} and exclusive_{side} are given"),
        )
        .label("conflicts with the inclusive bound")
        .help(format!("keep one of {side} and exclusive_{side}")),
    );
}

/// A number with its bounds, or `None` after reporting why not.
pub(crate) fn number_type(
    constraints: &Constraints<'_>,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<TypeModel> {
    let errors = errors.child();
    let f = |bound: Option<Number>| bound.map(Number::as_f64);
    let (minimum, maximum) = (f(constraints.minimum), f(constraints.maximum));
    let (exclusive_minimum, exclusive_maximum) = (
        f(constraints.exclusive_minimum),
        f(constraints.exclusive_maximum),
    );
    for (side, inclusive, exclusive) in [
        ("minimum", minimum, exclusive_minimum),
        ("maximum", maximum, exclusive_maximum),
    ] {
        if inclusive.is_some() && exclusive.is_some() {
            report_both_bounds(side, path, &errors);
        }
    }
    let low = minimum
        .map(|v| (v, false))
        .or(exclusive_minimum.map(|v| (v, true)));
    let high = maximum
        .map(|v| (v, false))
        .or(exclusive_maximum.map(|v| (v, true)));
    if let (Some((low, low_open)), Some((high, high_open))) = (low, high)
        && (low > high || (low == high && (low_open || high_open)))
    {
        errors.report(
            Diagnostic::value(
                path.key(if minimum.is_some() {
                    "minimum"
                } else {
                    "exclusive_minimum"
                }),
                format!("the lower bound ({low:?}) does not lie below the upper bound ({high:?})"),
            )
            .label("no number can satisfy both")
            .help("make the lower bound smaller than the upper bound"),
        );
    }
    errors.unless_failed(TypeModel::Number {
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
    })
}
