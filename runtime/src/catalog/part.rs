//! The catalog as one part of a server: borrowed from the pipeline, whose state (the
//! manifest, the audit log) it shares with tool calls; its requests live in the files beside
//! this one.

use crate::pipeline::Pipeline;
use crate::spec::ServerSpec;

/// A server's catalog: `tools/list`, `resources/list`, `resources/templates/list`,
/// `resources/read`, `prompts/list`, `prompts/get` and `completion/complete`, each guarded and
/// audited. Borrowed from [`Pipeline::catalog`], whose state (the manifest, the audit log) it
/// shares with tool calls.
#[derive(Debug, Clone, Copy)]
pub struct Catalog<'a> {
    pub(super) pipeline: &'a Pipeline,
}

impl Pipeline {
    /// This server's catalog. (Defined here, beside [`Catalog`], so that the pipeline names
    /// none of its parts.)
    pub fn catalog(&self) -> Catalog<'_> {
        Catalog { pipeline: self }
    }
}

impl Catalog<'_> {
    /// The server's manifest.
    pub(crate) fn server(&self) -> &'static ServerSpec {
        self.pipeline.server()
    }
}
