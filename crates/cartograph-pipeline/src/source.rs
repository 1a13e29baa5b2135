//! Where a tree's files come from: a directory on disk or a git revision read from the object
//! store. Every kind of source yields the same [`Inventory`] and reads files by repository path, so
//! the analysis after discovery cannot tell them apart.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use cartograph_core::RepoPath;

use crate::discover::{self, DiscoverError, DiscoveryOptions, Inventory};

/// A tree whose files can be listed and read.
pub trait FileSource: Sync {
    /// Lists the tree: what is analysed, what is kept only as a resolution target, what is
    /// skipped with a refusal.
    fn discover(&self, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError>;

    /// Reads one file of the tree, with `size_hint` bytes expected.
    fn read(&self, path: &RepoPath, size_hint: u64) -> io::Result<Vec<u8>>;
}

/// A directory on disk.
#[derive(Debug, Clone)]
pub struct DirectorySource {
    root: PathBuf,
}

impl DirectorySource {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl FileSource for DirectorySource {
    fn discover(&self, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
        discover::discover(&self.root, options)
    }

    fn read(&self, path: &RepoPath, size_hint: u64) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(size_hint).unwrap_or(0));
        std::fs::File::open(self.root.join(path.as_str()))?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}
