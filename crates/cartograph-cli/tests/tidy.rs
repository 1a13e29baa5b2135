//! Mechanical house rules: the dependency rules of SPEC.md (read from `cargo metadata`), a `//!`
//! doc on every module, and no stubs in production code.

mod common;
#[path = "../../../tests/support/dependency_graph.rs"]
mod dependency_graph;

use std::path::Path;

use common::workspace;
use dependency_graph::DependencyGraph;

#[test]
fn dependency_rules_of_the_spec_hold() {
    // The normal-dependency graph is shared with `cartograph-ask/tests/containment.rs`; a
    // reachability rule that fails names the chain of crates that breaks it.
    let graph = DependencyGraph::of_workspace();
    let members = graph.members();

    // cartograph-core depends on no other Cartograph crate.
    assert!(graph.direct("cartograph-core").iter().all(|d| !members.contains(d)));

    // petgraph is a (direct) dependency of cartograph-graph only.
    for member in members {
        if member != "cartograph-graph" {
            assert!(!graph.direct(member).contains("petgraph"), "{member} depends on petgraph");
        }
    }

    // No HTTP client or TLS stack is reachable from anything but cartograph-ask.
    let network = ["ureq", "rustls", "reqwest", "hyper", "native-tls", "openssl", "curl", "isahc"];
    let others: Vec<&str> =
        members.iter().map(String::as_str).filter(|m| *m != "cartograph-ask").collect();
    graph.assert_unreachable(&others, &network);

    // The MCP server depends on neither the CLI nor ASK (and is a member, so this is not vacuous).
    graph.assert_unreachable(&["cartograph-mcp"], &["cartograph-cli", "cartograph-ask"]);

    // Analysis crates are synchronous: no tokio.
    let analysis = [
        "cartograph-core",
        "cartograph-extract",
        "cartograph-graph",
        "cartograph-pipeline",
        "cartograph-report",
        "cartograph-query",
    ];
    graph.assert_unreachable(&analysis, &["tokio"]);

    // The reports and ASK do not reach the analyser: the analysis model lives below them.
    dependency_graph::assert_reports_and_ask_do_not_reach_the_analyser(&graph);

    // The query layer the CLI and the MCP server share sits below both front ends and apart from
    // ASK (and, above, is synchronous and offline like every analysis crate).
    graph.assert_unreachable(
        &["cartograph-query"],
        &["cartograph-ask", "cartograph-cli", "cartograph-mcp"],
    );
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
    rust_files(&workspace().join("tests/support"), &mut files);
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
