//! Import cycles as strongly connected components of the runtime import graph.

use cartograph_core::NodeKey;
use petgraph::graph::DiGraph;
use petgraph::visit::EdgeFiltered;

use crate::ImportCycle;

pub(crate) fn import_cycles(
    graph: &DiGraph<NodeKey, usize>,
    keep: impl Fn(usize) -> bool,
) -> Vec<ImportCycle> {
    let filtered = EdgeFiltered::from_fn(graph, |e| keep(*e.weight()));
    // Kosaraju over petgraph's iterative depth-first post-order: its Tarjan recurses and a long
    // import chain overflowed the stack (a test keeps it honest).
    let mut cycles: Vec<ImportCycle> = petgraph::algo::kosaraju_scc(&filtered)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut modules: Vec<NodeKey> = component.iter().map(|i| graph[*i].clone()).collect();
            modules.sort();
            ImportCycle { modules }
        })
        .collect();
    cycles.sort();
    cycles
}

#[cfg(test)]
mod tests {
    use cartograph_core::{
        Confidence, Edge, EdgeKind, Evidence, Node, Provenance, RepoPath, SourceLocation,
    };

    use crate::ArchitectureGraph;

    fn module(p: &str) -> Node {
        Node::new(cartograph_core::NodeKey::module(&RepoPath::new(p).unwrap()))
    }

    fn import(from: &str, to: &str, type_only: bool) -> Edge {
        let f = RepoPath::new(from).unwrap();
        Edge {
            kind: EdgeKind::Imports,
            from: module(from).key,
            to: module(to).key,
            evidence: Evidence::new("test"),
            provenance: Provenance::Resolver,
            confidence: Confidence::Certain,
            location: SourceLocation::new(f, 1, 1),
            type_only,
            occurrences: 1,
        }
    }

    #[test]
    fn finds_cycles_and_ignores_type_only_edges() {
        let nodes = ["a.py", "b.py", "c.py", "d.ts", "e.ts"].map(module);
        let edges = vec![
            import("a.py", "b.py", false),
            import("b.py", "c.py", false),
            import("c.py", "a.py", false),
            import("d.ts", "e.ts", false),
            import("e.ts", "d.ts", true),
        ];
        let graph = ArchitectureGraph::new(&nodes, &edges);
        let cycles = graph.import_cycles(&edges);
        assert_eq!(cycles.len(), 1);
        let names: Vec<_> = cycles[0].modules.iter().map(|k| k.name().to_owned()).collect();
        assert_eq!(names, ["a.py", "b.py", "c.py"]);
    }

    #[test]
    fn a_long_chain_does_not_overflow() {
        let names: Vec<String> = (0..20_000).map(|i| format!("m{i}.py")).collect();
        let nodes: Vec<Node> = names.iter().map(|n| module(n)).collect();
        let mut edges: Vec<Edge> = names.windows(2).map(|w| import(&w[0], &w[1], false)).collect();
        edges.push(import(&names[names.len() - 1], &names[0], false));
        let graph = ArchitectureGraph::new(&nodes, &edges);
        assert_eq!(graph.import_cycles(&edges)[0].modules.len(), 20_000);
    }
}
