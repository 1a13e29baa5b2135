//! Tests of the diff document: every finding kind in one document that validates against the
//! schema, a deterministic serialisation, and the verdict.

use cartograph_core::{Confidence, EdgeKind, NodeKind, RefusalKind};
use cartograph_graph::{FindingKind, GraphView, diff};

use super::*;
use crate::schema;

#[path = "../../tests/support/tree.rs"]
mod tree;
use tree::{Tree, key, module};

const ITEM: &str = "GET /api/items/{}";

fn base() -> Tree {
    Tree::default()
        .module("backend/items.py")
        .module("backend/health.py")
        .module("backend/models.py")
        .module("backend/crud.py")
        .module("backend/config.py")
        .module("pkg/a.py")
        .module("pkg/b.py")
        .module("web/api.ts")
        .route(ITEM, "backend/items.py")
        .route("GET /health", "backend/items.py")
        .edge(EdgeKind::Serves, "backend/items.py", key(NodeKind::Route, ITEM))
        .edge(EdgeKind::Serves, "backend/items.py", key(NodeKind::Route, "GET /health"))
        .edge(EdgeKind::Calls, "web/api.ts", key(NodeKind::Route, ITEM))
        .edge(EdgeKind::Imports, "pkg/a.py", module("pkg/b.py"))
        .edge(EdgeKind::Imports, "backend/items.py", module("backend/models.py"))
        .refusal(RefusalKind::DynamicImport, "web/api.ts", "import of a computed name")
}

/// A head that produces every finding kind, a moved route and a changed edge.
fn head() -> Tree {
    let mut head = base()
        .route("GET /health", "backend/health.py")
        .route("POST /api/items", "backend/items.py")
        .edge(EdgeKind::Serves, "backend/health.py", key(NodeKind::Route, "GET /health"))
        .edge(EdgeKind::Serves, "backend/items.py", key(NodeKind::Route, "POST /api/items"))
        .edge(EdgeKind::Calls, "web/api.ts", key(NodeKind::Route, "POST /api/items"))
        // Python calling a Python route: a `new-call`, not a cross-language one.
        .edge(EdgeKind::Calls, "backend/config.py", key(NodeKind::Route, "GET /health"))
        .edge(EdgeKind::Defines, "backend/models.py", key(NodeKind::Table, "item"))
        .edge(EdgeKind::Writes, "backend/crud.py", key(NodeKind::Table, "item"))
        .edge(EdgeKind::ReadsEnv, "backend/config.py", key(NodeKind::EnvVar, "API_KEY"))
        .edge(EdgeKind::Calls, "web/api.ts", key(NodeKind::External, "https://api.example.com"))
        .edge(EdgeKind::Imports, "backend/crud.py", key(NodeKind::Package, "pypi:requests"))
        .edge(EdgeKind::Imports, "pkg/b.py", module("pkg/a.py"))
        .edge(EdgeKind::Imports, "backend/crud.py", module("pkg/a.py"))
        .refusal(
            RefusalKind::UnmatchedCall,
            "web/api.ts",
            &format!("call to {ITEM} matches no served route"),
        );
    let route = key(NodeKind::Route, ITEM);
    let old_health =
        (EdgeKind::Serves, module("backend/items.py"), key(NodeKind::Route, "GET /health"));
    head.nodes.retain(|n| n.key != route);
    head.edges.retain(|e| e.to != route && (e.kind, e.from.clone(), e.to.clone()) != old_health);
    head.refusals.retain(|r| r.kind != RefusalKind::DynamicImport);
    for edge in &mut head.edges {
        if edge.to == module("backend/models.py") {
            edge.confidence = Confidence::Likely;
        }
    }
    head
}

fn tree(label: &str, view: GraphView<'_>) -> TreeDoc {
    TreeDoc::from_view("directory", label, 8, view)
}

fn document(base: &Tree, head: &Tree) -> DiffDocument {
    let d = diff(base.view(), head.view());
    DiffDocument::from_diff(&d, tree("old", base.view()), tree("new", head.view()))
}

#[test]
fn a_document_with_every_finding_kind_validates_against_the_schema() {
    let doc = document(&base(), &head());
    // The rule kinds come from a repository's rules, not from a graph diff (see the CLI's rules
    // tests); their counts are present, zero.
    for kind in FindingKind::ALL.into_iter().filter(|k| k.from_rules()) {
        assert_eq!(doc.summary.findings_by_kind[kind.as_str()], 0);
    }
    for kind in FindingKind::ALL.into_iter().filter(|k| !k.from_rules()) {
        assert!(
            doc.findings.iter().any(|f| f.kind == kind.as_str()),
            "{} missing from {:#?}",
            kind.as_str(),
            doc.findings
        );
        assert!(doc.summary.findings_by_kind[kind.as_str()] >= 1);
    }
    assert_eq!(doc.summary.findings_by_kind.len(), FindingKind::ALL.len());
    // The new route's own finding and the write to the new table are covered (info); the call
    // to the reserved host api.example.com is lowered to low.
    assert_eq!(doc.summary.findings_by_severity["info"], 2);
    let covered: Vec<&str> =
        doc.findings.iter().filter(|f| f.covered_by.is_some()).map(|f| f.kind.as_str()).collect();
    assert_eq!(covered, ["route-added", "new-table-write"]);
    assert_eq!(doc.summary.findings_by_severity.len(), 4);
    assert!(doc.nodes.changed.iter().any(|c| c.moved && c.id == "route:GET /health"));
    assert_eq!(doc.edges.changed.len(), 1);
    assert_eq!(doc.edges.changed[0].changed, ["confidence"]);
    assert_eq!(doc.refusals.removed.len(), 1);
    assert_eq!(doc.refusals.added.len(), 1);
    assert_eq!(
        doc.cycles.added,
        [vec!["module:pkg/a.py".to_owned(), "module:pkg/b.py".to_owned()]]
    );
    let value = serde_json::to_value(&doc).unwrap();
    schema::validate(&value).unwrap();
    assert_eq!(
        doc.verdict,
        "10 findings (2 high, 3 medium, 5 low): route removed GET /api/items/{}, a client still calls removed route GET /api/items/{}, new route POST /api/items (called across languages by api.ts), new table item, new import cycle through pkg/a.py, new call to GET /health, new env var API_KEY, new external service https://api.example.com, new package pypi:requests, new dependency of component backend."
    );
}

#[test]
fn a_new_route_called_in_its_own_language_is_told_once_in_the_verdict() {
    let base = Tree::default().module("server/app.ts").module("web/page.ts").module("web/cart.ts");
    let head = base
        .clone()
        .route("POST /api/orders", "server/app.ts")
        .route("GET /api/products", "server/app.ts")
        .edge(EdgeKind::Serves, "server/app.ts", key(NodeKind::Route, "POST /api/orders"))
        .edge(EdgeKind::Serves, "server/app.ts", key(NodeKind::Route, "GET /api/products"))
        .edge(EdgeKind::Calls, "web/page.ts", key(NodeKind::Route, "POST /api/orders"));
    let doc = document(&base, &head);
    schema::validate(&serde_json::to_value(&doc).unwrap()).unwrap();
    assert_eq!(doc.verdict, "2 findings (2 low): 2 new routes (1 called by page.ts).");
}

#[test]
fn serialisation_is_deterministic_whatever_the_input_order() {
    let (base, head) = (base(), head());
    let first = crate::to_json(&document(&base, &head));
    let (mut base2, mut head2) = (base.clone(), head.clone());
    base2.nodes.reverse();
    base2.edges.reverse();
    head2.nodes.reverse();
    head2.edges.reverse();
    head2.refusals.reverse();
    assert_eq!(crate::to_json(&document(&base2, &head2)), first);
    assert_eq!(crate::to_json(&document(&base, &head)), first);
}

#[test]
fn verdicts_without_findings() {
    let base = base();
    let doc = document(&base, &base);
    assert_eq!(doc.verdict, "No architectural change.");
    schema::validate(&serde_json::to_value(&doc).unwrap()).unwrap();

    let mut shifted = base.clone();
    shifted.edges[0].confidence = Confidence::Possible;
    shifted.refusals.clear();
    let doc = document(&base, &shifted);
    assert_eq!(doc.verdict, "No findings: 1 edge changed, 1 refusal removed.");
    schema::validate(&serde_json::to_value(&doc).unwrap()).unwrap();
}

#[test]
fn the_schema_rejects_an_unknown_finding_kind_and_an_absolute_label() {
    let doc = document(&base(), &head());
    let mut value = serde_json::to_value(&doc).unwrap();
    value["findings"][0]["kind"] = "route-renamed".into();
    assert!(schema::validate(&value).is_err());

    let mut value = serde_json::to_value(&doc).unwrap();
    value["base"]["label"] = "/home/me/repo".into();
    assert!(schema::validate(&value).is_err());

    let mut value = serde_json::to_value(&doc).unwrap();
    value["findings"][0]["edges"][0]["side"] = "both".into();
    assert!(schema::validate(&value).is_err());

    let mut value = serde_json::to_value(&doc).unwrap();
    value["summary"]["findings_by_kind"].as_object_mut().unwrap().remove("new-cycle");
    assert!(schema::validate(&value).is_err());
}
