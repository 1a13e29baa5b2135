//! Import resolution: from an import as written to a module in the tree, a third-party package, a
//! built-in, or a refusal.

pub mod builtins;
pub mod jsonc;
pub mod python;
pub mod python_stdlib;
pub mod rust;
pub mod typescript;

use cartograph_core::{Confidence, Ecosystem, RepoPath};

/// Where an import leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A file in the tree. `note` explains anything less than an exact match (it becomes part of
    /// the edge's evidence), and `confidence` says how sure the match is.
    Module { path: RepoPath, confidence: Confidence, note: Option<String> },
    /// A third-party package.
    Package { ecosystem: Ecosystem, name: String },
    /// A standard-library module or runtime built-in; left out of the graph by default.
    Builtin { ecosystem: Ecosystem, name: String },
    /// Resolves to nothing in the tree; becomes an `unresolved-import` refusal with this reason.
    Unresolved { reason: String },
}

impl Resolution {
    /// An exact match of a file in the tree.
    pub fn module(path: RepoPath) -> Self {
        Resolution::Module { path, confidence: Confidence::Certain, note: None }
    }
}
