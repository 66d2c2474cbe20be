//! Body of tool `echo`: the message back as `{"message": ...}`, like the baselines.

use harness_runtime::{CallContext, ToolError};
use serde::Serialize;

use crate::generated::{Echo, EchoArgs};
use crate::tools::Toolbox;

/// The structured result.
#[derive(Debug, Serialize)]
pub struct Echoed {
    message: String,
}

impl Echoed {
    /// `{"message": message}`.
    pub(crate) fn new(message: String) -> Self {
        Self { message }
    }
}

impl Echo for Toolbox {
    type Output = Echoed;

    async fn echo(&self, args: EchoArgs, _ctx: CallContext) -> Result<Echoed, ToolError> {
        Ok(Echoed::new(args.message))
    }
}
