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

    /// The path of the innermost key or value whose span holds `offset`: where an error the
    /// parser located only by its span is in the manifest.
    pub(crate) fn path_at(&self, offset: usize) -> ManifestPath {
        let mut path = ManifestPath::root();
        let mut node = Node::Table(self.root.get_ref());
        loop {
            // A table or array of tables written with headers (`[[tools]]`) has a span that
            // need not cover its body, so failing an exact hit the nearest one that starts
            // before `offset` holds it.
            let next = match node {
                Node::Table(table) => table
                    .iter()
                    .find(|(key, value)| {
                        key.span().contains(&offset) || value.span().contains(&offset)
                    })
                    .or_else(|| {
                        table
                            .iter()
                            .filter(|(key, value)| {
                                key.span().start <= offset
                                    && !matches!(Node::of(value.get_ref()), Node::Scalar)
                            })
                            .max_by_key(|(key, _)| key.span().start)
                    })
                    .map(|(key, value)| (path.key(key.get_ref()), value)),
                Node::Array(items) => items
                    .iter()
                    .enumerate()
                    .find(|(_, value)| value.span().contains(&offset))
                    .or_else(|| {
                        items
                            .iter()
                            .enumerate()
                            .filter(|(_, value)| value.span().start <= offset)
                            .max_by_key(|(_, value)| value.span().start)
                    })
                    .map(|(index, value)| (path.index(index), value)),
                Node::Scalar => None,
            };
            match next {
                Some((inner, value)) => {
                    path = inner;
                    node = Node::of(value.get_ref());
                }
                None => return path,
            }
        }
    }
}
