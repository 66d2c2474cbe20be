//! Tool results beyond JSON: the content blocks a body returns, in order, and the guards every
//! block passes on its way to the model (`content/guard.rs`).
//!
//! A body whose `Output` is [`Content`] answers with its blocks; any other `Serialize` output
//! is JSON, as before (an object becomes structuredContent plus its text).

pub(crate) mod guard;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Bytes of a binary block: raw, or already base64 as some sources hand them over (checked by
/// the guard, which refuses base64 that does not decode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binary {
    /// Raw bytes; the harness encodes them.
    Bytes(Vec<u8>),
    /// Standard base64 (RFC 4648 with padding), as MCP carries it.
    Base64(String),
}

impl Binary {
    /// The bytes as MCP's base64 and their decoded length, or why they are not base64.
    pub(crate) fn encoded(self) -> Result<(String, usize), base64::DecodeError> {
        match self {
            Self::Bytes(bytes) => Ok((STANDARD.encode(&bytes), bytes.len())),
            Self::Base64(text) => {
                let decoded = STANDARD.decode(text.as_bytes())?;
                Ok((text, decoded.len()))
            }
        }
    }
}

/// One content block of a tool result (or of a prompt message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Text the model reads: line cap, tag strip and the char budget apply.
    Text(String),
    /// An image: bytes and MIME type (`max_bytes` and the MIME allowlist apply).
    Image {
        /// The image.
        data: Binary,
        /// Its MIME type, such as `image/png`.
        mime_type: String,
    },
    /// Audio: bytes and MIME type (`max_bytes` and the MIME allowlist apply).
    Audio {
        /// The audio.
        data: Binary,
        /// Its MIME type, such as `audio/wav`.
        mime_type: String,
    },
    /// A link to a resource the client may read; only URI schemes the manifest allows pass.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is, for the model (stripped and counted in the char budget).
        description: Option<String>,
        /// Its MIME type.
        mime_type: Option<String>,
    },
    /// A resource's text, embedded (its text passes the same guards as a text block).
    EmbeddedText {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// A resource's bytes, embedded (`max_bytes` and the MIME allowlist apply).
    EmbeddedBlob {
        /// The resource's URI.
        uri: String,
        /// Its MIME type (required: an untyped blob cannot be checked against the allowlist).
        mime_type: String,
        /// The bytes.
        data: Binary,
    },
}

/// Content blocks in the order the model reads them; build with the chained methods:
///
/// ```
/// use harness_runtime::content::Content;
/// let png: &[u8] = &[0x89, b'P', b'N', b'G'];
/// let content = Content::new().text("the chart:").image(png, "image/png");
/// assert_eq!(content.blocks().len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Content {
    blocks: Vec<Block>,
}

impl Content {
    /// No blocks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// These blocks, in order.
    pub fn from_blocks(blocks: Vec<Block>) -> Self {
        Self { blocks }
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Appends any block.
    pub fn block(mut self, block: Block) -> Self {
        self.blocks.push(block);
        self
    }

    /// Appends a text block.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.block(Block::Text(text.into()))
    }

    /// Appends an image from its bytes.
    pub fn image(self, bytes: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        self.block(Block::Image {
            data: Binary::Bytes(bytes.into()),
            mime_type: mime_type.into(),
        })
    }

    /// Appends an image given as base64.
    pub fn image_base64(self, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.block(Block::Image {
            data: Binary::Base64(data.into()),
            mime_type: mime_type.into(),
        })
    }

    /// Appends audio from its bytes.
    pub fn audio(self, bytes: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        self.block(Block::Audio {
            data: Binary::Bytes(bytes.into()),
            mime_type: mime_type.into(),
        })
    }

    /// Appends audio given as base64.
    pub fn audio_base64(self, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.block(Block::Audio {
            data: Binary::Base64(data.into()),
            mime_type: mime_type.into(),
        })
    }

    /// Appends a link to a resource.
    pub fn resource_link(self, uri: impl Into<String>, name: impl Into<String>) -> Self {
        self.block(Block::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        })
    }

    /// Appends a resource's text, embedded.
    pub fn embedded_text(
        self,
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        self.block(Block::EmbeddedText {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: text.into(),
        })
    }

    /// Appends a resource's bytes, embedded.
    pub fn embedded_blob(
        self,
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        self.block(Block::EmbeddedBlob {
            uri: uri.into(),
            mime_type: mime_type.into(),
            data: Binary::Bytes(bytes.into()),
        })
    }

    pub(crate) fn into_blocks(self) -> Vec<Block> {
        self.blocks
    }
}

/// Generated body traits ask for `Serialize` outputs; content is shaped by the guard, never
/// serialized through serde, so this only names the blocks (for debugging).
impl serde::Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.blocks.iter().map(|block| match block {
            Block::Text(_) => "text",
            Block::Image { .. } => "image",
            Block::Audio { .. } => "audio",
            Block::ResourceLink { .. } => "resource_link",
            Block::EmbeddedText { .. } | Block::EmbeddedBlob { .. } => "resource",
        }))
    }
}
