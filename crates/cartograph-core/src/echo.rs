//! How a word a user or client wrote is repeated in an error: never as an absolute path.
//!
//! A target, a node id or a path comes back in "no node matches …" so the writer sees what was
//! read. A rooted path is the one thing that is not repeated: `/opt/app/x.py`, `\\server\share`,
//! `~/x`, `C:\x` or `C:/x` may be a machine path, and the rule is that no machine path reaches an
//! error, whoever sent it. Such text is replaced by [`ABSOLUTE_PATH`]; everything else is repeated
//! with control characters replaced and a length cap.

/// What an error says instead of a rooted path the writer gave.
pub const ABSOLUTE_PATH: &str = "the given absolute path (not repeated)";

/// Whether `text` (trimmed) begins as a rooted path: `/`, `\`, `~`, or a drive letter followed by
/// `:` and a separator.
pub fn is_rooted(text: &str) -> bool {
    let text = text.trim_start();
    let bytes = text.as_bytes();
    let drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'/' | b'\\');
    drive || text.starts_with(['/', '\\', '~'])
}

/// `text` as an error may repeat it, in backticks — at most `max` characters (then `…`), control
/// characters as `?` — or [`ABSOLUTE_PATH`], unquoted, when it [`is_rooted`].
pub fn quoted(text: &str, max: usize) -> String {
    if is_rooted(text) {
        return ABSOLUTE_PATH.to_owned();
    }
    let mut shown: String =
        text.chars().take(max).map(|c| if c.is_control() { '?' } else { c }).collect();
    if text.chars().count() > max {
        shown.push('…');
    }
    format!("`{shown}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooted_paths_of_every_system_are_not_repeated() {
        for rooted in [
            "/opt/secret/x",
            "/var/folders/ab/T/x.py",
            "/private/tmp/x",
            "  /srv/a",
            "\\\\server\\share\\x",
            "\\x",
            "~/src/x.py",
            "~",
            "C:\\Users\\a\\x.py",
            "d:/work/x.ts",
        ] {
            assert!(is_rooted(rooted), "{rooted}");
            assert_eq!(quoted(rooted, 200), ABSOLUTE_PATH, "{rooted}");
        }
    }

    #[test]
    fn other_words_are_repeated_quoted_capped_and_printable() {
        assert_eq!(quoted("module:src/app.py", 200), "`module:src/app.py`");
        assert_eq!(quoted("route:GET /api/x", 200), "`route:GET /api/x`");
        assert_eq!(quoted("GET /api/x", 200), "`GET /api/x`");
        assert_eq!(quoted("src/app.py", 200), "`src/app.py`");
        assert_eq!(quoted("a\u{7}b\nc", 200), "`a?b?c`");
        assert_eq!(quoted("abcdef", 3), "`abc…`");
        assert_eq!(quoted("C:x", 200), "`C:x`", "a drive letter needs a separator");
    }
}
