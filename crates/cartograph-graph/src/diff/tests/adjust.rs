//! Tests of what happens after the rules: noise lowered a level, cycles that grew or merged.

use super::*;

#[test]
fn test_and_example_paths_and_reserved_hosts_are_recognised() {
    for (p, noise) in [
        ("tests/unit/test_api.py", Some(Noise::Test)),
        ("pkg/test_api.py", Some(Noise::Test)),
        ("pkg/api_test.py", Some(Noise::Test)),
        ("ui/src/__tests__/Banner.tsx", Some(Noise::Test)),
        ("ui/src/Banner.test.tsx", Some(Noise::Test)),
        ("ui/src/api.spec.ts", Some(Noise::Test)),
        ("airflow/example_dags/example_http.py", Some(Noise::Example)),
        ("docs/examples/app.ts", Some(Noise::Example)),
        ("pkg/testing.py", None),
        ("pkg/latest_api.py", None),
        ("pkg/contest.ts", None),
        ("pkg/test_data.json", None),
    ] {
        assert_eq!(noise_of_path(p), noise, "{p}");
    }
    for host in [
        "https://example.com",
        "https://api.example.org/v1/{}",
        "http://user@svc.example:8080",
        "https://mail.test",
        "http://localhost:3000/api",
        "https://x.invalid",
        "https://EXAMPLE.NET.",
    ] {
        assert!(is_reserved_host(host), "{host}");
    }
    for host in ["https://example.community", "https://myexample.com", "https://api.github.com"] {
        assert!(!is_reserved_host(host), "{host}");
    }
}

#[test]
fn findings_justified_only_by_tests_or_examples_drop_a_level_and_say_why() {
    let base = Tree::default().modules(&["app/main.py"]);
    let head = base
        .clone()
        .modules(&["app/tests/test_env.py", "dags/example_dags/http.py"])
        .edge(
            EdgeKind::ReadsEnv,
            &module_key("app/tests/test_env.py"),
            &key(NodeKind::EnvVar, "TEST_ONLY"),
        )
        .edge(EdgeKind::ReadsEnv, &module_key("app/main.py"), &key(NodeKind::EnvVar, "REAL"))
        .edge(
            EdgeKind::ReadsEnv,
            &module_key("app/tests/test_env.py"),
            &key(NodeKind::EnvVar, "REAL"),
        )
        .edge(
            EdgeKind::Calls,
            &module_key("dags/example_dags/http.py"),
            &key(NodeKind::External, "https://api.partner.io/v1"),
        )
        .edge(
            EdgeKind::Calls,
            &module_key("app/main.py"),
            &key(NodeKind::External, "https://api.example.com/v1"),
        );
    let d = run(&base, &head);
    let by_subject = |id: &str| d.findings.iter().find(|f| f.subject.id() == id).unwrap();

    let test_only = by_subject("env_var:TEST_ONLY");
    assert_eq!(test_only.severity, Severity::Info);
    assert_eq!(
        test_only.message,
        "Environment variable TEST_ONLY is newly read by app/tests/test_env.py. Lowered to info: only test files justify it."
    );
    // One production read is enough to keep the severity.
    assert_eq!(by_subject("env_var:REAL").severity, Severity::Low);

    let example = by_subject("external:https://api.partner.io");
    assert_eq!(example.severity, Severity::Low);
    assert!(example.message.ends_with("Lowered to low: only example code justifies it."));

    let reserved = by_subject("external:https://api.example.com");
    assert_eq!(reserved.severity, Severity::Low);
    assert!(
        reserved
            .message
            .ends_with("Lowered to low: its host is reserved for examples (RFC 2606/6761).")
    );
    assert!(d.findings.windows(2).all(|w| w[0].severity <= w[1].severity), "ranked after");
}

#[test]
fn a_cross_language_call_from_a_test_is_lowered_even_though_its_server_is_not_a_test() {
    let base = app();
    let route = route_key("GET /api/items");
    let head = app()
        .modules(&["web/src/__tests__/items.ts"])
        .node(Node::new(route.clone()))
        .edge(EdgeKind::Serves, &module_key("backend/items.py"), &route)
        .edge(EdgeKind::Calls, &module_key("web/src/__tests__/items.ts"), &route);
    let d = run(&base, &head);
    let found = only(&d, FindingKind::NewCrossLanguageCall);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, Severity::Low);
    assert!(found[0].message.ends_with("Lowered to low: only test files justify it."));
    // The route itself is production code: its own finding is covered, not lowered.
    let added = only(&d, FindingKind::RouteAdded);
    assert_eq!(added[0].severity, Severity::Info);
    assert!(added[0].covered_by.is_some());
}

#[test]
fn a_new_call_from_a_test_is_lowered_by_its_call_alone() {
    let server = module_key("server/app.ts");
    let route = route_key("GET /api/things");
    let base = Tree::default()
        .modules(&["server/app.ts", "web/src/__tests__/things.ts"])
        .node(Node::new(route.clone()))
        .edge(EdgeKind::Serves, &server, &route);
    let head =
        base.clone().edge(EdgeKind::Calls, &module_key("web/src/__tests__/things.ts"), &route);
    let found_in = run(&base, &head);
    let found = only(&found_in, FindingKind::NewCall);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, Severity::Info);
    assert!(found[0].message.ends_with("Lowered to info: only test files justify it."));
}

#[test]
fn several_new_callers_of_one_route_are_one_finding() {
    let base = app();
    let route = route_key("POST /api/items");
    let head = app()
        .modules(&["web/a.ts", "web/b.js"])
        .node(Node::new(route.clone()))
        .edge(EdgeKind::Serves, &module_key("backend/items.py"), &route)
        .edge(EdgeKind::Calls, &module_key("web/a.ts"), &route)
        .edge(EdgeKind::Calls, &module_key("web/b.js"), &route);
    let d = run(&base, &head);
    let found = only(&d, FindingKind::NewCrossLanguageCall);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "Route POST /api/items is new, served by backend/items.py (python), and newly called across languages by web/a.ts, web/b.js (javascript, typescript)."
    );
    let edge_kinds: Vec<EdgeKind> = found[0].edges.iter().map(|e| e.edge.kind).collect();
    assert_eq!(edge_kinds, [EdgeKind::Calls, EdgeKind::Calls, EdgeKind::Serves]);
}

#[test]
fn a_head_cycle_that_merges_two_base_cycles_says_so() {
    let [a, b, c, d, e] = ["p/a.py", "p/b.py", "p/c.py", "p/d.py", "p/e.py"].map(module_key);
    let base = Tree::default()
        .modules(&["p/a.py", "p/b.py", "p/c.py", "p/d.py", "p/e.py"])
        .edge(EdgeKind::Imports, &a, &b)
        .edge(EdgeKind::Imports, &b, &a)
        .edge(EdgeKind::Imports, &c, &d)
        .edge(EdgeKind::Imports, &d, &c);
    let head = base.clone().edge(EdgeKind::Imports, &b, &c).edge(EdgeKind::Imports, &d, &e).edge(
        EdgeKind::Imports,
        &e,
        &a,
    );
    let diff = run(&base, &head);
    assert_eq!((diff.cycles.added.len(), diff.cycles.removed.len()), (1, 2));
    let found = only(&diff, FindingKind::NewCycle);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "Import cycles of 2 and 2 modules merged into one of 5 modules: 1 joined (p/e.py); 3 of its 7 runtime imports are new."
    );

    // A cycle that lost a module and gained another grew, and says how many left.
    let swapped = Tree::default()
        .modules(&["p/a.py", "p/b.py", "p/c.py", "p/d.py", "p/e.py"])
        .edge(EdgeKind::Imports, &a, &b)
        .edge(EdgeKind::Imports, &b, &a)
        .edge(EdgeKind::Imports, &b, &e)
        .edge(EdgeKind::Imports, &e, &a);
    let before = Tree::default()
        .modules(&["p/a.py", "p/b.py", "p/c.py", "p/d.py", "p/e.py"])
        .edge(EdgeKind::Imports, &a, &b)
        .edge(EdgeKind::Imports, &b, &a)
        .edge(EdgeKind::Imports, &b, &c)
        .edge(EdgeKind::Imports, &c, &a);
    let found = run(&before, &swapped);
    let found = only(&found, FindingKind::NewCycle);
    assert_eq!(
        found[0].message,
        "An import cycle of 3 modules changed members: 1 joined (p/e.py), 1 left it; 2 of its 4 runtime imports are new."
    );
}

#[test]
fn a_file_named_like_a_test_that_declares_a_table_is_application_code() {
    // Airflow 3.3.0's models/connection_test.py declares the connection_test_request table and
    // writes the connection table: the feature is "connection tests", the file is no test.
    let model = module_key("app/models/connection_test.py");
    let probe = module_key("app/checks/probe_test.py");
    let base = Tree::default()
        .modules(&["app/models/connection_test.py", "app/checks/probe_test.py"])
        .edge(EdgeKind::Reads, &model, &key(NodeKind::Table, "connection"));
    let head = base
        .clone()
        .edge(EdgeKind::Defines, &model, &key(NodeKind::Table, "connection_test_request"))
        .edge(EdgeKind::Writes, &model, &key(NodeKind::Table, "connection"))
        .edge(EdgeKind::Writes, &probe, &key(NodeKind::Table, "audit"));
    let d = run(&base, &head);
    let write = |table: &str| {
        d.findings
            .iter()
            .find(|f| f.kind == FindingKind::NewTableWrite && f.subject.name() == table)
            .unwrap()
    };
    assert_eq!(write("connection").severity, Severity::Medium);
    assert!(!write("connection").message.contains("Lowered"));
    // A file named like a test that declares nothing is still taken for one.
    let audit = d
        .findings
        .iter()
        .find(|f| f.subject.id() == "table:audit" && f.kind == FindingKind::NewTable)
        .unwrap();
    assert_eq!(audit.severity, Severity::Low);
    assert!(audit.message.ends_with("Lowered to low: only test files justify it."));
}
