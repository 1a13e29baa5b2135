//! The network boundary, read from `cargo metadata` (decision 0001 rules 2 and 3, issue 6 item 1):
//! ureq and rustls are reachable from `cartograph-ask` and from nothing the `cartograph` binary
//! (`cartograph-cli`) or the MCP server (`cartograph-mcp`) depends on; neither depends on
//! `cartograph-ask`. And the analyser boundary (issue 14): neither `cartograph-ask` nor
//! `cartograph-report` reaches `cartograph-pipeline`, gix, ignore or rayon over normal
//! dependencies, even transitively — the analysis model they read lives below them, in
//! `cartograph-graph` — and a failure names the chain of crates that breaks the rule. The graph is
//! read by `tests/support/dependency_graph.rs`, shared with the tidy test of `cartograph-cli`.

#[path = "../../../tests/support/dependency_graph.rs"]
mod dependency_graph;

use dependency_graph::{DependencyGraph, host_metadata};

const NETWORK: &[&str] = &["ureq", "ureq-proto", "rustls", "webpki-roots", "rustls-webpki"];

#[test]
fn only_cartograph_ask_reaches_the_http_client() {
    let graph = DependencyGraph::of_workspace();
    let ask = graph.reachable("cartograph-ask");
    for name in ["ureq", "rustls", "keyring-core"] {
        assert!(
            ask.contains(name),
            "cartograph-ask should reach {name} (the check is not vacuous)"
        );
    }
    for package in ["cartograph-cli", "cartograph-mcp"] {
        assert!(graph.members().contains(package), "{package} is in the workspace");
        let deps = graph.reachable(package);
        for name in NETWORK {
            assert!(!deps.contains(*name), "{package} can reach {name}");
        }
        assert!(!deps.contains("cartograph-ask"), "{package} depends on cartograph-ask");
        assert!(!deps.contains("keyring-core"), "{package} can reach the keychain");
    }
    // No direct dependency on the graph crate's petgraph (nor on the analyser at all: see
    // `neither_ask_nor_report_reaches_the_analyser`).
    assert!(!graph.direct("cartograph-ask").contains("petgraph"));
}

#[test]
fn neither_ask_nor_report_reaches_the_analyser() {
    dependency_graph::assert_reports_and_ask_do_not_reach_the_analyser(
        &DependencyGraph::of_workspace(),
    );
}

#[test]
fn ureq_is_built_without_the_json_feature() {
    let meta = host_metadata();
    let ureq_id = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ureq")
        .and_then(|p| p["id"].as_str())
        .expect("ureq is a package");
    let node =
        meta["resolve"]["nodes"].as_array().unwrap().iter().find(|n| n["id"] == ureq_id).unwrap();
    let features: Vec<&str> =
        node["features"].as_array().unwrap().iter().filter_map(|f| f.as_str()).collect();
    assert!(!features.contains(&"json"), "{features:?}");
    assert!(features.contains(&"rustls"), "{features:?}");
    assert!(!features.contains(&"native-tls"), "{features:?}");
}
