//! A write tool's safeguards besides its guards: `confirm` (the user says yes before the body
//! runs) and `idempotency_key` (a repeated key answered with the first call's reply). A
//! `destructiveHint` annotation is a hint to the client and replaces neither.

use harness_contract::RateLimitBackend;
use harness_contract::guards::{
    DEFAULT_IDEMPOTENCY_WINDOW_SECONDS, MAX_IDEMPOTENCY_WINDOW_SECONDS,
};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Manifest};
use crate::manifest_path::ManifestPath;
use crate::model::types::{FieldModel, Presence, TypeModel};

/// A tool's write safeguards, as the manifest states them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WritePolicy {
    /// Ask the user before the body runs.
    pub confirm: bool,
    /// The idempotency key, if the tool has one.
    pub idempotency: Option<IdempotencyModel>,
}

/// `idempotency_key` and its window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyModel {
    /// The required string argument holding the key.
    pub argument: String,
    /// Seconds a key is remembered.
    pub window_seconds: u64,
    /// Where keys live: `[rate_limit_store] backend`.
    pub backend: RateLimitBackend,
}

/// The write safeguards of one `[[tools]]` entry whose arguments are `args` (`None` when they
/// did not pass); problems go to `errors`.
pub(crate) fn policy(
    tool: &manifest::Tool,
    path: &ManifestPath,
    args: Option<&[FieldModel]>,
    backend: RateLimitBackend,
    errors: &ErrorSink<'_>,
) -> WritePolicy {
    let window = tool.idempotency_window_seconds;
    let window_path = path.key("idempotency_window_seconds");
    if let Some(seconds) = window
        && !(1..=MAX_IDEMPOTENCY_WINDOW_SECONDS).contains(&seconds)
    {
        errors.report(
            Diagnostic::value(window_path.clone(), format!("an idempotency window of {seconds} s"))
                .label("out of range")
                .help(format!("give 1 to {MAX_IDEMPOTENCY_WINDOW_SECONDS} seconds (30 days); the default is {DEFAULT_IDEMPOTENCY_WINDOW_SECONDS}, a day")),
        );
    }
    let idempotency = match &tool.idempotency_key {
        None => {
            if window.is_some() {
                errors.report(
                    Diagnostic::key(window_path, "an idempotency window without a key")
                        .label("no `idempotency_key` on this tool")
                        .help(
                            "name the argument holding the key: `idempotency_key = \"request_id\"`",
                        ),
                );
            }
            None
        }
        Some(argument) => args.and_then(|args| {
            check_key_argument(argument, args, &path.key("idempotency_key"), errors)?;
            Some(IdempotencyModel {
                argument: argument.clone(),
                window_seconds: window.unwrap_or(DEFAULT_IDEMPOTENCY_WINDOW_SECONDS),
                backend,
            })
        }),
    };
    WritePolicy {
        confirm: tool.confirm.unwrap_or(false),
        idempotency,
    }
}

/// The key must be a required string: a call without it, or with a number that two clients
/// may spell differently, could not be recognised when repeated.
fn check_key_argument(
    argument: &str,
    args: &[FieldModel],
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<()> {
    let strings: Vec<&str> = args
        .iter()
        .filter(|field| {
            matches!(field.ty, TypeModel::String { .. }) && field.presence == Presence::Required
        })
        .map(|field| field.name.as_str())
        .collect();
    let help = if strings.is_empty() {
        "add a required string argument for the key (e.g. `request_id`) and name it here".to_owned()
    } else {
        format!(
            "the tool's required string arguments: {}",
            strings.join(", ")
        )
    };
    let Some(field) = args.iter().find(|field| field.name == argument) else {
        errors.report(
            Diagnostic::value(
                path.clone(),
                format!("the idempotency key names no argument `{argument}`"),
            )
            .label("not an argument of this tool")
            .help(help),
        );
        return None;
    };
    if !matches!(field.ty, TypeModel::String { .. }) || field.presence != Presence::Required {
        errors.report(
            Diagnostic::value(path.clone(), format!("the idempotency key `{argument}` is not a required string"))
                .label("must be a required string argument")
                .help(format!("a key that may be absent, or a value other than a string, cannot mark a repeated call; {help}")),
        );
        return None;
    }
    Some(())
}

/// A confirmation asked on a 2026-07-28 request is answered in a later request; only a sealed
/// state proves the server asked it for this call, so `confirm` needs the key that seals.
pub(crate) fn check_confirm_key(manifest: &Manifest, errors: &ErrorSink<'_>) {
    if manifest.server.request_state_key_env.is_some() {
        return;
    }
    for (index, tool) in manifest.tools.iter().enumerate() {
        if tool.confirm == Some(true) {
            errors.report(
                Diagnostic::value(
                    ManifestPath::root().key("tools").index(index).key("confirm"),
                    format!("tool `{}` asks for confirmation, but request state is not sealed", tool.name),
                )
                .label("needs `[server] request_state_key_env`")
                .help("a 2026-07-28 client answers the question in its next request, and only a sealed state shows the server asked it for this call: add `request_state_key_env = \"HARNESS_REQUEST_STATE_KEY\"` to [server]"),
            );
        }
    }
}
