//! Flask-RESTX and Flask-RESTful: APIs, namespaces and the resource classes they route.
//!
//! Recognises `api = Api(app_or_blueprint, prefix="/p")` (an API bound to an app or blueprint;
//! `api.init_app(app)` binds it later), `ns = Namespace("items", path="/things")` (its path is
//! `path=`, or `/` and its name), `api.add_namespace(ns, "/other")` (the path given there
//! replaces the namespace's own, as Flask-RESTX does), `@ns.route("/a", "/b")` and
//! `@api.route(...)` on a `Resource` class, and `api.add_resource(ItemResource, "/a", "/b")`. A
//! resource serves the HTTP methods its class and in-tree bases define (`get`, `post`, ...);
//! the linker reads them from the class lineage, as for a `MethodView`.
//!
//! Refuses (at link time, through the Flask chains): computed paths or prefixes
//! (`computed-route`) and namespaces or APIs that no app reaches (`unresolved-mount`).
//!
//! Example: `bp = Blueprint("api", __name__, url_prefix="/api/v1")`, `api = Api(bp)`,
//! `ns = Namespace("awards")`, `api.add_namespace(ns, "/prizes")` and `@ns.route("/<award_id>")`
//! on `class Award(Resource)` with `def get` and `def delete` give `GET` and `DELETE
//! /api/v1/prizes/{award_id}`.

use tree_sitter::Node;

use super::{
    Methods, MountDecl, MountKind, PathExpr, PathPart, PyRouteFacts, RouteDecl, path_expr,
};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::python::{callee_attribute, dotted, find_argument_value, keyword_argument};
use crate::syntax::{literal_string, position, text};

/// The suffix of a route's `call` whose methods are those its resource class defines.
pub const RESOURCE: &str = ":resource";

/// The path of a `Namespace(...)`: `path=`, or `/` and its literal name.
pub(super) fn namespace_path(args: Node<'_>, source: &str) -> PathExpr {
    if let Some(path) = keyword_argument(args, "path", source) {
        return path_expr(path, source);
    }
    match find_argument_value(args, "name", 0, source).and_then(|n| literal_string(n, source)) {
        Some(name) => PathExpr::literal(&format!("/{name}")),
        None => PathExpr { parts: vec![PathPart::Computed] },
    }
}

/// `api = Api(app)`: the API is bound to the app or blueprint it is given.
pub(super) fn api_binding(
    node: Node<'_>,
    name: &str,
    args: Node<'_>,
    source: &str,
) -> Option<MountDecl> {
    let (line, column) = position(node);
    let app = find_argument_value(args, "app", 0, source).and_then(|a| dotted(a, source))?;
    Some(MountDecl {
        parent: app,
        child: Some(name.to_owned()),
        prefix: None,
        kind: MountKind::BindApi,
        scope: None,
        line,
        column,
    })
}

/// `add_namespace`, `add_resource` and `init_app` calls on `object`.
pub(super) fn call(
    node: Node<'_>,
    object: &str,
    attr: &str,
    args: Node<'_>,
    source: &str,
    out: &mut PyRouteFacts,
) {
    let (line, column) = position(node);
    match attr {
        "add_namespace" => {
            let ns = find_argument_value(args, "ns", 0, source);
            let path = find_argument_value(args, "path", 1, source);
            out.mounts.push(MountDecl {
                parent: object.to_owned(),
                child: ns.and_then(|n| dotted(n, source)),
                prefix: path.filter(|p| text(*p, source) != "None").map(|p| path_expr(p, source)),
                kind: MountKind::AddNamespace,
                scope: None,
                line,
                column,
            });
        }
        // Many extensions have an `init_app(app)`; the linker keeps only those of an API.
        "init_app" => {
            let Some(app) = find_argument_value(args, "app", 0, source) else { return };
            let Some(app) = dotted(app, source) else { return };
            out.mounts.push(MountDecl {
                parent: app,
                child: Some(object.to_owned()),
                prefix: None,
                kind: MountKind::BindApi,
                scope: None,
                line,
                column,
            });
        }
        "add_resource" => {
            let mut cursor = args.walk();
            let positional: Vec<Node<'_>> = args
                .named_children(&mut cursor)
                .filter(|a| {
                    !matches!(a.kind_name(), "keyword_argument" | "comment" | "dictionary_splat")
                })
                .collect();
            let Some((resource, urls)) = positional.split_first() else { return };
            let handler = dotted(*resource, source);
            for url in urls {
                out.routes.push(RouteDecl {
                    object: object.to_owned(),
                    call: format!("add_resource{RESOURCE}"),
                    path: if url.kind_name() == "list_splat" {
                        PathExpr { parts: vec![PathPart::Computed] }
                    } else {
                        path_expr(*url, source)
                    },
                    methods: Methods::Default,
                    handler: handler.clone(),
                    scope: None,
                    line,
                    column,
                });
            }
        }
        _ => {}
    }
}

/// `@ns.route("/a", "/b")` on a class: one route per URL, served by the class's methods.
pub(super) fn resource_class(node: Node<'_>, class: &str, source: &str, out: &mut PyRouteFacts) {
    let mut cursor = node.walk();
    for decorator in node.named_children(&mut cursor).filter(|c| c.kind_name() == "decorator") {
        let Some(expr) = decorator.named_child(0).filter(|e| e.kind_name() == "call") else {
            continue;
        };
        let Some((object, attr)) = callee_attribute(expr, source) else { continue };
        let Some(args) = expr.field("arguments").filter(|_| attr == "route") else { continue };
        let (line, column) = position(decorator);
        let mut cursor = args.walk();
        let urls: Vec<Node<'_>> = args
            .named_children(&mut cursor)
            .filter(|a| {
                !matches!(a.kind_name(), "keyword_argument" | "comment" | "dictionary_splat")
            })
            .collect();
        for url in urls {
            out.routes.push(RouteDecl {
                object: object.clone(),
                call: format!("route{RESOURCE}"),
                path: if url.kind_name() == "list_splat" {
                    PathExpr { parts: vec![PathPart::Computed] }
                } else {
                    path_expr(url, source)
                },
                methods: Methods::Default,
                handler: Some(class.to_owned()),
                scope: None,
                line,
                column,
            });
        }
    }
}
