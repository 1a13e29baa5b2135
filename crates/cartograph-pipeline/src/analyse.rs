//! The analysis of one tree: discovery, parallel extraction and resolution, merged in a fixed order.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use cartograph_core::{
    Confidence, Ecosystem, Edge, EdgeKind, Evidence, Language, Node, NodeAttrs, NodeKey,
    Provenance, Refusal, RefusalKind, RepoPath, SourceLocation, TextPool,
};
use cartograph_extract::{
    Extractor, Family, FileFacts, Grammar, HeldFacts, ImportFact, ImportTarget, Imported,
    LargePlace, Spill, Syntax, Undecodable,
};
use cartograph_graph::{Analysis, AnalysisStats, ComponentRule, assign_components};
use rayon::prelude::*;

use crate::cache::{FactCache, FactKey, TreeKey};
use crate::discover::{
    self, DiscoverError, DiscoveryOptions, Inventory, SourceCandidate, SourceText,
};
use crate::link::{
    BindingTarget, FileView, LinkInput, LinkState, Linked, ResolvedBinding, Spreader, link_family,
};
use crate::resolve::Resolution;
use crate::resolve::python::PythonResolver;
use crate::resolve::rust::RustResolver;
use crate::resolve::typescript::JsResolver;
use crate::shard::Replayed;
use crate::source::{DirectorySource, FileSource};
use crate::tree::TreeIndex;

/// How an analysis runs.
#[derive(Debug, Clone, Default)]
pub struct AnalysisOptions {
    pub discovery: DiscoveryOptions,
    /// Keep imports of the Python standard library and Node built-ins as package nodes.
    pub include_builtins: bool,
    /// Worker threads; `None` uses rayon's global pool (`RAYON_NUM_THREADS` or the core count).
    pub threads: Option<usize>,
    /// How modules are grouped into components.
    pub components: ComponentRule,
    /// Extract the import graph only: no routes, calls, tables or environment variables.
    pub imports_only: bool,
    /// The most bytes of held facts kept in memory before the rest moves to an anonymous
    /// temporary file (see [`Spill`]); `None` for [`Spill::DEFAULT_LIMIT`]. Changes no output.
    pub spill_limit: Option<usize>,
}

impl AnalysisOptions {
    /// Where an analysis holds its files' facts until they are linked.
    pub(crate) fn new_spill(&self) -> Arc<Spill> {
        Arc::new(Spill::with_limit(self.spill_limit.unwrap_or(Spill::DEFAULT_LIMIT)))
    }
}

/// Why an analysis could not start.
#[derive(Debug, thiserror::Error)]
pub enum AnalyseError {
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    #[error("cannot start {0} worker threads")]
    ThreadPool(usize),
    /// An analysis put aside in the temporary file while the next tree was analysed, or a
    /// tree's edges put there while it was linked, could not be read back (the file was damaged
    /// or became unreadable during the run).
    #[error("what the run kept in a temporary file could not be read back")]
    PutAside,
}

/// Analyses the directory tree at `root`.
pub fn analyse_tree(root: &Path, options: &AnalysisOptions) -> Result<Analysis, AnalyseError> {
    analyse_source(&DirectorySource::new(root), options, None)
}

/// Analyses the tree `source` lists. With a `cache`, a file whose facts it holds (same path,
/// grammar and content) is not parsed again, and what is parsed is added to it.
pub fn analyse_source(
    source: &dyn FileSource,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<Analysis, AnalyseError> {
    in_pool(options.threads, || analyse_in_pool(source, options, cache))
}

/// Runs `work` on a pool of `threads` workers, or on rayon's global pool.
pub(crate) fn in_pool<T: Send>(
    threads: Option<usize>,
    work: impl FnOnce() -> Result<T, AnalyseError> + Send,
) -> Result<T, AnalyseError> {
    match threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|_| AnalyseError::ThreadPool(n))?
            .install(work),
        None => work(),
    }
}

fn analyse_in_pool(
    source: &dyn FileSource,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<Analysis, AnalyseError> {
    if cache.is_some_and(FactCache::keeps_trees) {
        // The whole tree may be in the cache: read and key every file first.
        let mut analyses = analyse_many_in_pool(&[source], options, cache)?;
        let mut analysis = analyses.pop().unwrap_or_default();
        // A tree analysed alone numbers no versions.
        analysis.file_versions.clear();
        return Ok(analysis);
    }
    let started = std::time::Instant::now();
    let inventory = source.discover(&options.discovery)?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = resident_mib(),
        files = inventory.sources.len(),
        "discovered"
    );
    let spill = options.new_spill();
    analyse_inventory(source, inventory, None, options, cache, &spill, started)
}

/// Analyses several trees at once, as a diff does: in one parallel pass over all trees (largest
/// files first, so no worker idles at the end), the versions of each path are read together and
/// each distinct content is extracted once, sharing its facts between the trees; then each tree
/// is resolved and linked on its own. The results come back in the order of `sources`.
pub fn analyse_sources(
    sources: &[&dyn FileSource],
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<Vec<Analysis>, AnalyseError> {
    in_pool(options.threads, || analyse_many_in_pool(sources, options, cache))
}

fn analyse_many_in_pool(
    sources: &[&dyn FileSource],
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<Vec<Analysis>, AnalyseError> {
    let started = std::time::Instant::now();
    let spill = options.new_spill();
    // The trees are discovered in parallel (each walk is mostly waiting on the file system).
    let inventories = sources
        .par_iter()
        .map(|source| source.discover(&options.discovery))
        .collect::<Result<Vec<Inventory>, _>>()?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = resident_mib(),
        "all trees discovered"
    );

    // The versions of one file (same path and grammar) across the trees, in tree order, go to one
    // worker together: it reads them, extracts each distinct content once, and parses each later
    // version incrementally from the one before (`Extractor::extract_versions`). Largest groups
    // first, so no worker idles at the end. A text is dropped as soon as its group is done.
    let mut groups: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut group_of: HashMap<(&RepoPath, Grammar), usize> = HashMap::new();
    for (tree, inventory) in inventories.iter().enumerate() {
        for (i, candidate) in inventory.sources.iter().enumerate() {
            let group =
                *group_of.entry((&candidate.path, candidate.grammar)).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
            groups[group].push((tree, i));
        }
    }
    let candidate = |&(tree, i): &(usize, usize)| &inventories[tree].sources[i];
    groups.sort_by_cached_key(|group| {
        let size: u64 = group.iter().map(|job| candidate(job).size).sum();
        (std::cmp::Reverse(size), candidate(&group[0]).path.clone())
    });
    let new_extractor =
        || if options.imports_only { Extractor::imports_only() } else { Extractor::new() };
    // With whole trees kept, the facts the cache holds are read only for trees it does not.
    let defer = cache.is_some_and(FactCache::keeps_trees);
    let mut prepared: Vec<((usize, usize), Prepared)> = groups
        .par_iter()
        .map_init(new_extractor, |extractor, group| {
            let versions: Vec<(&dyn FileSource, &SourceCandidate)> =
                group.iter().map(|job| (sources[job.0], candidate(job))).collect();
            group
                .iter()
                .copied()
                .zip(prepare_versions(extractor, &versions, options, cache, defer, &spill))
        })
        .flatten_iter()
        .collect();
    let extracted = prepared.iter().filter(|(_, p)| p.extracted).count();
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = resident_mib(),
        extracted,
        "distinct contents extracted"
    );

    // Hand each tree its own files, in its candidates' order.
    prepared.sort_unstable_by_key(|(job, _)| *job);
    let mut per_tree: Vec<Vec<Prepared>> =
        inventories.iter().map(|inv| Vec::with_capacity(inv.sources.len())).collect();
    for ((tree, _), file) in prepared {
        per_tree[tree].push(file);
    }
    // The trees are resolved and linked one after the other, each on the whole pool: side by
    // side, the peak held both trees' working memory at once.
    let Some(cache) = cache.filter(|cache| cache.keeps_trees()) else {
        // Every analysis but the last is put aside in the spill, encoded, while the next tree is
        // analysed: held whole, the base of a large diff was ~400 MiB under the head's peak.
        let last = inventories.len().saturating_sub(1);
        let mut done: Vec<Aside> = Vec::with_capacity(inventories.len());
        for (i, ((inventory, files), source)) in
            inventories.into_iter().zip(per_tree).zip(sources).enumerate()
        {
            let analysis = analyse_inventory(
                *source,
                inventory,
                Some(files),
                options,
                cache,
                &spill,
                started,
            )?;
            done.push(if i < last { Aside::put(analysis, &spill) } else { Aside::Kept(analysis) });
        }
        return done.into_iter().map(|aside| aside.take(&spill)).collect();
    };

    // Each tree whose whole analysis the cache keeps is done; the others are analysed below.
    let stages: Vec<Stage> = inventories
        .into_par_iter()
        .zip(per_tree)
        .zip(sources.par_iter())
        .map(|((inventory, files), source)| {
            let reads = tree_reads(*source, &inventory, options);
            let key = tree_key(&inventory, &files, &reads, options);
            if let Some(mut analysis) = key.and_then(|key| cache.get_tree(&key)) {
                analysis.file_versions = versions_of(&inventory, &files);
                return Stage::Done(analysis);
            }
            Stage::Todo { inventory, files, key, reads }
        })
        .collect();
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = resident_mib(),
        kept = stages.iter().filter(|s| matches!(s, Stage::Done(_))).count(),
        "trees looked up in the cache"
    );
    // While the others are analysed, the trees the cache kept wait in the spill (see `Aside`).
    let todo = stages.iter().filter(|s| matches!(s, Stage::Todo { .. })).count();
    let stages: Vec<Stage> = stages
        .into_iter()
        .map(|stage| match stage {
            Stage::Done(analysis) if todo > 0 => Stage::Waiting(Aside::put(analysis, &spill)),
            other => other,
        })
        .collect();

    // The deferred facts of the trees to analyse, each distinct content read once.
    let mut wanted: Vec<FactKey> = stages
        .iter()
        .filter_map(|stage| match stage {
            Stage::Todo { files, .. } => Some(files),
            Stage::Done(_) | Stage::Waiting(_) => None,
        })
        .flatten()
        .filter_map(|file| match &file.outcome {
            Ok(PreparedText { facts: None, key, .. }) => *key,
            _ => None,
        })
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let read: HashMap<FactKey, Arc<HeldFacts>> = wanted
        .into_par_iter()
        .filter_map(|key| Some((key, spilled(cache.get_deferred(&key)?, &spill))))
        .collect();
    let stages: Vec<Stage> = stages
        .into_iter()
        .map(|mut stage| {
            if let Stage::Todo { files, .. } = &mut stage {
                for file in files.iter_mut() {
                    if let Ok(text) = &mut file.outcome
                        && text.facts.is_none()
                    {
                        text.facts = text.key.and_then(|key| read.get(&key).cloned());
                    }
                }
            }
            stage
        })
        .collect();
    drop(read);

    // Each analysis but the last one made waits in the spill too.
    let mut left = todo;
    let mut done: Vec<Aside> = Vec::with_capacity(stages.len());
    for (stage, source) in stages.into_iter().zip(sources) {
        let (inventory, mut files, key, reads) = match stage {
            Stage::Done(analysis) => {
                done.push(Aside::Kept(analysis));
                continue;
            }
            Stage::Waiting(aside) => {
                done.push(aside);
                continue;
            }
            Stage::Todo { inventory, files, key, reads } => (inventory, files, key, reads),
        };
        // The analysis reads the configuration and schema bytes its key was made of, not
        // the tree again.
        let source = Replayed::new(*source, reads);
        let unchanged = fill_deferred(&source, &inventory, &mut files, options, cache, &spill);
        let mut analysis = analyse_inventory(
            &source,
            inventory,
            Some(files),
            options,
            Some(cache),
            &spill,
            started,
        )?;
        // A file that changed while the run read it is analysed as it is now, which the key
        // does not describe: such an analysis is not kept.
        if let Some(key) = key.filter(|_| unchanged) {
            // Kept without this run's version numbers, which depend on the other trees.
            let versions = std::mem::take(&mut analysis.file_versions);
            cache.put_tree(&key, &analysis);
            analysis.file_versions = versions;
        }
        left -= 1;
        done.push(if left > 0 { Aside::put(analysis, &spill) } else { Aside::Kept(analysis) });
    }
    done.into_iter().map(|aside| aside.take(&spill)).collect()
}

/// An analysis done while trees after it are analysed: its parts (`parts.rs`) in the spill, or
/// kept as it is when the spill cannot take it.
#[allow(clippy::large_enum_variant)] // one per tree of a run, never many
enum Aside {
    Kept(Analysis),
    Spilled(Vec<LargePlace>),
}

/// Fewer encoded bytes than an edge takes on average (about 100), to tell edges whose encoding
/// would fit in the spill's buffer: those stay as they are, since putting them aside would save
/// no memory and cost their encoding.
const ASIDE_BYTES_PER_EDGE: usize = 64;

/// About how many edges a file makes (its imports, mostly: 7 in the bench monorepos), to tell
/// a tree whose files' edges are worth putting aside before they are made.
const EDGES_PER_FILE: usize = 8;

/// True when `edges` edges are worth putting aside in `spill` (see [`ASIDE_BYTES_PER_EDGE`]).
fn worth_putting_aside(edges: usize, spill: &Spill) -> bool {
    edges.saturating_mul(ASIDE_BYTES_PER_EDGE) >= spill.limit()
}

/// Encodes `value` into the spill. Encoding into memory fails only for a value serde cannot
/// represent, which none of ours is; then, or when the spill refuses the bytes, `None`.
fn put_in<T: serde::Serialize + ?Sized>(value: &T, spill: &Spill) -> Option<LargePlace> {
    spill.put_large(&postcard::to_allocvec(value).ok()?)
}

/// Decodes what [`put_in`] put at `place`; `None` when it cannot be read back whole.
fn read_from<T: serde::de::DeserializeOwned>(spill: &Spill, place: &LargePlace) -> Option<T> {
    postcard::from_bytes(&spill.get_large(place).ok()?).ok()
}

impl Aside {
    fn put(analysis: Analysis, spill: &Spill) -> Self {
        if !worth_putting_aside(analysis.edges.len(), spill) {
            return Self::Kept(analysis);
        }
        let mut places = Vec::new();
        let put = crate::parts::encode(&analysis, |part| {
            let place =
                spill.put_large(part).ok_or_else(|| std::io::Error::other("spill refused"))?;
            places.push(place);
            Ok(())
        });
        match put {
            Ok(()) => Self::Spilled(places),
            Err(_) => Self::Kept(analysis),
        }
    }

    /// The analysis back, its texts shared as they were before it was put aside.
    fn take(self, spill: &Spill) -> Result<Analysis, AnalyseError> {
        let places = match self {
            Self::Kept(analysis) => return Ok(analysis),
            Self::Spilled(places) => places,
        };
        let mut places = places.iter();
        let next = || spill.get_large(places.next()?).ok();
        let analysis = crate::parts::decode(next, usize::MAX);
        analysis.filter(|_| places.next().is_none()).ok_or(AnalyseError::PutAside)
    }
}

/// A tree of [`analyse_many_in_pool`] once the cache of whole trees was asked.
enum Stage {
    /// Its analysis, kept by an earlier run.
    Done(Analysis),
    /// The same, waiting in the spill while the other trees are analysed.
    Waiting(Aside),
    /// To analyse, and to keep under `key`; `reads` are the configuration and schema files
    /// the key was made of.
    Todo {
        inventory: Inventory,
        files: Vec<Prepared>,
        key: Option<TreeKey>,
        reads: Vec<(RepoPath, std::io::Result<Vec<u8>>)>,
    },
}

/// Gives every file of `files` still without facts its facts: the cache said it held them, but
/// they were gone or damaged by the time they were read, so the file is read and extracted again,
/// and its facts kept under the key of what was read. False when a file's content is no longer
/// the one the first pass keyed (it changed during the run).
fn fill_deferred(
    source: &dyn FileSource,
    inventory: &Inventory,
    files: &mut [Prepared],
    options: &AnalysisOptions,
    cache: &FactCache,
    spill: &Arc<Spill>,
) -> bool {
    let new_extractor =
        || if options.imports_only { Extractor::imports_only() } else { Extractor::new() };
    let unchanged = std::sync::atomic::AtomicBool::new(true);
    files.par_iter_mut().zip(inventory.sources.par_iter()).for_each_init(
        new_extractor,
        |extractor, (file, candidate)| {
            let Ok(text) = &file.outcome else { return };
            if text.facts.is_some() {
                return;
            }
            let (keyed, version) = (text.key, text.version);
            let (path, grammar) = (&candidate.path, candidate.grammar);
            let mut again = match discover::read_source(source, candidate) {
                SourceText::Text { text, lossy } => {
                    let key = FactKey::new(path, grammar, options.imports_only, &text);
                    let facts = held(extractor.extract(path, grammar, &text), spill);
                    cache.put(key, &facts);
                    let bytes = text.len() as u64;
                    let fresh =
                        PreparedText { bytes, lossy, version, key: Some(key), facts: Some(facts) };
                    Prepared { outcome: Ok(fresh), extracted: true }
                }
                SourceText::Skipped(refusal) => {
                    Prepared { outcome: Err(refusal), extracted: false }
                }
            };
            let same = matches!(&again.outcome, Ok(fresh) if fresh.key == keyed);
            if !same {
                unchanged.store(false, std::sync::atomic::Ordering::Relaxed);
            }
            std::mem::swap(file, &mut again);
        },
    );
    unchanged.into_inner()
}

/// What an analysis of `inventory` reads, hashed: the build and the options (not the thread
/// count, which changes no output), the inventory as discovered, each source file's outcome and
/// fact key (its path, grammar and content), and the bytes of every configuration and schema
/// file the analysis reads. `None` when a file that was read has no fact key (no cache).
fn tree_key(
    inventory: &Inventory,
    files: &[Prepared],
    reads: &[(RepoPath, std::io::Result<Vec<u8>>)],
    options: &AnalysisOptions,
) -> Option<TreeKey> {
    use std::fmt::Write as _;
    /// Formats straight into the hasher.
    struct Hashing<'a>(&'a mut blake3::Hasher);
    impl std::fmt::Write for Hashing<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.update(s.as_bytes());
            Ok(())
        }
    }
    let mut hasher = TreeKey::hasher();
    let mut out = Hashing(&mut hasher);
    let AnalysisOptions {
        discovery,
        include_builtins,
        threads: _,
        components,
        imports_only,
        spill_limit: _,
    } = options;
    let _ = write!(out, "{discovery:?}\0{include_builtins}\0{components:?}\0{imports_only}\0");
    let Inventory {
        sources,
        prisma_schemas,
        sql_schemas,
        index,
        refusals,
        excluded_dirs,
        entries_seen,
        other_files,
    } = inventory;
    let _ = write!(out, "{prisma_schemas:?}\0{sql_schemas:?}\0{refusals:?}\0{excluded_dirs:?}\0");
    let _ = write!(out, "{entries_seen}\0{other_files:?}\0");
    for path in index.files() {
        let _ = write!(out, "{}\0", path.as_str());
    }
    if sources.len() != files.len() {
        return None;
    }
    for (candidate, file) in sources.iter().zip(files) {
        let _ = write!(
            out,
            "{}\0{:?}\0{}\0",
            candidate.path.as_str(),
            candidate.grammar,
            candidate.size
        );
        match &file.outcome {
            Ok(text) => {
                let key = text.key?;
                let _ = write!(out, "text\0{}\0{}\0{}\0", key.to_hex(), text.bytes, text.lossy);
            }
            Err(refusal) => {
                let _ = write!(out, "refused\0{refusal:?}\0");
            }
        }
    }
    for (path, read) in reads {
        let _ = write!(out, "{}\0", path.as_str());
        match read {
            Ok(bytes) => {
                let _ = write!(out, "read\0{}\0", blake3::hash(bytes).to_hex());
            }
            Err(error) => {
                let _ = write!(out, "unread\0{:?}\0", error.kind());
            }
        }
    }
    Some(TreeKey::from_hasher(&hasher))
}

/// Each analysed file's version number, as [`AnalysisBuilder::add_file`] records them.
fn versions_of(inventory: &Inventory, files: &[Prepared]) -> BTreeMap<RepoPath, u32> {
    inventory
        .sources
        .iter()
        .zip(files)
        .filter_map(|(candidate, file)| {
            let version = file.outcome.as_ref().ok()?.version?;
            Some((candidate.path.clone(), version))
        })
        .collect()
}

/// One file read and extracted (or taken from the cache), before its imports are resolved.
pub(crate) struct Prepared {
    pub(crate) outcome: Result<PreparedText, Refusal>,
    /// Whether this call extracted the facts (rather than finding them in the cache).
    pub(crate) extracted: bool,
}

pub(crate) struct PreparedText {
    pub(crate) bytes: u64,
    pub(crate) lossy: bool,
    /// The content's number among its path's distinct contents across trees analysed together.
    pub(crate) version: Option<u32>,
    /// The content's cache key, when there is a cache.
    pub(crate) key: Option<FactKey>,
    /// `None` while deferred: the cache holds them under `key`, and they are read only if the
    /// tree is analysed (see [`fill_deferred`]).
    pub(crate) facts: Option<Arc<HeldFacts>>,
}

/// Reads successive versions of one file (oldest first; same path and grammar, each from its own
/// tree) and gives each its facts. A version with the same bytes as an earlier one shares its
/// facts and is not decoded (found by comparing bytes: nothing is hashed without a cache). Any
/// other gets them from `cache` when it holds them, else extracted, each later version parsed
/// incrementally from the one before.
fn prepare_versions(
    extractor: &mut Extractor,
    versions: &[(&dyn FileSource, &SourceCandidate)],
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
    defer: bool,
    spill: &Arc<Spill>,
) -> Vec<Prepared> {
    let Some(&(_, first)) = versions.first() else { return Vec::new() };
    let (path, grammar) = (&first.path, first.grammar);
    let raw: Vec<std::io::Result<Vec<u8>>> = versions
        .iter()
        .map(|(source, candidate)| source.read(&candidate.path, candidate.size))
        .collect();
    // The first earlier version each one repeats byte for byte, if any.
    let repeats: Vec<Option<usize>> = (0..raw.len())
        .map(|j| {
            let Ok(bytes) = &raw[j] else { return None };
            (0..j).find(|&i| matches!(&raw[i], Ok(earlier) if earlier == bytes))
        })
        .collect();
    let versions: Vec<Version> = raw
        .into_iter()
        .zip(versions)
        .zip(repeats)
        .map(|((read, (_, candidate)), repeat)| match (repeat, read) {
            (Some(earlier), _) => Version::Repeat(earlier),
            (None, Ok(bytes)) => Version::Read(discover::classify_source(candidate, bytes)),
            (None, Err(error)) => {
                Version::Read(SourceText::Skipped(discover::unreadable(candidate, &error)))
            }
        })
        .collect();

    // Each decoded text's facts: the cache's, else extracted below.
    let mut facts: Vec<Option<Arc<HeldFacts>>> = vec![None; versions.len()];
    let mut keys: Vec<Option<FactKey>> = vec![None; versions.len()];
    let mut deferred = vec![false; versions.len()];
    let mut to_extract: Vec<usize> = Vec::new();
    for (j, version) in versions.iter().enumerate() {
        let text = match version {
            Version::Repeat(_) => {
                if let Some(cache) = cache {
                    cache.count_hit();
                }
                continue;
            }
            Version::Read(SourceText::Skipped(_)) => continue,
            Version::Read(SourceText::Text { text, .. }) => text,
        };
        if let Some(cache) = cache {
            let key = FactKey::new(path, grammar, options.imports_only, text);
            keys[j] = Some(key);
            if defer && cache.holds(&key) {
                deferred[j] = true;
                continue;
            }
            if let Some(cached) = cache.get(&key) {
                facts[j] = Some(spilled(cached, spill));
                continue;
            }
        }
        to_extract.push(j);
    }
    let extracted_texts: Vec<&str> = to_extract
        .iter()
        .map(|&j| match &versions[j] {
            Version::Read(SourceText::Text { text, .. }) => text.as_str(),
            _ => "",
        })
        .collect();
    for (&j, extracted) in
        to_extract.iter().zip(extractor.extract_versions(path, grammar, &extracted_texts))
    {
        let extracted = held(extracted, spill);
        if let (Some(cache), Some(key)) = (cache, keys[j]) {
            cache.put(key, &extracted);
        }
        facts[j] = Some(extracted);
    }
    drop(extracted_texts);

    let mut prepared: Vec<Prepared> = Vec::with_capacity(versions.len());
    let mut distinct = 0;
    for (j, version) in versions.into_iter().enumerate() {
        let file = match version {
            Version::Repeat(earlier) => {
                let outcome = match &prepared[earlier].outcome {
                    Ok(text) => Ok(PreparedText { facts: text.facts.clone(), ..*text }),
                    Err(refusal) => Err(refusal.clone()),
                };
                Prepared { outcome, extracted: false }
            }
            Version::Read(SourceText::Text { text, lossy }) => {
                let version = Some(distinct);
                distinct += 1;
                // Every decoded text has facts from above or is deferred; extracting here is only
                // a fallback.
                let facts =
                    if deferred[j] {
                        None
                    } else {
                        Some(facts[j].take().unwrap_or_else(|| {
                            held(extractor.extract(path, grammar, &text), spill)
                        }))
                    };
                Prepared {
                    outcome: Ok(PreparedText {
                        bytes: text.len() as u64,
                        lossy,
                        version,
                        key: keys[j],
                        facts,
                    }),
                    extracted: to_extract.contains(&j),
                }
            }
            Version::Read(SourceText::Skipped(refusal)) => {
                Prepared { outcome: Err(refusal), extracted: false }
            }
        };
        prepared.push(file);
    }
    prepared
}

/// One version of a file in [`prepare_versions`].
enum Version {
    /// The same bytes as the earlier version at this index.
    Repeat(usize),
    Read(SourceText),
}

/// Reads one file and gives it its facts: from `cache` when it holds them, else extracted (and
/// added to the cache).
pub(crate) fn prepare_one(
    extractor: &mut Extractor,
    source: &dyn FileSource,
    candidate: &SourceCandidate,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
    spill: &Arc<Spill>,
) -> Prepared {
    let (text, lossy) = match discover::read_source(source, candidate) {
        SourceText::Text { text, lossy } => (text, lossy),
        SourceText::Skipped(refusal) => {
            return Prepared { outcome: Err(refusal), extracted: false };
        }
    };
    let (path, grammar) = (&candidate.path, candidate.grammar);
    let key = cache.map(|_| FactKey::new(path, grammar, options.imports_only, &text));
    let (facts, extracted) = match (cache, key) {
        (Some(cache), Some(key)) => match cache.get(&key) {
            Some(facts) => (spilled(facts, spill), false),
            None => {
                let facts = held(extractor.extract(path, grammar, &text), spill);
                cache.put(key, &facts);
                (facts, true)
            }
        },
        _ => (held(extractor.extract(path, grammar, &text), spill), true),
    };
    Prepared {
        outcome: Ok(PreparedText {
            bytes: text.len() as u64,
            lossy,
            version: None,
            key,
            facts: Some(facts),
        }),
        extracted,
    }
}

/// Everything after discovery. `prepared`, when given, holds each candidate already read and
/// extracted, in candidate order; otherwise the files are read and extracted here, their facts
/// held in `spill`.
pub(crate) fn analyse_inventory(
    source: &dyn FileSource,
    inventory: Inventory,
    prepared: Option<Vec<Prepared>>,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
    spill: &Arc<Spill>,
    started: std::time::Instant,
) -> Result<Analysis, AnalyseError> {
    let read_config = config_reader(source, &inventory.index, options.discovery.max_file_size);
    let (js, config_refusals) = JsResolver::new(&inventory.index, &read_config);
    let python = PythonResolver::new(&inventory.index);
    let rust = RustResolver::new(&inventory.index, &read_config);
    let resolvers = Resolvers { index: &inventory.index, python: &python, js: &js, rust: &rust };

    // Each file's own edges (its imports: most of a tree's edges) are no linker's input: in a
    // large tree they wait in the spill, encoded, until the analysis is assembled, so that the
    // linkers' peak does not hold them. (Without linkers, nothing would be gained; in a tree
    // whose edges would fit in the spill's buffer, only their encoding would be.)
    let large = worth_putting_aside(inventory.sources.len().saturating_mul(EDGES_PER_FILE), spill);
    let aside = (large && !options.imports_only).then_some(&**spill);
    let results: Vec<FileResult> = match prepared {
        Some(prepared) => inventory
            .sources
            .par_iter()
            .zip(prepared)
            .map_init(TextPool::new, |names, (candidate, file)| {
                analyse_file(candidate, file, &resolvers, options, aside, names)
            })
            .collect(),
        None => {
            let new_extractor = || {
                let extractor =
                    if options.imports_only { Extractor::imports_only() } else { Extractor::new() };
                (extractor, TextPool::new())
            };
            inventory
                .sources
                .par_iter()
                .map_init(new_extractor, |(extractor, names), candidate| {
                    let file = prepare_one(extractor, source, candidate, options, cache, spill);
                    analyse_file(candidate, file, &resolvers, options, aside, names)
                })
                .collect()
        }
    };

    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = resident_mib(),
        spilled_mib = spill.bytes_on_disk() >> 20,
        "extracted and resolved"
    );
    let mut builder = AnalysisBuilder::default();
    builder.stats.files_seen = inventory.entries_seen;
    builder.stats.excluded_dirs = inventory.excluded_dirs.clone();
    builder.stats.other_files_by_extension = inventory.other_files.clone();
    for refusal in inventory.refusals.into_iter().chain(config_refusals) {
        builder.add_refusal(refusal);
    }
    let mut results = results;
    for result in &mut results {
        builder.add_file(result);
    }
    // The files' edges join the builder's once the linkers' are known, so that its one buffer
    // of every claim is allocated once, at its size: growing it at the peak held the old buffer
    // and the new one together.
    let mut linked = Linked::default();
    if !options.imports_only {
        let mut prisma = read_prisma_schemas(source, &inventory.prisma_schemas, &mut builder);
        let mut sql_schemas = read_sql_schemas(source, &inventory.sql_schemas, &mut builder);
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            rss_mib = resident_mib(),
            "merged"
        );
        // One family at a time: every file's facts of that family are decoded, linked and
        // dropped before the next family's are decoded.
        let mut state = LinkState::default();
        for family in Family::ALL {
            let decoded: Vec<Option<Result<FileFacts, _>>> = results
                .par_iter()
                .map(|r| {
                    r.language?;
                    let held = r.facts.as_ref()?;
                    Some(held.family(family).map_err(|_| held.language))
                })
                .collect();
            let decoded: Vec<Option<FileFacts>> = decoded
                .into_iter()
                .zip(&results)
                .map(|(facts, r)| {
                    facts.map(|facts| {
                        facts.unwrap_or_else(|language| {
                            builder.add_refusal(Undecodable::refusal(&r.path, family.name()));
                            FileFacts::new(language)
                        })
                    })
                })
                .collect();
            let views: Vec<FileView<'_>> = results
                .iter()
                .zip(&decoded)
                .filter_map(|(r, facts)| {
                    Some(FileView {
                        path: &r.path,
                        language: r.language?,
                        facts: facts.as_ref()?,
                        bindings: &r.bindings,
                        python_module: r.python_module.as_deref(),
                    })
                })
                .collect();
            tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                rss_mib = resident_mib(),
                family = family.name(),
                "family decoded"
            );
            let mut input = LinkInput::new(views, &inventory.index);
            input.spread = Some(Spreader(&spread));
            if family == Family::Tables {
                input.prisma = std::mem::take(&mut prisma);
                input.sql_schemas = std::mem::take(&mut sql_schemas);
            }
            link_family(family, &input, &mut state);
            tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                rss_mib = resident_mib(),
                family = family.name(),
                "family linked"
            );
        }
        linked = state.linked;
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            rss_mib = resident_mib(),
            "linked"
        );
    }
    // (A file without a language, refused before it was analysed, makes no claims.)
    let analysed = || results.iter().filter(|r| r.language.is_some());
    let file_edges: usize = analysed().map(FileResult::edge_count).sum();
    builder.edges.reserve_exact(file_edges + linked.edges.len());
    // Edges read back from the spill share their texts with the module nodes' keys, as they
    // did when they were made.
    let mut pool = TextPool::new();
    if analysed().any(|r| r.spilled_edges.is_some()) {
        for key in builder.nodes.keys() {
            key.clone().share(&mut pool);
        }
    }
    for result in results.iter_mut().filter(|r| r.language.is_some()) {
        match result.spilled_edges.take() {
            Some(spilled) => {
                let mut edges: Vec<Edge> =
                    read_from(spill, &spilled.place).ok_or(AnalyseError::PutAside)?;
                for edge in &mut edges {
                    edge.share(&mut pool);
                }
                builder.edges.append(&mut edges);
            }
            None => builder.edges.extend(std::mem::take(&mut result.edges)),
        }
    }
    drop(pool);
    builder.add_linked(linked);
    // The facts have been linked: free them (the largest part of a tree's memory) before the
    // analysis is assembled.
    drop(results);
    drop(js);
    drop(rust);
    let mut package_roots: BTreeSet<String> = python.roots().iter().cloned().collect();
    for file in inventory.index.files() {
        if file.file_name() == "package.json" {
            package_roots.insert(crate::tree::dir_of(file));
        }
    }
    let analysis = builder.finish(package_roots.into_iter().collect(), &options.components);
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = resident_mib(),
        "analysed"
    );
    Ok(analysis)
}

/// Packs `facts` for holding, their bytes in `spill`.
pub(crate) fn held(facts: FileFacts, spill: &Arc<Spill>) -> Arc<HeldFacts> {
    let mut held = HeldFacts::pack(facts);
    held.spill_into(spill);
    Arc::new(held)
}

/// Facts read from the cache, their bytes moved to `spill` when nothing else holds them (a cache
/// that keeps its entries in memory shares them instead).
pub(crate) fn spilled(mut facts: Arc<HeldFacts>, spill: &Arc<Spill>) -> Arc<HeldFacts> {
    if let Some(owned) = Arc::get_mut(&mut facts) {
        owned.spill_into(spill);
    }
    facts
}

/// Runs a linker's per-file jobs on the pool, results in file order.
fn spread(job: &(dyn Fn(usize) -> Linked + Sync), files: usize) -> Vec<Linked> {
    (0..files).into_par_iter().map(job).collect()
}

/// How the resolvers read configuration files (package.json, tsconfig.json, Cargo.toml): files
/// of the tree only, within the size cap, valid UTF-8; anything else is absent.
fn config_reader<'a>(
    source: &'a dyn FileSource,
    index: &'a TreeIndex,
    max_bytes: u64,
) -> impl Fn(&RepoPath) -> Option<String> + 'a {
    move |path: &RepoPath| -> Option<String> {
        if !index.is_file(path.as_str()) {
            return None;
        }
        let bytes = source.read(path, 0).ok()?;
        if bytes.len() as u64 > max_bytes {
            return None;
        }
        String::from_utf8(bytes).ok()
    }
}

/// Every read of `source` that the analysis makes outside the source files themselves, done
/// here the way [`analyse_inventory`] does it: the configuration files the resolvers read and the
/// Prisma and SQL schema files. A shard records their bytes so that a merge, which has no tree,
/// reads exactly what an unsharded run would.
pub(crate) fn tree_reads(
    source: &dyn FileSource,
    inventory: &Inventory,
    options: &AnalysisOptions,
) -> Vec<(RepoPath, std::io::Result<Vec<u8>>)> {
    let recorder = crate::shard::Recorder::new(source);
    {
        let read_config =
            config_reader(&recorder, &inventory.index, options.discovery.max_file_size);
        drop(JsResolver::new(&inventory.index, &read_config));
        drop(RustResolver::new(&inventory.index, &read_config));
    }
    if !options.imports_only {
        for path in inventory.prisma_schemas.iter().chain(&inventory.sql_schemas) {
            let _ = recorder.read(path, 0);
        }
    }
    recorder.into_reads()
}

/// Reads the Prisma schema files (few and small; read in turn), recording the unreadable ones.
fn read_prisma_schemas(
    source: &dyn FileSource,
    schemas: &[RepoPath],
    builder: &mut AnalysisBuilder,
) -> Vec<(RepoPath, Vec<cartograph_extract::PrismaModel>)> {
    let mut read = Vec::new();
    for path in schemas {
        match source.read(path, 0) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let (models, refusals) = cartograph_extract::extract_prisma(path, &text);
                for refusal in refusals {
                    builder.add_refusal(refusal);
                }
                read.push((path.clone(), models));
            }
            Err(error) => builder.add_refusal(Refusal::new(
                RefusalKind::UnreadableFile,
                SourceLocation::file(path.clone()),
                format!("cannot be read ({})", error.kind()),
            )),
        }
    }
    read
}

/// Reads the SQL schema files (read in turn, like Prisma's), recording the unreadable ones.
fn read_sql_schemas(
    source: &dyn FileSource,
    schemas: &[RepoPath],
    builder: &mut AnalysisBuilder,
) -> Vec<(RepoPath, Vec<cartograph_extract::SqlTable>)> {
    let mut read = Vec::new();
    for path in schemas {
        match source.read(path, 0) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                read.push((path.clone(), cartograph_extract::extract_sql_schema(&text)));
            }
            Err(error) => builder.add_refusal(Refusal::new(
                RefusalKind::UnreadableFile,
                SourceLocation::file(path.clone()),
                format!("cannot be read ({})", error.kind()),
            )),
        }
    }
    read
}

struct Resolvers<'a> {
    index: &'a TreeIndex,
    python: &'a PythonResolver,
    js: &'a JsResolver,
    rust: &'a RustResolver,
}

/// What one worker produced for one file.
struct FileResult {
    path: RepoPath,
    language: Option<Language>,
    bytes: u64,
    error_regions: u32,
    edges: Vec<Edge>,
    /// The same edges once put aside in the spill (`edges` is empty then).
    spilled_edges: Option<SpilledEdges>,
    refusals: Vec<Refusal>,
    builtin_imports: u64,
    /// Targets that are files outside the analysed sources (assets, configs) need module nodes.
    extra_modules: Vec<RepoPath>,
    packages: Vec<NodeKey>,
    /// The recognisers' facts, kept (encoded) for linking across files.
    facts: Option<Arc<HeldFacts>>,
    bindings: Vec<ResolvedBinding>,
    python_module: Option<String>,
    version: Option<u32>,
}

/// A file's own edges, encoded in the spill.
struct SpilledEdges {
    place: LargePlace,
    count: usize,
}

impl FileResult {
    fn edge_count(&self) -> usize {
        self.spilled_edges.as_ref().map_or(self.edges.len(), |spilled| spilled.count)
    }
}

/// Resolves one file's imports into its own edges and bindings. With `aside`, the edges are put
/// there (kept as they are if it refuses them).
fn analyse_file(
    candidate: &SourceCandidate,
    prepared: Prepared,
    resolvers: &Resolvers<'_>,
    options: &AnalysisOptions,
    aside: Option<&Spill>,
    names: &mut TextPool,
) -> FileResult {
    let mut result = FileResult {
        path: candidate.path.clone(),
        language: None,
        bytes: 0,
        error_regions: 0,
        edges: Vec::new(),
        spilled_edges: None,
        refusals: Vec::new(),
        builtin_imports: 0,
        extra_modules: Vec::new(),
        packages: Vec::new(),
        facts: None,
        bindings: Vec::new(),
        python_module: None,
        version: None,
    };
    let (bytes, lossy, version, facts) = match prepared.outcome {
        Ok(PreparedText { bytes, lossy, version, facts: Some(facts), .. }) => {
            (bytes, lossy, version, facts)
        }
        // Deferred facts are filled before files are analysed (`fill_deferred`); a file
        // without them is refused rather than analysed as empty.
        Ok(PreparedText { facts: None, .. }) => {
            result.refusals.push(Refusal::new(
                RefusalKind::UnreadableFile,
                SourceLocation::file(candidate.path.clone()),
                "its facts could not be read from the cache nor extracted again",
            ));
            return result;
        }
        Err(refusal) => {
            result.refusals.push(refusal);
            return result;
        }
    };
    result.bytes = bytes;
    result.version = version;
    if lossy {
        result.refusals.push(Refusal::new(
            RefusalKind::InvalidUtf8,
            SourceLocation::file(candidate.path.clone()),
            "file is not valid UTF-8; analysed with replacement characters",
        ));
    }
    result.language = Some(facts.language);
    result.error_regions = facts.error_regions;
    result.refusals.extend(facts.refusals.iter().cloned());
    match candidate.grammar.syntax() {
        Syntax::Python => result.python_module = resolvers.python.module_name(&candidate.path),
        Syntax::JavaScript | Syntax::Rust => {}
    }
    let imports = facts.imports().unwrap_or_else(|_| {
        result.refusals.push(Undecodable::refusal(&candidate.path, "imports"));
        Vec::new()
    });
    let from = NodeKey::module(&candidate.path);
    for import in &imports {
        for target in resolve_import(resolvers, &candidate.path, import) {
            bind(&mut result.bindings, import, &target, names);
            link_import(&mut result, &from, import, &target.written, target.resolution, options);
        }
    }
    // The linkers read the bindings and edges made of the imports, never the imports: the facts
    // held for linking drop them, unless another holder shares these facts (a content met in
    // both trees of a diff, a cache that keeps what it read), which keeps them whole.
    let mut facts = facts;
    if let Some(own) = Arc::get_mut(&mut facts) {
        own.drop_imports();
    }
    result.facts = Some(facts);
    // Held until the tree is linked: without the slack of growing.
    result.bindings.shrink_to_fit();
    if let Some(spill) = aside
        && !result.edges.is_empty()
        && let Some(place) = put_in(&result.edges, spill)
    {
        result.spilled_edges = Some(SpilledEdges { place, count: result.edges.len() });
        result.edges = Vec::new();
    }
    result
}

/// One place an import leads, with the names it binds there.
struct ImportTargetResolved {
    /// The import as written, for evidence.
    written: String,
    resolution: Resolution,
    /// For a Python from-import: the names that resolved here, `true` for a submodule.
    names: Vec<(String, bool)>,
}

/// Resolves one import fact to the places it leads.
fn resolve_import(
    resolvers: &Resolvers<'_>,
    from: &RepoPath,
    import: &ImportFact,
) -> Vec<ImportTargetResolved> {
    match &import.target {
        ImportTarget::Python(python) => resolvers
            .python
            .resolve(resolvers.index, from, python)
            .into_iter()
            .map(|t| ImportTargetResolved {
                written: t.name,
                resolution: t.resolution,
                names: t.names,
            })
            .collect(),
        ImportTarget::Js(js) => vec![ImportTargetResolved {
            written: format!("\"{}\"", js.specifier),
            resolution: resolvers.js.resolve(from, &js.specifier),
            names: Vec::new(),
        }],
        ImportTarget::Rust(rust) => {
            let target = resolvers.rust.resolve(resolvers.index, from, rust);
            vec![ImportTargetResolved {
                written: target.written,
                resolution: target.resolution,
                names: target.names,
            }]
        }
    }
}

/// Records what the import's local names refer to at `target`.
fn bind(
    bindings: &mut Vec<ResolvedBinding>,
    import: &ImportFact,
    target: &ImportTargetResolved,
    names: &mut TextPool,
) {
    let destination = match &target.resolution {
        Resolution::Module { path, .. } => BindingTarget::Module(path.clone()),
        Resolution::Package { ecosystem, name } => {
            BindingTarget::Package(names.text(NodeKey::package(*ecosystem, name).name()))
        }
        Resolution::Builtin { .. } | Resolution::Unresolved { .. } => return,
    };
    // A Python from-import resolves each name on its own (a submodule or a member); a JavaScript
    // import binds its names in the one module its specifier leads to.
    let names_resolve_one_by_one = match &import.target {
        ImportTarget::Python(_) => true,
        ImportTarget::Js(js) => {
            // `export * from "./apis"` (a barrel file): a star binding, as Python's
            // `from m import *`, which the linkers follow for names the file does not bind.
            if js.form == cartograph_extract::ImportForm::ReExport && import.bindings.is_empty() {
                bindings.push(ResolvedBinding {
                    local: names.text("*"),
                    target: destination,
                    member: None,
                });
                return;
            }
            false
        }
        // A `use` path's last segment is a module or an item of it, as resolution found.
        ImportTarget::Rust(_) => !target.names.is_empty(),
    };
    for binding in &import.bindings {
        let member = match &binding.imported {
            Imported::Module => None,
            Imported::Default => Some(names.text("default")),
            Imported::Name(name) if names_resolve_one_by_one => {
                match target.names.iter().find(|(n, _)| n == name) {
                    Some((_, true)) => None,
                    Some((_, false)) => Some(names.text(name)),
                    // The name resolved elsewhere (another target of the same statement).
                    None => continue,
                }
            }
            Imported::Name(name) => Some(names.text(name)),
        };
        bindings.push(ResolvedBinding {
            local: names.text(&binding.local),
            target: destination.clone(),
            member,
        });
    }
}

fn import_form(import: &ImportFact) -> &'static str {
    match &import.target {
        ImportTarget::Python(p) => p.form.describe(),
        ImportTarget::Js(j) => j.form.describe(),
        ImportTarget::Rust(r) if r.declares => "mod declaration",
        ImportTarget::Rust(r) => r.form.describe(),
    }
}

fn link_import(
    result: &mut FileResult,
    from: &NodeKey,
    import: &ImportFact,
    written: &str,
    resolution: Resolution,
    options: &AnalysisOptions,
) {
    let location = SourceLocation::new(result.path.clone(), import.line, import.column);
    let form = import_form(import);
    let type_note = if import.type_only { " (for type checking only)" } else { "" };
    let (to, evidence, provenance, confidence) = match resolution {
        Resolution::Module { path, confidence, note } => {
            let mut sentence = format!("{form} of {written} resolves to {path}{type_note}");
            if let Some(note) = note {
                sentence.push_str("; ");
                sentence.push_str(&note);
            }
            if path == result.path {
                return;
            }
            result.extra_modules.push(path.clone());
            (NodeKey::module(&path), sentence, Provenance::Resolver, confidence)
        }
        Resolution::Package { ecosystem, name } => {
            let key = NodeKey::package(ecosystem, &name);
            let sentence = format!(
                "{form} of {written} names the third-party package {key}{type_note}",
                key = key.name()
            );
            result.packages.push(key.clone());
            (key, sentence, Provenance::Syntax, Confidence::Certain)
        }
        Resolution::Builtin { ecosystem, name } => {
            if !options.include_builtins {
                result.builtin_imports += 1;
                return;
            }
            let ecosystem = match ecosystem {
                Ecosystem::Pypi | Ecosystem::Python => Ecosystem::Python,
                Ecosystem::Npm | Ecosystem::Node => Ecosystem::Node,
                Ecosystem::Cargo | Ecosystem::Rust => Ecosystem::Rust,
            };
            let key = NodeKey::package(ecosystem, &name);
            let sentence =
                format!("{form} of {written} names the built-in module {}{type_note}", key.name());
            result.packages.push(key.clone());
            (key, sentence, Provenance::Syntax, Confidence::Certain)
        }
        Resolution::Unresolved { reason } => {
            result.refusals.push(Refusal::new(RefusalKind::UnresolvedImport, location, reason));
            return;
        }
    };
    result.edges.push(Edge {
        kind: EdgeKind::Imports,
        from: from.clone(),
        to,
        evidence: Evidence::new(evidence),
        provenance,
        confidence,
        location,
        type_only: import.type_only,
        occurrences: 1,
    });
}

/// Fills the attributes `into` lacks from `from`.
fn merge_attrs(into: &mut NodeAttrs, from: NodeAttrs) {
    let NodeAttrs { language, component, python_module, display_path, handler, framework } = from;
    into.language = into.language.or(language);
    into.component = into.component.take().or(component);
    into.python_module = into.python_module.take().or(python_module);
    into.display_path = into.display_path.take().or(display_path);
    into.handler = into.handler.take().or(handler);
    into.framework = into.framework.take().or(framework);
}

/// Merges per-file results in path order.
#[derive(Default)]
struct AnalysisBuilder {
    nodes: BTreeMap<NodeKey, Node>,
    /// Every claim in the order it was added; merged by identity in [`AnalysisBuilder::finish`].
    edges: Vec<Edge>,
    refusals: Vec<Refusal>,
    stats: AnalysisStats,
    file_versions: BTreeMap<RepoPath, u32>,
}

impl AnalysisBuilder {
    fn add_refusal(&mut self, refusal: Refusal) {
        if refusal.kind.skips_file() {
            self.stats.files_skipped += 1;
        }
        self.refusals.push(refusal);
    }

    /// Takes a file's own results; its recogniser facts stay in `result` for linking.
    fn add_file(&mut self, result: &mut FileResult) {
        for refusal in std::mem::take(&mut result.refusals) {
            self.add_refusal(refusal);
        }
        let Some(language) = result.language else { return };
        self.stats.files_analysed += 1;
        self.stats.bytes_analysed += result.bytes;
        *self.stats.files_by_language.entry(language).or_default() += 1;
        self.stats.error_regions += u64::from(result.error_regions);
        self.stats.files_with_error_regions += u64::from(result.error_regions > 0);
        self.stats.builtin_imports += result.builtin_imports;
        if let Some(version) = result.version {
            self.file_versions.insert(result.path.clone(), version);
        }

        let key = NodeKey::module(&result.path);
        let node = self.nodes.entry(key).or_insert_with_key(|k| Node::new(k.clone()));
        node.attrs.language = Some(language);
        node.attrs.python_module.clone_from(&result.python_module);
        for path in std::mem::take(&mut result.extra_modules) {
            self.nodes.entry(NodeKey::module(&path)).or_insert_with_key(|k| Node::new(k.clone()));
        }
        for package in std::mem::take(&mut result.packages) {
            self.nodes.entry(package).or_insert_with_key(|k| Node::new(k.clone()));
        }
    }

    fn add_edge(&mut self, edge: Edge) {
        self.edges.push(edge);
    }

    /// Adds what the linkers found. A node they name that already exists keeps its attributes
    /// and gains the ones it lacked.
    fn add_linked(&mut self, linked: Linked) {
        for node in linked.nodes {
            match self.nodes.get_mut(&node.key) {
                Some(existing) => merge_attrs(&mut existing.attrs, node.attrs),
                None => {
                    self.nodes.insert(node.key.clone(), node);
                }
            }
        }
        for edge in linked.edges {
            self.nodes.entry(edge.from.clone()).or_insert_with_key(|k| Node::new(k.clone()));
            self.add_edge(edge);
        }
        for refusal in linked.refusals {
            self.add_refusal(refusal);
        }
    }

    fn finish(mut self, package_roots: Vec<String>, rule: &ComponentRule) -> Analysis {
        self.refusals.sort();
        let mut nodes: Vec<Node> = self.nodes.into_values().collect();
        assign_components(&mut nodes, rule, &package_roots);
        // Repeated claims become one edge, folded in the order they were added (a stable sort
        // keeps that order among equals, and `absorb` keeps the first of equally good ones).
        // Both in place: the edges are most of an analysis, and a second buffer of them (or a
        // stable sort's scratch, half of them) was the peak of a large tree's run.
        let mut edges = self.edges;
        sort_stably_in_place(&mut edges, |a, b| a.identity().cmp(&b.identity()));
        edges.dedup_by(|later, kept| {
            let same = later.identity() == kept.identity();
            if same {
                kept.absorb(later.clone());
            }
            same
        });
        edges.shrink_to_fit();
        Analysis {
            nodes,
            edges,
            refusals: self.refusals,
            stats: self.stats,
            package_roots,
            file_versions: self.file_versions,
        }
    }
}

/// Sorts `items` stably by `order` with a few bytes of scratch per item rather than the half of
/// them a stable sort of the items themselves allocates: their positions are sorted, then each
/// item is moved to its place along the permutation's cycles.
fn sort_stably_in_place<T>(items: &mut [T], order: impl Fn(&T, &T) -> std::cmp::Ordering) {
    let Ok(len) = u32::try_from(items.len()) else {
        items.sort_by(order);
        return;
    };
    let mut from: Vec<u32> = (0..len).collect();
    from.sort_by(|&a, &b| order(&items[a as usize], &items[b as usize]));
    // Position `i` takes the item now at `from[i]`; a position done points at itself.
    for start in 0..items.len() {
        let mut current = start;
        loop {
            let next = from[current] as usize;
            from[current] = current as u32;
            if next == start {
                break;
            }
            items.swap(current, next);
            current = next;
        }
    }
}

/// The resident memory of this process in MiB, for the debug log's phase lines (0 where the
/// platform does not say: only Linux's `/proc` is read).
pub fn resident_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_analysis_put_aside_in_blocks_reads_back_whole() {
        let module = |i: usize| RepoPath::new(&format!("m{i}.py")).unwrap();
        let edges: Vec<Edge> = (0..crate::parts::BLOCK * 2 + 7)
            .map(|i| Edge {
                kind: EdgeKind::Imports,
                from: NodeKey::module(&module(i)),
                to: NodeKey::module(&module(i + 1)),
                evidence: Evidence::new(format!("import m{}", i + 1)),
                provenance: Provenance::Resolver,
                confidence: Confidence::Certain,
                location: SourceLocation::new(module(i), 1, 1),
                type_only: false,
                occurrences: 1,
            })
            .collect();
        let analysis = Analysis {
            edges,
            package_roots: vec!["src".to_owned()],
            file_versions: [(module(0), 1)].into_iter().collect(),
            ..Analysis::default()
        };
        // A small limit puts it aside; its encoding fitting in the buffer, it stays as it is.
        let kept = Aside::put(analysis.clone(), &Spill::new());
        assert!(matches!(&kept, Aside::Kept(_)));
        for limit in [0, 1 << 20] {
            let spill = Spill::with_limit(limit);
            let aside = Aside::put(analysis.clone(), &spill);
            // The rest, the count, three blocks of edges.
            assert!(matches!(&aside, Aside::Spilled(parts) if parts.len() == 5));
            let back = aside.take(&spill).unwrap();
            assert_eq!(back.edges, analysis.edges);
            assert_eq!(back.package_roots, analysis.package_roots);
            assert_eq!(back.file_versions, analysis.file_versions);
        }
        // What the spill cannot give back is an error, not a smaller analysis.
        let aside = Aside::put(analysis, &Spill::with_limit(0));
        assert!(matches!(aside.take(&Spill::new()), Err(AnalyseError::PutAside)));
    }

    #[test]
    fn sorting_in_place_is_the_stable_sort() {
        // Pseudo-random keys with many repeats; the second field tells equal keys apart.
        let mut seed = 0x2545_f491_u32;
        for len in [0usize, 1, 2, 3, 10, 257, 5_000] {
            let items: Vec<(u32, usize)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    (seed % 17, i)
                })
                .collect();
            let mut stable = items.clone();
            stable.sort_by_key(|item| item.0);
            let mut in_place = items;
            sort_stably_in_place(&mut in_place, |a, b| a.0.cmp(&b.0));
            assert_eq!(in_place, stable, "{len} items");
        }
    }
}
