//! JWT access tokens (RFC 9068): the signature by one of the issuer's keys, with an algorithm
//! the manifest accepts and the key's family allows, then `iss`, `aud`, `exp` and `nbf`
//! (with the manifest's leeway). `alg: none` does not even parse as a header, and HMAC is
//! never accepted: the keys are public, so "HS256 signed with the public key" would verify.

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::KeyAlgorithm;
use jsonwebtoken::{Algorithm, Validation, decode, decode_header};
use serde::Deserialize;

use crate::auth::caller::Caller;
use crate::auth::challenge::Rejection;
use crate::auth::jwks::{KeyCache, KeyError};
use crate::spec::AuthSpec;

/// The claims a resource server reads (`exp`, `nbf`, `iss` and `aud` are checked by
/// jsonwebtoken's validation).
#[derive(Debug, Deserialize)]
struct Claims {
    sub: Option<String>,
    /// RFC 9068 / RFC 8693: space-separated.
    #[serde(default)]
    scope: Option<String>,
    /// Entra ID and others: `scp`, a space-separated string or an array.
    #[serde(default)]
    scp: Option<ScopeList>,
    client_id: Option<String>,
    azp: Option<String>,
    /// Required by the validation, so always there once it passed.
    #[serde(default)]
    exp: u64,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ScopeList {
    Text(String),
    List(Vec<String>),
}

/// The algorithms of the manifest (codegen checked each name and refused `none` and HS*).
pub(crate) fn algorithms(spec: &AuthSpec) -> Vec<Algorithm> {
    spec.algorithms
        .iter()
        .filter_map(|name| name.parse::<Algorithm>().ok())
        .filter(|algorithm| {
            !matches!(
                algorithm,
                Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
            )
        })
        .collect()
}

/// Whether `token` has the shape of a JWS (three base64url parts): anything else is opaque.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

/// The checks every token gets, one set per accepted algorithm: jsonwebtoken wants every
/// algorithm of a validation in the family of the key, so a token is checked against the
/// set of its own (accepted) algorithm only.
pub(crate) fn validations(spec: &AuthSpec) -> Vec<(Algorithm, Validation)> {
    algorithms(spec)
        .into_iter()
        .map(|algorithm| {
            let mut validation = Validation::new(algorithm);
            validation.leeway = spec.leeway_seconds;
            validation.validate_nbf = true;
            validation.set_issuer(&[spec.issuer]);
            validation.set_audience(&[spec.audience]);
            validation.set_required_spec_claims(&["exp", "iss", "aud"]);
            (algorithm, validation)
        })
        .collect()
}

/// The caller `token` names, when its signature and claims hold, and its `exp`.
pub(crate) async fn verify(
    token: &str,
    keys: &KeyCache,
    validations: &[(Algorithm, Validation)],
) -> Result<(Caller, u64), Rejection> {
    // `none` and names jsonwebtoken does not know fail its header parse as JSON errors: read
    // the name first, to say why.
    if declared_algorithm(token).is_some_and(|alg| {
        !validations
            .iter()
            .any(|(algorithm, _)| alg.parse::<Algorithm>().ok() == Some(*algorithm))
    }) {
        return Err(Rejection::invalid("the token's algorithm is not accepted"));
    }
    let header = decode_header(token).map_err(|error| match error.kind() {
        ErrorKind::InvalidAlgorithmName => {
            Rejection::invalid("the token's algorithm is not accepted")
        }
        _ => Rejection::invalid("the token is not a well-formed JWT"),
    })?;
    let Some((_, validation)) = validations
        .iter()
        .find(|(algorithm, _)| *algorithm == header.alg)
    else {
        return Err(Rejection::invalid("the token's algorithm is not accepted"));
    };
    let key = keys
        .key(header.kid.as_deref())
        .await
        .map_err(|error| match error {
            KeyError::UnknownKid => Rejection::invalid("the token's signing key is unknown"),
            KeyError::Fetch(error) => {
                tracing::warn!(%error, "the issuer's signing keys cannot be fetched");
                Rejection::unavailable()
            }
        })?;
    if let Some(declared) = key.algorithm
        && declared != KeyAlgorithm::from(header.alg)
    {
        return Err(Rejection::invalid("the token's algorithm is not its key's"));
    }
    let data = decode::<Claims>(token, &key.decoding, validation).map_err(|error| {
        Rejection::invalid(match error.kind() {
            ErrorKind::ExpiredSignature => "the token has expired",
            ErrorKind::ImmatureSignature => "the token is not valid yet",
            ErrorKind::InvalidAudience => "the token is for another resource",
            ErrorKind::InvalidIssuer => "the token is from another issuer",
            ErrorKind::InvalidSignature => "the token's signature does not verify",
            ErrorKind::MissingRequiredClaim(_) => "the token lacks a required claim",
            ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key",
            _ => "the token is not valid",
        })
    })?;
    let exp = data.claims.exp;
    Ok((caller_of(data.claims), exp))
}

/// The `alg` a token's header names, if the header is base64url JSON with one.
fn declared_algorithm(token: &str) -> Option<String> {
    use base64::Engine;
    #[derive(Deserialize)]
    struct Named {
        alg: String,
    }
    let header = token.split('.').next()?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header.trim_end_matches('='))
        .ok()?;
    Some(serde_json::from_slice::<Named>(&bytes).ok()?.alg)
}

fn caller_of(claims: Claims) -> Caller {
    let mut scopes: Vec<String> = claims
        .scope
        .as_deref()
        .map(|text| text.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    match claims.scp {
        Some(ScopeList::Text(text)) => scopes.extend(text.split_whitespace().map(str::to_owned)),
        Some(ScopeList::List(list)) => scopes.extend(list),
        None => {}
    }
    let client_id = claims.client_id.or(claims.azp);
    let subject = claims.sub.or_else(|| client_id.clone()).unwrap_or_default();
    Caller::new(subject, scopes, client_id)
}
