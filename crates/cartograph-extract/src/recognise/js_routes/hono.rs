//! Hono: `on(method, path, h)`, `basePath` and sub-apps mounted with `route(prefix, subApp)`.
//!
//! Recognises `app.on("GET", "/x", h)` and `app.on(["GET", "POST"], "/x", h)`, apps created with
//! `new Hono()` or `new Hono().basePath("/api")` (the creation is read with the other servers),
//! and `app.route("/books", books)` where `books` is a Hono app created here or imported, also
//! chained on the creation (`export const auth = new Hono().use(m).route("/", session)
//! .get("/x", h)`: every link is a call on `auth`). The
//! method routes (`app.get("/x", h)`, chained or not) are read by the Express recogniser, whose
//! shapes they share.
//!
//! Refuses (at link time): a computed path or method (`computed-route`), a sub-app that cannot be
//! followed (`unresolved-mount`).
//!
//! Example: `const app = new Hono().basePath("/api"); app.route("/books", books)` with
//! `books.get("/:id", h)` in `books.ts` serves `GET /api/books/{id}`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::express::mount_target;
use super::fastify::methods_of;
use super::{
    JsRouteFacts, Mount, MountTarget, PathValue, RouteCall, handler_name, is_path_like, path_value,
    receiver,
};
use crate::recognise::Context;
use crate::syntax::position;

/// `receiver.on(method | [methods], path, …handlers)`.
pub(super) fn on(
    node: Node<'_>,
    object: Node<'_>,
    args: &[Node<'_>],
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    let [method, path, .., last] = args else {
        return;
    };
    if !is_path_like(*path) {
        return;
    }
    let Some(recv) = receiver(object, cx) else {
        return;
    };
    let methods = methods_of(*method, cx);
    let path = if methods.is_empty() { PathValue::Computed } else { path_value(*path, cx) };
    let (line, column) = position(node);
    js.routes.push(RouteCall {
        call: format!("{}.on", recv.name),
        receiver: recv,
        methods: if methods.is_empty() { vec![HttpMethod::Any] } else { methods },
        path,
        handler: handler_name(*last, cx),
        line,
        column,
    });
}

/// `receiver.route(prefix, subApp)`.
pub(super) fn route_mount(
    node: Node<'_>,
    object: Node<'_>,
    args: &[Node<'_>],
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    let [prefix, target, ..] = args else {
        return;
    };
    if !is_path_like(*prefix) {
        return;
    }
    let Some(recv) = receiver(object, cx) else {
        return;
    };
    let target = mount_target(*target, cx);
    if target == MountTarget::Other {
        return;
    }
    let (line, column) = position(node);
    js.mounts.push(Mount {
        call: format!("{}.route", recv.name),
        receiver: recv,
        prefix: Some(path_value(*prefix, cx)),
        target,
        plugin: false,
        wrapper: None,
        line,
        column,
    });
}
