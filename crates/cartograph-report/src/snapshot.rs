//! The `snapshot` document: the full graph of one tree — nodes, edges with evidence, provenance,
//! confidence and location, refusals, cycles and statistics.

use std::collections::BTreeMap;

use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Handler, Language, Node, NodeKey, NodeKind, Provenance,
    Refusal, RefusalKind, RepoPath, SourceLocation, TextPool,
};
use cartograph_graph::{Analysis, AnalysisStats, ArchitectureGraph};
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;

pub const SCHEMA_NAME: &str = "snapshot";
pub const SCHEMA_VERSION: &str = "1.3";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SnapshotDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    pub stats: StatsDoc,
    pub nodes: Vec<NodeDoc>,
    pub edges: Vec<EdgeDoc>,
    pub refusals: Vec<RefusalDoc>,
    /// Import cycles (runtime imports only), each a sorted list of module ids.
    pub cycles: Vec<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct StatsDoc {
    pub files_seen: u64,
    pub files_analysed: u64,
    pub files_skipped: u64,
    pub bytes_analysed: u64,
    pub files_by_language: BTreeMap<String, u64>,
    pub error_regions: u64,
    pub files_with_error_regions: u64,
    pub builtin_imports: u64,
    pub excluded_dirs: Vec<String>,
    /// Files that are not source files of an analysed language, by extension (since 1.3; absent
    /// from older snapshots, read as none).
    #[serde(default)]
    pub other_files_by_extension: BTreeMap<String, u64>,
    pub nodes: u64,
    pub edges: u64,
    pub refusals: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NodeDoc {
    /// `kind:name`, unique in the document.
    pub id: String,
    pub kind: String,
    /// The node's identity within its kind.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub component: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub python_module: Option<String>,
    /// A route's template with parameter names (`/items/{item_id}`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub display_path: Option<String>,
    /// A route's handler.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub handler: Option<HandlerDoc>,
    /// The recogniser a route, table or call target was found by.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub framework: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct HandlerDoc {
    pub module: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub function: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EdgeDoc {
    /// Local to this document: `e` plus the edge's position in identity order.
    pub id: String,
    #[serde(flatten)]
    pub claim: EdgeClaimDoc,
    pub type_only: bool,
    pub occurrences: u32,
}

/// What an edge claims: the fields every edge document shares (a snapshot's edges, a diff's, an
/// evidence bundle's), serialised in this order wherever it is flattened into one.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EdgeClaimDoc {
    pub kind: String,
    pub from: String,
    pub to: String,
    pub evidence: String,
    pub provenance: String,
    pub confidence: String,
    pub location: LocationDoc,
}

impl EdgeClaimDoc {
    pub fn from_edge(edge: &Edge) -> Self {
        Self {
            kind: edge.kind.as_str().to_owned(),
            from: edge.from.id(),
            to: edge.to.id(),
            evidence: edge.evidence.as_str().to_owned(),
            provenance: edge.provenance.as_str().to_owned(),
            confidence: edge.confidence.as_str().to_owned(),
            location: LocationDoc::from_location(&edge.location),
        }
    }

    /// `(kind, from, to)`: an edge's identity within one graph.
    pub fn identity(&self) -> (&str, &str, &str) {
        (&self.kind, &self.from, &self.to)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct LocationDoc {
    pub path: String,
    /// 1-based; 0 when the location is a whole file.
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RefusalDoc {
    pub kind: String,
    pub location: LocationDoc,
    pub reason: String,
}

impl SnapshotDocument {
    pub fn from_analysis(analysis: &Analysis) -> Self {
        let cycles = cycles_of(analysis);
        Self {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            stats: StatsDoc::from_analysis(analysis),
            nodes: analysis.nodes.iter().map(NodeDoc::from_node).collect(),
            edges: analysis
                .edges
                .iter()
                .enumerate()
                .map(|(i, e)| EdgeDoc::from_edge(i, e))
                .collect(),
            refusals: analysis.refusals.iter().map(RefusalDoc::from_refusal).collect(),
            cycles,
        }
    }
}

/// The snapshot document of an analysis as it is written: serialises to the same bytes as
/// [`SnapshotDocument::from_analysis`], but each node, edge and refusal takes its document form
/// only while it is written. A large tree's document, fully built, holds every edge a second time
/// (ids, keys and evidence as strings of their own) beside the analysis it was built from.
pub struct SnapshotStream<'a> {
    analysis: &'a Analysis,
}

impl<'a> SnapshotStream<'a> {
    pub fn new(analysis: &'a Analysis) -> Self {
        Self { analysis }
    }
}

impl Serialize for SnapshotStream<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let analysis = self.analysis;
        let cycles = cycles_of(analysis);
        // The fields of `SnapshotDocument`, in its order.
        let mut document = serializer.serialize_struct("SnapshotDocument", 8)?;
        document.serialize_field("schema", SCHEMA_NAME)?;
        document.serialize_field("schema_version", SCHEMA_VERSION)?;
        document.serialize_field("tool_version", TOOL_VERSION)?;
        document.serialize_field("stats", &StatsDoc::from_analysis(analysis))?;
        document
            .serialize_field("nodes", &Each(|| analysis.nodes.iter().map(NodeDoc::from_node)))?;
        document.serialize_field(
            "edges",
            &Each(|| analysis.edges.iter().enumerate().map(|(i, e)| EdgeDoc::from_edge(i, e))),
        )?;
        document.serialize_field(
            "refusals",
            &Each(|| analysis.refusals.iter().map(RefusalDoc::from_refusal)),
        )?;
        document.serialize_field("cycles", &cycles)?;
        document.end()
    }
}

/// The import cycles (runtime imports only), each a sorted list of module ids.
fn cycles_of(analysis: &Analysis) -> Vec<Vec<String>> {
    ArchitectureGraph::new(&analysis.nodes, &analysis.edges)
        .import_cycles(&analysis.edges)
        .into_iter()
        .map(|c| c.modules.iter().map(|k| k.id()).collect())
        .collect()
}

/// A sequence serialised from a fresh iterator, one item at a time.
struct Each<F>(F);

impl<F, I> Serialize for Each<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}

impl StatsDoc {
    pub fn from_analysis(analysis: &Analysis) -> Self {
        let AnalysisStats {
            files_seen,
            files_analysed,
            files_skipped,
            bytes_analysed,
            files_by_language,
            error_regions,
            files_with_error_regions,
            builtin_imports,
            excluded_dirs,
            other_files_by_extension,
        } = &analysis.stats;
        Self {
            files_seen: *files_seen,
            files_analysed: *files_analysed,
            files_skipped: *files_skipped,
            bytes_analysed: *bytes_analysed,
            files_by_language: files_by_language
                .iter()
                .map(|(l, n)| (l.as_str().to_owned(), *n))
                .collect(),
            error_regions: *error_regions,
            files_with_error_regions: *files_with_error_regions,
            builtin_imports: *builtin_imports,
            excluded_dirs: excluded_dirs.iter().map(ToString::to_string).collect(),
            other_files_by_extension: other_files_by_extension.clone(),
            nodes: analysis.nodes.len() as u64,
            edges: analysis.edges.len() as u64,
            refusals: analysis.refusals.len() as u64,
        }
    }
}

impl NodeDoc {
    pub fn from_node(node: &Node) -> Self {
        Self {
            id: node.key.id(),
            kind: node.key.kind().as_str().to_owned(),
            name: node.key.name().to_owned(),
            language: node.attrs.language.map(|l| l.as_str().to_owned()),
            component: node.attrs.component.clone(),
            python_module: node.attrs.python_module.clone(),
            display_path: node.attrs.display_path.clone(),
            handler: node.attrs.handler.as_ref().map(|h| HandlerDoc {
                module: h.module.as_str().to_owned(),
                function: h.function.clone(),
            }),
            framework: node.attrs.framework.clone(),
        }
    }
}

impl EdgeDoc {
    pub fn from_edge(index: usize, edge: &Edge) -> Self {
        Self {
            id: format!("e{index}"),
            claim: EdgeClaimDoc::from_edge(edge),
            type_only: edge.type_only,
            occurrences: edge.occurrences,
        }
    }
}

impl LocationDoc {
    pub fn from_location(location: &SourceLocation) -> Self {
        Self {
            path: location.path.as_str().to_owned(),
            line: location.line,
            column: location.column,
        }
    }
}

impl RefusalDoc {
    pub fn from_refusal(refusal: &Refusal) -> Self {
        Self {
            kind: refusal.kind.as_str().to_owned(),
            location: LocationDoc::from_location(&refusal.location),
            reason: refusal.reason.clone(),
        }
    }
}

/// Why a snapshot file cannot be read back. Messages never quote the file's content: a file given
/// as a snapshot by mistake may hold anything.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SnapshotError {
    #[error("is not a snapshot document: it is not valid JSON (line {line}, column {column})")]
    NotJson { line: usize, column: usize },
    #[error(
        "is not a snapshot document: its structure does not match the snapshot schema (line {line}, column {column})"
    )]
    Shape { line: usize, column: usize },
    #[error("is a `{0}` document, not a snapshot")]
    WrongDocument(String),
    #[error(
        "was written with snapshot schema {found}, newer than this Cartograph reads ({SCHEMA_VERSION}); use a newer Cartograph"
    )]
    NewerMajor { found: String },
    #[error("has an unreadable schema_version `{0}`")]
    BadVersion(String),
    #[error("holds an invalid {what}: {detail}")]
    Invalid { what: &'static str, detail: String },
    #[error("is JSON but not a snapshot document: it has no `schema` field")]
    NoSchemaField,
    #[error("does not match the snapshot schema at `{pointer}`: {problem}")]
    Field { pointer: String, problem: String },
}

fn major(version: &str) -> Option<u64> {
    let (major, minor) = version.split_once('.')?;
    minor.parse::<u64>().ok()?;
    major.parse().ok()
}

impl SnapshotDocument {
    /// Reads a snapshot written by `cartograph snapshot`: the same major schema version (any
    /// minor), every identity and location re-validated.
    pub fn from_json(text: &str) -> Result<Self, SnapshotError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| SnapshotError::NotJson { line: e.line(), column: e.column() })?;
        match value.get("schema").and_then(serde_json::Value::as_str) {
            Some(SCHEMA_NAME) => {}
            Some(other) => {
                let shown: String = other.chars().take(40).filter(|c| !c.is_control()).collect();
                return Err(SnapshotError::WrongDocument(shown));
            }
            None => return Err(SnapshotError::NoSchemaField),
        }
        let version = value.get("schema_version").and_then(serde_json::Value::as_str).unwrap_or("");
        let ours = major(SCHEMA_VERSION).unwrap_or(1);
        match major(version) {
            Some(found) if found == ours => {}
            Some(found) if found > ours => {
                return Err(SnapshotError::NewerMajor { found: version.to_owned() });
            }
            _ => {
                let shown: String = version.chars().take(20).filter(|c| !c.is_control()).collect();
                return Err(SnapshotError::BadVersion(shown));
            }
        }
        serde_json::from_str(text).map_err(|e| {
            // The schema names the field at fault; serde only the place in the text.
            located(&value).unwrap_or(SnapshotError::Shape { line: e.line(), column: e.column() })
        })
    }

    /// Reads a snapshot and rebuilds its analysis ([`Self::from_json`], then
    /// [`Self::into_analysis`]); a value the schema refuses is named by its field.
    pub fn analysis_from_json(text: &str) -> Result<Analysis, SnapshotError> {
        Self::from_json(text)?.into_analysis().map_err(|error| match error {
            SnapshotError::Invalid { .. } => serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|value| located(&value))
                .unwrap_or(error),
            other => other,
        })
    }

    /// Rebuilds the analysis the snapshot was written from: nodes, edges, refusals and counts.
    /// Package roots are not part of a snapshot; the nodes carry their components already.
    pub fn into_analysis(self) -> Result<Analysis, SnapshotError> {
        // Each path and key read from the document shares one text, as an analysed tree's do.
        let mut pool = TextPool::new();
        let nodes = read_shared(&self.nodes, &mut pool, node_from_doc, Node::share)?;
        let edges = read_shared(&self.edges, &mut pool, edge_from_doc, Edge::share)?;
        let refusals = read_shared(&self.refusals, &mut pool, refusal_from_doc, Refusal::share)?;
        let mut files_by_language = BTreeMap::new();
        for (name, count) in &self.stats.files_by_language {
            let language = Language::parse(name).ok_or_else(|| invalid("language", name))?;
            files_by_language.insert(language, *count);
        }
        let excluded_dirs = self
            .stats
            .excluded_dirs
            .iter()
            .map(|d| RepoPath::new(d).map_err(|_| invalid("path", d)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut analysis = Analysis {
            nodes,
            edges,
            refusals,
            stats: AnalysisStats {
                files_seen: self.stats.files_seen,
                files_analysed: self.stats.files_analysed,
                files_skipped: self.stats.files_skipped,
                bytes_analysed: self.stats.bytes_analysed,
                files_by_language,
                error_regions: self.stats.error_regions,
                files_with_error_regions: self.stats.files_with_error_regions,
                builtin_imports: self.stats.builtin_imports,
                excluded_dirs,
                other_files_by_extension: self.stats.other_files_by_extension,
            },
            package_roots: Vec::new(),
            file_versions: BTreeMap::new(),
        };
        // Documents are written sorted; a hand-edited one may not be.
        analysis.nodes.sort_by(|a, b| a.key.cmp(&b.key));
        analysis.nodes.dedup_by(|a, b| a.key == b.key);
        analysis.edges.sort_by(|a, b| a.identity().cmp(&b.identity()));
        analysis.edges.dedup_by(|a, b| a.identity() == b.identity());
        analysis.refusals.sort();
        Ok(analysis)
    }
}

/// The first field at which `value` fails the snapshot schema, as an error.
fn located(value: &serde_json::Value) -> Option<SnapshotError> {
    crate::schema::first_violation(SCHEMA_NAME, value)
        .map(|v| SnapshotError::Field { pointer: v.pointer, problem: v.problem })
}

fn invalid(what: &'static str, value: &str) -> SnapshotError {
    let detail: String =
        value.chars().take(60).map(|c| if c.is_control() { '?' } else { c }).collect();
    SnapshotError::Invalid { what, detail: format!("`{detail}`") }
}

fn key_from_id(id: &str) -> Result<NodeKey, SnapshotError> {
    let (kind, name) = id.split_once(':').ok_or_else(|| invalid("node id", id))?;
    let kind = NodeKind::parse(kind).ok_or_else(|| invalid("node kind", kind))?;
    if name.is_empty() {
        return Err(invalid("node id", id));
    }
    if kind == NodeKind::Module {
        RepoPath::new(name).map_err(|_| invalid("module path", name))?;
    }
    Ok(NodeKey::from_parts(kind, name))
}

fn location_from_doc(doc: &LocationDoc) -> Result<SourceLocation, SnapshotError> {
    let path = RepoPath::new(&doc.path).map_err(|_| invalid("location path", &doc.path))?;
    Ok(SourceLocation::new(path, doc.line, doc.column))
}

fn node_from_doc(doc: &NodeDoc) -> Result<Node, SnapshotError> {
    let key = key_from_id(&doc.id)?;
    if key.kind().as_str() != doc.kind || key.name() != doc.name {
        return Err(invalid("node", &doc.id));
    }
    let mut node = Node::new(key);
    node.attrs.language = match &doc.language {
        Some(name) => Some(Language::parse(name).ok_or_else(|| invalid("language", name))?),
        None => None,
    };
    node.attrs.component.clone_from(&doc.component);
    node.attrs.python_module.clone_from(&doc.python_module);
    node.attrs.display_path.clone_from(&doc.display_path);
    node.attrs.framework.clone_from(&doc.framework);
    node.attrs.handler = match &doc.handler {
        Some(handler) => Some(Handler {
            module: RepoPath::new(&handler.module)
                .map_err(|_| invalid("handler path", &handler.module))?,
            function: handler.function.clone(),
        }),
        None => None,
    };
    Ok(node)
}

fn edge_from_doc(doc: &EdgeDoc) -> Result<Edge, SnapshotError> {
    Ok(Edge {
        kind: EdgeKind::parse(&doc.claim.kind)
            .ok_or_else(|| invalid("edge kind", &doc.claim.kind))?,
        from: key_from_id(&doc.claim.from)?,
        to: key_from_id(&doc.claim.to)?,
        evidence: Evidence::new(doc.claim.evidence.as_str()),
        provenance: Provenance::parse(&doc.claim.provenance)
            .ok_or_else(|| invalid("provenance", &doc.claim.provenance))?,
        confidence: Confidence::parse(&doc.claim.confidence)
            .ok_or_else(|| invalid("confidence", &doc.claim.confidence))?,
        location: location_from_doc(&doc.claim.location)?,
        type_only: doc.type_only,
        occurrences: doc.occurrences.max(1),
    })
}

fn refusal_from_doc(doc: &RefusalDoc) -> Result<Refusal, SnapshotError> {
    Ok(Refusal::new(
        RefusalKind::parse(&doc.kind).ok_or_else(|| invalid("refusal kind", &doc.kind))?,
        location_from_doc(&doc.location)?,
        doc.reason.as_str(),
    ))
}

/// Each of `docs` made into its value by `from_doc`, its texts shared through `pool`.
fn read_shared<D, T>(
    docs: &[D],
    pool: &mut TextPool,
    from_doc: impl Fn(&D) -> Result<T, SnapshotError>,
    share: impl Fn(&mut T, &mut TextPool),
) -> Result<Vec<T>, SnapshotError> {
    docs.iter()
        .map(|doc| {
            let mut value = from_doc(doc)?;
            share(&mut value, pool);
            Ok(value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture_snapshot() -> SnapshotDocument {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/diff/head");
        let analysis = cartograph_pipeline::analyse_tree(&root, &Default::default())
            .expect("fixture analyses");
        SnapshotDocument::from_analysis(&analysis)
    }

    #[test]
    fn a_snapshot_reads_back_to_the_same_document() {
        let doc = fixture_snapshot();
        let text = crate::to_json(&doc);
        let back =
            SnapshotDocument::from_json(&text).expect("reads").into_analysis().expect("valid");
        assert_eq!(crate::to_json(&SnapshotDocument::from_analysis(&back)), text);
        // Each path read back is one text, shared by every edge and node that names it.
        let node_text = |key: &NodeKey| {
            back.nodes.iter().find(|n| n.key == *key).map(|n| n.key.name().as_ptr())
        };
        assert!(!back.edges.is_empty());
        for edge in &back.edges {
            assert_eq!(node_text(&edge.from), Some(edge.from.name().as_ptr()), "{edge:?}");
            assert_eq!(node_text(&edge.to), Some(edge.to.name().as_ptr()), "{edge:?}");
        }
    }

    #[test]
    fn the_streamed_snapshot_is_the_built_one_byte_for_byte() {
        for fixture in ["diff/head", "diff/base", "fullstack", "polyglot"] {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures")
                .join(fixture);
            let analysis = cartograph_pipeline::analyse_tree(&root, &Default::default())
                .expect("fixture analyses");
            assert!(!analysis.edges.is_empty() && !analysis.nodes.is_empty(), "{fixture}");
            let built = crate::to_json(&SnapshotDocument::from_analysis(&analysis));
            let mut streamed = Vec::new();
            crate::write_json(&SnapshotStream::new(&analysis), &mut streamed).expect("writes");
            assert_eq!(String::from_utf8(streamed).expect("UTF-8"), built, "{fixture}");
        }
    }

    #[test]
    fn bad_snapshots_get_one_sentence_without_content() {
        let secret =
            "{\"schema\": \"snapshot\", \"schema_version\": \"1.1\", \"nodes\": \"hunter2\"}";
        let error = SnapshotDocument::from_json(secret).expect_err("shape");
        assert!(!error.to_string().contains("hunter2"), "{error}");
        assert_eq!(
            error.to_string(),
            "does not match the snapshot schema at `/`: the required field `tool_version` is missing"
        );
        let package = "{\"name\": \"web\", \"version\": \"1.0.0\"}";
        assert_eq!(SnapshotDocument::from_json(package), Err(SnapshotError::NoSchemaField));
        assert!(matches!(
            SnapshotDocument::from_json("DATABASE_URL=postgres://u:pw@h/db"),
            Err(SnapshotError::NotJson { .. })
        ));
        let newer = "{\"schema\": \"snapshot\", \"schema_version\": \"2.0\"}";
        assert!(matches!(
            SnapshotDocument::from_json(newer),
            Err(SnapshotError::NewerMajor { .. })
        ));
        let summary = "{\"schema\": \"summary\", \"schema_version\": \"1.1\"}";
        assert_eq!(
            SnapshotDocument::from_json(summary),
            Err(SnapshotError::WrongDocument("summary".into()))
        );
        let mut doc = fixture_snapshot();
        doc.edges[0].claim.location.path = "/etc/passwd".into();
        let text = crate::to_json(&doc);
        let error = doc.into_analysis().expect_err("absolute path refused");
        assert!(matches!(error, SnapshotError::Invalid { what: "location path", .. }));
        // Read from text, the field is named and the path is not repeated.
        let error = SnapshotDocument::analysis_from_json(&text).expect_err("absolute path refused");
        assert_eq!(
            error.to_string(),
            "does not match the snapshot schema at `/edges/0/location/path`: the text does not have the form the schema requires"
        );
        let mut wrong = fixture_snapshot();
        wrong.nodes[1].kind = "gadget".into();
        let error = SnapshotDocument::analysis_from_json(&crate::to_json(&wrong))
            .expect_err("an unknown node kind");
        assert_eq!(
            error.to_string(),
            "does not match the snapshot schema at `/nodes/1/kind`: the value is not one of those the schema allows"
        );
    }
}
