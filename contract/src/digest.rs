//! The audit's argument digest: the server writes it, the verifier recomputes it from the
//! manifest's checks at build time, so both must produce the same bytes.

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// JSON with object keys sorted and no spaces, as Python's
/// `json.dumps(value, sort_keys=True, separators=(",", ":"))` writes it for plain values.
pub fn canonical_json(value: &Value) -> String {
    serde_json::to_string(&SortedKeys(value)).expect("JSON values serialize")
}

/// Lower-case hex sha256 of the canonical JSON of `value`: the audit record's `args_sha256`.
/// Streams into the hash instead of building the text.
pub fn args_sha256(value: &Value) -> String {
    /// Feeds what serde_json writes straight into the hash (sha2 has no `io::Write`).
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hashing = Hashing(Sha256::new());
    serde_json::to_writer(&mut hashing, &SortedKeys(value)).expect("JSON values serialize");
    lower_hex(&hashing.0.finalize())
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    lower_hex(&Sha256::digest(bytes.as_ref()))
}

/// Lower-case hex of `bytes`, through one buffer: `hex::encode` collects an iterator of chars,
/// about 2,000 instructions for a digest against about 200 (the audit record hashes every
/// call's arguments).
fn lower_hex(bytes: &[u8]) -> String {
    let mut text = vec![0; bytes.len() * 2];
    hex::encode_to_slice(bytes, &mut text).expect("the buffer is twice the input");
    String::from_utf8(text).expect("hex digits are ASCII")
}

/// Serializes a JSON value with every object's keys in sorted order, without copying it.
struct SortedKeys<'a>(&'a Value);

impl Serialize for SortedKeys<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Value::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                // Objects keep their keys' order, and most arguments come in sorted already
                // (one key, or a validated struct's fields): those need no sorted copy.
                if object.keys().is_sorted() {
                    for (key, value) in object {
                        map.serialize_entry(key, &SortedKeys(value))?;
                    }
                } else {
                    let mut entries: Vec<(&String, &Value)> = object.iter().collect();
                    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                    for (key, value) in entries {
                        map.serialize_entry(key, &SortedKeys(value))?;
                    }
                }
                map.end()
            }
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&SortedKeys(item))?;
                }
                seq.end()
            }
            scalar => scalar.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_are_sorted_at_every_depth_and_arrays_keep_their_order() {
        let value = json!({"b": [3, {"z": 1, "a": 2}], "a": "x y", "c": {"y": null, "x": 1.5}});
        assert_eq!(
            canonical_json(&value),
            r#"{"a":"x y","b":[3,{"a":2,"z":1}],"c":{"x":1.5,"y":null}}"#
        );
    }

    #[test]
    fn an_object_already_in_order_keeps_sorting_what_it_holds() {
        let value = json!({"a": {"y": 1, "x": [{"d": 0, "c": 1}]}, "b": {"e": true, "f": null}});
        assert_eq!(
            canonical_json(&value),
            r#"{"a":{"x":[{"c":1,"d":0}],"y":1},"b":{"e":true,"f":null}}"#
        );
    }

    #[test]
    fn the_streamed_digest_is_the_digest_of_the_canonical_text() {
        let value = json!({"since": "24h", "kind": ["a", "b"], "n": 2});
        assert_eq!(args_sha256(&value), sha256_hex(canonical_json(&value)));
    }

    #[test]
    fn the_digest_of_a_known_call_matches_python_hashlib() {
        // hashlib.sha256(json.dumps(args, sort_keys=True, separators=(",", ":")).encode())
        assert_eq!(
            args_sha256(&json!({"view": "summary", "incident_id": 42})),
            "1d84f5bdc253ac185dcf7b5e5c4a420f694cc68e17df98f358b4fc21214d11e9"
        );
    }

    #[test]
    fn the_digest_is_lower_case_hex_sha256() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
