//! The five queries, synchronous and transport-free: each authorizes every tree it names through
//! the session's grant **before** anything is analysed or read, then loads the analyses (cached per
//! tree and content), then answers with the same report documents as the CLI, built by
//! `cartograph-query`.
//!
//! Every answer is one envelope (its schema: `schemas/mcp-answer.schema.json`), summary first: `tool`, a one-sentence `summary`, `truncated` (each
//! list that was cut: its name, how many entries are shown, how many there were), then `document`.
//! Answers are bounded: map, trace and blast by their documents' own bounds, diff by `limit`
//! (findings first: every high-severity finding is kept, the other findings and each raw list are
//! cut to `limit`, and each finding names at most a few edges).

use cartograph_core::RepoPath;
use cartograph_graph::{BlastOptions, MapOptions, TraceOptions};
use cartograph_query::LoadedTree;
use cartograph_query::config::{CONFIG_FILE, parse_config};
use cartograph_query::rules::Rules;
use cartograph_report::diff::{DiffDocument, DiffEdgeDoc, FindingDoc};
use cartograph_report::rules::BaselineDocument;
use cartograph_report::words::plural;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::grant::AuthorizedTree;
use crate::session::Session;

/// Default number of entries of each raw diff list (and of non-high findings).
pub const DEFAULT_DIFF_LIMIT: usize = 10;
/// Edges named per diff finding in an answer.
pub const FINDING_EDGES: usize = 3;
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
}

/// Arguments of `diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// The tree before: a granted tree or a revision of the granted repository (see `map`).
    pub base: String,
    /// The tree after, granted to the same session.
    pub head: String,
    /// Entries kept in each raw list (nodes, edges, refusals, cycles, the modules of each cycle)
    /// and non-high findings (at most 1000). Without it, 10 each, cut further until the answer
    /// fits 24 KB. High-severity findings are always all listed.
    #[serde(default)]
    pub limit: Option<usize>,
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
}

/// One list an answer cut.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Truncation {
    pub list: String,
    pub shown: usize,
    pub total: usize,
}

/// The envelope of every answer, summary first.
#[derive(Debug, Serialize)]
pub struct Answer<D> {
    pub tool: &'static str,
    pub summary: String,
    pub truncated: Vec<Truncation>,
    pub document: D,
}

/// An `evidence` document: the edges of one kind between two nodes (usually one). Its schema is
/// `schemas/mcp-answer.schema.json#/$defs/evidence_document`.
#[derive(Debug, Serialize)]
pub struct EvidenceDoc {
    pub schema: &'static str,
    pub schema_version: &'static str,
    pub tool_version: &'static str,
    pub tree: String,
    pub kind: String,
    pub from: String,
    pub to: String,
    pub edges: Vec<DiffEdgeDoc>,
}

/// An answer, serialised: `text` keeps the envelope's field order (summary first), `value` is the
/// same JSON as structured content.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub value: serde_json::Value,
}

impl Reply {
    fn new<D: Serialize>(answer: &Answer<D>) -> Result<Self, String> {
        let text = serde_json::to_string(answer).map_err(|_| internal())?;
        let value = serde_json::to_value(answer).map_err(|_| internal())?;
        Ok(Self { text, value })
    }
}

fn internal() -> String {
    "the answer could not be serialised".to_owned()
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

/// `map`: what the system is — components and their dependencies, routes, tables, environment
/// variables, external services and packages, each list bounded.
pub fn map(session: &Session, args: &MapArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    let limit = bounded(args.limit, DEFAULT_MAP_LIMIT, MAX_MAP_LIMIT, "limit")?;
    let loaded = session.load(&tree)?;
    let key = format!("map\u{0}{}\u{0}{limit}", loaded.id);
    let reply = session.answer(key, || map_answer(&loaded.tree, limit))?;
    Ok(Reply::clone(&reply))
}

fn map_answer(loaded: &LoadedTree, limit: usize) -> Result<Reply, String> {
    let options = MapOptions {
        max_components: limit,
        max_component_edges: limit.saturating_mul(2),
        max_routes: limit,
        max_tables: limit,
        max_env_vars: limit,
        max_externals: limit,
        max_packages: limit,
    };
    let doc = cartograph_query::map_document(&loaded.analysis, &options);
    let mut truncated = Vec::new();
    let mut section = |name: &str, total: u64, shown: u64| {
        if shown < total {
            truncated.push(Truncation {
                list: name.to_owned(),
                shown: shown as usize,
                total: total as usize,
            });
        }
    };
    section("components", doc.components.total, doc.components.shown);
    section("component_edges", doc.component_edges.total, doc.component_edges.shown);
    section("routes", doc.routes.total, doc.routes.shown);
    section("tables", doc.tables.total, doc.tables.shown);
    section("env_vars", doc.env_vars.total, doc.env_vars.shown);
    section("externals", doc.externals.total, doc.externals.shown);
    section("packages", doc.packages.total, doc.packages.shown);
    let summary = format!(
        "map of {}: {} components, {} component dependencies, {} routes, {} tables, {} environment variables, {} external services, {} packages",
        loaded.label,
        doc.components.total,
        doc.component_edges.total,
        doc.routes.total,
        doc.tables.total,
        doc.env_vars.total,
        doc.externals.total,
        doc.packages.total
    );
    Reply::new(&Answer { tool: "map", summary, truncated, document: doc })
}

/// `trace`: dependency paths from a node, or between two nodes.
pub fn trace(session: &Session, args: &TraceArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    let max_depth = bounded(args.depth, TraceOptions::default().max_depth, MAX_DEPTH, "depth")?;
    let max_paths = bounded(args.max_paths, DEFAULT_TRACE_PATHS, MAX_TRACE_PATHS, "max_paths")?;
    let held = session.load(&tree)?;
    let loaded = &held.tree;
    let options = TraceOptions { max_depth, max_paths, ..TraceOptions::default() };
    let view = loaded.analysis.view();
    let doc = cartograph_query::trace_document(view, &args.from, args.to.as_deref(), &options)
        .map_err(|e| e.to_string())?;
    let mut truncated = Vec::new();
    if doc.truncation.truncated {
        truncated.push(Truncation {
            list: "paths".to_owned(),
            shown: doc.paths.len(),
            total: doc.paths.len() + usize::from(doc.truncation.by_paths),
        });
    }
    let summary = format!(
        "trace in {}: {} path{} from {} start node{}{}",
        loaded.label,
        doc.paths.len(),
        plural(doc.paths.len()),
        doc.from.len(),
        plural(doc.from.len()),
        if doc.truncation.truncated { " (bounded: more paths exist)" } else { "" }
    );
    Reply::new(&Answer { tool: "trace", summary, truncated, document: doc })
}

/// `blast`: what a change to the targets can affect.
pub fn blast(session: &Session, args: &BlastArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    if args.targets.is_empty() {
        return Err("`targets` must name at least one target".to_owned());
    }
    let max_depth = bounded(args.depth, BlastOptions::default().max_depth, MAX_DEPTH, "depth")?;
    let max_nodes = bounded(args.limit, DEFAULT_BLAST_NODES, MAX_BLAST_NODES, "limit")?;
    let held = session.load(&tree)?;
    let loaded = &held.tree;
    let options = BlastOptions { max_depth, max_nodes };
    let doc = cartograph_query::blast_document(loaded.analysis.view(), &args.targets, &options)
        .map_err(|e| e.to_string())?;
    let mut truncated = Vec::new();
    if doc.truncation.truncated {
        truncated.push(Truncation {
            list: "affected".to_owned(),
            shown: doc.truncation.shown as usize,
            total: doc.truncation.reachable as usize,
        });
    }
    let summary = format!(
        "blast radius in {}: {} node{} reachable from {} target{}, {} listed",
        loaded.label,
        doc.truncation.reachable,
        plural(doc.truncation.reachable),
        doc.targets.len(),
        plural(doc.targets.len()),
        doc.truncation.shown
    );
    Reply::new(&Answer { tool: "blast", summary, truncated, document: doc })
}

/// `diff`: the architecture diff between two granted trees, findings first.
pub fn diff(session: &Session, args: &DiffArgs) -> Result<Reply, String> {
    // Both trees are authorized before either is analysed.
    let (base_tree, head_tree) =
        session.grant().authorize_pair(&args.base, &args.head).map_err(|e| e.to_string())?;
    let limit = match args.limit {
        Some(_) => Some(bounded(args.limit, DEFAULT_DIFF_LIMIT, MAX_DIFF_LIMIT, "limit")?),
        None => None,
    };
    let (base, head) = session.load_pair(&base_tree, &head_tree)?;
    let key = format!("diff\u{0}{}\u{0}{}\u{0}{limit:?}", base.id, head.id);
    let reply = session.answer(key, || diff_answer(&base.tree, &head.tree, limit))?;
    Ok(Reply::clone(&reply))
}

/// With no `limit` asked for, a diff answer is cut until its JSON fits this many bytes: raw lists
/// first, then the findings that are not high (high-severity findings are never cut).
pub const DIFF_BUDGET_BYTES: usize = 24_000;

/// `(raw list limit, non-high finding limit)` tried in turn when no limit was asked for.
const DEFAULT_STEPS: [(usize, usize); 7] = [
    (DEFAULT_DIFF_LIMIT, DEFAULT_DIFF_LIMIT),
    (5, DEFAULT_DIFF_LIMIT),
    (3, DEFAULT_DIFF_LIMIT),
    (1, DEFAULT_DIFF_LIMIT),
    (0, DEFAULT_DIFF_LIMIT),
    (0, 5),
    (0, 0),
];

fn diff_answer(
    base: &LoadedTree,
    head: &LoadedTree,
    limit: Option<usize>,
) -> Result<Reply, String> {
    let full = cartograph_query::diff_document(base, head);
    let high = full.findings.iter().filter(|f| f.severity == "high").count();
    let summary = format!(
        "diff {} → {}: {}; {} finding{} ({high} high)",
        base.label,
        head.label,
        full.verdict,
        full.findings.len(),
        plural(full.findings.len()),
    );
    let steps: Vec<(usize, usize)> = match limit {
        Some(limit) => vec![(limit, limit)],
        None => DEFAULT_STEPS.to_vec(),
    };
    let mut last = None;
    for (i, &(raw, findings)) in steps.iter().enumerate() {
        let mut doc = full.clone();
        let truncated = bound_diff(&mut doc, raw, findings);
        let fitted = i > 0;
        let summary = if fitted {
            format!("{summary}; cut to fit {DIFF_BUDGET_BYTES} bytes — ask with `limit` for more")
        } else {
            summary.clone()
        };
        let reply = Reply::new(&Answer { tool: "diff", summary, truncated, document: doc })?;
        if limit.is_some() || reply.text.len() <= DIFF_BUDGET_BYTES {
            return Ok(reply);
        }
        last = Some(reply);
    }
    last.ok_or_else(internal)
}

/// Cuts a diff document to `limit` entries per raw list (nodes, edges, refusals, cycles and each
/// cycle's modules) and `finding_limit` findings that are not high; every high-severity finding is
/// kept, each naming at most [`FINDING_EDGES`] edges.
pub fn bound_diff(doc: &mut DiffDocument, limit: usize, finding_limit: usize) -> Vec<Truncation> {
    let mut notes = bound_findings(&mut doc.findings, finding_limit);
    cut(&mut doc.nodes.added, "nodes.added", limit, &mut notes);
    cut(&mut doc.nodes.removed, "nodes.removed", limit, &mut notes);
    cut(&mut doc.nodes.changed, "nodes.changed", limit, &mut notes);
    cut(&mut doc.edges.added, "edges.added", limit, &mut notes);
    cut(&mut doc.edges.removed, "edges.removed", limit, &mut notes);
    cut(&mut doc.edges.changed, "edges.changed", limit, &mut notes);
    cut(&mut doc.refusals.added, "refusals.added", limit, &mut notes);
    cut(&mut doc.refusals.removed, "refusals.removed", limit, &mut notes);
    cut(&mut doc.cycles.added, "cycles.added", limit, &mut notes);
    cut(&mut doc.cycles.removed, "cycles.removed", limit, &mut notes);
    for (side, cycles) in [("added", &mut doc.cycles.added), ("removed", &mut doc.cycles.removed)] {
        for (i, cycle) in cycles.iter_mut().enumerate() {
            cut(cycle, &format!("cycles.{side}[{i}]"), limit.max(2), &mut notes);
        }
    }
    notes
}

/// Keeps every high-severity finding and at most `limit` others, each naming at most
/// [`FINDING_EDGES`] edges; says what was cut.
fn bound_findings(findings: &mut Vec<FindingDoc>, limit: usize) -> Vec<Truncation> {
    let mut notes = Vec::new();
    let total = findings.len();
    let mut others = 0usize;
    findings.retain(|f| {
        if f.severity == "high" {
            return true;
        }
        others += 1;
        others <= limit
    });
    if findings.len() < total {
        notes.push(Truncation { list: "findings".to_owned(), shown: findings.len(), total });
    }
    let (mut shown, mut all) = (0, 0);
    for finding in findings.iter_mut() {
        all += finding.edges.len();
        finding.edges.truncate(FINDING_EDGES);
        shown += finding.edges.len();
    }
    if shown < all {
        notes.push(Truncation { list: "findings[].edges".to_owned(), shown, total: all });
    }
    notes
}

fn cut<T>(list: &mut Vec<T>, name: &str, limit: usize, notes: &mut Vec<Truncation>) {
    if list.len() > limit {
        notes.push(Truncation { list: name.to_owned(), shown: limit, total: list.len() });
        list.truncate(limit);
    }
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
    let limit = bounded(args.limit, DEFAULT_DIFF_LIMIT, MAX_DIFF_LIMIT, "limit")?;
    let rules = rules_of(&tree)?.ok_or_else(|| {
        format!("{} has no rules file: write {CONFIG_FILE} at its root (see `cartograph schema config`)", tree.requested())
    })?;
    let loaded = session.load(&tree)?;
    let mut doc = cartograph_query::rules::check_document(&loaded.tree, &rules);
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
    let truncated = bound_findings(&mut doc.findings, limit);
    Reply::new(&Answer { tool: "check", summary, truncated, document: doc })
}

/// `evidence`: one edge's evidence, provenance, confidence and location.
pub fn evidence(session: &Session, args: &EvidenceArgs) -> Result<Reply, String> {
    let tree = authorize(session, &args.tree)?;
    let (kind, from, to) = (args.kind.trim(), args.from.trim(), args.to.trim());
    if kind.is_empty() || from.is_empty() || to.is_empty() {
        return Err("`kind`, `from` and `to` must each name something".to_owned());
    }
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
    let summary = format!(
        "{} `{}` edge{} from {from} to {to} in {}: {}",
        edges.len(),
        kind,
        plural(edges.len()),
        loaded.label,
        edges.iter().map(|e| e.claim.confidence.as_str()).collect::<Vec<_>>().join(", ")
    );
    let document = EvidenceDoc {
        schema: "evidence",
        schema_version: "1.0",
        tool_version: cartograph_report::TOOL_VERSION,
        tree: loaded.label.clone(),
        kind: kind.to_owned(),
        from: from.to_owned(),
        to: to.to_owned(),
        edges,
    };
    Reply::new(&Answer { tool: "evidence", summary, truncated: Vec::new(), document })
}

/// A client-written word as an error may repeat it, in backticks: at most 200 characters, no
/// control characters, and never a rooted path (see `cartograph_core::echo`).
fn echo(text: &str) -> String {
    cartograph_core::echo::quoted(text, 200)
}
