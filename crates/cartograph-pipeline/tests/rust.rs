//! Rust through `analyse_tree`: `use` and `mod` resolution across a small workspace, and axum
//! routes nested and merged across modules, matched by a TypeScript client's calls. Every source
//! here is written for this test.

use crate::common;

use cartograph_core::{EdgeKind, NodeKind};

const MANIFEST: &str = "[package]\nname = \"desk-agent\"\nversion = \"0.1.0\"\n\n[lib]\nname = \"desk_agent_lib\"\n\n[dependencies]\naxum = \"0.7\"\n";

const LIB: &str = "mod handlers;\npub mod routes;\nmod server;\nmod missing;\nmod jobs;\n\npub fn start() { server::run(); }\n";

const ROUTES: &str = r#"use axum::{routing::{get, post}, Router};
use crate::handlers;

pub fn api() -> Router {
    Router::new()
        .route("/jobs", get(handlers::list).post(handlers::create))
        .route("/jobs/:job_id/cancel", post(handlers::cancel))
}

pub fn unknown() -> Router {
    Router::new().route("/orphans", get(handlers::list))
}

pub fn routes() -> Router {
    Router::new().route("/extra", get(handlers::list))
}
"#;

const SERVER: &str = r#"use axum::{routing::get, Router};
use crate::routes;

pub async fn run() {
    let health = Router::new().route("/health", get(|| async { "ok" }));
    let app = Router::new()
        .nest("/v1", routes::api().with_state(state))
        .merge(health)
        .nest(&format!("/{}", "x"), routes::unknown())
        .merge(extra::routes());
    axum::serve(listener, app).await;
}
"#;

const HANDLERS: &str = "use std::sync::Arc;\nuse serde_json::Value;\n\npub async fn list() {}\npub async fn create() {}\npub async fn cancel() {}\n";

const MAIN: &str = "use desk_agent_lib::start;\nfn main() { start(); }\n";

const CLIENT: &str = r#"export async function cancelJob(id: string) {
  return fetch(`/v1/jobs/${id}/cancel`, { method: "POST" });
}
export const jobs = () => fetch("/v1/jobs");
"#;

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("agent/Cargo.toml", MANIFEST),
        ("agent/src/lib.rs", LIB),
        ("agent/src/main.rs", MAIN),
        ("agent/src/routes.rs", ROUTES),
        ("agent/src/server.rs", SERVER),
        ("agent/src/handlers.rs", HANDLERS),
        // `super::` from a folder module, and a child module named without `self::`.
        ("agent/src/jobs/mod.rs", "mod queue;\nuse queue::Queue;\nuse super::handlers::list;\n"),
        ("agent/src/jobs/queue.rs", "pub struct Queue;\n"),
        ("web/src/jobs.ts", CLIENT),
    ]
}

/// `mod` declarations, `crate::` paths, a workspace crate by its `[lib]` name, third-party and
/// standard crates; a `mod` whose file is missing is refused.
#[test]
fn use_and_mod_resolve_across_the_crate() {
    let analysis = common::analyse_files(&files());
    let mut imports: Vec<String> = analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Imports && e.from.name().starts_with("agent/"))
        .map(|e| format!("{} -> {}", e.from.name(), e.to.name()))
        .collect();
    imports.sort();
    imports.dedup();
    assert_eq!(
        imports,
        [
            "agent/src/handlers.rs -> cargo:serde_json",
            "agent/src/jobs/mod.rs -> agent/src/handlers.rs",
            "agent/src/jobs/mod.rs -> agent/src/jobs/queue.rs",
            "agent/src/lib.rs -> agent/src/handlers.rs",
            "agent/src/lib.rs -> agent/src/jobs/mod.rs",
            "agent/src/lib.rs -> agent/src/routes.rs",
            "agent/src/lib.rs -> agent/src/server.rs",
            "agent/src/main.rs -> agent/src/lib.rs",
            "agent/src/routes.rs -> agent/src/handlers.rs",
            "agent/src/routes.rs -> cargo:axum",
            "agent/src/server.rs -> agent/src/routes.rs",
            "agent/src/server.rs -> cargo:axum",
        ]
    );
    let unresolved: Vec<String> = analysis
        .refusals
        .iter()
        .filter(|r| r.kind.as_str() == "unresolved-import")
        .map(|r| format!("{}:{} {}", r.location.path, r.location.line, r.reason))
        .collect();
    assert_eq!(unresolved, ["agent/src/lib.rs:4 mod missing: no module file for it"]);
    let rust = analysis
        .nodes
        .iter()
        .filter(|n| n.key.kind() == NodeKind::Module)
        .filter(|n| n.attrs.language.is_some_and(|l| l.as_str() == "rust"));
    assert_eq!(rust.count(), 7);
}

/// Routes of a router function nested under `/v1` in another module, a `let` router merged,
/// a computed prefix kept as an unknown segment at `possible`; a merge of a function not found
/// is refused, and a function of that name elsewhere is `likely`; the client's calls link to
/// them.
#[test]
fn axum_routes_nested_across_modules_are_matched_by_calls() {
    let analysis = common::analyse_files(&files());
    let mut serves: Vec<String> = analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Serves)
        .map(|e| {
            format!(
                "{} <- {} [{} {}]",
                e.to.name(),
                e.from.name(),
                e.provenance.as_str(),
                e.confidence.as_str()
            )
        })
        .collect();
    serves.sort();
    assert_eq!(
        serves,
        [
            "GET /extra <- agent/src/handlers.rs [syntax likely]",
            "GET /health <- agent/src/server.rs [syntax certain]",
            "GET /v1/jobs <- agent/src/handlers.rs [resolver certain]",
            "GET /{}/orphans <- agent/src/handlers.rs [resolver possible]",
            "POST /v1/jobs <- agent/src/handlers.rs [resolver certain]",
            "POST /v1/jobs/{}/cancel <- agent/src/handlers.rs [resolver certain]",
        ]
    );
    let evidence: Vec<&str> = analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Serves && e.to.name() == "POST /v1/jobs/{}/cancel")
        .map(|e| e.evidence.as_str())
        .collect();
    assert_eq!(
        evidence,
        ["axum route /v1/jobs/{job_id}/cancel from .route(\"/jobs/:job_id/cancel\", …) in \
             agent/src/routes.rs, nested at /v1 in agent/src/server.rs:7"]
    );
    let mut calls: Vec<String> = analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Calls && e.to.kind() == NodeKind::Route)
        .map(|e| format!("{} -> {}", e.from.name(), e.to.name()))
        .collect();
    calls.sort();
    let mounts: Vec<String> = analysis
        .refusals
        .iter()
        .filter(|r| r.kind.as_str() == "unresolved-mount")
        .map(|r| format!("{}:{} {}", r.location.path, r.location.line, r.reason))
        .collect();
    assert_eq!(
        mounts,
        [
            "agent/src/server.rs:10 the axum router of extra::routes cannot be followed to a function \
          of the tree: its routes may lack this prefix"
        ]
    );
    assert_eq!(
        calls,
        ["web/src/jobs.ts -> GET /v1/jobs", "web/src/jobs.ts -> POST /v1/jobs/{}/cancel"]
    );
}
