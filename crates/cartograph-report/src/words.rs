//! English counts in report text and in the messages of the front ends: one place that says when a
//! noun takes an `s`.

/// The plural ending for `n` of something: `""` for one, `"s"` otherwise (`0 paths`, `1 path`).
pub fn plural<N: PartialEq + From<u8>>(n: N) -> &'static str {
    if n == N::from(1) { "" } else { "s" }
}

/// `n` and the noun, plural unless `n` is one: `1 finding`, `3 findings`.
pub fn numbered(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(plural(1usize), "");
        assert_eq!(plural(0u64), "s");
        assert_eq!(plural(2u64), "s");
        assert_eq!(numbered(1, "finding"), "1 finding");
        assert_eq!(numbered(0, "edge"), "0 edges");
        assert_eq!(numbered(12, "edge"), "12 edges");
    }
}
