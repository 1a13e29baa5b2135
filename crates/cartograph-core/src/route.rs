//! HTTP methods and route templates: the identity of a `route` node and what calls are matched on.
//!
//! A template is a normalised path: query and fragment dropped, repeated and trailing slashes
//! removed, and every parameter spelling unified — `{id}`, `{id:int}`, `:id`, `<int:id>`, `<id>`,
//! `[id]`, `[...slug]`, a template-literal `${x}` or an f-string `{x}` — into one parameter
//! segment shown as `{}`. Two routes whose templates differ only in parameter names are the same
//! route; the names are kept for display.

use std::fmt;

/// An HTTP method; `Any` is a handler that serves every method.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum HttpMethod {
    Get,
    Post,
    Put,
    Patch,
    Delete,
    Head,
    Options,
    Any,
}

impl HttpMethod {
    pub const ALL: [HttpMethod; 8] = [
        HttpMethod::Get,
        HttpMethod::Post,
        HttpMethod::Put,
        HttpMethod::Patch,
        HttpMethod::Delete,
        HttpMethod::Head,
        HttpMethod::Options,
        HttpMethod::Any,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
            HttpMethod::Head => "HEAD",
            HttpMethod::Options => "OPTIONS",
            HttpMethod::Any => "ANY",
        }
    }

    /// Parses a method name in any case (`get`, `GET`, `Get`); `all`/`any`/`*` is `Any`.
    pub fn parse(name: &str) -> Option<HttpMethod> {
        let upper = name.trim().to_ascii_uppercase();
        match upper.as_str() {
            "ALL" | "ANY" | "*" => Some(HttpMethod::Any),
            _ => HttpMethod::ALL.into_iter().find(|m| m.as_str() == upper),
        }
    }

    /// True when a call with method `call` can be served by a route with this method.
    pub fn serves(self, call: HttpMethod) -> bool {
        self == call
            || self == HttpMethod::Any
            || (self == HttpMethod::Get && call == HttpMethod::Head)
    }
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One segment of a route template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Segment {
    Literal(String),
    /// A parameter; the name is for display only and takes no part in equality of templates
    /// (see [`RouteTemplate::identity`]).
    Param(String),
    /// A catch-all (`*`, `**`, `[...slug]`, `{path:path}`): matches one or more segments.
    CatchAll(String),
}

/// A normalised path template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RouteTemplate {
    segments: Vec<Segment>,
}

/// How well a call's template matches a route's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TemplateMatch {
    /// Literal meets equal literal and parameter meets parameter, segment for segment.
    Exact,
    /// Only a catch-all or a computed call segment made them meet.
    Partial,
    /// A literal segment of the call met a route parameter (`/orders/export` vs `/orders/{id}`):
    /// it matches only by accident when no literal route exists.
    LiteralMeetsParam,
}

impl RouteTemplate {
    /// Parses and normalises a path. Never fails: an empty or `/` path is the root template.
    pub fn parse(path: &str) -> Self {
        let path = path.split(['?', '#']).next().unwrap_or("");
        let segments = path.split('/').filter(|s| !s.is_empty()).map(normalise_segment).collect();
        Self { segments }
    }

    pub fn from_segments(segments: Vec<Segment>) -> Self {
        Self { segments }
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// This template with `prefix`'s segments in front.
    pub fn prefixed(&self, prefix: &RouteTemplate) -> RouteTemplate {
        let mut segments = prefix.segments.clone();
        segments.extend(self.segments.iter().cloned());
        RouteTemplate { segments }
    }

    /// The identity form, with every parameter shown as `{}`: `/api/v1/items/{}`.
    pub fn identity(&self) -> String {
        self.render(|s| match s {
            Segment::Literal(l) => l.clone(),
            Segment::Param(_) => "{}".to_owned(),
            Segment::CatchAll(_) => "{*}".to_owned(),
        })
    }

    /// The display form, with parameter names: `/api/v1/items/{item_id}`.
    pub fn display(&self) -> String {
        self.render(|s| match s {
            Segment::Literal(l) => l.clone(),
            Segment::Param(n) if n.is_empty() => "{}".to_owned(),
            Segment::Param(n) => format!("{{{n}}}"),
            Segment::CatchAll(n) if n.is_empty() => "{*}".to_owned(),
            Segment::CatchAll(n) => format!("{{*{n}}}"),
        })
    }

    fn render(&self, segment: impl Fn(&Segment) -> String) -> String {
        if self.segments.is_empty() {
            return "/".to_owned();
        }
        let mut out = String::new();
        for s in &self.segments {
            out.push('/');
            out.push_str(&segment(s));
        }
        out
    }

    /// How a call with this template matches a route with template `route`, if at all.
    pub fn matches_route(&self, route: &RouteTemplate) -> Option<TemplateMatch> {
        let call = &self.segments;
        let served = &route.segments;
        let mut quality = TemplateMatch::Exact;
        let mut i = 0;
        for (j, s) in served.iter().enumerate() {
            match s {
                Segment::CatchAll(_) => {
                    // A catch-all must take at least one segment and is the last that counts.
                    return (call.len() > i && j + 1 == served.len())
                        .then_some(quality.max(TemplateMatch::Partial));
                }
                Segment::Literal(l) => match call.get(i)? {
                    Segment::Literal(c) if c == l => {}
                    Segment::Literal(_) => return None,
                    Segment::Param(_) | Segment::CatchAll(_) => {
                        quality = quality.max(TemplateMatch::Partial);
                    }
                },
                Segment::Param(_) => match call.get(i)? {
                    Segment::Literal(_) => quality = quality.max(TemplateMatch::LiteralMeetsParam),
                    Segment::Param(_) => {}
                    Segment::CatchAll(_) => quality = quality.max(TemplateMatch::Partial),
                },
            }
            i += 1;
        }
        (i == call.len()).then_some(quality)
    }
}

impl fmt::Display for RouteTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

fn normalise_segment(raw: &str) -> Segment {
    let s = raw.trim();
    let inner = |open: &str, close: &str| {
        s.strip_prefix(open).and_then(|rest| rest.strip_suffix(close)).map(str::trim)
    };
    // `{*}` is the identity form of a nameless catch-all: a route's node id must parse back.
    if s == "*" || s == "**" || s == "{*}" {
        return Segment::CatchAll(String::new());
    }
    // path-to-regexp 8 (Express 5, NestJS 11) `*path` and `{*path}`: a named wildcard.
    if let Some(name) = s.strip_prefix('*').or_else(|| inner("{*", "}"))
        && !name.is_empty()
        && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    {
        return Segment::CatchAll(name.to_owned());
    }
    // Next.js `[...slug]` / `[[...slug]]`, then `[id]`.
    if let Some(name) = inner("[[...", "]]").or_else(|| inner("[...", "]")) {
        return Segment::CatchAll(name.to_owned());
    }
    if let Some(name) = inner("[", "]") {
        return Segment::Param(name.to_owned());
    }
    // `${expr}` (template literal) before `{name}` (OpenAPI, FastAPI, f-string).
    if let Some(expr) = inner("${", "}") {
        return Segment::Param(param_name(expr));
    }
    if let Some(body) = inner("{", "}") {
        // `{path:path}` (Starlette) is a catch-all; `{id:int}` a typed parameter.
        if let Some((name, kind)) = body.split_once(':') {
            return if kind.trim() == "path" {
                Segment::CatchAll(name.trim().to_owned())
            } else {
                Segment::Param(name.trim().to_owned())
            };
        }
        return Segment::Param(param_name(body));
    }
    // Flask / Django `<int:id>`, `<id>`, `<path:rest>`.
    if let Some(body) = inner("<", ">") {
        return match body.split_once(':') {
            Some(("path", name)) => Segment::CatchAll(name.trim().to_owned()),
            Some((_, name)) => Segment::Param(name.trim().to_owned()),
            None => Segment::Param(body.to_owned()),
        };
    }
    // Express `:id`, `:id?`, `:id(\\d+)`.
    if let Some(name) = s.strip_prefix(':') {
        let name = name.split(['(', '?']).next().unwrap_or(name);
        return Segment::Param(name.to_owned());
    }
    Segment::Literal(s.to_owned())
}

/// A display name for a parameter written as an expression: the last identifier of `a.b.id`.
fn param_name(expr: &str) -> String {
    let last = expr.rsplit(['.', ' ']).next().unwrap_or(expr);
    if last.chars().all(|c| c.is_alphanumeric() || c == '_') {
        last.to_owned()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(path: &str) -> String {
        RouteTemplate::parse(path).identity()
    }

    #[test]
    fn parameter_spellings_unify() {
        for path in [
            "/items/{item_id}",
            "/items/{id:int}",
            "/items/:id",
            "/items/<int:id>",
            "/items/<id>",
            "/items/[id]",
            "/items/${item.id}",
            "items/{x}/",
            "//items//{x}?q=1#frag",
        ] {
            assert_eq!(id(path), "/items/{}", "{path}");
        }
        assert_eq!(id("/"), "/");
        assert_eq!(id(""), "/");
        assert_eq!(id("/files/{p:path}"), "/files/{*}");
        assert_eq!(id("/docs/[...slug]"), "/docs/{*}");
        assert_eq!(id("/static/<path:rest>"), "/static/{*}");
        assert_eq!(id("/a/*"), "/a/{*}");
        // Identity forms are parsed back to themselves (a node id is a valid target).
        for identity in ["/a/{*}", "/themes/{}/static/{*}", "/{*}"] {
            assert_eq!(id(identity), identity);
        }
        assert_eq!(RouteTemplate::parse("/a/*path").display(), "/a/{*path}");
        assert_eq!(RouteTemplate::parse("/a/{*splat}").display(), "/a/{*splat}");
        assert_eq!(id("/a/*.png"), "/a/*.png");
        assert_eq!(id("/u/:id(\\d+)"), "/u/{}");
    }

    #[test]
    fn display_keeps_names() {
        assert_eq!(RouteTemplate::parse("/items/<int:item_id>").display(), "/items/{item_id}");
        assert_eq!(RouteTemplate::parse("/a/${x}").display(), "/a/{x}");
    }

    #[test]
    fn prefixes_compose() {
        let route = RouteTemplate::parse("/{id}");
        let full =
            route.prefixed(&RouteTemplate::parse("/api/v1")).prefixed(&RouteTemplate::parse("/"));
        assert_eq!(full.identity(), "/api/v1/{}");
    }

    #[test]
    fn matching_is_by_segments_and_says_how() {
        let m = |call: &str, route: &str| {
            RouteTemplate::parse(call).matches_route(&RouteTemplate::parse(route))
        };
        assert_eq!(m("/items/{x}", "/items/{id}"), Some(TemplateMatch::Exact));
        assert_eq!(m("/items", "/items"), Some(TemplateMatch::Exact));
        assert_eq!(m("/orders/export", "/orders/{id}"), Some(TemplateMatch::LiteralMeetsParam));
        assert_eq!(m("/orders/{id}", "/orders/export"), Some(TemplateMatch::Partial));
        assert_eq!(m("/files/a/b", "/files/{p:path}"), Some(TemplateMatch::Partial));
        assert_eq!(m("/files", "/files/{p:path}"), None);
        assert_eq!(m("/items", "/items/{id}"), None);
        assert_eq!(m("/items/1/x", "/items/{id}"), None);
        assert_eq!(m("/users", "/items"), None);
    }

    #[test]
    fn methods() {
        assert_eq!(HttpMethod::parse("get"), Some(HttpMethod::Get));
        assert_eq!(HttpMethod::parse("all"), Some(HttpMethod::Any));
        assert_eq!(HttpMethod::parse("FETCH"), None);
        assert!(HttpMethod::Any.serves(HttpMethod::Post));
        assert!(HttpMethod::Get.serves(HttpMethod::Head));
        assert!(!HttpMethod::Get.serves(HttpMethod::Post));
    }
}
