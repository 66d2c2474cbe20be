//! The skills extension (`io.modelcontextprotocol/skills`) as the generator, which embeds a
//! manifest's skills, and the gateway, which keeps an upstream's, both bound it: the most
//! files and bytes one skill may have, and a file's media type where nothing else names it.

/// Most files in one skill, `SKILL.md` included.
pub const MAX_FILES: usize = 512;

/// Most bytes in one skill's files together.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// A skill file's media type from its extension (skills are text); `text/plain` for any
/// other.
pub fn media_type_of(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("html" | "htm") => "text/html",
        Some("csv") => "text/csv",
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    use super::media_type_of;

    #[test]
    fn the_extension_names_the_media_type_whatever_its_case() {
        assert_eq!(media_type_of("skill://x/SKILL.md"), "text/markdown");
        assert_eq!(media_type_of("references/GUIDE.MD"), "text/markdown");
        assert_eq!(media_type_of("data/table.csv"), "text/csv");
        assert_eq!(media_type_of("Makefile"), "text/plain");
        assert_eq!(media_type_of("archive.tar.gz"), "text/plain");
    }
}
