//! The runtime's outbound HTTP client, the one way it reaches another server: the issuer's
//! metadata and keys and the introspection endpoint (`auth/`), and the gateway's streamable
//! HTTP upstreams (`upstream/connect.rs`). reqwest over rustls, configured here rather than by
//! reqwest's own feature choice:
//!
//! - ring is the crypto provider: its C and assembly build with `cc` in seconds, where
//!   aws-lc-rs (reqwest's default) is the heaviest crate of a cold build;
//! - the roots are Mozilla's, compiled in (webpki-roots), so a server trusts the same CAs on
//!   every machine, in the bundle's `FROM scratch` image (which has no `/etc/ssl`) too; a
//!   private CA is named in the manifest (`[auth] ca_file`) and added to them, never picked
//!   up from the host;
//! - redirects are never followed: every endpoint is configured or discovered, and a redirect
//!   could carry an upstream's headers or the introspection credentials to another host.
//!
//! reqwest is built without a provider of its own (`rustls-no-provider`), so a client that
//! does not come from here (rmcp's default one, the OTLP exporter's, a tool body's) needs a
//! process-wide provider: [`install_default_provider`] installs ring, and `serve` calls it
//! before anything else runs.

#[cfg(any(feature = "gateway", feature = "oauth"))]
use std::sync::Arc;

#[cfg(any(feature = "gateway", feature = "oauth"))]
use rustls::pki_types::CertificateDer;
#[cfg(any(feature = "gateway", feature = "oauth"))]
use rustls::pki_types::pem::PemObject;

/// Why the client cannot be built.
#[cfg(any(feature = "gateway", feature = "oauth"))]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ClientError {
    /// The manifest's CA file holds a certificate rustls cannot use as a trust anchor.
    #[error("the CA certificate {index} of the ca_file cannot be trusted: {reason}")]
    BadCa {
        /// Its position in the file, from 1.
        index: usize,
        /// Why.
        reason: String,
    },
    /// The CA file holds no certificate at all.
    #[error("the ca_file holds no PEM certificate")]
    NoCa,
    /// reqwest refused the configuration.
    #[error("the HTTP client cannot be built: {0}")]
    Build(String),
}

/// Makes ring the process-wide rustls provider, unless one is installed already: every
/// reqwest client that is not built here asks for it.
pub(crate) fn install_default_provider() {
    // Err means a provider is already installed (ours or the embedding application's).
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(any(feature = "gateway", feature = "oauth"))]
/// A client trusting Mozilla's roots and the certificates of `extra_ca_pem` (PEM, as the
/// manifest's `ca_file`), following no redirect.
pub(crate) fn client(extra_ca_pem: Option<&str>) -> Result<reqwest::Client, ClientError> {
    install_default_provider();
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(pem) = extra_ca_pem {
        let mut added = 0;
        for (index, cert) in CertificateDer::pem_slice_iter(pem.as_bytes()).enumerate() {
            let bad = |reason: String| ClientError::BadCa {
                index: index + 1,
                reason,
            };
            let cert = cert.map_err(|error| bad(error.to_string()))?;
            roots.add(cert).map_err(|error| bad(error.to_string()))?;
            added += 1;
        }
        if added == 0 {
            return Err(ClientError::NoCa);
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| ClientError::Build(error.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // reqwest is built without HTTP/2.
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| ClientError::Build(error_chain(&error)))
}

#[cfg(any(feature = "gateway", feature = "oauth"))]
/// `error` and every cause below it, `: `-separated: reqwest's own text stops at "error
/// sending request", while the reason (an unknown issuer, a refused connection) is a cause.
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // hyper and reqwest sometimes repeat their cause's text in their own.
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// What a tool body's own reqwest client gets in a server built with a feature that links
    /// reqwest: Cargo unifies the body's reqwest with the runtime's, which has no provider of
    /// its own, so the client cannot be built until the runtime installs ring (as `serve`,
    /// `call` and `embed::router` do first), and then it can. Runs again in a child process of
    /// this test binary, where no other test installed a provider yet.
    #[test]
    fn a_body_client_works_once_the_runtime_installed_its_provider() {
        const CHILD: &str = "HARNESS_TEST_FRESH_PROCESS";
        const NAME: &str =
            "http_client::tests::a_body_client_works_once_the_runtime_installed_its_provider";
        if std::env::var_os(CHILD).is_none() {
            let output = Command::new(std::env::current_exe().expect("the test binary"))
                .args([NAME, "--exact", "--test-threads=1", "--nocapture"])
                .env(CHILD, "1")
                .output()
                .expect("the test binary runs again");
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success() && stdout.contains("test result: ok. 1 passed"),
                "{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            );
            return;
        }
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
        // The oracle: without a provider, reqwest refuses (or panics) to build a client.
        let before = std::panic::catch_unwind(|| reqwest::Client::builder().build().is_ok());
        assert!(
            !matches!(before, Ok(true)),
            "reqwest built a TLS client with no provider: this build gives it one of its own"
        );
        super::install_default_provider();
        reqwest::Client::builder()
            .build()
            .expect("a client built outside the runtime, once ring is installed");
    }
}
