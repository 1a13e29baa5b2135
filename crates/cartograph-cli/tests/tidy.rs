//! Mechanical house rules: the dependency rules of decision 0008 (read from `cargo metadata`), a
//! `//!` doc on every module, and no stubs in production code.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use common::workspace;

/// The host target triple, from `rustc -vV`.
fn host_triple() -> String {
    let output = Command::new("rustc").arg("-vV").output().expect("rustc runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host")
}

/// Package name → names of its normal (non-dev, non-build) dependencies, over the resolved graph of
/// the workspace for the host platform. (Resolving for every platform would need the manifests of
/// Windows- and macOS-only crates, which an offline machine may not have; the rules are about the
/// crates' own dependency lists, which are the same on every platform.)
fn dependency_graph() -> (BTreeMap<String, BTreeSet<String>>, BTreeSet<String>) {
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked", "--offline", "--filter-platform"])
        .arg(host_triple())
        .current_dir(workspace())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&output.stdout).expect("metadata json");
    let names: BTreeMap<String, String> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap_or_default().to_owned(),
                p["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let members: BTreeSet<String> = meta["workspace_members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(|m| names.get(m.as_str().unwrap_or_default()).cloned())
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().expect("resolve") {
        let name = names[node["id"].as_str().unwrap_or_default()].clone();
        let deps = graph.entry(name).or_default();
        for dep in node["deps"].as_array().expect("deps") {
            let normal =
                dep["dep_kinds"].as_array().expect("dep kinds").iter().any(|k| k["kind"].is_null());
            if normal {
                deps.insert(names[dep["pkg"].as_str().unwrap_or_default()].clone());
            }
        }
    }
    (graph, members)
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

#[test]
fn dependency_rules_of_the_spec_hold() {
    let (graph, members) = dependency_graph();
    let direct = |name: &str| graph.get(name).cloned().unwrap_or_default();

    // cartograph-core depends on no other Cartograph crate.
    assert!(direct("cartograph-core").iter().all(|d| !members.contains(d)));

    // petgraph is a (direct) dependency of cartograph-graph only.
    for member in &members {
        if member != "cartograph-graph" {
            assert!(!direct(member).contains("petgraph"), "{member} depends on petgraph");
        }
    }

    // No HTTP client or TLS stack is reachable from anything but cartograph-ask.
    let network = ["ureq", "rustls", "reqwest", "hyper", "native-tls", "openssl", "curl", "isahc"];
    for member in members.iter().filter(|m| *m != "cartograph-ask") {
        let deps = reachable(&graph, member);
        for crate_name in network {
            assert!(!deps.contains(crate_name), "{member} can reach {crate_name}");
        }
    }

    // The MCP server depends on neither the CLI nor ASK (and is a member, so this is not vacuous).
    assert!(members.contains("cartograph-mcp"), "cartograph-mcp is missing from the workspace");
    let mcp = reachable(&graph, "cartograph-mcp");
    assert!(!mcp.contains("cartograph-cli") && !mcp.contains("cartograph-ask"));

    // Analysis crates are synchronous: no tokio.
    for member in [
        "cartograph-core",
        "cartograph-extract",
        "cartograph-graph",
        "cartograph-pipeline",
        "cartograph-report",
    ] {
        assert!(members.contains(member), "{member} is missing from the workspace");
        assert!(!reachable(&graph, member).contains("tokio"), "{member} can reach tokio");
    }
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().and_then(|e| e.to_str()) == Some("rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_has_a_doc_comment_and_no_stub() {
    let mut files = Vec::new();
    rust_files(&workspace().join("crates"), &mut files);
    assert!(files.len() > 20);
    let mut undocumented = Vec::new();
    let mut stubs = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read source");
        let relative = file.strip_prefix(workspace()).unwrap_or(file).display().to_string();
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !first.starts_with("//!") {
            undocumented.push(relative.clone());
        }
        let production = !relative.contains("/tests/");
        if production {
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for stub in ["todo!(", "unimplemented!(", "dbg!("] {
                if code.contains(stub) {
                    stubs.push(format!("{relative}: {stub}"));
                }
            }
        }
    }
    assert!(undocumented.is_empty(), "modules without a //! doc: {undocumented:#?}");
    assert!(stubs.is_empty(), "stubs in production code: {stubs:#?}");
}
