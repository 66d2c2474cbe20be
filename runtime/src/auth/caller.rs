//! Who is calling: the identity an accepted access token names. The HTTP auth layer puts one
//! into the request's extensions; the pipeline reads it from there (the log line, the span,
//! the audit record where the manifest opts in, and limits kept per subject).

use std::sync::Arc;

use rmcp::service::{RequestContext, RoleServer};

/// The caller of one request, as its access token names it. Never carries the token itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Caller {
    /// The token's `sub` (for a client-credentials token, usually the client id).
    pub subject: String,
    /// The scopes the token grants (`scope`, space-separated in the token, or `scp`).
    pub scopes: Vec<String>,
    /// The OAuth client the token was issued to (`client_id`, or `azp`), when it says.
    pub client_id: Option<String>,
}

impl Caller {
    /// A caller with this subject, scopes and client id.
    pub fn new(subject: impl Into<String>, scopes: Vec<String>, client_id: Option<String>) -> Self {
        Self {
            subject: subject.into(),
            scopes,
            client_id,
        }
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// The first of `required` the token does not grant.
    pub fn missing_scope<'a>(&self, required: &[&'a str]) -> Option<&'a str> {
        required
            .iter()
            .copied()
            .find(|scope| !self.has_scope(scope))
    }

    /// The caller an HTTP request carries in its extensions (rmcp hands a body the request's
    /// `http::request::Parts`), if the auth layer accepted a token for it.
    pub fn of_request(extensions: &http::Extensions) -> Option<Arc<Caller>> {
        extensions.get::<Arc<Caller>>().cloned()
    }

    /// The caller of the request rmcp hands a handler: streamable HTTP passes the request's
    /// parts (where the auth layer put the caller); the legacy SSE transport puts the caller
    /// itself.
    pub fn of_context(context: &RequestContext<RoleServer>) -> Option<Arc<Caller>> {
        context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| Self::of_request(&parts.extensions))
            .or_else(|| context.extensions.get::<Arc<Caller>>().cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_scope_not_granted_is_named() {
        let caller = Caller::new("svc", vec!["tools:read".into()], Some("svc".into()));
        assert!(caller.has_scope("tools:read"));
        assert_eq!(caller.missing_scope(&["tools:read"]), None);
        assert_eq!(
            caller.missing_scope(&["tools:read", "tools:write"]),
            Some("tools:write")
        );
    }

    #[test]
    fn a_request_without_an_accepted_token_has_no_caller() {
        let mut extensions = http::Extensions::new();
        assert_eq!(Caller::of_request(&extensions), None);
        extensions.insert(Arc::new(Caller::new("svc", Vec::new(), None)));
        assert_eq!(Caller::of_request(&extensions).unwrap().subject, "svc");
    }
}
