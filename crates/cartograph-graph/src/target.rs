//! Targets: what a user writes to name nodes (`blast`, `trace`), resolved against one graph.
//!
//! A target is one of, tried in this order:
//!
//! - a node id, `kind:name` (`module:app/api.py`, `route:GET /items/{id}`, `table:item`,
//!   `env_var:DATABASE_URL`, `package:pypi:requests`, `external:https://api.github.com`); a
//!   route id's path may use any parameter syntax;
//! - a route written `METHOD /path` (any parameter syntax: `{id}`, `:id`, `<int:id>`), or `/path`
//!   alone for every method serving that path;
//! - a repository file path (the module), or a directory (every module under it; a trailing `/`
//!   says "directory" explicitly, and `.` is the whole tree);
//! - a Python dotted module name (`app.api.routes.items`);
//! - a bare table, environment variable, package or external host name, when only one node has it.
//!
//! A word that matches in more than one of the last three readings (a directory `items/`, a Python
//! module `items` and a table `items`) is ambiguous and reported with the candidates' ids, never
//! guessed. No match is an error that suggests up to three close names. A target written as an
//! absolute file path is refused, and the error repeats only its file name.

use std::collections::BTreeSet;
use std::fmt;

use cartograph_core::echo::{ABSOLUTE_PATH, is_rooted};
use cartograph_core::{HttpMethod, Node, NodeKey, NodeKind, RouteTemplate};

use crate::GraphView;

/// How many close names an error suggests, and how many candidates an ambiguity lists.
const MAX_SUGGESTIONS: usize = 3;
const MAX_CANDIDATES: usize = 10;
/// How much of the user's text an error repeats.
const MAX_ECHO: usize = 120;

/// Why a target names no node, or names too many kinds of node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetError {
    /// The target is empty or blank.
    Empty,
    /// The target is an absolute file path; `file` is its last component only, so the error never
    /// repeats a machine path.
    AbsolutePath { file: String },
    /// Nothing matches; `suggestions` are close node ids (at most three).
    NotFound { target: String, suggestions: Vec<String> },
    /// The word matches nodes of different readings; `candidates` are their ids (bounded).
    Ambiguous { target: String, candidates: Vec<String>, more: usize },
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::Empty => f.write_str(
                "the target is empty; name a file, directory, \
                 route (METHOD /path), table, environment variable, package or node id",
            ),
            TargetError::AbsolutePath { file } => write!(
                f,
                "the target `…/{file}` is an absolute path; name files relative to the root of \
                 the analysed tree"
            ),
            TargetError::NotFound { target, suggestions } => {
                write!(f, "no node matches the target {}", backticked(target))?;
                match suggestions.as_slice() {
                    [] => f.write_str(
                        "; name a file, directory, route (METHOD /path), table, \
                         environment variable, package or node id",
                    ),
                    [one] => write!(f, "; did you mean `{one}`?"),
                    [init @ .., last] => {
                        let init: Vec<String> = init.iter().map(|s| format!("`{s}`")).collect();
                        write!(f, "; did you mean {} or `{last}`?", init.join(", "))
                    }
                }
            }
            TargetError::Ambiguous { target, candidates, more } => {
                let listed: Vec<String> = candidates.iter().map(|s| format!("`{s}`")).collect();
                write!(
                    f,
                    "the target {} is ambiguous: it matches {}",
                    backticked(target),
                    listed.join(", ")
                )?;
                if *more > 0 {
                    write!(f, " and {more} more")?;
                }
                f.write_str("; write a node id (kind:name) or a path to choose")
            }
        }
    }
}

impl std::error::Error for TargetError {}

/// An echoed target in backticks; the stand-in for a rooted path as it is.
fn backticked(target: &str) -> String {
    if target == ABSOLUTE_PATH { target.to_owned() } else { format!("`{target}`") }
}

/// Resolves one user-written target to the nodes it names, in identity order.
pub fn resolve_target(view: GraphView<'_>, spec: &str) -> Result<Vec<NodeKey>, TargetError> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(TargetError::Empty);
    }
    let echo = echo(spec);

    if let Some(found) = by_node_id(view.nodes, spec) {
        return found.ok_or_else(|| not_found(view.nodes, &echo, spec));
    }
    let route = by_route(view.nodes, spec);
    if let Some(found) = route.as_ref().filter(|found| !found.is_empty()) {
        return Ok(found.clone());
    }
    // Not a route that exists: a path like `/home/…/x.py` is a machine path, never repeated.
    if let Some(file) = absolute_file(spec) {
        return Err(TargetError::AbsolutePath { file });
    }
    if route.is_some() {
        return Err(not_found(view.nodes, &echo, spec));
    }

    let path = normalise_path(spec);
    if !path.is_empty()
        && !path.ends_with('/')
        && let Some(node) =
            view.nodes.iter().find(|n| n.key.kind() == NodeKind::Module && n.key.name() == path)
    {
        return Ok(vec![node.key.clone()]);
    }
    let directory = under_directory(view.nodes, &path);
    if spec.ends_with('/') || path == "." {
        return if directory.is_empty() {
            Err(not_found(view.nodes, &echo, spec))
        } else {
            Ok(directory)
        };
    }
    let python: Vec<NodeKey> = if spec.contains('/') {
        Vec::new()
    } else {
        sorted(
            view.nodes
                .iter()
                .filter(|n| n.attrs.python_module.as_deref() == Some(spec))
                .map(|n| n.key.clone()),
        )
    };
    let bare: Vec<NodeKey> =
        if spec.contains('/') { Vec::new() } else { by_bare_name(view.nodes, spec) };

    let readings: Vec<Vec<NodeKey>> =
        [directory, python, bare].into_iter().filter(|r| !r.is_empty()).collect();
    match readings.len() {
        0 => Err(not_found(view.nodes, &echo, spec)),
        1 => match readings.into_iter().next() {
            Some(keys) if keys.len() > 1 && keys.iter().all(|k| k.kind() != NodeKind::Module) => {
                Err(ambiguous(&echo, keys))
            }
            Some(keys) => Ok(keys),
            None => Err(not_found(view.nodes, &echo, spec)),
        },
        _ => Err(ambiguous(&echo, readings.into_iter().flatten().collect())),
    }
}

/// The last component of a target written as an absolute file path (`/home/…/x.py`, `C:\…`,
/// `~/…`). Asked only once no route matched: `/bundle.js` may be a route.
fn absolute_file(spec: &str) -> Option<String> {
    let path = spec.replace('\\', "/");
    let bytes = path.as_bytes();
    let drive = bytes.len() > 2 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":/";
    let file = path.rsplit('/').next().unwrap_or_default();
    let source_file = [
        ".py", ".pyi", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue",
        ".svelte",
    ]
    .iter()
    .any(|ext| file.ends_with(ext));
    let absolute = drive || path.starts_with("~/") || (path.starts_with('/') && source_file);
    absolute.then(|| file.to_owned())
}

/// `kind:name`: `Some(Some(keys))` found, `Some(None)` a node id that names nothing, `None` not a
/// node id at all.
fn by_node_id(nodes: &[Node], spec: &str) -> Option<Option<Vec<NodeKey>>> {
    let (kind, name) = spec.split_once(':')?;
    let kind = NodeKind::parse(kind)?;
    let name = if kind == NodeKind::Route {
        match route_key(name) {
            Some(key) => key.name().to_owned(),
            None => name.to_owned(),
        }
    } else {
        name.to_owned()
    };
    let key = NodeKey::from_parts(kind, name);
    Some(nodes.iter().any(|n| n.key == key).then(|| vec![key]))
}

/// `METHOD /path` as a route key with its path normalised.
fn route_key(text: &str) -> Option<NodeKey> {
    let (method, path) = text.trim().split_once(' ')?;
    let method = HttpMethod::parse(method)?;
    let path = path.trim();
    path.starts_with('/').then(|| NodeKey::route(method, &RouteTemplate::parse(path)))
}

/// `METHOD /path` or `/path`: `None` when the text is not written as a route.
fn by_route(nodes: &[Node], spec: &str) -> Option<Vec<NodeKey>> {
    let routes = || nodes.iter().filter(|n| n.key.kind() == NodeKind::Route);
    if spec.starts_with('/') {
        let identity = RouteTemplate::parse(spec).identity();
        return Some(sorted(
            routes()
                .filter(|n| n.key.name().split_once(' ').is_some_and(|(_, p)| p == identity))
                .map(|n| n.key.clone()),
        ));
    }
    let key = route_key(spec)?;
    if routes().any(|n| n.key == key) {
        return Some(vec![key]);
    }
    // A handler that serves every method serves this one too.
    let (method, identity) = key.name().split_once(' ')?;
    let method = HttpMethod::parse(method)?;
    Some(sorted(
        routes()
            .filter(|n| {
                n.key.name().split_once(' ').is_some_and(|(m, p)| {
                    p == identity && HttpMethod::parse(m).is_some_and(|m| m.serves(method))
                })
            })
            .map(|n| n.key.clone()),
    ))
}

/// A path as written, made repository-relative in form: `\` → `/`, no leading `./`.
fn normalise_path(spec: &str) -> String {
    let mut path = spec.replace('\\', "/");
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.to_owned();
    }
    if path.is_empty() { ".".to_owned() } else { path }
}

fn under_directory(nodes: &[Node], path: &str) -> Vec<NodeKey> {
    let dir = path.trim_end_matches('/');
    let modules = nodes.iter().filter(|n| n.key.kind() == NodeKind::Module);
    if dir == "." || dir.is_empty() {
        return sorted(modules.map(|n| n.key.clone()));
    }
    let prefix = format!("{dir}/");
    sorted(modules.filter(|n| n.key.name().starts_with(&prefix)).map(|n| n.key.clone()))
}

/// A table, env var, package (with or without its ecosystem) or external host named bare.
fn by_bare_name(nodes: &[Node], word: &str) -> Vec<NodeKey> {
    sorted(
        nodes
            .iter()
            .filter(|n| {
                let name = n.key.name();
                match n.key.kind() {
                    NodeKind::Table | NodeKind::EnvVar => name == word,
                    NodeKind::Package => {
                        name == word || name.split_once(':').is_some_and(|(_, p)| p == word)
                    }
                    NodeKind::External => {
                        name == word
                            || name.split_once("://").is_some_and(|(_, host)| {
                                host == word || host.split('/').next() == Some(word)
                            })
                    }
                    NodeKind::Module | NodeKind::Route => false,
                }
            })
            .map(|n| n.key.clone()),
    )
}

fn sorted(keys: impl Iterator<Item = NodeKey>) -> Vec<NodeKey> {
    keys.collect::<BTreeSet<_>>().into_iter().collect()
}

/// The spec as an error repeats it: capped, and never a rooted path (it may be a machine path;
/// see `cartograph_core::echo`).
fn echo(spec: &str) -> String {
    if is_rooted(spec) {
        return ABSOLUTE_PATH.to_owned();
    }
    if spec.chars().count() <= MAX_ECHO {
        spec.to_owned()
    } else {
        let mut text: String = spec.chars().take(MAX_ECHO).collect();
        text.push('…');
        text
    }
}

fn ambiguous(echo: &str, keys: Vec<NodeKey>) -> TargetError {
    let ids: Vec<String> = sorted(keys.into_iter()).iter().map(NodeKey::id).collect();
    let more = ids.len().saturating_sub(MAX_CANDIDATES);
    TargetError::Ambiguous {
        target: echo.to_owned(),
        candidates: ids.into_iter().take(MAX_CANDIDATES).collect(),
        more,
    }
}

/// Up to three node ids close to what was written: names containing it first, then the longest
/// shared prefix, then identity order.
fn not_found(nodes: &[Node], echo: &str, spec: &str) -> TargetError {
    let wanted = match spec.split_once(':') {
        Some((kind, name)) if NodeKind::parse(kind).is_some() => name,
        _ => spec,
    }
    .trim_start_matches("./")
    .to_ascii_lowercase();
    let mut scored: Vec<(bool, usize, String)> = nodes
        .iter()
        .filter_map(|n| {
            let name = n.key.name().to_ascii_lowercase();
            let contains = wanted.len() >= 3 && name.contains(&wanted);
            let shared = shared_prefix(&name, &wanted)
                .max(n.attrs.python_module.as_deref().map_or(0, |m| shared_prefix(m, &wanted)));
            (contains || shared >= 2).then(|| (!contains, usize::MAX - shared, n.key.id()))
        })
        .collect();
    scored.sort();
    TargetError::NotFound {
        target: echo.to_owned(),
        suggestions: scored.into_iter().take(MAX_SUGGESTIONS).map(|(_, _, id)| id).collect(),
    }
}

fn shared_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use cartograph_core::{Ecosystem, RepoPath};

    use super::*;

    fn module(path: &str, python: Option<&str>) -> Node {
        let mut node = Node::new(NodeKey::module(&RepoPath::new(path).unwrap()));
        node.attrs.python_module = python.map(str::to_owned);
        node
    }

    fn nodes() -> Vec<Node> {
        let mut nodes = vec![
            module("backend/app/api/items.py", Some("app.api.items")),
            module("backend/app/api/users.py", Some("app.api.users")),
            module("backend/app/models.py", Some("app.models")),
            module("web/src/client.ts", None),
            Node::new(NodeKey::route(HttpMethod::Get, &RouteTemplate::parse("/items/{id}"))),
            Node::new(NodeKey::route(HttpMethod::Delete, &RouteTemplate::parse("/items/{id}"))),
            Node::new(NodeKey::route(HttpMethod::Any, &RouteTemplate::parse("/health"))),
            Node::new(NodeKey::table(None, "item")),
            Node::new(NodeKey::table(None, "users")),
            Node::new(NodeKey::env_var("DATABASE_URL")),
            Node::new(NodeKey::env_var("users")),
            Node::new(NodeKey::package(Ecosystem::Pypi, "requests")),
            Node::new(NodeKey::external("https", "api.github.com", None)),
        ];
        nodes.sort_by(|a, b| a.key.cmp(&b.key));
        nodes
    }

    fn resolve(spec: &str) -> Result<Vec<String>, TargetError> {
        let nodes = nodes();
        let view = GraphView { nodes: &nodes, edges: &[], refusals: &[] };
        resolve_target(view, spec).map(|keys| keys.iter().map(NodeKey::id).collect())
    }

    #[test]
    fn node_ids_resolve_exactly() {
        assert_eq!(resolve("module:web/src/client.ts").unwrap(), ["module:web/src/client.ts"]);
        assert_eq!(resolve("route:GET /items/:item_id").unwrap(), ["route:GET /items/{}"]);
        assert_eq!(resolve("table:item").unwrap(), ["table:item"]);
        assert_eq!(resolve("package:pypi:requests").unwrap(), ["package:pypi:requests"]);
        assert_eq!(
            resolve("external:https://api.github.com").unwrap(),
            ["external:https://api.github.com"]
        );
        assert!(matches!(resolve("table:nope"), Err(TargetError::NotFound { .. })));
    }

    #[test]
    fn routes_in_any_parameter_syntax() {
        assert_eq!(resolve("get /items/<int:id>").unwrap(), ["route:GET /items/{}"]);
        // Identity order: `DELETE …` sorts before `GET …`.
        assert_eq!(
            resolve("/items/{x}").unwrap(),
            ["route:DELETE /items/{}", "route:GET /items/{}"]
        );
        // A handler for every method serves a POST.
        assert_eq!(resolve("POST /health").unwrap(), ["route:ANY /health"]);
        assert!(matches!(resolve("PUT /nowhere"), Err(TargetError::NotFound { .. })));
    }

    #[test]
    fn paths_directories_and_python_modules() {
        assert_eq!(resolve("./backend/app/models.py").unwrap(), ["module:backend/app/models.py"]);
        assert_eq!(
            resolve("backend/app/api/").unwrap(),
            ["module:backend/app/api/items.py", "module:backend/app/api/users.py"]
        );
        assert_eq!(resolve("backend/app/api").unwrap().len(), 2);
        assert_eq!(resolve(".").unwrap().len(), 4);
        assert_eq!(resolve("app.api.items").unwrap(), ["module:backend/app/api/items.py"]);
    }

    #[test]
    fn bare_names_resolve_when_unambiguous() {
        assert_eq!(resolve("item").unwrap(), ["table:item"]);
        assert_eq!(resolve("DATABASE_URL").unwrap(), ["env_var:DATABASE_URL"]);
        assert_eq!(resolve("requests").unwrap(), ["package:pypi:requests"]);
        assert_eq!(resolve("api.github.com").unwrap(), ["external:https://api.github.com"]);
        let Err(TargetError::Ambiguous { candidates, .. }) = resolve("users") else {
            panic!("`users` is a table and an env var");
        };
        assert_eq!(candidates, ["table:users", "env_var:users"]);
    }

    #[test]
    fn misses_suggest_close_names_in_one_sentence() {
        let err = resolve("backend/app/modles.py").unwrap_err();
        let TargetError::NotFound { suggestions, .. } = &err else { panic!("{err:?}") };
        assert!(!suggestions.is_empty() && suggestions.len() <= 3);
        assert!(suggestions.iter().any(|s| s == "module:backend/app/models.py"), "{suggestions:?}");
        let text = err.to_string();
        assert!(text.starts_with("no node matches the target `backend/app/modles.py`"), "{text}");
        assert!(!text.contains('\n'));
        assert_eq!(resolve("   "), Err(TargetError::Empty));
        let err = resolve("/home/someone/project/backend/app/models.py").unwrap_err();
        assert_eq!(err, TargetError::AbsolutePath { file: "models.py".to_owned() });
        assert!(!err.to_string().contains("/home"), "{err}");
        assert!(matches!(resolve("C:\\work\\a.ts"), Err(TargetError::AbsolutePath { .. })));
        let err = resolve("zzz").unwrap_err();
        assert!(
            matches!(&err, TargetError::NotFound { suggestions, .. } if suggestions.is_empty())
        );
    }
}
