//! Reading manifest text: TOML syntax errors, the serde mirror, and the unknown keys collected
//! on the way rather than refused one at a time.

use toml::de::DeTable;

use crate::diagnostics::Diagnostic;
use crate::manifest::document::Manifest;
use crate::manifest::unknown_keys::unknown_key;
use crate::source::SourceMap;

/// A parsed manifest together with the spans needed to report errors in it, and the
/// unknown keys found (errors, but the rest of the manifest can still be checked).
pub struct Parsed<'i> {
    pub(crate) manifest: Manifest,
    pub(crate) source_map: SourceMap<'i>,
    pub(crate) unknown_keys: Vec<Diagnostic>,
}

/// The byte range of the line with the most nesting characters (`.`, `[`, `{`): where a
/// "nested too deeply" error most likely is. `None` only for an empty source.
fn deepest_line(source: &str) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    let mut best: Option<(usize, std::ops::Range<usize>)> = None;
    for line in source.split_inclusive('\n') {
        let depth = line
            .bytes()
            .filter(|b| matches!(b, b'.' | b'[' | b'{'))
            .count();
        let text = line.trim_end_matches(['\n', '\r']);
        if best.as_ref().is_none_or(|(most, _)| depth > *most) {
            best = Some((depth, start..start + text.len().max(1).min(line.len())));
        }
        start += line.len();
    }
    best.map(|(_, span)| span)
}

/// Parses `source`. Unknown keys do not stop the parse (they come back in
/// [`Parsed::unknown_keys`]); syntax and type errors do, and come back with every unknown key
/// found before them and the span map when the TOML itself was readable.
pub(crate) fn parse(source: &str) -> Result<Parsed<'_>, (Option<SourceMap<'_>>, Vec<Diagnostic>)> {
    let (table, syntax_errors) = DeTable::parse_recoverable(source);
    if !syntax_errors.is_empty() {
        let diagnostics = syntax_errors
            .iter()
            .map(|error| {
                // The parser gives no span for a nesting past its recursion limit; point at the
                // line that nests deepest, so every error still has a place.
                let span = error.span().or_else(|| deepest_line(source));
                Diagnostic::at_span(span, format!("invalid TOML: {}", error.message()))
                    .label("here")
                    .help("see https://toml.io for the syntax")
            })
            .collect();
        return Err((None, diagnostics));
    }
    let source_map = SourceMap::new(table.clone());
    let mut unknown = Vec::new();
    let deserializer = toml::de::Deserializer::from(table);
    let result: Result<Manifest, _> = serde_ignored::deserialize(deserializer, |path| {
        unknown.push(unknown_key(&path));
    });
    let mut diagnostics = unknown;
    match result {
        Ok(manifest) => Ok(Parsed {
            manifest,
            source_map,
            unknown_keys: diagnostics,
        }),
        Err(error) => {
            let mut diagnostic = Diagnostic::at_span(error.span(), error.message().to_owned())
                .label("here")
                .help("see harness.schema.json or the manifest reference (docs/src/reference/manifest.md)");
            if let Some(span) = error.span() {
                diagnostic.path = source_map.path_at(span.start);
            }
            diagnostics.push(diagnostic);
            Err((Some(source_map), diagnostics))
        }
    }
}
