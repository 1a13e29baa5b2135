//! Trace: the paths data takes through the architecture, from some nodes (and optionally to some).
//!
//! Data flows, one step per edge:
//!
//! - module **calls** route or external (the edge, forward);
//! - route → the module that **serves** it (the `serves` edge walked backwards: the request lands
//!   in its handler module);
//! - module **imports** module (forward; type-only imports carry no data at run time and are left
//!   out unless [`TraceOptions::include_type_only`]);
//! - module **reads** / **writes** table, module **reads_env** env var (forward).
//!
//! From a module or a route a trace walks **forward**, along the flow. From a table, env var,
//! external or package it walks **backward**, against the flow: who reads or writes the table,
//! which modules import those, which routes those serve, which clients call those routes. Each
//! path lists its hops in the order walked, starting at its `from` node; a hop names the edge as it
//! is in the graph (its own `from` and `to`) and the node it reached, and the path says its
//! direction.
//!
//! Paths are simple (no node twice), enumerated depth-first, so the output is deterministic: from
//! each node the steps are tried by edge kind (calls, serves, writes, reads, reads_env, imports),
//! then by the reached node's identity. Without `to`, a path is reported where it cannot go further (or
//! where the depth bound stopped it); with `to`, a path is reported when it reaches a `to` node,
//! and ends there. Bounded by [`TraceOptions::max_depth`] hops and [`TraceOptions::max_paths`]
//! paths, and by a budget of search steps on very dense graphs; each cut is reported.

use std::collections::{BTreeSet, HashMap};

use cartograph_core::{Edge, EdgeKind, NodeKey, NodeKind};

use crate::GraphView;

/// Bounds of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceOptions {
    /// Hops per path. Default 8.
    pub max_depth: usize,
    /// Paths reported. Default 50.
    pub max_paths: usize,
    /// Walk type-only imports too. Default false.
    pub include_type_only: bool,
}

impl Default for TraceOptions {
    fn default() -> Self {
        Self { max_depth: 8, max_paths: 50, include_type_only: false }
    }
}

/// Steps a search may take before it stops and says so.
const SEARCH_BUDGET: usize = 200_000;

/// Which way a path was walked relative to the data flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Direction {
    /// Along the flow: from a module or route.
    Forward,
    /// Against the flow: from a table, env var, external or package.
    Backward,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Backward => "backward",
        }
    }

    /// The direction a trace from a node of this kind walks.
    pub fn from_kind(kind: NodeKind) -> Self {
        match kind {
            NodeKind::Module | NodeKind::Route => Direction::Forward,
            NodeKind::Table | NodeKind::EnvVar | NodeKind::External | NodeKind::Package => {
                Direction::Backward
            }
        }
    }
}

/// One step: the edge as it is in the graph, and the node it led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop<'a> {
    pub edge: &'a Edge,
    pub reached: NodeKey,
}

/// One path, from one of the `from` nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracePath<'a> {
    pub from: NodeKey,
    pub direction: Direction,
    pub hops: Vec<Hop<'a>>,
    /// The depth bound stopped this path while it could go on.
    pub cut_by_depth: bool,
}

impl TracePath<'_> {
    /// The node the path ends at.
    pub fn end(&self) -> &NodeKey {
        self.hops.last().map_or(&self.from, |h| &h.reached)
    }
}

/// What the bounds cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceTruncation {
    /// More paths existed than `max_paths`.
    pub by_paths: bool,
    /// Some path could have gone deeper than `max_depth`.
    pub by_depth: bool,
    /// The search-step budget ran out before every path was enumerated.
    pub by_budget: bool,
}

impl TraceTruncation {
    pub fn is_truncated(&self) -> bool {
        self.by_paths || self.by_depth || self.by_budget
    }
}

/// The paths of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace<'a> {
    /// In identity order, duplicates removed.
    pub from: Vec<NodeKey>,
    /// `None` when any end will do.
    pub to: Option<Vec<NodeKey>>,
    pub options: TraceOptions,
    /// In enumeration order: by `from` node, then depth-first (see the module documentation).
    pub paths: Vec<TracePath<'a>>,
    pub truncation: TraceTruncation,
}

/// The steps out of each node, both ways, in the order they are tried ([`flow_rank`]).
struct Steps<'a> {
    forward: HashMap<&'a NodeKey, Vec<(&'a NodeKey, &'a Edge)>>,
    backward: HashMap<&'a NodeKey, Vec<(&'a NodeKey, &'a Edge)>>,
}

impl<'a> Steps<'a> {
    fn new(edges: &'a [Edge], include_type_only: bool) -> Self {
        let mut forward: HashMap<&NodeKey, Vec<(&NodeKey, &Edge)>> = HashMap::new();
        let mut backward: HashMap<&NodeKey, Vec<(&NodeKey, &Edge)>> = HashMap::new();
        for edge in edges {
            // Each data-flow step as (upstream, downstream).
            let (up, down) = match edge.kind {
                EdgeKind::Calls | EdgeKind::Reads | EdgeKind::Writes | EdgeKind::ReadsEnv => {
                    (&edge.from, &edge.to)
                }
                EdgeKind::Imports
                    if edge.to.kind() == NodeKind::Module
                        && (include_type_only || !edge.type_only) =>
                {
                    (&edge.from, &edge.to)
                }
                // Backward from a package: its importers.
                EdgeKind::Imports if edge.to.kind() == NodeKind::Package => {
                    backward.entry(&edge.to).or_default().push((&edge.from, edge));
                    continue;
                }
                EdgeKind::Serves => (&edge.to, &edge.from),
                _ => continue,
            };
            forward.entry(up).or_default().push((down, edge));
            backward.entry(down).or_default().push((up, edge));
        }
        for list in forward.values_mut().chain(backward.values_mut()) {
            list.sort_by(|a, b| {
                (flow_rank(a.1.kind), a.0, a.1.identity()).cmp(&(
                    flow_rank(b.1.kind),
                    b.0,
                    b.1.identity(),
                ))
            });
        }
        Self { forward, backward }
    }

    fn out(&self, at: &NodeKey, direction: Direction) -> &[(&'a NodeKey, &'a Edge)] {
        let map = match direction {
            Direction::Forward => &self.forward,
            Direction::Backward => &self.backward,
        };
        map.get(at).map(Vec::as_slice).unwrap_or_default()
    }
}

/// The order steps are tried in: across boundaries first (calls, serves), then data (writes, reads,
/// reads_env), then imports — so that when `max_paths` cuts, the paths kept are the ones that
/// cross services rather than chains of imports.
fn flow_rank(kind: EdgeKind) -> u8 {
    match kind {
        EdgeKind::Calls => 0,
        EdgeKind::Serves => 1,
        EdgeKind::Writes => 2,
        EdgeKind::Reads => 3,
        EdgeKind::ReadsEnv => 4,
        EdgeKind::Imports => 5,
        EdgeKind::Defines => 6,
    }
}

struct Search<'s, 'a> {
    steps: &'s Steps<'a>,
    to: Option<BTreeSet<&'s NodeKey>>,
    options: TraceOptions,
    paths: Vec<TracePath<'a>>,
    truncation: TraceTruncation,
    budget: usize,
}

impl<'a> Search<'_, 'a> {
    /// Walks from `at` (already on `stack`); false once the trace is complete or cut.
    fn walk(
        &mut self,
        from: &NodeKey,
        direction: Direction,
        at: &'a NodeKey,
        stack: &mut Vec<(&'a NodeKey, &'a Edge)>,
        on_path: &mut BTreeSet<&'a NodeKey>,
    ) -> bool {
        let next: Vec<(&'a NodeKey, &'a Edge)> = self
            .steps
            .out(at, direction)
            .iter()
            .filter(|(n, _)| !on_path.contains(*n) && *n != from)
            .copied()
            .collect();
        if stack.len() >= self.options.max_depth && !next.is_empty() {
            self.truncation.by_depth = true;
            if self.to.is_none() {
                return self.emit(from, direction, stack, true);
            }
            return true;
        }
        if next.is_empty() {
            if self.to.is_none() && !stack.is_empty() {
                return self.emit(from, direction, stack, false);
            }
            return true;
        }
        for (node, edge) in next {
            if self.budget == 0 {
                self.truncation.by_budget = true;
                return false;
            }
            self.budget -= 1;
            stack.push((node, edge));
            let keep_going = if self.to.as_ref().is_some_and(|to| to.contains(node)) {
                self.emit(from, direction, stack, false)
            } else {
                on_path.insert(node);
                let keep_going = self.walk(from, direction, node, stack, on_path);
                on_path.remove(node);
                keep_going
            };
            stack.pop();
            if !keep_going {
                return false;
            }
        }
        true
    }

    /// Records a path; false when the path bound is reached (the extra path proves more exist).
    fn emit(
        &mut self,
        from: &NodeKey,
        direction: Direction,
        stack: &[(&'a NodeKey, &'a Edge)],
        cut_by_depth: bool,
    ) -> bool {
        if self.paths.len() >= self.options.max_paths {
            self.truncation.by_paths = true;
            return false;
        }
        self.paths.push(TracePath {
            from: from.clone(),
            direction,
            hops: stack.iter().map(|(n, e)| Hop { edge: e, reached: (*n).clone() }).collect(),
            cut_by_depth,
        });
        true
    }
}

/// Enumerates the data-flow paths from `from`, optionally only those ending at a `to` node.
pub fn trace<'a>(
    view: GraphView<'a>,
    from: &[NodeKey],
    to: Option<&[NodeKey]>,
    options: &TraceOptions,
) -> Trace<'a> {
    let steps = Steps::new(view.edges, options.include_type_only);
    let from: Vec<NodeKey> = from.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect();
    let to: Option<Vec<NodeKey>> =
        to.map(|t| t.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect());
    let mut search = Search {
        steps: &steps,
        to: to.as_ref().map(|t| t.iter().collect()),
        options: *options,
        paths: Vec::new(),
        truncation: TraceTruncation::default(),
        budget: SEARCH_BUDGET,
    };
    for start in &from {
        let direction = Direction::from_kind(start.kind());
        // The walk borrows node keys from the graph's edges; a start that is on no edge has no
        // paths.
        let Some(at) = steps
            .forward
            .get_key_value(start)
            .or_else(|| steps.backward.get_key_value(start))
            .map(|(key, _)| *key)
        else {
            continue;
        };
        let mut on_path = BTreeSet::from([at]);
        if !search.walk(start, direction, at, &mut Vec::new(), &mut on_path) {
            break;
        }
    }
    let Search { paths, truncation, .. } = search;
    Trace { from, to, options: *options, paths, truncation }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blast::tests::{fullstack, key};

    fn render(trace: &Trace<'_>) -> Vec<String> {
        trace
            .paths
            .iter()
            .map(|p| {
                let mut text = p.from.id();
                for hop in &p.hops {
                    text.push_str(&format!(" -{}-> {}", hop.edge.kind, hop.reached));
                }
                text
            })
            .collect()
    }

    #[test]
    fn forward_from_a_client_to_the_table() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let t = trace(view, &[key("module:web/page.tsx")], None, &TraceOptions::default());
        assert_eq!(
            render(&t),
            [
                "module:web/page.tsx -imports-> module:web/client.ts -calls-> route:GET /items/{} \
                 -serves-> module:api/items.py -reads-> table:item",
                "module:web/page.tsx -imports-> module:web/client.ts -calls-> route:GET /items/{} \
                 -serves-> module:api/items.py -imports-> module:api/models.py",
            ]
        );
        assert!(!t.truncation.is_truncated());
        assert_eq!(t.paths[0].direction, Direction::Forward);
    }

    #[test]
    fn with_to_only_paths_ending_there() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let to = [key("table:item")];
        let t = trace(view, &[key("module:web/client.ts")], Some(&to), &TraceOptions::default());
        assert_eq!(t.paths.len(), 1);
        assert_eq!(t.paths[0].end(), &key("table:item"));
        assert_eq!(t.paths[0].hops.len(), 3);
        let none = trace(view, &[key("module:api/models.py")], Some(&to), &TraceOptions::default());
        assert!(none.paths.is_empty());
    }

    #[test]
    fn backward_from_a_table_reaches_the_client() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let to = [key("module:web/page.tsx")];
        let t = trace(view, &[key("table:item")], Some(&to), &TraceOptions::default());
        assert_eq!(
            render(&t),
            ["table:item -reads-> module:api/items.py -serves-> route:GET /items/{} -calls-> \
              module:web/client.ts -imports-> module:web/page.tsx"]
        );
        assert_eq!(t.paths[0].direction, Direction::Backward);
    }

    #[test]
    fn bounds_are_reported() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let options = TraceOptions { max_paths: 1, ..TraceOptions::default() };
        let t = trace(view, &[key("module:web/page.tsx")], None, &options);
        assert_eq!(t.paths.len(), 1);
        assert!(t.truncation.by_paths);
        let options = TraceOptions { max_depth: 2, ..TraceOptions::default() };
        let t = trace(view, &[key("module:web/page.tsx")], None, &options);
        assert!(t.truncation.by_depth && t.paths.iter().all(|p| p.cut_by_depth));
        assert_eq!(t.paths.len(), 1);
    }

    #[test]
    fn type_only_imports_carry_no_data_unless_asked() {
        let (nodes, edges) = fullstack();
        let view = GraphView { nodes: &nodes, edges: &edges, refusals: &[] };
        let t = trace(view, &[key("module:web/types.ts")], None, &TraceOptions::default());
        assert!(t.paths.is_empty());
        let options = TraceOptions { include_type_only: true, ..TraceOptions::default() };
        let t = trace(view, &[key("module:web/types.ts")], None, &options);
        assert_eq!(t.paths.len(), 2);
    }
}
