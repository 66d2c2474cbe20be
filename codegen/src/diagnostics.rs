//! Manifest errors: collected (never only the first), located by their path in the
//! manifest, and rendered rustc-style with file:line:col, the offending text and a help line.

use std::fmt;
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

pub use crate::manifest_path::{ManifestPath, Segment, Target};
use crate::source::SourceMap;

/// One problem in a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where it is.
    pub path: ManifestPath,
    /// Whether to underline the key or the value.
    pub target: Target,
    /// A byte range in the source, when the error came with one (TOML syntax and type errors).
    pub span: Option<Range<usize>>,
    /// The short label under the underlined text.
    pub label: Option<String>,
    /// How to fix it.
    pub help: Option<String>,
    /// Other places the problem involves, each with its label (the first definition of a
    /// duplicate, the other side of a collision).
    pub related: Vec<(ManifestPath, String)>,
}

impl Diagnostic {
    /// An error about the value at `path`.
    pub fn value(path: ManifestPath, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            path,
            target: Target::Value,
            span: None,
            label: None,
            help: None,
            related: Vec::new(),
        }
    }

    /// An error about the key at `path`.
    pub fn key(path: ManifestPath, message: impl Into<String>) -> Self {
        Self {
            target: Target::Key,
            ..Self::value(path, message)
        }
    }

    /// An error at a known byte range.
    pub fn at_span(span: Option<Range<usize>>, message: impl Into<String>) -> Self {
        Self {
            span,
            ..Self::value(ManifestPath::root(), message)
        }
    }

    /// Adds the label shown under the offending text.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Points also at the value at `path`, labelled (e.g. "first defined here").
    pub fn also_at(mut self, path: ManifestPath, label: impl Into<String>) -> Self {
        self.related.push((path, label.into()));
        self
    }

    /// Adds a help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Every problem found in one manifest, ready to render.
#[derive(Debug, Clone)]
pub struct ManifestErrors {
    file_name: String,
    source: String,
    spans: Vec<Option<Range<usize>>>,
    related_spans: Vec<Vec<(Range<usize>, String)>>,
    diagnostics: Vec<Diagnostic>,
}

impl ManifestErrors {
    pub(crate) fn new(
        file_name: &str,
        source: &str,
        map: Option<&SourceMap<'_>>,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        let mut located: Vec<_> = diagnostics
            .into_iter()
            .map(|diagnostic| {
                let span = diagnostic.span.clone().or_else(|| {
                    map.and_then(|map| map.locate(&diagnostic.path, diagnostic.target))
                });
                let related: Vec<(Range<usize>, String)> = diagnostic
                    .related
                    .iter()
                    .filter_map(|(path, label)| {
                        let span = map?.locate(path, Target::Value)?;
                        Some((span, label.clone()))
                    })
                    .collect();
                (span, related, diagnostic)
            })
            .collect();
        // Manifest order reads best; the sort is stable, so errors at one place keep the
        // order they were found in.
        located.sort_by_key(|(span, ..)| span.as_ref().map_or(usize::MAX, |span| span.start));
        let mut spans = Vec::with_capacity(located.len());
        let mut related_spans = Vec::with_capacity(located.len());
        let mut sorted = Vec::with_capacity(located.len());
        for (span, related, diagnostic) in located {
            spans.push(span);
            related_spans.push(related);
            sorted.push(diagnostic);
        }
        Self {
            file_name: file_name.to_owned(),
            source: source.to_owned(),
            spans,
            related_spans,
            diagnostics: sorted,
        }
    }

    /// The individual problems, in manifest order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// 1-based line and column of each diagnostic, where it could be located.
    pub fn locations(&self) -> Vec<Option<(usize, usize)>> {
        self.spans
            .iter()
            .map(|span| span.as_ref().map(|span| line_col(&self.source, span.start)))
            .collect()
    }

    /// Renders every diagnostic, without colour.
    pub fn render_plain(&self) -> String {
        self.render(&Renderer::plain())
    }

    /// Renders every diagnostic with ANSI colour, for terminals.
    pub fn render_styled(&self) -> String {
        self.render(&Renderer::styled())
    }

    fn render(&self, renderer: &Renderer) -> String {
        let mut out = String::new();
        for ((diagnostic, span), related) in self
            .diagnostics
            .iter()
            .zip(&self.spans)
            .zip(&self.related_spans)
        {
            let title = Level::ERROR.primary_title(diagnostic.message.as_str());
            let mut group = match span {
                Some(span) => {
                    let mut annotation = AnnotationKind::Primary.span(span.clone());
                    if let Some(label) = &diagnostic.label {
                        annotation = annotation.label(label.as_str());
                    }
                    let context = related.iter().map(|(span, label)| {
                        AnnotationKind::Context
                            .span(span.clone())
                            .label(label.as_str())
                    });
                    title.element(
                        Snippet::source(self.source.as_str())
                            .line_start(1)
                            .path(self.file_name.as_str())
                            .annotation(annotation)
                            .annotations(context),
                    )
                }
                None => Group::with_title(title),
            };
            if !diagnostic.path.segments().is_empty() {
                group = group.element(Level::NOTE.message(format!("at `{}`", diagnostic.path)));
            }
            if let Some(help) = &diagnostic.help {
                group = group.element(Level::HELP.message(help.as_str()));
            }
            out.push_str(&renderer.render(&[group]));
            out.push_str("\n\n");
        }
        let count = self.diagnostics.len();
        out.push_str(&format!(
            "error: {} has {count} error{}\n",
            self.file_name,
            if count == 1 { "" } else { "s" }
        ));
        out
    }
}

impl fmt::Display for ManifestErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render_plain())
    }
}

impl std::error::Error for ManifestErrors {}

fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |tail| tail.chars().count())
        + 1;
    (line, column)
}
