//! A crate's module tree, read from its files as rustc finds them (`x.rs`, `x/mod.rs`,
//! `#[path]`, inline `mod x { }`), its edges, and the circles among them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

use super::paths::PathCollector;

/// Where source files come from: the disk, or a map in the oracle's own tests.
pub(super) trait Sources {
    fn read(&self, path: &Path) -> Option<String>;
}

pub(super) struct Disk;

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
pub(super) struct Module {
    pub(super) name: String,
    pub(super) file: PathBuf,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    items: Vec<syn::Item>,
}

/// A crate's modules; index 0 is the root.
pub(super) struct ModuleTree {
    pub(super) modules: Vec<Module>,
}

/// Where a module's `mod x;` children are looked for.
struct ChildFiles {
    /// `x.rs` and `x/mod.rs` are looked for here.
    dir: PathBuf,
    /// Where `#[path = "..."]` is relative to.
    path_attr_base: PathBuf,
}

impl ModuleTree {
    pub(super) fn load(root: &Path, sources: &impl Sources) -> Result<Self, Vec<String>> {
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
    pub(super) fn edges(&self) -> BTreeMap<(usize, usize), String> {
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
    pub(super) fn circles(&self) -> Vec<String> {
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
