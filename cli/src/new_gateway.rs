//! `harness-codegen new DIR --upstream -- COMMAND...` and `--upstream-url URL`: a gateway
//! project from a server's launch line in one command. The project is written beside DIR,
//! the upstream's tools are imported into it (least privilege unless told otherwise), and only
//! an import that succeeds moves it to DIR: a server that fails to start leaves nothing
//! behind but its error.

use std::path::{Path, PathBuf};

use harness_codegen::import::{ImportRequest, Selection};
use harness_codegen::new_project::{Launch, Source, UpstreamLaunch, create_gateway};

/// The upstream a new project fronts, when `new` makes a gateway.
#[derive(Debug, clap::Args)]
pub(crate) struct UpstreamArgs {
    /// Make a gateway in front of the MCP server that the command after `--` starts on stdio
    /// (`new my-gateway --upstream -- npx -y @modelcontextprotocol/server-filesystem /data`).
    #[arg(long, requires = "launch", conflicts_with = "upstream_url")]
    upstream: bool,
    /// The server's launch line, after `--`.
    #[arg(last = true, value_name = "COMMAND", requires = "upstream")]
    launch: Vec<String>,
    /// Make a gateway in front of the MCP server at this streamable HTTP URL.
    #[arg(long, value_name = "URL")]
    upstream_url: Option<String>,
    /// A header the gateway sends the URL upstream, its value read from a variable at run time
    /// (`Authorization=UPSTREAM_TOKEN`); repeatable.
    #[arg(
        long = "upstream-header",
        value_name = "HEADER=VARIABLE",
        requires = "upstream_url"
    )]
    headers: Vec<String>,
    /// A variable the launched server gets from the gateway's environment, by name; repeatable
    /// (it gets `PATH` and nothing else otherwise).
    #[arg(long = "upstream-env", value_name = "VARIABLE", requires = "upstream")]
    env: Vec<String>,
    /// The launched server's working directory (made absolute).
    #[arg(long = "upstream-cwd", value_name = "DIR", requires = "upstream")]
    cwd: Option<PathBuf>,
    /// The upstream's name in the manifest (by default, from the launch line or the URL).
    #[arg(long = "upstream-name", value_name = "NAME")]
    name: Option<String>,
    /// Pin these tools of the upstream (comma-separated) rather than its read-only ones.
    #[arg(long, value_delimiter = ',', conflicts_with = "all")]
    tools: Option<Vec<String>>,
    /// Pin every tool of the upstream, write tools included.
    #[arg(long)]
    all: bool,
}

impl UpstreamArgs {
    /// The upstream to front, when these arguments ask for a gateway.
    fn upstream(&self) -> Result<Option<UpstreamLaunch>, String> {
        let launch = match (&self.upstream_url, self.launch.split_first()) {
            (Some(url), _) => Launch::Url {
                url: url.clone(),
                headers: self
                    .headers
                    .iter()
                    .map(|pair| {
                        pair.split_once('=')
                            .map(|(header, variable)| (header.to_owned(), variable.to_owned()))
                            .ok_or_else(|| {
                                format!("error: --upstream-header {pair:?}: write HEADER=VARIABLE, the variable holding the value")
                            })
                    })
                    .collect::<Result<_, _>>()?,
            },
            (None, Some((program, args))) => Launch::Command {
                program: program.clone(),
                args: args.to_vec(),
                cwd: self
                    .cwd
                    .as_deref()
                    .map(|cwd| {
                        std::path::absolute(cwd)
                            .map(|cwd| cwd.display().to_string())
                            .map_err(|error| format!("error: --upstream-cwd {}: {error}", cwd.display()))
                    })
                    .transpose()?,
                env: self.env.clone(),
            },
            (None, None) => return Ok(None),
        };
        let mut upstream = UpstreamLaunch::named_from(launch);
        if let Some(name) = &self.name {
            upstream.name.clone_from(name);
        }
        Ok(Some(upstream))
    }

    fn selection(&self) -> Selection {
        Selection::from_flags(self.tools.clone(), self.all)
    }
}

/// Makes the gateway project in `dir` when `args` ask for one; `false` when they do not.
pub(crate) fn create(dir: &Path, source: &Source, args: &UpstreamArgs) -> Result<bool, String> {
    let Some(upstream) = args.upstream()? else {
        if args.tools.is_some() || args.all {
            return Err("error: --tools and --all choose an upstream's tools: add --upstream -- COMMAND... or --upstream-url URL".to_owned());
        }
        return Ok(false);
    };
    let (outer, staging) = staging_dirs(dir)?;
    let made = (|| {
        create_gateway(&staging, source, &upstream).map_err(|error| format!("error: {error}"))?;
        let request = ImportRequest {
            tools: args.selection(),
            ..ImportRequest::new(staging.join("harness.toml"), &upstream.name)
        };
        let report = harness_codegen::import::import(&request)
            .map_err(|error| format!("error: the upstream's tools could not be read: {error}"))?;
        // Said of the project where it will be, not where it is staged.
        print!(
            "{}",
            report
                .to_string()
                .replace(&staging.display().to_string(), &dir.display().to_string())
        );
        if report.needs_attention() {
            return Err(
                "error: the import needs your attention: see the lines marked `!` above".to_owned(),
            );
        }
        // The project is `dir`, not where it was staged.
        if std::fs::read_dir(dir).is_ok() {
            std::fs::remove_dir(dir)
                .map_err(|error| format!("error: {}: {error}", dir.display()))?;
        }
        std::fs::rename(&staging, dir).map_err(|error| {
            format!(
                "error: cannot move the project to {}: {error}",
                dir.display()
            )
        })
    })();
    let _ = std::fs::remove_dir_all(&outer);
    made?;
    println!(
        "\ncreated {dir}: a gateway in front of `{name}`\n\nNext:\n  cd {dir}\n  cargo run -- tools    # what the gateway serves, and the guards on each\n  cargo run -- serve    # MCP on http://127.0.0.1:8765/mcp",
        dir = dir.display(),
        name = upstream.name
    );
    Ok(true)
}

/// A fresh directory beside `dir` (`.NAME.new-PID`) and, inside it, the project's staging
/// directory named as `dir` is, so the package name is `dir`'s. `dir` itself must be absent
/// or empty, as for any new project.
fn staging_dirs(dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(format!(
            "error: {} exists and is not empty; `new` never overwrites a file",
            dir.display()
        ));
    }
    let name = dir
        .file_name()
        .ok_or_else(|| format!("error: {} names no directory", dir.display()))?;
    let parent = dir
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let outer = parent.join(format!(
        ".{}.new-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::create_dir_all(&outer)
        .map_err(|error| format!("error: cannot create {}: {error}", outer.display()))?;
    let inner = outer.join(name);
    Ok((outer, inner))
}
