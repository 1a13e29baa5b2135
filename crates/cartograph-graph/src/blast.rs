//! Blast radius: everything that depends on some targets, with how far and why.
//!
//! Reverse reachability, one rule per edge kind, from any affected node:
//!
//! - a module that **imports** it (module or package) is affected — type-only imports count, and
//!   the affected node says its path went through one;
//! - a module that **calls** it (route or external) is affected — so the clients of a route are;
//! - a module that **reads**, **writes** or **defines** it (table), or **reads_env** it (env var),
//!   is affected;
//! - a route an affected module **serves** is affected (the one forward step: changing a handler
//!   module changes its routes, whose callers follow by the rule above).
//!
//! Breadth-first, so each node's depth is its distance from the nearest target, and its path is a
//! shortest chain of edges from a target, ties broken by comparing the chains' edge identities.
//! Results are ranked by depth, then node identity (kind, then name), and bounded by
//! [`BlastOptions::max_depth`] and [`BlastOptions::max_nodes`]; what the bounds left out is counted
//! exactly, never dropped silently.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use cartograph_core::{Edge, EdgeKind, Node, NodeKey, NodeKind};

use crate::GraphView;

/// Bounds of a blast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlastOptions {
    /// Nodes further than this many edges from every target are counted, not listed. Default 6.
    pub max_depth: usize,
    /// At most this many affected nodes are listed, best-ranked first. Default 500.
    pub max_nodes: usize,
}

impl Default for BlastOptions {
    fn default() -> Self {
        Self { max_depth: 6, max_nodes: 500 }
    }
}

/// One node a target's change reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Affected<'a> {
    pub key: NodeKey,
    /// Edges from the nearest target: `path.len()`.
    pub depth: usize,
    /// The component of the module (for a route: of its handler's module, else its serving module).
    pub component: Option<String>,
    /// The explaining chain, from a target (the first edge touches it) to this node.
    pub path: Vec<&'a Edge>,
    /// The path goes through a type-only import (`if TYPE_CHECKING:`, `import type`).
    pub type_only: bool,
}

/// Affected nodes of one component, in rank order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentImpact {
    /// `None` for nodes without a component.
    pub component: Option<String>,
    pub nodes: Vec<NodeKey>,
}

/// What the bounds left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlastTruncation {
    /// Every node reachable from the targets, targets excluded, whatever the bounds.
    pub reachable: usize,
    /// Reachable nodes deeper than `max_depth`.
    pub beyond_depth: usize,
    /// Nodes within `max_depth` not listed because of `max_nodes`.
    pub beyond_node_limit: usize,
}

impl BlastTruncation {
    pub fn is_truncated(&self) -> bool {
        self.beyond_depth > 0 || self.beyond_node_limit > 0
    }
}

/// The blast radius of some targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blast<'a> {
    /// The targets, in identity order, duplicates removed.
    pub targets: Vec<NodeKey>,
    /// Targets that are not nodes of the graph (they reach nothing).
    pub unknown_targets: Vec<NodeKey>,
    pub options: BlastOptions,
    /// Ranked: depth, then identity.
    pub affected: Vec<Affected<'a>>,
    /// The listed nodes grouped by component, components in name order (`None` last).
    pub components: Vec<ComponentImpact>,
    pub truncation: BlastTruncation,
}

/// Does `edge`, read from an affected node `at`, make another node affected? Returns that node.
fn propagates<'e>(edge: &'e Edge, at: &NodeKey) -> Option<&'e NodeKey> {
    match edge.kind {
        EdgeKind::Imports
        | EdgeKind::Calls
        | EdgeKind::Reads
        | EdgeKind::Writes
        | EdgeKind::Defines
        | EdgeKind::ReadsEnv
            if &edge.to == at && edge.from.kind() == NodeKind::Module =>
        {
            Some(&edge.from)
        }
        EdgeKind::Serves if &edge.from == at => Some(&edge.to),
        _ => None,
    }
}

/// Computes the blast radius of `targets`.
pub fn blast<'a>(view: GraphView<'a>, targets: &[NodeKey], options: &BlastOptions) -> Blast<'a> {
    let nodes: HashMap<&NodeKey, &Node> = view.nodes.iter().map(|n| (&n.key, n)).collect();
    // Edges touching each node, in the view's (identity) order.
    let mut touching: HashMap<&NodeKey, Vec<&Edge>> = HashMap::new();
    for edge in view.edges {
        touching.entry(&edge.from).or_default().push(edge);
        if edge.to != edge.from {
            touching.entry(&edge.to).or_default().push(edge);
        }
    }

    let targets: Vec<NodeKey> =
        targets.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect();
    let unknown_targets =
        targets.iter().filter(|t| !nodes.contains_key(t)).cloned().collect::<Vec<_>>();

    // Depth of every reached node; paths only for those within the depth bound.
    let mut depth: HashMap<&NodeKey, usize> = targets.iter().map(|t| (t, 0)).collect();
    let mut paths: HashMap<&NodeKey, Vec<&Edge>> =
        targets.iter().map(|t| (t, Vec::new())).collect();
    let mut frontier: Vec<&NodeKey> = targets.iter().collect();
    let mut beyond_depth = 0;
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        let mut next: BTreeMap<&NodeKey, Option<Vec<&Edge>>> = BTreeMap::new();
        for at in &frontier {
            for edge in touching.get(at).map(Vec::as_slice).unwrap_or_default() {
                let Some(reached) = propagates(edge, at) else { continue };
                if depth.contains_key(reached) {
                    continue;
                }
                let slot = next.entry(reached).or_insert(None);
                if level > options.max_depth {
                    continue;
                }
                let mut candidate = paths.get(at).cloned().unwrap_or_default();
                candidate.push(edge);
                let better = match slot {
                    None => true,
                    Some(current) => path_order(&candidate, current).is_lt(),
                };
                if better {
                    *slot = Some(candidate);
                }
            }
        }
        frontier = next.keys().copied().collect();
        for (key, path) in next {
            depth.insert(key, level);
            if level > options.max_depth {
                beyond_depth += 1;
            } else if let Some(path) = path {
                paths.insert(key, path);
            }
        }
    }

    let target_set: BTreeSet<&NodeKey> = targets.iter().collect();
    let mut within: Vec<(usize, &NodeKey)> = depth
        .iter()
        .filter(|(k, d)| **d <= options.max_depth && !target_set.contains(*k))
        .map(|(k, d)| (*d, *k))
        .collect();
    within.sort();
    let reachable = within.len() + beyond_depth;
    let beyond_node_limit = within.len().saturating_sub(options.max_nodes);
    within.truncate(options.max_nodes);

    let component_of = |key: &NodeKey| component(key, &nodes, &touching);
    let affected: Vec<Affected<'a>> = within
        .into_iter()
        .map(|(d, key)| {
            let path = paths.get(key).cloned().unwrap_or_default();
            Affected {
                key: key.clone(),
                depth: d,
                component: component_of(key),
                type_only: path.iter().any(|e| e.type_only),
                path,
            }
        })
        .collect();

    let mut groups: BTreeMap<(bool, Option<String>), Vec<NodeKey>> = BTreeMap::new();
    for a in &affected {
        groups.entry((a.component.is_none(), a.component.clone())).or_default().push(a.key.clone());
    }
    let components = groups
        .into_iter()
        .map(|((_, component), nodes)| ComponentImpact { component, nodes })
        .collect();

    Blast {
        targets,
        unknown_targets,
        options: *options,
        affected,
        components,
        truncation: BlastTruncation { reachable, beyond_depth, beyond_node_limit },
    }
}

/// Compares two edge chains by their edges' identities, edge by edge.
fn path_order(a: &[&Edge], b: &[&Edge]) -> std::cmp::Ordering {
    a.iter().map(|e| e.identity()).cmp(b.iter().map(|e| e.identity()))
}

/// A module's component; a route's is its handler module's, else its first serving module's.
fn component(
    key: &NodeKey,
    nodes: &HashMap<&NodeKey, &Node>,
    touching: &HashMap<&NodeKey, Vec<&Edge>>,
) -> Option<String> {
    let node = nodes.get(key)?;
    match key.kind() {
        NodeKind::Module => node.attrs.component.clone(),
        NodeKind::Route => {
            let by_handler = node.attrs.handler.as_ref().and_then(|h| {
                nodes.get(&NodeKey::module(&h.module)).and_then(|m| m.attrs.component.clone())
            });
            by_handler.or_else(|| {
                touching
                    .get(key)?
                    .iter()
                    .find(|e| e.kind == EdgeKind::Serves && &e.to == key)
                    .and_then(|e| nodes.get(&e.from).and_then(|m| m.attrs.component.clone()))
            })
        }
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use cartograph_core::{
        Confidence, Evidence, HttpMethod, Provenance, RepoPath, RouteTemplate, SourceLocation,
    };

    use super::*;

    pub(crate) fn module(path: &str, component: &str) -> Node {
        let mut node = Node::new(NodeKey::module(&RepoPath::new(path).unwrap()));
        node.attrs.component = Some(component.to_owned());
        node
    }

    pub(crate) fn key(id: &str) -> NodeKey {
        let (kind, name) = id.split_once(':').unwrap();
        NodeKey::from_parts(NodeKind::parse(kind).unwrap(), name)
    }

    pub(crate) fn edge(kind: EdgeKind, from: &str, to: &str) -> Edge {
        let from = key(from);
        let path = RepoPath::new(from.name()).unwrap_or_else(|_| RepoPath::new("x").unwrap());
        Edge {
            kind,
            to: key(to),
            evidence: Evidence::new(format!("{kind} edge")),
            from,
            provenance: Provenance::Resolver,
            confidence: Confidence::Certain,
            location: SourceLocation::new(path, 1, 1),
            type_only: false,
            occurrences: 1,
        }
    }

    /// A FastAPI handler, the model it imports, a route it serves, a React client calling it, and
    /// a page importing the client; plus a table and an env var.
    pub(crate) fn fullstack() -> (Vec<Node>, Vec<Edge>) {
        let route = NodeKey::route(HttpMethod::Get, &RouteTemplate::parse("/items/{id}"));
        let mut route_node = Node::new(route.clone());
        route_node.attrs.handler = Some(cartograph_core::Handler {
            module: RepoPath::new("api/items.py").unwrap(),
            function: Some("read_item".to_owned()),
        });
        let mut nodes = vec![
            module("api/items.py", "api"),
            module("api/models.py", "api"),
            module("api/main.py", "api"),
            module("web/client.ts", "web"),
            module("web/page.tsx", "web"),
            module("web/types.ts", "web"),
            route_node,
            Node::new(NodeKey::table(None, "item")),
            Node::new(NodeKey::env_var("DATABASE_URL")),
        ];
        nodes.sort_by(|a, b| a.key.cmp(&b.key));
        let r = route.id();
        let mut edges = vec![
            edge(EdgeKind::Imports, "module:api/items.py", "module:api/models.py"),
            edge(EdgeKind::Imports, "module:api/main.py", "module:api/items.py"),
            edge(EdgeKind::Serves, "module:api/items.py", &r),
            edge(EdgeKind::Calls, "module:web/client.ts", &r),
            edge(EdgeKind::Imports, "module:web/page.tsx", "module:web/client.ts"),
            edge(EdgeKind::Defines, "module:api/models.py", "table:item"),
            edge(EdgeKind::Reads, "module:api/items.py", "table:item"),
            edge(EdgeKind::ReadsEnv, "module:api/main.py", "env_var:DATABASE_URL"),
        ];
        let mut type_only = edge(EdgeKind::Imports, "module:web/types.ts", "module:web/client.ts");
        type_only.type_only = true;
        edges.push(type_only);
        edges.sort_by(|a, b| a.identity().cmp(&b.identity()));
        (nodes, edges)
    }

    fn ids(blast: &Blast<'_>) -> Vec<(usize, String)> {
        blast.affected.iter().map(|a| (a.depth, a.key.id())).collect()
    }

    #[test]
    fn a_python_handler_reaches_the_typescript_client_through_its_route() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let b = blast(view, &[key("module:api/items.py")], &BlastOptions::default());
        assert_eq!(
            ids(&b),
            [
                (1, "module:api/main.py".to_owned()),
                (1, "route:GET /items/{}".to_owned()),
                (2, "module:web/client.ts".to_owned()),
                (3, "module:web/page.tsx".to_owned()),
                (3, "module:web/types.ts".to_owned()),
            ]
        );
        let client = &b.affected[2];
        let chain: Vec<String> =
            client.path.iter().map(|e| format!("{} {}", e.kind, e.from)).collect();
        assert_eq!(chain, ["serves module:api/items.py", "calls module:web/client.ts"]);
        assert_eq!(client.component.as_deref(), Some("web"));
        assert_eq!(
            b.affected[1].component.as_deref(),
            Some("api"),
            "a route goes with its handler"
        );
        assert!(b.affected[4].type_only && !b.affected[3].type_only);
        let groups: Vec<_> =
            b.components.iter().map(|c| (c.component.clone(), c.nodes.len())).collect();
        assert_eq!(groups, [(Some("api".to_owned()), 2), (Some("web".to_owned()), 3)]);
        assert_eq!(
            b.truncation,
            BlastTruncation { reachable: 5, beyond_depth: 0, beyond_node_limit: 0 }
        );
    }

    #[test]
    fn tables_and_env_vars_reach_their_readers_and_importers() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let b = blast(view, &[key("table:item")], &BlastOptions::default());
        let first: Vec<_> = ids(&b).into_iter().take(2).collect();
        assert_eq!(
            first,
            [(1, "module:api/items.py".to_owned()), (1, "module:api/models.py".to_owned())]
        );
        let b = blast(view, &[key("env_var:DATABASE_URL")], &BlastOptions::default());
        assert_eq!(ids(&b), [(1, "module:api/main.py".to_owned())]);
        let b = blast(view, &[key("table:nope")], &BlastOptions::default());
        assert!(b.affected.is_empty());
        assert_eq!(b.unknown_targets, [key("table:nope")]);
    }

    #[test]
    fn depth_and_node_bounds_are_counted() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let options = BlastOptions { max_depth: 1, ..BlastOptions::default() };
        let b = blast(view, &[key("module:api/items.py")], &options);
        assert_eq!(b.affected.len(), 2);
        assert_eq!(
            b.truncation,
            BlastTruncation { reachable: 5, beyond_depth: 3, beyond_node_limit: 0 }
        );
        let options = BlastOptions { max_nodes: 3, ..BlastOptions::default() };
        let b = blast(view, &[key("module:api/items.py")], &options);
        assert_eq!(b.affected.len(), 3);
        assert_eq!(
            b.truncation,
            BlastTruncation { reachable: 5, beyond_depth: 0, beyond_node_limit: 2 }
        );
        assert!(b.truncation.is_truncated());
    }

    #[test]
    fn shortest_paths_break_ties_by_edge_identity() {
        let nodes = vec![
            module("a.py", "."),
            module("b.py", "."),
            module("c.py", "."),
            module("d.py", "."),
        ];
        let mut edges = vec![
            edge(EdgeKind::Imports, "module:c.py", "module:a.py"),
            edge(EdgeKind::Imports, "module:b.py", "module:a.py"),
            edge(EdgeKind::Imports, "module:d.py", "module:c.py"),
            edge(EdgeKind::Imports, "module:d.py", "module:b.py"),
        ];
        edges.sort_by(|a, b| a.identity().cmp(&b.identity()));
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let b = blast(view, &[key("module:a.py")], &BlastOptions::default());
        let d = b.affected.iter().find(|a| a.key == key("module:d.py")).unwrap();
        assert_eq!(d.depth, 2);
        assert_eq!(d.path[0].from, key("module:b.py"), "b.py sorts before c.py");
    }
}
