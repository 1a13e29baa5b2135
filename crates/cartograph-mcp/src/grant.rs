//! Session authorization (decision 0002): which trees a long-lived session, such as the MCP server,
//! may analyse.
//!
//! A session holds one [`Grant`], built once at launch from the launcher's argv: one opaque
//! [`SessionIdentity`] (supplied by the launcher, never derived from a tree) and the trees that
//! identity covers. A granted tree is a directory; when it is also the root of a git repository
//! (it holds `.git`), the revisions of that repository count as that tree.
//!
//! Every query names its tree as a string, and [`Grant::authorize`] turns that string into an
//! [`AuthorizedTree`] — the only way to obtain one — **before any file of the tree is read**: a
//! directory request is resolved against the launch directory and canonicalised (which follows
//! symbolic links and removes `..`, touching directory metadata only), and it is admitted only when
//! it is *equal* to a granted root. Containment is not enough: a sub-directory, a parent, a
//! sibling or a link that resolves anywhere else is refused. A revision request (`rev:REV`) is
//! admitted only when a granted tree is a repository root, and reads that repository only.
//!
//! A refusal echoes only what the client sent (an absolute request only by its last name), never a
//! granted root, a parent directory or a canonical path, and it says the same thing whether or not
//! the requested path exists.

use std::fmt;
use std::path::{Path, PathBuf};

use cartograph_core::RepoPath;
use cartograph_pipeline::discover::{DiscoverError, DiscoveryOptions};
use cartograph_pipeline::{DirectorySource, FileSource, GitRevisionSource};
use cartograph_query::names::{directory_label, revision_label};

/// The one repository identity of a session: an opaque token whose meaning belongs to whoever
/// launched the session. It is compared, never interpreted, and never shown in a response.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionIdentity(String);

impl SessionIdentity {
    /// The identity the launcher supplied. It must not be empty or contain control characters.
    pub fn from_grant(value: &str) -> Result<Self, GrantError> {
        if value.trim().is_empty() || value.chars().any(char::is_control) {
            return Err(GrantError::BadIdentity);
        }
        Ok(Self(value.to_owned()))
    }
}

impl fmt::Debug for SessionIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionIdentity(..)")
    }
}

/// One granted tree: its canonical root (never shown) and whether it is a git repository root.
#[derive(Clone)]
struct GrantedTree {
    root: PathBuf,
    repository: bool,
}

/// What a session may analyse: one identity and the trees granted for it. Immutable once built.
#[derive(Clone)]
pub struct Grant {
    identity: SessionIdentity,
    /// The directory relative requests are resolved against, fixed at launch.
    base: PathBuf,
    trees: Vec<GrantedTree>,
}

impl fmt::Debug for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grant")
            .field("identity", &self.identity)
            .field("trees", &self.trees.len())
            .finish_non_exhaustive()
    }
}

/// Why a grant could not be built, or why a request was refused. No message names a path beyond
/// what the client or the launcher wrote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    #[error("the grant identity must be a non-empty word without control characters")]
    BadIdentity,
    #[error("a grant needs at least one tree")]
    NoTrees,
    #[error("granted tree `{0}` is not a directory that can be opened")]
    BadTree(String),
    #[error("the launch directory cannot be read")]
    NoBase,
    #[error("an empty tree names nothing; name a granted tree")]
    EmptyRequest,
    #[error("tree `{0}` is not granted to this session")]
    NotGranted(String),
    #[error(
        "revision `{0}` is refused: no granted tree is the root of a git repository, so this session may read no revision"
    )]
    NoGrantedRepository(String),
    #[error(
        "revision `{0}` is ambiguous: several granted trees are git repositories; name one as `TREE@rev:{0}`"
    )]
    AmbiguousRepository(String),
    #[error("revision `{revision}` cannot be read: {reason}")]
    Revision { revision: String, reason: String },
}

impl Grant {
    /// Builds the session's grant from launch arguments: the identity and the trees, each resolved
    /// against `base` (the launch directory) and canonicalised once, here.
    pub fn new(identity: &str, trees: &[String], base: &Path) -> Result<Self, GrantError> {
        let identity = SessionIdentity::from_grant(identity)?;
        if trees.is_empty() {
            return Err(GrantError::NoTrees);
        }
        let base = base.canonicalize().map_err(|_| GrantError::NoBase)?;
        let mut granted: Vec<GrantedTree> = Vec::new();
        for tree in trees {
            let bad = || GrantError::BadTree(shown(tree));
            if tree.is_empty() {
                return Err(bad());
            }
            let root = base.join(tree).canonicalize().map_err(|_| bad())?;
            if !root.is_dir() {
                return Err(bad());
            }
            let repository = root.join(".git").exists();
            if !granted.iter().any(|g| g.root == root) {
                granted.push(GrantedTree { root, repository });
            }
        }
        Ok(Self { identity, base, trees: granted })
    }

    /// The session's identity.
    pub fn identity(&self) -> &SessionIdentity {
        &self.identity
    }

    /// How many distinct trees are granted.
    pub fn tree_count(&self) -> usize {
        self.trees.len()
    }

    /// Checks `requested` against the grant, before anything of the tree is read. Accepted forms:
    ///
    /// - a directory (optionally written `dir:PATH`), relative to the launch directory or
    ///   absolute, that canonicalises to a granted tree exactly;
    /// - `rev:REV`, a revision of the one granted tree that is a git repository root;
    /// - `TREE@rev:REV`, a revision of the granted repository `TREE`.
    pub fn authorize(&self, requested: &str) -> Result<AuthorizedTree, GrantError> {
        let requested = requested.trim();
        if requested.is_empty() {
            return Err(GrantError::EmptyRequest);
        }
        let path = match requested.strip_prefix("dir:") {
            Some(path) => path,
            None => {
                if let Some(revision) = requested.strip_prefix("rev:") {
                    return self.authorize_revision(None, revision);
                }
                if let Some((tree, revision)) = requested.rsplit_once("@rev:") {
                    return self.authorize_revision(Some(tree), revision);
                }
                requested
            }
        };
        let tree = self.granted_tree(path).ok_or_else(|| GrantError::NotGranted(shown(path)))?;
        Ok(AuthorizedTree {
            kind: TreeKind::Directory(tree.root.clone()),
            requested: shown(requested),
        })
    }

    /// Authorizes both trees of a diff, both before either is analysed: each must be granted to
    /// this session's one identity.
    pub fn authorize_pair(
        &self,
        base: &str,
        head: &str,
    ) -> Result<(AuthorizedTree, AuthorizedTree), GrantError> {
        let base = self.authorize(base)?;
        let head = self.authorize(head)?;
        Ok((base, head))
    }

    /// The granted tree `path` canonicalises to, if any.
    fn granted_tree(&self, path: &str) -> Option<&GrantedTree> {
        if path.is_empty() || path.chars().any(char::is_control) {
            return None;
        }
        let canonical = self.base.join(path).canonicalize().ok()?;
        self.trees.iter().find(|g| g.root == canonical)
    }

    fn authorize_revision(
        &self,
        tree: Option<&str>,
        revision: &str,
    ) -> Result<AuthorizedTree, GrantError> {
        let revision = revision.trim();
        if revision.is_empty() {
            return Err(GrantError::EmptyRequest);
        }
        let repository = match tree {
            Some(tree) => {
                let shown_tree = shown(tree);
                let granted =
                    self.granted_tree(tree).ok_or(GrantError::NotGranted(shown_tree.clone()))?;
                if !granted.repository {
                    return Err(GrantError::Revision {
                        revision: shown(revision),
                        reason: format!("granted tree `{shown_tree}` is not a git repository root"),
                    });
                }
                granted
            }
            None => {
                let mut repositories = self.trees.iter().filter(|g| g.repository);
                match (repositories.next(), repositories.next()) {
                    (Some(only), None) => only,
                    (None, _) => return Err(GrantError::NoGrantedRepository(shown(revision))),
                    (Some(_), Some(_)) => {
                        return Err(GrantError::AmbiguousRepository(shown(revision)));
                    }
                }
            }
        };
        Ok(AuthorizedTree {
            kind: TreeKind::Revision {
                repository: repository.root.clone(),
                revision: revision.to_owned(),
            },
            requested: match tree {
                Some(tree) => format!("{}@rev:{}", shown(tree), shown(revision)),
                None => format!("rev:{}", shown(revision)),
            },
        })
    }
}

#[derive(Clone, PartialEq, Eq)]
enum TreeKind {
    Directory(PathBuf),
    Revision { repository: PathBuf, revision: String },
}

/// A tree this session's grant admits. Only [`Grant::authorize`] makes one; the fields are private,
/// so every analysis a session runs starts from a checked request.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthorizedTree {
    kind: TreeKind,
    requested: String,
}

impl fmt::Debug for AuthorizedTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthorizedTree").field("requested", &self.requested).finish_non_exhaustive()
    }
}

/// An authorized tree, opened for reading.
pub struct OpenedTree {
    /// The files of the tree.
    pub source: Box<dyn FileSource>,
    /// `directory` or `revision`.
    pub kind: &'static str,
    /// How a report names the tree: a directory's own name, or `REV (commit)`; never a path.
    pub label: String,
    /// For a revision, the full commit id: the content of the tree, fixed.
    pub commit: Option<String>,
    /// For a directory, its root, to stamp its content (never shown).
    root: Option<PathBuf>,
}

impl OpenedTree {
    /// Reads a small file of the tree that is not source code (the rules file, its baseline):
    /// `None` when there is none. In a directory, only a regular file is read — never a link,
    /// which could point out of the granted tree — and none larger than `max` bytes.
    pub fn read_small(&self, path: &RepoPath, max: u64) -> std::io::Result<Option<Vec<u8>>> {
        if let Some(root) = &self.root {
            match std::fs::symlink_metadata(root.join(path.as_str())) {
                Ok(meta) if meta.file_type().is_file() && meta.len() <= max => {}
                Ok(meta) if meta.file_type().is_file() => {
                    return Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, "too large"));
                }
                Ok(_) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "not a regular file",
                    ));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        match self.source.read(path, 0) {
            Ok(bytes) if bytes.len() as u64 > max => {
                Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, "too large"))
            }
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// A stamp of the tree's current content, for keying cached analyses: a revision's commit, or
    /// for a directory a hash of every file discovery keeps, with its size and modification
    /// time. Reads no file's content.
    pub fn stamp(&self, options: &DiscoveryOptions) -> Result<String, DiscoverError> {
        if let Some(commit) = &self.commit {
            return Ok(commit.clone());
        }
        let inventory = self.source.discover(options)?;
        let mut hasher = blake3::Hasher::new();
        let mut field = |bytes: &[u8]| {
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        let mut files: Vec<&str> = inventory.index.files().map(|p| p.as_str()).collect();
        files.extend(inventory.sources.iter().map(|c| c.path.as_str()));
        files.extend(inventory.prisma_schemas.iter().map(|p| p.as_str()));
        files.sort_unstable();
        files.dedup();
        for path in files {
            field(path.as_bytes());
            let meta = self.root.as_ref().and_then(|root| std::fs::metadata(root.join(path)).ok());
            let size = meta.as_ref().map_or(0, std::fs::Metadata::len);
            let modified = meta
                .and_then(|meta| meta.modified().ok())
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |since| since.as_nanos());
            field(&size.to_le_bytes());
            field(&modified.to_le_bytes());
        }
        field(&(inventory.refusals.len() as u64).to_le_bytes());
        field(&inventory.entries_seen.to_le_bytes());
        Ok(hasher.finalize().to_hex().to_string())
    }
}

impl fmt::Debug for OpenedTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenedTree")
            .field("kind", &self.kind)
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl AuthorizedTree {
    /// The request as the client wrote it (an absolute path only by its last name).
    pub fn requested(&self) -> &str {
        &self.requested
    }

    /// Whether this is a revision of a granted repository.
    pub fn is_revision(&self) -> bool {
        matches!(self.kind, TreeKind::Revision { .. })
    }

    /// Opens the tree: a directory, or the revision resolved in the granted repository.
    pub fn open(&self) -> Result<OpenedTree, GrantError> {
        match &self.kind {
            TreeKind::Directory(root) => Ok(OpenedTree {
                source: Box::new(DirectorySource::new(root.clone())),
                kind: "directory",
                label: directory_label(root),
                commit: None,
                root: Some(root.clone()),
            }),
            TreeKind::Revision { repository, revision } => {
                let source = GitRevisionSource::open(repository, revision).map_err(|e| {
                    GrantError::Revision { revision: shown(revision), reason: e.to_string() }
                })?;
                let commit = source.commit_hex().to_owned();
                let label = revision_label(&shown(revision), &commit);
                Ok(OpenedTree {
                    source: Box::new(source),
                    kind: "revision",
                    label,
                    commit: Some(commit),
                    root: None,
                })
            }
        }
    }

    /// A stable name for this tree within the session (the same for every spelling of one granted
    /// directory), for keying caches. It holds a machine path: never show it.
    pub fn session_key(&self) -> String {
        match &self.kind {
            TreeKind::Directory(root) => format!("dir\u{0}{}", root.to_string_lossy()),
            TreeKind::Revision { repository, revision } => {
                format!("rev\u{0}{}\u{0}{revision}", repository.to_string_lossy())
            }
        }
    }
}

/// What the client sent, as an error may echo it: an absolute path only by its last name, control
/// characters replaced.
fn shown(text: &str) -> String {
    let path = Path::new(text);
    let rooted = path.is_absolute() || text.starts_with('/') || text.starts_with('\\');
    let text = if rooted {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        format!(".../{name}")
    } else {
        text.to_owned()
    };
    text.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        _dir: tempfile::TempDir,
        base: PathBuf,
    }

    /// `a/` and `b/` (each with one file), `outside/secret.py`, and `a/sub/`.
    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().join("work");
        for tree in ["a", "b", "a/sub", "outside"] {
            std::fs::create_dir_all(base.join(tree)).expect("mkdir");
        }
        std::fs::write(base.join("a/app.py"), "import os\n").expect("write");
        std::fs::write(base.join("b/app.py"), "import sys\n").expect("write");
        std::fs::write(base.join("outside/secret.py"), "x = 1\n").expect("write");
        Fixture { _dir: dir, base }
    }

    fn grant(f: &Fixture, trees: &[&str]) -> Grant {
        let trees: Vec<String> = trees.iter().map(|t| (*t).to_owned()).collect();
        Grant::new("session-1", &trees, &f.base).expect("grant")
    }

    #[test]
    fn a_granted_tree_is_admitted_under_any_spelling() {
        let f = fixture();
        let g = grant(&f, &["a"]);
        let plain = g.authorize("a").expect("a");
        assert!(g.authorize("dir:a@rev:x").is_err(), "`dir:` is always a directory");
        for spelling in ["./a", "a/", "dir:a", "a/sub/..", "b/../a"] {
            let other = g.authorize(spelling).expect(spelling);
            assert_eq!(other.session_key(), plain.session_key(), "{spelling}");
        }
        let absolute = f.base.join("a");
        let tree = g.authorize(&absolute.to_string_lossy()).expect("absolute");
        assert_eq!(tree.requested(), ".../a", "an absolute request is echoed by its name only");
    }

    #[test]
    fn diff_pairs_need_both_trees_granted() {
        let f = fixture();
        let g = grant(&f, &["a"]);
        assert!(g.authorize_pair("a", "a").is_ok(), "A + A allowed");
        assert_eq!(g.authorize_pair("a", "b").unwrap_err(), GrantError::NotGranted("b".into()));
        assert_eq!(g.authorize_pair("b", "a").unwrap_err(), GrantError::NotGranted("b".into()));
        assert_eq!(g.authorize("b").unwrap_err(), GrantError::NotGranted("b".into()));
    }

    #[test]
    fn two_granted_trees_of_one_identity_diff() {
        let f = fixture();
        let g = grant(&f, &["a", "b"]);
        assert_eq!(g.tree_count(), 2);
        assert!(g.authorize_pair("a", "b").is_ok());
        assert!(g.authorize("outside").is_err());
    }

    #[test]
    fn sub_parent_and_dot_dot_escapes_are_refused() {
        let f = fixture();
        let g = grant(&f, &["a"]);
        for request in ["a/sub", ".", "..", "a/..", "a/../outside", "a/../../work/outside", "nope"]
        {
            let error = g.authorize(request).expect_err(request);
            assert_eq!(error, GrantError::NotGranted(request.to_owned()));
        }
        // The refusal is the same whether or not the path exists, and names no parent.
        let missing = f.base.join("missing");
        let message = g.authorize(&missing.to_string_lossy()).unwrap_err().to_string();
        assert_eq!(message, "tree `.../missing` is not granted to this session");
        let present = f.base.join("b");
        let message = g.authorize(&present.to_string_lossy()).unwrap_err().to_string();
        assert!(!message.contains(&*f.base.to_string_lossy()), "{message}");
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_do_not_escape() {
        let f = fixture();
        std::os::unix::fs::symlink(f.base.join("outside"), f.base.join("a/escape")).expect("link");
        std::os::unix::fs::symlink(f.base.join("outside"), f.base.join("alias")).expect("link");
        std::os::unix::fs::symlink(f.base.join("a"), f.base.join("to-a")).expect("link");
        let g = grant(&f, &["a"]);
        assert!(g.authorize("a/escape").is_err());
        assert!(g.authorize("alias").is_err());
        assert!(g.authorize("a/escape/..").is_err());
        // A link to the granted tree itself names that tree.
        assert!(g.authorize("to-a").is_ok());
        // A grant through a link is the link's target, canonicalised at launch.
        let linked = grant(&f, &["to-a"]);
        assert!(linked.authorize("a").is_ok());
        assert!(linked.authorize("alias").is_err());
    }

    #[test]
    fn revisions_count_only_for_a_granted_repository_root() {
        let f = fixture();
        std::fs::create_dir_all(f.base.join("a/.git")).expect("mkdir");
        let g = grant(&f, &["a"]);
        let tree = g.authorize("rev:HEAD~1").expect("revision of the granted repository");
        assert!(tree.is_revision());
        assert_eq!(tree.requested(), "rev:HEAD~1");
        assert!(g.authorize("a@rev:main").is_ok());
        assert_eq!(g.authorize("b@rev:main").unwrap_err(), GrantError::NotGranted("b".into()));
        // A granted tree that is not a repository root admits no revision.
        let plain = grant(&f, &["b"]);
        assert_eq!(
            plain.authorize("rev:main").unwrap_err(),
            GrantError::NoGrantedRepository("main".into())
        );
        // Inside the repository is not its root: a sub-directory grant reads no revision.
        let sub = grant(&f, &["a/sub"]);
        assert!(sub.authorize("rev:main").is_err());
        std::fs::create_dir_all(f.base.join("b/.git")).expect("mkdir");
        let both = grant(&f, &["a", "b"]);
        assert_eq!(
            both.authorize("rev:main").unwrap_err(),
            GrantError::AmbiguousRepository("main".into())
        );
    }

    #[test]
    fn bad_grants_are_refused_at_launch() {
        let f = fixture();
        let trees = vec!["a".to_owned()];
        assert_eq!(Grant::new("", &trees, &f.base).unwrap_err(), GrantError::BadIdentity);
        assert_eq!(Grant::new("id", &[], &f.base).unwrap_err(), GrantError::NoTrees);
        let missing = vec![f.base.join("gone").to_string_lossy().into_owned()];
        assert_eq!(
            Grant::new("id", &missing, &f.base).unwrap_err(),
            GrantError::BadTree(".../gone".into())
        );
        let file = vec!["a/app.py".to_owned()];
        assert!(Grant::new("id", &file, &f.base).is_err());
    }

    #[test]
    fn debug_output_shows_no_path_or_identity() {
        let f = fixture();
        let g = grant(&f, &["a"]);
        let tree = g.authorize("a").expect("a");
        for text in [format!("{g:?}"), format!("{tree:?}")] {
            assert!(!text.contains(&*f.base.to_string_lossy()), "{text}");
            assert!(!text.contains("session-1"), "{text}");
        }
    }
}
