//! Nodes and their identities.
//!
//! A node's identity ([`NodeKey`]) is what makes two nodes the same across revisions: a module's
//! repository-relative path, a package's ecosystem and name, a route's method and normalised path
//! template, a table's name, an environment variable's name, an external endpoint's scheme and host.
//! Everything else about a node is an attribute and does not take part in identity.

use std::fmt;
use std::sync::Arc;

use crate::{HttpMethod, RepoPath, RouteTemplate};

/// The kinds of node in the architecture graph.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum NodeKind {
    Module,
    Package,
    Route,
    Table,
    EnvVar,
    External,
}

impl NodeKind {
    pub const ALL: [NodeKind; 6] = [
        NodeKind::Module,
        NodeKind::Package,
        NodeKind::Route,
        NodeKind::Table,
        NodeKind::EnvVar,
        NodeKind::External,
    ];

    /// The stable name used in documents.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Module => "module",
            NodeKind::Package => "package",
            NodeKind::Route => "route",
            NodeKind::Table => "table",
            NodeKind::EnvVar => "env_var",
            NodeKind::External => "external",
        }
    }

    pub fn parse(name: &str) -> Option<NodeKind> {
        NodeKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The identity of a node: its kind and a kind-specific name.
///
/// Keys order by kind, then name, which is the order every document uses.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct NodeKey {
    kind: NodeKind,
    /// Shared: a module's key shares its path's text, and a clone of a key is a reference count.
    name: Arc<str>,
}

impl NodeKey {
    /// A module, identified by its repository-relative path.
    pub fn module(path: &RepoPath) -> Self {
        Self { kind: NodeKind::Module, name: Arc::clone(path.shared()) }
    }

    /// A third-party package, identified by ecosystem and name (`pypi:requests`, `npm:react`).
    pub fn package(ecosystem: Ecosystem, name: &str) -> Self {
        Self { kind: NodeKind::Package, name: format!("{}:{name}", ecosystem.as_str()).into() }
    }

    /// A route: method and normalised template, `GET /api/v1/items/{}`.
    pub fn route(method: HttpMethod, template: &RouteTemplate) -> Self {
        let name = format!("{} {}", method.as_str(), template.identity());
        Self { kind: NodeKind::Route, name: name.into() }
    }

    /// A database table, with its schema when one is given (`billing.invoice`).
    pub fn table(schema: Option<&str>, name: &str) -> Self {
        let name = match schema {
            Some(schema) if !schema.is_empty() => format!("{schema}.{name}"),
            _ => name.to_owned(),
        };
        Self { kind: NodeKind::Table, name: name.into() }
    }

    /// An environment variable, by name (never its value).
    pub fn env_var(name: &str) -> Self {
        Self { kind: NodeKind::EnvVar, name: name.into() }
    }

    /// An HTTP endpoint no local route serves: scheme and host, plus a path template when known
    /// (`https://api.github.com`, `https://api.github.com/repos/{}`).
    pub fn external(scheme: &str, host: &str, path: Option<&RouteTemplate>) -> Self {
        let mut name = format!("{}://{}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase());
        if let Some(path) = path.filter(|p| !p.segments().is_empty()) {
            name.push_str(&path.identity());
        }
        Self { kind: NodeKind::External, name: name.into() }
    }

    /// Rebuilds a key from its kind and name, as read back from a document.
    pub fn from_parts(kind: NodeKind, name: impl Into<String>) -> Self {
        Self { kind, name: name.into().into() }
    }

    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name's text, to be replaced by an equal one ([`crate::TextPool`]).
    pub(crate) fn name_mut(&mut self) -> &mut Arc<str> {
        &mut self.name
    }

    /// Where the name's text is, to tell shared texts apart in tests.
    #[cfg(test)]
    pub(crate) fn name_ptr(&self) -> *const u8 {
        self.name.as_ptr()
    }

    /// The document form of the identity: `kind:name`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.name)
    }
}

impl fmt::Display for NodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.as_str(), self.name)
    }
}

/// A package ecosystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ecosystem {
    /// Third-party Python packages.
    Pypi,
    /// Third-party JavaScript packages.
    Npm,
    /// The Python standard library (only in the graph when asked for).
    Python,
    /// Node.js built-in modules (only in the graph when asked for).
    Node,
    /// Third-party Rust crates.
    Cargo,
    /// Rust's standard crates: `std`, `core`, `alloc` (only in the graph when asked for).
    Rust,
}

impl Ecosystem {
    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Pypi => "pypi",
            Ecosystem::Npm => "npm",
            Ecosystem::Python => "python",
            Ecosystem::Node => "node",
            Ecosystem::Cargo => "cargo",
            Ecosystem::Rust => "rust",
        }
    }
}

/// A source language Cartograph analyses.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Language {
    Python,
    TypeScript,
    JavaScript,
    Rust,
}

impl Language {
    pub const ALL: [Language; 4] =
        [Language::Python, Language::TypeScript, Language::JavaScript, Language::Rust];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::TypeScript => "typescript",
            Language::JavaScript => "javascript",
            Language::Rust => "rust",
        }
    }

    pub fn parse(name: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Attributes of a node that are not part of its identity.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NodeAttrs {
    /// The language of a module.
    pub language: Option<Language>,
    /// The component the node belongs to (a directory, or a package root).
    pub component: Option<String>,
    /// A Python module's dotted name, when it has one.
    pub python_module: Option<String>,
    /// A route's template with parameter names, for display (`/items/{item_id}`).
    pub display_path: Option<String>,
    /// A route's handler: the module that serves it and the function, when known.
    pub handler: Option<Handler>,
    /// The framework or library a node was recognised from (`fastapi`, `express`, `sqlmodel`).
    pub framework: Option<String>,
}

/// The function that handles a route, and where it lives.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Handler {
    pub module: RepoPath,
    /// The function or method name; `None` for an inline (anonymous) handler.
    pub function: Option<String>,
}

/// A node of the architecture graph.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub key: NodeKey,
    pub attrs: NodeAttrs,
}

impl Node {
    pub fn new(key: NodeKey) -> Self {
        Self { key, attrs: NodeAttrs::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_kind_and_name() {
        let m = NodeKey::module(&RepoPath::new("src/a.py").unwrap());
        assert_eq!(m.id(), "module:src/a.py");
        assert_eq!(NodeKey::package(Ecosystem::Pypi, "requests").id(), "package:pypi:requests");
        assert_eq!(NodeKey::package(Ecosystem::Npm, "@scope/x").name(), "npm:@scope/x");
    }

    #[test]
    fn keys_order_by_kind_then_name() {
        let a = NodeKey::module(&RepoPath::new("z.py").unwrap());
        let b = NodeKey::package(Ecosystem::Npm, "a");
        assert!(a < b, "modules sort before packages whatever their names");
        let c = NodeKey::module(&RepoPath::new("a.py").unwrap());
        assert!(c < a);
    }

    #[test]
    fn kinds_round_trip_through_names() {
        for k in NodeKind::ALL {
            assert_eq!(NodeKind::parse(k.as_str()), Some(k));
        }
        for l in Language::ALL {
            assert_eq!(Language::parse(l.as_str()), Some(l));
        }
        assert_eq!(NodeKind::parse("nope"), None);
    }
}
