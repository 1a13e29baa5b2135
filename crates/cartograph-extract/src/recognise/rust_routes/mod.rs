//! Rust HTTP routes: axum routers.
//!
//! Recognises, in a file that imports `axum`:
//! - `Router::new().route("/x", get(h).post(g))`: one route per method of the method router
//!   (`get`, `post`, `put`, `patch`, `delete`, `head`, `options`, `any`, their `_service`
//!   forms, written bare or as `routing::get`), chained (`get(h).post(g)`) or not;
//! - `.nest("/api", inner)` and `.merge(inner)` where `inner` is a router chain written in place,
//!   a `let` binding of the same function, or a call of a function that returns a router
//!   (`route::route(state)`, joined across modules by the link half).
//!
//! axum 0.7's `:id` and `*rest` and 0.8's `{id}` and `{*rest}` are parameters and catch-alls. A
//! route whose path is not a string literal is a `computed-route` refusal; a nest or merge whose
//! prefix is computed makes the routes below it `possible`, with an unknown segment.
//!
//! ```text
//! pub fn route(state: Arc<AppState>) -> Router {
//!     Router::new()
//!         .route("/handshake", get(controller::handshake))   // GET /handshake
//!         .route("/cancel/:req_id", post(controller::cancel)) // POST /cancel/{req_id}
//!         .with_state(state)
//! }
//! // server.rs
//! let app = Router::new().nest("/v1", route::route(state));  // … under /v1
//! ```

pub mod link;

use cartograph_core::{HttpMethod, Refusal, RefusalKind, SourceLocation};
use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::registry::Recogniser;
use super::{Context, Family, Words};
use crate::FileFacts;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{position, text};
use crate::{ImportTarget, Syntax};
use cartograph_core::{EdgeKind, Language};

pub const RECOGNISERS: &[Recogniser] = &[Recogniser {
    name: "axum",
    file: "rust_routes/",
    languages: &[Language::Rust],
    edges: &[EdgeKind::Serves],
    summary: "axum routers: Router::new().route(path, get(h).post(g)), nest(prefix, router) and \
              merge(router) with routers written in place, bound with let, or returned by a \
              function of another module",
}];

/// The words a file that declares axum routes holds.
pub(crate) static WORDS: Words = Words::new(&["axum"]);

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RustRouteFacts {
    pub routes: Vec<AxumRoute>,
    pub nests: Vec<AxumNest>,
}

/// Where a router chain ends up, in the function it is written in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chain {
    /// The function the chain is written in (`None` at module level, in a closure, or in an
    /// `impl` method).
    pub function: Option<String>,
    /// The `let` name the chain is bound to, when it is.
    pub bound: Option<String>,
    /// The prefixes of the `nest` calls the chain is written inside, outermost first (`None`
    /// for a computed one); a `merge` adds none.
    pub prefixes: Vec<Option<String>>,
}

/// One `.route(path, method_router)` call, a route per method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxumRoute {
    pub chain: Chain,
    pub path: String,
    pub methods: Vec<HttpMethod>,
    /// The first method's handler as written (`controller::handshake`), when it is a path.
    pub handler: Option<String>,
    pub line: u32,
    pub column: u32,
}

/// A `.nest(prefix, x)` or `.merge(x)` whose router `x` is not written in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxumNest {
    /// The chain the nest call belongs to.
    pub chain: Chain,
    /// `Some("")` for `merge`; `None` for a computed prefix.
    pub prefix: Option<String>,
    pub target: NestTarget,
    pub line: u32,
    pub column: u32,
}

/// What a nest or merge takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NestTarget {
    /// A `let` binding of the same function.
    Local(String),
    /// A call of a function, its path as written: `route::route`, `api_routes`.
    Call(String),
}

#[derive(Default)]
pub(crate) struct RustRoutes {
    /// Whether the file imports axum, read at the first call.
    axum: Option<bool>,
}

impl Family for RustRoutes {
    fn kinds(&self) -> &'static [&'static str] {
        &["call_expression"]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        match cx.syntax {
            Syntax::Rust => WORDS.any_in(cx),
            Syntax::Python | Syntax::JavaScript => false,
        }
    }

    fn visit(&mut self, node: Node<'_>, _kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        if !matches!(cx.syntax, Syntax::Rust)
            || !*self.axum.get_or_insert_with(|| imports_axum(facts))
        {
            return;
        }
        let Some(function) =
            cx.field(node, "function").filter(|f| f.kind_name() == "field_expression")
        else {
            return;
        };
        let Some(method) = function.field("field").map(|f| text(f, cx.source)) else { return };
        match method {
            "route" => route(node, cx, facts),
            "nest" | "merge" => nest(node, method == "merge", cx, facts),
            _ => {}
        }
    }

    fn finish(&mut self, _cx: &Context<'_>, _facts: &mut FileFacts) {}
}

/// True when some import of the file names the `axum` crate.
fn imports_axum(facts: &FileFacts) -> bool {
    facts.imports.iter().any(|i| match &i.target {
        ImportTarget::Rust(r) => r.path.first().is_some_and(|s| s == "axum"),
        _ => false,
    })
}

/// The positional arguments of a call, comments left out.
fn arguments<'t>(call: Node<'t>, cx: &Context<'t>) -> Vec<Node<'t>> {
    let Some(list) = cx.field(call, "arguments") else { return Vec::new() };
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|a| !matches!(a.kind_name(), "line_comment" | "block_comment" | "attribute_item"))
        .collect()
}

/// A string literal's value (a raw string too); `None` for anything else or an escape.
fn literal(node: Node<'_>, source: &str) -> Option<String> {
    if !matches!(node.kind_name(), "string_literal" | "raw_string_literal") {
        return None;
    }
    let mut value = String::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind_name() {
            "string_content" => value.push_str(text(child, source)),
            _ => return None,
        }
    }
    Some(value)
}

fn route(call: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let args = arguments(call, cx);
    let (Some(path), Some(router)) = (args.first(), args.get(1)) else { return };
    let (line, column) = method_position(call, cx);
    let Some(path) = literal(*path, cx.source) else {
        facts.refusals.push(Refusal::new(
            RefusalKind::ComputedRoute,
            SourceLocation::new(cx.path.clone(), line, column),
            "an axum route's path is computed",
        ));
        return;
    };
    let (methods, handler) = method_router(*router, cx);
    if methods.is_empty() {
        return;
    }
    facts.rust_routes.routes.push(AxumRoute {
        chain: chain(call, cx),
        path,
        methods,
        handler,
        line,
        column,
    });
}

/// Where a chained call's method is written (`.route` on its own line), not where its chain
/// starts.
fn method_position(call: Node<'_>, cx: &Context<'_>) -> (u32, u32) {
    let method = cx.field(call, "function").and_then(|f| f.field("field"));
    position(method.unwrap_or(call))
}

/// The methods of a method router (`get(h).post(g)`) and the first handler, read from the outer
/// call inwards; empty when it is not one.
fn method_router(node: Node<'_>, cx: &Context<'_>) -> (Vec<HttpMethod>, Option<String>) {
    let mut methods = Vec::new();
    let mut handler = None;
    let mut current = node;
    for _ in 0..16 {
        if current.kind_name() != "call_expression" {
            break;
        }
        let Some(function) = current.field("function") else { break };
        let first = arguments(current, cx).into_iter().next();
        let named = first.filter(|h| matches!(h.kind_name(), "identifier" | "scoped_identifier"));
        let (name, next) = match function.kind_name() {
            "identifier" | "scoped_identifier" => {
                let written = text(function, cx.source);
                (written.rsplit("::").next().unwrap_or(written), None)
            }
            "field_expression" => {
                let field = function.field("field").map_or("", |f| text(f, cx.source));
                (field, function.field("value"))
            }
            _ => break,
        };
        let Some(method) = method_of(name) else { break };
        methods.push(method);
        if let Some(h) = named {
            handler = Some(text(h, cx.source).to_owned());
        }
        match next {
            Some(next) => current = next,
            None => break,
        }
    }
    methods.reverse();
    methods.dedup();
    (methods, handler)
}

/// `get` → GET, `post_service` → POST, `any` → ANY.
fn method_of(name: &str) -> Option<HttpMethod> {
    let name = name.strip_suffix("_service").unwrap_or(name);
    match name {
        "get" | "post" | "put" | "patch" | "delete" | "head" | "options" | "any" => {
            HttpMethod::parse(&name.to_ascii_uppercase())
        }
        _ => None,
    }
}

fn nest(call: Node<'_>, merge: bool, cx: &Context<'_>, facts: &mut FileFacts) {
    let args = arguments(call, cx);
    let (prefix, target) = if merge {
        (Some(String::new()), args.first())
    } else {
        (args.first().and_then(|p| literal(*p, cx.source)), args.get(1))
    };
    let Some(target) = target.and_then(|t| nested_router(*t, cx)) else { return };
    let (line, column) = method_position(call, cx);
    facts.rust_routes.nests.push(AxumNest { chain: chain(call, cx), prefix, target, line, column });
}

/// The router a nest or merge takes, under the methods called on it (`api().layer(l)`,
/// `admin.with_state(s)`): a `let` name or a function's call. `None` for a chain that starts
/// with `Router::new()` (read where its routes are, see [`chain`]) or anything else.
fn nested_router(node: Node<'_>, cx: &Context<'_>) -> Option<NestTarget> {
    let mut current = node;
    for _ in 0..16 {
        match current.kind_name() {
            "identifier" => return Some(NestTarget::Local(text(current, cx.source).to_owned())),
            "call_expression" => {
                let function = current.field("function")?;
                match function.kind_name() {
                    "field_expression" => current = function.field("value")?,
                    "identifier" | "scoped_identifier" => {
                        let path = text(function, cx.source);
                        let in_place = path == "Router::new" || path.ends_with("::Router::new");
                        return (!in_place).then(|| NestTarget::Call(path.to_owned()));
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    None
}

/// Where the router chain `call` belongs to ends up: the nests it is written inside, the `let`
/// it is bound to, the function it is written in.
fn chain(call: Node<'_>, cx: &Context<'_>) -> Chain {
    let ancestry = cx.ancestry();
    let mut prefixes = Vec::new();
    let mut bound = None;
    let mut function = None;
    // From the call up: a field expression's value, the call over it, … is the same chain;
    // an argument of a `nest` call puts the chain under that prefix.
    let mut child = call;
    // Set once the chain is an argument of a call that is not a nest: a `let` above binds
    // that call's value, not the router.
    let mut detached = false;
    for i in (0..ancestry.len().saturating_sub(1)).rev() {
        let node = ancestry[i];
        match node.kind_name() {
            "arguments" => {
                let Some(outer) = i.checked_sub(1).map(|p| ancestry[p]) else { break };
                let field = outer
                    .field("function")
                    .filter(|f| f.kind_name() == "field_expression")
                    .and_then(|f| f.field("field"))
                    .map(|f| text(f, cx.source));
                let mut cursor = node.walk();
                let position = node.named_children(&mut cursor).position(|a| a.id() == child.id());
                match (field, position) {
                    (Some("nest"), Some(1)) => {
                        let first = arguments(outer, cx).into_iter().next();
                        prefixes.push(first.and_then(|p| literal(p, cx.source)));
                    }
                    (Some("merge"), Some(0)) => {}
                    _ => detached = true,
                }
            }
            "let_declaration" if bound.is_none() && prefixes.is_empty() && !detached => {
                bound = node
                    .field("pattern")
                    .filter(|p| p.kind_name() == "identifier")
                    .map(|p| text(p, cx.source).to_owned());
            }
            "function_item" => {
                function = node.field("name").map(|n| text(n, cx.source).to_owned());
                // A method of an `impl` is called through its type, which is not followed.
                if ancestry[..i].iter().any(|a| matches!(a.kind_name(), "impl_item" | "trait_item"))
                {
                    function = None;
                }
                break;
            }
            "closure_expression" => break,
            _ => {}
        }
        child = node;
    }
    prefixes.reverse();
    Chain { function, bound, prefixes }
}

#[cfg(test)]
mod tests;
