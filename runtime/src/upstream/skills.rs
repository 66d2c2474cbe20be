//! An upstream's skills, kept: once a skill's `skills/list` entry matches its pin, every file
//! it lists is read from the upstream (`resources/read`), within the upstream's `timeout_ms`
//! and the limits a local skill has (512 files, 16 MiB), and each file's bytes are checked
//! against the digest and size of that pinned entry: bytes that differ are drift (a rug pull
//! between the list and the read, or a content change under an unchanged listing), never
//! served. Skills are instructions, and an upstream's are untrusted: each file's text, and
//! each string of the frontmatter, is then cleaned exactly as the gateway cleans what an
//! upstream says to the model (`guards::strip::sanitize`: tag blocks, stray tags, comments,
//! ANSI escapes, control and invisible characters), and the digest and size a client is given
//! are those of the cleaned text, the bytes it receives.

use std::time::Duration;

use base64::Engine;
use harness_contract::skills::{MAX_BYTES, MAX_FILES, media_type_of};
use rmcp::model::{
    ReadResourceRequestParams, ReadResourceResponse, ResourceContents, Skill, SkillResources,
    sha256_digest,
};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

use crate::guards::rewrite_strings;
use crate::guards::strip::sanitize;
use crate::skill_files::{KeptFile, KeptSkill};

/// Why a pinned skill was not kept.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unkept {
    /// A file's bytes are not those its pinned entry lists: drift.
    #[error(
        "{uri}: its bytes have digest {live_digest}, its skills/list entry lists {pinned_digest}"
    )]
    Rewritten {
        uri: String,
        pinned_digest: String,
        live_digest: String,
    },
    /// The skill could not be read or is not one the gateway serves (a check that could not
    /// be made: the skill is withheld until a later check succeeds).
    #[error("{0}")]
    Unreadable(String),
}

/// Reads, checks and cleans the skill `entry` (its `skills/list` entry, which matched the
/// pin) from `peer`, all of it within `timeout_ms`.
pub(crate) async fn keep(
    peer: &Peer<RoleClient>,
    entry: &Value,
    timeout_ms: u64,
) -> Result<KeptSkill, Unkept> {
    let (skill, files) = read_checked(peer, entry, timeout_ms).await?;
    let kept = files
        .into_iter()
        .map(|file| {
            let text = sanitize(&file.text, true).into_owned();
            KeptFile {
                digest: sha256_digest(text.as_bytes()),
                mime_type: file
                    .mime_type
                    .unwrap_or_else(|| media_type_of(&file.uri).to_owned()),
                uri: file.uri,
                text,
            }
        })
        .collect();
    let mut frontmatter = serde_json::to_value(&skill.frontmatter).unwrap_or_default();
    rewrite_strings(&mut frontmatter, &|text| sanitize(text, true));
    let frontmatter = serde_json::from_value(frontmatter)
        .map_err(|error| Unkept::Unreadable(format!("its frontmatter: {error}")))?;
    Ok(KeptSkill::new(skill.uri, frontmatter, kept))
}

/// The text of each file of the skill `entry` (a `skills/list` entry) lists, as the upstream
/// serves it (nothing cleaned yet), each checked against its listed digest and size: what
/// `harness-codegen import` audits before it pins the skill. Bounded as the gateway's own
/// reads are ([`keep`]).
pub(crate) async fn read_files(
    peer: &Peer<RoleClient>,
    entry: &Value,
    timeout_ms: u64,
) -> Result<Vec<SkillFile>, Unkept> {
    let (_, files) = read_checked(peer, entry, timeout_ms).await?;
    Ok(files
        .into_iter()
        .map(|file| SkillFile {
            uri: file.uri,
            text: file.text,
        })
        .collect())
}

/// One file of an upstream's skill as read, its bytes checked against its listed digest and
/// size, before any cleaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Its URI, as the skill's entry lists it.
    pub uri: String,
    /// Its text, exactly as the upstream served it.
    pub text: String,
}

/// A file as read, with the media type the upstream gave it.
struct ReadFile {
    uri: String,
    text: String,
    mime_type: Option<String>,
}

/// The skill `entry` describes and each file it lists, read from `peer` within `timeout_ms`
/// and within the limits of a local skill, each checked against its listed digest and size.
async fn read_checked(
    peer: &Peer<RoleClient>,
    entry: &Value,
    timeout_ms: u64,
) -> Result<(Skill, Vec<ReadFile>), Unkept> {
    let unreadable = |reason: String| Unkept::Unreadable(reason);
    let skill: Skill = serde_json::from_value(entry.clone())
        .map_err(|error| unreadable(format!("its skills/list entry: {error}")))?;
    skill
        .validate()
        .map_err(|error| unreadable(format!("its skills/list entry: {error}")))?;
    let SkillResources::Files(files) = &skill.resources else {
        return Err(unreadable(
            "its files are \"dynamic\": without digests they cannot be checked against a pin"
                .to_owned(),
        ));
    };
    if files.len() > MAX_FILES {
        return Err(unreadable(format!(
            "{} files, more than {MAX_FILES}",
            files.len()
        )));
    }
    let listed: u64 = files.iter().map(|file| file.size).sum();
    if listed > MAX_BYTES {
        return Err(unreadable(format!("{listed} bytes, more than {MAX_BYTES}")));
    }
    let reading = async {
        let mut read = Vec::with_capacity(files.len());
        for file in files {
            let (bytes, mime_type) = read_file(peer, &file.uri).await?;
            file.verify(&bytes).map_err(|_| Unkept::Rewritten {
                uri: file.uri.clone(),
                pinned_digest: file.digest.clone(),
                live_digest: sha256_digest(&bytes),
            })?;
            let text = String::from_utf8(bytes)
                .map_err(|_| unreadable(format!("{} is not UTF-8 text", file.uri)))?;
            read.push(ReadFile {
                uri: file.uri.clone(),
                text,
                mime_type,
            });
        }
        Ok(read)
    };
    let read = tokio::time::timeout(Duration::from_millis(timeout_ms), reading)
        .await
        .map_err(|_| unreadable(format!("its files were not read within {timeout_ms} ms")))??;
    Ok((skill, read))
}

/// The bytes of the skill file at `uri` and the media type the upstream gave it (when it
/// looks like one).
async fn read_file(
    peer: &Peer<RoleClient>,
    uri: &str,
) -> Result<(Vec<u8>, Option<String>), Unkept> {
    let unreadable = |reason: String| Unkept::Unreadable(format!("{uri}: {reason}"));
    let answer = peer
        .read_resource_once(ReadResourceRequestParams::new(uri))
        .await
        .map_err(|error| unreadable(error.to_string()))?;
    let ReadResourceResponse::Complete(result) = answer else {
        return Err(unreadable("the upstream asked for input".to_owned()));
    };
    let mut contents = result.contents.into_iter();
    let (Some(content), None) = (contents.next(), contents.next()) else {
        return Err(unreadable("not exactly one content".to_owned()));
    };
    let (bytes, mime_type) = match content {
        ResourceContents::TextResourceContents {
            text, mime_type, ..
        } => (text.into_bytes(), mime_type),
        ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        } => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|error| unreadable(format!("its blob: {error}")))?;
            (bytes, mime_type)
        }
        _ => {
            return Err(unreadable(
                "content of a kind the gateway does not carry".to_owned(),
            ));
        }
    };
    Ok((bytes, mime_type.filter(|mime| is_media_type(mime))))
}

/// `type/subtype` of token characters (an upstream's media type is passed on only then).
fn is_media_type(mime: &str) -> bool {
    let token = |part: &str| {
        !part.is_empty()
            && part.len() <= 64
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    mime.split_once('/')
        .is_some_and(|(kind, subtype)| token(kind) && token(subtype))
}
