//! Sharing the texts of values read back from an encoding.
//!
//! A tree's paths and keys are shared: an edge's source key, its location and the module node
//! all hold one reference-counted text ([`RepoPath`], [`NodeKey`]). Decoding gives each of them
//! its own copy again — for a large tree, three allocations of a path per edge, more than the
//! edges themselves. A [`TextPool`] gives them back one text per distinct content.

use std::collections::HashSet;
use std::sync::Arc;

use crate::{Edge, Node, NodeKey, Refusal, RepoPath};

/// One shared text per distinct content, for the values passed through [`TextPool::share`] and
/// the `share` methods of the graph types.
#[derive(Debug, Default)]
pub struct TextPool {
    texts: HashSet<Arc<str>>,
}

impl TextPool {
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces `text` by the pool's text of the same content, which it becomes if the pool had
    /// none. The value is unchanged; only its allocation is.
    pub fn share(&mut self, text: &mut Arc<str>) {
        match self.texts.get(&**text) {
            Some(held) => {
                if !Arc::ptr_eq(held, text) {
                    *text = Arc::clone(held);
                }
            }
            None => {
                self.texts.insert(Arc::clone(text));
            }
        }
    }

    /// The pool's text equal to `text`, made one if it had none.
    pub fn text(&mut self, text: &str) -> Arc<str> {
        if let Some(held) = self.texts.get(text) {
            return Arc::clone(held);
        }
        let made: Arc<str> = Arc::from(text);
        self.texts.insert(Arc::clone(&made));
        made
    }

    /// How many distinct texts the pool holds.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

impl RepoPath {
    /// Shares this path's text through `pool`.
    pub fn share(&mut self, pool: &mut TextPool) {
        pool.share(self.shared_mut());
    }
}

impl NodeKey {
    /// Shares this key's name through `pool` (a module's with its path's).
    pub fn share(&mut self, pool: &mut TextPool) {
        pool.share(self.name_mut());
    }
}

impl Edge {
    /// Shares the texts of both keys and of the location through `pool`.
    pub fn share(&mut self, pool: &mut TextPool) {
        self.from.share(pool);
        self.to.share(pool);
        self.location.path.share(pool);
    }
}

impl Node {
    /// Shares the texts of the key and of a route's handler module through `pool`.
    pub fn share(&mut self, pool: &mut TextPool) {
        self.key.share(pool);
        if let Some(handler) = &mut self.attrs.handler {
            handler.module.share(pool);
        }
    }
}

impl Refusal {
    /// Shares the location's path through `pool`.
    pub fn share(&mut self, pool: &mut TextPool) {
        self.location.path.share(pool);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Confidence, EdgeKind, Evidence, Provenance, SourceLocation};

    fn edge(from: &str, to: &str) -> Edge {
        let from = RepoPath::new(from).unwrap();
        Edge {
            kind: EdgeKind::Imports,
            from: NodeKey::module(&from),
            to: NodeKey::module(&RepoPath::new(to).unwrap()),
            evidence: Evidence::new("import"),
            provenance: Provenance::Resolver,
            confidence: Confidence::Certain,
            location: SourceLocation::new(from, 1, 1),
            type_only: false,
            occurrences: 1,
        }
    }

    #[test]
    fn shared_values_are_equal_and_hold_one_text_per_content() {
        // Decoded, each edge holds its own copy of every text.
        let decoded: Vec<Edge> = (0..3).map(|_| edge("src/a.py", "src/b.py")).collect();
        let mut shared = decoded.clone();
        let mut pool = TextPool::new();
        for edge in &mut shared {
            edge.share(&mut pool);
        }
        assert_eq!(shared, decoded, "sharing changes no value");
        assert_eq!(pool.len(), 2, "src/a.py and src/b.py");
        let a = shared[0].from.name_ptr();
        for edge in &shared {
            assert_eq!(edge.from.name_ptr(), a);
            assert_eq!(edge.location.path.as_str().as_ptr(), a, "a path and its module's key");
            assert_eq!(edge.to.name_ptr(), shared[0].to.name_ptr());
        }
        assert_ne!(decoded[0].from.name_ptr(), decoded[1].from.name_ptr());
    }

    #[test]
    fn a_text_made_by_the_pool_is_shared_with_equal_ones() {
        let mut pool = TextPool::new();
        let first = pool.text("default");
        let second = pool.text(&String::from("default"));
        assert!(Arc::ptr_eq(&first, &second));
        let mut decoded: Arc<str> = Arc::from("default");
        pool.share(&mut decoded);
        assert!(Arc::ptr_eq(&first, &decoded));
        assert_eq!(pool.len(), 1);
    }

    #[test]
    fn a_route_node_shares_its_handler_module() {
        let path = RepoPath::new("api/items.py").unwrap();
        let mut module = Node::new(NodeKey::module(&RepoPath::new("api/items.py").unwrap()));
        let mut route = Node::new(NodeKey::from_parts(crate::NodeKind::Route, "GET /items"));
        route.attrs.handler = Some(crate::Handler { module: path, function: None });
        let mut pool = TextPool::new();
        module.share(&mut pool);
        route.share(&mut pool);
        let handler = route.attrs.handler.as_ref().unwrap();
        assert_eq!(handler.module.as_str().as_ptr(), module.key.name_ptr());
    }
}
