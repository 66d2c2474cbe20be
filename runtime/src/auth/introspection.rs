//! RFC 7662 token introspection, for access tokens that are not JWTs: the server asks the
//! issuer's introspection endpoint, authenticating as its own client (HTTP Basic, RFC 7662
//! section 2.1) with credentials from the environment variables the manifest names.

use serde::Deserialize;

use crate::auth::caller::Caller;
use crate::auth::challenge::Rejection;
use crate::auth::issuer::FETCH_TIMEOUT;
use crate::spec::{AuthSpec, IntrospectionSpec};

/// An introspection endpoint and this server's credentials there.
pub(crate) struct Introspection {
    endpoint: &'static str,
    client_id: String,
    client_secret: String,
}

/// A variable the manifest names for introspection is unset or empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[auth] introspection needs the client credentials in ${0}, which is not set (or empty)")]
pub struct MissingCredential(pub &'static str);

/// The part of an introspection answer the resource server reads.
#[derive(Debug, Deserialize)]
struct Answer {
    active: bool,
    sub: Option<String>,
    scope: Option<String>,
    client_id: Option<String>,
    iss: Option<String>,
    #[serde(default)]
    aud: Option<Audience>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Introspection {
    /// The endpoint of `spec`, with the credentials read from the environment now.
    pub(crate) fn from_env(spec: &IntrospectionSpec) -> Result<Self, MissingCredential> {
        let read = |name: &'static str| match std::env::var(name) {
            Ok(value) if !value.is_empty() => Ok(value),
            _ => Err(MissingCredential(name)),
        };
        Ok(Self {
            endpoint: spec.endpoint,
            client_id: read(spec.client_id_env)?,
            client_secret: read(spec.client_secret_env)?,
        })
    }

    /// The caller `token` names, when the issuer says it is active, for this resource, and its
    /// own.
    pub(crate) async fn verify(
        &self,
        client: &reqwest::Client,
        token: &str,
        spec: &AuthSpec,
    ) -> Result<Caller, Rejection> {
        let response = client
            .post(self.endpoint)
            .timeout(FETCH_TIMEOUT)
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await;
        let answer: Answer = match response {
            Ok(response) if response.status().is_success() => match response.json().await {
                Ok(answer) => answer,
                Err(error) => {
                    tracing::warn!(%error, "the introspection answer is not the JSON RFC 7662 describes");
                    return Err(Rejection::unavailable());
                }
            },
            Ok(response) => {
                tracing::warn!(status = %response.status(), "the introspection endpoint refused this server");
                return Err(Rejection::unavailable());
            }
            Err(error) => {
                tracing::warn!(%error, "the introspection endpoint cannot be reached");
                return Err(Rejection::unavailable());
            }
        };
        if !answer.active {
            return Err(Rejection::invalid("the token is not active"));
        }
        if answer.iss.as_deref().is_some_and(|iss| iss != spec.issuer) {
            return Err(Rejection::invalid("the token is from another issuer"));
        }
        let for_us = match &answer.aud {
            None => true,
            Some(Audience::One(aud)) => aud == spec.audience,
            Some(Audience::Many(auds)) => auds.iter().any(|aud| aud == spec.audience),
        };
        if !for_us {
            return Err(Rejection::invalid("the token is for another resource"));
        }
        let scopes = answer
            .scope
            .as_deref()
            .map(|text| text.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        let subject = answer
            .sub
            .or_else(|| answer.client_id.clone())
            .unwrap_or_default();
        Ok(Caller::new(subject, scopes, answer.client_id))
    }
}
