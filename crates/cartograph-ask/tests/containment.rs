//! The network boundary, read from `cargo metadata` (decision 0001 rules 2 and 3, issue 6 item 1):
//! ureq and rustls are reachable from `cartograph-ask` and from nothing the `cartograph` binary
//! (`cartograph-cli`) or the MCP server (`cartograph-mcp`) depends on; neither depends on
//! `cartograph-ask`; and `cartograph-ask` does not depend on `cartograph-pipeline` directly.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// `cargo metadata` of the workspace for the host platform only, offline: a machine's registry
/// cache holds the crates its builds need, not those of every platform in `Cargo.lock`.
fn host_metadata() -> serde_json::Value {
    let host = {
        let out = Command::new("rustc").arg("-vV").output().expect("rustc runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
            .expect("rustc names the host")
    };
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--filter-platform", &host])
        .current_dir(workspace)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("metadata JSON")
}

/// Package name → names of its normal (non-dev, non-build) dependencies, for the host platform.
fn normal_dependency_graph() -> BTreeMap<String, BTreeSet<String>> {
    let meta = host_metadata();
    let names: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let deps = graph.entry(names[node["id"].as_str().unwrap()].to_owned()).or_default();
        for dep in node["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null());
            if normal {
                deps.insert(names[dep["pkg"].as_str().unwrap()].to_owned());
            }
        }
    }
    graph
}

fn reachable(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_owned()];
    while let Some(name) = stack.pop() {
        for dep in graph.get(&name).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                stack.push(dep.clone());
            }
        }
    }
    seen
}

const NETWORK: &[&str] = &["ureq", "ureq-proto", "rustls", "webpki-roots", "rustls-webpki"];

#[test]
fn only_cartograph_ask_reaches_the_http_client() {
    let graph = normal_dependency_graph();
    let ask = reachable(&graph, "cartograph-ask");
    for name in ["ureq", "rustls", "keyring-core"] {
        assert!(
            ask.contains(name),
            "cartograph-ask should reach {name} (the check is not vacuous)"
        );
    }
    for package in ["cartograph-cli", "cartograph-mcp"] {
        assert!(graph.contains_key(package), "{package} is in the workspace");
        let deps = reachable(&graph, package);
        for name in NETWORK {
            assert!(!deps.contains(*name), "{package} can reach {name}");
        }
        assert!(!deps.contains("cartograph-ask"), "{package} depends on cartograph-ask");
        assert!(!deps.contains("keyring-core"), "{package} can reach the keychain");
    }
    // Decision 0001 rule 3: no direct dependency on the analyser (nor on the graph crate's
    // petgraph).
    let direct = &graph["cartograph-ask"];
    assert!(!direct.contains("cartograph-pipeline"));
    assert!(!direct.contains("petgraph"));
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
