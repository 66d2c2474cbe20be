//! The authorization server as the resource server reaches it: its metadata (the key set's
//! location, when the manifest does not name it), found by OpenID Connect discovery
//! (`<issuer>/.well-known/openid-configuration`) or RFC 8414
//! (`/.well-known/oauth-authorization-server<issuer path>`), and its key set.

use std::time::Duration;

use jsonwebtoken::jwk::JwkSet;
use serde::Deserialize;
use tokio::sync::OnceCell;

use crate::http_client::error_chain;

/// How long one fetch from the issuer may take.
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the issuer's metadata or keys could not be had.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    /// The request failed or the answer was not the JSON expected.
    #[error("fetching {url}: {reason}")]
    Http {
        /// What was fetched.
        url: String,
        /// Why it failed.
        reason: String,
    },
    /// Neither discovery document exists, or it names another issuer or no key set.
    #[error("the issuer's metadata {0}")]
    Metadata(String),
}

/// The part of RFC 8414 / OpenID Connect Discovery metadata the resource server reads.
#[derive(Debug, Deserialize)]
struct Metadata {
    issuer: String,
    jwks_uri: Option<String>,
}

/// One authorization server.
pub(crate) struct Issuer {
    issuer: String,
    client: reqwest::Client,
    configured_jwks: Option<String>,
    discovered_jwks: OnceCell<String>,
}

impl Issuer {
    /// The issuer `issuer`, whose key set is at `jwks_uri` or found by discovery.
    pub(crate) fn new(issuer: &str, jwks_uri: Option<&str>, client: reqwest::Client) -> Self {
        Self {
            issuer: issuer.to_owned(),
            client,
            configured_jwks: jwks_uri.map(str::to_owned),
            discovered_jwks: OnceCell::new(),
        }
    }

    /// The issuer's key set, fetched now.
    pub(crate) async fn jwks(&self) -> Result<JwkSet, FetchError> {
        let url = match &self.configured_jwks {
            Some(url) => url.clone(),
            None => self
                .discovered_jwks
                .get_or_try_init(|| self.discover())
                .await?
                .clone(),
        };
        get_json(&self.client, &url).await
    }

    /// The key set's location from the issuer's metadata, which must name this issuer
    /// (RFC 8414 section 3.3: metadata for another issuer is an attack or a mistake).
    async fn discover(&self) -> Result<String, FetchError> {
        let mut failures = Vec::new();
        for url in discovery_urls(&self.issuer) {
            match get_json::<Metadata>(&self.client, &url).await {
                Ok(metadata) if metadata.issuer != self.issuer => {
                    return Err(FetchError::Metadata(format!(
                        "at {url} names the issuer {:?}, not {:?}",
                        metadata.issuer, self.issuer
                    )));
                }
                Ok(metadata) => {
                    return metadata.jwks_uri.ok_or_else(|| {
                        FetchError::Metadata(format!("at {url} names no jwks_uri"))
                    });
                }
                Err(error) => failures.push(error.to_string()),
            }
        }
        Err(FetchError::Metadata(format!(
            "cannot be fetched: {}",
            failures.join("; ")
        )))
    }
}

/// Where an issuer's metadata may be: OpenID Connect's location (appended to the issuer),
/// then RFC 8414's (inserted between the host and the issuer's path).
pub(crate) fn discovery_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let mut urls = vec![format!("{trimmed}/.well-known/openid-configuration")];
    let after_scheme = trimmed.find("://").map_or(0, |at| at + 3);
    let (origin, path) = match trimmed[after_scheme..].find('/') {
        Some(slash) => trimmed.split_at(after_scheme + slash),
        None => (trimmed, ""),
    };
    urls.push(format!(
        "{origin}/.well-known/oauth-authorization-server{path}"
    ));
    urls
}

async fn get_json<T: serde::de::DeserializeOwned>(
    client: &reqwest::Client,
    url: &str,
) -> Result<T, FetchError> {
    let failed = |reason: String| FetchError::Http {
        url: url.to_owned(),
        reason,
    };
    let response = client
        .get(url)
        .timeout(FETCH_TIMEOUT)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|error| failed(error_chain(&error)))?;
    if !response.status().is_success() {
        return Err(failed(format!("status {}", response.status())));
    }
    response
        .json()
        .await
        .map_err(|error| failed(error_chain(&error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oidc_appends_and_rfc_8414_inserts_the_well_known_path() {
        assert_eq!(
            discovery_urls("https://id.example/realms/tools"),
            [
                "https://id.example/realms/tools/.well-known/openid-configuration",
                "https://id.example/.well-known/oauth-authorization-server/realms/tools",
            ]
        );
        assert_eq!(
            discovery_urls("https://id.example/"),
            [
                "https://id.example/.well-known/openid-configuration",
                "https://id.example/.well-known/oauth-authorization-server",
            ]
        );
    }
}
