//! An index of the files and directories of one tree, for resolution to probe without I/O.

use std::collections::{BTreeSet, HashSet};

use cartograph_core::RepoPath;

/// Every file discovery kept (source or not) and every directory above them.
#[derive(Debug, Default, Clone)]
pub struct TreeIndex {
    files: BTreeSet<RepoPath>,
    /// The same paths, sharing their text, for lookups by name.
    file_names: HashSet<RepoPath>,
    dirs: HashSet<String>,
}

impl TreeIndex {
    pub fn new(files: impl IntoIterator<Item = RepoPath>) -> Self {
        let mut index = TreeIndex::default();
        for file in files {
            index.insert(file);
        }
        index
    }

    pub fn insert(&mut self, file: RepoPath) {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if !self.dirs.insert(d.as_str().to_owned()) {
                break;
            }
            dir = d.parent();
        }
        self.file_names.insert(file.clone());
        self.files.insert(file);
    }

    /// True when `path` (repository-relative, `/`-separated) is a file of the tree.
    pub fn is_file(&self, path: &str) -> bool {
        self.file_names.contains(path)
    }

    /// True when `path` is a directory holding at least one file of the tree. The root is `""`.
    pub fn is_dir(&self, path: &str) -> bool {
        path.is_empty() || self.dirs.contains(path)
    }

    /// The file at `path`, if it is in the tree: the tree's own `RepoPath`, whose text every
    /// import resolved to it then shares.
    pub fn file(&self, path: &str) -> Option<RepoPath> {
        self.file_names.get(path).cloned()
    }

    /// All files in path order.
    pub fn files(&self) -> impl Iterator<Item = &RepoPath> {
        self.files.iter()
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Joins `base` (a directory, `""` for the root) and a relative `/`-separated path, normalising
/// `.` and `..`. Returns `None` when the result would leave the tree.
pub fn join_normalised(base: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The directory of a file path, `""` at the root.
pub fn dir_of(path: &RepoPath) -> String {
    path.parent().map(|p| p.as_str().to_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_knows_files_and_their_directories() {
        let idx = TreeIndex::new(["a/b/c.py", "a/d.ts"].map(|p| RepoPath::new(p).unwrap()));
        assert!(idx.is_file("a/b/c.py"));
        assert!(!idx.is_file("a/b"));
        assert!(idx.is_dir("a/b"));
        assert!(idx.is_dir("a"));
        assert!(idx.is_dir(""));
        assert!(!idx.is_dir("a/b/c.py"));
        assert_eq!(idx.len(), 2);
    }

    #[test]
    fn join_normalises_and_refuses_escaping_the_root() {
        assert_eq!(join_normalised("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(join_normalised("a", "./x/./y").as_deref(), Some("a/x/y"));
        assert_eq!(join_normalised("", "x").as_deref(), Some("x"));
        assert_eq!(join_normalised("a", "../..").as_deref(), None);
        assert_eq!(join_normalised("a", "..").as_deref(), Some(""));
    }
}
