//! An https server on loopback under a CA a test makes (rcgen): the CA's PEM, which is what a
//! manifest's `ca_file` holds, and a server certificate the CA signed for 127.0.0.1 and
//! localhost.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use rustls::pki_types::PrivateKeyDer;

/// A CA and the server configuration of a certificate it signed.
pub struct Pki {
    /// The CA's certificate, PEM.
    pub ca_pem: &'static str,
    /// A TLS server presenting the signed certificate.
    pub server: Arc<rustls::ServerConfig>,
}

/// A CA named `name`, and a server certificate it signed for 127.0.0.1 and localhost.
pub fn pki(name: &str) -> Pki {
    let ca_key = KeyPair::generate().expect("a CA key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, name);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).expect("the CA signs itself");
    let issuer = rcgen::Issuer::from_params(&ca, &ca_key);
    let server_key = KeyPair::generate().expect("a server key");
    let server_params =
        CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .expect("server parameters");
    let server_cert = server_params
        .signed_by(&server_key, &issuer)
        .expect("the CA signs the server");
    let key = PrivateKeyDer::try_from(server_key.serialize_der()).expect("PKCS#8");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![server_cert.der().clone()], key)
        .expect("a server config");
    Pki {
        ca_pem: Box::leak(ca_cert.pem().into_boxed_str()),
        server: Arc::new(server),
    }
}

/// Serves the router `app` makes for its own origin (`https://127.0.0.1:PORT`) over https on
/// a loopback port, with `server`'s certificate; returns the origin.
pub async fn serve_https(
    server: Arc<rustls::ServerConfig>,
    app: impl FnOnce(&'static str) -> axum::Router,
) -> &'static str {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let port = listener.local_addr().expect("bound").port();
    let origin: &'static str = Box::leak(format!("https://127.0.0.1:{port}").into_boxed_str());
    let app = app(origin);
    let acceptor = tokio_rustls::TlsAcceptor::from(server);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, app) = (acceptor.clone(), app.clone());
            tokio::spawn(async move {
                // A client that distrusts the certificate ends the handshake: nothing to serve.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper_util::service::TowerToHyperService::new(app);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    origin
}
