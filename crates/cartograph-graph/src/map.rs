//! Map: the architecture at a glance — components with their counts, the weighted dependencies
//! between them, and the routes, tables, env vars, externals and packages with who uses them.
//!
//! Attribution: a module belongs to its `attrs.component`; a route to the component of its handler
//! module (else its first serving module); a table to the component of its first defining module;
//! an env var to every component with a module that reads it. An inter-component edge weighs the
//! module→module imports and the calls whose route is served in another component.
//!
//! Size-bounded: each list keeps its most significant entries (most modules, heaviest edges, most
//! users; identity breaks ties), is then written in identity order, and states how many entries
//! there were in all — a truncation is never silent. Component import counts come from
//! [`summarise_components`](crate::summarise_components), the one aggregation of components.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use cartograph_core::{EdgeKind, Handler, Node, NodeKey, NodeKind};

use crate::{GraphView, summarise_components};

/// How many entries each list of a map keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapOptions {
    pub max_components: usize,
    pub max_component_edges: usize,
    pub max_routes: usize,
    pub max_tables: usize,
    pub max_env_vars: usize,
    pub max_externals: usize,
    pub max_packages: usize,
}

impl Default for MapOptions {
    fn default() -> Self {
        Self {
            max_components: 50,
            max_component_edges: 200,
            max_routes: 200,
            max_tables: 100,
            max_env_vars: 100,
            max_externals: 100,
            max_packages: 100,
        }
    }
}

/// A list that may have been cut: the entries kept, and how many there were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded<T> {
    pub shown: Vec<T>,
    pub total: usize,
}

impl<T> Bounded<T> {
    pub fn is_truncated(&self) -> bool {
        self.shown.len() < self.total
    }

    /// Keeps the `max` most significant entries (`rank` ascending), written in `order`.
    fn keep<R: Ord, O: Ord>(
        mut all: Vec<T>,
        max: usize,
        rank: impl Fn(&T) -> R,
        order: impl Fn(&T) -> O,
    ) -> Self {
        let total = all.len();
        all.sort_by_key(|t| rank(t));
        all.truncate(max);
        all.sort_by_key(|t| order(t));
        Self { shown: all, total }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapComponent {
    pub name: String,
    pub modules: u64,
    /// Modules by language name; modules of no known language are not counted here.
    pub modules_by_language: BTreeMap<String, u64>,
    pub routes: u64,
    pub tables: u64,
    /// Distinct env vars read by the component's modules.
    pub env_vars: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentEdge {
    pub from: String,
    pub to: String,
    /// Module→module imports across the two components.
    pub imports: u64,
    /// Calls from `from`'s modules to routes served in `to`.
    pub calls: u64,
}

impl ComponentEdge {
    pub fn weight(&self) -> u64 {
        self.imports + self.calls
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapRoute {
    pub key: NodeKey,
    pub method: String,
    /// The template with parameter names when known, else the identity form.
    pub path: String,
    pub handler: Option<Handler>,
    pub component: Option<String>,
    /// Modules calling the route.
    pub callers: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapTable {
    pub key: NodeKey,
    /// Modules that define the table, in identity order.
    pub definers: Vec<NodeKey>,
    pub component: Option<String>,
    pub readers: u64,
    pub writers: u64,
}

/// An env var, external or package and how many modules use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapUsage {
    pub key: NodeKey,
    pub users: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Map {
    pub options: MapOptions,
    pub components: Bounded<MapComponent>,
    pub component_edges: Bounded<ComponentEdge>,
    pub routes: Bounded<MapRoute>,
    pub tables: Bounded<MapTable>,
    /// `users`: modules reading the variable.
    pub env_vars: Bounded<MapUsage>,
    /// `users`: modules calling the external.
    pub externals: Bounded<MapUsage>,
    /// `users`: modules importing the package.
    pub packages: Bounded<MapUsage>,
}

impl Map {
    pub fn is_truncated(&self) -> bool {
        self.components.is_truncated()
            || self.component_edges.is_truncated()
            || self.routes.is_truncated()
            || self.tables.is_truncated()
            || self.env_vars.is_truncated()
            || self.externals.is_truncated()
            || self.packages.is_truncated()
    }
}

/// Distinct modules per node, for one edge kind (edges are unique by identity, so a count of
/// edges is a count of modules).
fn users(view: GraphView<'_>, kinds: &[EdgeKind]) -> HashMap<NodeKey, BTreeSet<NodeKey>> {
    let mut users: HashMap<NodeKey, BTreeSet<NodeKey>> = HashMap::new();
    for edge in view.edges.iter().filter(|e| kinds.contains(&e.kind)) {
        users.entry(edge.to.clone()).or_default().insert(edge.from.clone());
    }
    users
}

/// Draws the map of one graph.
pub fn map(view: GraphView<'_>, options: &MapOptions) -> Map {
    let nodes: HashMap<&NodeKey, &Node> = view.nodes.iter().map(|n| (&n.key, n)).collect();
    let component_of_module = |key: &NodeKey| -> Option<String> {
        nodes.get(key).and_then(|n| n.attrs.component.clone())
    };
    let mut servers: HashMap<&NodeKey, &NodeKey> = HashMap::new();
    let mut definers: BTreeMap<&NodeKey, Vec<NodeKey>> = BTreeMap::new();
    for edge in view.edges {
        match edge.kind {
            EdgeKind::Serves => {
                servers.entry(&edge.to).or_insert(&edge.from);
            }
            EdgeKind::Defines => definers.entry(&edge.to).or_default().push(edge.from.clone()),
            _ => {}
        }
    }
    let route_component = |node: &Node| -> Option<String> {
        node.attrs
            .handler
            .as_ref()
            .and_then(|h| component_of_module(&NodeKey::module(&h.module)))
            .or_else(|| servers.get(&node.key).and_then(|m| component_of_module(m)))
    };

    // Components: modules and cross-component imports from the shared summary.
    let summaries = summarise_components(view.nodes, view.edges);
    let mut components: BTreeMap<String, MapComponent> = summaries
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                MapComponent {
                    name: s.name.clone(),
                    modules: s.modules,
                    modules_by_language: BTreeMap::new(),
                    routes: 0,
                    tables: 0,
                    env_vars: 0,
                },
            )
        })
        .collect();
    let mut edges: BTreeMap<(String, String), ComponentEdge> = BTreeMap::new();
    for s in &summaries {
        for (to, n) in &s.depends_on {
            edges.insert(
                (s.name.clone(), to.clone()),
                ComponentEdge { from: s.name.clone(), to: to.clone(), imports: *n, calls: 0 },
            );
        }
    }
    for node in view.nodes.iter().filter(|n| n.key.kind() == NodeKind::Module) {
        if let (Some(component), Some(language)) = (&node.attrs.component, node.attrs.language)
            && let Some(c) = components.get_mut(component)
        {
            *c.modules_by_language.entry(language.as_str().to_owned()).or_default() += 1;
        }
    }

    let mut routes = Vec::new();
    let callers = users(view, &[EdgeKind::Calls]);
    for node in view.nodes.iter().filter(|n| n.key.kind() == NodeKind::Route) {
        let component = route_component(node);
        if let Some(c) = component.as_ref().and_then(|c| components.get_mut(c)) {
            c.routes += 1;
        }
        let (method, identity) = node.key.name().split_once(' ').unwrap_or(("", node.key.name()));
        routes.push(MapRoute {
            key: node.key.clone(),
            method: method.to_owned(),
            path: node.attrs.display_path.clone().unwrap_or_else(|| identity.to_owned()),
            handler: node.attrs.handler.clone(),
            component,
            callers: callers.get(&node.key).map_or(0, |c| c.len() as u64),
        });
    }
    // Calls across components: the caller's component to the route's.
    let route_components: HashMap<&NodeKey, Option<String>> =
        routes.iter().map(|r| (&r.key, r.component.clone())).collect();
    for edge in view.edges.iter().filter(|e| e.kind == EdgeKind::Calls) {
        let (Some(from), Some(Some(to))) =
            (component_of_module(&edge.from), route_components.get(&edge.to))
        else {
            continue;
        };
        if from != *to {
            edges
                .entry((from.clone(), to.clone()))
                .or_insert_with(|| ComponentEdge { from, to: to.clone(), imports: 0, calls: 0 })
                .calls += 1;
        }
    }

    let readers = users(view, &[EdgeKind::Reads]);
    let writers = users(view, &[EdgeKind::Writes]);
    let mut tables = Vec::new();
    for node in view.nodes.iter().filter(|n| n.key.kind() == NodeKind::Table) {
        let defined_by = definers.get(&node.key).cloned().unwrap_or_default();
        let component = defined_by.iter().min().and_then(component_of_module);
        if let Some(c) = component.as_ref().and_then(|c| components.get_mut(c)) {
            c.tables += 1;
        }
        let mut defined_by: Vec<NodeKey> = defined_by;
        defined_by.sort();
        defined_by.dedup();
        tables.push(MapTable {
            key: node.key.clone(),
            definers: defined_by,
            component,
            readers: readers.get(&node.key).map_or(0, |c| c.len() as u64),
            writers: writers.get(&node.key).map_or(0, |c| c.len() as u64),
        });
    }

    let env_readers = users(view, &[EdgeKind::ReadsEnv]);
    let mut env_by_component: BTreeMap<String, BTreeSet<&NodeKey>> = BTreeMap::new();
    for (var, modules) in &env_readers {
        for module in modules {
            if let Some(c) = component_of_module(module) {
                env_by_component.entry(c).or_default().insert(var);
            }
        }
    }
    for (c, vars) in env_by_component {
        if let Some(component) = components.get_mut(&c) {
            component.env_vars = vars.len() as u64;
        }
    }
    let importers = users(view, &[EdgeKind::Imports]);
    let usage = |kind: NodeKind, by: &HashMap<NodeKey, BTreeSet<NodeKey>>| -> Vec<MapUsage> {
        view.nodes
            .iter()
            .filter(|n| n.key.kind() == kind)
            .map(|n| MapUsage {
                key: n.key.clone(),
                users: by.get(&n.key).map_or(0, |u| u.len() as u64),
            })
            .collect()
    };
    let by_users = |u: &MapUsage| (std::cmp::Reverse(u.users), u.key.clone());
    let by_key = |u: &MapUsage| u.key.clone();

    Map {
        options: *options,
        components: Bounded::keep(
            components.into_values().collect(),
            options.max_components,
            |c| (std::cmp::Reverse(c.modules), c.name.clone()),
            |c| c.name.clone(),
        ),
        component_edges: Bounded::keep(
            edges.into_values().collect(),
            options.max_component_edges,
            |e| (std::cmp::Reverse(e.weight()), e.from.clone(), e.to.clone()),
            |e| (e.from.clone(), e.to.clone()),
        ),
        routes: Bounded::keep(routes, options.max_routes, |r| r.key.clone(), |r| r.key.clone()),
        tables: Bounded::keep(
            tables,
            options.max_tables,
            |t| (std::cmp::Reverse(t.readers + t.writers), t.key.clone()),
            |t| t.key.clone(),
        ),
        env_vars: Bounded::keep(
            usage(NodeKind::EnvVar, &env_readers),
            options.max_env_vars,
            by_users,
            by_key,
        ),
        externals: Bounded::keep(
            usage(NodeKind::External, &callers),
            options.max_externals,
            by_users,
            by_key,
        ),
        packages: Bounded::keep(
            usage(NodeKind::Package, &importers),
            options.max_packages,
            by_users,
            by_key,
        ),
    }
}

#[cfg(test)]
mod tests {
    use cartograph_core::{Ecosystem, Language};

    use super::*;
    use crate::blast::tests::{edge, fullstack, key};

    #[test]
    fn components_routes_tables_and_weighted_edges() {
        let (mut nodes, edges) = fullstack();
        for n in &mut nodes {
            if n.key.name().ends_with(".py") {
                n.attrs.language = Some(Language::Python);
            }
        }
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let m = map(view, &MapOptions::default());
        assert!(!m.is_truncated());
        let api = &m.components.shown[0];
        assert_eq!(
            (api.name.as_str(), api.modules, api.routes, api.tables, api.env_vars),
            ("api", 3, 1, 1, 1)
        );
        assert_eq!(api.modules_by_language.get("python"), Some(&3));
        let web = &m.components.shown[1];
        assert_eq!((web.name.as_str(), web.modules, web.routes), ("web", 3, 0));
        assert_eq!(
            m.component_edges.shown,
            [ComponentEdge { from: "web".to_owned(), to: "api".to_owned(), imports: 0, calls: 1 }]
        );
        let route = &m.routes.shown[0];
        assert_eq!(
            (route.method.as_str(), route.path.as_str(), route.callers),
            ("GET", "/items/{}", 1)
        );
        assert_eq!(m.tables.shown[0].definers, [key("module:api/models.py")]);
        assert_eq!((m.tables.shown[0].readers, m.tables.shown[0].writers), (1, 0));
        assert_eq!(m.env_vars.shown[0].users, 1);
    }

    #[test]
    fn bounds_keep_the_most_used_and_report_totals() {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
            let package = NodeKey::package(Ecosystem::Pypi, name);
            nodes.push(Node::new(package.clone()));
            for j in 0..=i {
                let module = format!("m{j}.py");
                nodes.push(crate::blast::tests::module(&module, "."));
                edges.push(edge(EdgeKind::Imports, &format!("module:{module}"), &package.id()));
            }
        }
        nodes.sort_by(|a, b| a.key.cmp(&b.key));
        nodes.dedup_by(|a, b| a.key == b.key);
        edges.sort_by(|a, b| a.identity().cmp(&b.identity()));
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let options = MapOptions { max_packages: 2, ..MapOptions::default() };
        let m = map(view, &options);
        assert!(m.is_truncated() && m.packages.is_truncated());
        assert_eq!(m.packages.total, 4);
        let kept: Vec<(String, u64)> =
            m.packages.shown.iter().map(|u| (u.key.id(), u.users)).collect();
        assert_eq!(kept, [("package:pypi:c".to_owned(), 3), ("package:pypi:d".to_owned(), 4)]);
        assert_eq!(m.components.total, 1);
    }
}
