//! Prisma schema files become `defines` edges to the tables their models map to.

use cartograph_core::{Confidence, EdgeKind, NodeKind, Provenance};
use cartograph_pipeline::{AnalysisOptions, analyse_tree};

#[test]
fn prisma_models_define_tables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let schema_dir = dir.path().join("prisma");
    std::fs::create_dir_all(&schema_dir).expect("mkdir");
    std::fs::write(
        schema_dir.join("schema.prisma"),
        "model User {\n  id Int @id\n  @@map(\"users\")\n}\n\nmodel Post {\n  id Int @id\n}\n",
    )
    .expect("write");
    let analysis = analyse_tree(dir.path(), &AnalysisOptions::default()).expect("analysis");
    let defines: Vec<(String, String, Provenance, Confidence)> = analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Defines)
        .map(|e| (e.from.name().to_owned(), e.to.name().to_owned(), e.provenance, e.confidence))
        .collect();
    assert_eq!(
        defines,
        [
            (
                "prisma/schema.prisma".to_owned(),
                "Post".to_owned(),
                Provenance::Convention,
                Confidence::Likely
            ),
            (
                "prisma/schema.prisma".to_owned(),
                "users".to_owned(),
                Provenance::Syntax,
                Confidence::Certain
            ),
        ]
    );
    assert!(
        analysis.nodes.iter().any(|n| n.key.kind() == NodeKind::Table && n.key.name() == "users")
    );
    assert!(
        analysis
            .nodes
            .iter()
            .any(|n| n.key.kind() == NodeKind::Module && n.key.name() == "prisma/schema.prisma")
    );
}
