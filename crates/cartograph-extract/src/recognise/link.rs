//! Linking: joins the per-file facts of the recognisers across files into nodes and edges —
//! routes with their full prefix chains, calls matched to routes, models to tables, environment
//! variable reads.
//!
//! Runs after import resolution, so a recogniser can follow a name to the module that defines it
//! ([`LinkInput::binding`]). Each family's link half is the `link.rs` in its folder, beside its
//! syntax half (`calls/link.rs`, `py_routes/link.rs`, `tables/prisma/link.rs` …); [`link_all`]
//! runs them in a fixed order (routes first, since calls are matched against them) and
//! everything it returns is sorted by the analysis builder. `cartograph-pipeline` builds the
//! [`LinkInput`] after import resolution and calls [`link_all`]. No link half can change an
//! extracted fact, so editing one leaves the fact cache's fingerprint as it is.

use std::collections::HashMap;

use crate::{Family, FileFacts};
use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Handler, HttpMethod, Language, Node, NodeKey, Provenance,
    Refusal, RepoPath, RouteTemplate, SourceLocation,
};

use crate::tree::TreeIndex;

/// What a local name bound by an import refers to, after resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedBinding {
    /// The local name (`router`, `items`, `api.client` for `import api.client`).
    pub local: String,
    pub target: BindingTarget,
    /// `None` when the name is the module itself; otherwise the member it names (`router`, or
    /// `default` for a JS default import).
    pub member: Option<String>,
}

/// The module or package a binding leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindingTarget {
    Module(RepoPath),
    /// A third-party package by its node name (`npm:axios`, `pypi:requests`).
    Package(String),
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
        self.file(file)?.bindings.iter().find(|b| b.local == local)
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
}
