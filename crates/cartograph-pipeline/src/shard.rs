//! Sharded analysis for trees that outgrow one machine: each shard extracts the facts of one slice
//! of the source files, and a merge resolves, links and assembles the analysis from all slices —
//! the same analysis, byte for byte, as one unsharded run.
//!
//! A file belongs to shard `K` of `N` when the first eight bytes of the blake3 hash of its
//! repository path, read as a little-endian number, are `K - 1` modulo `N`: the slices are fixed
//! by the paths alone, so every shard of a matrix agrees without talking to the others.
//!
//! A fact file is `MAGIC`, the blake3 hash of the payload, and the payload encoded with
//! `postcard`: the build that wrote it, the shard's place, the options that shape the analysis,
//! the whole tree's inventory (what discovery found; every shard carries it, and a merge checks
//! they agree), the bytes of the files the analysis reads besides sources (the configuration files
//! the resolvers read and the Prisma and SQL schemas, so that a merge needs no tree), and the
//! facts of the slice's files. Like a checkout, a fact file holds text from the repository: keep
//! it where the checkout is kept.

use std::collections::BTreeMap;
use std::io;
use std::sync::Mutex;

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use cartograph_extract::{Extractor, GRAMMARS, Grammar, HeldFacts, Spill};
use cartograph_graph::{Analysis, ComponentRule};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::analyse::{
    AnalyseError, AnalysisOptions, Prepared, PreparedText, analyse_inventory, in_pool, prepare_one,
    spilled, tree_reads,
};
use crate::cache::FactCache;
use crate::discover::{DiscoverError, DiscoveryOptions, Inventory, SourceCandidate};
use crate::source::FileSource;
use crate::tree::TreeIndex;

/// The first bytes of every fact file; the digit is the layout's version.
const MAGIC: &[u8; 8] = b"CGSHARD1";
/// Magic and payload hash.
const HEADER_LEN: usize = 8 + 32;

/// One shard of `count`: `index` runs from 1 to `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: u32,
    pub count: u32,
}

/// The most shards a tree may be cut into.
pub const MAX_SHARDS: u32 = 4096;

impl ShardSpec {
    /// Reads `K/N`, with `1 <= K <= N <= MAX_SHARDS`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not K/N (e.g. 1/4: the first of four shards)"))?;
        let number = |part: &str| part.trim().parse::<u32>().ok();
        let (Some(index), Some(count)) = (number(k), number(n)) else {
            return Err(format!("`{text}` is not K/N with whole numbers (e.g. 1/4)"));
        };
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("`{text}`: the number of shards must be from 1 to {MAX_SHARDS}"));
        }
        if index == 0 || index > count {
            return Err(format!("`{text}` names no shard: K runs from 1 to {count}"));
        }
        Ok(Self { index, count })
    }

    /// Whether `path` falls in this shard's slice.
    pub fn holds(&self, path: &RepoPath) -> bool {
        slice_of(path, self.count) == self.index - 1
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The 0-based slice of `count` that `path` belongs to.
fn slice_of(path: &RepoPath, count: u32) -> u32 {
    let hash = blake3::hash(path.as_str().as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    (u64::from_le_bytes(first) % u64::from(count)) as u32
}

/// Why fact files cannot be merged. The messages name fact files by their place in the argument
/// list (1-based), never by path.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("no fact files to merge")]
    Empty,
    #[error(
        "fact file {0} is not a Cartograph fact file (written by `cartograph snapshot --shard K/N`)"
    )]
    NotAFactFile(usize),
    #[error("fact file {0} is damaged (its content does not match its checksum)")]
    Damaged(usize),
    #[error(
        "fact file {0} was written by another build of Cartograph ({1}); write every shard with the same build as the merge"
    )]
    OtherBuild(usize, String),
    #[error("fact file {0} is shard {1} of {2}, but fact file 1 is of {3} shards")]
    CountMismatch(usize, u32, u32, u32),
    #[error("fact files {0} and {1} are both shard {2}")]
    Duplicate(usize, usize, u32),
    #[error("shard {missing} of {count} is missing: merge needs every shard from 1 to {count}")]
    Missing { missing: u32, count: u32 },
    #[error(
        "fact file {0} was written from another tree or with other options than fact file 1; write every shard from the same tree with the same options"
    )]
    OtherTree(usize),
    #[error(transparent)]
    Analyse(#[from] AnalyseError),
}

/// What a fact file holds (the payload).
#[derive(Serialize, Deserialize)]
struct FactFile {
    /// The tool's version and the extractor's fingerprint: facts of another build are never mixed.
    build: String,
    index: u32,
    count: u32,
    /// blake3 of the encoded `shared` part, compared across shards.
    shared_hash: [u8; 32],
    shared: Shared,
    files: Vec<ShardFile>,
}

/// What every shard of one tree carries the same.
#[derive(Serialize, Deserialize)]
struct Shared {
    options: RecordedOptions,
    inventory: RecordedInventory,
    reads: Vec<RecordedRead>,
}

#[derive(Serialize, Deserialize, Clone)]
struct RecordedOptions {
    max_file_size: u64,
    include_builtins: bool,
    imports_only: bool,
    components: RecordedComponents,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
enum RecordedComponents {
    Depth(u64),
    PackageRoots(u64),
}

#[derive(Serialize, Deserialize)]
struct RecordedInventory {
    /// `(path, grammar number in GRAMMARS, size)`, in the inventory's order.
    sources: Vec<(RepoPath, u8, u64)>,
    prisma_schemas: Vec<RepoPath>,
    sql_schemas: Vec<RepoPath>,
    files: Vec<RepoPath>,
    refusals: Vec<Refusal>,
    excluded_dirs: Vec<RepoPath>,
    entries_seen: u64,
    other_files: BTreeMap<String, u64>,
}

/// One read besides the sources: the bytes, or why it failed.
#[derive(Serialize, Deserialize)]
struct RecordedRead {
    path: RepoPath,
    outcome: Result<Vec<u8>, RecordedErrorKind>,
}

/// An I/O error's kind, as far as a message shows it.
#[derive(Serialize, Deserialize, Clone, Copy)]
enum RecordedErrorKind {
    NotFound,
    PermissionDenied,
    InvalidData,
    InvalidInput,
    UnexpectedEof,
    IsADirectory,
    Other,
}

impl From<io::ErrorKind> for RecordedErrorKind {
    fn from(kind: io::ErrorKind) -> Self {
        match kind {
            io::ErrorKind::NotFound => Self::NotFound,
            io::ErrorKind::PermissionDenied => Self::PermissionDenied,
            io::ErrorKind::InvalidData => Self::InvalidData,
            io::ErrorKind::InvalidInput => Self::InvalidInput,
            io::ErrorKind::UnexpectedEof => Self::UnexpectedEof,
            io::ErrorKind::IsADirectory => Self::IsADirectory,
            _ => Self::Other,
        }
    }
}

impl From<RecordedErrorKind> for io::ErrorKind {
    fn from(kind: RecordedErrorKind) -> Self {
        match kind {
            RecordedErrorKind::NotFound => io::ErrorKind::NotFound,
            RecordedErrorKind::PermissionDenied => io::ErrorKind::PermissionDenied,
            RecordedErrorKind::InvalidData => io::ErrorKind::InvalidData,
            RecordedErrorKind::InvalidInput => io::ErrorKind::InvalidInput,
            RecordedErrorKind::UnexpectedEof => io::ErrorKind::UnexpectedEof,
            RecordedErrorKind::IsADirectory => io::ErrorKind::IsADirectory,
            RecordedErrorKind::Other => io::ErrorKind::Other,
        }
    }
}

/// One source file of the slice: its place in the inventory and what preparing it gave.
#[derive(Serialize, Deserialize)]
struct ShardFile {
    position: u32,
    outcome: Result<ShardText, Refusal>,
}

#[derive(Serialize, Deserialize)]
struct ShardText {
    bytes: u64,
    lossy: bool,
    facts: HeldFacts,
}

fn build_id() -> String {
    format!("{} {}", env!("CARGO_PKG_VERSION"), cartograph_extract::FACTS_FINGERPRINT)
}

/// Analyses one shard of the tree `source` lists: discovers the whole tree, extracts the facts of
/// the files in `shard`'s slice (from `cache` when it holds them), and returns the fact file.
pub fn write_shard(
    source: &dyn FileSource,
    options: &AnalysisOptions,
    shard: ShardSpec,
    cache: Option<&FactCache>,
) -> Result<Vec<u8>, AnalyseError> {
    in_pool(options.threads, || {
        // Every file's facts are held until the fact file is encoded, their bytes in a spill.
        let spill = options.new_spill();
        let inventory = source.discover(&options.discovery)?;
        let reads = tree_reads(source, &inventory, options);
        let new_extractor =
            || if options.imports_only { Extractor::imports_only() } else { Extractor::new() };
        let files: Vec<ShardFile> = inventory
            .sources
            .par_iter()
            .enumerate()
            .filter(|(_, candidate)| shard.holds(&candidate.path))
            .map_init(new_extractor, |extractor, (position, candidate)| {
                let prepared = prepare_one(extractor, source, candidate, options, cache, &spill);
                ShardFile {
                    position: position as u32,
                    // `prepare_one` defers nothing: every text has its facts.
                    outcome: prepared.outcome.and_then(|text| match text.facts {
                        Some(facts) => Ok(ShardText {
                            bytes: text.bytes,
                            lossy: text.lossy,
                            facts: std::sync::Arc::unwrap_or_clone(facts),
                        }),
                        None => Err(Refusal::new(
                            RefusalKind::UnreadableFile,
                            SourceLocation::file(candidate.path.clone()),
                            "its facts could not be read from the cache nor extracted again",
                        )),
                    }),
                }
            })
            .collect();
        let shared = Shared {
            options: record_options(options),
            inventory: record_inventory(inventory),
            reads: reads
                .into_iter()
                .map(|(path, outcome)| RecordedRead {
                    path,
                    outcome: outcome.map_err(|e| e.kind().into()),
                })
                .collect(),
        };
        let shared_hash = *blake3::hash(&encode(&shared)).as_bytes();
        let file = FactFile {
            build: build_id(),
            index: shard.index,
            count: shard.count,
            shared_hash,
            shared,
            files,
        };
        let payload = encode(&file);
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(blake3::hash(&payload).as_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    })
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain data (strings, numbers, vectors): encoding into memory cannot fail.
    postcard::to_stdvec(value).unwrap_or_default()
}

fn record_options(options: &AnalysisOptions) -> RecordedOptions {
    RecordedOptions {
        max_file_size: options.discovery.max_file_size,
        include_builtins: options.include_builtins,
        imports_only: options.imports_only,
        components: match options.components {
            ComponentRule::Depth(n) => RecordedComponents::Depth(n as u64),
            ComponentRule::PackageRoots { levels } => {
                RecordedComponents::PackageRoots(levels as u64)
            }
        },
    }
}

fn record_inventory(inventory: Inventory) -> RecordedInventory {
    RecordedInventory {
        sources: inventory
            .sources
            .into_iter()
            .map(|c| {
                let code = GRAMMARS.iter().position(|g| g.grammar == c.grammar).unwrap_or(0);
                (c.path, code as u8, c.size)
            })
            .collect(),
        prisma_schemas: inventory.prisma_schemas,
        sql_schemas: inventory.sql_schemas,
        files: inventory.index.files().cloned().collect(),
        refusals: inventory.refusals,
        excluded_dirs: inventory.excluded_dirs,
        entries_seen: inventory.entries_seen,
        other_files: inventory.other_files,
    }
}

/// Reads one fact file; `number` is its 1-based place in the merge's arguments.
fn decode(number: usize, bytes: &[u8]) -> Result<FactFile, MergeError> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err(MergeError::NotAFactFile(number));
    }
    let payload = &bytes[HEADER_LEN..];
    if blake3::hash(payload).as_bytes() != &bytes[8..HEADER_LEN] {
        return Err(MergeError::Damaged(number));
    }
    let file: FactFile = postcard::from_bytes(payload).map_err(|_| MergeError::Damaged(number))?;
    if file.build != build_id() {
        let version = file.build.split(' ').next().unwrap_or_default().to_owned();
        return Err(MergeError::OtherBuild(number, format!("version {version}")));
    }
    Ok(file)
}

/// Merges the fact files of every shard of one tree into its analysis: the analysis an unsharded
/// run with the same options gives. `threads` as in [`AnalysisOptions::threads`].
pub fn merge_shards(facts: &[Vec<u8>], threads: Option<usize>) -> Result<Analysis, MergeError> {
    let spill = std::sync::Arc::new(Spill::new());
    let mut decoded = Vec::with_capacity(facts.len());
    for (i, bytes) in facts.iter().enumerate() {
        decoded.push(decode(i + 1, bytes)?);
    }
    let Some(first) = decoded.first() else { return Err(MergeError::Empty) };
    let count = first.count;
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, file) in decoded.iter().enumerate() {
        let number = i + 1;
        if file.count != count {
            return Err(MergeError::CountMismatch(number, file.index, file.count, count));
        }
        if file.shared_hash != first.shared_hash {
            return Err(MergeError::OtherTree(number));
        }
        if let Some(earlier) = seen.insert(file.index, number) {
            return Err(MergeError::Duplicate(earlier, number, file.index));
        }
    }
    if let Some(missing) = (1..=count).find(|k| !seen.contains_key(k)) {
        return Err(MergeError::Missing { missing, count });
    }

    let mut decoded = decoded.into_iter();
    let Some(first) = decoded.next() else { return Err(MergeError::Empty) };
    let FactFile { index: first_index, shared, files, .. } = first;
    let Shared { options, inventory, reads } = shared;
    let inventory = restore_inventory(inventory);
    let mut slots: Vec<Option<Prepared>> = (0..inventory.sources.len()).map(|_| None).collect();
    let shard_files =
        std::iter::once((first_index, files)).chain(decoded.map(|file| (file.index, file.files)));
    for (number, (index, files)) in shard_files.enumerate().map(|(i, f)| (i + 1, f)) {
        for file in files {
            let position = file.position as usize;
            // Each file of the inventory once, from the shard whose slice holds it.
            let belongs = inventory
                .sources
                .get(position)
                .is_some_and(|candidate| slice_of(&candidate.path, count) + 1 == index);
            match slots.get_mut(position) {
                Some(slot @ None) if belongs => {
                    *slot = Some(Prepared {
                        outcome: file.outcome.map(|text| PreparedText {
                            bytes: text.bytes,
                            lossy: text.lossy,
                            version: None,
                            key: None,
                            facts: Some(spilled(std::sync::Arc::new(text.facts), &spill)),
                        }),
                        extracted: false,
                    });
                }
                _ => return Err(MergeError::Damaged(number)),
            }
        }
    }
    let mut prepared = Vec::with_capacity(slots.len());
    for (slot, candidate) in slots.into_iter().zip(&inventory.sources) {
        match slot {
            Some(file) => prepared.push(file),
            None => {
                let index = slice_of(&candidate.path, count) + 1;
                return Err(MergeError::Damaged(seen.get(&index).copied().unwrap_or(1)));
            }
        }
    }
    let options = AnalysisOptions {
        discovery: DiscoveryOptions {
            max_file_size: options.max_file_size,
            ..DiscoveryOptions::default()
        },
        include_builtins: options.include_builtins,
        threads,
        components: match options.components {
            RecordedComponents::Depth(n) => ComponentRule::Depth(n as usize),
            RecordedComponents::PackageRoots(levels) => {
                ComponentRule::PackageRoots { levels: levels as usize }
            }
        },
        imports_only: options.imports_only,
        spill_limit: None,
    };
    let source =
        Recorded { reads: reads.into_iter().map(|read| (read.path, read.outcome)).collect() };
    let started = std::time::Instant::now();
    Ok(in_pool(threads, || {
        analyse_inventory(&source, inventory, Some(prepared), &options, None, &spill, started)
    })?)
}

fn restore_inventory(recorded: RecordedInventory) -> Inventory {
    Inventory {
        sources: recorded
            .sources
            .into_iter()
            .map(|(path, code, size)| SourceCandidate {
                path,
                grammar: GRAMMARS.get(usize::from(code)).map_or(Grammar::Python, |g| g.grammar),
                size,
            })
            .collect(),
        prisma_schemas: recorded.prisma_schemas,
        sql_schemas: recorded.sql_schemas,
        index: TreeIndex::new(recorded.files),
        refusals: recorded.refusals,
        excluded_dirs: recorded.excluded_dirs,
        entries_seen: recorded.entries_seen,
        other_files: recorded.other_files,
    }
}

/// A [`FileSource`] that wraps another and keeps every read's outcome, for a shard to record.
pub(crate) struct Recorder<'a> {
    inner: &'a dyn FileSource,
    reads: Mutex<BTreeMap<RepoPath, io::Result<Vec<u8>>>>,
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(inner: &'a dyn FileSource) -> Self {
        Self { inner, reads: Mutex::new(BTreeMap::new()) }
    }

    /// The reads, in path order.
    pub(crate) fn into_reads(self) -> Vec<(RepoPath, io::Result<Vec<u8>>)> {
        self.reads.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().collect()
    }
}

impl FileSource for Recorder<'_> {
    fn discover(&self, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
        self.inner.discover(options)
    }

    fn read(&self, path: &RepoPath, size_hint: u64) -> io::Result<Vec<u8>> {
        let outcome = self.inner.read(path, size_hint);
        let kept = match &outcome {
            Ok(bytes) => Ok(bytes.clone()),
            Err(e) => Err(io::Error::from(e.kind())),
        };
        self.reads.lock().unwrap_or_else(|e| e.into_inner()).insert(path.clone(), kept);
        outcome
    }
}

/// A [`FileSource`] that serves recorded reads (what a [`Recorder`] kept) and reads anything else
/// from the source it wraps: an analysis whose cache key was made of those bytes reads the same.
pub(crate) struct Replayed<'a> {
    inner: &'a dyn FileSource,
    reads: BTreeMap<RepoPath, io::Result<Vec<u8>>>,
}

impl<'a> Replayed<'a> {
    pub(crate) fn new(
        inner: &'a dyn FileSource,
        reads: Vec<(RepoPath, io::Result<Vec<u8>>)>,
    ) -> Self {
        Self { inner, reads: reads.into_iter().collect() }
    }
}

impl FileSource for Replayed<'_> {
    fn discover(&self, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
        self.inner.discover(options)
    }

    fn read(&self, path: &RepoPath, size_hint: u64) -> io::Result<Vec<u8>> {
        match self.reads.get(path) {
            Some(Ok(bytes)) => Ok(bytes.clone()),
            Some(Err(error)) => Err(io::Error::from(error.kind())),
            None => self.inner.read(path, size_hint),
        }
    }
}

/// The reads a shard recorded, served to the merge's analysis in place of the tree.
struct Recorded {
    reads: BTreeMap<RepoPath, Result<Vec<u8>, RecordedErrorKind>>,
}

impl FileSource for Recorded {
    fn discover(&self, _: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
        // A merge hands the analysis the recorded inventory; nothing walks this source.
        Err(DiscoverError::ObjectStore)
    }

    fn read(&self, path: &RepoPath, _: u64) -> io::Result<Vec<u8>> {
        match self.reads.get(path) {
            Some(Ok(bytes)) => Ok(bytes.clone()),
            Some(Err(kind)) => Err(io::Error::from(io::ErrorKind::from(*kind))),
            // The analysis reads only what the shard read; anything else was not recorded.
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse_and_refuse() {
        assert_eq!(ShardSpec::parse("2/4"), Ok(ShardSpec { index: 2, count: 4 }));
        assert_eq!(ShardSpec::parse("1/1"), Ok(ShardSpec { index: 1, count: 1 }));
        for bad in ["", "2", "0/4", "5/4", "1/0", "a/4", "1/b", "-1/4", "1/4097", "1/4/2"] {
            assert!(ShardSpec::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(ShardSpec { index: 3, count: 8 }.to_string(), "3/8");
    }

    #[test]
    fn every_path_is_in_exactly_one_slice() {
        let paths: Vec<RepoPath> =
            (0..500).map(|i| RepoPath::new(&format!("pkg{}/m{i}.py", i % 7)).unwrap()).collect();
        for count in [1, 2, 3, 4, 16] {
            let mut sizes = vec![0usize; count as usize];
            for path in &paths {
                let holders: Vec<u32> =
                    (1..=count).filter(|&index| ShardSpec { index, count }.holds(path)).collect();
                assert_eq!(holders.len(), 1, "{path} in {count} shards");
                sizes[holders[0] as usize - 1] += 1;
            }
            // A hash spreads the files: no slice of a few is empty or holds most of them.
            let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(count == 1 || (*min > 0 && *max < paths.len() / 2 + 40), "{sizes:?}");
        }
    }

    #[test]
    fn the_slice_of_a_path_is_fixed_by_its_bytes_alone() {
        // The assignment is part of the contract between shards written on different machines:
        // it must never depend on the platform, the process or the order files are found in.
        let path = RepoPath::new("src/app/main.py").unwrap();
        let first = u64::from_le_bytes(
            blake3::hash(b"src/app/main.py").as_bytes()[..8].try_into().unwrap(),
        );
        assert_eq!(u64::from(slice_of(&path, 7)), first % 7);
    }

    #[test]
    fn damaged_and_foreign_fact_files_are_refused() {
        assert!(matches!(merge_shards(&[], None), Err(MergeError::Empty)));
        assert!(matches!(merge_shards(&[b"{}".to_vec()], None), Err(MergeError::NotAFactFile(1))));
        let mut forged = MAGIC.to_vec();
        forged.extend_from_slice(&[0; 32]);
        forged.extend_from_slice(b"payload");
        assert!(matches!(merge_shards(&[forged], None), Err(MergeError::Damaged(1))));
    }
}
