//! RFC 7662 token introspection, for access tokens that are not JWTs: the server asks the
//! issuer's introspection endpoint, authenticating as its own client (HTTP Basic, RFC 7662
//! section 2.1) with credentials from the environment variables the manifest names.
//!
//! An active answer is reused for the same token (by its SHA-256, as [`Verified`] keeps
//! JWTs) for `cache_seconds`, never past the token's `exp`: a client sends one token on every
//! call, and asking the issuer each time costs a round trip per call and loads the issuer.
//! The price is that a token revoked at the issuer is still accepted until its answer
//! expires (RFC 7662 section 4 leaves that trade to the resource server). An inactive answer
//! is never kept: the token may be refreshed or reissued with the same text at once, and a
//! refused token costs its sender, not the issuer, the next round trip.

use std::sync::Arc;

use serde::Deserialize;

use crate::auth::caller::Caller;
use crate::auth::challenge::Rejection;
use crate::auth::issuer::FETCH_TIMEOUT;
use crate::auth::setup_error::MissingCredential;
use crate::auth::verified::{Verified, now};
use crate::http_client::error_chain;
use crate::spec::{AuthSpec, IntrospectionSpec};

/// An introspection endpoint and this server's credentials there.
pub(crate) struct Introspection {
    endpoint: &'static str,
    client_id: String,
    client_secret: String,
    cache_seconds: u64,
    /// Active answers, by the token's SHA-256.
    answers: Verified,
}

/// The part of an introspection answer the resource server reads.
#[derive(Debug, Deserialize)]
struct Answer {
    active: bool,
    sub: Option<String>,
    scope: Option<String>,
    client_id: Option<String>,
    iss: Option<String>,
    exp: Option<u64>,
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
            cache_seconds: spec.cache_seconds,
            answers: Verified::default(),
        })
    }

    /// The caller `token` names, when the issuer says it is active, for this resource, and its
    /// own.
    pub(crate) async fn verify(
        &self,
        client: &reqwest::Client,
        token: &str,
        spec: &AuthSpec,
    ) -> Result<Arc<Caller>, Rejection> {
        if let Some(caller) = self.answers.get(token) {
            return Ok(caller);
        }
        let (caller, exp) = self.ask(client, token, spec).await?;
        let caller = Arc::new(caller);
        if let Some(until) = cache_until(now(), exp, self.cache_seconds) {
            self.answers.insert(token, Arc::clone(&caller), until);
        }
        Ok(caller)
    }

    /// The endpoint's answer for `token`, checked, and the token's `exp` when it says one.
    async fn ask(
        &self,
        client: &reqwest::Client,
        token: &str,
        spec: &AuthSpec,
    ) -> Result<(Caller, Option<u64>), Rejection> {
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
                let error = error_chain(&error);
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
        Ok((Caller::new(subject, scopes, answer.client_id), answer.exp))
    }
}

/// The last second (since the epoch) an active answer given at `now` may be reused: before
/// `exp`, and at most `cache_seconds` on; `None` when it may not be kept at all.
fn cache_until(now: u64, exp: Option<u64>, cache_seconds: u64) -> Option<u64> {
    let bound = now.checked_add(cache_seconds)?;
    let until = match exp {
        // `exp` is the first second the token is invalid.
        Some(exp) => bound.min(exp.checked_sub(1)?),
        None => bound,
    };
    (cache_seconds > 0 && until >= now).then_some(until)
}

#[cfg(test)]
#[path = "introspection_tests.rs"]
mod tests;
