//! Where in the manifest something is: the path a diagnostic carries and the source map
//! resolves to a span.

use std::fmt;

/// One step of a path into the manifest: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A key of a table.
    Key(String),
    /// A position in an array.
    Index(usize),
}

/// Where in the manifest a value lives, e.g. `tools[0].arguments[1].default`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestPath(Vec<Segment>);

impl ManifestPath {
    /// The root table.
    pub fn root() -> Self {
        Self::default()
    }

    /// This path extended by a table key.
    pub fn key(&self, key: &str) -> Self {
        let mut segments = self.0.clone();
        segments.push(Segment::Key(key.to_owned()));
        Self(segments)
    }

    /// This path extended by an array index.
    pub fn index(&self, index: usize) -> Self {
        let mut segments = self.0.clone();
        segments.push(Segment::Index(index));
        Self(segments)
    }

    /// The segments, outermost first.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }
}

impl fmt::Display for ManifestPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (position, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if position == 0 => write!(f, "{key}")?,
                Segment::Key(key) => write!(f, ".{key}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// Which part of a `key = value` pair a diagnostic points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The key itself (unknown keys, misplaced keys).
    Key,
    /// The value (wrong values).
    Value,
}
