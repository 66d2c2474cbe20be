//! The book's shell commands, checked without running them.
//!
//! Every ```` ```sh ```` block is read as sh reads it (words, quotes, `\` at the end of a
//! line, `#` comments, `&&`, `||`, `;` and `|` between commands, redirections dropped with
//! their target, `VAR=value` before a command), and each command must be one of these:
//!
//! - `harness-codegen ...`: parsed by the command line's own clap definition
//!   (`harness_codegen_cli::command()`), so a subcommand, a flag or a value it would refuse
//!   fails;
//! - `cargo run [--release] [-p PACKAGE] [--bin NAME | --example NAME] [-- ARGS]`: the
//!   package is one of this repository's, the target exists, and ARGS are parsed by the
//!   command line of what runs: `harness-codegen` for `harness-codegen-cli`, the server's
//!   (`harness_runtime::cli::command()`) for a package with a `harness.toml`;
//! - `cargo install --path DIR` or `cargo install PACKAGE`: DIR is a package of this
//!   repository, or PACKAGE is one (nothing is installed);
//! - `cd DIR`, and `./scripts/NAME.sh ...`, an executable script of this repository.
//!
//! A block of other programs (another client's command line, `npx`, `docker`) cannot be
//! checked this cheaply: its info string says `sh,ignore`, and an ignored block with nothing
//! but commands this checker knows is an error, so `ignore` cannot hide a checkable command.
//!
//! An inline code span of the prose that starts with `harness-codegen `, `cargo run` or
//! `./scripts/` is checked by name only, since it is often a fragment
//! (`harness-codegen import NAME`): the subcommand exists and every `--flag` is one of its
//! flags.

use std::path::{Path, PathBuf};

use crate::snippets::Block;

/// The languages of the blocks read as shell.
pub const SHELL_LANGUAGES: &[&str] = &["sh", "bash", "shell"];

/// One command of a block: its words (after any `VAR=value`), and the page line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The line of its first word, on the page.
    pub line: usize,
    /// The program and its arguments, unquoted.
    pub words: Vec<String>,
}

/// What the checker knows of the repository: where it is and its packages.
#[derive(Debug)]
pub struct Repository {
    root: PathBuf,
    /// Each workspace package's name and directory.
    packages: Vec<(String, PathBuf)>,
}

impl Repository {
    /// Reads the workspace's packages from the Cargo.toml files under `root`.
    pub fn load(root: &Path) -> Result<Self, String> {
        let read = |path: &Path| -> Result<toml::Table, String> {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
        };
        let workspace = read(&root.join("Cargo.toml"))?;
        let members = workspace
            .get("workspace")
            .and_then(|w| w.get("members"))
            .and_then(toml::Value::as_array)
            .ok_or("Cargo.toml has no [workspace] members")?;
        let mut dirs = vec![root.to_path_buf()];
        dirs.extend(
            members
                .iter()
                .filter_map(toml::Value::as_str)
                .map(|member| root.join(member)),
        );
        let mut packages = Vec::new();
        for dir in dirs {
            let manifest = read(&dir.join("Cargo.toml"))?;
            if let Some(name) = manifest
                .get("package")
                .and_then(|p| p.get("name"))
                .and_then(toml::Value::as_str)
            {
                packages.push((name.to_owned(), dir));
            }
        }
        Ok(Repository {
            root: root.to_path_buf(),
            packages,
        })
    }

    fn package(&self, name: &str) -> Result<&Path, String> {
        self.packages
            .iter()
            .find(|(package, _)| package == name)
            .map(|(_, dir)| dir.as_path())
            .ok_or_else(|| format!("no package of this repository is named `{name}`"))
    }

    fn package_named(&self, dir: &Path) -> Option<&str> {
        self.packages
            .iter()
            .find(|(_, package)| package == dir)
            .map(|(name, _)| name.as_str())
    }
}

/// The commands of a shell block, with their page lines.
pub fn commands(block: &Block) -> Result<Vec<Command>, String> {
    split(&block.text, block.line + 1)
}

/// Splits shell text whose first line is page line `first_line` into commands.
pub fn split(text: &str, first_line: usize) -> Result<Vec<Command>, String> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word: Option<String> = None;
    let mut line = first_line;
    let mut start = first_line;
    let mut drop_next = false;
    let mut chars = text.chars().peekable();
    // Ends the word being read; a redirection's target is dropped.
    let end_word = |word: &mut Option<String>, words: &mut Vec<String>, drop: &mut bool| {
        if let Some(done) = word.take() {
            if *drop {
                *drop = false;
            } else {
                words.push(done);
            }
        }
    };
    let end_command = |words: &mut Vec<String>, commands: &mut Vec<Command>, start: usize| {
        let assignments = words.iter().take_while(|w| is_assignment(w)).count();
        if words.len() > assignments {
            commands.push(Command {
                line: start,
                words: words.split_off(assignments),
            });
        }
        words.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                if word.is_none() && words.is_empty() {
                    start = line;
                }
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        None => return Err(format!("line {line}: an unclosed {c} quote")),
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => text.push(e),
                            Some('\n') => line += 1,
                            Some(other) => {
                                text.push('\\');
                                text.push(other);
                            }
                            None => return Err(format!("line {line}: an unclosed {c} quote")),
                        },
                        Some(q) => {
                            if q == '\n' {
                                line += 1;
                            }
                            text.push(q);
                        }
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => line += 1,
                Some(other) => {
                    if word.is_none() && words.is_empty() {
                        start = line;
                    }
                    word.get_or_insert_with(String::new).push(other);
                }
                None => {}
            },
            '#' if word.is_none() => {
                while chars.peek().is_some_and(|n| *n != '\n') {
                    chars.next();
                }
            }
            '\n' | ';' | '&' | '|' => {
                end_word(&mut word, &mut words, &mut drop_next);
                end_command(&mut words, &mut commands, start);
                if c == '\n' {
                    line += 1;
                }
            }
            '>' | '<' => {
                // `2>` and `&>` name a file descriptor, not a word.
                if word
                    .as_deref()
                    .is_some_and(|w| w.chars().all(|d| d.is_ascii_digit()))
                {
                    word = None;
                } else {
                    end_word(&mut word, &mut words, &mut drop_next);
                }
                while chars.peek().is_some_and(|n| *n == '>' || *n == '<') {
                    chars.next();
                }
                if chars.peek() == Some(&'&') {
                    chars.next();
                    while chars.peek().is_some_and(char::is_ascii_digit) {
                        chars.next();
                    }
                } else {
                    drop_next = true;
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut words, &mut drop_next),
            c => {
                if word.is_none() && words.is_empty() {
                    start = line;
                }
                word.get_or_insert_with(String::new).push(c);
            }
        }
    }
    end_word(&mut word, &mut words, &mut drop_next);
    end_command(&mut words, &mut commands, start);
    Ok(commands)
}

/// `NAME=value`, a variable set for the command that follows.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Checks every command of a shell block; each error names the page and the line.
pub fn check_block(block: &Block, page: &str, repository: &Repository) -> Vec<String> {
    let commands = match commands(block) {
        Ok(commands) => commands,
        Err(error) => return vec![format!("{page}:{}: {error}", block.line)],
    };
    if block.attributes.iter().any(|a| a == "ignore") {
        if !commands.is_empty() && commands.iter().all(|c| is_known(&c.words[0])) {
            return vec![format!(
                "{page}:{}: the block is marked `ignore`, but every command in it can be \
                 checked: drop `ignore`",
                block.line
            )];
        }
        return Vec::new();
    }
    commands
        .iter()
        .filter_map(|command| {
            check_command(&command.words, repository)
                .err()
                .map(|error| format!("{page}:{}: `{}`: {error}", command.line, shown(command)))
        })
        .collect()
}

fn shown(command: &Command) -> String {
    command.words.join(" ")
}

/// Whether the checker knows `program`.
fn is_known(program: &str) -> bool {
    matches!(program, "harness-codegen" | "cargo" | "cd") || is_script(program)
}

fn is_script(program: &str) -> bool {
    program.starts_with("./scripts/") || program.starts_with("scripts/")
}

/// One command, fully: the shapes of the module's rule.
pub fn check_command(words: &[String], repository: &Repository) -> Result<(), String> {
    let program = words[0].as_str();
    match program {
        "harness-codegen" => parse(harness_codegen_cli::command(), words),
        "cargo" => match words.get(1).map(String::as_str) {
            Some("run") => {
                let run = cargo_run(&words[2..], repository)?;
                match run.program {
                    Program::Codegen => parse(harness_codegen_cli::command(), &run.arguments),
                    Program::Server => parse(harness_runtime::cli::command(), &run.arguments),
                    Program::Other => Ok(()),
                }
            }
            Some("install") => cargo_install(&words[2..], repository),
            other => Err(format!(
                "`cargo {}` is not a command this checker knows (run, install); mark the \
                 block `sh,ignore` or teach docs/check/shell.rs",
                other.unwrap_or("")
            )),
        },
        "cd" => Ok(()),
        script if is_script(script) => check_script(script, repository),
        other => Err(format!(
            "`{other}` is not a program this checker knows; mark the block `sh,ignore` when \
             it cannot be checked without running it"
        )),
    }
}

/// `words` as clap parses them, the program's name first; `--help` and `--version` pass.
fn parse(command: clap::Command, words: &[String]) -> Result<(), String> {
    match command.try_get_matches_from(words) {
        Ok(_) => Ok(()),
        Err(error)
            if matches!(
                error.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            Ok(())
        }
        Err(error) => Err(clap_message(&error)),
    }
}

/// clap's message on one line, without the usage it appends.
fn clap_message(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    rendered
        .lines()
        .take_while(|line| !line.starts_with("Usage:"))
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What `cargo run` starts.
enum Program {
    /// `harness-codegen`.
    Codegen,
    /// A generated server: the command line every server shares.
    Server,
    /// An example or a binary of its own; its arguments are not checked.
    Other,
}

struct Run {
    program: Program,
    /// The program's name, then the arguments after `--`.
    arguments: Vec<String>,
}

/// `cargo run`'s own flags (the ones the book uses), the package and its target.
fn cargo_run(words: &[String], repository: &Repository) -> Result<Run, String> {
    let mut package = None;
    let mut target: Option<(&str, &str)> = None;
    let mut rest = words.iter();
    let mut arguments = Vec::new();
    while let Some(word) = rest.next() {
        let mut value = || {
            rest.next()
                .map(String::as_str)
                .ok_or_else(|| format!("`{word}` needs a value"))
        };
        match word.as_str() {
            "--" => {
                arguments.extend(rest.by_ref().cloned());
                break;
            }
            "--release" | "--locked" | "--offline" | "-q" | "--quiet" => {}
            "-p" | "--package" => package = Some(value()?),
            "--features" | "-F" => {
                value()?;
            }
            "--bin" => target = Some(("bin", value()?)),
            "--example" => target = Some(("example", value()?)),
            other => {
                return Err(format!(
                    "`{other}` is not a `cargo run` flag this checker knows (--release, -p, \
                     --bin, --example, --features, --locked)"
                ));
            }
        }
    }
    let dir = match package {
        Some(name) => repository.package(name)?.to_path_buf(),
        None => repository.root.clone(),
    };
    let name = repository.package_named(&dir).unwrap_or("?").to_owned();
    if let Some((kind, target)) = target {
        let folder = if kind == "bin" { "src/bin" } else { "examples" };
        let file = dir.join(folder).join(format!("{target}.rs"));
        let main = dir.join(folder).join(target).join("main.rs");
        if !file.exists() && !main.exists() {
            return Err(format!("package `{name}` has no {kind} `{target}`"));
        }
        return Ok(Run {
            program: Program::Other,
            arguments,
        });
    }
    let (program, shown) = if name == "harness-codegen-cli" {
        (Program::Codegen, "harness-codegen")
    } else if dir.join("harness.toml").exists() {
        (Program::Server, "SERVER")
    } else {
        return Err(format!(
            "package `{name}` is neither a server (no harness.toml) nor harness-codegen-cli"
        ));
    };
    arguments.insert(0, shown.to_owned());
    Ok(Run { program, arguments })
}

/// `cargo install`: a package of this repository, by path or by name.
fn cargo_install(words: &[String], repository: &Repository) -> Result<(), String> {
    let mut rest = words.iter();
    let mut named = false;
    while let Some(word) = rest.next() {
        match word.as_str() {
            "--locked" | "--debug" | "--force" | "-f" => {}
            "--path" => {
                let path = rest.next().ok_or("`--path` needs a value")?;
                let dir = repository.root.join(path);
                repository.package_named(&dir).ok_or_else(|| {
                    format!("`{path}` is not the directory of a package of this repository")
                })?;
                named = true;
            }
            "--version" | "--features" | "-F" => {
                rest.next()
                    .ok_or_else(|| format!("`{word}` needs a value"))?;
            }
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "`{flag}` is not a `cargo install` flag this checker knows"
                ));
            }
            name => {
                repository.package(name)?;
                named = true;
            }
        }
    }
    if named {
        Ok(())
    } else {
        Err("`cargo install` names no package (--path DIR or a name)".to_owned())
    }
}

fn check_script(script: &str, repository: &Repository) -> Result<(), String> {
    let path = repository.root.join(script.trim_start_matches("./"));
    let metadata = std::fs::metadata(&path).map_err(|_| format!("{script} does not exist"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err(format!("{script} is not executable"));
        }
    }
    #[cfg(not(unix))]
    let _ = metadata;
    Ok(())
}

/// An inline code span of the prose, if it is a command this checker reads: its subcommand
/// and flags by name only. `None` for a span that is not one.
pub fn check_inline(span: &str, repository: &Repository) -> Option<Result<(), String>> {
    let words = match split(span, 1) {
        Ok(commands) if commands.len() == 1 => commands.into_iter().next()?.words,
        _ => return None,
    };
    match words[0].as_str() {
        "harness-codegen" if words.len() > 1 => {
            Some(names(&harness_codegen_cli::command(), &words[1..]))
        }
        "cargo" if words.get(1).is_some_and(|w| w == "run") => Some(
            cargo_run(&words[2..], repository).and_then(|run| match run.program {
                Program::Codegen => names(&harness_codegen_cli::command(), &run.arguments[1..]),
                Program::Server => names(&harness_runtime::cli::command(), &run.arguments[1..]),
                Program::Other => Ok(()),
            }),
        ),
        // `scripts/x.py` in prose is a path (tests/paths.rs checks it); `./scripts/x.sh` is run.
        script if script.starts_with("./scripts/") => Some(check_script(script, repository)),
        _ => None,
    }
}

/// The subcommand `words` starts with exists, and each flag after it is one of its flags.
fn names(command: &clap::Command, words: &[String]) -> Result<(), String> {
    let Some(first) = words.first() else {
        return Ok(());
    };
    let global = |flag: &str| matches!(flag, "--help" | "-h" | "--version" | "-V");
    if first.starts_with('-') {
        return if global(first) {
            Ok(())
        } else {
            Err(format!(
                "`{first}` is not a flag of `{}`",
                command.get_name()
            ))
        };
    }
    let sub = command.find_subcommand(first).ok_or_else(|| {
        let known: Vec<&str> = command
            .get_subcommands()
            .map(clap::Command::get_name)
            .collect();
        format!(
            "`{first}` is not a subcommand of `{}` (one of {})",
            command.get_name(),
            known.join(", ")
        )
    })?;
    for word in words[1..].iter().take_while(|w| *w != "--") {
        if !word.starts_with('-') || word == "-" || global(word) {
            continue;
        }
        let known = match word.strip_prefix("--") {
            Some(long) => {
                let long = long.split('=').next().unwrap_or(long);
                sub.get_arguments().any(|a| a.get_long() == Some(long))
            }
            None => word[1..]
                .chars()
                .all(|short| sub.get_arguments().any(|a| a.get_short() == Some(short))),
        };
        if !known {
            return Err(format!("`{word}` is not a flag of `{first}`"));
        }
    }
    Ok(())
}
