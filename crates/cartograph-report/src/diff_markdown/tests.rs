//! The findings table with grouped rows: what a group says, that a group of one is the row it
//! always was, moved routes, escaping, and the budget cutting a group's list before its row.

use std::collections::BTreeMap;

use super::{DiffMarkdownOptions, render_diff};
use crate::diff::{
    CoveredByDoc, CyclesDiffDoc, DiffDocument, DiffSummaryDoc, EdgeRefDoc, EdgesDiffDoc,
    FindingDoc, NodesDiffDoc, RefusalsDiffDoc, TreeDoc,
};
use crate::snapshot::LocationDoc;

fn tree(label: &str) -> TreeDoc {
    TreeDoc {
        source: "revision".into(),
        label: label.into(),
        files_analysed: 10,
        nodes: 10,
        edges: 10,
        refusals: 0,
        coverage: None,
    }
}

fn doc(findings: Vec<FindingDoc>) -> DiffDocument {
    let mut by_severity: BTreeMap<String, u64> =
        ["high", "medium", "low", "info"].iter().map(|s| ((*s).to_owned(), 0)).collect();
    for f in &findings {
        *by_severity.entry(f.severity.clone()).or_default() += 1;
    }
    DiffDocument {
        schema: "diff".into(),
        schema_version: "1.4".into(),
        tool_version: "0.0.0-test".into(),
        base: tree("base"),
        head: tree("head"),
        verdict: "A change.".into(),
        summary: DiffSummaryDoc {
            findings_by_severity: by_severity,
            findings_by_kind: BTreeMap::new(),
            nodes_added: 0,
            nodes_removed: 0,
            nodes_changed: 0,
            edges_added: 0,
            edges_removed: 0,
            edges_changed: 0,
            refusals_added: 0,
            refusals_removed: 0,
            cycles_added: 0,
            cycles_removed: 0,
        },
        findings,
        nodes: NodesDiffDoc { added: Vec::new(), removed: Vec::new(), changed: Vec::new() },
        edges: EdgesDiffDoc { added: Vec::new(), removed: Vec::new(), changed: Vec::new() },
        refusals: RefusalsDiffDoc { by_kind: Vec::new(), added: Vec::new(), removed: Vec::new() },
        cycles: CyclesDiffDoc { added: Vec::new(), removed: Vec::new() },
        rules: None,
        explanations: None,
    }
}

fn edge(side: &str, kind: &str, from: &str, to: &str) -> EdgeRefDoc {
    EdgeRefDoc {
        side: side.into(),
        kind: kind.into(),
        from: from.into(),
        to: to.into(),
        evidence: format!("{from} {kind} {to}"),
        confidence: "certain".into(),
        location: LocationDoc {
            path: from.strip_prefix("module:").unwrap_or(from).into(),
            line: 3,
            column: 1,
        },
    }
}

const SERVER: &str = "module:backend/app/api/routes.py";

fn route_removed(route: &str) -> FindingDoc {
    FindingDoc {
        kind: "route-removed".into(),
        severity: "high".into(),
        subject: format!("route:{route}"),
        message: format!(
            "Route {route} is no longer served (it was served by backend/app/api/routes.py): a \
             possible breaking API change."
        ),
        edges: vec![edge("base", "serves", SERVER, &format!("route:{route}"))],
        covered_by: None,
        rule: None,
    }
}

fn route_added(route: &str) -> FindingDoc {
    FindingDoc {
        kind: "route-added".into(),
        severity: "low".into(),
        subject: format!("route:{route}"),
        message: format!("Route {route} is new, served by backend/app/api/routes.py."),
        edges: vec![edge("head", "serves", SERVER, &format!("route:{route}"))],
        covered_by: None,
        rule: None,
    }
}

/// A new route newly called across languages by `callers`: the call finding, and the
/// `route-added` one it covers.
fn new_route_called(route: &str, callers: &[&str]) -> [FindingDoc; 2] {
    let subject = format!("route:{route}");
    let mut edges: Vec<EdgeRefDoc> =
        callers.iter().map(|c| edge("head", "calls", &format!("module:{c}"), &subject)).collect();
    edges.push(edge("head", "serves", SERVER, &subject));
    let call = FindingDoc {
        kind: "new-cross-language-call".into(),
        severity: "medium".into(),
        subject: subject.clone(),
        message: format!(
            "Route {route} is new, served by backend/app/api/routes.py (python), and newly \
             called across languages by {} (typescript).",
            callers.join(", ")
        ),
        edges,
        covered_by: None,
        rule: None,
    };
    let mut added = route_added(route);
    added.severity = "info".into();
    added.covered_by = Some(CoveredByDoc { kind: "new-cross-language-call".into(), subject });
    [call, added]
}

fn env_var(name: &str, reader: &str) -> FindingDoc {
    FindingDoc {
        kind: "new-env-var".into(),
        severity: "low".into(),
        subject: format!("env_var:{name}"),
        message: format!("Environment variable {name} is newly read by {reader}."),
        edges: vec![edge(
            "head",
            "reads_env",
            &format!("module:{reader}"),
            &format!("env_var:{name}"),
        )],
        covered_by: None,
        rule: None,
    }
}

fn options() -> DiffMarkdownOptions {
    DiffMarkdownOptions::default()
}

/// The findings table's rows.
fn table(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("| # | severity"))
        .skip(2)
        .take_while(|l| l.starts_with("| "))
        .collect()
}

#[test]
fn findings_of_one_kind_and_cause_become_one_row_with_their_list() {
    let mut findings: Vec<FindingDoc> =
        ["GET /api/v2/a", "GET /api/v2/b", "POST /api/v2/b/c"].map(route_added).into();
    findings.push(route_added("GET /ui/x"));
    findings.push(env_var("A_KEY", "backend/app/config.py"));
    findings.push(env_var("B_KEY", "backend/app/config.py"));
    findings.push(env_var("C_KEY", "backend/app/config.py"));
    let out = render_diff(&doc(findings), &options());
    let rows = table(&out);
    assert_eq!(rows.len(), 3, "{out}");
    assert_eq!(
        rows[0],
        "| 1 | 🟡&nbsp;low | route added | <details><summary>3 new routes under \
         <code>/api/v2</code></summary><code>GET&nbsp;/api/v2/a</code><br>\
         <code>GET&nbsp;/api/v2/b</code><br><code>POST&nbsp;/api/v2/b/c</code></details> |"
    );
    // A group of one is the row it always was.
    assert_eq!(
        rows[1],
        "| 2 | 🟡&nbsp;low | route added | Route <code>GET&nbsp;/ui/x</code> is new, served by \
         <code>api/routes.py</code>. |"
    );
    assert!(
        rows[2].starts_with(
            "| 3 | 🟡&nbsp;low | new env var | <details><summary>3 new env vars read by \
             <code>config.py</code></summary>Environment variable \
             <code>A&#95;KEY</code> is newly read by"
        ),
        "{}",
        rows[2]
    );
    // The evidence has one entry per row, with the edges of every finding of a group.
    assert!(out.contains("**1. route added** 3 new routes under <code>/api/v2</code>\n"));
    assert_eq!(out.matches("<b>serves</b>").count(), 4, "{out}");
    // The counts still count findings.
    assert!(out.contains("**7 findings** (7 low)"), "{out}");
}

#[test]
fn new_routes_newly_called_name_their_common_callers_and_keep_their_place() {
    let client = "web/src/client/services.gen.ts";
    let mut findings = Vec::new();
    let mut covered = Vec::new();
    for (route, page) in [
        ("GET /api/v2/assets/{}/state", "web/src/pages/Asset.tsx"),
        ("PUT /api/v2/assets/{}/state", "web/src/pages/AssetModal.tsx"),
        ("DELETE /api/v2/assets/{}/state", "web/src/pages/Asset.tsx"),
    ] {
        let [call, added] = new_route_called(route, &[client, page]);
        findings.push(call);
        covered.push(added);
    }
    let mut high = route_removed("GET /api/v1/old");
    high.edges.clear();
    findings.insert(0, high);
    findings.push(env_var("A_KEY", "backend/app/config.py"));
    findings.extend(covered);
    let json = doc(findings);
    let before = json.to_json();
    let out = render_diff(&json, &options());
    // The JSON document is not touched: one entry per finding.
    assert_eq!(json.to_json(), before);
    let rows = table(&out);
    assert_eq!(rows.len(), 3, "{out}");
    assert!(rows[0].starts_with("| 1 | 🔴&nbsp;high | route removed |"));
    assert!(
        rows[1].starts_with(
            "| 2 | 🟠&nbsp;medium | new cross-language call + route added | <details><summary>3 \
             new routes under <code>/api/v2/assets/{}/state</code>, all newly called across \
             languages by <code>web/src/client/services.gen.ts</code></summary>\
             <code>GET&nbsp;/api/v2/assets/{}/state</code> (also by \
             <code>web/src/pages/Asset.tsx</code>)<br>"
        ),
        "{}",
        rows[1]
    );
    assert!(rows[2].starts_with("| 3 | 🟡&nbsp;low | new env var |"));
    assert!(out.contains("and 3 more reported within them"), "{out}");
}

#[test]
fn a_renamed_prefix_reads_as_one_moved_row_and_leftovers_stay_rows() {
    let suffixes = ["", "/{}", "/{}/members", "/{}/members/{}", "/{}/stats"];
    let mut findings: Vec<FindingDoc> =
        suffixes.iter().map(|s| route_removed(&format!("GET /api/groups{s}"))).collect();
    findings.push(route_removed("DELETE /api/legacy"));
    findings.push(route_removed("DELETE /api/legacy/{}"));
    for s in &suffixes[..4] {
        findings.push(route_added(&format!("GET /api/households{s}")));
    }
    findings.push(route_added("GET /health"));
    let out = render_diff(&doc(findings), &options());
    let rows = table(&out);
    assert_eq!(rows.len(), 3, "{out}");
    assert!(
        rows[0].starts_with(
            "| 1 | 🔴&nbsp;high | route removed + route added | <details><summary>4 routes moved \
             from <code>/api/groups/…</code> to <code>/api/households/…</code>?</summary>\
             <code>GET&nbsp;/api/groups</code> → <code>/api/households</code><br>\
             <code>GET&nbsp;/api/groups/{}</code> → <code>/api/households/{}</code><br>"
        ),
        "{}",
        rows[0]
    );
    // The removed route left unpaired groups with the other removed one under `/api`.
    assert!(
        rows[1].starts_with(
            "| 2 | 🔴&nbsp;high | route removed | <details><summary>3 routes under \
             <code>/api</code> no longer served</summary>"
        ),
        "{}",
        rows[1]
    );
    assert!(rows[2].starts_with("| 3 | 🟡&nbsp;low | route added | Route <code>GET&nbsp;/health"));
    assert!(out.contains("**12 findings** (7 high, 5 low)"), "{out}");
}

#[test]
fn prefixes_that_share_few_suffixes_are_not_a_move() {
    let mut findings: Vec<FindingDoc> =
        ["a", "b", "c", "d", "e"].iter().map(|s| route_removed(&format!("GET /v1/{s}"))).collect();
    for s in ["a", "b", "x", "y"] {
        findings.push(route_added(&format!("GET /v2/{s}")));
    }
    let out = render_diff(&doc(findings), &options());
    assert!(!out.contains(" moved from "), "{out}");
    let rows = table(&out);
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].contains("5 routes under <code>/v1</code> no longer served"));
    assert!(rows[1].contains("4 new routes under <code>/v2</code>"));
}

#[test]
fn hostile_names_in_groups_stay_escaped() {
    let evil = "GET /api/<script>alert(1)</script>|`x`";
    let findings = vec![
        route_added(evil),
        route_added("GET /api/b"),
        route_added("GET /api/c"),
        env_var("K<img src=x>", "a|b`<i>.py"),
        env_var("K2", "a|b`<i>.py"),
        env_var("K3", "a|b`<i>.py"),
    ];
    let out = render_diff(&doc(findings), &options());
    assert_eq!(out.matches("<details><summary>3 ").count(), 2, "{out}");
    assert!(!out.contains("<script") && !out.contains("<img") && !out.contains("<i>"), "{out}");
    for row in table(&out) {
        assert_eq!(row.matches(" | ").count(), 3, "four cells: {row}");
    }
}

/// Many groups of many findings: the budget cuts a group's list before any row.
fn grouped_many() -> DiffDocument {
    let mut findings = Vec::new();
    for api in 0..30 {
        for r in 0..40 {
            let mut f = route_removed(&format!("GET /api{api}/items/{r}"));
            f.message.push_str(" Padding to make the lists long.");
            findings.push(f);
        }
    }
    for r in 0..30 {
        findings.push(route_added(&format!("GET /new{r}/x")));
    }
    doc(findings)
}

#[test]
fn a_grouped_row_counts_as_one_and_its_list_goes_before_rows_do() {
    let doc = grouped_many();
    let full = render_diff(&doc, &DiffMarkdownOptions { budget: usize::MAX, ..options() });
    assert_eq!(table(&full).len(), 60);
    let n = full.chars().count();
    let mut lists_cut = false;
    for budget in [n * 3 / 4, n / 2, n / 4, 8_000, 4_000, 2_500] {
        let out = render_diff(&doc, &DiffMarkdownOptions { budget, ..options() });
        assert!(out.chars().count() <= budget, "budget {budget}");
        let rows = table(&out);
        let listed = rows.iter().any(|r| r.contains("<details>"));
        if out.contains("in the lists of grouped findings") {
            lists_cut = true;
        }
        if rows.len() < 60 {
            // Rows went: every list went first, and the rows left out are counted as findings.
            assert!(!listed, "budget {budget}: a row went while a list stayed\n{out}");
            assert!(out.contains("more findings (") && out.contains("high"), "{out}");
        }
        // A row without its list still says how many and why.
        assert!(rows[0].contains("40 routes under <code>/api0/items</code> no longer served"));
    }
    assert!(lists_cut, "some budget cut the lists");
    let tight = render_diff(&doc, &DiffMarkdownOptions { budget: 2_500, ..options() });
    assert!(table(&tight).len() < 60, "{tight}");
    // 30 rows of 40 high findings and 30 of one low one: the rows left out count the findings.
    let shown = table(&tight).len();
    let left = format!("… {} more findings", 30 * 40 + 30 - 40 * shown);
    assert!(shown < 30 && tight.contains(&left), "{left}:\n{tight}");
}
