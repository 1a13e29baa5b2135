//! Django URL confs and Django REST Framework routers.
//!
//! Recognises the entries of URL lists (`urlpatterns = [path("items/<int:id>/",
//! views.item_detail), re_path(r"^x/$", ...), path("api/", include("app.urls")), path("v1/",
//! include(router.urls)), path("x/", include([...]))]`, tuples too, `urlpatterns += [...]`,
//! `urlpatterns += router.urls`, `[*router.urls]`, lists of other modules spread or added in
//! (`urlpatterns = [*analytic_urls, *api_urls]` after `from .analytic import urlpatterns as
//! analytic_urls`, `old_patterns + new_patterns`), `patterns.append(path(...))`, and
//! `i18n_patterns(...)` under a language-code parameter, DRF `format_suffix_patterns(...)`
//! whose `.{format}` suffix variants are not listed), function views and class-based views
//! (`View.as_view()`; a viewset's `as_view({"get": "list"})` mapping gives its methods; a class
//! view serves the methods its in-tree class and well-known generic bases define), the
//! decorators that restrict a function view's methods (`@require_http_methods([...])`,
//! `@require_GET`, `@require_POST`, `@require_safe`, DRF `@api_view([...])`), DRF
//! `router.register(r"items", ItemViewSet)` and viewset `@action(detail=..., methods=[...])`,
//! viewset methods whose body only raises `MethodNotAllowed` (defined, yet answered with 405),
//! drf-nested-routers `NestedSimpleRouter(parent, r"items", lookup="item")` whose registrations
//! sit below `items/{item_pk}/`.
//! The linker chains `include("dotted.module")` through the modules' Python names from every
//! root URL conf (a `urls` module no other includes, or `ROOT_URLCONF`), and expands DRF
//! registrations into the conventional list and detail routes (`likely`, `convention`).
//!
//! Refuses (at link time): a `re_path` regex that is not a plain sequence of literal segments and
//! named groups, a computed route or include (`computed-route`), and an include whose module or
//! router is not found (`unresolved-mount`). Django serves every method on a route unless the
//! view restricts it, so unrestricted views give method `ANY`. A root conf's first include under
//! a computed route (`path(settings.BASE_PATH, include(...))`) is taken as a deployment base path:
//! what it includes is placed relative to it, `likely`, and the evidence says so. Any other
//! include under a computed route keeps what it includes under an unknown `{prefix}` segment, at
//! most `possible`, with one `computed-route` refusal that counts the routes below it.
//!
//! Example: `path("api/", include("shop.urls"))` in the root conf and `path("items/<int:pk>/",
//! views.item_detail)` in `shop/urls.py` give `ANY /api/items/{pk}`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::{
    NestedRouter, PathExpr, PathPart, PyRouteFacts, Registration, UrlEntry, UrlFunction, UrlTarget,
    ViewSetAction, method_list, path_expr,
};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::python::{dotted, find_argument_value, keyword_argument, positional_argument};
use crate::syntax::{literal_string, position, text};

/// `urlpatterns += [...]` / `urlpatterns += router.urls`.
pub(super) fn augmented(node: Node<'_>, cx: &Context<'_>, out: &mut PyRouteFacts) {
    let source = cx.source;
    let (Some(left), Some(right), Some(op)) =
        (cx.field(node, "left"), cx.field(node, "right"), node.field("operator"))
    else {
        return;
    };
    if left.kind_name() == "identifier" && text(op, source) == "+=" {
        url_list(text(left, source), right, source, out);
    }
}

/// An entry of list `name` that includes `target` under the literal `route`, at `node`: a
/// language-code segment of `i18n_patterns(...)`, or another list joined into this one.
fn joined(name: &str, node: Node<'_>, route: &str, target: UrlTarget) -> UrlEntry {
    let (line, column) = position(node);
    UrlEntry {
        list: name.to_owned(),
        parent: None,
        function: UrlFunction::Path,
        route: PathExpr::literal(route),
        target,
        as_view_methods: Vec::new(),
        line,
        column,
    }
}

/// The URL entries of a list assigned to `name` (lists joined with `+`, `router.urls` too).
pub(super) fn url_list(name: &str, right: Node<'_>, source: &str, out: &mut PyRouteFacts) {
    let mut operands = vec![right];
    let mut lists = Vec::new();
    while let Some(n) = operands.pop() {
        match n.kind_name() {
            "list" | "tuple" => lists.push((n, None)),
            // `i18n_patterns(path(...), ...)`: its entries under a language-code segment.
            "call" => {
                let function = n.field("function").and_then(|f| dotted(f, source));
                let last = function.as_deref().map(|f| f.rsplit('.').next().unwrap_or(f));
                // DRF `format_suffix_patterns(patterns)`: the same entries, each also served with
                // a `.json`-style suffix; the suffix variants are not listed as routes.
                if last == Some("format_suffix_patterns") {
                    let args = n.field("arguments");
                    operands.extend(
                        args.and_then(|a| find_argument_value(a, "urlpatterns", 0, source)),
                    );
                    continue;
                }
                let is_i18n = last == Some("i18n_patterns");
                let Some(args) = n.field("arguments").filter(|_| is_i18n) else {
                    continue;
                };
                out.url_entries.push(joined(name, n, "<language>/", UrlTarget::Inline));
                lists.push((args, Some(out.url_entries.len() - 1)));
            }
            "binary_operator" => {
                operands.extend(n.field("right"));
                operands.extend(n.field("left"));
            }
            "attribute" | "identifier" => {
                let Some(target) = dotted(n, source).and_then(|d| joined_list(name, &d)) else {
                    continue;
                };
                out.url_entries.push(joined(name, n, "", target));
            }
            _ => {}
        }
        if operands.len() > 64 {
            break;
        }
    }
    // Lists of the statement, then inline `include([...])` lists, each with its parent entry.
    let mut pending = lists;
    pending.reverse();
    while let Some((list, parent)) = pending.pop() {
        let mut cursor = list.walk();
        let items: Vec<Node<'_>> = list.named_children(&mut cursor).collect();
        for item in items {
            if let Some(inline) = entry(item, name, parent, source, out) {
                pending.push((inline, Some(out.url_entries.len() - 1)));
            }
        }
        if out.url_entries.len() > 100_000 {
            break;
        }
    }
}

/// What a name spread into or added to the URL list `list` includes: a router's or site's
/// `urls`, or another list of URL entries (`[*analytic_urls]`, `old_patterns + new_patterns`,
/// `urlpatterns = api_urls`), placed under an empty route.
///
/// Any list may be spread or added (`INSTALLED_APPS = [*DJANGO_APPS, *LOCAL_APPS]`), so a plain
/// name counts only where the list or the name is named like a URL list; the list itself
/// (`urlpatterns = [...] + urlpatterns`) holds its own entries already.
fn joined_list(list: &str, name: &str) -> Option<UrlTarget> {
    if name.ends_with(".urls") {
        return Some(UrlTarget::IncludeObject(name.to_owned()));
    }
    let url_like = |n: &str| {
        let last = n.rsplit('.').next().unwrap_or(n).to_ascii_lowercase();
        last.ends_with("urls") || last.ends_with("patterns")
    };
    if name == list || !(url_like(list) || url_like(name)) {
        return None;
    }
    Some(if name.contains('.') {
        UrlTarget::IncludeObject(name.to_owned())
    } else {
        UrlTarget::IncludeList(name.to_owned())
    })
}

/// `patterns.append(path(...))` / `patterns.extend([...])`.
pub(super) fn append(
    object: &str,
    attr: &str,
    args: Node<'_>,
    source: &str,
    out: &mut PyRouteFacts,
) {
    if object.contains('.') {
        return;
    }
    let Some(arg) = positional_argument(args, 0) else { return };
    match attr {
        "append" => {
            if let Some(inline) = entry(arg, object, None, source, out) {
                let parent = out.url_entries.len().checked_sub(1);
                let mut cursor = inline.walk();
                let items: Vec<Node<'_>> = inline.named_children(&mut cursor).collect();
                // One level of inline include is enough for an appended entry.
                for item in items {
                    entry(item, object, parent, source, out);
                }
            }
        }
        _ if arg.kind_name() == "list" => url_list(object, arg, source, out),
        _ => {}
    }
}

/// Records one `path(...)` / `re_path(...)` entry; returns the inline list it includes, if any.
fn entry<'t>(
    item: Node<'t>,
    list: &str,
    parent: Option<usize>,
    source: &str,
    out: &mut PyRouteFacts,
) -> Option<Node<'t>> {
    // `[*router.urls, path(...)]`, `[*analytic_urls, *api_urls]`
    if item.kind_name() == "list_splat" {
        let object = item.named_child(0).and_then(|o| dotted(o, source));
        // Inside `include([...])` every splat is a list of URL entries.
        let owner = if parent.is_some() { "urlpatterns" } else { list };
        if let Some(target) = object.and_then(|o| joined_list(owner, &o)) {
            let (line, column) = position(item);
            out.url_entries.push(UrlEntry {
                list: if parent.is_some() { String::new() } else { list.to_owned() },
                parent,
                function: UrlFunction::Path,
                route: PathExpr::literal(""),
                target,
                as_view_methods: Vec::new(),
                line,
                column,
            });
        }
        return None;
    }
    if item.kind_name() != "call" {
        return None;
    }
    let function = item.field("function").and_then(|f| dotted(f, source))?;
    let function = match function.rsplit('.').next().unwrap_or(&function) {
        "path" => UrlFunction::Path,
        "re_path" | "url" => UrlFunction::RePath,
        _ => return None,
    };
    let args = item.field("arguments")?;
    let route = find_argument_value(args, "route", 0, source)?;
    let view = find_argument_value(args, "view", 1, source);
    let mut inline = None;
    let target = match view {
        Some(v) => {
            let (target, list_node) = view_target(v, source);
            inline = list_node;
            target
        }
        None => UrlTarget::Computed,
    };
    let as_view_methods = view.map(|v| as_view_mapping(v, source)).unwrap_or_default();
    let (line, column) = position(item);
    out.url_entries.push(UrlEntry {
        list: if parent.is_some() { String::new() } else { list.to_owned() },
        parent,
        function,
        route: path_expr(route, source),
        target,
        as_view_methods,
        line,
        column,
    });
    inline
}

/// The methods of `ViewSet.as_view({"get": "list", "post": "create"})`.
fn as_view_mapping(view: Node<'_>, source: &str) -> Vec<HttpMethod> {
    let Some(args) = view.field("arguments") else { return Vec::new() };
    let Some(mapping) = positional_argument(args, 0).filter(|m| m.kind_name() == "dictionary")
    else {
        return Vec::new();
    };
    let mut methods = Vec::new();
    let mut cursor = mapping.walk();
    for pair in mapping.named_children(&mut cursor).filter(|p| p.kind_name() == "pair") {
        let key = pair.field("key").and_then(|k| literal_string(k, source));
        match key.as_deref().and_then(HttpMethod::parse) {
            Some(m) if !methods.contains(&m) => methods.push(m),
            Some(_) => {}
            // A computed key: the mapping is not known.
            None => return Vec::new(),
        }
    }
    methods
}

/// What the view argument of `path(...)` leads to.
fn view_target<'t>(view: Node<'t>, source: &str) -> (UrlTarget, Option<Node<'t>>) {
    if let Some(handler) = dotted(view, source) {
        // `path("admin/", admin.site.urls)`: a `(patterns, app, namespace)` tuple, like include.
        if handler.ends_with(".urls") {
            return (UrlTarget::IncludeObject(handler), None);
        }
        return (UrlTarget::View { handler, class_based: false }, None);
    }
    if view.kind_name() != "call" {
        return (UrlTarget::Computed, None);
    }
    let Some(function) = view.field("function") else {
        return (UrlTarget::Computed, None);
    };
    if function.kind_name() == "attribute"
        && function.field("attribute").is_some_and(|a| text(a, source) == "as_view")
    {
        return match function.field("object").and_then(|o| dotted(o, source)) {
            Some(handler) => (UrlTarget::View { handler, class_based: true }, None),
            None => (UrlTarget::Computed, None),
        };
    }
    let is_include =
        dotted(function, source).is_some_and(|f| f == "include" || f.ends_with(".include"));
    let Some(args) = view.field("arguments").filter(|_| is_include) else {
        return (UrlTarget::Computed, None);
    };
    let Some(mut first) = find_argument_value(args, "arg", 0, source) else {
        return (UrlTarget::Computed, None);
    };
    // `include(("app.urls", "namespace"))` / `include((patterns, "app"))`.
    if first.kind_name() == "tuple" {
        match first.named_child(0) {
            Some(inner) => first = inner,
            None => return (UrlTarget::Computed, None),
        }
    }
    if let Some(module) = literal_string(first, source) {
        return (UrlTarget::IncludeModule(module), None);
    }
    if first.kind_name() == "list" {
        return (UrlTarget::Inline, Some(first));
    }
    match dotted(first, source) {
        Some(name) if name.contains('.') => (UrlTarget::IncludeObject(name), None),
        Some(name) => (UrlTarget::IncludeList(name), None),
        None => (UrlTarget::Computed, None),
    }
}

/// DRF `router.register("prefix", ViewSet)`; a first argument that is not a string (Django
/// admin's `site.register(Model)`) is not a router registration.
pub(super) fn register(
    node: Node<'_>,
    object: &str,
    args: Node<'_>,
    source: &str,
    out: &mut PyRouteFacts,
) {
    let Some(prefix) = find_argument_value(args, "prefix", 0, source) else {
        return;
    };
    if !matches!(prefix.kind_name(), "string" | "concatenated_string" | "binary_operator") {
        return;
    }
    let viewset = find_argument_value(args, "viewset", 1, source);
    let (line, column) = position(node);
    out.registrations.push(Registration {
        router: object.to_owned(),
        prefix: path_expr(prefix, source),
        viewset: viewset.and_then(|v| dotted(v, source)),
        line,
        column,
    });
}

/// drf-nested-routers `NestedSimpleRouter(parent_router, parent_prefix, lookup="x")`.
pub(super) fn nested_router(name: &str, args: Node<'_>, source: &str) -> Option<NestedRouter> {
    let parent =
        find_argument_value(args, "parent_router", 0, source).and_then(|p| dotted(p, source))?;
    let prefix = find_argument_value(args, "parent_prefix", 1, source)?;
    let lookup = keyword_argument(args, "lookup", source).and_then(|l| literal_string(l, source));
    Some(NestedRouter {
        name: name.to_owned(),
        parent,
        parent_prefix: path_expr(prefix, source),
        lookup,
    })
}

/// The methods a view decorator restricts a function view to, if it is one.
pub(super) fn restriction(expr: Node<'_>, source: &str) -> Option<Vec<HttpMethod>> {
    if let Some(name) = dotted(expr, source) {
        return match name.rsplit('.').next().unwrap_or(&name) {
            "require_GET" => Some(vec![HttpMethod::Get]),
            "require_POST" => Some(vec![HttpMethod::Post]),
            "require_safe" => Some(vec![HttpMethod::Get, HttpMethod::Head]),
            // `@api_view` without arguments is not valid DRF; ignore it.
            _ => None,
        };
    }
    if expr.kind_name() != "call" {
        return None;
    }
    let function = dotted(expr.field("function")?, source)?;
    let args = expr.field("arguments")?;
    match function.rsplit('.').next().unwrap_or(&function) {
        "require_http_methods" => {
            let list = find_argument_value(args, "request_method_list", 0, source);
            list.and_then(|l| method_list(l, source))
        }
        "api_view" => {
            let list = find_argument_value(args, "http_method_names", 0, source);
            match list {
                // DRF's default is GET only.
                None => Some(vec![HttpMethod::Get]),
                Some(l) => method_list(l, source),
            }
        }
        _ => None,
    }
}

/// A DRF `@action(detail=..., methods=[...], url_path=...)` on a viewset method.
pub(super) fn action(decorated: Node<'_>, method: &str, source: &str) -> Option<ViewSetAction> {
    let mut cursor = decorated.walk();
    let decorators: Vec<Node<'_>> =
        decorated.named_children(&mut cursor).filter(|c| c.kind_name() == "decorator").collect();
    for decorator in decorators {
        let Some(call) = decorator.named_child(0).filter(|c| c.kind_name() == "call") else {
            continue;
        };
        let is_action = call
            .field("function")
            .and_then(|f| dotted(f, source))
            .is_some_and(|f| f == "action" || f.ends_with(".action"));
        let Some(args) = call.field("arguments").filter(|_| is_action) else {
            continue;
        };
        let detail = match keyword_argument(args, "detail", source).map(|d| text(d, source)) {
            Some("True") => true,
            Some("False") => false,
            _ => return None,
        };
        let methods = match keyword_argument(args, "methods", source) {
            None => vec![HttpMethod::Get],
            Some(list) => method_list(list, source)?,
        };
        let url_path = match keyword_argument(args, "url_path", source) {
            None => method.to_owned(),
            Some(p) => {
                let expr = path_expr(p, source);
                match expr.parts.as_slice() {
                    [PathPart::Literal(l)] => l.clone(),
                    _ => return None,
                }
            }
        };
        return Some(ViewSetAction { name: method.to_owned(), detail, methods, url_path });
    }
    None
}

/// True when a method's body (after an optional docstring) only raises DRF's
/// `MethodNotAllowed` (`raise MethodNotAllowed(request.method)`): the method is defined, yet
/// every request it would serve is answered with 405.
pub(super) fn only_refuses(function: Node<'_>, source: &str) -> bool {
    let Some(body) = function.field("body") else { return false };
    let mut cursor = body.walk();
    let statements: Vec<Node<'_>> =
        body.named_children(&mut cursor).filter(|s| s.kind_name() != "comment").collect();
    let statements = match statements.as_slice() {
        [doc, rest @ ..]
            if doc.kind_name() == "expression_statement"
                && doc.named_child(0).is_some_and(|s| s.kind_name() == "string") =>
        {
            rest
        }
        all => all,
    };
    let [raise] = statements else { return false };
    let Some(raised) = raise.named_child(0).filter(|_| raise.kind_name() == "raise_statement")
    else {
        return false;
    };
    let callee = if raised.kind_name() == "call" { raised.field("function") } else { Some(raised) };
    callee
        .and_then(|c| dotted(c, source))
        .is_some_and(|d| d.rsplit('.').next() == Some("MethodNotAllowed"))
}
