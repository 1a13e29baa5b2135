//! Django Ninja: APIs, routers and the Django URL entries that place them.
//!
//! Recognises `api = NinjaAPI(...)` (and `NinjaExtraAPI`), `router = Router()` imported from
//! `ninja`, the operation decorators `@api.get/post/put/patch/delete("/x")` (recorded by the
//! shared decorator reader in `mod.rs`) and `@router.api_operation(["GET", "POST"], "/x")`,
//! `api.add_router("/prefix", router)` and `router.add_router("/sub", child)`, the router given
//! as a name or as a dotted string (`"shop.api.router"`), and `path("api/", api.urls)` in a Django
//! URL conf, which puts the API and everything added to it under the conf's prefix. Paths use
//! Django converters inside braces (`{int:item_id}`), shown as `{item_id}`.
//!
//! Refuses (at link time): a computed operation path (`computed-route`), a router added from a
//! name that is not a router of the tree (`unresolved-mount`) and a router that no API reaches
//! (`unresolved-mount`: its full path is unknown). A computed `add_router` prefix keeps the
//! routes below it under an unknown segment, at most `possible`. An API that no URL conf
//! includes still serves its paths relative to the site root, `possible`.
//!
//! Example: `router = Router()`, `@router.get("/{int:pk}") def item(...)`, `api.add_router(
//! "/items", router)` and `path("api/", api.urls)` in the root URL conf give `GET
//! /api/items/{pk}`.

use tree_sitter::Node;

use super::{Methods, MountDecl, MountKind, PyRouteFacts, method_list, path_expr};
use crate::syntax::python::{dotted, find_argument_value};
use crate::syntax::{literal_string, position};

/// `parent.add_router(prefix, router)`.
pub(super) fn add_router(
    node: Node<'_>,
    object: &str,
    args: Node<'_>,
    source: &str,
    out: &mut PyRouteFacts,
) {
    let (line, column) = position(node);
    let prefix = find_argument_value(args, "prefix", 0, source).map(|p| path_expr(p, source));
    let router = find_argument_value(args, "router", 1, source);
    // A dotted name, or a string naming `module.attribute` (Ninja imports it).
    let child = router.and_then(|r| dotted(r, source).or_else(|| literal_string(r, source)));
    out.mounts.push(MountDecl {
        parent: object.to_owned(),
        child,
        prefix,
        kind: MountKind::AddRouter,
        scope: None,
        line,
        column,
    });
}

/// The methods of `@api.api_operation(["GET", "POST"], "/x")`.
pub(super) fn operation_methods(args: Node<'_>, source: &str) -> Methods {
    match find_argument_value(args, "methods", 0, source) {
        None => Methods::Computed,
        Some(list) => match method_list(list, source) {
            Some(methods) if !methods.is_empty() => Methods::Listed(methods),
            _ => Methods::Computed,
        },
    }
}

/// A Ninja path with Django converters in braces (`/{int:item_id}`) in the `{item_id}` form
/// templates read; `{path:rest}` stays a catch-all (`{rest:path}`).
pub fn template_path(path: &str) -> String {
    if !path.contains(':') {
        return path.to_owned();
    }
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        let Some(close) = after.find('}') else {
            out.push_str(after);
            return out;
        };
        let body = after.get(1..close).unwrap_or("");
        match body.split_once(':') {
            Some(("path", name)) => out.push_str(&format!("{{{}:path}}", name.trim())),
            Some((_, name)) => out.push_str(&format!("{{{}}}", name.trim())),
            None => out.push_str(after.get(..=close).unwrap_or("")),
        }
        rest = after.get(close + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::template_path;

    #[test]
    fn converters_in_braces_become_names() {
        assert_eq!(template_path("/items/{int:item_id}/x"), "/items/{item_id}/x");
        assert_eq!(template_path("/files/{path:rest}"), "/files/{rest:path}");
        assert_eq!(template_path("/plain/{id}"), "/plain/{id}");
    }
}
