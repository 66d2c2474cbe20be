//! `docs/src/reference/cli.md`, from the clap definitions of the two command lines: the one
//! every generated server shares (`harness_runtime::cli::command()`) and `harness-codegen`
//! (`harness_codegen_cli::command()`). Walked here rather than through a crate such as
//! clap-markdown, so the page has this book's form (a table of options per command) and
//! nothing but clap itself to keep up with.

use std::fmt::Write as _;

use crate::reference::{GENERATED, cell, escape};

/// The whole page.
pub fn cli_page() -> String {
    let mut out = format!(
        "{GENERATED}\n\n# CLI reference\n\nTwo command lines: the one every generated server \
         shares (here `SERVER` is the server's binary, or `cargo run --`), and \
         `harness-codegen`, which checks a manifest and writes stubs and projects even when \
         the server does not compile. Both answer `--help` and `--version`.\n"
    );
    out.push_str("\n## The server: `SERVER`\n");
    commands(&mut out, &harness_runtime::cli::command(), "SERVER");
    out.push_str("\n## `harness-codegen`\n");
    commands(&mut out, &harness_codegen_cli::command(), "harness-codegen");
    out
}

/// One section per subcommand of `command`, in clap's order.
fn commands(out: &mut String, command: &clap::Command, name: &str) {
    if let Some(about) = command.get_about() {
        write!(out, "\n{}\n", escape(&one_line(&about.to_string()))).expect("a string");
    }
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let path = format!("{name} {}", sub.get_name());
        let positionals: Vec<String> = sub
            .get_positionals()
            .filter(|a| !a.is_hide_set())
            .map(|a| {
                let value = value_name(a);
                if a.is_required_set() {
                    value
                } else {
                    format!("[{value}]")
                }
            })
            .collect();
        let mut usage = path.clone();
        if sub
            .get_arguments()
            .any(|a| !a.is_positional() && !a.is_hide_set())
        {
            usage.push_str(" [OPTIONS]");
        }
        for positional in &positionals {
            write!(usage, " {positional}").expect("a string");
        }
        write!(out, "\n### `{path}`\n\n").expect("a string");
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            write!(out, "{}\n\n", escape(&paragraph(&about.to_string()))).expect("a string");
        }
        write!(out, "```text\n{usage}\n```\n").expect("a string");
        let arguments: Vec<&clap::Arg> = sub.get_arguments().filter(|a| !a.is_hide_set()).collect();
        if arguments.is_empty() {
            continue;
        }
        out.push_str("\n| argument | default | description |\n|---|---|---|\n");
        for argument in arguments {
            let spelling = spelling(argument);
            let default = argument
                .get_default_values()
                .iter()
                .map(|v| format!("`{}`", v.to_string_lossy()))
                .collect::<Vec<_>>()
                .join(", ");
            let mut help = argument
                .get_long_help()
                .or(argument.get_help())
                .map(|h| one_line(&h.to_string()))
                .unwrap_or_default();
            let values: Vec<String> = argument
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| format!("`{}`", v.get_name()))
                .collect();
            if argument.get_action().takes_values() && !values.is_empty() {
                if !help.is_empty() && !help.ends_with('.') {
                    help.push('.');
                }
                write!(help, " One of {}.", values.join(", ")).expect("a string");
            }
            writeln!(out, "| {spelling} | {default} | {} |", cell(&help)).expect("a string");
        }
    }
}

/// How an argument is written: `--name VALUE`, `-s, --name`, or `NAME` for a positional.
fn spelling(argument: &clap::Arg) -> String {
    if argument.is_positional() {
        return format!("`{}`", value_name(argument));
    }
    let mut names = Vec::new();
    if let Some(short) = argument.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = argument.get_long() {
        names.push(format!("--{long}"));
    }
    let takes_value = argument.get_action().takes_values();
    let mut spelled = names.join(", ");
    if takes_value {
        write!(spelled, " {}", value_name(argument)).expect("a string");
    }
    format!("`{spelled}`")
}

/// The value's name: clap's, or the argument's id in capitals.
fn value_name(argument: &clap::Arg) -> String {
    argument
        .get_value_names()
        .and_then(|names| names.first())
        .map(ToString::to_string)
        .unwrap_or_else(|| argument.get_id().as_str().to_uppercase())
}

/// Text on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text as paragraphs: blank lines kept, lines within a paragraph joined.
fn paragraph(text: &str) -> String {
    text.split("\n\n")
        .map(one_line)
        .collect::<Vec<_>>()
        .join("\n\n")
}
