//! Tests of the diff and its findings, on small hand-built trees.

use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Handler, Language, Node, NodeKey, NodeKind, Provenance,
    Refusal, RefusalKind, RepoPath, SourceLocation,
};

use super::*;

mod adjust;

fn path(p: &str) -> RepoPath {
    RepoPath::new(p).unwrap()
}

fn module_key(p: &str) -> NodeKey {
    NodeKey::module(&path(p))
}

fn route_key(name: &str) -> NodeKey {
    NodeKey::from_parts(NodeKind::Route, name)
}

fn key(kind: NodeKind, name: &str) -> NodeKey {
    NodeKey::from_parts(kind, name)
}

/// A module in the component named by its first directory, its language from its extension.
pub(crate) fn module(p: &str) -> Node {
    let mut node = Node::new(module_key(p));
    node.attrs.language = Some(if p.ends_with(".py") {
        Language::Python
    } else if p.ends_with(".js") {
        Language::JavaScript
    } else {
        Language::TypeScript
    });
    node.attrs.component = Some(p.split_once('/').map_or(".", |(dir, _)| dir).to_owned());
    node
}

fn route(name: &str, handler: &str, function: &str) -> Node {
    let mut node = Node::new(route_key(name));
    node.attrs.handler =
        Some(Handler { module: path(handler), function: Some(function.to_owned()) });
    node
}

/// An edge at line 1 of its source module.
pub(crate) fn edge(kind: EdgeKind, from: &NodeKey, to: &NodeKey) -> Edge {
    Edge {
        kind,
        from: from.clone(),
        to: to.clone(),
        evidence: Evidence::new(format!("{} {kind} {}", from.name(), to.name())),
        provenance: Provenance::Syntax,
        confidence: Confidence::Certain,
        location: SourceLocation::new(path(from.name()), 1, 1),
        type_only: false,
        occurrences: 1,
    }
}

fn unmatched(file: &str, line: u32, call: &str) -> Refusal {
    Refusal::new(
        RefusalKind::UnmatchedCall,
        SourceLocation::new(path(file), line, 1),
        format!("call to {call} matches no served route"),
    )
}

/// One side of a diff, in any order (the diff must not care).
#[derive(Default, Clone)]
struct Tree {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    refusals: Vec<Refusal>,
}

impl Tree {
    fn view(&self) -> GraphView<'_> {
        GraphView { nodes: &self.nodes, edges: &self.edges, refusals: &self.refusals }
    }

    fn node(mut self, node: Node) -> Self {
        self.nodes.push(node);
        self
    }

    fn modules(mut self, paths: &[&str]) -> Self {
        self.nodes.extend(paths.iter().map(|p| module(p)));
        self
    }

    /// Adds the edge and a bare node for an end not yet present.
    fn edge(mut self, kind: EdgeKind, from: &NodeKey, to: &NodeKey) -> Self {
        for end in [from, to] {
            if !self.nodes.iter().any(|n| &n.key == end) {
                self.nodes.push(Node::new(end.clone()));
            }
        }
        self.edges.push(edge(kind, from, to));
        self
    }

    fn refusal(mut self, refusal: Refusal) -> Self {
        self.refusals.push(refusal);
        self
    }
}

fn run(base: &Tree, head: &Tree) -> GraphDiff {
    diff(base.view(), head.view())
}

fn kinds(d: &GraphDiff) -> Vec<&'static str> {
    d.findings.iter().map(|f| f.kind.as_str()).collect()
}

fn only(d: &GraphDiff, kind: FindingKind) -> Vec<&Finding> {
    d.findings.iter().filter(|f| f.kind == kind).collect()
}

/// A backend serving `GET /api/items/{}` and a TypeScript client calling it.
fn app() -> Tree {
    let items = module_key("backend/items.py");
    let client = module_key("web/api.ts");
    Tree::default()
        .modules(&["backend/items.py", "web/api.ts"])
        .node(route("GET /api/items/{}", "backend/items.py", "read_item"))
        .edge(EdgeKind::Serves, &items, &route_key("GET /api/items/{}"))
        .edge(EdgeKind::Calls, &client, &route_key("GET /api/items/{}"))
}

#[test]
fn identical_trees_have_no_difference() {
    let tree = app();
    let d = run(&tree, &tree);
    assert!(d.is_empty());
    assert!(d.findings.is_empty());
    let empty = Tree::default();
    assert!(run(&empty, &empty).is_empty());
}

#[test]
fn nodes_added_removed_and_changed() {
    let base = Tree::default().modules(&["a/x.py", "a/gone.py"]);
    let mut head = Tree::default().modules(&["a/x.py", "a/new.py"]);
    head.nodes[0].attrs.component = Some("elsewhere".to_owned());
    let d = run(&base, &head);
    assert_eq!(d.nodes.added.iter().map(|n| n.key.name()).collect::<Vec<_>>(), ["a/new.py"]);
    assert_eq!(d.nodes.removed.iter().map(|n| n.key.name()).collect::<Vec<_>>(), ["a/gone.py"]);
    assert_eq!(d.nodes.changed.len(), 1);
    assert!(!d.nodes.changed[0].moved);
    assert_eq!(d.nodes.changed[0].after.attrs.component.as_deref(), Some("elsewhere"));
}

#[test]
fn a_route_whose_handler_moved_is_moved() {
    let base = Tree::default().node(route("GET /a", "old.py", "f"));
    let head = Tree::default().node(route("GET /a", "new.py", "f"));
    let d = run(&base, &head);
    assert!(d.nodes.added.is_empty() && d.nodes.removed.is_empty());
    assert_eq!(d.nodes.changed.len(), 1);
    assert!(d.nodes.changed[0].moved);

    let renamed = Tree::default().node(route("GET /a", "old.py", "g"));
    assert!(run(&base, &renamed).nodes.changed[0].moved, "another function is a move");

    // A handler that becomes unknown is a change, not a move.
    let unknown = Tree::default().node(Node::new(route_key("GET /a")));
    let d = run(&base, &unknown);
    assert_eq!(d.nodes.changed.len(), 1);
    assert!(!d.nodes.changed[0].moved);
}

#[test]
fn edges_change_on_confidence_provenance_or_type_only_but_not_on_evidence_or_location() {
    let a = module_key("a.py");
    let b = module_key("b.py");
    let base = Tree::default().edge(EdgeKind::Imports, &a, &b);

    let mut shifted = base.clone();
    shifted.edges[0].location.line = 40;
    shifted.edges[0].evidence = Evidence::new("reworded");
    shifted.edges[0].occurrences = 3;
    assert!(run(&base, &shifted).is_empty());

    let mut weaker = base.clone();
    weaker.edges[0].confidence = Confidence::Possible;
    weaker.edges[0].provenance = Provenance::Heuristic;
    weaker.edges[0].type_only = true;
    let d = run(&base, &weaker);
    assert!(d.edges.added.is_empty() && d.edges.removed.is_empty());
    assert_eq!(d.edges.changed.len(), 1);
    assert_eq!(
        d.edges.changed[0].fields,
        [EdgeField::Confidence, EdgeField::Provenance, EdgeField::TypeOnly]
    );
    assert_eq!(d.edges.changed[0].before.confidence, Confidence::Certain);
    assert_eq!(d.edges.changed[0].after.confidence, Confidence::Possible);

    let c = module_key("c.py");
    let other = Tree::default().edge(EdgeKind::Imports, &a, &c);
    let d = run(&base, &other);
    assert_eq!(d.edges.added.len(), 1);
    assert_eq!(d.edges.removed.len(), 1);
    assert_eq!(d.edges.added[0].to, c);
}

#[test]
fn refusals_are_a_multiset_that_ignores_lines() {
    let r = |kind, file: &str, line, reason: &str| {
        Refusal::new(kind, SourceLocation::new(path(file), line, 1), reason)
    };
    let base = Tree::default()
        .refusal(r(RefusalKind::DynamicImport, "a.ts", 3, "import of a computed name"))
        .refusal(r(RefusalKind::DynamicImport, "a.ts", 5, "import of a computed name"))
        .refusal(r(RefusalKind::ComputedUrl, "b.ts", 1, "fetch call: computed"));
    let head = Tree::default()
        // Both moved down: one of the two is gone, the other only shifted.
        .refusal(r(RefusalKind::DynamicImport, "a.ts", 9, "import of a computed name"))
        .refusal(r(RefusalKind::ComputedUrl, "b.ts", 7, "fetch call: computed"))
        .refusal(r(RefusalKind::UnresolvedImport, "c.py", 2, "x resolves to nothing"));
    let d = run(&base, &head);
    assert_eq!(d.refusals.removed.len(), 1);
    assert_eq!(d.refusals.removed[0].location.line, 5, "the last of the surplus is the extra one");
    assert_eq!(d.refusals.added.len(), 1);
    assert_eq!(d.refusals.added[0].kind, RefusalKind::UnresolvedImport);
    let counts: Vec<(RefusalKind, u64, u64)> =
        d.refusals.by_kind.iter().map(|c| (c.kind, c.base, c.head)).collect();
    assert_eq!(
        counts,
        [
            (RefusalKind::DynamicImport, 2, 1),
            (RefusalKind::UnresolvedImport, 0, 1),
            (RefusalKind::ComputedUrl, 1, 1),
        ]
    );
}

#[test]
fn route_removed_and_the_call_that_now_matches_nothing() {
    let base = app();
    let mut head = app()
        .refusal(unmatched("web/api.ts", 12, "GET /api/items/{}"))
        // An unrelated unmatched call in the same file does not count.
        .refusal(unmatched("web/api.ts", 14, "POST /api/items/{}"));
    head.nodes.retain(|n| n.key.kind() != NodeKind::Route);
    head.edges.retain(|e| e.to.kind() != NodeKind::Route);
    let d = run(&base, &head);
    assert_eq!(kinds(&d), ["route-removed", "call-to-removed-route"]);

    let removed = &d.findings[0];
    assert_eq!(removed.severity, Severity::High);
    assert_eq!(removed.subject.id(), "route:GET /api/items/{}");
    assert_eq!(
        removed.message,
        "Route GET /api/items/{} is no longer served (it was served by backend/items.py): a possible breaking API change."
    );
    assert_eq!(removed.edges.len(), 1);
    assert_eq!((removed.edges[0].side, removed.edges[0].edge.kind), (Side::Base, EdgeKind::Serves));

    let call = &d.findings[1];
    assert_eq!(call.severity, Severity::High);
    assert_eq!(
        call.message,
        "Route GET /api/items/{} was removed but web/api.ts still calls it: the call now matches no served route."
    );
    assert_eq!((call.edges[0].side, call.edges[0].edge.kind), (Side::Base, EdgeKind::Calls));
}

#[test]
fn a_removed_route_whose_callers_were_updated_or_deleted_is_not_a_stale_call() {
    let base = app();
    let mut updated = app();
    updated.nodes.retain(|n| n.key.kind() != NodeKind::Route);
    updated.edges.retain(|e| e.to.kind() != NodeKind::Route);
    assert_eq!(kinds(&run(&base, &updated)), ["route-removed"], "no unmatched call left");

    let mut deleted = updated.clone().refusal(unmatched("web/api.ts", 1, "GET /api/items/{}"));
    deleted.nodes.retain(|n| n.key.name() != "web/api.ts");
    assert_eq!(kinds(&run(&base, &deleted)), ["route-removed"], "the caller no longer exists");
}

#[test]
fn a_stale_call_that_now_lands_on_a_parameter_route_by_accident() {
    // Base: the client calls GET /orders/export, served beside GET /orders/{}. Head: the export
    // route is gone and the same call meets GET /orders/{} by a literal meeting a parameter.
    let orders = module_key("backend/orders.py");
    let client = module_key("web/api.ts");
    let export = route_key("GET /orders/export");
    let by_id = route_key("GET /orders/{}");
    let base = Tree::default()
        .modules(&["backend/orders.py", "web/api.ts"])
        .edge(EdgeKind::Serves, &orders, &export)
        .edge(EdgeKind::Serves, &orders, &by_id)
        .edge(EdgeKind::Calls, &client, &export);
    let mut head = Tree::default()
        .modules(&["backend/orders.py", "web/api.ts"])
        .edge(EdgeKind::Serves, &orders, &by_id)
        .edge(EdgeKind::Calls, &client, &by_id);
    head.edges[1].confidence = Confidence::Possible;
    let d = run(&base, &head);
    let found = only(&d, FindingKind::CallToRemovedRoute);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "Route GET /orders/export was removed but web/api.ts still calls it: the call now reaches route GET /orders/{} only by a literal segment meeting a route parameter."
    );
    let sides: Vec<(Side, &NodeKey)> =
        found[0].edges.iter().map(|e| (e.side, &e.edge.to)).collect();
    assert_eq!(sides, [(Side::Base, &export), (Side::Head, &by_id)]);
    // The accidental edge is new and crosses languages, but it is the stale call, reported once.
    assert!(only(&d, FindingKind::NewCrossLanguageCall).is_empty());

    // A certain edge is a proper call, not an accident.
    let mut proper = head.clone();
    proper.edges[1].confidence = Confidence::Certain;
    assert!(only(&run(&base, &proper), FindingKind::CallToRemovedRoute).is_empty());

    // An edge that already existed and names another path may be another call: not enough.
    let mut base_with_other = base.edge(EdgeKind::Calls, &client, &by_id);
    base_with_other.edges[3].evidence =
        Evidence::new("fetch GET \"/orders/summary\" matches route");
    let mut head_other = head.clone();
    head_other.edges[1].evidence = Evidence::new("fetch GET \"/orders/summary\" matches route");
    assert!(only(&run(&base_with_other, &head_other), FindingKind::CallToRemovedRoute).is_empty());
    // ...unless its evidence names the removed path.
    head_other.edges[1].evidence = Evidence::new("fetch GET \"/orders/export\" matches route");
    assert_eq!(only(&run(&base_with_other, &head_other), FindingKind::CallToRemovedRoute).len(), 1);
}

#[test]
fn a_route_still_served_by_a_wider_method_is_not_removed() {
    let base = app();
    let items = module_key("backend/items.py");
    let mut head = app();
    head.nodes.retain(|n| n.key.kind() != NodeKind::Route);
    head.edges.clear();
    let head = head.node(route("ANY /api/items/{}", "backend/items.py", "read_item")).edge(
        EdgeKind::Serves,
        &items,
        &route_key("ANY /api/items/{}"),
    );
    let d = run(&base, &head);
    assert_eq!(d.nodes.removed.len(), 1, "the raw diff still shows the node");
    assert_eq!(kinds(&d), ["route-added"]);
    assert_eq!(d.findings[0].severity, Severity::Low);
    assert_eq!(
        d.findings[0].message,
        "Route ANY /api/items/{} is newly served by backend/items.py."
    );
}

#[test]
fn a_call_to_a_route_nobody_serves_is_reported_defensively() {
    let client = module_key("web/api.ts");
    let base = Tree::default().modules(&["web/api.ts"]);
    let head = base.clone().edge(EdgeKind::Calls, &client, &route_key("GET /ghost"));
    let d = run(&base, &head);
    let found = only(&d, FindingKind::CallToRemovedRoute);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "Route GET /ghost is called by web/api.ts but no module serves it."
    );
    assert_eq!(found[0].edges[0].side, Side::Head);
}

#[test]
fn new_cross_language_call_needs_another_language_family() {
    let base = app();
    let items = module_key("backend/items.py");
    let route = route_key("GET /api/items");
    let head = app()
        .modules(&["web/list.ts", "web/legacy.js"])
        .node(Node::new(route.clone()))
        .edge(EdgeKind::Serves, &items, &route)
        .edge(EdgeKind::Calls, &module_key("web/list.ts"), &route)
        .edge(EdgeKind::Calls, &module_key("web/legacy.js"), &route_key("GET /api/items/{}"));
    let d = run(&base, &head);
    let found = only(&d, FindingKind::NewCrossLanguageCall);
    assert_eq!(found.len(), 2);
    assert_eq!(
        found[0].message,
        "Route GET /api/items is new, served by backend/items.py (python), and newly called across languages by web/list.ts (typescript)."
    );
    assert_eq!(found[0].edges.len(), 2, "the call and the serves edge that gives the language");
    assert_eq!(found[0].edges[0].edge.kind, EdgeKind::Calls);
    assert_eq!(found[0].edges[1].edge.kind, EdgeKind::Serves);
    assert_eq!(
        found[1].message,
        "web/legacy.js (javascript) newly calls route GET /api/items/{}, served by backend/items.py (python)."
    );
    // The new route's own finding is covered by the call's: it stays (for `--fail-on
    // route-added`), as info, and says which finding reports it.
    let added = only(&d, FindingKind::RouteAdded);
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].severity, Severity::Info);
    assert_eq!(
        added[0].covered_by,
        Some(CoveredBy { kind: FindingKind::NewCrossLanguageCall, subject: Subject::Node(route) })
    );
    assert_eq!(
        added[0].message,
        "Route GET /api/items is newly served by backend/items.py. Reported in full by the new-cross-language-call finding for GET /api/items."
    );
    assert!(found.iter().all(|f| f.covered_by.is_none() && f.severity == Severity::Medium));

    // TypeScript calling a JavaScript server is one family; the old call is not new.
    let server = module_key("web/server.js");
    let js_route = route_key("GET /local");
    let head = app().modules(&["web/server.js"]).edge(EdgeKind::Serves, &server, &js_route).edge(
        EdgeKind::Calls,
        &module_key("web/api.ts"),
        &js_route,
    );
    assert!(only(&run(&base, &head), FindingKind::NewCrossLanguageCall).is_empty());
}

#[test]
fn a_new_call_within_one_language_family_is_a_new_call_finding() {
    // An Express server (JavaScript) and a TypeScript page: one family.
    let server = module_key("server/app.js");
    let page = module_key("web/page.ts");
    let old_route = route_key("GET /api/items");
    let base = Tree::default()
        .modules(&["server/app.js", "web/page.ts"])
        .node(Node::new(old_route.clone()))
        .edge(EdgeKind::Serves, &server, &old_route);
    let new_route = route_key("POST /api/items");
    let head = base
        .clone()
        .node(Node::new(new_route.clone()))
        .edge(EdgeKind::Serves, &server, &new_route)
        .edge(EdgeKind::Calls, &page, &old_route)
        .edge(EdgeKind::Calls, &page, &new_route);
    let d = run(&base, &head);
    assert!(only(&d, FindingKind::NewCrossLanguageCall).is_empty());
    let found = only(&d, FindingKind::NewCall);
    assert_eq!(found.len(), 2, "one finding per route: {found:#?}");
    assert!(found.iter().all(|f| f.severity == Severity::Low && f.covered_by.is_none()));
    assert_eq!(
        found[0].message,
        "web/page.ts (typescript) newly calls route GET /api/items, served by server/app.js (javascript)."
    );
    assert_eq!(
        found[1].message,
        "Route POST /api/items is new, served by server/app.js (javascript), and newly called by web/page.ts (typescript)."
    );
    assert_eq!(found[1].edges.len(), 2, "the call and the serves edge");
    assert_eq!(found[1].edges[0].edge.kind, EdgeKind::Calls);
    // The new route is covered by the call that names it, as a cross-language call covers it.
    let added = only(&d, FindingKind::RouteAdded);
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].severity, Severity::Info);
    assert_eq!(
        added[0].covered_by,
        Some(CoveredBy { kind: FindingKind::NewCall, subject: Subject::Node(new_route) })
    );
    assert!(
        added[0].message.ends_with("Reported in full by the new-call finding for POST /api/items.")
    );
    assert_eq!(
        FindingKind::NewCall.severity(),
        FindingKind::NewCrossLanguageCall.severity().lowered()
    );
}

#[test]
fn a_cross_language_call_is_never_also_a_new_call() {
    let base = app();
    let items = module_key("backend/items.py");
    let route = route_key("GET /api/items");
    let head = app()
        .modules(&["web/list.ts", "backend/worker.py"])
        .node(Node::new(route.clone()))
        .edge(EdgeKind::Serves, &items, &route)
        .edge(EdgeKind::Calls, &module_key("web/list.ts"), &route);
    let d = run(&base, &head);
    assert_eq!(only(&d, FindingKind::NewCrossLanguageCall).len(), 1);
    assert!(only(&d, FindingKind::NewCall).is_empty());

    // A Python caller of the same route is a new call, the TypeScript one stays cross-language,
    // each edge in exactly one finding; the route is covered by the cross-language finding.
    let head = head.edge(EdgeKind::Calls, &module_key("backend/worker.py"), &route);
    let d = run(&base, &head);
    let cross = only(&d, FindingKind::NewCrossLanguageCall);
    let same = only(&d, FindingKind::NewCall);
    assert_eq!((cross.len(), same.len()), (1, 1));
    let callers = |f: &Finding| -> Vec<String> {
        f.edges
            .iter()
            .filter(|e| e.edge.kind == EdgeKind::Calls)
            .map(|e| e.edge.from.name().to_owned())
            .collect()
    };
    assert_eq!(callers(cross[0]), ["web/list.ts"]);
    assert_eq!(callers(same[0]), ["backend/worker.py"]);
    let added = only(&d, FindingKind::RouteAdded);
    assert_eq!(
        added[0].covered_by.as_ref().map(|c| c.kind),
        Some(FindingKind::NewCrossLanguageCall)
    );
}

#[test]
fn a_new_call_from_or_to_a_module_of_unknown_language_is_a_new_call() {
    let base = app();
    let route = route_key("GET /api/items/{}");
    // A caller without a language (a snapshot may say so): not provably cross-language.
    let head = app().node(Node::new(module_key("web/unknown.vue"))).edge(
        EdgeKind::Calls,
        &module_key("web/unknown.vue"),
        &route,
    );
    let d = run(&base, &head);
    assert!(only(&d, FindingKind::NewCrossLanguageCall).is_empty());
    let found = only(&d, FindingKind::NewCall);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "web/unknown.vue newly calls route GET /api/items/{}, served by backend/items.py (python)."
    );
}

#[test]
fn new_table_and_new_table_writes() {
    let models = module_key("backend/models.py");
    let crud = module_key("backend/crud.py");
    let item = key(NodeKind::Table, "item");
    let user = key(NodeKind::Table, "user");
    let base = Tree::default().modules(&["backend/models.py", "backend/crud.py"]).edge(
        EdgeKind::Reads,
        &crud,
        &user,
    );
    let head = base
        .clone()
        .edge(EdgeKind::Defines, &models, &item)
        .edge(EdgeKind::Writes, &crud, &item)
        .edge(EdgeKind::Writes, &crud, &user);
    let d = run(&base, &head);
    // The write to the new table is covered by the new table's finding, which names the writer
    // and holds the write edge; it ranks last, as info.
    assert_eq!(kinds(&d), ["new-table", "new-table-write", "new-table-write"]);
    assert_eq!(
        d.findings[0].message,
        "Table item is new: defined by backend/models.py; written by backend/crud.py."
    );
    let table_edges: Vec<EdgeKind> = d.findings[0].edges.iter().map(|e| e.edge.kind).collect();
    assert_eq!(table_edges, [EdgeKind::Defines, EdgeKind::Writes]);
    assert_eq!(d.findings[1].message, "backend/crud.py newly writes table user.");
    assert_eq!(d.findings[1].severity, Severity::Medium);
    assert_eq!(d.findings[1].covered_by, None);
    assert_eq!(
        d.findings[2].message,
        "backend/crud.py newly writes table item (a new table). Reported in full by the new-table finding for item."
    );
    assert_eq!(d.findings[2].severity, Severity::Info);
    assert_eq!(
        d.findings[2].covered_by.as_ref().map(|c| (c.kind, c.subject.id())),
        Some((FindingKind::NewTable, "table:item".to_owned()))
    );
    assert!(
        d.findings[0].edges.iter().any(|e| d.findings[2].edges[0] == *e),
        "the covering finding names the covered write"
    );
}

#[test]
fn new_env_var() {
    let config = module_key("backend/config.py");
    let base = Tree::default().modules(&["backend/config.py"]);
    let head = base.clone().edge(EdgeKind::ReadsEnv, &config, &key(NodeKind::EnvVar, "API_KEY"));
    let d = run(&base, &head);
    assert_eq!(kinds(&d), ["new-env-var"]);
    assert_eq!(d.findings[0].severity, Severity::Low);
    assert_eq!(
        d.findings[0].message,
        "Environment variable API_KEY is newly read by backend/config.py."
    );
}

#[test]
fn new_external_service_is_one_finding_per_new_host() {
    let a = module_key("web/a.ts");
    let b = module_key("web/b.ts");
    let base = Tree::default().modules(&["web/a.ts", "web/b.ts"]).edge(
        EdgeKind::Calls,
        &a,
        &key(NodeKind::External, "https://known.io"),
    );
    let head = base
        .clone()
        .edge(EdgeKind::Calls, &a, &key(NodeKind::External, "https://api.new.io/v1/{}"))
        .edge(EdgeKind::Calls, &b, &key(NodeKind::External, "https://api.new.io/v2"))
        .edge(EdgeKind::Calls, &b, &key(NodeKind::External, "https://known.io/other"));
    let d = run(&base, &head);
    assert_eq!(kinds(&d), ["new-external-service"]);
    let f = &d.findings[0];
    assert_eq!(f.subject.id(), "external:https://api.new.io");
    assert_eq!(f.message, "New external service https://api.new.io, called by web/a.ts, web/b.ts.");
    assert_eq!(f.edges.len(), 2);
    assert_eq!(f.severity, Severity::Medium, "a real host keeps its severity");
}

#[test]
fn new_third_party_package_but_not_a_builtin() {
    let a = module_key("app/main.py");
    let base = Tree::default().modules(&["app/main.py"]);
    let head = base
        .clone()
        .edge(EdgeKind::Imports, &a, &key(NodeKind::Package, "pypi:requests"))
        .edge(EdgeKind::Imports, &a, &key(NodeKind::Package, "python:os"));
    let d = run(&base, &head);
    assert_eq!(kinds(&d), ["new-package"]);
    assert_eq!(d.findings[0].message, "Package pypi:requests is newly imported by app/main.py.");
}

#[test]
fn new_cycle_names_its_imports_new_first_and_ignores_a_shrunk_cycle() {
    let [a, b, c] = ["pkg/a.py", "pkg/b.py", "pkg/c.py"].map(module_key);
    let base = Tree::default().modules(&["pkg/a.py", "pkg/b.py", "pkg/c.py"]).edge(
        EdgeKind::Imports,
        &a,
        &b,
    );
    let head = base.clone().edge(EdgeKind::Imports, &b, &a);
    let d = run(&base, &head);
    assert_eq!(d.cycles.added.len(), 1);
    assert_eq!(kinds(&d), ["new-cycle"]);
    let f = &d.findings[0];
    assert_eq!(f.subject.id(), "module:pkg/a.py");
    assert_eq!(
        f.message,
        "New import cycle among 2 modules: pkg/a.py, pkg/b.py; 1 of its 2 runtime imports is new."
    );
    assert_eq!(f.edges.len(), 2);
    assert_eq!(f.edges[0].edge.from, b, "the new import comes first");

    // A type-only import closes no cycle.
    let mut typed = base.clone().edge(EdgeKind::Imports, &b, &a);
    typed.edges[1].type_only = true;
    assert!(run(&base, &typed).findings.is_empty());

    // a → b → c → a in base, a ↔ b in head: the cycle shrank; nothing new.
    let big = Tree::default()
        .modules(&["pkg/a.py", "pkg/b.py", "pkg/c.py"])
        .edge(EdgeKind::Imports, &a, &b)
        .edge(EdgeKind::Imports, &b, &c)
        .edge(EdgeKind::Imports, &c, &a);
    let d = run(&big, &head);
    assert_eq!((d.cycles.added.len(), d.cycles.removed.len()), (1, 1));
    assert!(only(&d, FindingKind::NewCycle).is_empty());

    // a ↔ b in base, c joins in head: a new cycle that says it grew.
    let pair = head.clone();
    let grown = head.edge(EdgeKind::Imports, &b, &c).edge(EdgeKind::Imports, &c, &a);
    let d = run(&pair, &grown);
    let found = only(&d, FindingKind::NewCycle);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "An import cycle grew from 2 to 3 modules: 1 joined (pkg/c.py); 2 of its 4 runtime imports are new."
    );
    let first_two: Vec<&NodeKey> = found[0].edges.iter().take(2).map(|e| &e.edge.from).collect();
    assert_eq!(first_two, [&b, &c], "the new imports come first");
}

#[test]
fn new_component_dependency_is_per_component_pair_and_bounded() {
    let base = Tree::default().modules(&["web/a.ts", "lib/x.ts", "api/y.ts"]).edge(
        EdgeKind::Imports,
        &module_key("web/a.ts"),
        &module_key("lib/x.ts"),
    );
    let mut head = base.clone();
    let mut files = Vec::new();
    for i in 0..7 {
        let from = format!("web/p{i}.ts");
        head = head.modules(&[from.as_str()]).edge(
            EdgeKind::Imports,
            &module_key(&from),
            &module_key("api/y.ts"),
        );
        files.push(from);
    }
    // An existing pair and a type-only import are not new dependencies.
    head = head.edge(EdgeKind::Imports, &module_key("web/p0.ts"), &module_key("lib/x.ts"));
    head = head.edge(EdgeKind::Imports, &module_key("lib/x.ts"), &module_key("web/a.ts"));
    let last = head.edges.len() - 1;
    head.edges[last].type_only = true;
    let d = run(&base, &head);
    let found = only(&d, FindingKind::NewComponentDependency);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].subject, Subject::Component("web".to_owned()));
    assert_eq!(found[0].subject.id(), "component:web");
    assert_eq!(
        found[0].message,
        "Component web newly depends on component api through 7 runtime imports."
    );
    assert_eq!(found[0].edges.len(), MAX_COMPONENT_EDGES);
    assert_eq!(found[0].severity, Severity::Low);
}

#[test]
fn findings_are_ranked_by_severity_then_kind_then_subject() {
    let base = app();
    let config = module_key("backend/config.py");
    let items = module_key("backend/items.py");
    let mut head = app()
        .modules(&["backend/config.py"])
        .edge(EdgeKind::ReadsEnv, &config, &key(NodeKind::EnvVar, "B"))
        .edge(EdgeKind::ReadsEnv, &config, &key(NodeKind::EnvVar, "A"))
        .edge(EdgeKind::Writes, &items, &key(NodeKind::Table, "t"))
        .refusal(unmatched("web/api.ts", 3, "GET /api/items/{}"));
    head.nodes.retain(|n| n.key.kind() != NodeKind::Route);
    head.edges.retain(|e| e.to.kind() != NodeKind::Route);
    let d = run(&base, &head);
    assert_eq!(
        kinds(&d),
        [
            "route-removed",
            "call-to-removed-route",
            "new-table",
            "new-env-var",
            "new-env-var",
            "new-table-write"
        ]
    );
    let vars: Vec<String> =
        only(&d, FindingKind::NewEnvVar).iter().map(|f| f.subject.id()).collect();
    assert_eq!(vars, ["env_var:A", "env_var:B"]);
    assert!(d.findings.windows(2).all(|w| w[0].severity <= w[1].severity));
}

#[test]
fn the_diff_is_the_same_whatever_the_input_order() {
    let base = app();
    let config = module_key("backend/config.py");
    let mut head = app()
        .modules(&["backend/config.py"])
        .edge(EdgeKind::ReadsEnv, &config, &key(NodeKind::EnvVar, "B"))
        .edge(EdgeKind::Imports, &config, &module_key("web/api.ts"))
        .refusal(unmatched("web/api.ts", 9, "GET /x"))
        .refusal(unmatched("web/api.ts", 3, "GET /x"));
    let forward = run(&base, &head);
    head.nodes.reverse();
    head.edges.reverse();
    head.refusals.reverse();
    let mut reversed_base = base.clone();
    reversed_base.nodes.reverse();
    reversed_base.edges.reverse();
    assert_eq!(run(&reversed_base, &head), forward);
    assert_eq!(run(&base, &head), forward);
}

#[test]
fn a_duplicated_identity_keeps_its_first_occurrence() {
    // Possible only in a hand-edited snapshot: the first node and edge of an identity count, the
    // later ones are ignored, and the input needs no particular order.
    let a = module_key("web/a.ts");
    let b = module_key("web/b.ts");
    let base =
        GraphView { nodes: &[module("web/a.ts"), module("web/b.ts")], edges: &[], refusals: &[] };
    let mut python = module("web/b.ts");
    python.attrs.language = Some(Language::Python);
    let first = edge(EdgeKind::Imports, &a, &b);
    let mut weaker = first.clone();
    weaker.confidence = Confidence::Possible;
    let nodes = [module("web/b.ts"), module("web/a.ts"), python];
    let edges = [first.clone(), weaker];
    let d = diff(base, GraphView { nodes: &nodes, edges: &edges, refusals: &[] });
    assert!(d.nodes.added.is_empty() && d.nodes.removed.is_empty() && d.nodes.changed.is_empty());
    assert_eq!(d.edges.added, [first]);
}

#[test]
fn kinds_and_severities_round_trip_through_names() {
    for kind in FindingKind::ALL {
        assert_eq!(FindingKind::parse(kind.as_str()), Some(kind));
        assert!(!kind.label().is_empty());
    }
    for severity in Severity::ALL {
        assert_eq!(Severity::parse(severity.as_str()), Some(severity));
    }
    assert_eq!(FindingKind::parse("any"), None);
}
