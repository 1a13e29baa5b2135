//! Where a tree's files come from: a directory on disk or a git revision read from the object
//! store ([`crate::git`]). Every kind of source yields the same [`Inventory`] and reads files by
//! repository path, so the analysis after discovery cannot tell them apart.
//!
//! Also the one reading of a command's tree argument, [`parse_tree_arg`], shared by every command:
//! a directory, a git revision or a snapshot file.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use cartograph_core::RepoPath;

use crate::discover::{self, DiscoverError, DiscoveryOptions, Inventory};

/// A tree whose files can be listed and read.
pub trait FileSource: Send + Sync {
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

/// What a tree argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeSpec {
    /// A directory, joined to the working directory when relative.
    Directory(PathBuf),
    /// A git revision of the repository at hand, as written (`main`, `HEAD~3`, `v2.1.0`, a SHA).
    Revision(String),
    /// A snapshot file written by `cartograph snapshot`, joined to the working directory when
    /// relative.
    Snapshot(PathBuf),
}

/// Why a tree argument or a revision names no tree. Each message is one sentence and names no
/// path on this machine.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("an empty tree argument names no tree")]
    EmptyArgument,
    #[error(
        "`{0}` is both a directory and a git revision; write `./{0}` for the directory or `rev:{0}` for the revision"
    )]
    AmbiguousDirectory(String),
    #[error(
        "`{0}` is both a snapshot file and a git revision; write `./{0}` for the file or `rev:{0}` for the revision"
    )]
    AmbiguousFile(String),
    #[error(
        "`{word}` is neither a directory, a snapshot file nor a revision of the repository at hand{near}"
    )]
    NotATree { word: String, near: NearestNames },
    #[error(
        "`{0}` is neither a directory nor a file here, and it cannot be read as a revision: the working directory is not inside a git repository"
    )]
    NotATreeOutsideRepository(String),
    #[error("`{0}` is neither a directory nor a snapshot file")]
    NoSuchPath(String),
    #[error("revision `{0}` cannot be read: the working directory is not inside a git repository")]
    NoRepository(String),
    #[error("revision `{revision}` is not in this repository{near}")]
    UnknownRevision { revision: String, near: NearestNames },
    #[error(
        "revision `{0}` is not available in this shallow clone; fetch more history (git fetch --deepen=N)"
    )]
    NotInShallowClone(String),
    #[error("revision `{0}` does not name a commit")]
    NotACommit(String),
    #[error("the repository's object store cannot be read")]
    ObjectStore,
}

/// The branches and tags nearest to a misspelt revision, as an error suggests them: `; did you
/// mean `v1.2.0`?`, or nothing when no name is near (see `crate::git`'s `nearest_names`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NearestNames(pub Vec<String>);

impl std::fmt::Display for NearestNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let quoted: Vec<String> = self.0.iter().map(|name| format!("`{name}`")).collect();
        match quoted.as_slice() {
            [] => Ok(()),
            [one] => write!(f, "; did you mean {one}?"),
            [rest @ .., last] => write!(f, "; did you mean {} or {last}?", rest.join(", ")),
        }
    }
}

/// Reads a command's tree argument. The rules, in order:
///
/// 1. `rev:X` is always the git revision `X`; `dir:X` always the directory `X`; `snapshot:X`
///    always the snapshot file `X` (none of these is checked here: opening the tree is).
/// 2. An argument written as a path (starting with `/`, `./` or `../`, ending with `/`, or `.` or
///    `..` itself) is a directory when it is one, else a snapshot file when it is a file.
/// 3. Any other word is a directory when it is one and a snapshot file when it is a file, unless
///    it also names a commit of the repository at `cwd`: then it is ambiguous, an error that says to
///    write `./X` for the path or `rev:X` for the revision.
/// 4. A word that names no path is tried as a revision of the repository at `cwd` (found as git
///    finds it, from `cwd` upwards). With no repository or no such revision, it is an error.
///
/// Relative paths are joined to `cwd`.
pub fn parse_tree_arg(arg: &str, cwd: &Path) -> Result<TreeSpec, SourceError> {
    if arg.is_empty() {
        return Err(SourceError::EmptyArgument);
    }
    let tagged = |rest: &str, make: fn(PathBuf) -> TreeSpec| {
        if rest.is_empty() { Err(SourceError::EmptyArgument) } else { Ok(make(cwd.join(rest))) }
    };
    if let Some(revision) = arg.strip_prefix("rev:") {
        if revision.is_empty() {
            return Err(SourceError::EmptyArgument);
        }
        return Ok(TreeSpec::Revision(revision.to_owned()));
    }
    if let Some(dir) = arg.strip_prefix("dir:") {
        return tagged(dir, TreeSpec::Directory);
    }
    if let Some(file) = arg.strip_prefix("snapshot:") {
        return tagged(file, TreeSpec::Snapshot);
    }
    let path = cwd.join(arg);
    let written_as_path = arg.starts_with('/')
        || arg.starts_with("./")
        || arg.starts_with("../")
        || arg.ends_with('/')
        || arg == "."
        || arg == ".."
        || Path::new(arg).is_absolute();
    let meta = std::fs::metadata(&path);
    if written_as_path {
        return match meta {
            Ok(meta) if meta.is_dir() => Ok(TreeSpec::Directory(path)),
            Ok(_) => Ok(TreeSpec::Snapshot(path)),
            Err(_) => Err(SourceError::NoSuchPath(shown(arg))),
        };
    }
    match meta {
        Ok(meta) => {
            let is_revision = crate::git::probe_revision(cwd, arg).is_ok();
            match (meta.is_dir(), is_revision) {
                (true, true) => Err(SourceError::AmbiguousDirectory(arg.to_owned())),
                (false, true) => Err(SourceError::AmbiguousFile(arg.to_owned())),
                (true, false) => Ok(TreeSpec::Directory(path)),
                (false, false) => Ok(TreeSpec::Snapshot(path)),
            }
        }
        Err(_) => match crate::git::probe_revision(cwd, arg) {
            Ok(()) => Ok(TreeSpec::Revision(arg.to_owned())),
            Err(SourceError::NoRepository(_)) => {
                Err(SourceError::NotATreeOutsideRepository(arg.to_owned()))
            }
            Err(SourceError::UnknownRevision { near, .. }) => {
                Err(SourceError::NotATree { word: arg.to_owned(), near })
            }
            Err(other) => Err(other),
        },
    }
}

/// An argument as an error may show it: an absolute path only by its last name.
fn shown(arg: &str) -> String {
    if Path::new(arg).is_absolute() {
        let name = Path::new(arg).file_name().map(|n| n.to_string_lossy().into_owned());
        format!(".../{}", name.unwrap_or_default())
    } else {
        arg.to_owned()
    }
}
