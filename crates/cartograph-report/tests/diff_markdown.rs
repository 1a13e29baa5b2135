//! The Markdown pull-request report: content and order, escaping of hostile names, the bounded
//! Mermaid diagram, and truncation to the comment budget.

use std::collections::BTreeMap;

use cartograph_report::diff::{
    CyclesDiffDoc, DiffDocument, DiffEdgeDoc, DiffSummaryDoc, EdgeChangeDoc, EdgeRefDoc,
    EdgesDiffDoc, FindingDoc, NodeChangeDoc, NodesDiffDoc, RefusalCountDoc, RefusalsDiffDoc,
    TreeDoc,
};
use cartograph_report::diff_markdown::{
    DEFAULT_BUDGET, DEFAULT_MARKER, DiffMarkdownOptions, GITHUB_COMMENT_LIMIT, render_diff,
    render_diff_with_blast,
};
use cartograph_report::snapshot::{EdgeClaimDoc, HandlerDoc, LocationDoc, NodeDoc, RefusalDoc};

const SEVERITIES: [&str; 4] = ["high", "medium", "low", "info"];
const FINDING_KINDS: [&str; 12] = [
    "route-removed",
    "call-to-removed-route",
    "route-added",
    "new-cross-language-call",
    "new-call",
    "new-table",
    "new-table-write",
    "new-env-var",
    "new-external-service",
    "new-package",
    "new-cycle",
    "new-component-dependency",
];

fn tree(label: &str) -> TreeDoc {
    TreeDoc {
        source: "revision".into(),
        label: label.into(),
        files_analysed: 40,
        nodes: 120,
        edges: 300,
        refusals: 12,
        coverage: None,
    }
}

fn loc(path: &str, line: u32) -> LocationDoc {
    LocationDoc { path: path.into(), line, column: 1 }
}

fn node(id: &str) -> NodeDoc {
    let (kind, name) = id.split_once(':').unwrap_or(("module", id));
    NodeDoc {
        id: id.into(),
        kind: kind.into(),
        name: name.into(),
        language: None,
        component: None,
        python_module: None,
        display_path: None,
        handler: None,
        framework: None,
    }
}

fn edge(kind: &str, from: &str, to: &str, evidence: &str, line: u32) -> DiffEdgeDoc {
    let path = from.strip_prefix("module:").unwrap_or(from);
    DiffEdgeDoc {
        claim: EdgeClaimDoc {
            kind: kind.into(),
            from: from.into(),
            to: to.into(),
            evidence: evidence.into(),
            provenance: "resolver".into(),
            confidence: "certain".into(),
            location: loc(path, line),
        },
        type_only: false,
        occurrences: 1,
    }
}

fn edge_ref(side: &str, e: &DiffEdgeDoc) -> EdgeRefDoc {
    EdgeRefDoc {
        side: side.into(),
        kind: e.claim.kind.clone(),
        from: e.claim.from.clone(),
        to: e.claim.to.clone(),
        evidence: e.claim.evidence.clone(),
        confidence: e.claim.confidence.clone(),
        location: e.claim.location.clone(),
    }
}

fn finding(
    kind: &str,
    severity: &str,
    subject: &str,
    message: &str,
    edges: Vec<EdgeRefDoc>,
) -> FindingDoc {
    FindingDoc {
        kind: kind.into(),
        severity: severity.into(),
        subject: subject.into(),
        message: message.into(),
        edges,
        covered_by: None,
        rule: None,
    }
}

/// A document's summary, counted from its contents.
fn summarise(doc: &mut DiffDocument) {
    let mut by_severity: BTreeMap<String, u64> =
        SEVERITIES.iter().map(|s| ((*s).to_owned(), 0)).collect();
    let mut by_kind: BTreeMap<String, u64> =
        FINDING_KINDS.iter().map(|k| ((*k).to_owned(), 0)).collect();
    for f in &doc.findings {
        *by_severity.entry(f.severity.clone()).or_default() += 1;
        *by_kind.entry(f.kind.clone()).or_default() += 1;
    }
    doc.summary = DiffSummaryDoc {
        findings_by_severity: by_severity,
        findings_by_kind: by_kind,
        nodes_added: doc.nodes.added.len() as u64,
        nodes_removed: doc.nodes.removed.len() as u64,
        nodes_changed: doc.nodes.changed.len() as u64,
        edges_added: doc.edges.added.len() as u64,
        edges_removed: doc.edges.removed.len() as u64,
        edges_changed: doc.edges.changed.len() as u64,
        refusals_added: doc.refusals.added.len() as u64,
        refusals_removed: doc.refusals.removed.len() as u64,
        cycles_added: doc.cycles.added.len() as u64,
        cycles_removed: doc.cycles.removed.len() as u64,
    };
}

fn empty(verdict: &str) -> DiffDocument {
    let mut doc = DiffDocument {
        schema: "diff".into(),
        schema_version: "1.1".into(),
        tool_version: "0.0.0-test".into(),
        base: tree("main (3f2a9c1)"),
        head: tree("feature (8d0e2b4)"),
        verdict: verdict.into(),
        summary: DiffSummaryDoc {
            findings_by_severity: BTreeMap::new(),
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
        findings: Vec::new(),
        nodes: NodesDiffDoc { added: Vec::new(), removed: Vec::new(), changed: Vec::new() },
        edges: EdgesDiffDoc { added: Vec::new(), removed: Vec::new(), changed: Vec::new() },
        refusals: RefusalsDiffDoc { by_kind: Vec::new(), added: Vec::new(), removed: Vec::new() },
        cycles: CyclesDiffDoc { added: Vec::new(), removed: Vec::new() },
        rules: None,
        explanations: None,
    };
    summarise(&mut doc);
    doc
}

/// A realistic change to a FastAPI backend with a TypeScript frontend: a route removed while the
/// frontend still calls it, a route moved, a new route and its client, a new table write, a new
/// environment variable, a new package, a new external service and a new import cycle.
pub fn sample() -> DiffDocument {
    let mut doc =
        empty("Breaking: removes route DELETE /api/v1/items/{} while 1 module still calls it");
    let api = "module:frontend/src/client/items.ts";
    let routes = "module:backend/app/api/routes/items.py";
    let crud = "module:backend/app/crud.py";
    let models = "module:backend/app/models.py";
    let config = "module:backend/app/core/config.py";
    let notify = "module:backend/app/notify.py";
    let utils = "module:backend/app/utils.py";

    let serves_new = edge(
        "serves",
        routes,
        "route:POST /api/v1/items/{}/archive",
        "FastAPI decorator @router.post(\"/{id}/archive\") under prefix /api/v1/items",
        88,
    );
    let calls_new = edge(
        "calls",
        api,
        "route:POST /api/v1/items/{}/archive",
        "fetch call to \"/api/v1/items/{}/archive\" with method POST matches route POST /api/v1/items/{id}/archive",
        41,
    );
    let writes_new = edge(
        "writes",
        crud,
        "table:item_archive",
        "session.add(ItemArchive(...)) writes the model mapped to table item_archive",
        57,
    );
    let defines_new = edge(
        "defines",
        models,
        "table:item_archive",
        "class ItemArchive(SQLModel, table=True) declares table item_archive",
        30,
    );
    let env_new = edge(
        "reads_env",
        config,
        "env_var:SMTP_HOST",
        "pydantic BaseSettings field smtp_host reads SMTP_HOST",
        19,
    );
    let pkg_new = edge("imports", notify, "package:pypi:emails", "import emails", 3);
    let ext_new = edge(
        "calls",
        notify,
        "external:https://api.sendgrid.com",
        "httpx.post to \"https://api.sendgrid.com/v3/mail/send\" matches no local route",
        25,
    );
    let cyc1 = edge("imports", crud, utils, "from app.utils import slugify", 5);
    let cyc2 = edge("imports", utils, crud, "from app.crud import get_item", 7);
    let serves_old = edge(
        "serves",
        routes,
        "route:DELETE /api/v1/items/{}",
        "FastAPI decorator @router.delete(\"/{id}\") under prefix /api/v1/items",
        120,
    );
    let calls_old = edge(
        "calls",
        api,
        "route:DELETE /api/v1/items/{}",
        "fetch call to \"/api/v1/items/{}\" with method DELETE matches route DELETE /api/v1/items/{id}",
        63,
    );
    let mut changed_before = edge(
        "calls",
        api,
        "route:GET /api/v1/items/{}",
        "axios.get(`/api/v1/items/${id}`) matches route GET /api/v1/items/{id}",
        20,
    );
    changed_before.claim.confidence = "likely".into();
    let mut changed_after = changed_before.clone();
    changed_after.claim.confidence = "certain".into();

    doc.edges.added = vec![
        calls_new.clone(),
        ext_new.clone(),
        edge("imports", crud, models, "from app.models import ItemArchive", 4),
        cyc1.clone(),
        defines_new.clone(),
        pkg_new.clone(),
        env_new.clone(),
        edge("imports", notify, config, "from app.core.config import settings", 2),
        cyc2.clone(),
        serves_new.clone(),
        writes_new.clone(),
    ];
    doc.edges.removed = vec![serves_old.clone()];
    doc.edges.changed = vec![EdgeChangeDoc {
        kind: "calls".into(),
        from: api.into(),
        to: "route:GET /api/v1/items/{}".into(),
        changed: vec!["confidence".into()],
        before: changed_before,
        after: changed_after,
    }];
    let mut notify_node = node(notify);
    notify_node.component = Some("backend/app".into());
    notify_node.language = Some("python".into());
    let mut archive_route = node("route:POST /api/v1/items/{}/archive");
    archive_route.handler = Some(HandlerDoc {
        module: "backend/app/api/routes/items.py".into(),
        function: Some("archive_item".into()),
    });
    doc.nodes.added = vec![
        notify_node,
        node("route:POST /api/v1/items/{}/archive"),
        node("table:item_archive"),
        node("env_var:SMTP_HOST"),
        node("package:pypi:emails"),
        node("external:https://api.sendgrid.com"),
    ];
    doc.nodes.added[1] = archive_route;
    doc.nodes.removed = vec![node("route:DELETE /api/v1/items/{}")];
    let mut before = node("route:GET /api/v1/items/{}");
    before.handler = Some(HandlerDoc {
        module: "backend/app/api/routes/items.py".into(),
        function: Some("read_item".into()),
    });
    let mut after = before.clone();
    after.handler = Some(HandlerDoc {
        module: "backend/app/api/routes/item_read.py".into(),
        function: Some("read_item".into()),
    });
    doc.nodes.changed = vec![NodeChangeDoc {
        id: before.id.clone(),
        kind: "route".into(),
        moved: true,
        before,
        after,
    }];
    doc.cycles.added = vec![vec![crud.into(), utils.into()]];
    doc.refusals.by_kind = vec![
        RefusalCountDoc { kind: "computed-url".into(), base: 3, head: 4 },
        RefusalCountDoc { kind: "unresolved-import".into(), base: 9, head: 8 },
    ];
    doc.refusals.added = vec![RefusalDoc {
        kind: "computed-url".into(),
        location: loc("backend/app/notify.py", 31),
        reason: "the URL passed to httpx.post is computed at run time".into(),
    }];
    doc.refusals.removed = vec![RefusalDoc {
        kind: "unresolved-import".into(),
        location: loc("backend/app/legacy.py", 2),
        reason: "import of app.old_settings resolves to no module in the tree".into(),
    }];
    doc.findings = vec![
        finding(
            "route-removed",
            "high",
            "route:DELETE /api/v1/items/{}",
            "Route DELETE /api/v1/items/{id} is gone; it was served by backend/app/api/routes/items.py.",
            vec![edge_ref("base", &serves_old)],
        ),
        finding(
            "call-to-removed-route",
            "high",
            "module:frontend/src/client/items.ts",
            "frontend/src/client/items.ts still calls DELETE /api/v1/items/{}, which no longer exists.",
            vec![edge_ref("base", &calls_old)],
        ),
        finding(
            "new-table-write",
            "medium",
            "table:item_archive",
            "backend/app/crud.py now writes table item_archive.",
            vec![edge_ref("head", &writes_new)],
        ),
        finding(
            "new-cycle",
            "medium",
            "module:backend/app/crud.py",
            "New import cycle of 2 modules: backend/app/crud.py, backend/app/utils.py.",
            vec![edge_ref("head", &cyc1), edge_ref("head", &cyc2)],
        ),
        finding(
            "new-cross-language-call",
            "medium",
            "route:POST /api/v1/items/{}/archive",
            "frontend/src/client/items.ts (typescript) calls POST /api/v1/items/{}/archive served by python.",
            vec![edge_ref("head", &calls_new), edge_ref("head", &serves_new)],
        ),
        finding(
            "new-external-service",
            "low",
            "external:https://api.sendgrid.com",
            "backend/app/notify.py calls https://api.sendgrid.com.",
            vec![edge_ref("head", &ext_new)],
        ),
        finding(
            "new-env-var",
            "low",
            "env_var:SMTP_HOST",
            "backend/app/core/config.py reads SMTP_HOST.",
            vec![edge_ref("head", &env_new)],
        ),
        finding(
            "new-table",
            "low",
            "table:item_archive",
            "Table item_archive is new, declared in backend/app/models.py.",
            vec![edge_ref("head", &defines_new)],
        ),
        finding(
            "route-added",
            "info",
            "route:POST /api/v1/items/{}/archive",
            "Route POST /api/v1/items/{id}/archive is new.",
            vec![edge_ref("head", &serves_new)],
        ),
        finding(
            "new-package",
            "info",
            "package:pypi:emails",
            "pypi:emails is imported for the first time.",
            vec![edge_ref("head", &pkg_new)],
        ),
    ];
    summarise(&mut doc);
    doc
}

/// A document far past any comment: 20,000 added edges and 3,000 findings.
fn huge() -> DiffDocument {
    let mut doc = empty("Large change: 3,000 findings");
    for i in 0..20_000 {
        let from = format!("module:pkg{}/mod{i}.py", i % 40);
        let to = if i % 5 == 0 {
            format!("route:GET /r/{i}")
        } else {
            format!("module:pkg{}/mod{}.py", (i + 1) % 40, i + 1)
        };
        let kind = if i % 5 == 0 { "calls" } else { "imports" };
        doc.edges.added.push(edge(kind, &from, &to, &format!("evidence sentence number {i}"), 3));
    }
    for i in 0..3_000 {
        let e = &doc.edges.added[i * 5];
        doc.findings.push(finding(
            "new-cross-language-call",
            SEVERITIES[i * 4 / 3_000],
            &e.claim.to,
            &format!("A new call number {i} across languages."),
            vec![edge_ref("head", e), edge_ref("head", &doc.edges.added[i * 5 + 1])],
        ));
    }
    doc.nodes.added = (0..2_000).map(|i| node(&format!("module:pkg/new{i}.py"))).collect();
    doc.cycles.added =
        (0..500).map(|i| vec![format!("module:c/{i}a.py"), format!("module:c/{i}b.py")]).collect();
    summarise(&mut doc);
    doc
}

fn options() -> DiffMarkdownOptions {
    DiffMarkdownOptions::default()
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The fenced Mermaid block of a report.
fn mermaid_block(report: &str) -> &str {
    let start = report.find("```mermaid\n").map_or(0, |i| i + "```mermaid\n".len());
    let end = report[start..].find("```").map_or(report.len(), |i| start + i);
    &report[start..end]
}

#[test]
fn default_options_leave_headroom_under_the_comment_limit() {
    let o = DiffMarkdownOptions::default();
    assert_eq!(o.budget, DEFAULT_BUDGET);
    assert!(o.budget < GITHUB_COMMENT_LIMIT);
    assert!(o.diagram_max_edges <= 100 && o.diagram_max_nodes <= 100);
}

#[test]
fn a_small_document_is_complete_and_in_order() {
    let doc = sample();
    let out = render_diff(&doc, &options());
    assert!(!out.contains("left out"), "{out}");
    assert!(!out.contains("Shortened"), "{out}");
    let first = out.lines().next().unwrap_or_default();
    assert!(first.starts_with("### 🔴 Breaking: removes route"), "{first}");
    // Both trees and the counts.
    assert!(out.contains("<code>main&nbsp;(3f2a9c1)</code> → <code>feature&nbsp;(8d0e2b4)</code>"));
    assert!(out.contains("**10 findings** (2 high, 3 medium, 3 low, 2 info)"));
    // The order of the parts.
    let at = |needle: &str| out.find(needle).unwrap_or_else(|| panic!("no {needle:?} in\n{out}"));
    let order = [
        "| # | severity |",
        "<b>Evidence</b>",
        "<b>Routes</b>",
        "<b>Calls</b>",
        "<b>Tables</b>",
        "<b>Environment variables</b>",
        "<b>Third-party packages</b>",
        "<b>Import cycles</b>",
        "<b>Modules and imports</b>",
        "```mermaid",
        "<b>Refusals</b>",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{} before {}", pair[0], pair[1]);
    }
    // Every finding is a row, in the document's order, with its human label.
    for (i, f) in doc.findings.iter().enumerate() {
        assert!(out.contains(&format!("| {} | ", i + 1)), "finding {i}: {}", f.kind);
    }
    assert!(at("call to removed route") < at("new table write"));
    // Every changed edge is listed with its evidence, confidence and place.
    for e in doc.edges.added.iter().chain(&doc.edges.removed) {
        let line = format!("line {}", e.claim.location.line);
        assert!(
            out.lines().any(|l| l.contains(&line) && l.contains("certain")),
            "{}",
            e.claim.evidence
        );
    }
    assert!(out.contains("confidence was likely"));
    assert!(out.contains("in base"));
    // The moved route names both handlers.
    assert!(out.contains("item&#95;read.py"));
    // Refusal counts with deltas.
    assert!(out.contains("| <code>computed-url</code> | 3 | 4 | +1 |"));
    assert!(out.contains("| <code>unresolved-import</code> | 9 | 8 | −1 |"));
    assert!(chars(&out) < 20_000);
    // No blast section unless one is given.
    assert!(!out.contains("Blast radius"));
}

#[test]
fn output_is_deterministic() {
    let doc = sample();
    assert_eq!(render_diff(&doc, &options()), render_diff(&doc, &options()));
    let big = huge();
    assert_eq!(render_diff(&big, &options()), render_diff(&big, &options()));
}

#[test]
fn the_marker_comes_first_and_counts_toward_the_budget() {
    let o = DiffMarkdownOptions { marker: Some(DEFAULT_MARKER.into()), ..options() };
    let out = render_diff(&sample(), &o);
    assert!(out.starts_with("<!-- cartograph-report -->\n### "));
    let tight = DiffMarkdownOptions { budget: 3_000, ..o };
    let out = render_diff(&huge(), &tight);
    assert!(out.starts_with("<!-- cartograph-report -->\n"));
    assert!(chars(&out) <= 3_000, "{}", chars(&out));
}

#[test]
fn an_empty_diff_says_so() {
    let out = render_diff(&empty("No architectural change"), &options());
    assert!(out.starts_with("### ✅ No architectural change\n"));
    assert!(out.contains("No findings"));
    assert!(!out.contains("```mermaid"));
    assert!(!out.contains("<details"));
}

#[test]
fn a_huge_document_fits_and_says_what_was_left_out() {
    let doc = huge();
    let out = render_diff(&doc, &options());
    assert!(chars(&out) <= DEFAULT_BUDGET, "{} chars", chars(&out));
    assert!(out.starts_with("### 🔴 Large change"));
    assert!(
        out.contains("> ✂️ **Shortened to fit one GitHub comment.** Left out: "),
        "{}",
        &out[..600]
    );
    assert!(out.contains("| # | severity | finding | what changed |"));
    // The high findings come first; the rest are counted, not dropped silently.
    assert!(out.contains("| 1 | 🔴&nbsp;high |"));
    assert!(out.contains("more findings ("));
    assert!(out.contains(
        "changes are left out to fit one GitHub comment; the JSON report lists every one."
    ));
    // Section counts stay even when their lists go.
    assert!(out.contains("<b>Import cycles</b> · 500 new"));
    assert!(out.contains("<b>Modules and imports</b> · 2,000 files added · 16,000 imports added"));
    // Uses the budget rather than throwing most of it away.
    assert!(chars(&out) > DEFAULT_BUDGET / 2, "{} chars", chars(&out));

    let bigger = DiffMarkdownOptions { budget: GITHUB_COMMENT_LIMIT, ..options() };
    assert!(chars(&render_diff(&doc, &bigger)) <= GITHUB_COMMENT_LIMIT);
}

#[test]
fn cuts_go_in_priority_order() {
    let doc = sample();
    let full = render_diff(&doc, &options());
    let n = chars(&full);
    // A little short: the diagram shrinks to the findings' first edges, then lists shrink; the
    // findings, their evidence and a diagram of their edges stay.
    let out = render_diff(&doc, &DiffMarkdownOptions { budget: n - 200, ..options() });
    assert!(chars(&out) <= n - 200);
    assert!(out.contains("<b>Evidence</b>"));
    assert!(out.contains("```mermaid"), "{out}");
    assert!(out.contains("behind the findings"), "{out}");
    // Much shorter: lists go, the findings table stays whole.
    let out = render_diff(&doc, &DiffMarkdownOptions { budget: n / 2, ..options() });
    assert!(chars(&out) <= n / 2);
    for i in 1..=doc.findings.len() {
        assert!(out.contains(&format!("| {i} | ")), "finding {i} missing:\n{out}");
    }
    assert!(out.contains("listed change"));
    // Tiny budgets still hold, with the verdict first.
    for budget in [1_500, 600, 200, 40] {
        let out = render_diff(&doc, &DiffMarkdownOptions { budget, ..options() });
        assert!(chars(&out) <= budget, "budget {budget}: {} chars", chars(&out));
    }
    let out = render_diff(&doc, &DiffMarkdownOptions { budget: 1_500, ..options() });
    assert!(out.starts_with("### 🔴 Breaking"));
    assert!(out.contains("| # | severity |"), "{out}");
}

#[test]
fn hostile_names_cannot_break_tables_or_inject_html() {
    let mut doc = sample();
    let evil = "module:src/a|b`c<script>alert(1)</script>_*x*_[l](http://e)\n| 9 |.py";
    doc.findings[0].subject = evil.into();
    doc.findings[0].message =
        "oops | <img src=x onerror=alert(1)> `code` **bold** @octocat #12".into();
    doc.edges.added[0].claim.from = evil.into();
    doc.edges.added[0].claim.evidence = "evidence with | pipe and <b>tag</b> and ``` fence".into();
    doc.refusals.by_kind[0].kind = "kind|with|pipes".into();
    doc.base.label = "x` <i>y</i>".into();
    doc.verdict = "Verdict <script>x</script> | pipe".into();
    let out = render_diff(&doc, &options());
    assert!(!out.contains("<script"), "{out}");
    assert!(!out.contains("<img"), "{out}");
    assert!(!out.contains("<i>y"), "{out}");
    assert!(!out.contains("```\n```") && out.matches("```").count() == 2, "one fence pair only");
    // Every table row keeps its column count.
    for line in out.lines().filter(|l| l.starts_with("| ")) {
        let cells = line.matches('|').count();
        assert!(cells == 6 || cells == 5, "{cells} pipes in {line:?}");
    }
    // A mention inside a message notifies no one: it is code.
    assert!(out.contains("<code>@octocat</code>") && out.contains("<code>#12</code>"));
    // Entities, not raw characters.
    assert!(out.contains("a&#124;b&#96;c&lt;script&gt;"));
}

#[test]
fn the_diagram_is_bounded_escaped_and_styled() {
    let doc = sample();
    let out = render_diff(&doc, &options());
    let m = mermaid_block(&out);
    assert!(m.starts_with("flowchart LR\n"));
    // Route labels have their braces escaped; node ids are sanitised.
    assert!(m.contains("([\"DELETE /api/v1/items/#123;#125;\"])"), "{m}");
    for line in m.lines().skip(1) {
        let line = line.trim_start();
        let ok = line.starts_with('n')
            || line.starts_with("subgraph g")
            || line == "end"
            || line.starts_with("classDef ")
            || line.starts_with("class n")
            || line.starts_with("linkStyle ");
        assert!(ok, "{line}");
    }
    assert!(m.contains(" -.->|serves| "), "removed edges are dashed:\n{m}");
    assert!(m.contains(" -->|calls| "));
    assert!(m.contains(" ==>|calls| "));
    assert!(m.contains("classDef removed") && m.contains("classDef added"));
    // Modules are grouped by component when there are several groups.
    assert!(
        m.contains("subgraph g0[\"backend\"]") || m.contains("subgraph g0[\"backend/app\"]"),
        "{m}"
    );

    // Many edges: bounded, and the cut is stated.
    let big = huge();
    let o = DiffMarkdownOptions { budget: usize::MAX, ..options() };
    let out = render_diff(&big, &o);
    let m = mermaid_block(&out);
    let edges =
        m.lines().filter(|l| l.contains("-->") || l.contains("-.->") || l.contains("==>")).count();
    assert!(edges <= 60, "{edges}");
    let nodes = m.lines().filter(|l| l.trim_start().starts_with('n') && !l.contains("-")).count();
    assert!(nodes <= 80, "{nodes}");
    assert!(m.chars().count() < 50_000);
    assert!(out.contains("behind the findings") && out.contains("more not drawn"), "{out}");
}

#[test]
fn blast_section_is_an_extension_point() {
    let doc = sample();
    let body = "- <code>backend/app/main.py</code> imports a changed file (depth 1)\n".repeat(3);
    let out = render_diff_with_blast(&doc, &options(), Some(&body));
    assert!(out.contains("<b>Blast radius</b>"));
    assert!(out.find("<b>Blast radius</b>") < out.find("```mermaid"));
    let long = "- a dependent module\n".repeat(20_000);
    let out = render_diff_with_blast(&doc, &options(), Some(&long));
    assert!(chars(&out) <= DEFAULT_BUDGET);
    assert!(out.contains("line") && out.contains("of the blast radius"));
}

/// The sample's report, kept beside the tests as an insta snapshot
/// (`tests/diff_markdown/sample.snap.md`, byte for byte), so a change to the layout shows in
/// review and there is a realistic page to render.
#[test]
fn sample_report_is_unchanged() {
    let out = render_diff(
        &sample(),
        &DiffMarkdownOptions { marker: Some(DEFAULT_MARKER.into()), ..options() },
    );
    insta::with_settings!({
        snapshot_path => "diff_markdown",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_binary_snapshot!("sample.md", out.into_bytes());
    });
}

#[test]
fn routes_whose_mount_was_not_followed_are_told_in_plain_words() {
    let mut doc = sample();
    for line in [109, 163] {
        doc.refusals.added.push(RefusalDoc {
            kind: "unresolved-mount".into(),
            location: loc("backend/app/api/store.py", line),
            reason: "FastAPI route /store of get_store: Cartograph could not find the app that \
                     includes store_router, so the route's full path is unknown"
                .into(),
        });
    }
    summarise(&mut doc);
    let out = render_diff(&doc, &options());
    assert!(out.contains("<b>Routes</b> · 2 new mounts not followed · 1 new route ·"), "{out}");
    assert!(
        out.contains(
            "⚠️ Cartograph could not tell where 2 new routers or routes are mounted, so their full \
             paths are unknown and they are not listed here. They are the \
             <code>unresolved-mount</code> refusals under **Refusals**.\n"
        ),
        "{out}"
    );
    assert!(!out.contains("unresolved mount"), "{out}");
}

/// The sample with an Airflow-like finding: a table newly written from a file deep in a tree.
fn with_deep_paths() -> DiffDocument {
    let mut doc = sample();
    let deep = "module:src/airflow/api_fastapi/core_api/routes/public/connections.py";
    let write = edge(
        "writes",
        deep,
        "table:connection",
        "session.add on Connection writes table connection",
        220,
    );
    doc.edges.added.push(write.clone());
    // A second `public/connections.py` elsewhere: the short name must tell them apart.
    let other = "module:src/airflow/api_fastapi/core_api/services/public/connections.py";
    doc.edges.added.push(edge("imports", other, deep, "import of connections", 3));
    doc.findings.insert(
        2,
        finding(
            "new-table-write",
            "medium",
            "table:connection",
            "src/airflow/api_fastapi/core_api/routes/public/connections.py newly writes table \
             connection.",
            vec![edge_ref("head", &write)],
        ),
    );
    summarise(&mut doc);
    doc
}

/// The findings table: from its header to the first blank line.
fn findings_rows(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("| # | severity"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect()
}

/// The longest run of characters a browser cannot break inside a table row: tags other than
/// `<wbr>` removed, each character reference counted as one character, `&nbsp;` joining words.
fn longest_unbreakable(row: &str) -> usize {
    let mut plain = String::new();
    let mut rest = row.replace("<wbr>", " ").replace("&nbsp;", "_");
    while let Some(start) = rest.find('<') {
        plain.push_str(&rest[..start]);
        let end = rest[start..].find('>').map_or(rest.len(), |i| start + i + 1);
        rest = rest[end..].to_owned();
    }
    plain.push_str(&rest);
    let mut words = String::new();
    let mut chars = plain.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '&' && chars.peek().is_some_and(|c| *c == '#') {
            for d in chars.by_ref() {
                if d == ';' {
                    break;
                }
            }
            words.push('x');
        } else {
            words.push(c);
        }
    }
    words.split(' ').map(|w| w.chars().count()).max().unwrap_or(0)
}

#[test]
fn the_findings_table_is_narrow_and_names_each_thing_once() {
    let doc = with_deep_paths();
    let out = render_diff(&doc, &options());
    assert!(out.contains("| # | severity | finding | what changed |\n|---:|---|---|---|\n"));
    let rows = findings_rows(&out);
    assert_eq!(rows.len(), doc.findings.len(), "{out}");
    for row in &rows {
        assert_eq!(row.matches(" | ").count(), 3, "four cells: {row}");
        assert!(longest_unbreakable(row) <= 48, "{} in {row}", longest_unbreakable(row));
    }
    // The subject is set as code where the message names it, not repeated in a column of its
    // own; the deep path keeps its first folder and, to tell it from `services/public/…`, the
    // folder that differs.
    assert_eq!(
        rows[2],
        "| 3 | 🟠&nbsp;medium | new table write | <code>src/…/routes/public/connections.py</code> \
         newly writes table <code>connection</code>. |"
    );
    // A subject the message does not name (this one names the route with its parameter
    // names) comes first.
    assert_eq!(
        rows[0],
        "| 1 | 🔴&nbsp;high | route removed | <code>DELETE&nbsp;/api/v1/items/{}</code>: Route \
         DELETE /api/v1/items/{id} is gone; it was served by \
         <code>backend/app/api/routes/items.py</code>. |"
    );
    assert!(
        rows[1].contains(
            "| <code>frontend/src/client/items.ts</code> still calls DELETE /api/v1/items/{}, \
             which no longer exists. |"
        ),
        "{}",
        rows[1]
    );
    assert!(
        rows[6].ends_with(
            "| new external service | <code>backend/app/notify.py</code> calls \
             <code>https&#58;//api.sendgrid.com</code>. |"
        ),
        "{}",
        rows[6]
    );
    // The note says how paths were shortened, and the evidence names the path in full.
    assert!(out.contains(
        "<sub>Paths in the table are shortened: … stands for folders left out. The evidence and \
         the JSON report name every file in full.</sub>"
    ));
    assert!(out.contains(
        "- <code>src/airflow/api&#95;fastapi/core&#95;api/routes/public/connections.py</code> \
         <b>writes</b> <code>connection</code>"
    ));
    // Without long paths there is no note.
    assert!(!render_diff(&sample(), &options()).contains("Paths in the table are shortened"));
}

#[test]
fn a_long_route_may_wrap_in_the_table() {
    let mut doc = sample();
    let long = "route:PATCH /api/v2/dags/{}/dagRuns/{}/taskInstances/{}/state-store/{*}";
    doc.findings[4].subject = long.into();
    doc.findings[4].message = format!("Route {} is new.", &long[6..]);
    let out = render_diff(&doc, &options());
    let rows = findings_rows(&out);
    assert!(
        rows[4].contains(
            "Route <code>PATCH /<wbr>api/<wbr>v2/<wbr>dags/<wbr>{}/<wbr>dagRuns/<wbr>{}/<wbr>\
             taskInstances/<wbr>{}/<wbr>state-store/<wbr>{&#42;}</code> is new."
        ),
        "{}",
        rows[4]
    );
    assert!(longest_unbreakable(rows[4]) <= 48);
    // The evidence title keeps the route whole.
    assert!(out.contains(
        "**5. new cross-language call** <code>PATCH /api/v2/dags/{}/dagRuns/{}/taskInstances/{}/\
         state-store/{&#42;}</code>"
    ));
}

#[test]
fn every_finding_keeps_its_evidence_longer_than_the_lists_of_changes() {
    let doc = sample();
    let full = chars(&render_diff(&doc, &options()));
    // Low and info findings have their evidence in the full report.
    let out = render_diff(&doc, &options());
    for title in ["**6. new external service**", "**7. new env var**", "**8. new table**"] {
        let at = out.find(title).unwrap_or_else(|| panic!("no {title} in\n{out}"));
        assert!(out[at..].lines().nth(1).is_some_and(|l| l.starts_with("- <code>")), "{title}");
    }
    assert!(out.contains("**10. new package** <code>pypi:emails</code>\n- <code>backend/app/notify.py</code> <b>imports</b>"));
    // Under any budget: while a list of changes is shown, every finding shows an edge.
    let mut lost_lists = false;
    for budget in (1_500..full).rev().step_by(50) {
        let out = render_diff(&doc, &DiffMarkdownOptions { budget, ..options() });
        assert!(chars(&out) <= budget);
        let lists = out.lines().any(|l| {
            l.starts_with("**")
                && !l[2..].starts_with(|c: char| c.is_ascii_digit())
                && l.ends_with(')')
        });
        let low_evidence = out.contains("**6. new external service**")
            && out.contains("**7. new env var**")
            && out.contains("**8. new table**");
        if lists {
            assert!(low_evidence, "budget {budget}: lists shown but low evidence cut:\n{out}");
        } else {
            lost_lists = true;
        }
        // Left out with their rows, or cut and said so.
        if !low_evidence && out.contains("| 8 | 🟡&nbsp;low |") {
            assert!(out.contains("evidence edge"), "budget {budget}: the cut is not stated\n{out}");
        }
    }
    assert!(lost_lists, "some budget cut the lists");
}
