//! The network boundary, read from `cargo metadata` (decision 0001 rules 2 and 3, issue 6 item 1):
//! ureq and rustls are reachable from `cartograph-ask` and from nothing the `cartograph` binary
//! (`cartograph-cli`) or the MCP server (`cartograph-mcp`) depends on; neither depends on
//! `cartograph-ask`. And the analyser boundary (issue 14): neither `cartograph-ask` nor
//! `cartograph-report` reaches `cartograph-pipeline`, gix, ignore or rayon over normal
//! dependencies, even transitively — the analysis model they read lives below them, in
//! `cartograph-graph` — and a failure names the chain of crates that breaks the rule. The graph is
//! read by `tests/support/dependency_graph.rs`, shared with the tidy test of `cartograph-cli`.

use crate::dependency_graph;

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

/// Crates that exist to reach a network, a TLS stack or a keychain: none may be on the allowlist.
const NEVER_LINKABLE: &[&str] = &[
    "ureq",
    "ureq-proto",
    "rustls",
    "rustls-webpki",
    "webpki-roots",
    "native-tls",
    "openssl",
    "openssl-sys",
    "hyper",
    "hyper-util",
    "reqwest",
    "curl",
    "curl-sys",
    "h2",
    "mio",
    "socket2",
    "tokio-rustls",
    "trust-dns-resolver",
    "hickory-resolver",
    "keyring-core",
    "cartograph-ask",
];

/// The allowlist of `tests/support/linkable.txt`: names, comments and blank lines left out.
fn linkable() -> std::collections::BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/support/linkable.txt");
    std::fs::read_to_string(path)
        .expect("tests/support/linkable.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_binary_and_the_mcp_server_link_only_allowlisted_crates() {
    // Decision 0008 rule 7: an allowlist, not a denylist — a new dependency anywhere below the
    // `cartograph` binary or the MCP server fails here until someone has read what it does.
    let graph = DependencyGraph::of_workspace();
    let allowed = linkable();
    for name in NEVER_LINKABLE {
        assert!(!allowed.contains(*name), "{name} can reach a network or a keychain");
    }
    let mut unlisted = Vec::new();
    for package in ["cartograph-cli", "cartograph-mcp"] {
        let linked = graph.reachable(package);
        assert!(
            linked.len() > 100,
            "{package} links {} crates (the check is not vacuous)",
            linked.len()
        );
        for name in linked.difference(&allowed) {
            let chain = graph.chain(package, name).unwrap_or_default().join(" → ");
            unlisted.push(format!("{package} links {name}, not on the allowlist: {chain}"));
        }
    }
    assert!(unlisted.is_empty(), "{}", unlisted.join("\n"));
}

#[test]
fn socket_features_stay_off() {
    // The features, resolved for the whole workspace (so a superset of what either binary
    // builds with): tokio without `net` (rmcp's stdio transport needs `io-std` only; the server
    // passes tokio's stdin and stdout to rmcp itself), gix's transport and protocol without a
    // client. Neither mio nor socket2 is in the graph at all.
    let meta = host_metadata();
    let packages = meta["packages"].as_array().unwrap();
    let features = |name: &str| -> Vec<String> {
        let id = packages.iter().find(|p| p["name"] == name).and_then(|p| p["id"].as_str());
        let Some(id) = id else { return Vec::new() };
        let node = meta["resolve"]["nodes"].as_array().unwrap().iter().find(|n| n["id"] == id);
        node.and_then(|n| n["features"].as_array())
            .map(|f| f.iter().filter_map(|f| f.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    };
    let tokio = features("tokio");
    assert!(tokio.iter().any(|f| f == "io-std"), "tokio is resolved: {tokio:?}");
    assert!(!tokio.iter().any(|f| f == "net"), "tokio's net feature is on: {tokio:?}");
    for (name, off) in [
        ("gix-transport", &["blocking-client", "async-client", "http-client"][..]),
        ("gix-protocol", &["blocking-client", "async-client"][..]),
        (
            "rmcp",
            &[
                "transport-io",
                "transport-child-process",
                "transport-streamable-http-server",
                "transport-streamable-http-client",
                "__reqwest",
            ][..],
        ),
    ] {
        let on = features(name);
        for feature in off {
            assert!(!on.iter().any(|f| f == feature), "{name} has {feature}: {on:?}");
        }
    }
    let graph = DependencyGraph::of_workspace();
    for name in ["mio", "socket2"] {
        for package in ["cartograph-cli", "cartograph-mcp"] {
            assert!(!graph.reachable(package).contains(name), "{package} reaches {name}");
        }
    }
}
