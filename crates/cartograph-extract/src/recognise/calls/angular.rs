//! Angular `HttpClient`: `this.http.get<T>(url)`, `.post(url, body)`, `.put`, `.patch`,
//! `.delete`, `.head`, `.options`, and `.request("GET", url)`, where `http` is typed
//! `HttpClient` (a constructor parameter `private http: HttpClient`, a field
//! `http: HttpClient`) or injected (`http = inject(HttpClient)`).
//!
//! Only receivers known to be an `HttpClient` of `@angular/common/http` count, so a router's
//! `this.router.navigate(…)` or another service's `get` is never a call. Computed URLs are
//! refused as `computed-url`.
//!
//! Example: `constructor(private http: HttpClient) {}` … ``this.http.get<Item[]>(`${this.apiUrl}/items`)``
//! → `GET /items`, base `this.apiUrl` stripped.

use std::collections::HashSet;

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::Libraries;
use super::args::Args;
use super::url::CallUrl;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::text;

/// `private http: HttpClient` in a constructor: the receiver is `this.http` (and `http`).
pub(super) fn parameter(
    node: Node<'_>,
    source: &str,
    libs: &Libraries,
    receivers: &mut HashSet<String>,
) {
    let name = node.field("pattern");
    let typed = node.field("type");
    if let (Some(name), Some(typed)) = (name, typed)
        && is_http_client(text(typed, source), libs)
    {
        let name = text(name, source);
        receivers.insert(format!("this.{name}"));
        receivers.insert(name.to_owned());
    }
}

/// `http: HttpClient;` as a class field: the receiver is `this.http`.
pub(super) fn field(
    node: Node<'_>,
    source: &str,
    libs: &Libraries,
    receivers: &mut HashSet<String>,
) {
    let name = node.field("name");
    let typed = node.field("type");
    if let (Some(name), Some(typed)) = (name, typed)
        && is_http_client(text(typed, source), libs)
    {
        receivers.insert(format!("this.{}", text(name, source)));
    }
}

/// `http = inject(HttpClient)` (a field, already named `this.http`, or a variable).
pub(super) fn injected(
    name: &str,
    value: Node<'_>,
    source: &str,
    libs: &Libraries,
    receivers: &mut HashSet<String>,
) {
    if value.kind_name() != "call_expression" {
        return;
    }
    let callee = value.field("function").map(|f| text(f, source));
    let argument = value.field("arguments").and_then(|a| a.named_child(0));
    if let (Some("inject"), Some(argument)) = (callee, argument)
        && libs.http_client.contains(text(argument, source))
    {
        receivers.insert(name.to_owned());
    }
}

fn is_http_client(annotation: &str, libs: &Libraries) -> bool {
    let name = annotation.trim_start_matches(':').trim();
    libs.http_client.contains(name)
}

/// Reads a call on an `HttpClient`.
pub(super) fn interpret(verb: Option<&str>, args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    match verb? {
        "request" => {
            let method = args.get(0)?.method().or_get();
            Some((method, args.get(1)?.url.clone()))
        }
        verb => Some((HttpMethod::parse(verb), args.get(0)?.url.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn http_client_receivers() {
        check!(
            "web/src/app/items.service.ts",
            r#"
import { Injectable, inject } from "@angular/core";
import { HttpClient } from "@angular/common/http";
import { Router } from "@angular/router";
@Injectable({ providedIn: "root" })
export class ItemsService {
  private readonly other = inject(HttpClient);
  constructor(private http: HttpClient, private router: Router) {}
  list() { return this.http.get<Item[]>(`${environment.apiUrl}/items`); }
  add(x: Item) { return this.other.post<Item>("/api/items", x); }
  raw() { return this.http.request("PUT", "/api/items/1"); }
  go() { this.router.navigate(["/items"]); return this.cache.get("/x"); }
}
"#
        );
    }
}
