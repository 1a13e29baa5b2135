//! The report as a reviewer reads it, from a diff the engine derives end to end: one row per
//! change (a new route called across languages, a write to a new table), noise lowered, a cycle
//! that grew told as grown, sections that count things, routes that could not be placed, and a
//! diagram of the findings' edges when the changes are too many to draw.

use cartograph_core::{EdgeKind, NodeKind, Refusal, RefusalKind, RepoPath, SourceLocation};
use cartograph_graph::diff;
use cartograph_report::diff::{DiffDocument, TreeDoc};
use cartograph_report::diff_markdown::{DiffMarkdownOptions, render_diff};
use cartograph_report::schema;

use crate::tree;
use tree::{Tree, key};

const MODULES: [&str; 9] = [
    "api/items.py",
    "api/models.py",
    "api/crud.py",
    "api/a.py",
    "api/b.py",
    "api/c.py",
    "web/client.ts",
    "web/other.ts",
    "api/tests/test_env.py",
];

fn base() -> Tree {
    Tree::default()
        .modules(&MODULES)
        .imports("api/a.py", "api/b.py")
        .imports("api/b.py", "api/a.py")
}

/// Two new routes the client calls, a new table written by a new writer, a test-only variable,
/// a cycle that grew by one module, and a router whose mount could not be followed.
fn head() -> Tree {
    let route = |name: &str| key(NodeKind::Route, name);
    let mut head = base()
        .edge(EdgeKind::Serves, "api/items.py", route("POST /api/items"))
        .edge(EdgeKind::Serves, "api/items.py", route("DELETE /api/items/{}"))
        .edge(EdgeKind::Calls, "web/client.ts", route("POST /api/items"))
        .edge(EdgeKind::Calls, "web/client.ts", route("DELETE /api/items/{}"))
        .edge(EdgeKind::Calls, "web/other.ts", route("DELETE /api/items/{}"))
        .edge(EdgeKind::Defines, "api/models.py", key(NodeKind::Table, "item"))
        .edge(EdgeKind::Writes, "api/crud.py", key(NodeKind::Table, "item"))
        .edge(EdgeKind::ReadsEnv, "api/tests/test_env.py", key(NodeKind::EnvVar, "TEST_ONLY"))
        .imports("api/b.py", "api/c.py")
        .imports("api/c.py", "api/a.py");
    head.refusals.push(Refusal::new(
        RefusalKind::UnresolvedMount,
        SourceLocation::new(RepoPath::new("api/store.py").unwrap(), 9, 1),
        "FastAPI route /store of get_store: Cartograph could not find the app that includes store_router, so the route's full path is unknown",
    ));
    head
}

fn document(base: &Tree, head: &Tree) -> DiffDocument {
    let d = diff(base.view(), head.view());
    let tree = |label: &str, view| TreeDoc::from_view("directory", label, 9, view);
    DiffDocument::from_diff(&d, tree("base", base.view()), tree("head", head.view()))
}

#[test]
fn the_verdict_counts_by_kind_and_tells_a_called_route_once() {
    let doc = document(&base(), &head());
    schema::validate(&serde_json::to_value(&doc).unwrap()).unwrap();
    assert_eq!(
        doc.verdict,
        "5 findings (4 medium, 1 info): 2 new routes (all called across languages by client.ts, other.ts), new table item, an import cycle grew from 2 to 3 modules, new env var TEST_ONLY."
    );
    // The JSON keeps every finding, so `--fail-on route-added` and `new-table-write` still trip.
    assert_eq!(doc.summary.findings_by_kind["route-added"], 2);
    assert_eq!(doc.summary.findings_by_kind["new-table-write"], 1);
    let covered: Vec<(&str, &str)> = doc
        .findings
        .iter()
        .filter_map(|f| f.covered_by.as_ref().map(|c| (f.kind.as_str(), c.kind.as_str())))
        .collect();
    assert_eq!(
        covered,
        [
            ("route-added", "new-cross-language-call"),
            ("route-added", "new-cross-language-call"),
            ("new-table-write", "new-table")
        ]
    );
}

#[test]
fn the_table_has_one_row_per_change() {
    let doc = document(&base(), &head());
    let out = render_diff(&doc, &DiffMarkdownOptions::default());
    assert!(
        out.contains(
            "**5 findings** (4 medium, 1 info, and 3 more reported within them (in the JSON as info))"
        ),
        "{out}"
    );
    // The findings table: from its header to the first blank line.
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("| # | severity"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    let labels: Vec<&str> = rows.iter().filter_map(|r| r.split(" | ").nth(2)).collect();
    assert_eq!(
        labels,
        [
            "new cross-language call + route added",
            "new cross-language call + route added",
            "new table + new table write",
            "new import cycle",
            "new env var"
        ],
        "{out}"
    );
    assert!(out.contains(
        "Route <code>DELETE&nbsp;/api/items/{}</code> is new, served by <code>api/items.py</code> (python), and newly called across languages by <code>web/client.ts</code>, <code>web/other.ts</code> (typescript)."
    ));
    assert!(out.contains("Lowered to info: only test files justify it."));
}

#[test]
fn a_cycle_that_grew_is_changed_not_new_and_its_base_cycle_is_not_gone() {
    let doc = document(&base(), &head());
    let out = render_diff(&doc, &DiffMarkdownOptions::default());
    assert!(out.contains("import cycles: 1 changed"), "{out}");
    assert!(out.contains("<b>Import cycles</b> · 1 changed</summary>"), "{out}");
    assert!(out.contains("- grew from 2 to 3 modules (1 joined): <code>api/c.py</code>"), "{out}");
    assert!(!out.contains("**Gone**"), "{out}");
    assert!(
        out.contains("An import cycle grew from 2 to 3 modules: 1 joined (<code>api/c.py</code>)")
    );
}

#[test]
fn sections_count_things_and_say_what_could_not_be_placed() {
    let doc = document(&base(), &head());
    let out = render_diff(&doc, &DiffMarkdownOptions::default());
    assert!(out.contains("<b>Tables</b> · 1 new table · 2 edges added</summary>"), "{out}");
    assert!(
        out.contains(
            "<b>Routes</b> · 1 new mount not followed · 2 new routes · 2 edges added</summary>"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "⚠️ Cartograph could not tell where 1 new router or route is mounted, so its full path \
             is unknown and it is not listed here. It is the <code>unresolved-mount</code> refusal \
             under **Refusals**."
        ),
        "{out}"
    );
}

#[test]
fn when_the_changes_are_too_many_to_draw_the_findings_edges_are() {
    // Thousands of changed imports besides the findings: the lists go, the findings' picture
    // stays.
    let mut head = head();
    for i in 0..3_000 {
        let from = format!("gen/m{i}.py");
        head = head.modules(&[from.as_str()]).imports(&from, "api/a.py");
    }
    let doc = document(&base(), &head);
    let out = render_diff(&doc, &DiffMarkdownOptions { budget: 20_000, ..Default::default() });
    assert!(out.chars().count() <= 20_000);
    assert!(out.contains("```mermaid"), "{out}");
    assert!(out.contains("behind the findings, of the 3,"), "{out}");
    // Kind by kind in turns: the picture shows every kind of finding, not only the first.
    let diagram = &out[out.find("```mermaid").unwrap()..];
    for edge in ["-->|calls|", "-->|defines|", "-->|reads env|"] {
        assert!(diagram.contains(edge), "{edge} missing from {diagram}");
    }
}

#[test]
fn a_base_cycle_that_split_in_two_is_shrunk_and_split_not_gone() {
    let cycle = Tree::default()
        .modules(&MODULES)
        .imports("api/a.py", "api/b.py")
        .imports("api/b.py", "api/a.py")
        .imports("api/c.py", "api/crud.py")
        .imports("api/crud.py", "api/c.py");
    let base = cycle.clone().imports("api/b.py", "api/c.py").imports("api/c.py", "api/b.py");
    let doc = document(&base, &cycle);
    // Both head cycles sit inside the base one: no new mutual dependency, no finding.
    assert!(doc.findings.is_empty(), "{:#?}", doc.findings);
    let out = render_diff(&doc, &DiffMarkdownOptions::default());
    assert!(out.contains("import cycles: 2 changed"), "{out}");
    assert!(out.contains("<b>Import cycles</b> · 2 changed</summary>"), "{out}");
    assert!(out.contains("- shrank from 4 to 2 modules (0 joined, 2 left)\n"), "{out}");
    assert!(
        out.contains(
            "- 2 modules split out of a base cycle of 4 modules: <code>api/a.py</code>, <code>api/b.py</code>\n"
        ),
        "{out}"
    );
    assert!(!out.contains("**Gone**"), "{out}");
}
