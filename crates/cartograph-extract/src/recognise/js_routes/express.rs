//! Express and Koa-router: route methods on apps and routers, `route()` chains and `use` mounts.
//!
//! Recognises `app.get("/x", h)`, `router.post("/x", auth, h)`, `app.get(["/a", "/b"], h)`,
//! `app.all(…)`, Koa's
//! `router.del(…)` and named routes `router.get("name", "/x", h)`, the chain
//! `app.route("/x").get(h).post(h)`, and mounts `app.use("/prefix", router)`,
//! `app.use(router)`, `app.use("/p", require("./r"))`, Koa's `app.use(router.routes())` and
//! `router.use("/p", sub.routes())`, and Koa apps mounted with koa-mount
//! (`app.use(mount("/api", api))`, kept only when `mount` is imported from `koa-mount`), and
//! what a factory returns: `app.use(mount("/api", initApis(t)))` and
//! `for (const r of createRouters(t)) app.use(r.routes())` mount the servers the function returns
//! (`return app`, `return [a, b]`), and `for (const r of [a, b])` mounts each of them. The
//! receiver is recorded as written: only the linker decides
//! whether it is an app or router created from `express()`, `express.Router()`, `Router()`,
//! `new Koa()` or `new Router({prefix})` (or a Koa router's `router.prefix("/p")`; here or in
//! the module it is imported from), so
//! `router.navigate("/x")`, `history.push("/x")` and `map.get("x", fallback)` never become routes.
//! The same method shapes serve Fastify's shorthand routes and Hono's method routes, which return
//! their instance and may be chained (`app.get("/a", h).post("/b", h)`).
//!
//! Routers of a folder loaded with the `auto-load` package (`const ctrl =
//! autoload(path.join(ROOT, "/controllers"))`, then `app.use("/", ctrl.auth)`): the folder is the
//! call's last literal read beside the mounting file, `ctrl.auth` its `auth` module's default
//! export; the root is computed, so such routes are at most `likely`.
//!
//! Refuses (at link time): a path that is not a literal (`computed-route`); a prefix mounting
//! something that cannot be followed to a router (`unresolved-mount`).
//!
//! Example: `router.get("/:id", getOrder)` in `routes/orders.js`, mounted by
//! `app.use("/api/orders", ordersRouter)` in `server.js`, serves `GET /api/orders/{id}`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::{
    HookMount, JsRouteFacts, Mount, MountTarget, PathValue, RouteCall, fastify, function_key,
    handler_name, hono, hooks, is_function, is_path_like, named_args, path_value, receiver,
    required_module, strip_expression,
};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{position, text};

/// The HTTP method a route-declaring member name stands for.
pub(super) fn method_of(name: &str) -> Option<HttpMethod> {
    match name {
        "get" | "post" | "put" | "patch" | "delete" | "head" | "options" => HttpMethod::parse(name),
        "del" => Some(HttpMethod::Delete),
        "all" => Some(HttpMethod::Any),
        _ => None,
    }
}

/// A call `receiver.name(…)`.
pub(super) fn member_call(
    node: Node<'_>,
    function: Node<'_>,
    name: &str,
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    let Some(arguments) = node.field("arguments") else {
        return;
    };
    let Some(object) = function.field("object") else {
        return;
    };
    let args = named_args(arguments);
    match name {
        "use" => mount(node, object, &args, cx, js),
        "route" => match args.first().map(|a| a.kind_name()) {
            Some("object") => fastify::route_object(node, object, &args, cx, js),
            Some(_) if args.len() >= 2 => hono::route_mount(node, object, &args, cx, js),
            _ => {}
        },
        "register" => fastify::register(node, object, &args, cx, js),
        "on" => hono::on(node, object, &args, cx, js),
        _ => {
            if let Some(method) = method_of(name) {
                route(node, object, name, method, &args, cx, js);
            }
        }
    }
}

/// `receiver.get(path, …handlers)` or a link of `receiver.route(path).get(h)`.
fn route(
    node: Node<'_>,
    object: Node<'_>,
    name: &str,
    method: HttpMethod,
    args: &[Node<'_>],
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    let (root, chain_path) = chain_root(object, cx);
    let Some(recv) = receiver(root, cx) else {
        return;
    };
    let (path, handlers) = match chain_path {
        Some(path) => (vec![path], args),
        None => {
            let [first, rest @ ..] = args else {
                return;
            };
            if rest.is_empty()
                || !is_path_like(*first) && !matches!(first.kind_name(), "regex" | "array")
            {
                return;
            }
            // Express path arrays: `app.get(["/a", "/b"], h)` serves each path.
            if first.kind_name() == "array" {
                (array_paths(*first, cx), rest)
            } else {
                // Koa-router named routes: `router.get("name", "/path", handler)`.
                match rest {
                    [second, tail @ ..]
                        if !tail.is_empty()
                            && matches!(path_value(*first, cx), PathValue::Literal(ref n) if !n.starts_with('/'))
                            && matches!(path_value(*second, cx), PathValue::Literal(ref p) if p.starts_with('/')) =>
                    {
                        (vec![path_value(*second, cx)], tail)
                    }
                    _ => (vec![path_value(*first, cx)], rest),
                }
            }
        }
    };
    let Some(last) = handlers.last() else {
        return;
    };
    let call = if chain_path_is_route(object, cx) {
        format!("{}.route().{name}", recv.name)
    } else {
        format!("{}.{name}", recv.name)
    };
    let (line, column) = position(node);
    let handler = handler_name(*last, cx);
    for path in path {
        js.routes.push(RouteCall {
            receiver: recv.clone(),
            methods: vec![method],
            path,
            handler: handler.clone(),
            call: call.clone(),
            line,
            column,
        });
    }
}

/// The paths of an array argument; one computed entry when any element is not a literal.
fn array_paths(array: Node<'_>, cx: &Context<'_>) -> Vec<PathValue> {
    let mut cursor = array.walk();
    let items: Vec<PathValue> = array
        .named_children(&mut cursor)
        .filter(|n| n.kind_name() != "comment")
        .map(|n| path_value(n, cx))
        .collect();
    if items.is_empty() || items.iter().any(|p| matches!(p, PathValue::Computed)) {
        vec![PathValue::Computed]
    } else {
        items
    }
}

/// Follows a chain of calls on the same instance back to its root: `app.route("/x").get(h)` has
/// root `app` and chain path `/x`; `app.get("/a", h).post(…)` has root `app` and no chain path.
fn chain_root<'t>(object: Node<'t>, cx: &Context<'_>) -> (Node<'t>, Option<PathValue>) {
    let mut node = strip_expression(object);
    for _ in 0..64 {
        if node.kind_name() != "call_expression" {
            break;
        }
        let Some(function) = node.field("function") else {
            break;
        };
        if function.kind_name() != "member_expression" {
            break;
        }
        let (Some(property), Some(inner)) = (function.field("property"), function.field("object"))
        else {
            break;
        };
        let name = text(property, cx.source);
        let args = node.field("arguments").map(named_args).unwrap_or_default();
        if name == "route"
            && let [path] = args.as_slice()
            && is_path_like(*path)
        {
            return (strip_expression(inner), Some(path_value(*path, cx)));
        }
        if method_of(name).is_none() {
            break;
        }
        node = strip_expression(inner);
    }
    (node, None)
}

/// True when the chain below a method call starts with `route(path)`.
fn chain_path_is_route(object: Node<'_>, cx: &Context<'_>) -> bool {
    chain_root(object, cx).1.is_some()
}

/// `receiver.use([prefix,] …targets)`.
fn mount(
    node: Node<'_>,
    object: Node<'_>,
    args: &[Node<'_>],
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    let Some(recv) = receiver(object, cx) else {
        return;
    };
    // A first argument that is a string, or a name followed by more arguments, is the mount
    // path. A name is read from the file's string constants after the walk; when it is not one
    // (an imported constant, or middleware written first) the mount is refused as computed, which
    // loses routes but never gives them a wrong prefix.
    let (prefix, targets) = match args {
        [first, rest @ ..]
            if matches!(first.kind_name(), "string" | "template_string" | "binary_expression")
                || (!rest.is_empty()
                    && matches!(first.kind_name(), "identifier" | "member_expression")) =>
        {
            (Some(path_value(*first, cx)), rest)
        }
        _ => (None, args),
    };
    let (line, column) = position(node);
    let call = format!("{}.use", recv.name);
    for target in targets {
        if let Some((wrapper, inner_prefix, inner)) = wrapped_app(*target, cx) {
            js.mounts.push(Mount {
                receiver: recv.clone(),
                prefix: inner_prefix.or_else(|| prefix.clone()),
                target: inner,
                call: format!("{call}({wrapper})"),
                plugin: false,
                wrapper: Some(wrapper),
                line,
                column,
            });
            continue;
        }
        let target = mount_target(*target, cx);
        let targets = match &target {
            MountTarget::Other => continue,
            MountTarget::Name(name) => {
                if let Some(item) = hooks::registry_item(node, name, cx) {
                    js.hook_mounts.push(HookMount {
                        receiver: recv.clone(),
                        prefix: prefix.clone(),
                        query: item.query,
                        path: item.path,
                        call: call.clone(),
                        line,
                        column,
                    });
                    continue;
                }
                loop_targets(node, name, cx).unwrap_or_else(|| vec![target])
            }
            _ => vec![target],
        };
        for target in targets {
            js.mounts.push(Mount {
                receiver: recv.clone(),
                prefix: prefix.clone(),
                target,
                call: call.clone(),
                plugin: false,
                wrapper: None,
                line,
                column,
            });
        }
    }
}

/// What a loop variable mounted in the loop's body stands for: `for (const r of [a, b])` gives
/// `a` and `b`, `for (const r of createRouters())` the servers `createRouters` returns. `None`
/// when `name` is not the variable of an enclosing `for … of` loop over such a list.
fn loop_targets(node: Node<'_>, name: &str, cx: &Context<'_>) -> Option<Vec<MountTarget>> {
    let mut current = cx.parent(node);
    while let Some(n) = current {
        if is_function(n.kind_name()) {
            return None;
        }
        if n.kind_name() == "for_in_statement"
            && n.field("left")
                .is_some_and(|l| l.kind_name() == "identifier" && text(l, cx.source) == name)
        {
            // Anything else (a `for … in`, a list held in a variable) keeps the loop variable as
            // the target, which the linker refuses as a router it cannot follow.
            let of = n.field("operator").is_some_and(|o| text(o, cx.source) == "of");
            let right = n.field("right").map(strip_expression).filter(|_| of)?;
            return match right.kind_name() {
                "array" => {
                    let mut cursor = right.walk();
                    Some(
                        right
                            .named_children(&mut cursor)
                            .filter(|e| e.kind_name() != "comment")
                            .map(|e| mount_target(e, cx))
                            .filter(|t| *t != MountTarget::Other)
                            .collect(),
                    )
                }
                "call_expression" => match mount_target(right, cx) {
                    call @ MountTarget::Call(_) => Some(vec![call]),
                    _ => None,
                },
                _ => None,
            };
        }
        current = cx.parent(n);
    }
    None
}

/// `mount("/api", api)` / `mount(api)` handed to `use`: the function, its prefix and the app it
/// mounts (whether the function is koa-mount's is decided once the file's imports are known).
fn wrapped_app(
    node: Node<'_>,
    cx: &Context<'_>,
) -> Option<(String, Option<PathValue>, MountTarget)> {
    let node = strip_expression(node);
    if node.kind_name() != "call_expression" {
        return None;
    }
    let function = node.field("function").filter(|f| f.kind_name() == "identifier")?;
    let name = text(function, cx.source);
    if name == "require" {
        return None;
    }
    let args = node.field("arguments").map(named_args).unwrap_or_default();
    let (prefix, app) = match args.as_slice() {
        [prefix, app] if is_path_like(*prefix) => (Some(path_value(*prefix, cx)), *app),
        [app] => (None, *app),
        _ => return None,
    };
    let target = mount_target(app, cx);
    matches!(target, MountTarget::Name(_) | MountTarget::Module { .. } | MountTarget::Call(_))
        .then(|| (name.to_owned(), prefix, target))
}

/// What a mount argument names.
pub(super) fn mount_target(node: Node<'_>, cx: &Context<'_>) -> MountTarget {
    let node = strip_expression(node);
    match node.kind_name() {
        "identifier" => MountTarget::Name(text(node, cx.source).to_owned()),
        "member_expression" => {
            let (Some(object), Some(property)) = (node.field("object"), node.field("property"))
            else {
                return MountTarget::Other;
            };
            if let Some(specifier) = required_module(object, cx) {
                let member = text(property, cx.source).to_owned();
                return MountTarget::Module { specifier, member: Some(member) };
            }
            if super::is_dotted_name(node) {
                MountTarget::Name(text(node, cx.source).to_owned())
            } else {
                MountTarget::Other
            }
        }
        "call_expression" => {
            if let Some(specifier) = required_module(node, cx) {
                return MountTarget::Module { specifier, member: None };
            }
            // Koa: `router.routes()` / `router.middleware()` mounts the router itself.
            let Some(function) = node.field("function") else {
                return MountTarget::Other;
            };
            if function.kind_name() == "member_expression"
                && let (Some(object), Some(property)) =
                    (function.field("object"), function.field("property"))
                && matches!(text(property, cx.source), "routes" | "middleware")
                && super::is_dotted_name(object)
            {
                return MountTarget::Name(text(object, cx.source).to_owned());
            }
            // A factory: `app.use(mount("/api", initApis(tenant)))`.
            if function.kind_name() == "identifier" {
                return MountTarget::Call(text(function, cx.source).to_owned());
            }
            MountTarget::Other
        }
        kind if is_function(kind) => match function_key(node, cx) {
            Some(key) => MountTarget::Function(key),
            None => MountTarget::Other,
        },
        _ => MountTarget::Other,
    }
}
