//! Helpers shared by the fuzz targets: an in-memory tree for the whole pipeline, lossy text, and
//! a fixture analysis loaded once per process.
//!
//! Every target takes arbitrary bytes. Where an entry point takes `&str`, the bytes are decoded
//! lossily, as the pipeline itself decodes a file that is not UTF-8. Where it reads a tree, the
//! input becomes one or more files of an in-memory tree handed to
//! [`cartograph_pipeline::analyse_source`], so discovery's classification, extraction, resolution
//! and the linkers all run on it.

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;
use std::sync::{Once, OnceLock};

use cartograph_core::RepoPath;
use cartograph_extract::{grammar_for, is_schema_file};
use cartograph_graph::{Analysis, ComponentRule};
use cartograph_pipeline::discover::{DiscoverError, SourceCandidate};
use cartograph_pipeline::{AnalysisOptions, DiscoveryOptions, FileSource, Inventory, TreeIndex};

/// The input as text: lossy UTF-8.
pub fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// One of `choices`, picked by the input's length, so the choice is part of the input (a test
/// case replays with the same choice) without spending any of its bytes.
pub fn pick<'a, T>(data: &[u8], choices: &'a [T]) -> &'a T {
    &choices[data.len() % choices.len()]
}

/// Splits the input at NUL bytes into at most `parts` pieces (the last keeps any further NULs).
pub fn split(data: &[u8], parts: usize) -> Vec<&[u8]> {
    data.splitn(parts, |b| *b == 0).collect()
}

/// A tree held in memory: `(path, content)` pairs.
pub struct MemoryTree {
    files: Vec<(RepoPath, Vec<u8>)>,
}

impl MemoryTree {
    /// A tree of the given files; a path that is not a valid repository path is left out.
    pub fn new<'a>(files: impl IntoIterator<Item = (&'a str, Vec<u8>)>) -> Self {
        let mut files: Vec<(RepoPath, Vec<u8>)> = files
            .into_iter()
            .filter_map(|(path, bytes)| Some((RepoPath::new(path).ok()?, bytes)))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files.dedup_by(|a, b| a.0 == b.0);
        Self { files }
    }
}

impl FileSource for MemoryTree {
    fn discover(&self, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
        let mut sources = Vec::new();
        let mut prisma_schemas = Vec::new();
        let mut sql_schemas = Vec::new();
        for (path, bytes) in &self.files {
            let size = bytes.len() as u64;
            if size > options.max_file_size {
                continue;
            }
            if path.extension() == Some("prisma") {
                prisma_schemas.push(path.clone());
            } else if is_schema_file(path) {
                sql_schemas.push(path.clone());
            } else if let Some(grammar) = grammar_for(path) {
                sources.push(SourceCandidate { path: path.clone(), grammar, size });
            }
        }
        Ok(Inventory {
            sources,
            prisma_schemas,
            sql_schemas,
            index: TreeIndex::new(self.files.iter().map(|(p, _)| p.clone())),
            refusals: Vec::new(),
            excluded_dirs: Vec::new(),
            entries_seen: self.files.len() as u64,
        })
    }

    fn read(&self, path: &RepoPath, _size_hint: u64) -> io::Result<Vec<u8>> {
        self.files
            .binary_search_by(|(p, _)| p.cmp(path))
            .map(|i| self.files[i].1.clone())
            .map_err(|_| io::Error::from(io::ErrorKind::NotFound))
    }
}

/// Rayon's global pool with one worker: the fuzzer runs one target at a time on a shared machine.
fn one_thread() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // Fails only when the pool already exists, which is as good.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
    });
}

/// The options the CLI analyses with, on rayon's global pool.
pub fn options() -> AnalysisOptions {
    AnalysisOptions {
        discovery: DiscoveryOptions::default(),
        include_builtins: false,
        threads: None,
        components: ComponentRule::default(),
        imports_only: false,
    }
}

/// Analyses an in-memory tree through the whole pipeline. An analysis of an in-memory tree cannot
/// fail to start (discovery cannot fail), so an error is a bug.
pub fn analyse(tree: &MemoryTree) -> Analysis {
    one_thread();
    match cartograph_pipeline::analyse_source(tree, &options(), None) {
        Ok(analysis) => analysis,
        Err(error) => panic!("an in-memory tree failed to analyse: {error}"),
    }
}

/// The repository's root (the fuzz crate's parent).
pub fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The analysis of `tests/fixtures/rules/head`, loaded once per process: a real tree for the
/// targets that judge or diff what they decode against something.
pub fn fixture_analysis() -> &'static Analysis {
    static ANALYSIS: OnceLock<Analysis> = OnceLock::new();
    ANALYSIS.get_or_init(|| {
        one_thread();
        let root = repository().join("tests/fixtures/rules/head");
        match cartograph_pipeline::analyse_tree(&root, &options()) {
            Ok(analysis) => analysis,
            Err(error) => panic!("the fixture tree tests/fixtures/rules/head is missing: {error}"),
        }
    })
}
