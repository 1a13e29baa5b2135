//! Environment variable reads: `reads_env` edges from modules to `env_var` nodes.
//!
//! Every read a recogniser found with a literal name becomes an edge from the reading module to
//! the variable, named but never valued; reads with a computed name were refused at extraction.
//! Nothing crosses files here: a settings class read in another module is the settings module's
//! read.

use cartograph_core::{Edge, EdgeKind, Evidence, Node, NodeKey, SourceLocation};

use crate::recognise::link::{LinkInput, Linked};

/// Links this family's facts.
pub fn link(input: &LinkInput<'_>, linked: &mut Linked) {
    for file in &input.files {
        for read in &file.facts.env.reads {
            let key = NodeKey::env_var(&read.name);
            let mut node = Node::new(key.clone());
            node.attrs.framework = Some(read.recogniser.to_owned());
            linked.edge(
                Edge {
                    kind: EdgeKind::ReadsEnv,
                    from: NodeKey::module(file.path),
                    to: key,
                    evidence: Evidence::new(read.evidence.clone()),
                    provenance: read.provenance,
                    confidence: read.confidence,
                    location: SourceLocation::new(file.path.clone(), read.line, read.column),
                    type_only: false,
                    occurrences: 1,
                },
                node,
            );
        }
    }
}
