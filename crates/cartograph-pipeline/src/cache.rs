//! Content-addressed extraction results: a file whose path, grammar and content are the same as one
//! already extracted is not parsed again.
//!
//! A [`FactCache`] lives in memory for one process (a diff of two trees extracts each unchanged file
//! once) and may be backed by a directory (`--cache DIR`, [`FactCache::with_dir`]) so that a later
//! run starts warm.
//!
//! The directory holds one file per entry under a format folder and a two-hex-digit shard,
//! `DIR/v1/ab/abcdef….facts`. An entry is a fixed header (magic, its own key, the payload's length
//! and blake3 hash) and the facts encoded with `postcard`. Entries are written to a temporary file
//! in the shard folder and renamed into place, so two runs sharing the directory never see a half
//! entry; an entry that is truncated, damaged or of another format is a miss and is written again.
//! Nothing in the directory can make an analysis fail. [`FactCache::finish`] bounds the directory's
//! size by removing the least recently used entries (a hit refreshes an entry's modification time).
//!
//! Beside the facts of files, the directory keeps whole-tree results (`….analysis` entries, same
//! header with their own magic): the analysis of a tree keyed by a [`TreeKey`], the digest of
//! everything that analysis read — the build, the options, the tree's inventory, every source
//! file's [`FactKey`] and the bytes of every configuration and schema file. A diff on a new push
//! finds its unchanged base tree there whole: not resolved nor linked again (decision 0010).

use std::collections::HashMap;
use std::fs;
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use cartograph_core::RepoPath;
use cartograph_extract::{Grammar, HeldFacts};
use cartograph_graph::Analysis;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The default bound on a cache directory's size: 512 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 512 * 1024 * 1024;

/// The folder, inside the cache directory, of entries in this build's layout and encoding. A build
/// that changes either uses another folder and never reads these entries.
const FORMAT_DIR: &str = "v1";
/// The first bytes of every file's entry.
const MAGIC: &[u8; 8] = b"CGFACTS1";
/// The first bytes of every tree's entry. Its payload is the analysis in parts (`parts.rs`),
/// each behind its length (see [`write_tree_payload`]).
const TREE_MAGIC: &[u8; 8] = b"CGTREE02";
/// Fewer bytes than any edge's encoding takes (a kind, two keys, an evidence sentence, a
/// location, flags and a count: over 30), to bound the edge count a tree's entry may claim.
const MIN_EDGE_BYTES: u64 = 16;
/// Magic, key, payload length, payload hash.
const HEADER_LEN: usize = 8 + 32 + 8 + 32;
/// An entry larger than this is not read (no file's facts come near it).
const MAX_ENTRY_BYTES: u64 = 256 * 1024 * 1024;
/// A tree's entry larger than this is not read. A whole analysis is far larger than a file's
/// facts: about 350 bytes an edge, some 300 MiB for a monorepo of 130,000 analysed files.
const MAX_TREE_ENTRY_BYTES: u64 = 4 * 1024 * 1024 * 1024;
/// An entry's modification time is refreshed on a hit only when older than this, so a warm run
/// does not rewrite the metadata of every entry it reads in quick succession.
const TOUCH_AFTER: Duration = Duration::from_secs(60);
/// A temporary file this old was left by a run that stopped before renaming it.
const STALE_TEMPORARY: Duration = Duration::from_secs(3600);
const ENTRY_SUFFIX: &str = ".facts";
const TREE_SUFFIX: &str = ".analysis";
/// What a whole-tree result depends on beyond the facts: every source of the analyser (linkers,
/// resolvers, assembly), fingerprinted by `build.rs`.
pub const ANALYSIS_FINGERPRINT: &str = env!("CARTOGRAPH_ANALYSIS_FINGERPRINT");

/// What extraction depends on, hashed: the extractor's build, the grammar, whether only imports
/// are extracted, the file's path (facts carry locations) and its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FactKey([u8; 32]);

impl FactKey {
    pub fn new(path: &RepoPath, grammar: Grammar, imports_only: bool, text: &str) -> Self {
        Self::for_build(
            env!("CARGO_PKG_VERSION"),
            cartograph_extract::FACTS_FINGERPRINT,
            path,
            grammar,
            imports_only,
            text,
        )
    }

    fn for_build(
        version: &str,
        fingerprint: &str,
        path: &RepoPath,
        grammar: Grammar,
        imports_only: bool,
        text: &str,
    ) -> Self {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"cartograph-facts\0");
        hasher.update(version.as_bytes());
        hasher.update(&[0]);
        hasher.update(fingerprint.as_bytes());
        hasher.update(&[0, grammar as u8, u8::from(imports_only), 0]);
        hasher.update(path.as_str().as_bytes());
        hasher.update(&[0]);
        hasher.update(text.as_bytes());
        Self(*hasher.finalize().as_bytes())
    }

    /// The key as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
}

/// What a whole tree's analysis depends on, hashed (see the module documentation); built by the
/// analyser with [`TreeKey::hasher`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TreeKey([u8; 32]);

impl TreeKey {
    /// A hasher already holding this build's identity; the analyser adds the tree's inputs.
    pub(crate) fn hasher() -> blake3::Hasher {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"cartograph-analysis\0");
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.update(&[0]);
        hasher.update(cartograph_extract::FACTS_FINGERPRINT.as_bytes());
        hasher.update(&[0]);
        hasher.update(ANALYSIS_FINGERPRINT.as_bytes());
        hasher.update(&[0]);
        // A tree's entry in another encoding is another build's: never looked up.
        hasher.update(TREE_MAGIC);
        hasher.update(&[0]);
        hasher
    }

    pub(crate) fn from_hasher(hasher: &blake3::Hasher) -> Self {
        Self(*hasher.finalize().as_bytes())
    }
}

/// Whether an entry last used at `modified` is due a refresh of its modification time.
fn stale(modified: SystemTime) -> bool {
    SystemTime::now().duration_since(modified).unwrap_or_default() > TOUCH_AFTER
}

/// 32 bytes as 64 lowercase hex digits.
fn hex(bytes: &[u8; 32]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// Why a cache directory cannot be used. The messages name no path: the caller knows which
/// directory it passed.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("the cache directory cannot be created ({0})")]
    Create(io::ErrorKind),
    #[error("the cache directory is not a directory")]
    NotADirectory,
}

/// What a cache did, for tests and for the CLI's progress line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered, from memory or from the directory.
    pub hits: u64,
    /// Lookups not answered: the file was extracted.
    pub misses: u64,
    /// Of the hits, those read from the directory.
    pub disk_hits: u64,
    /// Entries written to the directory.
    pub writes: u64,
    /// Entries found damaged, truncated or of another layout (each also counts as a miss).
    pub corrupt: u64,
    /// Entries removed to keep the cache under its bound: from the directory by
    /// [`FactCache::finish`], and from memory when a bounded in-memory cache is full.
    pub evicted: u64,
    /// Whole trees whose analysis was read from the directory (nothing resolved or linked).
    pub trees_hit: u64,
    /// Whole trees analysed and written to the directory.
    pub trees_written: u64,
}

/// Extraction results by content, in memory and optionally in a directory.
#[derive(Debug, Default)]
pub struct FactCache {
    memory: Mutex<HashMap<FactKey, Arc<HeldFacts>>>,
    /// The most entries memory holds (`None`: no bound, for one run of the CLI).
    memory_max: Option<usize>,
    disk: Option<DiskCache>,
    hits: AtomicU64,
    misses: AtomicU64,
    disk_hits: AtomicU64,
    writes: AtomicU64,
    corrupt: AtomicU64,
    evicted: AtomicU64,
    trees_hit: AtomicU64,
    trees_written: AtomicU64,
}

#[derive(Debug)]
struct DiskCache {
    /// `DIR/v1`.
    root: PathBuf,
    max_bytes: u64,
    /// Whether the bound rises to twice what this run used ([`FactCache::with_dir_fitting`]).
    fitting: bool,
    /// The bytes of the entries this run read, found or wrote.
    used: AtomicU64,
    /// Whether this run wrote an entry: only then can the directory have grown.
    wrote: AtomicBool,
    finished: AtomicBool,
}

impl FactCache {
    /// A cache held in memory for the life of the process.
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// A cache held in memory that keeps at most `max_entries` files' facts: when full, it sheds
    /// about half its entries (an arbitrary half) before keeping a new one. For long-lived
    /// processes such as the MCP server, where the trees analysed are not known in advance.
    pub fn in_memory_bounded(max_entries: usize) -> Self {
        Self { memory_max: Some(max_entries.max(1)), ..Self::default() }
    }

    /// A cache that also keeps entries in `dir` (created if missing) across runs, holding the
    /// directory to about `max_bytes` ([`DEFAULT_MAX_BYTES`] is a sensible bound) when
    /// [`FactCache::finish`] runs or the cache is dropped.
    pub fn with_dir(dir: &Path, max_bytes: u64) -> Result<Self, CacheError> {
        Self::open_dir(dir, max_bytes, false)
    }

    /// Like [`FactCache::with_dir`], but the bound is `at_least` or twice the bytes of the entries
    /// this run used, whichever is larger: the cache of a large tree keeps what its next run
    /// needs (the base it diffs against, and room for a new head) rather than evicting it at a
    /// fixed size and parsing it all again. What `--cache` does unless `--cache-max-mib` is given.
    pub fn with_dir_fitting(dir: &Path, at_least: u64) -> Result<Self, CacheError> {
        Self::open_dir(dir, at_least, true)
    }

    fn open_dir(dir: &Path, max_bytes: u64, fitting: bool) -> Result<Self, CacheError> {
        let root = dir.join(FORMAT_DIR);
        fs::create_dir_all(&root).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists | io::ErrorKind::NotADirectory => {
                CacheError::NotADirectory
            }
            kind => CacheError::Create(kind),
        })?;
        if !root.is_dir() {
            return Err(CacheError::NotADirectory);
        }
        Ok(Self {
            disk: Some(DiskCache {
                root,
                max_bytes,
                fitting,
                used: AtomicU64::new(0),
                wrote: AtomicBool::new(false),
                finished: AtomicBool::new(false),
            }),
            ..Self::default()
        })
    }

    /// The facts extracted before for `key`, if any: from memory, else from the directory (and
    /// then kept in memory as well, so the second tree of a diff shares them rather than reading
    /// and decoding the entry again).
    pub fn get(&self, key: &FactKey) -> Option<Arc<HeldFacts>> {
        // A directory-backed cache of one run does not keep what it reads in memory: the
        // analyser already shares one content's facts between the trees of a diff, and keeping
        // every file's facts to the end of the run would hold them past linking, which frees them.
        if !self.retains() {
            return self.read_unretained(key, true);
        }
        let Some(from_disk) = self.load(key) else {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        self.hits.fetch_add(1, Ordering::Relaxed);
        if from_disk {
            self.disk_hits.fetch_add(1, Ordering::Relaxed);
        }
        self.memory.lock().ok()?.get(key).cloned()
    }

    /// Reads `key`'s facts from memory or the directory without keeping them. A failure counts
    /// as a miss (a damaged entry also as corrupt); a success counts as a hit only when
    /// `count_hit` (a deferred read was counted when [`FactCache::holds`] was asked).
    fn read_unretained(&self, key: &FactKey, count_hit: bool) -> Option<Arc<HeldFacts>> {
        let found = self.memory.lock().ok().and_then(|memory| memory.get(key).cloned());
        if let Some(facts) = found {
            if count_hit {
                self.hits.fetch_add(1, Ordering::Relaxed);
            }
            return Some(facts);
        }
        let lookup = match &self.disk {
            Some(disk) => disk.read(key),
            None => Lookup::Absent,
        };
        match lookup {
            Lookup::Found(facts) => {
                if count_hit {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    self.disk_hits.fetch_add(1, Ordering::Relaxed);
                }
                Some(Arc::from(facts))
            }
            Lookup::Absent => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
            Lookup::Corrupt => {
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Makes sure the facts for `key` are in memory: `Some(false)` when they already were,
    /// `Some(true)` when they were read from the directory, `None` when there are none.
    fn load(&self, key: &FactKey) -> Option<bool> {
        if self.memory.lock().is_ok_and(|memory| memory.contains_key(key)) {
            return Some(false);
        }
        // The lock is released: reads of the directory run in parallel.
        match self.disk.as_ref()?.read(key) {
            Lookup::Found(facts) => {
                self.memory.lock().ok()?.entry(*key).or_insert_with(|| Arc::new(*facts));
                Some(true)
            }
            Lookup::Absent => None,
            Lookup::Corrupt => {
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Whether the facts for `key` are at hand (in memory or in the directory), counted as a hit
    /// without reading them: the analyser defers reading until it knows it needs them (a tree
    /// whose whole analysis is kept never does). [`FactCache::get_deferred`] reads them later.
    pub fn holds(&self, key: &FactKey) -> bool {
        if self.memory.lock().is_ok_and(|memory| memory.contains_key(key)) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        let Some(disk) = &self.disk else { return false };
        let path = disk.entry_path(key);
        let held = fs::metadata(&path).is_ok_and(|meta| {
            disk.used.fetch_add(meta.len(), Ordering::Relaxed);
            // Held but not read: refreshed all the same, or least-recently-used eviction would
            // take the facts of trees that are only ever used whole.
            if meta.modified().is_ok_and(stale) {
                let _ = fs::File::open(&path).and_then(|f| f.set_modified(SystemTime::now()));
            }
            meta.is_file()
        });
        if held {
            self.hits.fetch_add(1, Ordering::Relaxed);
            self.disk_hits.fetch_add(1, Ordering::Relaxed);
        }
        held
    }

    /// The facts [`FactCache::holds`] said were at hand (its hit is already counted). `None`
    /// when they are gone or damaged since: counted as a miss, and the caller extracts them.
    pub fn get_deferred(&self, key: &FactKey) -> Option<Arc<HeldFacts>> {
        self.read_unretained(key, false)
    }

    /// Counts a lookup the caller answered itself (a content met twice in one run) as a hit.
    pub fn count_hit(&self) {
        self.hits.fetch_add(1, Ordering::Relaxed);
    }

    /// Keeps `facts` for `key`: in memory, and in the directory if there is one.
    pub fn put(&self, key: FactKey, facts: &Arc<HeldFacts>) {
        if let Some(disk) = &self.disk
            && disk.write(&key, facts).is_ok()
        {
            self.writes.fetch_add(1, Ordering::Relaxed);
        }
        if !self.retains() {
            return;
        }
        if let Ok(mut memory) = self.memory.lock() {
            if let Some(max) = self.memory_max
                && memory.len() >= max
                && !memory.contains_key(&key)
            {
                let mut keep = false;
                memory.retain(|_, _| {
                    keep = !keep;
                    keep
                });
                self.evicted.fetch_add((max - memory.len()) as u64, Ordering::Relaxed);
            }
            memory.entry(key).or_insert_with(|| Arc::clone(facts));
        }
    }

    /// Whether facts read or written are also kept in memory: not for a directory-backed cache
    /// of one run (see [`FactCache::get`]); an in-memory one, bounded or not, is nothing else.
    fn retains(&self) -> bool {
        self.disk.is_none() || self.memory_max.is_some()
    }

    /// Whether whole-tree results can be kept: only in a directory (they serve a later run).
    pub fn keeps_trees(&self) -> bool {
        self.disk.is_some()
    }

    /// The analysis kept for `key` by an earlier run, if the directory holds a whole, undamaged
    /// one. A damaged entry counts as corrupt and is written again after the analysis.
    pub fn get_tree(&self, key: &TreeKey) -> Option<Analysis> {
        let disk = self.disk.as_ref()?;
        match disk.read_tree(&key.0, &disk.tree_path(key)) {
            Lookup::Found(analysis) => {
                self.trees_hit.fetch_add(1, Ordering::Relaxed);
                Some(*analysis)
            }
            Lookup::Absent => None,
            Lookup::Corrupt => {
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Keeps `analysis` for `key` in the directory (nothing without one).
    pub fn put_tree(&self, key: &TreeKey, analysis: &Analysis) {
        if let Some(disk) = &self.disk
            && disk.write_tree(&key.0, analysis, &disk.tree_path(key)).is_ok()
        {
            self.trees_written.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many files' facts are held in memory.
    pub fn len(&self) -> usize {
        self.memory.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            corrupt: self.corrupt.load(Ordering::Relaxed),
            evicted: self.evicted.load(Ordering::Relaxed),
            trees_hit: self.trees_hit.load(Ordering::Relaxed),
            trees_written: self.trees_written.load(Ordering::Relaxed),
        }
    }

    /// Ends a run: if entries were written, removes the least recently used ones until the
    /// directory is under its bound, and temporary files left by runs that stopped. Runs once;
    /// dropping the cache calls it. Best effort: a file another run removes first is skipped.
    pub fn finish(&self) -> CacheStats {
        if let Some(disk) = &self.disk {
            self.evicted.fetch_add(disk.finish(), Ordering::Relaxed);
        }
        self.stats()
    }
}

impl Drop for DiskCache {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The outcome of reading one entry.
enum Lookup<T = HeldFacts> {
    Found(Box<T>),
    Absent,
    Corrupt,
}

impl DiskCache {
    /// Evicts once per run, and only after a write. Returns how many entries were removed.
    fn finish(&self) -> u64 {
        if self.finished.swap(true, Ordering::Relaxed) || !self.wrote.load(Ordering::Relaxed) {
            return 0;
        }
        self.evict()
    }

    /// `DIR/v1/ab/abcdef…SUFFIX`: a file's facts (`.facts`) or a tree's analysis (`.analysis`).
    fn path_of(&self, key: &[u8; 32], suffix: &str) -> PathBuf {
        let hex = hex(key);
        self.root.join(&hex[..2]).join(format!("{hex}{suffix}"))
    }

    fn entry_path(&self, key: &FactKey) -> PathBuf {
        self.path_of(&key.0, ENTRY_SUFFIX)
    }

    fn tree_path(&self, key: &TreeKey) -> PathBuf {
        self.path_of(&key.0, TREE_SUFFIX)
    }

    fn read(&self, key: &FactKey) -> Lookup {
        self.read_entry(MAGIC, &key.0, &self.entry_path(key), MAX_ENTRY_BYTES)
    }

    fn read_entry<T: DeserializeOwned>(
        &self,
        magic: &[u8; 8],
        key: &[u8; 32],
        path: &Path,
        max_bytes: u64,
    ) -> Lookup<T> {
        let (mut file, meta) = match open_entry(path, max_bytes) {
            Ok(opened) => opened,
            Err(lookup) => return lookup,
        };
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        if file.read_to_end(&mut bytes).is_err() {
            return Lookup::Corrupt;
        }
        self.used.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        let Some(value) = decode_entry(magic, key, &bytes) else { return Lookup::Corrupt };
        // Refresh the entry for least-recently-used eviction; a failure only ages it.
        if meta.modified().is_ok_and(stale) {
            let _ = file.set_modified(SystemTime::now());
        }
        Lookup::Found(Box::new(value))
    }

    fn write(&self, key: &FactKey, facts: &HeldFacts) -> io::Result<()> {
        self.write_entry(MAGIC, &key.0, facts, &self.entry_path(key))
    }

    fn write_entry<T: Serialize>(
        &self,
        magic: &[u8; 8],
        key: &[u8; 32],
        value: &T,
        path: &Path,
    ) -> io::Result<()> {
        let bytes = encode_entry(magic, key, value)?;
        self.persist_entry(path, |file| {
            file.write_all(&bytes)?;
            Ok(bytes.len() as u64)
        })
    }

    /// Writes a tree's entry, streamed to the file part by part (see [`write_tree_payload`]).
    fn write_tree(&self, key: &[u8; 32], analysis: &Analysis, path: &Path) -> io::Result<()> {
        self.persist_entry(path, |file| {
            stream_entry(file, TREE_MAGIC, key, |out| write_tree_payload(out, analysis))
        })
    }

    /// The analysis in a tree's entry, read part by part through a buffer, its texts shared as
    /// they are read ([`TextPool`]): a large tree's entry (~300 MiB at 130,000 files) is never
    /// held whole, nor its analysis with a copy of each path per edge.
    fn read_tree(&self, key: &[u8; 32], path: &Path) -> Lookup<Analysis> {
        let (file, meta) = match open_entry(path, MAX_TREE_ENTRY_BYTES) {
            Ok(opened) => opened,
            Err(lookup) => return lookup,
        };
        self.used.fetch_add(meta.len(), Ordering::Relaxed);
        let mut reader = io::BufReader::with_capacity(1 << 16, &file);
        let mut header = [0; HEADER_LEN];
        if reader.read_exact(&mut header).is_err() {
            return Lookup::Corrupt;
        }
        let (stored_magic, stored_key, length, hash) = split_header(&header);
        if stored_magic != TREE_MAGIC
            || stored_key != key
            || meta.len() != HEADER_LEN as u64 + length
        {
            return Lookup::Corrupt;
        }
        let mut payload = Hashing { inner: reader.take(length), hasher: blake3::Hasher::new() };
        let analysis = read_tree_payload(&mut payload, length);
        let whole = payload.inner.limit() == 0;
        match analysis {
            Some(analysis) if whole && payload.hasher.finalize().as_bytes() == hash => {
                if meta.modified().is_ok_and(stale) {
                    let _ = file.set_modified(SystemTime::now());
                }
                Lookup::Found(Box::new(analysis))
            }
            _ => Lookup::Corrupt,
        }
    }

    /// Writes an entry at `path` through `write`, which returns how many bytes it wrote.
    fn persist_entry(
        &self,
        path: &Path,
        write: impl FnOnce(&mut fs::File) -> io::Result<u64>,
    ) -> io::Result<()> {
        let shard = path.parent().unwrap_or(&self.root);
        fs::create_dir_all(shard)?;
        let mut temporary = tempfile::Builder::new().prefix(".tmp-").tempfile_in(shard)?;
        let written = write(temporary.as_file_mut())?;
        self.used.fetch_add(written, Ordering::Relaxed);
        // The rename replaces any entry already there (a damaged one, or the same facts written
        // by a concurrent run) in one step: a reader sees the old file or the new, never half.
        temporary.persist(path).map_err(|e| e.error)?;
        self.wrote.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Removes stale temporary files, then the oldest entries until the directory's size is
    /// under the bound. Returns how many entries were removed.
    fn evict(&self) -> u64 {
        let now = SystemTime::now();
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let mut total: u64 = 0;
        let Ok(shards) = fs::read_dir(&self.root) else { return 0 };
        for shard in shards.flatten() {
            let Ok(files) = fs::read_dir(shard.path()) else { continue };
            for file in files.flatten() {
                let Ok(meta) = file.metadata() else { continue };
                if !meta.is_file() {
                    continue;
                }
                let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                let name = file.file_name();
                let is_entry = name
                    .to_str()
                    .is_some_and(|n| n.ends_with(ENTRY_SUFFIX) || n.ends_with(TREE_SUFFIX));
                if !is_entry {
                    let age = now.duration_since(modified).unwrap_or_default();
                    if age > STALE_TEMPORARY {
                        let _ = fs::remove_file(file.path());
                    } else {
                        total = total.saturating_add(meta.len());
                    }
                    continue;
                }
                total = total.saturating_add(meta.len());
                entries.push((modified, meta.len(), file.path()));
            }
        }
        let bound = if self.fitting {
            self.max_bytes.max(self.used.load(Ordering::Relaxed).saturating_mul(2))
        } else {
            self.max_bytes
        };
        if total <= bound {
            return 0;
        }
        entries.sort();
        let mut removed = 0;
        for (_, len, path) in entries {
            if total <= bound {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                removed += 1;
            }
            total = total.saturating_sub(len);
        }
        removed
    }
}

fn encode_entry<T: Serialize>(magic: &[u8; 8], key: &[u8; 32], value: &T) -> io::Result<Vec<u8>> {
    let payload = postcard::to_stdvec(value).map_err(io::Error::other)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(&header(magic, key, payload.len() as u64, &blake3::hash(&payload)));
    bytes.extend_from_slice(&payload);
    Ok(bytes)
}

/// An entry's file and its metadata, or the answer of a lookup that need not read it: absent, or
/// corrupt when it cannot be read or is larger than `max_bytes`.
fn open_entry<T>(path: &Path, max_bytes: u64) -> Result<(fs::File, fs::Metadata), Lookup<T>> {
    let file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Lookup::Absent),
        Err(_) => return Err(Lookup::Corrupt),
    };
    match file.metadata() {
        Ok(meta) if meta.len() <= max_bytes => Ok((file, meta)),
        _ => Err(Lookup::Corrupt),
    }
}

/// The parts of an entry's header: magic, key, the payload's length and its hash.
fn split_header(header: &[u8; HEADER_LEN]) -> (&[u8], &[u8], u64, &[u8]) {
    let (magic, rest) = header.split_at(8);
    let (key, rest) = rest.split_at(32);
    let (length, hash) = rest.split_at(8);
    let mut le = [0; 8];
    le.copy_from_slice(length);
    (magic, key, u64::from_le_bytes(le), hash)
}

/// An entry's header: magic, key, the payload's length and hash.
fn header(magic: &[u8; 8], key: &[u8; 32], length: u64, hash: &blake3::Hash) -> Vec<u8> {
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(magic);
    header.extend_from_slice(key);
    header.extend_from_slice(&length.to_le_bytes());
    header.extend_from_slice(hash.as_bytes());
    header
}

/// Hashes what passes through it, read or written.
struct Hashing<T> {
    inner: T,
    hasher: blake3::Hasher,
}

impl<W: io::Write> io::Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.hasher.update(&buf[..written]);
        Ok(written)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<R: io::Read> io::Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.hasher.update(&buf[..read]);
        Ok(read)
    }
}

/// Writes an entry to `file`, its payload streamed by `payload` through a buffer and hashed as
/// it goes, after room for the header, which is written last. Returns the entry's length.
/// (A 200k-file tree's encoding, held whole and then copied behind its header, was ~400 MiB at
/// the end of the run.)
fn stream_entry(
    file: &mut fs::File,
    magic: &[u8; 8],
    key: &[u8; 32],
    payload: impl FnOnce(&mut dyn io::Write) -> io::Result<()>,
) -> io::Result<u64> {
    use std::io::{BufWriter, Seek as _, SeekFrom};
    file.seek(SeekFrom::Start(HEADER_LEN as u64))?;
    let hashing = Hashing { inner: &mut *file, hasher: blake3::Hasher::new() };
    let mut sink = BufWriter::with_capacity(1 << 16, hashing);
    payload(&mut sink)?;
    let Hashing { hasher, .. } = sink.into_inner().map_err(|e| e.into_error())?;
    let length = file.stream_position()? - HEADER_LEN as u64;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header(magic, key, length, &hasher.finalize()))?;
    Ok(HEADER_LEN as u64 + length)
}

/// A tree entry's payload: the parts of the analysis (`parts::encode`), each behind its
/// encoded length (8 bytes, little-endian).
fn write_tree_payload(out: &mut dyn io::Write, analysis: &Analysis) -> io::Result<()> {
    crate::parts::encode(analysis, |part| {
        out.write_all(&(part.len() as u64).to_le_bytes())?;
        out.write_all(part)
    })
}

/// Reads what [`write_tree_payload`] wrote, `length` bytes; `None` for anything else (a part
/// longer than what is left, or what `parts::decode` refuses).
fn read_tree_payload(input: &mut impl io::Read, length: u64) -> Option<Analysis> {
    let mut left = length;
    let part = || -> Option<Vec<u8>> {
        let mut size = [0; 8];
        input.read_exact(&mut size).ok()?;
        let size = u64::from_le_bytes(size);
        left = left.checked_sub(8)?.checked_sub(size)?;
        let mut bytes = vec![0; usize::try_from(size).ok()?];
        input.read_exact(&mut bytes).ok()?;
        Some(bytes)
    };
    // A count more edges than the length can hold is damage, not a size to allocate.
    let max_edges = usize::try_from(length / MIN_EDGE_BYTES).ok()?;
    crate::parts::decode(part, max_edges)
}

/// The value in an entry, or `None` when it is not a whole, undamaged entry for `key`.
fn decode_entry<T: DeserializeOwned>(magic: &[u8; 8], key: &[u8; 32], bytes: &[u8]) -> Option<T> {
    let (header, payload) = bytes.split_first_chunk::<HEADER_LEN>()?;
    let (stored_magic, stored_key, length, hash) = split_header(header);
    if stored_magic != magic || stored_key != key {
        return None;
    }
    if length != payload.len() as u64 || blake3::hash(payload).as_bytes() != hash {
        return None;
    }
    postcard::from_bytes(payload).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cartograph_extract::Extractor;

    fn sample() -> (FactKey, HeldFacts) {
        let path = RepoPath::new("app/main.py").unwrap();
        let text = "import os\nimport requests\nx = os.environ['A']\nrequests.get('/x')\n";
        let facts = HeldFacts::pack(Extractor::new().extract(&path, Grammar::Python, text));
        (FactKey::new(&path, Grammar::Python, false, text), facts)
    }

    #[test]
    fn a_streamed_entry_is_the_encoded_one() {
        let (key, facts) = sample();
        let mut file = tempfile::tempfile().unwrap();
        let length = stream_entry(&mut file, MAGIC, &key.0, |out| {
            postcard::to_io(&facts, out).map(|_| ()).map_err(io::Error::other)
        })
        .unwrap();
        let mut written = Vec::new();
        io::Seek::rewind(&mut file).unwrap();
        file.read_to_end(&mut written).unwrap();
        let encoded = encode_entry(MAGIC, &key.0, &facts).unwrap();
        assert_eq!(written, encoded);
        assert_eq!(length, encoded.len() as u64);
    }

    #[test]
    fn a_tree_entry_claiming_more_edges_than_it_holds_is_damage() {
        let analysis = Analysis::default();
        let mut payload = Vec::new();
        write_tree_payload(&mut payload, &analysis).unwrap();
        let whole = read_tree_payload(&mut payload.as_slice(), payload.len() as u64);
        assert!(whole.is_some_and(|a| a.edges.is_empty() && a.nodes.is_empty()));
        // The same entry, its edge count (the second part) claiming billions of edges: refused
        // before anything is allocated for them.
        let rest_len = u64::from_le_bytes(payload[..8].try_into().unwrap()) as usize;
        let mut claimed = payload[..8 + rest_len].to_vec();
        let count = postcard::to_stdvec(&(u64::MAX >> 8)).unwrap();
        claimed.extend_from_slice(&(count.len() as u64).to_le_bytes());
        claimed.extend_from_slice(&count);
        assert!(read_tree_payload(&mut claimed.as_slice(), claimed.len() as u64).is_none());
    }

    #[test]
    fn entries_round_trip_and_reject_damage() {
        let (key, facts) = sample();
        let bytes = encode_entry(MAGIC, &key.0, &facts).unwrap();
        assert_eq!(decode_entry::<HeldFacts>(MAGIC, &key.0, &bytes), Some(facts));
        assert_eq!(decode_entry::<HeldFacts>(MAGIC, &key.0, &bytes[..bytes.len() - 1]), None);
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert_eq!(decode_entry::<HeldFacts>(MAGIC, &key.0, &flipped), None);
        let other = FactKey([7; 32]);
        assert_eq!(decode_entry::<HeldFacts>(MAGIC, &other.0, &bytes), None);
        let mut other_format = bytes;
        other_format[7] = b'0';
        assert_eq!(decode_entry::<HeldFacts>(MAGIC, &key.0, &other_format), None);
    }

    #[test]
    fn another_build_has_other_keys() {
        let path = RepoPath::new("a.py").unwrap();
        let fingerprint = cartograph_extract::FACTS_FINGERPRINT;
        let ours = FactKey::new(&path, Grammar::Python, false, "x = 1\n");
        let same = FactKey::for_build(
            env!("CARGO_PKG_VERSION"),
            fingerprint,
            &path,
            Grammar::Python,
            false,
            "x = 1\n",
        );
        assert_eq!(ours, same);
        let other_version = FactKey::for_build(
            "0.0.0-other",
            fingerprint,
            &path,
            Grammar::Python,
            false,
            "x = 1\n",
        );
        let other_build = FactKey::for_build(
            env!("CARGO_PKG_VERSION"),
            "another-build",
            &path,
            Grammar::Python,
            false,
            "x = 1\n",
        );
        assert_ne!(ours, other_version);
        assert_ne!(ours, other_build);
        assert_ne!(ours, FactKey::new(&path, Grammar::Python, true, "x = 1\n"));
    }

    #[test]
    fn another_version_is_a_miss_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let (key, facts) = sample();
        let facts = Arc::new(facts);
        let writer = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
        writer.put(key, &facts);
        drop(writer);
        let path = RepoPath::new("app/main.py").unwrap();
        let text = "import os\nimport requests\nx = os.environ['A']\nrequests.get('/x')\n";
        let old = FactKey::for_build(
            "0.0.0-other",
            cartograph_extract::FACTS_FINGERPRINT,
            &path,
            Grammar::Python,
            false,
            text,
        );
        let reader = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
        assert_eq!(reader.get(&old), None);
        assert_eq!(reader.get(&key), Some(facts));
        let stats = reader.stats();
        assert_eq!((stats.hits, stats.misses, stats.disk_hits), (1, 1, 1));
    }
}
