//! Byte spans of the keys and values of a parsed manifest, looked up by path, so the
//! model can report errors without carrying spans in every field.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::manifest_path::{ManifestPath, Segment, Target};

/// The spanned TOML tree of one manifest.
pub(crate) struct SourceMap<'i> {
    root: Spanned<DeTable<'i>>,
}

enum Node<'a, 'i> {
    Table(&'a DeTable<'i>),
    Array(&'a [Spanned<DeValue<'i>>]),
    Scalar,
}

impl<'a, 'i> Node<'a, 'i> {
    fn of(value: &'a DeValue<'i>) -> Self {
        match value {
            DeValue::Table(table) => Node::Table(table),
            DeValue::Array(array) => Node::Array(array),
            _ => Node::Scalar,
        }
    }
}

impl<'i> SourceMap<'i> {
    pub(crate) fn new(root: Spanned<DeTable<'i>>) -> Self {
        Self { root }
    }

    /// The span of the key or value at `path`; falls back to the nearest enclosing item
    /// that exists (a missing key points at the table that should hold it).
    pub(crate) fn locate(&self, path: &ManifestPath, target: Target) -> Option<Range<usize>> {
        let mut node = Node::Table(self.root.get_ref());
        let mut best = self.root.span();
        let last = path.segments().len().saturating_sub(1);
        for (position, segment) in path.segments().iter().enumerate() {
            let found = match (segment, node) {
                (Segment::Key(key), Node::Table(table)) => table
                    .get_key_value(key.as_str())
                    .map(|(key, value)| (Some(key.span()), value)),
                (Segment::Index(index), Node::Array(items)) => {
                    items.get(*index).map(|value| (None, value))
                }
                _ => None,
            };
            let Some((key_span, value)) = found else {
                break;
            };
            if position == last
                && target == Target::Key
                && let Some(span) = key_span
            {
                return Some(span);
            }
            best = value.span();
            node = Node::of(value.get_ref());
        }
        Some(best)
    }
}
