//! A session: the grant fixed at launch, the analysis options, and the caches that make a repeat
//! query fast — the content-addressed [`FactCache`] (a file whose content was parsed once is not
//! parsed again, in any tree) and whole analyses keyed by tree and content stamp (a query on a tree
//! whose files have not changed reuses the analysis without reading a file).
//!
//! Every analysis starts from an [`AuthorizedTree`]: [`Session::load`] accepts nothing else. Every
//! file the session reads goes through a counting source, so [`Session::files_read`] is exact.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use cartograph_core::RepoPath;
use cartograph_graph::Analysis;
use cartograph_pipeline::discover::{DiscoverError, Inventory};
use cartograph_pipeline::{
    AnalysisOptions, DiscoveryOptions, FactCache, FileSource, analyse::AnalyseError,
};
use cartograph_query::{LoadedTree, PairError, failure_sentence};

use crate::answer::{Reply, TreeOrigin};
use crate::grant::{AuthorizedTree, Grant, OpenedTree};

/// Answers kept at most; the cache is emptied when full (answers are cheap to recompute from the
/// cached analyses).
const MAX_ANSWERS: usize = 256;

/// Analyses kept at most (trees and revisions); the least recently used goes first.
pub const MAX_ANALYSES: usize = 8;

/// File facts kept in memory at most (each a few kilobytes): several revisions of an
/// Airflow-sized repository. Past it the cache sheds about half its entries.
const MAX_FACTS: usize = 60_000;

/// One analysed tree the session holds: a directory or a revision (never a snapshot), labelled by
/// a directory's name or `REV (commit)`, never a path.
#[derive(Debug)]
pub struct SessionTree {
    /// Unique within the session: a new analysis (of new content) gets a new id, so an answer
    /// cached by the ids it was computed from stays valid as long as they are served.
    pub id: u64,
    pub tree: LoadedTree,
    /// What the analysis was computed from: a revision's commit, or a directory's content
    /// fingerprint.
    pub origin: TreeOrigin,
}

/// The state of one MCP session.
pub struct Session {
    grant: Grant,
    options: AnalysisOptions,
    facts: FactCache,
    /// Per tree (its session key): the content stamp and the analysis of that content.
    analyses: Mutex<HashMap<String, Cached>>,
    /// Whole answers by query and the analysis ids they were computed from.
    answers: Mutex<HashMap<String, Arc<Reply>>>,
    files_read: AtomicU64,
    analyses_run: AtomicU64,
    cache_hits: AtomicU64,
    next_id: AtomicU64,
    /// A logical clock for least-recently-used eviction.
    ticks: AtomicU64,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("grant", &self.grant).finish_non_exhaustive()
    }
}

impl Session {
    pub fn new(grant: Grant, options: AnalysisOptions) -> Self {
        Self {
            grant,
            options,
            facts: FactCache::in_memory_bounded(MAX_FACTS),
            analyses: Mutex::default(),
            answers: Mutex::default(),
            files_read: AtomicU64::new(0),
            analyses_run: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            next_id: AtomicU64::new(0),
            ticks: AtomicU64::new(0),
        }
    }

    /// The session's grant: every query's trees are checked against it first.
    pub fn grant(&self) -> &Grant {
        &self.grant
    }

    /// Files read by every analysis of this session so far.
    pub fn files_read(&self) -> u64 {
        self.files_read.load(Ordering::Relaxed)
    }

    /// Analyses run (not answered from the cache) so far.
    pub fn analyses_run(&self) -> u64 {
        self.analyses_run.load(Ordering::Relaxed)
    }

    /// Queries answered from a cached analysis so far.
    pub fn cache_hits(&self) -> u64 {
        self.cache_hits.load(Ordering::Relaxed)
    }

    /// The analyses of two authorized trees (a diff's). Content stamps are taken in parallel;
    /// when neither tree is cached, both are analysed together, so a file whose content is the
    /// same in both is read from each tree but extracted once.
    pub fn load_pair(
        &self,
        base: &AuthorizedTree,
        head: &AuthorizedTree,
    ) -> Result<(Arc<SessionTree>, Arc<SessionTree>), String> {
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| self.prepare(base));
            let b = self.prepare(head);
            let a = a.join().unwrap_or_else(|_| Err("the analysis stopped".to_owned()));
            (a, b)
        });
        match (a?, b?) {
            (Prepared::Cached(a), Prepared::Cached(b)) => Ok((a, b)),
            (Prepared::Cached(a), Prepared::Fresh(b)) => Ok((a, self.analyse(head, b)?)),
            (Prepared::Fresh(a), Prepared::Cached(b)) => Ok((self.analyse(base, a)?, b)),
            (Prepared::Fresh(a), Prepared::Fresh(b)) => {
                let base_source = CountingSource::new(&a.opened, &self.files_read);
                let head_source = CountingSource::new(&b.opened, &self.files_read);
                self.analyses_run.fetch_add(2, Ordering::Relaxed);
                let analyses = cartograph_query::analyse_pair(
                    &base_source,
                    &head_source,
                    &self.options,
                    Some(&self.facts),
                );
                let (base_analysis, head_analysis) = analyses.map_err(|e| match e {
                    PairError::Tree { error, .. } => {
                        format!("the diff cannot be analysed: {error}")
                    }
                    PairError::Incomplete => "the analysis stopped".to_owned(),
                })?;
                let (base_print, head_print) =
                    (base_source.fingerprint(), head_source.fingerprint());
                Ok((
                    self.keep(a, base_analysis, base_print),
                    self.keep(b, head_analysis, head_print),
                ))
            }
        }
    }

    /// An answer computed earlier from exactly these analyses, or `compute`'s, kept for next time.
    pub fn answer(
        &self,
        key: String,
        compute: impl FnOnce() -> Result<Reply, String>,
    ) -> Result<Arc<Reply>, String> {
        if let Some(reply) = self.answers.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(Arc::clone(reply));
        }
        let reply = Arc::new(compute()?);
        let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        if answers.len() >= MAX_ANSWERS {
            answers.clear();
        }
        answers.insert(key, Arc::clone(&reply));
        Ok(reply)
    }

    /// The analysis of an authorized tree: cached when its content is unchanged, else analysed
    /// (files parsed before, in any tree of the session, are not parsed again).
    pub fn load(&self, tree: &AuthorizedTree) -> Result<Arc<SessionTree>, String> {
        match self.prepare(tree)? {
            Prepared::Cached(loaded) => Ok(loaded),
            Prepared::Fresh(fresh) => self.analyse(tree, fresh),
        }
    }

    /// Opens a tree and stamps its content: the cached analysis when the stamp is unchanged.
    fn prepare(&self, tree: &AuthorizedTree) -> Result<Prepared, String> {
        let opened = tree.open().map_err(|e| e.to_string())?;
        let stamp =
            opened.stamp(&self.options.discovery).map_err(|e| tree_error(tree, &e.into()))?;
        let key = tree.session_key();
        let tick = self.next_tick();
        let mut analyses = self.analyses.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = analyses.get_mut(&key)
            && entry.stamp == stamp
        {
            entry.last_used = tick;
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Prepared::Cached(Arc::clone(&entry.loaded)));
        }
        Ok(Prepared::Fresh(Fresh { opened, stamp, key }))
    }

    /// Analyses one tree that was not cached, and keeps the analysis.
    fn analyse(&self, tree: &AuthorizedTree, fresh: Fresh) -> Result<Arc<SessionTree>, String> {
        let source = CountingSource::new(&fresh.opened, &self.files_read);
        self.analyses_run.fetch_add(1, Ordering::Relaxed);
        let analysis =
            cartograph_pipeline::analyse_source(&source, &self.options, Some(&self.facts))
                .map_err(|e| tree_error(tree, &e))?;
        let fingerprint = source.fingerprint();
        Ok(self.keep(fresh, analysis, fingerprint))
    }

    /// Keeps an analysis under its tree's key, evicting the least recently used analysis when
    /// the session holds [`MAX_ANALYSES`] already (an agent walking back through many revisions
    /// must not grow the server without bound).
    fn keep(
        &self,
        fresh: Fresh,
        analysis: Analysis,
        fingerprint: Option<String>,
    ) -> Arc<SessionTree> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let Fresh { opened, stamp, key } = fresh;
        let origin = TreeOrigin {
            source: opened.kind,
            label: opened.label.clone(),
            content_fingerprint: if opened.commit.is_none() { fingerprint } else { None },
            commit: opened.commit,
        };
        let tree = LoadedTree { analysis, source: opened.kind, label: opened.label };
        let loaded = Arc::new(SessionTree { id, tree, origin });
        let last_used = self.next_tick();
        let mut analyses = self.analyses.lock().unwrap_or_else(PoisonError::into_inner);
        if !analyses.contains_key(&key)
            && analyses.len() >= MAX_ANALYSES
            && let Some(oldest) =
                analyses.iter().min_by_key(|(_, e)| e.last_used).map(|(k, _)| k.clone())
        {
            analyses.remove(&oldest);
        }
        analyses.insert(key, Cached { stamp, loaded: Arc::clone(&loaded), last_used });
        loaded
    }

    fn next_tick(&self) -> u64 {
        self.ticks.fetch_add(1, Ordering::Relaxed)
    }

    /// How many analyses the session holds now (at most [`MAX_ANALYSES`]).
    pub fn analyses_held(&self) -> usize {
        self.analyses.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

/// A tree opened and stamped: its cached analysis, or what is needed to analyse it.
enum Prepared {
    Cached(Arc<SessionTree>),
    Fresh(Fresh),
}

struct Fresh {
    opened: OpenedTree,
    stamp: String,
    key: String,
}

/// An analysis held by the session, with the content stamp it was made from.
struct Cached {
    stamp: String,
    loaded: Arc<SessionTree>,
    last_used: u64,
}

/// One sentence about a tree that could not be analysed, naming it as the client did.
fn tree_error(tree: &AuthorizedTree, error: &AnalyseError) -> String {
    failure_sentence(error, &format!("tree `{}`", tree.requested()))
}

/// A source that counts the files read through it and, for a directory, hashes what it reads
/// into the tree's content fingerprint.
struct CountingSource<'a> {
    inner: &'a dyn FileSource,
    reads: &'a AtomicU64,
    /// Each file read and the hash of its content (a directory's only: a revision is named by its
    /// commit).
    digests: Option<Mutex<Vec<(String, blake3::Hash)>>>,
}

impl<'a> CountingSource<'a> {
    fn new(opened: &'a OpenedTree, reads: &'a AtomicU64) -> Self {
        let digests = opened.commit.is_none().then(Mutex::default);
        Self { inner: opened.source.as_ref(), reads, digests }
    }

    /// `blake3:` and 32 hex digits over the path and content hash of every file read, in path
    /// order; `None` for a revision.
    fn fingerprint(&self) -> Option<String> {
        let mut digests =
            self.digests.as_ref()?.lock().unwrap_or_else(PoisonError::into_inner).clone();
        digests.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        digests.dedup_by(|a, b| a.0 == b.0);
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"cartograph-tree-content\0");
        for (path, hash) in &digests {
            hasher.update(&(path.len() as u64).to_le_bytes());
            hasher.update(path.as_bytes());
            hasher.update(hash.as_bytes());
        }
        let hex = hasher.finalize().to_hex();
        Some(format!("blake3:{}", &hex.as_str()[..32]))
    }
}

impl FileSource for CountingSource<'_> {
    fn discover(&self, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
        self.inner.discover(options)
    }

    fn read(&self, path: &RepoPath, size_hint: u64) -> io::Result<Vec<u8>> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        let bytes = self.inner.read(path, size_hint)?;
        if let Some(digests) = &self.digests {
            let hash = blake3::hash(&bytes);
            digests
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((path.as_str().to_owned(), hash));
        }
        Ok(bytes)
    }
}
