//! Next.js file routes: App Router `route.ts` handlers and Pages Router `pages/api` files.
//!
//! Recognises, in any file, the exports a route file is made of: functions exported under an
//! HTTP method's name (`export async function GET`, `export const POST = …`,
//! `export { handler as GET }`) and the default export (`export default function handler`). The
//! linker turns them into routes by convention from the file's path — `app/**/route.ts` exported
//! methods at the folder's path (route groups `(group)` and `@slot` folders dropped, `[id]`
//! parameters, `[...slug]` catch-alls, `_private` folders and intercepting `(.)x` folders not
//! routed) and `pages/api/**` default exports as `ANY /api/…` (`index` files at their folder) —
//! only inside a Next.js project: a `next.config.*` beside the `app`/`pages` folder (or beside
//! its `src` parent), or, failing that, a route file that imports `next` itself (then the
//! confidence is `likely`).
//!
//! A Pages Router handler serves every method unless it checks `req.method`: the methods it
//! compares the request's `method` with (`req.method === "POST"`, `!==` guards, `switch
//! (req.method)` cases, `["GET", "PUT"].includes(req.method)`) and the upper-case keys of a
//! method-keyed table looked up by `[req.method]` are the methods read for the file; a check of
//! `OPTIONS` alone (a CORS preflight) leaves the handler serving every method.
//!
//! In a `next.config.*` file, a `basePath: "/docs"` property is read; the linker puts it in front
//! of every route of the project.
//!
//! Refuses (at link time) the routes of a project whose `basePath` is not a literal
//! (`computed-route`). A file outside a Next.js project is not a route and is not refused.
//!
//! Example: `export async function GET` in `app/api/items/[id]/route.ts` next to
//! `next.config.js` serves `GET /api/items/{id}`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::{JsRouteFacts, NextHandler, named_args, path_value, strip_expression};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position, text};

/// A `basePath: …` property in a `next.config.*` file.
pub(super) fn base_path(pair: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let path = cx.path.as_str();
    let file = path.rsplit('/').next().unwrap_or(path);
    if !file.starts_with("next.config.") {
        return;
    }
    let (Some(key), Some(value)) = (pair.field("key"), pair.field("value")) else {
        return;
    };
    let name = match key.kind_name() {
        "property_identifier" => Some(text(key, cx.source).to_owned()),
        _ => literal_string(key, cx.source),
    };
    if name.as_deref() == Some("basePath") {
        js.next_base_path = Some(path_value(value, cx));
    }
}

/// The methods the file's code compares a `.method` with, or keys a table looked up by
/// `[….method]` with, sorted and without repeats; empty when the file checks no method.
pub(super) fn method_checks(root: Node<'_>, cx: &Context<'_>) -> Vec<HttpMethod> {
    let mut checked = Vec::new();
    let mut table_keys = Vec::new();
    let mut looked_up = false;
    let mut cursor = root.walk();
    // A pre-order walk of the whole tree with one cursor: no recursion, so deep nesting is safe.
    'walk: loop {
        let node = cursor.node();
        match node.kind_name() {
            "binary_expression" => {
                let operator = node.field("operator").map(|o| text(o, cx.source));
                if matches!(operator, Some("===" | "==" | "!==" | "!="))
                    && let (Some(left), Some(right)) = (node.field("left"), node.field("right"))
                {
                    let literal = if is_method_read(left, cx) {
                        Some(right)
                    } else if is_method_read(right, cx) {
                        Some(left)
                    } else {
                        None
                    };
                    checked.extend(literal.and_then(|l| method_literal(l, cx)));
                }
            }
            "switch_statement" => {
                if node.field("value").is_some_and(|v| is_method_read(v, cx))
                    && let Some(body) = node.field("body")
                {
                    let mut inner = body.walk();
                    for case in body.named_children(&mut inner) {
                        if case.kind_name() == "switch_case" {
                            checked.extend(case.field("value").and_then(|v| method_literal(v, cx)));
                        }
                    }
                }
            }
            "call_expression" => {
                if let Some(function) = node.field("function")
                    && function.kind_name() == "member_expression"
                    && function
                        .field("property")
                        .is_some_and(|p| matches!(text(p, cx.source), "includes" | "indexOf"))
                    && let Some(array) = function.field("object").map(strip_expression)
                    && array.kind_name() == "array"
                    && node
                        .field("arguments")
                        .and_then(|a| named_args(a).first().copied())
                        .is_some_and(|a| is_method_read(a, cx))
                {
                    let mut inner = array.walk();
                    for element in array.named_children(&mut inner) {
                        checked.extend(method_literal(element, cx));
                    }
                }
            }
            "subscript_expression" => {
                looked_up |= node.field("index").is_some_and(|i| is_method_read(i, cx));
            }
            "object" => table_keys.extend(method_keys(node, cx)),
            _ => {}
        }
        if !crate::syntax::advance(&mut cursor, true) {
            break 'walk;
        }
    }
    if looked_up {
        checked.extend(table_keys);
    }
    checked.sort();
    checked.dedup();
    // A CORS preflight answered first says nothing about the methods served after it.
    if checked == [HttpMethod::Options] {
        checked.clear();
    }
    checked
}

/// `req.method`, `request.method`, `ctx.req.method`: a read of a `method` property.
fn is_method_read(node: Node<'_>, cx: &Context<'_>) -> bool {
    let node = strip_expression(node);
    node.kind_name() == "member_expression"
        && node.field("property").is_some_and(|p| text(p, cx.source) == "method")
}

/// An upper-case HTTP method name written as a string.
fn method_literal(node: Node<'_>, cx: &Context<'_>) -> Option<HttpMethod> {
    let value = literal_string(strip_expression(node), cx.source)?;
    upper_method(&value)
}

fn upper_method(name: &str) -> Option<HttpMethod> {
    match name {
        "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS" => HttpMethod::parse(name),
        _ => None,
    }
}

/// The keys of an object whose every key is an upper-case HTTP method (`{ GET: list, POST:
/// create }`); none for any other object.
fn method_keys(object: Node<'_>, cx: &Context<'_>) -> Vec<HttpMethod> {
    let mut cursor = object.walk();
    let mut keys = Vec::new();
    for child in object.named_children(&mut cursor) {
        let key = match child.kind_name() {
            "pair" => child.field("key"),
            "method_definition" => child.field("name"),
            "shorthand_property_identifier" => Some(child),
            "comment" => continue,
            _ => return Vec::new(),
        };
        let name = key.and_then(|k| match k.kind_name() {
            "property_identifier" | "shorthand_property_identifier" => {
                Some(text(k, cx.source).to_owned())
            }
            _ => literal_string(k, cx.source),
        });
        match name.as_deref().and_then(upper_method) {
            Some(method) => keys.push(method),
            None => return Vec::new(),
        }
    }
    keys
}

/// Records an export named exactly like an HTTP method (`GET`, `POST`, …) as a candidate App
/// Router handler, and a `loader` or `action` export as a candidate React Router one; the
/// linkers decide from the file's path (and the project around it) whether it is one.
pub(super) fn next_handler(exported: &str, local: &str, at: Node<'_>, js: &mut JsRouteFacts) {
    let method = match exported {
        "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS" => {
            HttpMethod::parse(exported)
        }
        _ => None,
    };
    if let Some(method) = method {
        let (line, column) = position(at);
        js.next_handlers.push(NextHandler { method, handler: local.to_owned(), line, column });
    }
    // A React Router / Remix route module's data functions (see `remix::link`).
    let remix = match exported {
        "loader" => Some(HttpMethod::Get),
        "action" => Some(HttpMethod::Post),
        _ => None,
    };
    if let Some(method) = remix {
        let (line, column) = position(at);
        js.remix_exports.push(NextHandler { method, handler: local.to_owned(), line, column });
    }
}
