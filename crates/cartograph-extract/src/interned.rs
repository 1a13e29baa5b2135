//! Serde support for the `&'static str` fields of the facts (recogniser, framework and library
//! names), so that facts read back from a cache compare equal to freshly extracted ones.
//!
//! The names are a small, fixed vocabulary written by the recognisers. A deserialized name is
//! interned: each distinct name is allocated once for the life of the process. The table is
//! bounded, so a damaged or hostile cache entry cannot grow memory without limit: past the bound
//! deserialization fails, and the cache treats the entry as a miss.

use std::collections::HashSet;
use std::sync::{OnceLock, RwLock};

use serde::{Deserialize, Deserializer, Serializer};

/// A recogniser-written name. An alias rather than `&'static str` written out, because serde's
/// derive borrows every field spelled `&str` from the input, which a `'static` name cannot be.
pub(crate) type Name = &'static str;

/// More distinct names than every recogniser together writes, by a wide margin.
const MAX_NAMES: usize = 4096;
/// Longer than any name a recogniser writes.
const MAX_NAME_LEN: usize = 256;

fn table() -> &'static RwLock<HashSet<&'static str>> {
    static TABLE: OnceLock<RwLock<HashSet<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| RwLock::new(HashSet::new()))
}

/// The process-wide copy of `name`, or `None` when the table is full or `name` is too long.
fn intern(name: &str) -> Option<&'static str> {
    if let Ok(names) = table().read()
        && let Some(found) = names.get(name)
    {
        return Some(found);
    }
    if name.len() > MAX_NAME_LEN {
        return None;
    }
    let mut names = table().write().ok()?;
    if let Some(found) = names.get(name) {
        return Some(found);
    }
    if names.len() >= MAX_NAMES {
        return None;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    Some(leaked)
}

pub(crate) fn serialize<S: Serializer>(name: &Name, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(name)
}

pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
    let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
    intern(&name).ok_or_else(|| serde::de::Error::custom("too many distinct recogniser names"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_returns_one_copy() {
        let a = intern("axios").unwrap();
        let b = intern(&String::from("axios")).unwrap();
        assert!(std::ptr::eq(a, b));
        assert!(intern(&"x".repeat(MAX_NAME_LEN + 1)).is_none());
    }
}
