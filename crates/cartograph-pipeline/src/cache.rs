//! Content-addressed extraction results: a file whose path, grammar and content are the same as one
//! already extracted is not parsed again.
//!
//! A [`FactCache`] lives in memory for one process (a diff of two trees extracts each unchanged file
//! once) and may be backed by a directory (`--cache DIR`) so that a later run starts warm.

use std::collections::HashMap;
use std::sync::Mutex;

use cartograph_core::RepoPath;
use cartograph_extract::{FileFacts, Grammar};

/// What extraction depends on, hashed: the tool version, the grammar, whether only imports are
/// extracted, the file's path (facts carry locations) and its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FactKey([u8; 32]);

impl FactKey {
    pub fn new(path: &RepoPath, grammar: Grammar, imports_only: bool, text: &str) -> Self {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"cartograph-facts\0");
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.update(&[0, grammar as u8, u8::from(imports_only), 0]);
        hasher.update(path.as_str().as_bytes());
        hasher.update(&[0]);
        hasher.update(text.as_bytes());
        Self(*hasher.finalize().as_bytes())
    }

    /// The key as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        use std::fmt::Write;
        self.0.iter().fold(String::with_capacity(64), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
    }
}

/// Extraction results by content.
#[derive(Debug, Default)]
pub struct FactCache {
    memory: Mutex<HashMap<FactKey, FileFacts>>,
}

impl FactCache {
    /// A cache held in memory for the life of the process.
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// The facts extracted before for `key`, if any.
    pub fn get(&self, key: &FactKey) -> Option<FileFacts> {
        self.memory.lock().ok()?.get(key).cloned()
    }

    /// Keeps `facts` for `key`.
    pub fn put(&self, key: FactKey, facts: &FileFacts) {
        if let Ok(mut memory) = self.memory.lock() {
            memory.entry(key).or_insert_with(|| facts.clone());
        }
    }

    /// How many files' facts are held.
    pub fn len(&self) -> usize {
        self.memory.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
