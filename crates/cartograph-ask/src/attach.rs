//! `attach`: the whole post-processing of a diff document. Select the changed edges, build one
//! evidence bundle per edge, ask the provider about each (bounded concurrency; answers from the
//! cache when they still validate), and write every outcome into the document's `explanations`
//! section — `explained` with the validated items, or `refused` / `unavailable` with a fixed
//! sentence, the bundle (the raw evidence) always included.
//!
//! In degraded mode (no key) nothing is asked and the provider is never called: every selected edge is
//! `unavailable` and the section's `note` says how to enable ASK. Apart from the `explanations`
//! section (and a `schema_version` raised to the version that defines it) the document is left
//! exactly as it was read.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use cartograph_core::Secret;
use cartograph_report::diff::{
    BundleDoc, CitationDoc, DiffDocument, ExplainedEdgeDoc, ExplanationDoc, ExplanationItemDoc,
    ExplanationsDoc, ProviderDoc, SCHEMA_VERSION, STATUS_EXPLAINED, STATUS_REFUSED,
    STATUS_UNAVAILABLE,
};
use cartograph_report::snapshot::SnapshotDocument;

use crate::answer::Answer;
use crate::bundle::{DEFAULT_MAX_BUNDLE_BYTES, EvidenceBundle};
use crate::cache::AnswerCache;
use crate::endpoint::Endpoint;
use crate::provider::Provider;
use crate::select::{self, ChangedEdge, DEFAULT_MAX_EDGES, EdgePool};
use crate::wire::Question;

/// The default number of requests in flight.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// The reason every entry carries in degraded mode.
pub const NO_KEY_REASON: &str = "no API key was available, so no explanation was requested";
/// The reason of an entry whose changed edge has an unsafe location.
pub const UNSAFE_LOCATION_REASON: &str =
    "the changed edge's location is not a repository-relative path, so its evidence was not sent";

/// How much is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachOptions {
    /// The most changed edges explained; the rest are counted as skipped.
    pub max_edges: usize,
    /// The byte cap of each bundle's serialised edges.
    pub max_bundle_bytes: usize,
    /// The most requests in flight at once (at least 1).
    pub concurrency: usize,
}

impl Default for AttachOptions {
    fn default() -> Self {
        Self {
            max_edges: DEFAULT_MAX_EDGES,
            max_bundle_bytes: DEFAULT_MAX_BUNDLE_BYTES,
            concurrency: DEFAULT_CONCURRENCY,
        }
    }
}

/// The optional snapshots whose unchanged edges widen each bundle's neighbourhood.
#[derive(Debug, Clone, Copy, Default)]
pub struct Snapshots<'a> {
    pub base: Option<&'a SnapshotDocument>,
    pub head: Option<&'a SnapshotDocument>,
}

/// The key, or the one line saying why there is none.
pub enum KeyState<'a> {
    /// Degraded mode: nothing is asked. `note` says how to enable ASK.
    Missing {
        note: String,
    },
    Present(&'a Secret),
}

/// Who is asked, and how.
pub struct Asker<'a> {
    /// Asked only when the key is present.
    pub provider: &'a dyn Provider,
    /// Named in the report (host and model), whether or not anything is asked.
    pub endpoint: &'a Endpoint,
    pub key: KeyState<'a>,
    /// Read before asking and filled with every validated answer, when given.
    pub cache: Option<&'a AnswerCache>,
}

impl std::fmt::Debug for Asker<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asker")
            .field("endpoint", self.endpoint)
            .field("key_present", &matches!(self.key, KeyState::Present(_)))
            .field("cache", &self.cache.is_some())
            .finish_non_exhaustive()
    }
}

/// Returns `doc` with its `explanations` section written.
pub fn attach(
    doc: &DiffDocument,
    snapshots: Snapshots<'_>,
    asker: &Asker<'_>,
    options: &AttachOptions,
) -> DiffDocument {
    let endpoint = asker.endpoint;
    let selection = select::select(doc, options.max_edges);
    let pool = EdgePool::new(doc, snapshots.base, snapshots.head);
    let bundles: Vec<EvidenceBundle> = selection
        .selected
        .iter()
        .map(|edge| EvidenceBundle::build(edge, &pool, options.max_bundle_bytes))
        .collect();
    tracing::info!(
        selected = selection.selected.len(),
        skipped = selection.skipped,
        "changed edges selected for explanation"
    );

    let entries: Vec<ExplanationDoc> = match &asker.key {
        KeyState::Missing { .. } => selection
            .selected
            .iter()
            .zip(&bundles)
            .map(|(edge, bundle)| entry(edge, bundle, Outcome::Unavailable(NO_KEY_REASON.into())))
            .collect(),
        KeyState::Present(key) => {
            let work: Vec<(&ChangedEdge, &EvidenceBundle)> =
                selection.selected.iter().zip(&bundles).collect();
            run_bounded(&work, options.concurrency, |(edge, bundle)| {
                let outcome = ask(edge, bundle, endpoint, asker.provider, key, asker.cache);
                entry(edge, bundle, outcome)
            })
        }
    };

    let count = |status: &str| entries.iter().filter(|e| e.status == status).count() as u64;
    let explanations = ExplanationsDoc {
        provider: ProviderDoc {
            host: endpoint.host().to_owned(),
            model: endpoint.model().to_owned(),
        },
        selected: entries.len() as u64,
        skipped: selection.skipped,
        explained: count(STATUS_EXPLAINED),
        refused: count(STATUS_REFUSED),
        unavailable: count(STATUS_UNAVAILABLE),
        note: match &asker.key {
            KeyState::Missing { note } => Some(note.clone()),
            KeyState::Present(_) => None,
        },
        entries,
    };
    tracing::info!(
        explained = explanations.explained,
        refused = explanations.refused,
        unavailable = explanations.unavailable,
        "explanations attached"
    );
    let mut out = doc.clone();
    if minor(&out.schema_version) < minor(SCHEMA_VERSION) {
        out.schema_version = SCHEMA_VERSION.to_owned();
    }
    out.explanations = Some(explanations);
    out
}

fn minor(version: &str) -> u64 {
    version.split_once('.').and_then(|(_, m)| m.parse().ok()).unwrap_or(0)
}

/// What happened to one edge.
enum Outcome {
    Explained { answer: Answer, cached: bool },
    Refused(String),
    Unavailable(String),
}

fn ask(
    edge: &ChangedEdge,
    bundle: &EvidenceBundle,
    endpoint: &Endpoint,
    provider: &dyn Provider,
    key: &Secret,
    cache: Option<&AnswerCache>,
) -> Outcome {
    if !bundle.is_sendable() {
        return Outcome::Unavailable(UNSAFE_LOCATION_REASON.to_owned());
    }
    if let Some(answer) = cache.and_then(|c| c.load(bundle, endpoint)) {
        return Outcome::Explained { answer, cached: true };
    }
    let question = Question::for_edge(edge.change, &edge.findings);
    match provider.explain(bundle, &question, key) {
        Ok(answer) => {
            if let Some(cache) = cache
                && cache.store(bundle, endpoint, &answer).is_err()
            {
                tracing::warn!("an explanation could not be written to the cache");
            }
            Outcome::Explained { answer, cached: false }
        }
        Err(error) if error.is_refusal() => {
            tracing::info!(reason = %error, "explanation refused");
            Outcome::Refused(error.to_string())
        }
        Err(error) => {
            tracing::info!(reason = %error, "explanation unavailable");
            Outcome::Unavailable(error.to_string())
        }
    }
}

/// Runs `job` over `work` on at most `concurrency` threads; results keep `work`'s order.
fn run_bounded<W: Sync, R: Send>(
    work: &[W],
    concurrency: usize,
    job: impl Fn(&W) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..work.len()).map(|_| None).collect());
    let threads = concurrency.clamp(1, work.len().max(1));
    // Workers log through the caller's subscriber (a scoped one included), so every event passes
    // the same redaction.
    let dispatch = tracing::dispatcher::get_default(Clone::clone);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                tracing::dispatcher::with_default(&dispatch, || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = work.get(i) else { break };
                        let result = job(item);
                        if let Ok(mut slots) = results.lock() {
                            slots[i] = Some(result);
                        }
                    }
                });
            });
        }
    });
    results.into_inner().unwrap_or_default().into_iter().flatten().collect()
}

fn entry(edge: &ChangedEdge, bundle: &EvidenceBundle, outcome: Outcome) -> ExplanationDoc {
    let (status, reason, cached, items) = match outcome {
        Outcome::Explained { answer, cached } => {
            (STATUS_EXPLAINED, None, cached, items_doc(&answer))
        }
        Outcome::Refused(reason) => (STATUS_REFUSED, Some(reason), false, Vec::new()),
        Outcome::Unavailable(reason) => (STATUS_UNAVAILABLE, Some(reason), false, Vec::new()),
    };
    ExplanationDoc {
        edge: ExplainedEdgeDoc {
            side: edge.side().as_str().to_owned(),
            kind: edge.facts.kind.clone(),
            from: edge.facts.from.clone(),
            to: edge.facts.to.clone(),
            change: edge.change.as_str().to_owned(),
        },
        findings: edge.findings.clone(),
        status: status.to_owned(),
        reason,
        cached,
        bundle: bundle_doc(bundle),
        items,
    }
}

/// The bundle as the report shows it.
pub fn bundle_doc(bundle: &EvidenceBundle) -> BundleDoc {
    BundleDoc {
        scope: bundle.scope().to_owned(),
        edges: bundle.edges().to_vec(),
        truncated: bundle.truncated(),
        omitted_edges: bundle.omitted_edges(),
    }
}

fn items_doc(answer: &Answer) -> Vec<ExplanationItemDoc> {
    answer
        .items()
        .iter()
        .map(|item| ExplanationItemDoc {
            text: item.text().to_owned(),
            citations: item
                .citations()
                .iter()
                .map(|c| CitationDoc { edge: c.edge().to_owned(), text: c.text().to_owned() })
                .collect(),
        })
        .collect()
}
