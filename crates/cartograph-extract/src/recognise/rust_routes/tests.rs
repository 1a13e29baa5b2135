//! Facts of the axum recogniser from small sources written for these tests.

use cartograph_core::{RefusalKind, RepoPath};

use super::NestTarget;
use crate::{Extractor, Grammar};

/// The routes (`METHOD… path in function/bound under prefixes, handler`) and nests of a file, and
/// its `computed-route` refusals, a line each.
fn described(path: &str, source: &str) -> String {
    let path = RepoPath::new(path).unwrap();
    let facts = Extractor::new().extract(&path, Grammar::Rust, source);
    let chain = |c: &super::Chain| {
        let prefixes: Vec<&str> =
            c.prefixes.iter().map(|p| p.as_deref().unwrap_or("<computed>")).collect();
        format!(
            "in {} bound {} under [{}]",
            c.function.as_deref().unwrap_or("-"),
            c.bound.as_deref().unwrap_or("-"),
            prefixes.join(", ")
        )
    };
    let mut lines = Vec::new();
    for r in &facts.rust_routes.routes {
        let methods: Vec<&str> = r.methods.iter().map(|m| m.as_str()).collect();
        lines.push(format!(
            "line {}: {} {} {}, handler {}",
            r.line,
            methods.join("|"),
            r.path,
            chain(&r.chain),
            r.handler.as_deref().unwrap_or("-")
        ));
    }
    for n in &facts.rust_routes.nests {
        let target = match &n.target {
            NestTarget::Local(name) => format!("let {name}"),
            NestTarget::Call(path) => format!("call {path}"),
        };
        lines.push(format!(
            "line {}: nest {:?} of {target} {}",
            n.line,
            n.prefix.as_deref(),
            chain(&n.chain)
        ));
    }
    for r in &facts.refusals {
        if r.kind == RefusalKind::ComputedRoute {
            lines.push(format!("refused line {}: {}", r.location.line, r.reason));
        }
    }
    lines.join("\n")
}

/// Method routers bare, qualified and chained; nests and merges written in place, through a
/// `let`, and of a function's router; a computed path and a computed prefix.
#[test]
fn axum_routers_in_every_shape() {
    let source = r#"use axum::{routing::{get, post}, Router};
use crate::handlers;

pub fn api(state: AppState) -> Router {
    Router::new()
        .route("/items", get(handlers::list).post(handlers::create))
        .route("/items/{id}", axum::routing::delete(handlers::remove))
        .route("/files/*rest", get(handlers::file))
        .with_state(state)
}

pub fn app(prefix: String) -> Router {
    let admin = Router::new().route("/stats", get(stats));
    Router::new()
        .nest("/api", api(state()).with_state(s))
        .nest("/admin", admin.layer(auth()))
        .merge(Router::new().route("/health", any(health)))
        .nest("/v2", Router::new().route("/ping", get(ping)))
        .nest(&prefix, other::routes())
        .route(PATH, get(ping))
}

async fn stats() {}
"#;
    insta::assert_snapshot!(described("src/routes.rs", source));
}

/// Without an axum import nothing is read: `.route` is a common method name.
#[test]
fn routes_need_axum() {
    let source = "fn f(r: Table) { r.route(\"/x\", get(h)); }\n";
    assert_eq!(described("src/lib.rs", source), "");
}
