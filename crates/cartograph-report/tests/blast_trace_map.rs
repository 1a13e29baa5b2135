//! The `blast`, `trace` and `map` documents of the `fullstack` fixture: each validates against its
//! schema, is written identically twice, and says what the graph says across languages.

use std::path::Path;
use std::sync::OnceLock;

use cartograph_graph::{
    Analysis, BlastOptions, MapOptions, TraceOptions, blast, map, resolve_target, trace,
};
use cartograph_pipeline::analyse_tree;
use cartograph_report::blast::{BlastDocument, render_blast, render_blast_section};
use cartograph_report::coverage::CoverageDoc;
use cartograph_report::map::{MapDocument, render_map};
use cartograph_report::trace::{TraceDocument, render_trace};
use cartograph_report::{schema, to_json};

fn fullstack() -> &'static Analysis {
    static ANALYSIS: OnceLock<Analysis> = OnceLock::new();
    ANALYSIS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fullstack");
        analyse_tree(&root, &Default::default()).expect("the fixture analyses")
    })
}

fn validated<T: serde::Serialize>(doc: &T) -> String {
    let text = to_json(doc);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    if let Err(e) = schema::validate(&value) {
        panic!("{e}");
    }
    text
}

// The blast of `backend/app/api/routes/items.py` in the full-stack fixture, derived by hand from
// its sources and EXPECTED.md (`## Routes`, `## Calls`) with the rules of `cartograph_graph::blast`
// (importers, callers, and the routes an affected module serves, breadth-first). Components are
// the default `roots:2`: the package root (`backend`, `bff`, `frontend`, `services/notify`) plus
// two folder levels; a route's component is its handler module's.
//
// depth 1 (7): items.py serves its 6 routes (EXPECTED.md, items.py L25-L97: GET and POST
//   /api/v1/items, GET, PUT and DELETE /api/v1/items/{}, GET /api/v1/items/{}/tracking), and
//   backend/app/api/main.py imports items (L6-9).
// depth 2 (5): backend/app/main.py imports api.main; the callers of the item routes:
//   frontend/src/client/services/ItemsService.ts (the generated client), bff/src/routes/orders.ts,
//   frontend/src/features/items/ItemsPage.tsx and services/notify/notify/backend_api.py.
// depth 3 (8): GET / (served by backend/app/main.py); GET /bff/orders, GET /bff/orders/{} and
//   POST /bff/orders (served by orders.ts); bff/src/server.ts (imports orders.ts),
//   frontend/src/client/index.ts (re-exports ItemsService), frontend/src/router.tsx (imports
//   ItemsPage), services/notify/notify/hooks.py (imports backend_api).
// depth 4 (10): GET /healthz (server.ts), POST /v1/hooks/shipment and POST
//   /v1/hooks/carrier/{} (hooks.py); importers of client/index.ts: features/admin/ReportsPage.tsx,
//   features/auth/session.ts, features/users/updateProfile.ts, features/users/useCurrentUser.ts,
//   src/main.tsx; features/orders/useOrders.ts (calls GET /bff/orders); notify/app.py (imports
//   hooks).
// depth 5 (9): GET /status (notify/app.py); backend/app/notifier.py (calls POST
//   /v1/hooks/shipment); components/NavBar.tsx and features/auth/LoginPage.tsx (import session);
//   features/orders/CreateOrderForm.tsx, OrderDetail.tsx, OrdersPage.tsx (import useOrders);
//   features/users/ProfilePage.tsx (imports updateProfile); services/notify/wsgi.py (imports app).
// Nothing lies at depth 6, so the default bounds (depth 6, 500 nodes) cut nothing.
//
// Total 7 + 5 + 8 + 10 + 9 = 39 nodes: 14 routes (6 + 1 + 3 + 1 + 2 + 1) and 25 modules, in 10
// components: backend/app/api (api/main.py and the 6 item routes: 7, 6 of them routes),
// backend/app, bff/src/routes (orders.ts and its 3 routes: 4), bff/src, frontend/src/client,
// frontend/src/features (11 modules: ItemsPage, ReportsPage, session, updateProfile,
// useCurrentUser, useOrders, LoginPage, CreateOrderForm, OrderDetail, OrdersPage, ProfilePage),
// frontend/src, frontend/src/components, services/notify/notify, services/notify.
fn items_blast(options: &BlastOptions) -> BlastDocument {
    let analysis = fullstack();
    let targets = resolve_target(analysis.view(), "backend/app/api/routes/items.py").unwrap();
    BlastDocument::from_blast(&blast(analysis.view(), &targets, options))
}

#[test]
fn blast_of_the_fastapi_items_handler_reaches_the_react_client() {
    let doc = items_blast(&BlastOptions::default());
    let text = validated(&doc);
    assert_eq!(text, validated(&items_blast(&BlastOptions::default())), "deterministic");
    let ids: Vec<&str> = doc.affected.iter().map(|a| a.id.as_str()).collect();
    assert!(ids.contains(&"route:GET /api/v1/items/{}"), "{ids:?}");
    let client = doc
        .affected
        .iter()
        .find(|a| a.id == "module:frontend/src/client/services/ItemsService.ts")
        .expect("the generated client calls the items routes");
    // items.py serves the item routes; the generated client calls them: two edges.
    assert_eq!(client.depth, 2);
    let kinds: Vec<&str> = client.path.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["serves", "calls"]);
    assert!(ids.contains(&"module:bff/src/routes/orders.ts"), "the BFF calls the items routes too");
    // Ranked: depth never decreases.
    assert!(doc.affected.windows(2).all(|w| w[0].depth <= w[1].depth));
    assert!(!doc.truncation.truncated);

    let markdown = render_blast(&doc);
    assert!(markdown.starts_with("# Blast radius\n"));
    assert!(markdown.contains("`module:frontend/src/client/services/ItemsService.ts`"));
    assert!(!markdown.contains(env!("CARGO_MANIFEST_DIR")));
}

#[test]
fn blast_bounds_are_stated_in_json_and_markdown() {
    let doc = items_blast(&BlastOptions { max_depth: 1, max_nodes: 3 });
    validated(&doc);
    assert!(doc.truncation.truncated);
    assert_eq!(doc.affected.len(), 3);
    // Of the 39 nodes reached (derived above `items_blast`), 7 are within one edge and 32
    // beyond it; of those 7, the node limit shows 3 and counts 4.
    assert_eq!(doc.truncation.reachable, 39);
    assert_eq!((doc.truncation.beyond_depth, doc.truncation.beyond_node_limit), (32, 4));
    assert_eq!(
        doc.truncation.reachable,
        doc.truncation.shown + doc.truncation.beyond_depth + doc.truncation.beyond_node_limit
    );
    assert!(render_blast(&doc).contains("Truncated: "));
}

#[test]
fn the_blast_section_fits_its_budget() {
    let doc = items_blast(&BlastOptions::default());
    for max in [0, 40, 200, 600, 1500, 5000, 100_000] {
        let section = render_blast_section(&doc, max);
        assert!(section.len() <= max, "{max}: {} chars", section.len());
        // A body for the host's own collapsible section: no heading, no block of its own.
        assert!(!section.lines().any(|l| l.starts_with('#')));
        assert!(!section.contains("<details>"));
    }
    // The counts are derived above `items_blast`: 39 nodes, 25 modules and 14 routes, 10
    // components; the rows are ranked by nodes reached.
    let full = render_blast_section(&doc, 100_000);
    assert!(full.starts_with(
        "1 target reaches **39 nodes**: 25 modules and 14 routes in 10 components.\n"
    ));
    // Components ranked by nodes reached, each with the chain to its nearest node (a route when
    // one is that near).
    assert!(full.contains(
        "| component | reached | nearest, and why |\n|---|---:|---|\n| \
         <code>frontend/src/features</code> | 11 | "
    ));
    assert!(full.contains(
        "| <code>backend/app/api</code> | 7 (6 routes) | <code>backend/app/api/routes/items.py</code> \
         —serves→ <code>DELETE&nbsp;/api/v1/items/{}</code> |"
    ));
    assert!(full.contains(
        "| <code>bff/src/routes</code> | 4 (3 routes) | <code>backend/app/api/routes/items.py</code> \
         —serves→ <code>GET&nbsp;/api/v1/items</code> ←calls— <code>bff/src/routes/orders.ts</code> |"
    ));
    assert!(full.contains(
        "**Routes reached** (14), nearest first: <code>DELETE&nbsp;/api/v1/items/{}</code>, "
    ));
    // The section names at most 8 routes (`MAX_ROUTES` of the renderer): 14 - 8 = 6 more.
    assert!(full.contains("and 6 more."));
    // It has room for 10 component rows (`MAX_COMPONENTS`): all 10 are rows.
    assert!(!full.contains("components reached too"), "all 10 components are rows");
    // Short of room, rows go from the bottom and the rest are counted: at 900 characters the
    // two largest rows stay (frontend/src/features, 11; backend/app/api, 7), and the other
    // 10 - 2 = 8 components hold 39 - 11 - 7 = 21 nodes.
    let small = render_blast_section(&doc, 900);
    assert!(small.contains("| <code>backend/app/api</code> | 7 (6 routes) |"), "{small}");
    assert!(small.contains("\n… 8 components reached too (21 nodes).\n"), "{small}");
    assert!(full.len() > small.len());
    assert_eq!(full, render_blast_section(&items_blast(&BlastOptions::default()), 100_000));
}

#[test]
fn trace_from_the_react_client_to_the_item_table() {
    let analysis = fullstack();
    let view = analysis.view();
    let from = resolve_target(view, "frontend/src/client/services/ItemsService.ts").unwrap();
    let run = |to: Option<&[cartograph_core::NodeKey]>| {
        TraceDocument::from_trace(&trace(view, &from, to, &TraceOptions::default()))
    };
    let all = run(None);
    let text = validated(&all);
    assert_eq!(text, validated(&run(None)), "deterministic");
    assert!(!all.paths.is_empty());

    let tables: Vec<_> = view
        .nodes
        .iter()
        .filter(|n| n.key.kind() == cartograph_core::NodeKind::Table)
        .map(|n| n.key.clone())
        .collect();
    let to_tables = run(Some(&tables));
    validated(&to_tables);
    assert!(!to_tables.paths.is_empty(), "the client's calls reach a table");
    for path in &to_tables.paths {
        assert!(path.to.starts_with("table:"), "{}", path.to);
        assert_eq!(path.hops[0].kind, "calls");
        assert_eq!(path.hops[1].kind, "serves");
        assert_eq!(path.hops[1].walked, "backward");
    }
    let markdown = render_trace(&to_tables);
    assert!(markdown.starts_with("# Trace\n"));
    assert!(markdown.contains("## Path 1:"));
}

#[test]
fn trace_backward_from_a_table() {
    let analysis = fullstack();
    let view = analysis.view();
    let Some(table) = view.nodes.iter().find(|n| n.key.kind() == cartograph_core::NodeKind::Table)
    else {
        panic!("the fixture has tables");
    };
    let doc = TraceDocument::from_trace(&trace(
        view,
        std::slice::from_ref(&table.key),
        None,
        &TraceOptions { max_paths: 5, ..TraceOptions::default() },
    ));
    validated(&doc);
    assert!(doc.paths.iter().all(|p| p.direction == "backward"));
    assert!(render_trace(&doc).contains("walked backward"));
}

#[test]
fn map_of_the_fixture_and_its_truncation() {
    let analysis = fullstack();
    let doc = MapDocument::from_map(
        &map(analysis.view(), &MapOptions::default()),
        CoverageDoc::from_analysis(analysis),
    );
    let text = validated(&doc);
    assert_eq!(
        text,
        validated(&MapDocument::from_map(
            &map(analysis.view(), &MapOptions::default()),
            CoverageDoc::from_analysis(analysis)
        ))
    );
    assert!(!doc.truncated);
    assert!(doc.routes.total > 10);
    let frontend_to_backend = doc
        .component_edges
        .items
        .iter()
        .any(|e| e.from.starts_with("frontend") && e.to.starts_with("backend") && e.calls > 0);
    assert!(frontend_to_backend, "{:?}", doc.component_edges.items);
    let items = doc.routes.items.iter().find(|r| r.id == "route:GET /api/v1/items/{}").unwrap();
    assert_eq!(
        items.handler.as_ref().map(|h| h.module.as_str()),
        Some("backend/app/api/routes/items.py")
    );
    assert!(items.callers >= 2);

    let small = MapOptions { max_routes: 3, max_components: 2, ..MapOptions::default() };
    let cut =
        MapDocument::from_map(&map(analysis.view(), &small), CoverageDoc::from_analysis(analysis));
    validated(&cut);
    assert!(cut.truncated && cut.routes.truncated && cut.components.truncated);
    assert_eq!((cut.routes.shown, cut.routes.total), (3, doc.routes.total));
    let markdown = render_map(&cut);
    assert!(markdown.contains(&format!("Showing 3 of {} (limit 3)", doc.routes.total)));
    assert!(render_map(&doc).starts_with("# Architecture map\n"));
}

#[test]
fn the_schemas_are_strict() {
    let doc = items_blast(&BlastOptions { max_depth: 1, max_nodes: 2 });
    let mut value = serde_json::to_value(&doc).unwrap();
    value["affected"][0]["surprise"] = serde_json::Value::Bool(true);
    assert!(schema::validate(&value).is_err(), "an unknown field is rejected");
    let mut value = serde_json::to_value(&doc).unwrap();
    value["affected"][0]["path"][0]["kind"] = "depends".into();
    assert!(schema::validate(&value).is_err(), "an unknown edge kind is rejected");
    let mut value = serde_json::to_value(&doc).unwrap();
    value["targets"][0] = "items.py".into();
    assert!(schema::validate(&value).is_err(), "targets are node ids");
}
