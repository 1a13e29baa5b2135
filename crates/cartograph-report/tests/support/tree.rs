//! A small graph builder for the diff document's tests: the unit tests in `src/diff/tests.rs`
//! and the integration tests in `tests/` include this one file.

// Each including test uses part of the builder.
#![allow(dead_code)]

use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Handler, Language, Node, NodeKey, NodeKind, Provenance,
    Refusal, RefusalKind, RepoPath, SourceLocation,
};
use cartograph_graph::GraphView;

pub fn key(kind: NodeKind, name: &str) -> NodeKey {
    NodeKey::from_parts(kind, name)
}

pub fn module(path: &str) -> NodeKey {
    key(NodeKind::Module, path)
}

/// One tree's nodes, edges and refusals.
#[derive(Default, Clone)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub refusals: Vec<Refusal>,
}

impl Tree {
    pub fn view(&self) -> GraphView<'_> {
        GraphView { nodes: &self.nodes, edges: &self.edges, refusals: &self.refusals }
    }

    /// A module node, Python or TypeScript by its extension, in the component of its first
    /// folder.
    pub fn module(mut self, path: &str) -> Self {
        let mut node = Node::new(module(path));
        node.attrs.language =
            Some(if path.ends_with(".py") { Language::Python } else { Language::TypeScript });
        node.attrs.component = path.split_once('/').map(|(dir, _)| dir.to_owned());
        self.nodes.push(node);
        self
    }

    pub fn modules(self, paths: &[&str]) -> Self {
        paths.iter().fold(self, |tree, path| tree.module(path))
    }

    pub fn route(mut self, name: &str, handler: &str) -> Self {
        let mut node = Node::new(key(NodeKind::Route, name));
        node.attrs.handler = Some(Handler {
            module: RepoPath::new(handler).unwrap(),
            function: Some("handle".to_owned()),
        });
        self.nodes.retain(|n| n.key != node.key);
        self.nodes.push(node);
        self
    }

    /// An edge from module `from`, adding its target node when missing.
    pub fn edge(mut self, kind: EdgeKind, from: &str, to: NodeKey) -> Self {
        if !self.nodes.iter().any(|n| n.key == to) {
            self.nodes.push(Node::new(to.clone()));
        }
        self.edges.push(Edge {
            kind,
            from: module(from),
            evidence: Evidence::new(format!("{from} {kind} {}", to.name())),
            to,
            provenance: Provenance::Syntax,
            confidence: Confidence::Certain,
            location: SourceLocation::new(RepoPath::new(from).unwrap(), 3, 1),
            type_only: false,
            occurrences: 1,
        });
        self
    }

    pub fn imports(self, from: &str, to: &str) -> Self {
        self.edge(EdgeKind::Imports, from, module(to))
    }

    pub fn refusal(mut self, kind: RefusalKind, file: &str, reason: &str) -> Self {
        let location = SourceLocation::new(RepoPath::new(file).unwrap(), 7, 2);
        self.refusals.push(Refusal::new(kind, location, reason));
        self
    }
}
