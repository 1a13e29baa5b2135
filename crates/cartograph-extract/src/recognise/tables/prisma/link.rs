//! Prisma schema models: `defines` edges from a schema file to the tables its models map to.
//!
//! A model with `@@map("t")` defines table `t` (provenance `syntax`, confidence `certain`); a
//! model without one defines a table named like the model, by Prisma's convention (provenance
//! `convention`, confidence `likely`, since a database created outside Prisma may differ).

use crate::PrismaModel;
use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Node, NodeKey, Provenance, RepoPath, SourceLocation,
};

use crate::recognise::link::Linked;

/// Adds the `defines` edges of every schema file's models.
pub fn link(schemas: &[(RepoPath, Vec<PrismaModel>)], linked: &mut Linked) {
    for (path, models) in schemas {
        for model in models {
            let key = NodeKey::table(model.schema.as_deref(), &model.table);
            let mapped = model.table != model.model;
            let (provenance, confidence, how) = if mapped {
                (Provenance::Syntax, Confidence::Certain, "maps to")
            } else {
                (
                    Provenance::Convention,
                    Confidence::Likely,
                    "has no @@map, so by convention defines",
                )
            };
            let mut node = Node::new(key.clone());
            node.attrs.framework = Some("prisma".to_owned());
            linked.edge(
                Edge {
                    kind: EdgeKind::Defines,
                    from: NodeKey::module(path),
                    to: key,
                    evidence: Evidence::new(format!(
                        "Prisma model {} {how} table {}",
                        model.model,
                        NodeKey::table(model.schema.as_deref(), &model.table).name()
                    )),
                    provenance,
                    confidence,
                    location: SourceLocation::new(path.clone(), model.line, 1),
                    type_only: false,
                    occurrences: 1,
                },
                node,
            );
        }
    }
}
