//! [`Secret`]: a credential held in memory for the one moment it is written into a request header.
//!
//! It has a redacting `Debug`, no `Display`, no `Serialize` and no owned accessor: the only way
//! out is [`Secret::expose`], which lends the value. A `{:?}` of anything that holds one prints
//! `Secret(<redacted>)`.

use std::fmt;

/// A credential (an API key). Never printed, never serialised, never logged.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a credential, trimming the surrounding whitespace a terminal or a file leaves (a
    /// trailing newline from `echo key | …`). Returns `None` when nothing is left.
    pub fn new(value: impl Into<String>) -> Option<Self> {
        let value = value.into();
        let trimmed = value.trim();
        if trimmed.is_empty() {
            return None;
        }
        Some(Self(trimmed.to_owned()))
    }

    /// Lends the credential, for writing it into a request header or a keychain entry, and for
    /// nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl Drop for Secret {
    /// Overwrites the bytes before the allocation is freed, so a credential does not linger in
    /// freed memory longer than it must (best effort; copies made by callers are theirs).
    fn drop(&mut self) {
        let len = self.0.len();
        self.0.clear();
        self.0.extend(std::iter::repeat_n('\0', len));
        std::hint::black_box(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_value() {
        let secret = Secret::new("gsk_fixture_value_123").expect("not empty");
        let debug = format!("{secret:?} {:?}", Some(&secret));
        assert!(!debug.contains("gsk_fixture_value_123"), "{debug}");
        assert!(debug.contains("Secret(<redacted>)"));
    }

    #[test]
    fn surrounding_whitespace_is_trimmed_and_empty_is_none() {
        assert_eq!(Secret::new("  key\n").expect("not empty").expose(), "key");
        assert!(Secret::new(" \n\t").is_none());
        assert!(Secret::new("").is_none());
    }
}
