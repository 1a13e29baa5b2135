//! Evaluating a [`Policy`] over one analysed tree.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use cartograph_core::{Edge, EdgeKind, Node, NodeKey, NodeKind};
use petgraph::graph::{DiGraph, NodeIndex};

use super::{CycleUnit, Policy, Rule, RuleKind, Selector, Violation};
use crate::GraphView;
use crate::diff::Subject;

/// The most edges a cycle or fan violation names as evidence.
pub const MAX_EVIDENCE_EDGES: usize = 20;

/// Every violation of `policy` in `view`: by rule in policy order, then by identity.
pub fn evaluate(view: GraphView<'_>, policy: &Policy) -> Vec<Violation> {
    let index = Index::new(view);
    let mut out = Vec::new();
    for (i, rule) in policy.rules.iter().enumerate() {
        let mut found = Vec::new();
        let mut add = |identity: String, subject: Subject, what: String, edges: Vec<&Edge>| {
            found.push(Violation {
                rule: i,
                identity,
                subject,
                message: format!("{what} (rule `{}`)", rule.id),
                edges: edges.into_iter().cloned().collect(),
            });
        };
        evaluate_rule(&index, rule, &mut add);
        found.sort_by(|a, b| a.identity.cmp(&b.identity));
        found.dedup_by(|a, b| a.identity == b.identity);
        out.extend(found);
    }
    out
}

type Add<'x, 'a> = dyn FnMut(String, Subject, String, Vec<&'a Edge>) + 'x;

fn evaluate_rule<'a>(index: &Index<'a>, rule: &Rule, add: &mut Add<'_, 'a>) {
    match &rule.kind {
        RuleKind::Forbidden { edges, from, to, transitive: false } => {
            for edge in index.edges_of(edges) {
                if !index.is(from, &edge.from) {
                    continue;
                }
                if let Some(hop) = index.reach(to, &edge.to) {
                    let (what, path) = direct(edge, hop);
                    add(edge_identity(edge), Subject::Node(edge.from.clone()), what, path);
                }
            }
        }
        RuleKind::Forbidden { edges, from, to, transitive: true } => {
            let paths = index.paths_to(edges, |key| index.is(to, key));
            for (source, path) in index.sources(&paths, |key| index.is(from, key)) {
                let end = path.last().map_or(source, |e| index.step_end(e));
                let what = format!(
                    "{} reaches {} through {}",
                    source.name(),
                    end.name(),
                    hops(path.len())
                );
                let identity = format!("{} reaches {}", source.id(), selector_label(to));
                add(identity, Subject::Node(source.clone()), what, path);
            }
        }
        RuleKind::AllowedOnly { edges, from, to } => {
            for edge in index.edges_of(edges) {
                if index.is(from, &edge.from) && index.reach(to, &edge.to).is_none() {
                    let what = format!(
                        "{} {} {}, outside what it may reach",
                        edge.from.name(),
                        verb(edge.kind),
                        edge.to.name()
                    );
                    add(edge_identity(edge), Subject::Node(edge.from.clone()), what, vec![edge]);
                }
            }
        }
        RuleKind::Layers { edges, layers, transitive } => {
            groups(index, edges, layers, *transitive, true, add);
        }
        RuleKind::Independent { edges, members, transitive } => {
            groups(index, edges, members, *transitive, false, add);
        }
        RuleKind::NoCycles { edges, scope, between } => cycles(index, edges, scope, *between, add),
        RuleKind::MaxFanIn { edges, components, max } => {
            fan(index, edges, components, *max, true, add);
        }
        RuleKind::MaxFanOut { edges, components, max } => {
            fan(index, edges, components, *max, false, add);
        }
    }
}

/// Layers (`ordered`: a member may depend only on later ones) or independent members (no member
/// may depend on another).
fn groups<'a>(
    index: &Index<'a>,
    kinds: &[EdgeKind],
    members: &[Selector],
    transitive: bool,
    ordered: bool,
    add: &mut Add<'_, 'a>,
) {
    let breaks = |from: usize, to: usize| if ordered { to < from } else { to != from };
    let noun = if ordered { "layer" } else { "member" };
    if !transitive {
        for edge in index.edges_of(kinds) {
            let Some(from) = index.node(&edge.from).and_then(|n| first_match(members, n)) else {
                continue;
            };
            let Some((to, hop)) = index.group_of(members, &edge.to) else { continue };
            if breaks(from, to) {
                let (what, path) = direct(edge, hop);
                let what = format!(
                    "{what}: {noun} `{}` depends on {noun} `{}`{}",
                    members[from].name(),
                    members[to].name(),
                    if ordered { ", a layer above it" } else { "" }
                );
                add(edge_identity(edge), Subject::Node(edge.from.clone()), what, path);
            }
        }
        return;
    }
    for (to, target) in members.iter().enumerate() {
        let paths = index.paths_to(kinds, |key| index.node(key).is_some_and(|n| target.matches(n)));
        let sources = index.sources(&paths, |key| {
            index
                .node(key)
                .and_then(|n| first_match(members, n))
                .is_some_and(|from| breaks(from, to))
        });
        for (source, path) in sources {
            let from = index.node(source).and_then(|n| first_match(members, n)).unwrap_or(to);
            let end = path.last().map_or(source, |e| index.step_end(e));
            let what = format!(
                "{} reaches {} through {}: {noun} `{}` depends on {noun} `{}`",
                source.name(),
                end.name(),
                hops(path.len()),
                members[from].name(),
                target.name()
            );
            let identity = format!("{} reaches {noun} {}", source.id(), target.name());
            add(identity, Subject::Node(source.clone()), what, path);
        }
    }
}

fn cycles<'a>(
    index: &Index<'a>,
    kinds: &[EdgeKind],
    scope: &Selector,
    between: CycleUnit,
    add: &mut Add<'_, 'a>,
) {
    let in_scope = |key: &NodeKey| {
        key.kind() == NodeKind::Module && index.node(key).is_some_and(|n| scope.matches(n))
    };
    // Each unit is a module, or a component; each dependency keeps its first path of edges.
    let unit = |key: &NodeKey| -> Option<String> {
        match between {
            CycleUnit::Modules => Some(key.name().to_owned()),
            CycleUnit::Components => index.node(key)?.attrs.component.clone(),
        }
    };
    let mut deps: BTreeMap<(String, String), Vec<&'a Edge>> = BTreeMap::new();
    for edge in index.edges_of(kinds) {
        if edge.kind == EdgeKind::Imports && edge.type_only || !in_scope(&edge.from) {
            continue;
        }
        for (module, hop) in index.dependencies(edge) {
            if !in_scope(module) {
                continue;
            }
            let (Some(a), Some(b)) = (unit(&edge.from), unit(module)) else { continue };
            if a != b {
                deps.entry((a, b)).or_insert_with(|| path_of(edge, hop));
            }
        }
    }
    let mut graph: DiGraph<String, ()> = DiGraph::new();
    let mut ids: BTreeMap<String, NodeIndex> = BTreeMap::new();
    for (a, b) in deps.keys() {
        let ia = *ids.entry(a.clone()).or_insert_with(|| graph.add_node(a.clone()));
        let ib = *ids.entry(b.clone()).or_insert_with(|| graph.add_node(b.clone()));
        graph.add_edge(ia, ib, ());
    }
    let noun = match between {
        CycleUnit::Modules => "modules",
        CycleUnit::Components => "components",
    };
    for component in petgraph::algo::kosaraju_scc(&graph).into_iter().filter(|c| c.len() > 1) {
        let mut members: Vec<String> = component.iter().map(|i| graph[*i].clone()).collect();
        members.sort();
        let set: BTreeSet<&String> = members.iter().collect();
        let edges: Vec<&Edge> = deps
            .iter()
            .filter(|((a, b), _)| set.contains(a) && set.contains(b))
            .flat_map(|(_, path)| path.iter().copied())
            .take(MAX_EVIDENCE_EDGES)
            .collect();
        let subject = match between {
            CycleUnit::Modules => Subject::Node(NodeKey::from_parts(NodeKind::Module, &members[0])),
            CycleUnit::Components => Subject::Component(members[0].clone()),
        };
        let what = format!("{} {noun} form a cycle: {}", members.len(), members.join(", "));
        add(format!("cycle of {noun} {}", members.join(" ")), subject, what, edges);
    }
}

fn fan<'a>(
    index: &Index<'a>,
    kinds: &[EdgeKind],
    selected: &Selector,
    max: usize,
    inbound: bool,
    add: &mut Add<'_, 'a>,
) {
    let component = |key: &NodeKey| index.node(key).and_then(|n| n.attrs.component.clone());
    // (component, other component) → the first path between them.
    let mut deps: BTreeMap<String, BTreeMap<String, Vec<&'a Edge>>> = BTreeMap::new();
    for edge in index.edges_of(kinds) {
        let Some(from) = component(&edge.from) else { continue };
        for (module, hop) in index.dependencies(edge) {
            let Some(to) = component(module) else { continue };
            if from == to {
                continue;
            }
            let (mine, other) = if inbound { (to, from.clone()) } else { (from.clone(), to) };
            deps.entry(mine).or_default().entry(other).or_insert_with(|| path_of(edge, hop));
        }
    }
    for (name, others) in deps {
        if others.len() <= max || !selected.matches_name(&name) {
            continue;
        }
        let edges: Vec<&Edge> =
            others.values().flat_map(|p| p.iter().copied()).take(MAX_EVIDENCE_EDGES).collect();
        let what = if inbound {
            format!("{} components depend on component {name}, more than {max}", others.len())
        } else {
            format!("component {name} depends on {} components, more than {max}", others.len())
        };
        let direction = if inbound { "fan-in" } else { "fan-out" };
        add(format!("{direction} of {name}"), Subject::Component(name.clone()), what, edges);
    }
}

/// The message and edges of a rule broken by one edge, perhaps through the module that serves or
/// defines its target.
fn direct<'a>(edge: &'a Edge, hop: Option<&'a Edge>) -> (String, Vec<&'a Edge>) {
    let mut what = format!("{} {} {}", edge.from.name(), verb(edge.kind), edge.to.name());
    if let Some(hop) = hop {
        let role = if hop.kind == EdgeKind::Serves { "served by" } else { "defined by" };
        what.push_str(&format!(", {role} {}", hop.from.name()));
    }
    (what, path_of(edge, hop))
}

fn path_of<'a>(edge: &'a Edge, hop: Option<&'a Edge>) -> Vec<&'a Edge> {
    std::iter::once(edge).chain(hop).collect()
}

fn edge_identity(edge: &Edge) -> String {
    format!("{} {} -> {}", edge.kind.as_str(), edge.from.id(), edge.to.id())
}

fn selector_label(selector: &Selector) -> String {
    selector.written().join(" ")
}

fn hops(n: usize) -> String {
    format!("{n} edge{}", if n == 1 { "" } else { "s" })
}

fn verb(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Imports => "imports",
        EdgeKind::Serves => "serves",
        EdgeKind::Calls => "calls",
        EdgeKind::Reads => "reads table",
        EdgeKind::Writes => "writes table",
        EdgeKind::Defines => "defines table",
        EdgeKind::ReadsEnv => "reads env var",
    }
}

fn first_match(selectors: &[Selector], node: &Node) -> Option<usize> {
    selectors.iter().position(|s| s.matches(node))
}

/// The nodes and edges of one tree, indexed for rules.
struct Index<'a> {
    edges: &'a [Edge],
    nodes: HashMap<&'a NodeKey, &'a Node>,
    /// A route's `serves` edges and a table's `defines` edges: how a target leads to the modules
    /// that own it.
    owners: HashMap<&'a NodeKey, Vec<&'a Edge>>,
}

impl<'a> Index<'a> {
    fn new(view: GraphView<'a>) -> Self {
        let nodes = view.nodes.iter().map(|n| (&n.key, n)).collect();
        let mut owners: HashMap<&NodeKey, Vec<&Edge>> = HashMap::new();
        for edge in view.edges {
            if matches!(edge.kind, EdgeKind::Serves | EdgeKind::Defines) {
                owners.entry(&edge.to).or_default().push(edge);
            }
        }
        Self { edges: view.edges, nodes, owners }
    }

    fn node(&self, key: &NodeKey) -> Option<&'a Node> {
        self.nodes.get(key).copied()
    }

    fn is(&self, selector: &Selector, key: &NodeKey) -> bool {
        self.node(key).is_some_and(|n| selector.matches(n))
    }

    fn edges_of(&self, kinds: &[EdgeKind]) -> Vec<&'a Edge> {
        self.edges.iter().filter(|e| kinds.contains(&e.kind)).collect()
    }

    /// Whether `to` meets `selector`: itself (`Some(None)`), or through a module that serves or
    /// defines it (`Some(Some(that edge))`), when the selector names modules.
    fn reach(&self, selector: &Selector, to: &NodeKey) -> Option<Option<&'a Edge>> {
        if self.is(selector, to) {
            return Some(None);
        }
        if !selector.names_modules() {
            return None;
        }
        let owners = self.owners.get(to)?;
        owners.iter().find(|e| self.is(selector, &e.from)).map(|e| Some(*e))
    }

    /// The first of `groups` that `to` meets, itself or through its owner.
    fn group_of(&self, groups: &[Selector], to: &NodeKey) -> Option<(usize, Option<&'a Edge>)> {
        if let Some(i) = self.node(to).and_then(|n| first_match(groups, n)) {
            return Some((i, None));
        }
        let owners = self.owners.get(to)?;
        owners.iter().find_map(|e| {
            Some((self.node(&e.from).and_then(|n| first_match(groups, n))?, Some(*e)))
        })
    }

    /// The modules an edge makes its source depend on: an imported module, or the modules
    /// serving a called route or defining a table read or written (with that edge).
    fn dependencies(&self, edge: &'a Edge) -> Vec<(&'a NodeKey, Option<&'a Edge>)> {
        match edge.to.kind() {
            NodeKind::Module => vec![(&edge.to, None)],
            NodeKind::Route | NodeKind::Table
                if edge.kind != EdgeKind::Serves && edge.kind != EdgeKind::Defines =>
            {
                self.owners
                    .get(&edge.to)
                    .map(|owners| owners.iter().map(|e| (&e.from, Some(*e))).collect())
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        }
    }

    /// Where a step of a path lands: an edge's target, or for an owner step (a `serves` or
    /// `defines` edge walked backwards) the owning module.
    fn step_end(&self, edge: &'a Edge) -> &'a NodeKey {
        if matches!(edge.kind, EdgeKind::Serves | EdgeKind::Defines) {
            &edge.from
        } else {
            &edge.to
        }
    }

    /// For every node that reaches a target along edges of `kinds` (a called route leads on to
    /// its serving modules), the first step of a shortest path: a breadth-first walk backwards
    /// from every target at once. Targets map to no step.
    fn paths_to(
        &self,
        kinds: &[EdgeKind],
        target: impl Fn(&NodeKey) -> bool,
    ) -> HashMap<&'a NodeKey, Option<&'a Edge>> {
        // Backwards adjacency: for a node, the steps that land on it and where they start.
        let mut back: HashMap<&NodeKey, Vec<(&NodeKey, &Edge)>> = HashMap::new();
        let owner_step = |e: &Edge| matches!(e.kind, EdgeKind::Serves | EdgeKind::Defines);
        // A path is a runtime dependency: type-only imports (`if TYPE_CHECKING:`, `import type`)
        // exist to avoid one, so a path does not run through them.
        let step = |e: &Edge| kinds.contains(&e.kind) && !owner_step(e) && !e.type_only;
        for edge in self.edges.iter().filter(|e| step(e)) {
            back.entry(&edge.to).or_default().push((&edge.from, edge));
        }
        if kinds.contains(&EdgeKind::Calls) {
            for edge in self.edges.iter().filter(|e| e.kind == EdgeKind::Serves) {
                back.entry(&edge.from).or_default().push((&edge.to, edge));
            }
        }
        let mut next: HashMap<&NodeKey, Option<&Edge>> = HashMap::new();
        let mut queue = VecDeque::new();
        for key in self.nodes.keys().copied().collect::<BTreeSet<_>>() {
            if target(key) {
                next.insert(key, None);
                queue.push_back(key);
            }
        }
        while let Some(key) = queue.pop_front() {
            for &(from, edge) in back.get(key).into_iter().flatten() {
                if !next.contains_key(from) {
                    next.insert(from, Some(edge));
                    queue.push_back(from);
                }
            }
        }
        next
    }

    /// The modules that `source` selects and that reach a target (not being one), each with its
    /// path, in key order.
    fn sources(
        &self,
        next: &HashMap<&'a NodeKey, Option<&'a Edge>>,
        source: impl Fn(&NodeKey) -> bool,
    ) -> Vec<(&'a NodeKey, Vec<&'a Edge>)> {
        let mut found: Vec<(&NodeKey, Vec<&Edge>)> = next
            .iter()
            .filter(|(key, step)| step.is_some() && key.kind() == NodeKind::Module && source(key))
            .map(|(key, _)| {
                let mut path = Vec::new();
                let mut at: &NodeKey = key;
                while let Some(Some(edge)) = next.get(at) {
                    path.push(*edge);
                    at = self.step_end(edge);
                }
                (*key, path)
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(b.0));
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tests::{edge, module};
    use crate::policy::{Rule, RuleSeverity, Target};

    fn rule(kind: RuleKind) -> Policy {
        Policy {
            rules: vec![Rule {
                id: "r".into(),
                severity: RuleSeverity::Error,
                reason: "why".into(),
                kind,
            }],
        }
    }

    fn sel(patterns: &[&str]) -> Selector {
        Selector::parse(patterns, Target::Path).expect("selector")
    }

    /// web/a.ts calls GET /x, served by api/x.py, which imports db/m.py; api/x.py and db/m.py
    /// import each other.
    fn graph() -> (Vec<Node>, Vec<Edge>) {
        let web = module("web/a.ts");
        let api = module("api/x.py");
        let db = module("db/m.py");
        let route = Node::new(NodeKey::from_parts(NodeKind::Route, "GET /x"));
        let mut edges = vec![
            edge(EdgeKind::Calls, &web.key, &route.key),
            edge(EdgeKind::Serves, &api.key, &route.key),
            edge(EdgeKind::Imports, &api.key, &db.key),
            edge(EdgeKind::Imports, &db.key, &api.key),
        ];
        edges.sort_by(|a, b| a.identity().cmp(&b.identity()));
        let mut nodes = vec![web, api, db, route];
        nodes.sort_by(|a, b| a.key.cmp(&b.key));
        (nodes, edges)
    }

    fn run(policy: &Policy) -> Vec<Violation> {
        let (nodes, edges) = graph();
        evaluate(GraphView { nodes: &nodes, edges: &edges, refusals: &[] }, policy)
    }

    #[test]
    fn a_call_reaches_the_module_that_serves_its_route() {
        let found = run(&rule(RuleKind::Forbidden {
            edges: vec![EdgeKind::Calls],
            from: sel(&["web/**"]),
            to: sel(&["api/**"]),
            transitive: false,
        }));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].identity, "calls module:web/a.ts -> route:GET /x");
        assert_eq!(found[0].message, "web/a.ts calls GET /x, served by api/x.py (rule `r`)");
        let kinds: Vec<EdgeKind> = found[0].edges.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EdgeKind::Calls, EdgeKind::Serves]);
    }

    #[test]
    fn a_transitive_rule_follows_calls_into_handlers_and_imports() {
        let found = run(&rule(RuleKind::Forbidden {
            edges: vec![EdgeKind::Imports, EdgeKind::Calls],
            from: sel(&["web/**"]),
            to: sel(&["db/**"]),
            transitive: true,
        }));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].identity, "module:web/a.ts reaches db/**");
        let kinds: Vec<EdgeKind> = found[0].edges.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EdgeKind::Calls, EdgeKind::Serves, EdgeKind::Imports]);
        // Without calls among the edge kinds, the web module reaches nothing.
        let found = run(&rule(RuleKind::Forbidden {
            edges: vec![EdgeKind::Imports],
            from: sel(&["web/**"]),
            to: sel(&["db/**"]),
            transitive: true,
        }));
        assert!(found.is_empty());
    }

    #[test]
    fn a_path_does_not_run_through_a_type_only_import() {
        let (nodes, mut edges) = graph();
        for e in &mut edges {
            if e.kind == EdgeKind::Imports && e.from.name() == "api/x.py" {
                e.type_only = true;
            }
        }
        let policy = rule(RuleKind::Forbidden {
            edges: vec![EdgeKind::Imports, EdgeKind::Calls],
            from: sel(&["web/**"]),
            to: sel(&["db/**"]),
            transitive: true,
        });
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        assert!(evaluate(view, &policy).is_empty());
    }

    #[test]
    fn transitive_layers_and_members_report_each_source_once_with_its_path() {
        let layers = run(&rule(RuleKind::Layers {
            edges: vec![EdgeKind::Imports, EdgeKind::Calls],
            layers: vec![sel(&["api/**"]), sel(&["db/**"]), sel(&["web/**"])],
            transitive: true,
        }));
        // web (bottom) reaches db and api above it; db reaches api: one violation per source and
        // layer above, the shortest path as evidence.
        let ids: Vec<&str> = layers.iter().map(|v| v.identity.as_str()).collect();
        assert_eq!(
            ids,
            [
                "module:db/m.py reaches layer api/**",
                "module:web/a.ts reaches layer api/**",
                "module:web/a.ts reaches layer db/**",
            ]
        );
        let to_db = &layers[2];
        let kinds: Vec<EdgeKind> = to_db.edges.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EdgeKind::Calls, EdgeKind::Serves, EdgeKind::Imports]);
        let members = run(&rule(RuleKind::Independent {
            edges: vec![EdgeKind::Imports, EdgeKind::Calls],
            members: vec![sel(&["web/**"]), sel(&["db/**"])],
            transitive: true,
        }));
        let ids: Vec<&str> = members.iter().map(|v| v.identity.as_str()).collect();
        assert_eq!(ids, ["module:web/a.ts reaches member db/**"]);
    }

    #[test]
    fn layers_independence_cycles_and_fans() {
        let layers = run(&rule(RuleKind::Layers {
            edges: vec![EdgeKind::Imports, EdgeKind::Calls],
            layers: vec![sel(&["web/**"]), sel(&["api/**"]), sel(&["db/**"])],
            transitive: false,
        }));
        let ids: Vec<&str> = layers.iter().map(|v| v.identity.as_str()).collect();
        assert_eq!(ids, ["imports module:db/m.py -> module:api/x.py"]);
        let independent = run(&rule(RuleKind::Independent {
            edges: vec![EdgeKind::Calls],
            members: vec![sel(&["web/**"]), sel(&["api/**"])],
            transitive: false,
        }));
        assert_eq!(independent.len(), 1, "the call crosses from web to api's route");
        let cycles = run(&rule(RuleKind::NoCycles {
            edges: vec![EdgeKind::Imports],
            scope: Selector::default(),
            between: CycleUnit::Components,
        }));
        assert_eq!(cycles[0].identity, "cycle of components api db");
        let fan = run(&rule(RuleKind::MaxFanIn {
            edges: vec![EdgeKind::Imports, EdgeKind::Calls],
            components: Selector::parse(&["api"], Target::Component).expect("selector"),
            max: 1,
        }));
        assert_eq!(fan[0].identity, "fan-in of api");
        assert_eq!(fan[0].message, "2 components depend on component api, more than 1 (rule `r`)");
        let allowed = run(&rule(RuleKind::AllowedOnly {
            edges: vec![EdgeKind::Calls],
            from: sel(&["web/**"]),
            to: sel(&["route:/v2/**"]),
        }));
        assert_eq!(allowed.len(), 1);
    }
}
