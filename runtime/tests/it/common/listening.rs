//! What the generated handler of a manifest with subscribable resources does with the
//! resource list and subscriptions: hands them to the pipeline (served over HTTP by the
//! subscription tests, and as a 2026-07-28 upstream by the gateway's).

use std::sync::Arc;

use harness_runtime::Pipeline;
use harness_runtime::spec::ServerSpec;
use rmcp::ServerHandler;
use rmcp::model::{
    ErrorData, InitializeResult, ListResourcesResult, PaginatedRequestParams, SubscriptionFilter,
};
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext};

/// The pipeline of the server `.1` describes, behind rmcp.
#[derive(Clone)]
pub(crate) struct Listening(pub(crate) Arc<Pipeline>, pub(crate) &'static ServerSpec);

impl ServerHandler for Listening {
    fn get_info(&self) -> InitializeResult {
        self.1.server_info()
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(self.0.catalog().list_resources())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(self.0.subscriptions().accepted_subscriptions(requested))
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        self.0.subscriptions().listen(subscription).await
    }
}
