//! Components: modules grouped by folder, and the weighted dependencies between the groups.
//!
//! Two rules. `Depth(n)`: the first `n` directories of a module's path. `PackageRoots { levels }`
//! (the default, with 2 levels): the deepest package root holding the module (a Python source root
//! or a folder with a `package.json`) plus up to `levels` directories below it — so
//! `backend/src/shop/api/orders.py` belongs to `backend/src/shop/api` and
//! `web/src/pages/Home.tsx` to `web/src/pages`. Modules directly in a root's folder belong to
//! that folder; modules at the repository root belong to `.`.

use std::collections::BTreeMap;

use cartograph_core::{Edge, EdgeKind, Node, NodeKind};

/// How modules are grouped into components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentRule {
    /// The first `n` directories of the path.
    Depth(usize),
    /// The deepest package root plus up to `levels` directories below it.
    PackageRoots { levels: usize },
}

impl Default for ComponentRule {
    fn default() -> Self {
        ComponentRule::PackageRoots { levels: 2 }
    }
}

impl ComponentRule {
    /// Parses `depth:N`, `roots` or `roots:N`.
    pub fn parse(spec: &str) -> Option<ComponentRule> {
        let (name, n) = match spec.split_once(':') {
            Some((name, n)) => (name, Some(n.parse::<usize>().ok()?)),
            None => (spec, None),
        };
        match name {
            "depth" => Some(ComponentRule::Depth(n?)),
            "roots" => Some(ComponentRule::PackageRoots { levels: n.unwrap_or(2) }),
            _ => None,
        }
    }

    /// The component of a module path.
    pub fn component_of(&self, path: &str, package_roots: &[String]) -> String {
        let dirs: Vec<&str> = match path.rsplit_once('/') {
            Some((dir, _)) => dir.split('/').collect(),
            None => Vec::new(),
        };
        let take = match *self {
            ComponentRule::Depth(n) => n.min(dirs.len()),
            ComponentRule::PackageRoots { levels } => {
                let root_depth = package_roots
                    .iter()
                    .filter(|r| r.is_empty() || path.starts_with(&format!("{r}/")))
                    .map(|r| if r.is_empty() { 0 } else { r.split('/').count() })
                    .max()
                    .unwrap_or(0);
                (root_depth + levels).min(dirs.len())
            }
        };
        if take == 0 { ".".to_owned() } else { dirs[..take].join("/") }
    }
}

/// Sets `attrs.component` on every module node.
pub fn assign_components(nodes: &mut [Node], rule: &ComponentRule, package_roots: &[String]) {
    for node in nodes.iter_mut().filter(|n| n.key.kind() == NodeKind::Module) {
        node.attrs.component = Some(rule.component_of(node.key.name(), package_roots));
    }
}

/// One component: how many modules it holds and what it depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentSummary {
    pub name: String,
    pub modules: u64,
    /// Import edges from this component's modules to other components' modules, by component.
    pub depends_on: BTreeMap<String, u64>,
    /// Third-party packages imported, by package identity.
    pub packages: BTreeMap<String, u64>,
}

/// Summarises components from nodes that carry a component attribute.
pub fn summarise_components(nodes: &[Node], edges: &[Edge]) -> Vec<ComponentSummary> {
    let mut by_key = BTreeMap::new();
    let mut summaries: BTreeMap<String, ComponentSummary> = BTreeMap::new();
    for node in nodes {
        if let Some(component) = &node.attrs.component {
            by_key.insert(&node.key, component.as_str());
            summaries
                .entry(component.clone())
                .or_insert_with(|| ComponentSummary {
                    name: component.clone(),
                    modules: 0,
                    depends_on: BTreeMap::new(),
                    packages: BTreeMap::new(),
                })
                .modules += 1;
        }
    }
    for edge in edges.iter().filter(|e| e.kind == EdgeKind::Imports) {
        let Some(from) = by_key.get(&edge.from) else { continue };
        let Some(summary) = summaries.get_mut(*from) else { continue };
        match edge.to.kind() {
            NodeKind::Module => {
                if let Some(to) = by_key.get(&edge.to).filter(|to| *to != from) {
                    *summary.depends_on.entry((*to).to_owned()).or_default() += 1;
                }
            }
            NodeKind::Package => {
                *summary.packages.entry(edge.to.name().to_owned()).or_default() += 1;
            }
            _ => {}
        }
    }
    summaries.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_roots_rule() {
        let roots = vec![String::new(), "backend/src".to_owned(), "web".to_owned()];
        let rule = ComponentRule::default();
        assert_eq!(
            rule.component_of("backend/src/shop/api/orders.py", &roots),
            "backend/src/shop/api"
        );
        assert_eq!(
            rule.component_of("backend/src/shop/api/v1/x.py", &roots),
            "backend/src/shop/api"
        );
        assert_eq!(rule.component_of("backend/src/shop/db.py", &roots), "backend/src/shop");
        assert_eq!(rule.component_of("web/src/pages/Home.tsx", &roots), "web/src/pages");
        assert_eq!(rule.component_of("worker/tasks.py", &roots), "worker");
        assert_eq!(rule.component_of("setup.py", &roots), ".");
        // `webapp` is not under the root `web`.
        assert_eq!(rule.component_of("webapp/a/b/c.ts", &roots), "webapp/a");
    }

    #[test]
    fn depth_rule_and_parsing() {
        let rule = ComponentRule::parse("depth:1").unwrap();
        assert_eq!(rule.component_of("a/b/c.py", &[]), "a");
        assert_eq!(rule.component_of("c.py", &[]), ".");
        assert_eq!(ComponentRule::parse("roots"), Some(ComponentRule::PackageRoots { levels: 2 }));
        assert_eq!(
            ComponentRule::parse("roots:1"),
            Some(ComponentRule::PackageRoots { levels: 1 })
        );
        assert_eq!(ComponentRule::parse("depth"), None);
        assert_eq!(ComponentRule::parse("depth:x"), None);
        assert_eq!(ComponentRule::parse("folders:2"), None);
    }
}
