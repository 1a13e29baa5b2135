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

use super::{JsRouteFacts, NextHandler, path_value};
use crate::recognise::Context;
use crate::syntax::FieldExt;
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
    let name = match key.kind() {
        "property_identifier" => Some(text(key, cx.source).to_owned()),
        _ => literal_string(key, cx.source),
    };
    if name.as_deref() == Some("basePath") {
        js.next_base_path = Some(path_value(value, cx));
    }
}

/// Records an export named exactly like an HTTP method (`GET`, `POST`, …) as a candidate App
/// Router handler; the linker decides from the file's path whether it is one.
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
}
