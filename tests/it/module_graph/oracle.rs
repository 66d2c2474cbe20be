//! Checks the oracle on inline sources, so a blind resolver cannot pass the real crates.

use std::collections::BTreeMap;
use std::path::Path;

use super::tree::ModuleTree;

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
