//! One server's resource-server state: the issuer, its cached keys, the checks every JWT
//! gets, the introspection client, and the texts every refusal carries.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::{Algorithm, Validation};

use crate::auth::caller::Caller;
use crate::auth::challenge::Rejection;
use crate::auth::introspection::Introspection;
use crate::auth::issuer::Issuer;
use crate::auth::jwks::KeyCache;
use crate::auth::setup_error::AuthSetupError;
use crate::auth::verified::Verified;
use crate::auth::{jwt, resource_metadata};
use crate::http_client;
use crate::spec::AuthSpec;

/// Checks access tokens for one `[auth]` table.
pub struct Authenticator {
    spec: &'static AuthSpec,
    client: reqwest::Client,
    keys: KeyCache,
    validations: Vec<(Algorithm, Validation)>,
    introspection: Option<Introspection>,
    metadata_url: String,
    scope_hint: String,
    verified: Verified,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("issuer", &self.spec.issuer)
            .field("audience", &self.spec.audience)
            .finish_non_exhaustive()
    }
}

impl Authenticator {
    /// The checker of `spec`, with introspection's credentials read from the environment now.
    /// Nothing is fetched yet: the key set comes with the first token.
    pub fn from_spec(spec: &'static AuthSpec) -> Result<Self, AuthSetupError> {
        let client = http_client::client(spec.ca_pem)
            .map_err(|error| AuthSetupError::Client(error.to_string()))?;
        let issuer = Arc::new(Issuer::new(spec.issuer, spec.jwks_uri, client.clone()));
        let introspection = spec
            .introspection
            .as_ref()
            .map(Introspection::from_env)
            .transpose()?;
        Ok(Self {
            spec,
            keys: KeyCache::new(issuer, Duration::from_secs(spec.jwks_refresh_seconds)),
            validations: jwt::validations(spec),
            client,
            introspection,
            metadata_url: resource_metadata::url(spec),
            scope_hint: spec.required_scopes.join(" "),
            verified: Verified::default(),
        })
    }

    /// The manifest's `[auth]`.
    pub fn spec(&self) -> &'static AuthSpec {
        self.spec
    }

    /// The caller `token` names: a JWT checked against the issuer's keys, any other token
    /// introspected when the manifest names an endpoint.
    pub(crate) async fn authenticate(&self, token: &str) -> Result<Arc<Caller>, Rejection> {
        if jwt::looks_like_jwt(token) {
            if let Some(caller) = self.verified.get(token) {
                return Ok(caller);
            }
            let (caller, exp) = jwt::verify(token, &self.keys, &self.validations).await?;
            let caller = Arc::new(caller);
            let until = exp.saturating_add(self.spec.leeway_seconds);
            self.verified.insert(token, Arc::clone(&caller), until);
            return Ok(caller);
        }
        match &self.introspection {
            Some(introspection) => introspection.verify(&self.client, token, self.spec).await,
            None => Err(Rejection::invalid("the token is not a JWT")),
        }
    }

    /// The answer to `rejection`.
    pub(crate) fn refuse(&self, rejection: &Rejection) -> axum::response::Response {
        rejection.response(&self.metadata_url, &self.scope_hint)
    }
}
