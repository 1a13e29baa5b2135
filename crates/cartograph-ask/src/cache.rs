//! The explanation cache (`--cache DIR`): validated answers, keyed by BLAKE3 over the bundle's
//! canonical bytes, the model, the provider host and [`PROMPT_VERSION`], so a re-run on a new push
//! asks only about bundles that are new or changed.
//!
//! Only validated answers are stored, in their wire shape; on load each is validated again
//! against the bundle it is keyed by, so an entry that was edited, truncated or written for
//! another bundle is ignored (and overwritten by the next answer). Writes go to a temporary file
//! in the same directory and are renamed into place, so concurrent runs never see half an entry.
//! Errors are fixed sentences and never name the directory.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::answer::Answer;
use crate::bundle::EvidenceBundle;
use crate::endpoint::Endpoint;
use crate::wire::PROMPT_VERSION;

/// The largest cache entry read, in bytes.
const MAX_ENTRY_BYTES: u64 = 1 << 20;

/// Why the cache could not be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    #[error("the cache directory could not be created or is not a directory")]
    Directory,
    #[error("a cache entry could not be written")]
    Write,
}

/// A directory of cached answers.
#[derive(Debug)]
pub struct AnswerCache {
    dir: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl AnswerCache {
    /// Opens (creating it when needed) the cache directory.
    pub fn open(dir: &Path) -> Result<Self, CacheError> {
        fs::create_dir_all(dir).map_err(|_| CacheError::Directory)?;
        if !dir.is_dir() {
            return Err(CacheError::Directory);
        }
        Ok(Self { dir: dir.to_path_buf() })
    }

    /// The entry's key: 64 hex digits.
    pub fn key(bundle: &EvidenceBundle, endpoint: &Endpoint) -> String {
        let mut hasher = blake3::Hasher::new();
        for part in [
            PROMPT_VERSION.as_bytes(),
            endpoint.host().as_bytes(),
            endpoint.model().as_bytes(),
            &bundle.canonical_bytes(),
        ] {
            // Length-prefixed, so no two different tuples hash the same bytes.
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        hasher.finalize().to_hex().to_string()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The cached answer for this bundle, if there is one that still validates against it.
    pub fn load(&self, bundle: &EvidenceBundle, endpoint: &Endpoint) -> Option<Answer> {
        let path = self.path(&Self::key(bundle, endpoint));
        let file = fs::File::open(path).ok()?;
        let mut text = String::new();
        file.take(MAX_ENTRY_BYTES).read_to_string(&mut text).ok()?;
        match Answer::validate(bundle, &text) {
            Ok(answer) => Some(answer),
            Err(_) => {
                tracing::warn!("an explanation cache entry did not validate and was ignored");
                None
            }
        }
    }

    /// Stores a validated answer (replacing any entry for the same key).
    pub fn store(
        &self,
        bundle: &EvidenceBundle,
        endpoint: &Endpoint,
        answer: &Answer,
    ) -> Result<(), CacheError> {
        if answer.scope() != bundle.scope() {
            // An answer is only ever stored under the bundle it was validated against.
            return Err(CacheError::Write);
        }
        let key = Self::key(bundle, endpoint);
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = self.dir.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
        let written = fs::File::create(&temp)
            .and_then(|mut f| {
                f.write_all(answer.to_wire_json().as_bytes())?;
                f.sync_all()
            })
            .and_then(|()| fs::rename(&temp, self.path(&key)));
        if written.is_err() {
            let _ = fs::remove_file(&temp);
            return Err(CacheError::Write);
        }
        Ok(())
    }
}
