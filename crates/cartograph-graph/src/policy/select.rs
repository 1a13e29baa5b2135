//! Selectors: which nodes a rule speaks of, written as glob patterns with an optional kind.
//!
//! ```text
//! backend/**                  modules by repository-relative path (also `path:` or `module:`)
//! component:backend/app/*     modules whose component matches
//! route:GET /api/v2/**        routes by method and template (`route:/api/**` for any method,
//!                             `GET|POST /x`); `{id}`, `:id` and `<id>` segments mean a parameter
//! table:user                  tables by name (`billing.*` for a schema)
//! env:DATABASE_*              environment variables by name
//! package:npm:*               third-party packages by ecosystem and name
//! external:https://*.stripe.com/**
//! !backend/app/crud/**        a leading `!` excludes what the pattern matches
//! ```
//!
//! A node matches a selector when it matches one of its patterns and none of its exclusions; a
//! selector of exclusions only matches every node they do not exclude. `*` stays within one
//! `/`-separated segment and `**` crosses them, everywhere.

use cartograph_core::{Node, NodeKind};
use globset::{Glob, GlobBuilder, GlobMatcher};

/// What a pattern is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A module's repository-relative path.
    Path,
    /// A module's component.
    Component,
    Route,
    Table,
    EnvVar,
    Package,
    External,
}

impl Target {
    fn parse(prefix: &str) -> Option<Target> {
        Some(match prefix {
            "path" | "module" => Target::Path,
            "component" => Target::Component,
            "route" => Target::Route,
            "table" => Target::Table,
            "env" | "env_var" => Target::EnvVar,
            "package" => Target::Package,
            "external" => Target::External,
            _ => return None,
        })
    }

    /// Whether the pattern speaks of modules (by path or component).
    pub fn is_module(self) -> bool {
        matches!(self, Target::Path | Target::Component)
    }
}

/// One pattern of a selector.
#[derive(Debug, Clone)]
struct Pattern {
    target: Target,
    negated: bool,
    /// For routes: the methods allowed (upper case), `None` for any.
    methods: Option<Vec<String>>,
    glob: GlobMatcher,
}

/// A set of patterns naming nodes (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct Selector {
    patterns: Vec<Pattern>,
    /// The patterns as written, for messages.
    written: Vec<String>,
}

/// A pattern that cannot be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pattern `{pattern}` {reason}")]
pub struct PatternError {
    pub pattern: String,
    pub reason: String,
}

impl Selector {
    /// Reads patterns; a pattern without a `kind:` prefix is read as `default`.
    pub fn parse<S: AsRef<str>>(patterns: &[S], default: Target) -> Result<Self, PatternError> {
        let mut selector = Selector::default();
        for written in patterns.iter().map(AsRef::as_ref) {
            selector.patterns.push(parse_pattern(written, default)?);
            selector.written.push(written.to_owned());
        }
        Ok(selector)
    }

    /// The patterns as written.
    pub fn written(&self) -> &[String] {
        &self.written
    }

    /// The first pattern as written: how a message names a layer or a member.
    pub fn name(&self) -> &str {
        self.written.first().map_or("*", String::as_str)
    }

    /// Whether some pattern (not an exclusion) speaks of modules.
    pub fn names_modules(&self) -> bool {
        self.patterns.iter().any(|p| !p.negated && p.target.is_module())
    }

    /// Whether `node` matches.
    pub fn matches(&self, node: &Node) -> bool {
        self.decide(|p| p.matches(node))
    }

    /// Whether a component name matches (every pattern is read as a glob over the name).
    pub fn matches_name(&self, name: &str) -> bool {
        self.decide(|p| p.glob.is_match(name))
    }

    fn decide(&self, hit: impl Fn(&Pattern) -> bool) -> bool {
        let mut any_positive = false;
        let mut included = false;
        for pattern in &self.patterns {
            if pattern.negated {
                if hit(pattern) {
                    return false;
                }
            } else {
                any_positive = true;
                included = included || hit(pattern);
            }
        }
        included || !any_positive
    }
}

impl Pattern {
    fn matches(&self, node: &Node) -> bool {
        let name = node.key.name();
        match (self.target, node.key.kind()) {
            (Target::Path, NodeKind::Module) => self.glob.is_match(name),
            (Target::Component, NodeKind::Module) => {
                node.attrs.component.as_deref().is_some_and(|c| self.glob.is_match(c))
            }
            (Target::Route, NodeKind::Route) => {
                let (method, path) = name.split_once(' ').unwrap_or(("ANY", name));
                let method_ok = self
                    .methods
                    .as_ref()
                    .is_none_or(|ms| ms.iter().any(|m| m == method || method == "ANY"));
                method_ok && self.glob.is_match(path)
            }
            (Target::Table, NodeKind::Table)
            | (Target::EnvVar, NodeKind::EnvVar)
            | (Target::Package, NodeKind::Package)
            | (Target::External, NodeKind::External) => self.glob.is_match(name),
            _ => false,
        }
    }
}

fn parse_pattern(written: &str, default: Target) -> Result<Pattern, PatternError> {
    let error = |reason: &str| PatternError { pattern: written.to_owned(), reason: reason.into() };
    let (negated, rest) = match written.trim().strip_prefix('!') {
        Some(rest) => (true, rest.trim()),
        None => (false, written.trim()),
    };
    let (target, body) = match rest.split_once(':') {
        Some((prefix, body)) if Target::parse(prefix).is_some() => {
            (Target::parse(prefix).unwrap_or(default), body.trim())
        }
        _ => (default, rest),
    };
    if body.is_empty() {
        return Err(error("is empty"));
    }
    let (methods, glob_text) = match target {
        Target::Route => route_parts(body).map_err(|r| error(&r))?,
        _ => (None, body.to_owned()),
    };
    if matches!(target, Target::Path) && glob_text.starts_with('/') {
        return Err(error("is absolute; paths are relative to the repository root"));
    }
    let glob =
        build_glob(&glob_text).map_err(|e| error(&format!("is not a glob: {}", e.kind())))?;
    Ok(Pattern { target, negated, methods, glob })
}

fn build_glob(text: &str) -> Result<GlobMatcher, globset::Error> {
    let glob: Glob =
        GlobBuilder::new(text).literal_separator(true).backslash_escape(true).build()?;
    Ok(glob.compile_matcher())
}

/// `GET|POST /api/{id}/**` → the methods and the path glob with parameters normalised to the
/// literal `{}` of route identities.
fn route_parts(body: &str) -> Result<(Option<Vec<String>>, String), String> {
    let (methods, path) = match body.split_once(' ') {
        Some((methods, path)) => (Some(methods.trim()), path.trim()),
        None => (None, body),
    };
    let methods = match methods {
        None | Some("*") => None,
        Some(list) => {
            let methods: Vec<String> =
                list.split('|').map(|m| m.trim().to_ascii_uppercase()).collect();
            if let Some(bad) =
                methods.iter().find(|m| cartograph_core::HttpMethod::parse(m).is_none())
            {
                return Err(format!("names the method `{bad}`, which is not an HTTP method"));
            }
            Some(methods)
        }
    };
    if !path.starts_with('/') && !path.starts_with('*') {
        return Err("needs a path starting with `/`".to_owned());
    }
    let segments: Vec<String> = path.split('/').map(parameter_segment).collect();
    Ok((methods, segments.join("/")))
}

/// A route segment as a glob: a parameter (`{id}`, `:id`, `<int:id>`) is the literal `{}`.
fn parameter_segment(segment: &str) -> String {
    let is_param = (segment.starts_with('{') && segment.ends_with('}') && !segment.contains(','))
        || (segment.starts_with(':') && segment.len() > 1)
        || (segment.starts_with('<') && segment.ends_with('>'));
    if is_param { "\\{\\}".to_owned() } else { segment.to_owned() }
}

#[cfg(test)]
mod tests {
    use cartograph_core::{NodeKey, RepoPath};

    use super::*;

    fn module(path: &str, component: &str) -> Node {
        let mut node = Node::new(NodeKey::module(&RepoPath::new(path).expect("path")));
        node.attrs.component = Some(component.to_owned());
        node
    }

    fn node(kind: NodeKind, name: &str) -> Node {
        Node::new(NodeKey::from_parts(kind, name))
    }

    fn selector(patterns: &[&str]) -> Selector {
        Selector::parse(patterns, Target::Path).expect("selector")
    }

    #[test]
    fn paths_glob_by_segment() {
        let s = selector(&["backend/*.py"]);
        assert!(s.matches(&module("backend/main.py", "backend")));
        assert!(!s.matches(&module("backend/app/main.py", "backend/app")));
        let s = selector(&["backend/**"]);
        assert!(s.matches(&module("backend/app/main.py", "backend/app")));
        assert!(!s.matches(&module("web/src/main.ts", "web/src")));
        assert!(!s.matches(&node(NodeKind::Table, "backend")));
    }

    #[test]
    fn exclusions_win_and_exclusions_alone_select_the_rest() {
        let s = selector(&["backend/**", "!backend/app/crud/**"]);
        assert!(s.matches(&module("backend/app/api.py", "backend/app")));
        assert!(!s.matches(&module("backend/app/crud/user.py", "backend/app/crud")));
        let s = selector(&["!backend/app/crud/**"]);
        assert!(s.matches(&module("web/src/a.ts", "web/src")));
        assert!(!s.matches(&module("backend/app/crud/user.py", "backend/app/crud")));
    }

    #[test]
    fn components_routes_and_names() {
        let s = selector(&["component:backend/app"]);
        assert!(s.matches(&module("backend/app/x.py", "backend/app")));
        assert!(!s.matches(&module("backend/app/sub/x.py", "backend/app/sub")));
        let s = selector(&["route:GET|POST /api/v2/**"]);
        assert!(s.matches(&node(NodeKind::Route, "GET /api/v2/items/{}")));
        assert!(s.matches(&node(NodeKind::Route, "ANY /api/v2/items")));
        assert!(!s.matches(&node(NodeKind::Route, "DELETE /api/v2/items")));
        assert!(!s.matches(&node(NodeKind::Route, "GET /api/v1/items")));
        let s = selector(&["route:/items/{item_id}"]);
        assert!(s.matches(&node(NodeKind::Route, "PUT /items/{}")));
        assert!(selector(&["table:user"]).matches(&node(NodeKind::Table, "user")));
        assert!(selector(&["env:DB_*"]).matches(&node(NodeKind::EnvVar, "DB_URL")));
        assert!(selector(&["package:npm:*"]).matches(&node(NodeKind::Package, "npm:axios")));
        assert!(!selector(&["package:npm:*"]).matches(&node(NodeKind::Package, "pypi:httpx")));
        let s = selector(&["external:https://*.stripe.com/**"]);
        assert!(s.matches(&node(NodeKind::External, "https://api.stripe.com/v1/charges")));
    }

    #[test]
    fn bad_patterns_are_refused_with_a_reason() {
        let error = Selector::parse(&["route:FETCH /x"], Target::Path).expect_err("method");
        assert_eq!(
            error.to_string(),
            "pattern `route:FETCH /x` names the method `FETCH`, which is not an HTTP method"
        );
        assert!(Selector::parse(&["/etc/**"], Target::Path).is_err());
        assert!(Selector::parse(&["a/[b"], Target::Path).is_err());
        assert!(Selector::parse(&["!"], Target::Path).is_err());
    }
}
