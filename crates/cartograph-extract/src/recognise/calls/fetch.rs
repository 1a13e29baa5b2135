//! `fetch`: the global Fetch API (also `window.fetch`, `globalThis.fetch`).
//!
//! Recognises `fetch(url)` (GET) and `fetch(url, { method: "POST", … })`. The method comes from the
//! options object; options that are not an object literal, a computed `method`, or a spread with
//! no `method` key leave the method unknown and the call is refused. A `Request` object or a
//! computed URL is refused as `computed-url`.
//!
//! Example: ``fetch(`${API_URL}/items/${id}`, { method: "DELETE" })`` → `DELETE /items/{id}`, base
//! `API_URL` stripped.
//!
//! A method chosen by a conditional between two literal methods (`method: id ? "PUT" : "POST"`)
//! is one request per branch; a URL chosen by the same condition (`id ? `/x/${id}` : "/x"`) goes
//! with its branch, any other URL with both.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::args::{Args, MethodSpec};
use super::url::{self, CallUrl, Env, Role};
use crate::syntax::javascript::property_key;
use crate::syntax::{FieldExt, KindExt, literal_string, text};

/// Reads a `fetch` call.
pub(super) fn interpret(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let url = args.get(0)?.url.clone();
    let method = match args.get(1) {
        None => MethodSpec::Absent,
        Some(options) => options.options_method(),
    };
    Some((method.or_get(), url))
}

/// The requests of a `fetch` call whose method is chosen by a conditional between two literal
/// methods, one per branch, each with its URL (see the module documentation). `None` when the
/// method is not such a conditional, or a URL is read only later (it depends on a parameter, as
/// in a wrapper, or holds choices of its own): the call is then read as before, its method
/// unknown.
pub(super) fn method_branches(
    arguments: Node<'_>,
    source: &str,
    env: &Env<'_>,
) -> Option<Vec<(HttpMethod, CallUrl)>> {
    let mut cursor = arguments.walk();
    let mut positional =
        arguments.named_children(&mut cursor).filter(|c| c.kind_name() != "comment");
    let (target, options) = (positional.next()?, unparenthesized(positional.next()?));
    if options.kind_name() != "object" {
        return None;
    }
    let mut cursor = options.walk();
    let method = options.named_children(&mut cursor).find_map(|member| {
        let key = member.field("key")?;
        (member.kind_name() == "pair" && property_key(key, source).as_deref() == Some("method"))
            .then(|| member.field("value"))
            .flatten()
    })?;
    let method = unparenthesized(method);
    if method.kind_name() != "ternary_expression" {
        return None;
    }
    let condition = text(method.field("condition")?, source);
    let branch_method = |field| {
        let value = literal_string(unparenthesized(method.field(field)?), source)?;
        HttpMethod::parse(&value).filter(|m| *m != HttpMethod::Any)
    };
    let methods = [branch_method("consequence")?, branch_method("alternative")?];
    let target = unparenthesized(target);
    let paired = target.kind_name() == "ternary_expression"
        && target.field("condition").is_some_and(|c| text(c, source) == condition);
    let mut out = Vec::with_capacity(2);
    for (method, field) in methods.into_iter().zip(["consequence", "alternative"]) {
        let node = if paired { unparenthesized(target.field(field)?) } else { target };
        let url = url::read(node, source, env, Role::Call);
        if matches!(url, CallUrl::Deferred { .. }) {
            return None;
        }
        out.push((method, url));
    }
    Some(out)
}

/// `(x)` → `x`.
pub(super) fn unparenthesized(mut node: Node<'_>) -> Node<'_> {
    while node.kind_name() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
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

    #[test]
    fn a_method_chosen_by_a_conditional_is_a_request_per_branch() {
        check!(
            "web/src/save.ts",
            r#"
export async function save(data: { id?: string }, values: object) {
  await fetch(data?.id ? `/signatures/${data.id}` : "/signatures", {
    method: data?.id ? "PUT" : "POST",
    body: JSON.stringify(values),
  });
  await fetch("/webhooks", { method: (data.id ? "PUT" : "POST") });
  await fetch(a ? "/a" : "/b", { method: b ? "PUT" : "POST" });
  await fetch("/c", { method: data.id ? "PUT" : verb });
}
"#
        );
    }
}
