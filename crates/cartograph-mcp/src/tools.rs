//! The six queries, synchronous and transport-free: each authorizes every tree it names through
//! the session's grant **before** anything is analysed or read, then loads the analyses (cached per
//! tree and content), then answers with the same report documents as the CLI, built by
//! `cartograph-query`, fitted to the query's byte budget.
//!
//! Every answer is one envelope ([`crate::answer`]), summary first, and every tool takes
//! `max_bytes` (default [`DEFAULT_MAX_BYTES`], at most [`MAX_MAX_BYTES`]): the serialized tool
//! result the client receives is never larger. Count bounds (`limit`, `max_paths`) cut first;
//! the budget then cuts lists in the order [`crate::cuts`] gives, and `truncated` says, for
//! every list not shown whole, how many entries are shown, omitted and in all, and what cut it.
//! A budget too small for the answer with every list empty is an error naming the smallest
//! budget that would do.

use cartograph_core::RepoPath;
use cartograph_graph::{BlastOptions, MapOptions, TraceOptions};
use cartograph_query::config::{CONFIG_FILE, parse_config};
use cartograph_query::rules::Rules;
use cartograph_report::diff::{DiffDocument, DiffEdgeDoc};
use cartograph_report::rules::BaselineDocument;
use cartograph_report::words::plural;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::answer::{Answer, ComputedFrom, internal, max_bytes};
pub use crate::answer::{DEFAULT_MAX_BYTES, MAX_MAX_BYTES, MIN_MAX_BYTES, Reply};
pub use crate::budget::Truncation;
use crate::budget::{Fit, fit, notes_phrase};
use crate::cuts::{CheckCut, DiffCut, TraceCut};
pub use crate::cuts::{EvidenceDoc, FINDING_EDGES};
use crate::grant::AuthorizedTree;
use crate::session::{Session, SessionTree};

/// Default number of non-high findings a `check` answer lists.
pub const DEFAULT_CHECK_LIMIT: usize = 10;
/// Default and largest number of trace paths.
pub const DEFAULT_TRACE_PATHS: usize = 10;
pub const MAX_TRACE_PATHS: usize = 200;
/// Default and largest number of blast nodes listed.
pub const DEFAULT_BLAST_NODES: usize = 50;
pub const MAX_BLAST_NODES: usize = 1000;
/// Largest depth a trace or blast may ask for.
pub const MAX_DEPTH: usize = 32;
/// Largest diff `limit`.
pub const MAX_DIFF_LIMIT: usize = 1000;
/// Default and largest number of entries per map section (component dependencies: twice that).
pub const DEFAULT_MAP_LIMIT: usize = 20;
pub const MAX_MAP_LIMIT: usize = 500;

/// Arguments of `map`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapArgs {
    /// A granted tree: a directory exactly as granted at launch (or any path to the same
    /// directory), `rev:REV` for a revision of the granted git repository, or `TREE@rev:REV`.
    pub tree: String,
    /// Entries per section, most significant first (default 20, at most 500; component
    /// dependencies get twice as many).
    #[serde(default)]
    pub limit: Option<usize>,
    /// The most bytes the answer may take, as the client receives it (the serialized tool
    /// result: the JSON text and the same JSON as structured content). Default 40000, from 1000
    /// to 1000000. Lists are cut to fit, and `truncated` says what was left out.
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

/// Arguments of `trace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceArgs {
    /// A granted tree (see `map`).
    pub tree: String,
    /// Where paths start: a file or directory of the tree, a route (`GET /orders/{id}`), a table,
    /// an environment variable, a package, or a node id such as `module:app/main.py`.
    pub from: String,
    /// Where paths must end (same forms as `from`); without it, every path from `from`.
    #[serde(default)]
    pub to: Option<String>,
    /// Hops per path (default 8, at most 32).
    #[serde(default)]
    pub depth: Option<usize>,
    /// Paths listed (default 10, at most 200).
    #[serde(default)]
    pub max_paths: Option<usize>,
    /// The most bytes the answer may take, as the client receives it (the serialized tool
    /// result: the JSON text and the same JSON as structured content). Default 40000, from 1000
    /// to 1000000. Lists are cut to fit, and `truncated` says what was left out.
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

/// Arguments of `blast`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlastArgs {
    /// A granted tree (see `map`).
    pub tree: String,
    /// What changes: files, directories, routes, tables, environment variables, packages or node
    /// ids (same forms as `trace.from`). At least one.
    pub targets: Vec<String>,
    /// Nodes further than this many edges are counted, not listed (default 6, at most 32).
    #[serde(default)]
    pub depth: Option<usize>,
    /// Affected nodes listed, best-ranked first (default 50, at most 1000).
    #[serde(default)]
    pub limit: Option<usize>,
    /// The most bytes the answer may take, as the client receives it (the serialized tool
    /// result: the JSON text and the same JSON as structured content). Default 40000, from 1000
    /// to 1000000. Lists are cut to fit, and `truncated` says what was left out.
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

/// Arguments of `diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// The tree before: a granted tree or a revision of the granted repository (see `map`).
    pub base: String,
    /// The tree after, granted to the same session.
    pub head: String,
    /// Entries kept in each raw list (nodes, edges, refusals, cycles; a cycle's modules: at
    /// least 2, at most 20) and findings that are not high (at most 1000). Without it, only
    /// `max_bytes` bounds the lists: raw lists are cut first, then findings that are not high,
    /// then high findings.
    #[serde(default)]
    pub limit: Option<usize>,
    /// The most bytes the answer may take, as the client receives it (the serialized tool
    /// result: the JSON text and the same JSON as structured content). Default 40000, from 1000
    /// to 1000000. Lists are cut to fit, and `truncated` says what was left out.
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

/// Arguments of `check`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckArgs {
    /// A granted tree (see `map`) with a rules file, `cartograph.toml`, at its root.
    pub tree: String,
    /// Findings listed besides every violation of a rule of severity error (default 10, at
    /// most 1000).
    #[serde(default)]
    pub limit: Option<usize>,
    /// The most bytes the answer may take, as the client receives it (the serialized tool
    /// result: the JSON text and the same JSON as structured content). Default 40000, from 1000
    /// to 1000000. Lists are cut to fit, and `truncated` says what was left out.
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

/// Arguments of `evidence`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvidenceArgs {
    /// A granted tree (see `map`).
    pub tree: String,
    /// The edge kind: `imports`, `calls`, `serves`, `reads`, `writes`, `reads_env`, ...
    pub kind: String,
    /// The edge's source node id, e.g. `module:web/src/api.ts`.
    pub from: String,
    /// The edge's target node id, e.g. `route:GET /api/orders/{}`.
    pub to: String,
    /// The most bytes the answer may take, as the client receives it (the serialized tool
    /// result: the JSON text and the same JSON as structured content). Default 40000, from 1000
    /// to 1000000. Lists are cut to fit, and `truncated` says what was left out.
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

fn authorize(session: &Session, requested: &str) -> Result<AuthorizedTree, String> {
    session.grant().authorize(requested).map_err(|e| e.to_string())
}

fn bounded(value: Option<usize>, default: usize, max: usize, name: &str) -> Result<usize, String> {
    match value {
        None => Ok(default),
        Some(0) => Err(format!("`{name}` must be at least 1")),
        Some(n) if n > max => Err(format!("`{name}` must be at most {max}")),
        Some(n) => Ok(n),
    }
}

/// The one tree of a single-tree answer.
fn from_tree(tree: &SessionTree) -> Vec<ComputedFrom> {
    vec![ComputedFrom { role: "tree", origin: tree.origin.clone() }]
}

/// Fits `doc` to `budget` and wraps it in the envelope of `tool`, the summary made by `summary`
/// from the document as cut (its counts are the whole's; the notes add what is shown).
fn answer<D: Fit + Serialize>(
    tool: &'static str,
    computed_from: &[ComputedFrom],
    budget: usize,
    doc: &D,
    summary: impl Fn(&D) -> String,
) -> Result<Reply, String> {
    fit(doc, budget, |cut, truncated, stated| {
        let summary = format!("{}{}", summary(cut), notes_phrase(&truncated, stated));
        Reply::new(&Answer {
            tool,
            summary,
            computed_from,
            max_bytes: stated,
            truncated,
            document: cut,
        })
    })
}

/// `map`: what the system is — components and their dependencies, routes, tables, environment
/// variables, external services and packages, each list bounded.
pub fn map(session: &Session, args: &MapArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    let limit = bounded(args.limit, DEFAULT_MAP_LIMIT, MAX_MAP_LIMIT, "limit")?;
    let budget = max_bytes(args.max_bytes)?;
    let loaded = session.load(&tree)?;
    let key = format!("map\u{0}{}\u{0}{limit}\u{0}{budget}", loaded.id);
    let reply = session.answer(key, || map_answer(&loaded, limit, budget))?;
    Ok(Reply::clone(&reply))
}

fn map_answer(loaded: &SessionTree, limit: usize, budget: usize) -> Result<Reply, String> {
    let options = MapOptions {
        max_components: limit,
        max_component_edges: limit.saturating_mul(2),
        max_routes: limit,
        max_tables: limit,
        max_env_vars: limit,
        max_externals: limit,
        max_packages: limit,
    };
    let doc = cartograph_query::map_document(&loaded.tree.analysis, &options);
    let label = &loaded.tree.label;
    answer("map", &from_tree(loaded), budget, &doc, |doc| {
        format!(
            "map of {label}: {} components, {} component dependencies, {} routes, {} tables, {} environment variables, {} external services, {} packages",
            doc.components.total,
            doc.component_edges.total,
            doc.routes.total,
            doc.tables.total,
            doc.env_vars.total,
            doc.externals.total,
            doc.packages.total
        )
    })
}

/// `trace`: dependency paths from a node, or between two nodes.
pub fn trace(session: &Session, args: &TraceArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    let max_depth = bounded(args.depth, TraceOptions::default().max_depth, MAX_DEPTH, "depth")?;
    let max_paths = bounded(args.max_paths, DEFAULT_TRACE_PATHS, MAX_TRACE_PATHS, "max_paths")?;
    let budget = max_bytes(args.max_bytes)?;
    let held = session.load(&tree)?;
    let options = TraceOptions { max_depth, max_paths, ..TraceOptions::default() };
    let view = held.tree.analysis.view();
    let doc = cartograph_query::trace_document(view, &args.from, args.to.as_deref(), &options)
        .map_err(|e| e.to_string())?;
    let label = &held.tree.label;
    let found = doc.paths.len();
    let complete = !doc.truncation.by_paths && !doc.truncation.by_budget;
    answer("trace", &from_tree(&held), budget, &TraceCut::new(doc), |cut| {
        let doc = &cut.doc;
        format!(
            "trace in {label}: {found} path{} found from {} start node{}{}",
            plural(found),
            doc.from.len(),
            plural(doc.from.len()),
            if complete { "" } else { " (the search stopped there: more exist)" },
        )
    })
}

/// `blast`: what a change to the targets can affect.
pub fn blast(session: &Session, args: &BlastArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    if args.targets.is_empty() {
        return Err("`targets` must name at least one target".to_owned());
    }
    let max_depth = bounded(args.depth, BlastOptions::default().max_depth, MAX_DEPTH, "depth")?;
    let max_nodes = bounded(args.limit, DEFAULT_BLAST_NODES, MAX_BLAST_NODES, "limit")?;
    let budget = max_bytes(args.max_bytes)?;
    let held = session.load(&tree)?;
    let options = BlastOptions { max_depth, max_nodes };
    let doc = cartograph_query::blast_document(held.tree.analysis.view(), &args.targets, &options)
        .map_err(|e| e.to_string())?;
    let label = &held.tree.label;
    answer("blast", &from_tree(&held), budget, &doc, |doc| {
        let t = &doc.truncation;
        format!(
            "blast radius in {label}: {} node{} reachable from {} target{} ({} listed, {} deeper than {} edges, {} beyond the listing bound)",
            t.reachable,
            plural(t.reachable),
            doc.targets.len(),
            plural(doc.targets.len()),
            t.shown,
            t.beyond_depth,
            doc.bounds.max_depth,
            t.beyond_node_limit,
        )
    })
}

/// `diff`: the architecture diff between two granted trees, findings first.
pub fn diff(session: &Session, args: &DiffArgs) -> Result<Reply, String> {
    // Both trees are authorized before either is analysed.
    let (base_tree, head_tree) =
        session.grant().authorize_pair(&args.base, &args.head).map_err(|e| e.to_string())?;
    let limit = match args.limit {
        Some(_) => Some(bounded(args.limit, MAX_DIFF_LIMIT, MAX_DIFF_LIMIT, "limit")?),
        None => None,
    };
    let budget = max_bytes(args.max_bytes)?;
    let (base, head) = session.load_pair(&base_tree, &head_tree)?;
    let key = format!("diff\u{0}{}\u{0}{}\u{0}{limit:?}\u{0}{budget}", base.id, head.id);
    let reply = session.answer(key, || diff_answer(&base, &head, limit, budget))?;
    Ok(Reply::clone(&reply))
}

fn diff_answer(
    base: &SessionTree,
    head: &SessionTree,
    limit: Option<usize>,
    budget: usize,
) -> Result<Reply, String> {
    let full = cartograph_query::diff_document(&base.tree, &head.tree);
    let computed_from = [
        ComputedFrom { role: "base", origin: base.origin.clone() },
        ComputedFrom { role: "head", origin: head.origin.clone() },
    ];
    let summary = diff_summary(&full, &base.tree.label, &head.tree.label);
    answer("diff", &computed_from, budget, &DiffCut::new(full, limit), |_| summary.clone())
}

/// The counts of a whole diff in one sentence. Every finding is counted, those told as part of
/// another too (the document's verdict counts only the others, and the sentence says how many
/// that is, so the two numbers agree).
fn diff_summary(doc: &DiffDocument, base: &str, head: &str) -> String {
    let s = &doc.summary;
    let findings: u64 = s.findings_by_severity.values().sum();
    let by_severity: Vec<String> = ["high", "medium", "low", "info"]
        .iter()
        .map(|k| format!("{} {k}", s.findings_by_severity.get(*k).copied().unwrap_or(0)))
        .collect();
    let covered = doc.findings.iter().filter(|f| f.covered_by.is_some()).count() as u64;
    let covered = if covered > 0 {
        format!(
            "; {covered} of them told as part of another, so the verdict counts {}",
            findings - covered
        )
    } else {
        String::new()
    };
    format!(
        "diff {base} → {head}: {findings} finding{} ({}){covered}; nodes +{} −{} ~{}, edges +{} −{} ~{}, refusals +{} −{}, cycles +{} −{}",
        plural(findings),
        by_severity.join(", "),
        s.nodes_added,
        s.nodes_removed,
        s.nodes_changed,
        s.edges_added,
        s.edges_removed,
        s.edges_changed,
        s.refusals_added,
        s.refusals_removed,
        s.cycles_added,
        s.cycles_removed,
    )
}

/// The most bytes a rules file or a baseline may have to be read.
const MAX_RULES_BYTES: u64 = 1024 * 1024;

/// The rules of an authorized tree: its `cartograph.toml` and the baseline it names, read from the
/// tree itself (never from outside it), or `None` when it has no rules file.
fn rules_of(tree: &AuthorizedTree) -> Result<Option<Rules>, String> {
    let opened = tree.open().map_err(|e| e.to_string())?;
    let read = |path: &RepoPath, what: &str| {
        opened
            .read_small(path, MAX_RULES_BYTES)
            .map_err(|e| format!("{what} cannot be read ({})", e.kind()))
    };
    let config_path = RepoPath::new(CONFIG_FILE).map_err(|_| internal())?;
    let Some(bytes) = read(&config_path, CONFIG_FILE)? else { return Ok(None) };
    let text = String::from_utf8(bytes).map_err(|_| format!("{CONFIG_FILE} is not UTF-8 text"))?;
    let config = parse_config(&text).map_err(|e| format!("{CONFIG_FILE} is invalid at {e}"))?;
    let baseline_path = RepoPath::new(&config.baseline)
        .map_err(|_| format!("{CONFIG_FILE} names a baseline outside the tree"))?;
    let (baseline, baseline_text) = match read(&baseline_path, "the baseline")? {
        None => (None, None),
        Some(bytes) => {
            let text = String::from_utf8(bytes)
                .map_err(|_| "the baseline is not UTF-8 text".to_owned())?;
            let doc =
                BaselineDocument::from_json(&text).map_err(|e| format!("the baseline {e}"))?;
            (Some(doc), Some(text))
        }
    };
    Ok(Some(Rules {
        policy: config.policy,
        baseline_path: config.baseline.clone().into(),
        baseline_name: config.baseline,
        baseline,
        baseline_text,
    }))
}

/// `check`: the tree against its rules — violations not accepted by its baseline, and stale
/// baseline entries; every violation of an error rule listed, the rest bounded.
pub fn check(session: &Session, args: &CheckArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    let limit = bounded(args.limit, DEFAULT_CHECK_LIMIT, MAX_DIFF_LIMIT, "limit")?;
    let budget = max_bytes(args.max_bytes)?;
    let rules = rules_of(&tree)?.ok_or_else(|| {
        format!("{} has no rules file: write {CONFIG_FILE} at its root (see `cartograph schema config`)", tree.requested())
    })?;
    let loaded = session.load(&tree)?;
    let doc = cartograph_query::rules::check_document(&loaded.tree, &rules);
    let s = &doc.summary;
    let summary = format!(
        "check of {}: {} violation{} reported of {} rule{} ({} error, {} warning, {} info), {} accepted by the baseline, {} stale baseline entr{}",
        loaded.tree.label,
        s.reported,
        plural(s.reported as usize),
        s.rules,
        plural(s.rules as usize),
        s.reported_by_severity.get("error").copied().unwrap_or(0),
        s.reported_by_severity.get("warning").copied().unwrap_or(0),
        s.reported_by_severity.get("info").copied().unwrap_or(0),
        s.baselined,
        s.stale_baseline,
        if s.stale_baseline == 1 { "y" } else { "ies" },
    );
    answer("check", &from_tree(&loaded), budget, &CheckCut::new(doc, limit), |_| summary.clone())
}

/// `evidence`: one edge's evidence, provenance, confidence and location.
pub fn evidence(session: &Session, args: &EvidenceArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    let (kind, from, to) = (args.kind.trim(), args.from.trim(), args.to.trim());
    if kind.is_empty() || from.is_empty() || to.is_empty() {
        return Err("`kind`, `from` and `to` must each name something".to_owned());
    }
    let budget = max_bytes(args.max_bytes)?;
    let held = session.load(&tree)?;
    let loaded = &held.tree;
    let analysis = &loaded.analysis;
    let edges: Vec<DiffEdgeDoc> = analysis
        .edges
        .iter()
        .filter(|e| e.from.id() == from && e.to.id() == to)
        .map(DiffEdgeDoc::from_edge)
        .filter(|doc| doc.claim.kind == kind)
        .collect();
    if edges.is_empty() {
        let known = |id: &str| analysis.nodes.iter().any(|n| n.key.id() == id);
        let reason = if !known(from) {
            format!("no node has the id {}", echo(from))
        } else if !known(to) {
            format!("no node has the id {}", echo(to))
        } else {
            format!("there is no {} edge between these nodes", echo(kind))
        };
        return Err(format!(
            "no edge {} → {} of kind {} in {}: {reason}; node ids are as `trace` and `blast` list them",
            echo(from),
            echo(to),
            echo(kind),
            loaded.label
        ));
    }
    let confidences: Vec<&str> = edges.iter().map(|e| e.claim.confidence.as_str()).collect();
    let summary = format!(
        "{} `{}` edge{} from {from} to {to} in {}: {}",
        edges.len(),
        kind,
        plural(edges.len()),
        loaded.label,
        confidences.join(", ")
    );
    let document = EvidenceDoc {
        schema: "evidence",
        schema_version: "1.1",
        tool_version: cartograph_report::TOOL_VERSION,
        tree: loaded.label.clone(),
        kind: kind.to_owned(),
        from: from.to_owned(),
        to: to.to_owned(),
        total: edges.len(),
        edges,
    };
    answer("evidence", &from_tree(&held), budget, &document, |_| summary.clone())
}

/// A client-written word as an error may repeat it, in backticks: at most 200 characters, no
/// control characters, and never a rooted path (see `cartograph_core::echo`).
fn echo(text: &str) -> String {
    cartograph_core::echo::quoted(text, 200)
}
