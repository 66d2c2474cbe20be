//! `[tools.task]`: whether a tool's calls become tasks (the tasks extension), how long a task
//! lives, the poll interval clients are told, how many may be alive at once, which of the
//! tool's forms are asked before a task is created, and where its tasks live.

use harness_contract::tasks::{
    DEFAULT_LEASE_MS, DEFAULT_MAX_ALIVE, DEFAULT_POLL_INTERVAL_MS, DEFAULT_TTL_MS, LEASE_RANGE_MS,
    MAX_MAX_ALIVE, MAX_TTL_MS, MIN_TTL_MS, POLL_INTERVAL_RANGE_MS,
};
use harness_contract::{RateLimitBackend, TaskSupport};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest;
use crate::manifest_path::ManifestPath;
use crate::model::forms::FormModel;

/// A tool's tasks, as the manifest states them (a tool that never becomes a task has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPolicy {
    /// `optional` or `required`.
    pub support: TaskSupport,
    /// Milliseconds a task lives from its creation.
    pub ttl_ms: u64,
    /// The poll interval suggested to clients.
    pub poll_interval_ms: u64,
    /// Tasks of the tool alive at once.
    pub max_alive: u32,
    /// The generated types of the forms asked before a task is created, in manifest order.
    pub ask_first: Vec<String>,
    /// Where its tasks live.
    pub store: RateLimitBackend,
    /// How long a task kept in Redis stays alive without its replica renewing it.
    pub lease_ms: u64,
}

/// The task policy of one `[[tools]]` entry at `path` whose forms are `forms`, with
/// `store_backend` (`[rate_limit_store] backend`) where it names no store; `None` without the
/// table or with `support = "forbidden"`. Problems go to `errors`.
pub(crate) fn policy(
    tool: &manifest::Tool,
    path: &ManifestPath,
    forms: &[FormModel],
    store_backend: RateLimitBackend,
    errors: &ErrorSink<'_>,
) -> Option<TaskPolicy> {
    let table = tool.task.as_ref()?;
    let path = path.key("task");
    let range = |key: &str, value: Option<u64>, bounds: std::ops::RangeInclusive<u64>| {
        if let Some(value) = value
            && !bounds.contains(&value)
        {
            errors.report(
                Diagnostic::value(path.key(key), format!("{key} = {value}"))
                    .label("out of range")
                    .help(format!("give {} to {}", bounds.start(), bounds.end())),
            );
        }
    };
    range("ttl_ms", table.ttl_ms, MIN_TTL_MS..=MAX_TTL_MS);
    range(
        "poll_interval_ms",
        table.poll_interval_ms,
        POLL_INTERVAL_RANGE_MS,
    );
    range(
        "max_alive",
        table.max_alive.map(u64::from),
        1..=u64::from(MAX_MAX_ALIVE),
    );
    range("lease_ms", table.lease_ms, LEASE_RANGE_MS);
    let store = table.store.unwrap_or(store_backend);
    if store == RateLimitBackend::Memory && table.lease_ms.is_some() {
        errors.report(
            Diagnostic::key(path.key("lease_ms"), "a lease for tasks kept in memory")
                .label("only tasks kept in Redis have a lease")
                .help("keep the tasks in Redis (`store = \"redis\"`), or remove `lease_ms`"),
        );
    }
    let mut ask_first = Vec::new();
    for (index, key) in table.ask_first.iter().enumerate() {
        match forms.iter().find(|form| &form.key == key) {
            Some(form) if !ask_first.contains(&form.type_name) => {
                ask_first.push(form.type_name.clone())
            }
            Some(_) => errors.report(
                Diagnostic::value(path.key("ask_first").index(index), format!("`{key}` twice"))
                    .label("already asked first")
                    .help("name each form once"),
            ),
            None => errors.report(
                Diagnostic::value(
                    path.key("ask_first").index(index),
                    format!("no form `{key}` on this tool"),
                )
                .label("not a key of `[[tools.forms]]`")
                .help("declare the form in `[[tools.forms]]` of this tool, or remove the key"),
            ),
        }
    }
    if table.support == TaskSupport::Forbidden {
        if !table.ask_first.is_empty() {
            errors.report(
                Diagnostic::key(
                    path.key("ask_first"),
                    "forms asked before a task that never is",
                )
                .label("`support = \"forbidden\"`")
                .help(
                    "make the tool's calls tasks (`optional` or `required`), or remove `ask_first`",
                ),
            );
        }
        return None;
    }
    Some(TaskPolicy {
        support: table.support,
        ttl_ms: table.ttl_ms.unwrap_or(DEFAULT_TTL_MS),
        poll_interval_ms: table.poll_interval_ms.unwrap_or(DEFAULT_POLL_INTERVAL_MS),
        max_alive: table.max_alive.unwrap_or(DEFAULT_MAX_ALIVE),
        ask_first,
        store,
        lease_ms: table.lease_ms.unwrap_or(DEFAULT_LEASE_MS),
    })
}
