//! Fastify: the full route declaration and plugins registered with a prefix.
//!
//! Recognises `fastify.route({ method: "GET", url: "/x", handler })` (also `path:` and a method
//! list `method: ["GET", "POST"]`) and `fastify.register(plugin, { prefix: "/v1" })` where the
//! plugin is a function declared here, written inline, imported (`import users from
//! "./users"`) or required in place. Inside a plugin, routes are declared on the function's first
//! parameter (`async function users(fastify) { fastify.get("/", h) }`); the shorthand methods are
//! read by the Express recogniser, whose shapes they share, and the linker follows the parameter
//! to wherever the plugin is registered. `Fastify()` / `fastify()` creates the root instance. A
//! plugin wrapped with `fastify-plugin` (`fp(async (f) => …)`) is not encapsulated: Fastify does
//! not apply a registration `prefix` to it, and neither does the linker (confidence `likely`).
//!
//! Refuses (at link time): a non-literal `url` or `method` (`computed-route`), a `prefix` that is
//! not a literal (`computed-route`), a plugin that cannot be followed (`unresolved-mount`).
//!
//! Example: `fastify.register(itemRoutes, { prefix: "/api/items" })` with
//! `fastify.get("/:id", …)` inside `itemRoutes` serves `GET /api/items/{id}`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::express::mount_target;
use super::{
    JsRouteFacts, Mount, MountTarget, PathValue, RouteCall, handler_name, object_property,
    path_value, receiver,
};
use crate::recognise::Context;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position};

/// `receiver.route({ method, url, handler })`.
pub(super) fn route_object(
    node: Node<'_>,
    object: Node<'_>,
    args: &[Node<'_>],
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    let Some(options) = args.first() else {
        return;
    };
    let Some(recv) = receiver(object, cx) else {
        return;
    };
    let Some(url) = object_property(*options, "url", cx.source)
        .or_else(|| object_property(*options, "path", cx.source))
    else {
        return;
    };
    let Some(method) = object_property(*options, "method", cx.source) else {
        return;
    };
    let methods = methods_of(method, cx);
    let path = if methods.is_empty() { PathValue::Computed } else { path_value(url, cx) };
    let handler = object_property(*options, "handler", cx.source).and_then(|h| handler_name(h, cx));
    let (line, column) = position(node);
    js.routes.push(RouteCall {
        call: format!("{}.route", recv.name),
        receiver: recv,
        // A computed method list reads as a computed route; keep one method so the linker
        // refuses it once.
        methods: if methods.is_empty() { vec![HttpMethod::Any] } else { methods },
        path,
        handler,
        line,
        column,
    });
}

/// A literal method or a literal list of methods; empty when anything is computed.
pub(super) fn methods_of(node: Node<'_>, cx: &Context<'_>) -> Vec<HttpMethod> {
    if let Some(one) = literal_string(node, cx.source) {
        return HttpMethod::parse(&one).into_iter().collect();
    }
    if node.kind_name() != "array" {
        return Vec::new();
    }
    let mut methods = Vec::new();
    let mut cursor = node.walk();
    for item in node.named_children(&mut cursor) {
        match literal_string(item, cx.source).and_then(|m| HttpMethod::parse(&m)) {
            Some(m) => methods.push(m),
            None => return Vec::new(),
        }
    }
    methods
}

/// `receiver.register(plugin, { prefix })`.
pub(super) fn register(
    node: Node<'_>,
    object: Node<'_>,
    args: &[Node<'_>],
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    let Some(recv) = receiver(object, cx) else {
        return;
    };
    let Some(plugin) = args.first() else {
        return;
    };
    let target = mount_target(*plugin, cx);
    if target == MountTarget::Other {
        return;
    }
    let prefix = args
        .get(1)
        .filter(|o| o.kind_name() == "object")
        .and_then(|o| object_property(*o, "prefix", cx.source))
        .map(|p| path_value(p, cx));
    let (line, column) = position(node);
    js.mounts.push(Mount {
        call: format!("{}.register", recv.name),
        receiver: recv,
        prefix,
        target,
        plugin: true,
        wrapper: None,
        line,
        column,
    });
}
