//! A lenient reader for JSON with comments and trailing commas (tsconfig.json, jsconfig.json).
//!
//! TypeScript's configuration files are "JSONC": `//` and `/* */` comments and trailing commas are
//! allowed. [`parse`] blanks those out (outside strings, keeping every other byte where it was, so
//! error positions still point at the right line) and hands the result to `serde_json`.

use serde_json::Value;

/// Why a configuration file is not valid JSON with comments. The message never quotes the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not valid JSON with comments (line {line}, column {column})")]
pub struct JsoncError {
    pub line: usize,
    pub column: usize,
}

/// Parses JSON that may contain comments and trailing commas, and may start with a byte-order mark.
pub fn parse(text: &str) -> Result<Value, JsoncError> {
    let plain = strip(text);
    serde_json::from_str(&plain).map_err(|e| JsoncError { line: e.line(), column: e.column() })
}

/// Replaces comments and trailing commas outside strings with spaces (newlines are kept), and drops
/// a leading byte-order mark. Only ASCII bytes are replaced, so the result stays valid UTF-8.
pub fn strip(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = text.as_bytes().to_vec();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = bytes[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |p| i + 2 + p + 2);
                blank(&mut out[i..end]);
                i = end;
            }
            b',' => {
                if next_significant(bytes, i + 1).is_none_or(|b| b == b'}' || b == b']') {
                    out[i] = b' ';
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes outside strings were replaced by ASCII spaces, so this cannot fail; the
    // lossy conversion keeps that a non-panicking truth.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Blanks a comment, keeping line breaks (and the bytes of multi-byte characters replaced by
/// spaces one by one, which keeps the text valid UTF-8).
fn blank(range: &mut [u8]) {
    for b in range {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// The next byte after `from` that is neither whitespace nor inside a comment.
fn next_significant(bytes: &[u8], from: usize) -> Option<u8> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| i + p);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = bytes[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |p| i + 2 + p + 2);
            }
            b => return Some(b),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(text: &str, expected: Value) {
        assert_eq!(parse(text), Ok(expected), "text: {text}");
    }

    #[test]
    fn reads_comments_and_trailing_commas() {
        check("{} ", json!({}));
        check("// top\n{\"a\": 1, // one\n \"b\": [1, 2,],\n}", json!({"a": 1, "b": [1, 2]}));
        check("{/* x */\"a\": /* y */ \"b\" /* z */}", json!({"a": "b"}));
        check(
            "{\"a\": [1, /* c */ ], \"b\": {\"c\": 2, /* d */ // e\n},}",
            json!({"a": [1], "b": {"c": 2}}),
        );
        check("\u{feff}{\"a\": \"é\"}", json!({"a": "é"}));
        check("{\"a\": 1 /* é */}", json!({"a": 1}));
    }

    #[test]
    fn leaves_strings_alone() {
        check(
            r#"{"paths": {"@/*": ["./src/*"]}, "u": "http://x//y", "c": "/* no */", "t": "a,]"}"#,
            json!({"paths": {"@/*": ["./src/*"]}, "u": "http://x//y", "c": "/* no */", "t": "a,]"}),
        );
        check(
            r#"{"q": "say \"hi\" // not a comment",}"#,
            json!({"q": "say \"hi\" // not a comment"}),
        );
    }

    #[test]
    fn reports_errors_with_a_position() {
        let err = parse("{\n  \"a\" 1\n}").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(parse("{\"a\": 1").is_err());
        assert!(parse("/* unterminated").is_err());
        assert!(parse("").is_err());
        assert!(parse("{\"a\": \"unterminated}").is_err());
        // Only a trailing comma is forgiven, not a missing value between commas.
        assert!(parse("[1,,]").is_err());
    }
}
