//! The paths one module's own code writes: `use` trees, and paths in expressions, types,
//! patterns and macro arguments, minus what only looks like a path.

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

/// Macros whose arguments are code for another crate (the generated server), not this one.
const QUASI_QUOTING: &[&str] = &["quote", "quote_spanned", "parse_quote", "format_ident"];

/// The paths one module's own items write; inline child modules are modules of their own.
#[derive(Default)]
pub(super) struct PathCollector {
    pub(super) paths: Vec<Vec<String>>,
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
