//! The shape of the three library crates, checked from their source: no module circles and no
//! file over 600 lines in `contract/src`, `codegen/src` and `runtime/src`.
//!
//! A module is a file (`mod x;`, `#[path]` honoured) or an inline `mod x { }` block. Module M
//! depends on module T when M's own code names T: a `use` tree, or a path anywhere in its
//! code (expressions, types, patterns, the arguments of macros other than `quote!`), that
//! starts with `crate::`, `super::`, `self::` or the name of one of M's child modules, and
//! whose prefix names T (the deepest module the path goes through: `crate::model::Builder`
//! names `model`, `use super::*` names the parent). A child naming an ancestor is an edge, and
//! so is a parent naming its child; the `mod x;` line itself is not. Every strongly connected
//! component of more than one module is a circle, reported with the paths that close it.
//!
//! The oracle is a parser and a graph walk of its own (syn, no compiler), checked on inline
//! sources by the tests at the end.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

/// Longest source file allowed in a library crate's `src`.
const MAX_LINES: usize = 600;

/// Macros whose arguments are code for another crate (the generated server), not this one.
const QUASI_QUOTING: &[&str] = &["quote", "quote_spanned", "parse_quote", "format_ident"];

#[test]
fn contract_has_no_module_circle() {
    assert_no_circle("contract");
}

#[test]
fn codegen_has_no_module_circle() {
    assert_no_circle("codegen");
}

/// Fails until the runtime restructure of issue 21 lands.
#[test]
fn runtime_has_no_module_circle() {
    assert_no_circle("runtime");
}

#[test]
fn no_file_in_contract_or_codegen_exceeds_600_lines() {
    assert_short_files(&["contract", "codegen"]);
}

/// Fails until the runtime restructure of issue 21 lands.
#[test]
fn no_file_in_runtime_exceeds_600_lines() {
    assert_short_files(&["runtime"]);
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a readable directory").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn assert_short_files(crates: &[&str]) {
    let root = repository();
    let mut offenders = Vec::new();
    for name in crates {
        for file in rust_files(&root.join(name).join("src")) {
            let lines = std::fs::read_to_string(&file)
                .expect("a readable source file")
                .lines()
                .count();
            if lines > MAX_LINES {
                let relative = file.strip_prefix(&root).unwrap_or(&file);
                offenders.push(format!("{}: {lines} lines", relative.display()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files over {MAX_LINES} lines (split them by concern):\n  {}",
        offenders.join("\n  ")
    );
}

/// Parses every crate root under `<name>/src` (lib.rs, main.rs, src/bin/*) and fails with every
/// circle found, and with every source file no root reaches.
fn assert_no_circle(name: &str) {
    let repository = repository();
    let src = repository.join(name).join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|file| src.join(file))
        .filter(|path| path.exists())
        .collect();
    let bin = src.join("bin");
    if bin.is_dir() {
        let is_bin_root = |path: &PathBuf| {
            path.parent() == Some(bin.as_path())
                || (path.ends_with("main.rs") && path.parent().and_then(Path::parent) == Some(&bin))
        };
        roots.extend(rust_files(&bin).into_iter().filter(is_bin_root));
    }
    assert!(!roots.is_empty(), "{name} has no crate root");
    let mut report = String::new();
    let mut reached = BTreeSet::new();
    for root in &roots {
        let label = root
            .strip_prefix(&repository)
            .unwrap_or(root)
            .display()
            .to_string();
        match ModuleTree::load(root, &Disk) {
            Err(problems) => {
                writeln!(report, "{label}: {}", problems.join("; ")).expect("a string");
            }
            Ok(tree) => {
                reached.extend(tree.modules.iter().map(|module| module.file.clone()));
                for circle in tree.circles() {
                    writeln!(report, "{label}: {circle}").expect("a string");
                }
            }
        }
    }
    for file in rust_files(&src) {
        if !reached.contains(&file) {
            let relative = file.strip_prefix(&repository).unwrap_or(&file);
            writeln!(
                report,
                "{}: no crate root declares this file",
                relative.display()
            )
            .expect("a string");
        }
    }
    let report = report.replace(&format!("{}/", repository.display()), "");
    assert!(report.is_empty(), "module circles in {name}:\n{report}");
}

/// Where source files come from: the disk, or a map in the oracle's own tests.
trait Sources {
    fn read(&self, path: &Path) -> Option<String>;
}

struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

impl Sources for BTreeMap<&str, &str> {
    fn read(&self, path: &Path) -> Option<String> {
        self.get(path.to_str()?).map(|text| (*text).to_owned())
    }
}

/// One module: its name (`model::tools`, `crate` for the root), the file its items are in,
/// and its place in the tree.
struct Module {
    name: String,
    file: PathBuf,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    items: Vec<syn::Item>,
}

/// A crate's modules; index 0 is the root.
struct ModuleTree {
    modules: Vec<Module>,
}

/// Where a module's `mod x;` children are looked for.
struct ChildFiles {
    /// `x.rs` and `x/mod.rs` are looked for here.
    dir: PathBuf,
    /// Where `#[path = "..."]` is relative to.
    path_attr_base: PathBuf,
}

impl ModuleTree {
    fn load(root: &Path, sources: &impl Sources) -> Result<Self, Vec<String>> {
        let text = sources
            .read(root)
            .ok_or_else(|| vec![format!("cannot read {}", root.display())])?;
        let file = syn::parse_file(&text).map_err(|e| vec![format!("{}: {e}", root.display())])?;
        let dir = root.parent().expect("a file in a directory").to_path_buf();
        let files = ChildFiles {
            dir: dir.clone(),
            path_attr_base: dir,
        };
        let mut loader = Loader {
            sources,
            modules: Vec::new(),
            problems: Vec::new(),
        };
        loader.add("crate".to_owned(), None, root, file.items, &files);
        if loader.problems.is_empty() {
            Ok(ModuleTree {
                modules: loader.modules,
            })
        } else {
            Err(loader.problems)
        }
    }

    /// The module a path written in `from` names, when it names one of this crate's.
    fn resolve(&self, from: usize, segments: &[String]) -> Option<usize> {
        let (mut at, rest) = match segments.first()?.as_str() {
            "crate" => (0, &segments[1..]),
            "self" => (from, &segments[1..]),
            "super" => {
                let mut at = self.modules[from].parent?;
                let mut rest = &segments[1..];
                while rest.first().is_some_and(|segment| segment == "super") {
                    at = self.modules[at].parent?;
                    rest = &rest[1..];
                }
                (at, rest)
            }
            child if self.modules[from].children.contains_key(child) => (from, segments),
            _ => return None,
        };
        for segment in rest {
            match self.modules[at].children.get(segment) {
                Some(child) => at = *child,
                None => break,
            }
        }
        Some(at)
    }

    /// Every edge M -> T (M != T), with the first path that makes it.
    fn edges(&self) -> BTreeMap<(usize, usize), String> {
        let mut edges = BTreeMap::new();
        for (from, module) in self.modules.iter().enumerate() {
            let mut collector = PathCollector::default();
            for item in &module.items {
                collector.visit_item(item);
            }
            for segments in collector.paths {
                if let Some(to) = self.resolve(from, &segments)
                    && to != from
                {
                    edges.entry((from, to)).or_insert_with(|| {
                        format!("{}: {}", module.file.display(), segments.join("::"))
                    });
                }
            }
        }
        edges
    }

    /// Every strongly connected component of more than one module, as a readable circle
    /// (the shortest one through its first module) and the edges inside it.
    fn circles(&self) -> Vec<String> {
        let edges = self.edges();
        let mut successors: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for (from, to) in edges.keys() {
            successors.entry(*from).or_default().insert(*to);
        }
        let reachable: Vec<BTreeSet<usize>> = (0..self.modules.len())
            .map(|start| {
                let mut seen = BTreeSet::new();
                let mut pending = vec![start];
                while let Some(at) = pending.pop() {
                    for next in successors.get(&at).into_iter().flatten() {
                        if seen.insert(*next) {
                            pending.push(*next);
                        }
                    }
                }
                seen
            })
            .collect();
        let mut assigned = BTreeSet::new();
        let mut circles = Vec::new();
        for start in 0..self.modules.len() {
            if assigned.contains(&start) || !reachable[start].contains(&start) {
                continue;
            }
            let component: BTreeSet<usize> = reachable[start]
                .iter()
                .copied()
                .filter(|other| reachable[*other].contains(&start))
                .collect();
            assigned.extend(component.iter().copied());
            let circle = self.shortest_circle(start, &component, &successors);
            let mut text = circle
                .iter()
                .map(|module| self.modules[*module].name.as_str())
                .collect::<Vec<_>>()
                .join(" -> ");
            for ((from, to), evidence) in &edges {
                if component.contains(from) && component.contains(to) {
                    write!(
                        text,
                        "\n    {} -> {} ({evidence})",
                        self.modules[*from].name, self.modules[*to].name
                    )
                    .expect("a string");
                }
            }
            circles.push(text);
        }
        circles
    }

    fn shortest_circle(
        &self,
        start: usize,
        component: &BTreeSet<usize>,
        successors: &BTreeMap<usize, BTreeSet<usize>>,
    ) -> Vec<usize> {
        let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(at) = queue.pop_front() {
            for next in successors.get(&at).into_iter().flatten() {
                if !component.contains(next) {
                    continue;
                }
                if *next == start {
                    let mut circle = vec![at];
                    let mut back = at;
                    while back != start {
                        back = came_from[&back];
                        circle.push(back);
                    }
                    circle.reverse();
                    circle.push(start);
                    return circle;
                }
                if !came_from.contains_key(next) {
                    came_from.insert(*next, at);
                    queue.push_back(*next);
                }
            }
        }
        unreachable!("a strongly connected module reaches itself")
    }
}

/// Reads a crate's files into its module tree, collecting every file it cannot find or parse.
struct Loader<'s, S> {
    sources: &'s S,
    modules: Vec<Module>,
    problems: Vec<String>,
}

impl<S: Sources> Loader<'_, S> {
    fn add(
        &mut self,
        name: String,
        parent: Option<usize>,
        file: &Path,
        items: Vec<syn::Item>,
        files: &ChildFiles,
    ) -> usize {
        let index = self.modules.len();
        self.modules.push(Module {
            name: name.clone(),
            file: file.to_path_buf(),
            parent,
            children: BTreeMap::new(),
            items: Vec::new(),
        });
        for item in &items {
            let syn::Item::Mod(module) = item else {
                continue;
            };
            let child_name = module.ident.to_string();
            let full_name = if parent.is_none() {
                child_name.clone()
            } else {
                format!("{name}::{child_name}")
            };
            let child = match &module.content {
                Some((_, inner)) => {
                    let nested = ChildFiles {
                        dir: files.dir.join(&child_name),
                        path_attr_base: files.dir.join(&child_name),
                    };
                    self.add(full_name, Some(index), file, inner.clone(), &nested)
                }
                None => match self.file_module(module, &full_name, files) {
                    Some((path, items, nested)) => {
                        self.add(full_name, Some(index), &path, items, &nested)
                    }
                    None => continue,
                },
            };
            self.modules[index].children.insert(child_name, child);
        }
        self.modules[index].items = items;
        index
    }

    /// The file of `mod x;`, its items, and where its own children are.
    fn file_module(
        &mut self,
        module: &syn::ItemMod,
        full_name: &str,
        files: &ChildFiles,
    ) -> Option<(PathBuf, Vec<syn::Item>, ChildFiles)> {
        let name = module.ident.to_string();
        let path_attr = path_attribute(&module.attrs);
        let candidates = match &path_attr {
            Some(path) => vec![files.path_attr_base.join(path)],
            None => vec![
                files.dir.join(format!("{name}.rs")),
                files.dir.join(&name).join("mod.rs"),
            ],
        };
        let Some((path, text)) = candidates
            .iter()
            .find_map(|path| Some((path.clone(), self.sources.read(path)?)))
        else {
            // A module behind `cfg` may have no file on this platform.
            if !module.attrs.iter().any(|attr| attr.path().is_ident("cfg")) {
                self.problems
                    .push(format!("mod {full_name}: none of {candidates:?} exists"));
            }
            return None;
        };
        let parsed = match syn::parse_file(&text) {
            Ok(parsed) => parsed,
            Err(error) => {
                self.problems.push(format!("{}: {error}", path.display()));
                return None;
            }
        };
        // `x.rs` keeps its children in `x/`; `x/mod.rs` and a `#[path]` file in their own
        // directory.
        let own_dir = path.parent().expect("a file in a directory").to_path_buf();
        let dir = if path.ends_with("mod.rs") || path_attr.is_some() {
            own_dir.clone()
        } else {
            own_dir.join(&name)
        };
        let nested = ChildFiles {
            dir,
            path_attr_base: own_dir,
        };
        Some((path, parsed.items, nested))
    }
}

/// `#[path = "..."]`, when given.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        syn::Meta::NameValue(pair) if pair.path.is_ident("path") => match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The paths one module's own items write; inline child modules are modules of their own.
#[derive(Default)]
struct PathCollector {
    paths: Vec<Vec<String>>,
}

impl PathCollector {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) if name.ident == "self" => self.paths.push(prefix.clone()),
            syn::UseTree::Name(syn::UseName { ident })
            | syn::UseTree::Rename(syn::UseRename { ident, .. }) => {
                let mut path = prefix.clone();
                path.push(ident.to_string());
                self.paths.push(path);
            }
            // `use x::*` names `x`.
            syn::UseTree::Glob(_) => self.paths.push(prefix.clone()),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    /// `pub(super)` and `pub(crate)` say who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_none() {
            self.use_tree(&mut Vec::new(), &item.tree);
        }
    }

    /// A path of one segment is a local name (`self`, a variable); paths from `::` are
    /// other crates'.
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() >= 2 {
            self.paths.push(
                path.segments
                    .iter()
                    .map(|segment| segment.ident.to_string())
                    .collect(),
            );
        }
        visit::visit_path(self, path);
    }

    /// The arguments of `format!`, `assert!`, `matches!` and the like are code of this crate
    /// when they parse as expressions; `macro_rules!` bodies and quasi-quotes are not.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        let name = mac
            .path
            .segments
            .last()
            .map(|segment| segment.ident.to_string());
        if name.is_some_and(|name| name == "macro_rules" || QUASI_QUOTING.contains(&name.as_str()))
        {
            return;
        }
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(arguments) = mac.parse_body_with(parser) {
            for argument in &arguments {
                self.visit_expr(argument);
            }
        }
    }
}

/// Checks the oracle on inline sources, so a blind resolver cannot pass the real crates.
mod oracle {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::ModuleTree;

    fn circles(files: &[(&'static str, &'static str)]) -> Vec<String> {
        let sources: BTreeMap<&str, &str> = files.iter().copied().collect();
        let tree = ModuleTree::load(Path::new("src/lib.rs"), &sources).expect("the sources load");
        tree.circles()
            .into_iter()
            .map(|circle| circle.lines().next().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn a_child_naming_its_parent_that_re_exports_it_is_a_circle() {
        let found = circles(&[
            ("src/lib.rs", "pub mod model;"),
            (
                "src/model/mod.rs",
                "mod tools; pub use tools::Tool; pub struct ModelBuilder;",
            ),
            (
                "src/model/tools.rs",
                "use crate::model::ModelBuilder; pub struct Tool;",
            ),
        ]);
        assert_eq!(found, ["model -> model::tools -> model"]);
    }

    #[test]
    fn siblings_naming_each_other_inline_are_a_circle() {
        let found = circles(&[
            ("src/lib.rs", "mod a; mod b;"),
            ("src/a.rs", "pub fn f() { crate::b::g() }"),
            (
                "src/b.rs",
                "pub fn g() { let _: Option<super::a::T> = None; }",
            ),
        ]);
        assert_eq!(found, ["a -> b -> a"]);
    }

    #[test]
    fn use_super_glob_and_macro_arguments_and_inline_modules_count() {
        let found = circles(&[(
            "src/lib.rs",
            "mod outer { pub fn f() { assert!(self::inner::g()); } mod inner { use super::*; } }",
        )]);
        assert_eq!(found, ["outer -> outer::inner -> outer"]);
        let found = circles(&[
            (
                "src/lib.rs",
                "#[path = \"elsewhere/x.rs\"] mod x; fn f() { x::g() }",
            ),
            (
                "src/elsewhere/x.rs",
                "pub fn g() { format!(\"{}\", crate::f()); }",
            ),
        ]);
        assert_eq!(found, ["crate -> x -> crate"]);
    }

    #[test]
    fn names_that_only_look_like_paths_are_not_edges() {
        let found = circles(&[
            ("src/lib.rs", "mod model; pub(crate) fn f() -> u8 { 1 }"),
            (
                "src/model.rs",
                // Visibility, a local named like a module, an absolute path, a quasi-quote, a
                // macro definition, and the `mod` line's own module.
                "mod tools; pub(super) fn g() { let model = 1; let crate_ = ::std::mem::drop(model); } \
                 fn h() { quote!(crate::f()); } macro_rules! m { () => { crate::f() }; }",
            ),
            ("src/model/tools.rs", "pub(in crate::model) fn t() {}"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_graph_that_only_points_downward_has_no_circle() {
        let sources = [
            (
                "src/lib.rs",
                "pub mod model; pub mod emit; pub use model::Model;",
            ),
            (
                "src/model/mod.rs",
                "mod tools; mod builder; pub use tools::Tool; pub struct Model;",
            ),
            (
                "src/model/builder.rs",
                "use crate::model::tools::Tool; pub struct ModelBuilder;",
            ),
            ("src/model/tools.rs", "pub struct Tool;"),
            (
                "src/emit.rs",
                "use crate::model::Model; fn f(_: crate::model::tools::Tool) {}",
            ),
        ];
        assert!(circles(&sources).is_empty());
        let tree = ModuleTree::load(
            Path::new("src/lib.rs"),
            &sources.iter().copied().collect::<BTreeMap<_, _>>(),
        )
        .expect("the sources load");
        let names = |(from, to): (usize, usize)| {
            (
                tree.modules[from].name.clone(),
                tree.modules[to].name.clone(),
            )
        };
        let edges: Vec<(String, String)> = tree.edges().into_keys().map(names).collect();
        let expected = [
            ("crate", "model"),
            ("model", "model::tools"),
            ("model::builder", "model::tools"),
            ("emit", "model"),
            ("emit", "model::tools"),
        ];
        for (from, to) in expected {
            assert!(
                edges.contains(&(from.to_owned(), to.to_owned())),
                "missing {from} -> {to} in {edges:?}"
            );
        }
        assert_eq!(edges.len(), expected.len(), "{edges:?}");
    }
}
