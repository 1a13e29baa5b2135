//! Precision and recall of the architecture recognisers on the full-stack fixture
//! (`tests/fixtures/fullstack`), against the hand-written truth in its `EXPECTED.md`: routes
//! served (method, full template, handler), calls matched to routes or to external hosts, call
//! refusals, tables defined / read / written, environment variables read and env refusals.
//!
//! Prints a precision/recall line per category (`cargo test --test fullstack -- --nocapture`) and
//! holds each category to its bar in [`BARS`]. The product bar is 100% / 100% everywhere.

use crate::common;

use std::collections::BTreeSet;

use cartograph_core::RouteTemplate;
use common::{fixture, run, stdout, valid_document};

/// (category, minimum precision, minimum recall).
const BARS: &[(&str, f64, f64)] = &[
    ("routes", 1.0, 1.0),
    ("calls", 1.0, 1.0),
    ("call refusals", 1.0, 1.0),
    ("tables", 1.0, 1.0),
    ("env vars", 1.0, 1.0),
    ("env refusals", 1.0, 1.0),
];

/// The fenced blocks under a `## Title` (up to the next `## `), as fact lines with comments cut.
fn section(text: &str, title: &str) -> Vec<Vec<String>> {
    let mut facts = Vec::new();
    let mut in_section = false;
    let mut in_block = false;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_section = heading.trim() == title;
            continue;
        }
        if !in_section {
            continue;
        }
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            let fact = line.split('#').next().unwrap_or("").trim();
            if !fact.is_empty() {
                facts.push(fact.split_whitespace().map(str::to_owned).collect());
            }
        }
    }
    facts
}

fn route_id(method: &str, path: &str) -> String {
    format!("route:{} {}", method.to_ascii_uppercase(), RouteTemplate::parse(path).identity())
}

struct Expected {
    routes: BTreeSet<String>,
    calls: BTreeSet<String>,
    call_refusals: BTreeSet<String>,
    tables: BTreeSet<String>,
    env: BTreeSet<String>,
    env_refusals: BTreeSet<String>,
    /// (caller, route id) of calls that may be either an `unmatched-call` refusal or a `possible`
    /// edge to that route.
    either: Vec<(String, String)>,
}

fn expected() -> Expected {
    let text = std::fs::read_to_string(fixture("fullstack/EXPECTED.md")).expect("EXPECTED.md");
    let routes = section(&text, "Routes")
        .iter()
        .map(|f| format!("{} {} {}", route_id(&f[0], &f[1]), f[2], f[3]))
        .collect();
    let calls = section(&text, "Calls")
        .iter()
        .map(|f| {
            let target = match f.get(4).map(String::as_str) {
                Some("external") => format!("external:{}", f[5]),
                _ => route_id(&f[4], &f[5]),
            };
            format!("{} {target}", f[0])
        })
        .collect();
    let mut call_refusals = BTreeSet::new();
    let mut either = Vec::new();
    for f in section(&text, "Call refusals") {
        if f[3] == "unmatched-or-possible" {
            either.push((f[0].clone(), f[2].clone()));
        } else {
            call_refusals.insert(format!("{} {}", f[0], f[3]));
        }
    }
    let tables =
        section(&text, "Tables").iter().map(|f| format!("{} {} {}", f[0], f[1], f[2])).collect();
    let env = section(&text, "Env vars").iter().map(|f| format!("{} {}", f[0], f[1])).collect();
    let env_refusals =
        section(&text, "Env refusals").iter().map(|f| format!("{} {}", f[0], f[1])).collect();
    Expected { routes, calls, call_refusals, tables, env, env_refusals, either }
}

struct Found {
    routes: BTreeSet<String>,
    calls: BTreeSet<String>,
    call_refusals: BTreeSet<String>,
    tables: BTreeSet<String>,
    env: BTreeSet<String>,
    env_refusals: BTreeSet<String>,
    /// Calls edges with their confidence: (from, to id, confidence).
    call_edges: Vec<(String, String, String)>,
}

fn strip(id: &str, kind: &str) -> String {
    id.strip_prefix(kind).and_then(|s| s.strip_prefix(':')).unwrap_or(id).to_owned()
}

fn found() -> Found {
    let output = run(&["snapshot", fixture("fullstack").to_str().expect("utf-8 path")]);
    assert!(output.status.success());
    let doc = valid_document(&stdout(&output));
    let mut found = Found {
        routes: BTreeSet::new(),
        calls: BTreeSet::new(),
        call_refusals: BTreeSet::new(),
        tables: BTreeSet::new(),
        env: BTreeSet::new(),
        env_refusals: BTreeSet::new(),
        call_edges: Vec::new(),
    };
    for node in doc["nodes"].as_array().expect("nodes") {
        if node["kind"] == "route" {
            let handler = &node["handler"];
            found.routes.insert(format!(
                "{} {} {}",
                node["id"].as_str().unwrap_or_default(),
                handler["module"].as_str().unwrap_or("?"),
                handler["function"].as_str().unwrap_or("-"),
            ));
        }
    }
    for edge in doc["edges"].as_array().expect("edges") {
        let from = strip(edge["from"].as_str().unwrap_or_default(), "module");
        let to = edge["to"].as_str().unwrap_or_default().to_owned();
        match edge["kind"].as_str().unwrap_or_default() {
            "calls" => {
                found.calls.insert(format!("{from} {to}"));
                found.call_edges.push((
                    from,
                    to,
                    edge["confidence"].as_str().unwrap_or_default().to_owned(),
                ));
            }
            kind @ ("defines" | "reads" | "writes") => {
                found.tables.insert(format!("{} {kind} {from}", strip(&to, "table")));
            }
            "reads_env" => {
                found.env.insert(format!("{} {from}", strip(&to, "env_var")));
            }
            _ => {}
        }
    }
    for refusal in doc["refusals"].as_array().expect("refusals") {
        let kind = refusal["kind"].as_str().unwrap_or_default();
        let path = refusal["location"]["path"].as_str().unwrap_or_default();
        match kind {
            "computed-url" | "unmatched-call" => {
                found.call_refusals.insert(format!("{path} {kind}"));
            }
            "computed-env-key" => {
                found.env_refusals.insert(format!("{path} {kind}"));
            }
            _ => {}
        }
    }
    found
}

/// Prints and returns (precision, recall).
fn score(category: &str, expected: &BTreeSet<String>, found: &BTreeSet<String>) -> (f64, f64) {
    let hits = expected.intersection(found).count() as f64;
    let precision = if found.is_empty() { 1.0 } else { hits / found.len() as f64 };
    let recall = if expected.is_empty() { 1.0 } else { hits / expected.len() as f64 };
    println!(
        "{category:>14}: precision {precision:.3} ({} found), recall {recall:.3} ({} expected)",
        found.len(),
        expected.len()
    );
    for missing in expected.difference(found) {
        println!("{:>14}  missing: {missing}", "");
    }
    for extra in found.difference(expected) {
        println!("{:>14}  unexpected: {extra}", "");
    }
    (precision, recall)
}

#[test]
fn recognisers_meet_their_bars_on_the_fullstack_fixture() {
    let expected = expected();
    let mut found = found();
    assert!(expected.routes.len() >= 30 && expected.calls.len() >= 25, "EXPECTED.md parsed short");

    // A call that may be refused or linked as `possible`: either outcome is right, so it is taken
    // out of both sides, and anything else for it is an error.
    for (caller, path) in &expected.either {
        let target = route_id("GET", &path.replace("/export", "/{id}"));
        let refused = found.call_refusals.remove(&format!("{caller} unmatched-call"));
        let edge = found.call_edges.iter().find(|(f, t, _)| f == caller && *t == target);
        // Edges merge by (kind, from, to): when the caller also has a legitimate call to the same
        // route, the merged edge carries that call's confidence and says nothing about this one.
        let merged = expected.calls.contains(&format!("{caller} {target}"));
        if let Some((_, _, confidence)) = edge.filter(|_| !merged) {
            assert_eq!(confidence, "possible", "{caller}: a stale URL linked as {confidence}");
        }
        assert!(
            refused || edge.is_some(),
            "{caller}: the stale call is neither refused nor linked"
        );
    }

    let results = [
        ("routes", score("routes", &expected.routes, &found.routes)),
        ("calls", score("calls", &expected.calls, &found.calls)),
        ("call refusals", score("call refusals", &expected.call_refusals, &found.call_refusals)),
        ("tables", score("tables", &expected.tables, &found.tables)),
        ("env vars", score("env vars", &expected.env, &found.env)),
        ("env refusals", score("env refusals", &expected.env_refusals, &found.env_refusals)),
    ];
    let mut failures = Vec::new();
    for (category, (precision, recall)) in results {
        let (_, min_p, min_r) =
            BARS.iter().find(|(c, _, _)| *c == category).copied().unwrap_or((category, 1.0, 1.0));
        if precision + 1e-9 < min_p || recall + 1e-9 < min_r {
            failures.push(format!("{category}: precision {precision:.3} (bar {min_p}), recall {recall:.3} (bar {min_r})"));
        }
    }
    assert!(failures.is_empty(), "below the bar: {failures:#?}");
}
