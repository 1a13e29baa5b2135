//! FastAPI: routes, routers and the mounts that compose their prefixes.
//!
//! Recognises route decorators `@app.get/post/put/patch/delete/head/options("/x")` and
//! `@router.api_route("/x", methods=[...])` (recorded by the shared decorator reader in
//! `mod.rs`, since Flask 2 spells its shortcuts the same way), `router.add_api_route("/x",
//! handler, methods=[...])`, `app = FastAPI()`, `router = APIRouter(prefix="/items")` (and any
//! class called with `prefix=`, so a custom subclass of `APIRouter` defined in the tree is
//! recognised once the linker follows its bases), `parent.include_router(child, prefix=...)` and
//! `app.mount("/sub", subapp)`, Cadwyn's `app.generate_and_include_versioned_routers(router)`
//! (versions differ by header, not path). Prefixes may be literals, f-strings or `+` of literals and names
//! (`settings.API_V1_STR`), resolved across modules by the linker.
//!
//! Refuses (at link time): a prefix or path that is computed (`computed-route`), and an
//! `include_router` whose router cannot be found (`unresolved-mount`).
//!
//! Example: `router = APIRouter(prefix="/items")`, `@router.get("/{id}") def read_item(...)`, and
//! in `main.py` `app.include_router(items.router, prefix=settings.API_V1_STR)` with
//! `API_V1_STR: str = "/api/v1"` in the settings class give `GET /api/v1/items/{id}`.

use tree_sitter::Node;

use super::{
    MountDecl, MountKind, PathExpr, PathPart, PyRouteFacts, RouteDecl, methods_keyword, path_expr,
    prefix_keyword,
};
use crate::syntax::position;
use crate::syntax::python::{dotted, find_argument_value};

/// `include_router`, `mount` and `add_api_route` calls on `object`.
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
        "include_router" => {
            let child = find_argument_value(args, "router", 0, source);
            out.mounts.push(MountDecl {
                parent: object.to_owned(),
                child: child.and_then(|c| dotted(c, source)),
                prefix: prefix_keyword(args, &["prefix"], source),
                kind: MountKind::IncludeRouter,
                scope: None,
                line,
                column,
            });
        }
        // Cadwyn serves each version of the routers at the same paths (the version is a
        // header), so every router given is included as it is.
        "generate_and_include_versioned_routers" => {
            let mut cursor = args.walk();
            for router in args.named_children(&mut cursor) {
                let Some(child) = dotted(router, source) else { continue };
                out.mounts.push(MountDecl {
                    parent: object.to_owned(),
                    child: Some(child),
                    prefix: None,
                    kind: MountKind::IncludeRouter,
                    scope: None,
                    line,
                    column,
                });
            }
        }
        "mount" => {
            let path = find_argument_value(args, "path", 0, source);
            let child = find_argument_value(args, "app", 1, source);
            // `mount` is a common method name; only a dotted child can be an app of the tree.
            let Some(child) = child.and_then(|c| dotted(c, source)) else { return };
            out.mounts.push(MountDecl {
                parent: object.to_owned(),
                child: Some(child),
                prefix: path.map(|p| path_expr(p, source)),
                kind: MountKind::Mount,
                scope: None,
                line,
                column,
            });
        }
        "add_api_route" => {
            let path = find_argument_value(args, "path", 0, source);
            let handler = find_argument_value(args, "endpoint", 1, source);
            out.routes.push(RouteDecl {
                object: object.to_owned(),
                call: attr.to_owned(),
                path: path.map_or_else(
                    || PathExpr { parts: vec![PathPart::Computed] },
                    |p| path_expr(p, source),
                ),
                methods: methods_keyword(args, source),
                handler: handler.and_then(|h| dotted(h, source)),
                scope: None,
                line,
                column,
            });
        }
        _ => {}
    }
}
