//! The generated module as text: prettyplease's layout under the `@generated` header, with a
//! blank line between items, as a person would write it (prettyplease keeps none).

use crate::emit::options::generated_notice;

/// Formats generated tokens into the text of `harness.rs`.
///
/// # Panics
/// If the tokens do not parse as a Rust file, which is a bug in an emitter.
pub fn format_rust(tokens: proc_macro2::TokenStream, manifest_name: &str) -> String {
    let file: syn::File = syn::parse2(tokens).expect("generated Rust parses");
    format!(
        "// {}\n\n{}",
        generated_notice(manifest_name),
        space_out_items(&prettyplease::unparse(&file))
    )
}

/// Inserts a blank line before each item that follows another item, at the top level and
/// inside `impl` and `trait` blocks. Lines inside strings (the pretty JSON schemas) start with
/// JSON punctuation and are never taken for items.
fn space_out_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    let mut previous: Option<&str> = None;
    for line in code.lines() {
        if let Some(before) = previous
            && starts_item(line)
            && ends_item(before, indent(line))
            && !(is_use(line) && is_use(before))
        {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        previous = Some(line);
    }
    out
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_use(line: &str) -> bool {
    let text = line.trim_start();
    text.starts_with("use ") || text.starts_with("pub use ") || text.starts_with("pub(crate) use ")
}

/// True when `line` opens an item (its docs and attributes count as its start) at the top
/// level or one level into a block.
fn starts_item(line: &str) -> bool {
    const OPENERS: &[&str] = &[
        "///",
        "#[",
        "pub ",
        "pub(",
        "fn ",
        "async fn ",
        "impl",
        "struct ",
        "enum ",
        "trait ",
        "const ",
        "static ",
        "type ",
        "use ",
        "mod ",
        "macro_rules!",
    ];
    matches!(indent(line), 0 | 4)
        && OPENERS
            .iter()
            .any(|opener| line.trim_start().starts_with(opener))
}

/// True when `line`, just before an item at `depth`, closes the previous item at that depth.
fn ends_item(line: &str, depth: usize) -> bool {
    let text = line.trim_start();
    let closes = text.starts_with('}') || text.ends_with('}') || text.ends_with(';');
    indent(line) == depth && closes && !text.starts_with("//")
}

#[cfg(test)]
mod tests {
    use super::space_out_items;

    #[test]
    fn items_are_separated_and_their_bodies_and_docs_are_not() {
        let code = "use a::b;\nuse c::d;\n/// Doc.\n#[derive(Debug)]\npub struct S {\n    /// Field.\n    pub x: u8,\n    pub y: u8,\n}\nimpl S {\n    const N: u8 = 1;\n    fn f() {\n        let x = 1;\n        let y = 2;\n    }\n    fn g() {}\n}\npub const X: &str = r#\"{\n}\"#;\n";
        assert_eq!(
            space_out_items(code),
            "use a::b;\nuse c::d;\n\n/// Doc.\n#[derive(Debug)]\npub struct S {\n    /// Field.\n    pub x: u8,\n    pub y: u8,\n}\n\nimpl S {\n    const N: u8 = 1;\n\n    fn f() {\n        let x = 1;\n        let y = 2;\n    }\n\n    fn g() {}\n}\n\npub const X: &str = r#\"{\n}\"#;\n"
        );
    }
}
