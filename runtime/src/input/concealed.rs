//! The one part of a sealed request state its client must not read: what the gateway carries
//! between a 2026-07-28 upstream's rounds (the upstream's own request state and what it
//! asked, under [`UPSTREAM_ROUND_KEY`]). rmcp's codec signs a state but does not encrypt it
//! (its body is base64url JSON), so this entry is encrypted before it is sealed: with
//! ChaCha20-Poly1305 under a key derived by HKDF-SHA256 from the request-state key, bound as
//! associated data to the same method, name and arguments as the seal, with a random nonce.
//! Replicas sharing the request-state key derive the same key.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::hkdf::{HKDF_SHA256, Salt};
use ring::rand::{SecureRandom, SystemRandom};
use rmcp::model::RequestStateError;
use serde_json::Value;

use crate::input::session::UPSTREAM_ROUND_KEY;
use crate::validate::JsonObject;

/// Domain separation: the derived key serves this purpose only.
const SALT: &[u8] = b"mcp-agent-harness/upstream-round";
const INFO: &[u8] = b"chacha20-poly1305 v1";

/// The key that encrypts the gateway's round.
pub(crate) struct Concealer(LessSafeKey);

impl Concealer {
    /// The key derived from the request-state key `secret`.
    pub(crate) fn new(secret: &[u8]) -> Self {
        let prk = Salt::new(HKDF_SHA256, SALT).extract(secret);
        let info = [INFO];
        let okm = prk
            .expand(&info, &CHACHA20_POLY1305)
            .expect("HKDF-SHA256 gives the 32 bytes ChaCha20-Poly1305 takes");
        Self(LessSafeKey::new(UnboundKey::from(okm)))
    }

    /// `answers` with the gateway's round, if any, replaced by its ciphertext (a string).
    pub(crate) fn conceal(&self, binding: &[u8], answers: &mut JsonObject) {
        if let Some(round) = answers.get_mut(UPSTREAM_ROUND_KEY) {
            *round = Value::String(self.encrypt(binding, round.to_string().into_bytes()));
        }
    }

    /// `answers` with the gateway's round decrypted; a round that does not decrypt under this
    /// key and binding fails as an altered state does.
    pub(crate) fn reveal(
        &self,
        binding: &[u8],
        answers: &mut JsonObject,
    ) -> Result<(), RequestStateError> {
        let Some(round) = answers.get_mut(UPSTREAM_ROUND_KEY) else {
            return Ok(());
        };
        let Value::String(sealed) = round else {
            return Err(RequestStateError::MalformedFormat);
        };
        let plain = self.decrypt(binding, sealed)?;
        *round = serde_json::from_slice(&plain).map_err(|_| RequestStateError::MalformedFormat)?;
        Ok(())
    }

    /// base64url of the nonce, the ciphertext and the tag.
    fn encrypt(&self, binding: &[u8], mut plain: Vec<u8>) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .expect("the operating system's random source");
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(binding),
                &mut plain,
            )
            .expect("a round is far below ChaCha20-Poly1305's length limit");
        let mut sealed = nonce.to_vec();
        sealed.append(&mut plain);
        URL_SAFE_NO_PAD.encode(sealed)
    }

    fn decrypt(&self, binding: &[u8], sealed: &str) -> Result<Vec<u8>, RequestStateError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(sealed)
            .map_err(|_| RequestStateError::InvalidEncoding)?;
        if bytes.len() < NONCE_LEN {
            return Err(RequestStateError::MalformedFormat);
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce)
            .map_err(|_| RequestStateError::MalformedFormat)?;
        let mut in_out = ciphertext.to_vec();
        let plain = self
            .0
            .open_in_place(nonce, Aad::from(binding), &mut in_out)
            .map_err(|_| RequestStateError::IntegrityCheckFailed)?;
        Ok(plain.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn with_round(round: Value) -> JsonObject {
        let mut answers = JsonObject::new();
        answers.insert(UPSTREAM_ROUND_KEY.to_owned(), round);
        answers.insert("other".to_owned(), json!(1));
        answers
    }

    #[test]
    fn the_round_is_unreadable_and_comes_back_whole_for_its_binding_only() {
        let key = Concealer::new(&[7; 32]);
        let round = json!({"state": "upstream-private-state", "asked": {}});
        let mut answers = with_round(round.clone());
        key.conceal(b"tools/call\0ask\0aa", &mut answers);
        let sealed = answers[UPSTREAM_ROUND_KEY].as_str().unwrap().to_owned();
        let bytes = URL_SAFE_NO_PAD.decode(&sealed).unwrap();
        let needle = b"upstream-private-state";
        assert!(!bytes.windows(needle.len()).any(|w| w == needle));
        assert_eq!(answers["other"], 1, "other answers are left as they are");

        let mut opened = answers.clone();
        key.reveal(b"tools/call\0ask\0aa", &mut opened).unwrap();
        assert_eq!(opened, with_round(round));
        for (binding, other_key) in [
            (&b"tools/call\0ask\0bb"[..], Concealer::new(&[7; 32])),
            (&b"tools/call\0ask\0aa"[..], Concealer::new(&[8; 32])),
        ] {
            let mut opened = answers.clone();
            assert!(matches!(
                other_key.reveal(binding, &mut opened),
                Err(RequestStateError::IntegrityCheckFailed)
            ));
        }
        let mut forged = with_round(json!({"state": "forged"}));
        assert!(matches!(
            key.reveal(b"tools/call\0ask\0aa", &mut forged),
            Err(RequestStateError::MalformedFormat)
        ));
    }

    #[test]
    fn two_seals_of_one_round_differ() {
        let key = Concealer::new(&[7; 32]);
        let seal = || {
            let mut answers = with_round(json!({"state": "s"}));
            key.conceal(b"b", &mut answers);
            answers[UPSTREAM_ROUND_KEY].clone()
        };
        assert_ne!(seal(), seal(), "a fresh nonce each time");
    }
}
