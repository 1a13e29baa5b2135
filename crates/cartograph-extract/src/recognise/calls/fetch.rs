//! `fetch`: the global Fetch API (also `window.fetch`, `globalThis.fetch`).
//!
//! Recognises `fetch(url)` (GET) and `fetch(url, { method: "POST", … })`. The method comes from the
//! options object; options that are not an object literal, a computed `method`, or a spread with
//! no `method` key leave the method unknown and the call is refused. A `Request` object or a
//! computed URL is refused as `computed-url`.
//!
//! Example: ``fetch(`${API_URL}/items/${id}`, { method: "DELETE" })`` → `DELETE /items/{id}`, base
//! `API_URL` stripped.

use cartograph_core::HttpMethod;

use super::args::{Args, MethodSpec};
use super::url::CallUrl;

/// Reads a `fetch` call.
pub(super) fn interpret(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let url = args.get(0)?.url.clone();
    let method = match args.get(1) {
        None => MethodSpec::Absent,
        Some(options) => options.options_method(),
    };
    Some((method.or_get(), url))
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn module_constants_are_substituted() {
        check!(
            "web/src/c.ts",
            r#"
const API = "/api/v1";
let moving = "/x";
export const ITEMS = `${API}/items`;
function f(id) {
  const local = "/not-module-level";
  fetch(`${ITEMS}/${id}`);
  fetch(moving);
  fetch(local);
}
"#
        );
    }

    #[test]
    fn fetch_calls() {
        check!(
            "web/src/api.ts",
            r#"
const API_URL = import.meta.env.VITE_API_URL;
export async function load(id: string, opts: RequestInit) {
  await fetch("/api/v1/items");
  await fetch(`${API_URL}/items/${id}`, { method: "DELETE" });
  await fetch(import.meta.env.VITE_API_URL + "/orders", { method: "post", body: "x" });
  await window.fetch("https://api.github.com/repos/" + id);
  await fetch(url);
  await fetch("/x", opts);
  await fetch("/y", { ...opts });
  await fetch("/z", { ...opts, method: "PUT" });
  await fetch(`/items?page=${id}`);
  await fetch("http://localhost:8000/api/health");
}
"#
        );
    }
}
