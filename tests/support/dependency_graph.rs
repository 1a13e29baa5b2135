//! The workspace's normal-dependency graph, read from `cargo metadata`, and the chains of crates
//! through it: one copy for the two tests that check dependency rules over it,
//! `cartograph-cli/tests/tidy.rs` (every crate dependency rule) and
//! `cartograph-ask/tests/containment.rs` (the network and analyser boundaries of ASK), each of
//! which includes this file by `#[path]`.
//!
//! The graph is resolved for the host platform only, offline: a machine's registry cache holds the
//! crates its builds need, not those of every platform in `Cargo.lock`, and the rules are about the
//! crates' own dependency lists, which are the same on every platform.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;
use std::process::Command;

/// `cargo metadata` of the workspace for the host platform, offline and locked.
pub fn host_metadata() -> serde_json::Value {
    let output = Command::new("rustc").arg("-vV").output().expect("rustc runs");
    let host = String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked", "--offline", "--filter-platform"])
        .arg(host)
        .current_dir(workspace)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("metadata JSON")
}

/// Package name → names of its normal (non-dev, non-build) dependencies, and the workspace members.
pub struct DependencyGraph {
    deps: BTreeMap<String, BTreeSet<String>>,
    members: BTreeSet<String>,
}

impl DependencyGraph {
    /// The graph of this workspace (see [`host_metadata`]).
    pub fn of_workspace() -> Self {
        let meta = host_metadata();
        let names: BTreeMap<&str, &str> = meta["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .map(|p| (p["id"].as_str().expect("id"), p["name"].as_str().expect("name")))
            .collect();
        let members = meta["workspace_members"]
            .as_array()
            .expect("workspace members")
            .iter()
            .filter_map(|m| names.get(m.as_str().unwrap_or_default()).map(|n| (*n).to_owned()))
            .collect();
        let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for node in meta["resolve"]["nodes"].as_array().expect("resolve") {
            let of = deps.entry(names[node["id"].as_str().expect("id")].to_owned()).or_default();
            for dep in node["deps"].as_array().expect("deps") {
                let kinds = dep["dep_kinds"].as_array().expect("dep kinds");
                if kinds.iter().any(|k| k["kind"].is_null()) {
                    of.insert(names[dep["pkg"].as_str().expect("pkg")].to_owned());
                }
            }
        }
        Self { deps, members }
    }

    /// The workspace's own packages.
    pub fn members(&self) -> &BTreeSet<String> {
        &self.members
    }

    /// Whether `name` is a package of the resolved graph at all.
    pub fn contains(&self, name: &str) -> bool {
        self.deps.contains_key(name)
    }

    /// The direct normal dependencies of `name`.
    pub fn direct(&self, name: &str) -> BTreeSet<String> {
        self.deps.get(name).cloned().unwrap_or_default()
    }

    /// Every package `from` reaches over normal dependencies (`from` itself left out).
    pub fn reachable(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(name) = stack.pop() {
            for dep in self.deps.get(name).into_iter().flatten() {
                if seen.insert(dep.clone()) {
                    stack.push(dep);
                }
            }
        }
        seen
    }

    /// A shortest chain of normal dependencies from `from` to `to`, both ends included, or `None`
    /// when `to` is out of reach. Ties go to the dependency first in name order.
    pub fn chain(&self, from: &str, to: &str) -> Option<Vec<String>> {
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(name) = queue.pop_front() {
            if name == to {
                let mut chain = vec![to.to_owned()];
                let mut at = to;
                while let Some(previous) = came_from.get(at) {
                    chain.push((*previous).to_owned());
                    at = previous;
                }
                chain.reverse();
                return Some(chain);
            }
            for dep in self.deps.get(name).into_iter().flatten() {
                if dep != from && !came_from.contains_key(dep.as_str()) {
                    came_from.insert(dep, name);
                    queue.push_back(dep);
                }
            }
        }
        None
    }

    /// Panics, naming the chain of crates, when any of `packages` reaches any of `forbidden`.
    pub fn assert_unreachable(&self, packages: &[&str], forbidden: &[&str]) {
        let mut found = Vec::new();
        for package in packages {
            assert!(self.members.contains(*package), "{package} is missing from the workspace");
            for name in forbidden {
                if let Some(chain) = self.chain(package, name).filter(|c| c.len() > 1) {
                    found.push(format!("{package} reaches {name}: {}", chain.join(" → ")));
                }
            }
        }
        assert!(found.is_empty(), "forbidden dependencies:\n{}", found.join("\n"));
    }
}

/// The analyser and what only the analyser may use: the git object store, the directory walker and
/// the worker pool.
pub const ANALYSER: &[&str] = &["cartograph-pipeline", "gix", "ignore", "rayon"];

/// `cartograph-report` and `cartograph-ask` do not reach `cartograph-pipeline`, even
/// transitively, nor what it runs on — the analysis model they read lives below them, in
/// `cartograph-graph`. Panics with the chain of crates that breaks the rule.
pub fn assert_reports_and_ask_do_not_reach_the_analyser(graph: &DependencyGraph) {
    // Not vacuous: the analyser is in the graph, and it reaches what the rule names.
    let analyser = graph.reachable("cartograph-pipeline");
    for name in &ANALYSER[1..] {
        assert!(analyser.contains(*name), "cartograph-pipeline should reach {name}");
    }
    graph.assert_unreachable(&["cartograph-report", "cartograph-ask"], ANALYSER);
}
