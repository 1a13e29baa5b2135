//! Linking: joins the per-file facts of the recognisers across files into nodes and edges —
//! routes with their full prefix chains, calls matched to routes, models to tables, environment
//! variable reads.
//!
//! Runs after import resolution, so a recogniser can follow a name to the module that defines it
//! ([`LinkInput::binding`]). Each family's link half is the `link.rs` in its folder, beside its
//! syntax half (`calls/link.rs`, `py_routes/link.rs`, `tables/prisma/link.rs` …); [`link_all`]
//! runs them in a fixed order (routes first, since calls are matched against them) and
//! everything it returns is sorted by the analysis builder. No link half can change an extracted
//! fact, so editing one leaves the fact cache's fingerprint as it is.
//!
//! **A link half reads only its own family's facts.** `cartograph-pipeline` holds every file's
//! facts encoded and runs [`link_family`] for one family at a time, with only that family decoded
//! (the others read as empty); a test checks every link half's source for another family's facts.

use std::collections::HashMap;
use std::sync::Arc;

use crate::{Family, FileFacts};
use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Handler, HttpMethod, Language, Node, NodeKey, Provenance,
    Refusal, RepoPath, RouteTemplate, SourceLocation,
};

use crate::tree::TreeIndex;

/// What a local name bound by an import refers to, after resolution.
///
/// Its names are shared texts: a large tree binds millions of names, most of them the same few
/// thousand (`React`, `APIRouter`, `default`), so the pipeline gives equal names one allocation
/// ([`cartograph_core::TextPool`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedBinding {
    /// The local name (`router`, `items`, `api.client` for `import api.client`).
    pub local: Arc<str>,
    pub target: BindingTarget,
    /// `None` when the name is the module itself; otherwise the member it names (`router`, or
    /// `default` for a JS default import).
    pub member: Option<Arc<str>>,
}

/// The module or package a binding leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindingTarget {
    Module(RepoPath),
    /// A third-party package by its node name (`npm:axios`, `pypi:requests`).
    Package(Arc<str>),
}

/// One analysed file, as the linkers see it.
#[derive(Debug)]
pub struct FileView<'a> {
    pub path: &'a RepoPath,
    pub language: Language,
    pub facts: &'a FileFacts,
    pub bindings: &'a [ResolvedBinding],
    pub python_module: Option<&'a str>,
}

/// Everything the linkers read.
#[derive(Debug)]
pub struct LinkInput<'a> {
    /// Analysed files in path order.
    pub files: Vec<FileView<'a>>,
    pub index: &'a TreeIndex,
    /// Prisma schema files and their models.
    pub prisma: Vec<(RepoPath, Vec<crate::PrismaModel>)>,
    /// SQL schema files and the tables they create.
    pub sql_schemas: Vec<(RepoPath, Vec<crate::SqlTable>)>,
    /// Runs a linker's per-file jobs (`job(i)` for every file index `i`, results in index
    /// order); `None` runs them in turn. The analyser hands in a parallel one: this crate does not
    /// depend on a thread pool (the report layer links it, and must not reach one).
    pub spread: Option<Spreader<'a>>,
    by_path: HashMap<&'a str, usize>,
    /// The files that assign each `window.NAME`, in file order; built on first use.
    window: std::sync::OnceLock<HashMap<String, Vec<usize>>>,
}

/// How a linker's per-file jobs run: `spread(job, n)` returns `job(0)`, …, `job(n - 1)` in
/// that order, however they were scheduled.
pub type Spread = dyn Fn(&(dyn Fn(usize) -> Linked + Sync), usize) -> Vec<Linked> + Sync;

/// A [`Spread`] held by a [`LinkInput`].
#[derive(Clone, Copy)]
pub struct Spreader<'a>(pub &'a Spread);

impl std::fmt::Debug for Spreader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spreader")
    }
}

impl<'a> LinkInput<'a> {
    pub fn new(files: Vec<FileView<'a>>, index: &'a TreeIndex) -> Self {
        let by_path = files.iter().enumerate().map(|(i, f)| (f.path.as_str(), i)).collect();
        Self {
            files,
            index,
            prisma: Vec::new(),
            sql_schemas: Vec::new(),
            spread: None,
            by_path,
            window: std::sync::OnceLock::new(),
        }
    }

    /// The indices (in file order) of the files that assign the global `key` (`window.NAME`).
    /// Looking a name up among every file's aliases on each call made linking quadratic.
    pub fn assigning_global(&self, key: &str) -> &[usize] {
        let index = self.window.get_or_init(|| {
            let mut index: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, file) in self.files.iter().enumerate() {
                for (alias, _) in &file.facts.calls.aliases {
                    if alias.starts_with("window.") {
                        let files = index.entry(alias.clone()).or_default();
                        if files.last() != Some(&i) {
                            files.push(i);
                        }
                    }
                }
            }
            index
        });
        index.get(key).map_or(&[], Vec::as_slice)
    }

    /// `job` for each file index, in file order, through [`LinkInput::spread`] when there is one.
    pub fn each_file(&self, job: &(dyn Fn(usize) -> Linked + Sync)) -> Vec<Linked> {
        match self.spread {
            Some(Spreader(spread)) => spread(job, self.files.len()),
            None => (0..self.files.len()).map(job).collect(),
        }
    }

    /// The analysed file at `path`.
    pub fn file(&self, path: &RepoPath) -> Option<&FileView<'a>> {
        self.by_path.get(path.as_str()).map(|i| &self.files[*i])
    }

    /// What `local` refers to in `file`, if an import bound it.
    pub fn binding(&self, file: &RepoPath, local: &str) -> Option<&'a ResolvedBinding> {
        self.file(file)?.bindings.iter().find(|b| &*b.local == local)
    }
}

/// A route a linker found, before it becomes a node and a `serves` edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedRoute {
    pub method: HttpMethod,
    /// The full template, every prefix of the chain applied.
    pub template: RouteTemplate,
    /// The module that declares the handler.
    pub module: RepoPath,
    /// The handler function; `None` for an inline handler.
    pub handler: Option<String>,
    /// Where the route is declared (the decorator, the `app.get(...)` call, the file route).
    pub location: SourceLocation,
    /// The recogniser's name (`fastapi`, `express`, `nextjs`).
    pub framework: &'static str,
    pub provenance: Provenance,
    pub confidence: Confidence,
    /// One sentence: how the route and its full path were derived.
    pub evidence: String,
}

/// What linking adds to an analysis.
#[derive(Debug, Default)]
pub struct Linked {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub refusals: Vec<Refusal>,
    /// For each target key [`Linked::edge`] added: where its first node is in `nodes`.
    first: HashMap<NodeKey, usize>,
}

impl Linked {
    /// Adds an edge and makes sure its target node exists. A target equal to the first node
    /// added under its key is not added again: the analysis fills a node's missing attributes
    /// from each later node of its key in turn, which an equal node leaves as they are. (A
    /// table every model use reads, in a large tree, came with one node per edge.)
    pub fn edge(&mut self, edge: Edge, target: Node) {
        match self.first.get(&target.key) {
            Some(&at) if self.nodes.get(at) == Some(&target) => {}
            Some(_) => self.nodes.push(target),
            None => {
                self.first.insert(target.key.clone(), self.nodes.len());
                self.nodes.push(target);
            }
        }
        self.edges.push(edge);
    }
}

/// What the linkers have found so far, as they run one family after another.
#[derive(Debug, Default)]
pub struct LinkState {
    pub linked: Linked,
    /// The routes the route families found, for the calls linker to match calls to.
    routes: Vec<ServedRoute>,
}

/// Runs the linker of `family`. The files of `input` need hold only that family's facts (see
/// [`crate::HeldFacts::family`]), and only the tables linker reads `input.prisma` and
/// `input.sql_schemas`. Run for each family of [`Family::ALL`] in turn, it is [`link_all`].
pub fn link_family(family: Family, input: &LinkInput<'_>, state: &mut LinkState) {
    let LinkState { linked, routes } = state;
    match family {
        Family::PyRoutes => routes.extend(super::py_routes::link::link(input, linked)),
        Family::JsRoutes => routes.extend(super::js_routes::link::link(input, linked)),
        Family::RustRoutes => routes.extend(super::rust_routes::link::link(input, linked)),
        Family::Calls => {
            add_routes(routes, linked);
            super::calls::link::link(input, routes, linked);
            // Nothing reads the routes after the calls.
            *routes = Vec::new();
        }
        Family::Tables => {
            super::tables::prisma::link::link(&input.prisma, linked);
            super::tables::sql_schema::link(&input.sql_schemas, linked);
            super::tables::link::link(input, linked);
        }
        Family::Env => super::env::link::link(input, linked),
    }
}

/// Runs every linker.
pub fn link_all(input: &LinkInput<'_>) -> Linked {
    let mut state = LinkState::default();
    for family in Family::ALL {
        link_family(family, input, &mut state);
    }
    state.linked
}

/// Route nodes and `serves` edges from the module that declares each handler.
fn add_routes(routes: &[ServedRoute], linked: &mut Linked) {
    for route in routes {
        let key = NodeKey::route(route.method, &route.template);
        let mut node = Node::new(key.clone());
        node.attrs.display_path = Some(route.template.display());
        node.attrs.handler =
            Some(Handler { module: route.module.clone(), function: route.handler.clone() });
        node.attrs.framework = Some(route.framework.to_owned());
        linked.edge(
            Edge {
                kind: EdgeKind::Serves,
                from: NodeKey::module(&route.module),
                to: key,
                evidence: Evidence::new(route.evidence.clone()),
                provenance: route.provenance,
                confidence: route.confidence,
                location: route.location.clone(),
                type_only: false,
                occurrences: 1,
            },
            node,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(from: &str, table: &str, framework: &str) -> (Edge, Node) {
        let path = RepoPath::new(from).unwrap();
        let key = NodeKey::table(None, table);
        let mut node = Node::new(key.clone());
        node.attrs.framework = Some(framework.to_owned());
        let edge = Edge {
            kind: EdgeKind::Reads,
            from: NodeKey::module(&path),
            to: key,
            evidence: Evidence::new("reads"),
            provenance: Provenance::Resolver,
            confidence: Confidence::Likely,
            location: SourceLocation::new(path, 1, 1),
            type_only: false,
            occurrences: 1,
        };
        (edge, node)
    }

    #[test]
    fn a_target_node_equal_to_an_earlier_one_is_added_once() {
        let mut linked = Linked::default();
        for from in ["a.py", "b.py", "c.py"] {
            let (edge, node) = read(from, "dag", "sqlalchemy");
            linked.edge(edge, node);
        }
        let (edge, node) = read("d.py", "dag", "django");
        linked.edge(edge, node);
        let (edge, node) = read("e.py", "dag", "sqlalchemy");
        linked.edge(edge, node);
        assert_eq!(linked.edges.len(), 5);
        // The node with other attributes is kept, to be merged in its turn.
        let frameworks: Vec<_> =
            linked.nodes.iter().map(|n| n.attrs.framework.as_deref().unwrap()).collect();
        assert_eq!(frameworks, ["sqlalchemy", "django"]);
    }

    /// The pipeline decodes one family at a time for [`link_family`]: a link half that read
    /// another family's facts would find them empty, silently. So no link half's source (a
    /// `link.rs`, or a file under a `link/` folder, of a family's folder) names another family's
    /// facts; the shared half (this file) reads the calls' only, for the calls linker.
    #[test]
    fn each_link_half_reads_only_its_own_family() {
        const FAMILIES: [&str; 6] =
            ["py_routes", "js_routes", "rust_routes", "calls", "tables", "env"];
        fn link_halves(
            dir: &std::path::Path,
            inside_link: bool,
            out: &mut Vec<std::path::PathBuf>,
        ) {
            let mut entries: Vec<_> =
                std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
            entries.sort();
            for path in entries {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if matches!(name.as_str(), "tests" | "tests.rs" | "snapshots") {
                    continue;
                }
                if path.is_dir() {
                    link_halves(&path, inside_link || name == "link", out);
                } else if name.ends_with(".rs") && (inside_link || name == "link.rs") {
                    out.push(path);
                }
            }
        }
        // Whitespace removed, so a chain split over lines (`view\n.facts\n.tables`) is found.
        let source = |path: &std::path::Path| -> String {
            let text = std::fs::read_to_string(path).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            text.chars().filter(|c| !c.is_whitespace()).collect()
        };
        assert_eq!(FAMILIES.len(), Family::ALL.len(), "every family's folder is checked");
        let recognise = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/recognise");
        for family in FAMILIES {
            let mut halves = Vec::new();
            link_halves(&recognise.join(family), false, &mut halves);
            assert!(!halves.is_empty(), "{family} has link halves");
            let mut own = 0;
            for half in &halves {
                let text = source(half);
                own += text.matches(&format!("facts.{family}")).count();
                for other in FAMILIES.iter().filter(|other| **other != family) {
                    assert!(
                        !text.contains(&format!("facts.{other}")),
                        "{} reads {other} facts, but only {family} facts are decoded when it runs",
                        half.strip_prefix(&recognise).unwrap_or(half).display()
                    );
                }
            }
            assert!(own > 0, "the {family} link halves read {family} facts (the check sees them)");
        }
        let shared = source(&recognise.join("link.rs"));
        for other in FAMILIES.iter().filter(|other| **other != "calls") {
            assert!(!shared.contains(&format!("facts.{other}")), "link.rs reads {other} facts");
        }
    }
}
