//! Discovery: walks a directory tree and decides, for every file, whether it is analysed, kept only
//! as a resolution target, or skipped with a refusal.
//!
//! The walk honours `.gitignore` and `.ignore` files inside the tree (never the user's global
//! ignore file or the tree's parents, which would make results depend on the machine), never follows
//! symbolic links (each is recorded), and skips vendored and generated folders by default. Files
//! over the size cap are not read. Candidate source files are read later, once, by the worker that
//! extracts them ([`read_source`]), so discovery itself is a cheap directory listing.
//!
//! What to do with each entry the walk meets is decided by one builder that the walk of a git
//! revision's tree (`crate::git`) shares, so both kinds of tree are classified alike.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use cartograph_extract::{Grammar, grammar_for};

use crate::TreeIndex;
use crate::source::FileSource;

/// Folders skipped by default: dependencies, virtual environments, build output and caches.
pub const DEFAULT_EXCLUDED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "bower_components",
    ".next",
    ".nuxt",
    ".turbo",
];

/// The default file-size cap: 1 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// What discovery skips and how.
#[derive(Debug, Clone)]
pub struct DiscoveryOptions {
    /// Files larger than this many bytes are not read; each is recorded as a refusal.
    pub max_file_size: u64,
    /// Directory names never entered.
    pub excluded_dirs: Vec<String>,
}

impl Default for DiscoveryOptions {
    fn default() -> Self {
        Self {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            excluded_dirs: DEFAULT_EXCLUDED_DIRS.iter().map(|d| (*d).to_owned()).collect(),
        }
    }
}

/// A file to parse.
#[derive(Debug, Clone)]
pub struct SourceCandidate {
    pub path: RepoPath,
    pub grammar: Grammar,
    pub size: u64,
}

/// The text of a source file as read by a worker.
#[derive(Debug)]
pub enum SourceText {
    /// Valid UTF-8 (`lossy` false) or decoded with replacement characters (`lossy` true).
    Text { text: String, lossy: bool },
    /// Not analysed; the refusal says why.
    Skipped(Refusal),
}

/// Everything discovery found.
#[derive(Debug, Default)]
pub struct Inventory {
    /// Files to parse, in path order.
    pub sources: Vec<SourceCandidate>,
    /// Prisma schema files (`*.prisma`), read by a line-oriented reader rather than a grammar.
    pub prisma_schemas: Vec<RepoPath>,
    /// SQL schema files (`*.sql` outside migrations and tests), read for `CREATE TABLE`.
    pub sql_schemas: Vec<RepoPath>,
    /// Every file kept (source or not): what import resolution may link to.
    pub index: TreeIndex,
    /// Files and links skipped during the walk.
    pub refusals: Vec<Refusal>,
    /// Excluded directories that were present, in path order.
    pub excluded_dirs: Vec<RepoPath>,
    /// Every regular file and link the walk met, kept or not.
    pub entries_seen: u64,
    /// Files kept that are not source files of an analysed language (neither parsed nor
    /// refused): by extension, lower case, `""` for none. What coverage reports as not seen.
    pub other_files: BTreeMap<String, u64>,
}

/// Why a tree could not be walked at all.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("the tree is not a directory")]
    NotADirectory,
    #[error("the tree cannot be read ({0})")]
    Unreadable(std::io::ErrorKind),
    #[error("the revision's tree cannot be read from the git object store")]
    ObjectStore,
}

/// Walks `root`.
pub fn discover(root: &Path, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
    let meta = fs::metadata(root).map_err(|e| DiscoverError::Unreadable(e.kind()))?;
    if !meta.is_dir() {
        return Err(DiscoverError::NotADirectory);
    }
    fs::read_dir(root).map_err(|e| DiscoverError::Unreadable(e.kind()))?;

    let mut builder = InventoryBuilder::new(options);
    let excluded = options.excluded_dirs.clone();
    let root_buf = root.to_path_buf();
    // The filter runs inside the walker; it records what it prunes here.
    let pruned: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let pruned_by_filter = Arc::clone(&pruned);
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .git_global(false)
        .git_exclude(false)
        .git_ignore(true)
        .ignore(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(Ord::cmp)
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let prune = is_dir
                && entry.depth() > 0
                && entry.file_name().to_str().is_some_and(|n| excluded.iter().any(|e| e == n));
            if prune && let Ok(mut list) = pruned_by_filter.lock() {
                list.push(entry.path().to_path_buf());
            }
            !prune
        })
        .build();

    for result in walker {
        let entry = match result {
            Ok(entry) => entry,
            Err(error) => {
                builder.refuse(walk_error_refusal(&root_buf, &error));
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let Some(file_type) = entry.file_type() else { continue };
        let relative = match relative_path(&root_buf, entry.path()) {
            Ok(path) => path,
            Err(refusal) => {
                builder.refuse_entry(refusal);
                continue;
            }
        };
        if file_type.is_dir() {
            continue;
        }
        if file_type.is_symlink() {
            builder.symlink(relative);
            continue;
        }
        if !file_type.is_file() {
            continue;
        }
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        builder.file(relative, size);
    }
    let pruned = pruned.lock().map(|list| list.clone()).unwrap_or_default();
    for path in &pruned {
        if let Ok(path) = relative_path(&root_buf, path) {
            builder.excluded_dir(path);
        }
    }
    Ok(builder.finish())
}

/// Builds an [`Inventory`] from what a walk meets. The directory walk and the walk of a git
/// revision's tree both feed it, so a file is classified alike whichever walk met it.
pub(crate) struct InventoryBuilder<'a> {
    options: &'a DiscoveryOptions,
    inventory: Inventory,
}

impl<'a> InventoryBuilder<'a> {
    pub(crate) fn new(options: &'a DiscoveryOptions) -> Self {
        Self { options, inventory: Inventory::default() }
    }

    /// Whether a directory below the root with this name is pruned, never entered.
    pub(crate) fn is_excluded_dir(&self, name: &str) -> bool {
        self.options.excluded_dirs.iter().any(|e| e == name)
    }

    /// Records a pruned directory.
    pub(crate) fn excluded_dir(&mut self, path: RepoPath) {
        self.inventory.excluded_dirs.push(path);
    }

    /// An entry the walk met but cannot name or use (counted as seen).
    pub(crate) fn refuse_entry(&mut self, refusal: Refusal) {
        self.inventory.entries_seen += 1;
        self.inventory.refusals.push(refusal);
    }

    /// A failure of the walk itself (not counted as an entry).
    pub(crate) fn refuse(&mut self, refusal: Refusal) {
        self.inventory.refusals.push(refusal);
    }

    /// A symbolic link: never followed.
    pub(crate) fn symlink(&mut self, path: RepoPath) {
        self.refuse_entry(Refusal::new(
            RefusalKind::Symlink,
            SourceLocation::file(path),
            "symbolic link not followed",
        ));
    }

    /// A regular file of `size` bytes: a source to parse, a Prisma schema, a resolution target
    /// only, or a refusal (over the size cap, minified by its name).
    pub(crate) fn file(&mut self, path: RepoPath, size: u64) {
        let inventory = &mut self.inventory;
        inventory.entries_seen += 1;
        let grammar = grammar_for(&path);
        let prisma = path.extension() == Some("prisma");
        let sql_schema = cartograph_extract::is_schema_file(&path);
        // Only a file the analysis would read is refused for its size: an image or an archive
        // over the cap was never going to be read, and is counted with the other files.
        let read = grammar.is_some() || prisma || sql_schema || is_config_file(&path);
        if size > self.options.max_file_size && read {
            // Still a file of the tree: imports of it resolve, only its own facts are unknown.
            inventory.index.insert(path.clone());
            inventory.refusals.push(Refusal::new(
                RefusalKind::FileTooLarge,
                SourceLocation::file(path),
                format!(
                    "file of {size} bytes is over the {} byte cap and was not read",
                    self.options.max_file_size
                ),
            ));
            return;
        }
        if prisma {
            inventory.prisma_schemas.push(path.clone());
        }
        if sql_schema {
            inventory.sql_schemas.push(path.clone());
        }
        match grammar {
            Some(grammar) => {
                if is_minified_name(path.file_name()) {
                    inventory.refusals.push(Refusal::new(
                        RefusalKind::MinifiedBundle,
                        SourceLocation::file(path),
                        "minified bundle not analysed",
                    ));
                    return;
                }
                inventory.sources.push(SourceCandidate { path: path.clone(), grammar, size });
            }
            None => {
                let extension = path.extension().unwrap_or("").to_ascii_lowercase();
                *inventory.other_files.entry(extension).or_default() += 1;
            }
        }
        inventory.index.insert(path);
    }

    /// The inventory, excluded directories and refusals in order.
    pub(crate) fn finish(mut self) -> Inventory {
        self.inventory.excluded_dirs.sort();
        self.inventory.refusals.sort();
        self.inventory
    }
}

/// The configuration files the import resolvers read (`package.json`, `tsconfig*.json`,
/// `jsconfig*.json`, `Cargo.toml`).
fn is_config_file(path: &RepoPath) -> bool {
    let name = path.file_name();
    name == "package.json"
        || name == "Cargo.toml"
        || ((name.starts_with("tsconfig") || name.starts_with("jsconfig"))
            && name.ends_with(".json"))
}

fn walk_error_refusal(root: &Path, error: &ignore::Error) -> Refusal {
    let path = walk_error_path(error);
    let location = SourceLocation::file(
        path.and_then(|p| relative_path(root, &p).ok()).unwrap_or_else(placeholder_path),
    );
    let reason = match error.io_error().map(std::io::Error::kind) {
        Some(std::io::ErrorKind::PermissionDenied) => "permission denied".to_owned(),
        Some(kind) => format!("cannot be read ({kind})"),
        None => "cannot be read".to_owned(),
    };
    Refusal::new(RefusalKind::UnreadableFile, location, reason)
}

fn walk_error_path(error: &ignore::Error) -> Option<PathBuf> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

/// The repository path of `path` under `root`, or a refusal when it is not expressible as one
/// (a name that is not UTF-8 or holds control characters). The refusal shows the name with
/// replacement characters; nothing above `root` is ever part of it.
fn relative_path(root: &Path, path: &Path) -> Result<RepoPath, Refusal> {
    let relative = match path.strip_prefix(root) {
        Ok(relative) => relative,
        Err(_) => Path::new(path.file_name().unwrap_or_default()),
    };
    let parts: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    repo_path_or_refusal(&parts.join("/"), relative.to_str().is_some())
}

/// The repository path `joined` (components joined by `/`, shown lossily when a name was not
/// UTF-8, which `utf8` false says), or the refusal of a name that is not expressible as one.
pub(crate) fn repo_path_or_refusal(joined: &str, utf8: bool) -> Result<RepoPath, Refusal> {
    if utf8 && let Ok(path) = RepoPath::new(joined) {
        return Ok(path);
    }
    let shown: String = joined.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
    let location = RepoPath::new(&shown).unwrap_or_else(|_| placeholder_path());
    Err(Refusal::new(
        RefusalKind::InvalidPath,
        SourceLocation::file(location),
        "file name is not valid UTF-8 or not a valid path; shown with replacement characters",
    ))
}

/// Stands in for a location that has no usable name.
pub(crate) fn placeholder_path() -> RepoPath {
    RepoPath::new("(unnamed)").expect("a literal relative path is valid")
}

fn is_minified_name(name: &str) -> bool {
    name.ends_with(".min.js") || name.ends_with(".min.mjs") || name.ends_with(".min.cjs")
}

/// How many bytes at the start of a file are checked for NUL to detect binary content.
const BINARY_SNIFF_LEN: usize = 8192;

/// A line longer than this in a JS file marks it as a minified bundle.
const MINIFIED_LINE_LEN: usize = 5000;

/// Reads one source file from `source`. Binary content, bundles and read failures become
/// refusals; invalid UTF-8 is decoded with replacement characters and flagged.
pub fn read_source(source: &dyn FileSource, candidate: &SourceCandidate) -> SourceText {
    match source.read(&candidate.path, candidate.size) {
        Ok(bytes) => classify_source(candidate, bytes),
        Err(error) => SourceText::Skipped(unreadable(candidate, &error)),
    }
}

/// The refusal for a source file that cannot be read (the error's kind only: its message may
/// hold a machine path).
pub fn unreadable(candidate: &SourceCandidate, error: &std::io::Error) -> Refusal {
    Refusal::new(
        RefusalKind::UnreadableFile,
        SourceLocation::file(candidate.path.clone()),
        format!("cannot be read ({})", error.kind()),
    )
}

/// Classifies bytes already read: binary, minified, lossy or plain text.
pub fn classify_source(candidate: &SourceCandidate, bytes: Vec<u8>) -> SourceText {
    let location = || SourceLocation::file(candidate.path.clone());
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_LEN)];
    if head.contains(&0) {
        return SourceText::Skipped(Refusal::new(
            RefusalKind::BinaryFile,
            location(),
            "file holds binary content and was not parsed",
        ));
    }
    if candidate.grammar.spec().skips_minified
        && bytes.len() > MINIFIED_LINE_LEN
        && bytes.split(|b| *b == b'\n').any(|line| line.len() > MINIFIED_LINE_LEN)
    {
        return SourceText::Skipped(Refusal::new(
            RefusalKind::MinifiedBundle,
            location(),
            format!("a line longer than {MINIFIED_LINE_LEN} bytes marks a minified bundle"),
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => SourceText::Text { text, lossy: false },
        Err(error) => SourceText::Text {
            text: String::from_utf8_lossy(error.as_bytes()).into_owned(),
            lossy: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, content: &[u8]) {
        let full = root.join(path);
        fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        fs::write(full, content).expect("write");
    }

    fn paths(inventory: &Inventory) -> Vec<&str> {
        inventory.sources.iter().map(|s| s.path.as_str()).collect()
    }

    #[test]
    fn honours_ignore_files_inside_the_tree_but_not_above_it() {
        let outer = tempfile::tempdir().expect("tempdir");
        write(outer.path(), ".gitignore", b"*\n");
        let root = outer.path().join("repo");
        write(&root, ".gitignore", b"generated/\n*.tmp.py\n");
        write(&root, ".ignore", b"scratch.py\n");
        write(&root, "app/main.py", b"import os\n");
        write(&root, "app/x.tmp.py", b"");
        write(&root, "generated/g.py", b"");
        write(&root, "scratch.py", b"");
        let inventory = discover(&root, &DiscoveryOptions::default()).expect("walk");
        assert_eq!(paths(&inventory), ["app/main.py"]);
    }

    #[test]
    fn excluded_directories_are_pruned_and_listed() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "web/node_modules/react/index.js", b"");
        write(dir.path(), "web/src/a.ts", b"");
        write(dir.path(), "py/.venv/lib/x.py", b"");
        write(dir.path(), "py/build/lib/y.py", b"");
        let inventory = discover(dir.path(), &DiscoveryOptions::default()).expect("walk");
        assert_eq!(paths(&inventory), ["web/src/a.ts"]);
        let excluded: Vec<&str> = inventory.excluded_dirs.iter().map(RepoPath::as_str).collect();
        assert_eq!(excluded, ["py/.venv", "py/build", "web/node_modules"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_recorded_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "real.py", b"");
        std::os::unix::fs::symlink("/etc", dir.path().join("outside")).expect("link");
        std::os::unix::fs::symlink("real.py", dir.path().join("alias.py")).expect("link");
        let inventory = discover(dir.path(), &DiscoveryOptions::default()).expect("walk");
        assert_eq!(paths(&inventory), ["real.py"]);
        let links: Vec<(&str, RefusalKind)> =
            inventory.refusals.iter().map(|r| (r.location.path.as_str(), r.kind)).collect();
        assert_eq!(links, [("alias.py", RefusalKind::Symlink), ("outside", RefusalKind::Symlink)]);
    }

    #[test]
    fn classifies_binary_minified_lossy_and_plain_text() {
        let candidate = |p: &str| SourceCandidate {
            path: RepoPath::new(p).expect("path"),
            grammar: grammar_for(&RepoPath::new(p).expect("path")).expect("grammar"),
            size: 0,
        };
        let kind = |text: SourceText| match text {
            SourceText::Skipped(r) => format!("{}", r.kind),
            SourceText::Text { lossy, .. } => if lossy { "lossy" } else { "text" }.to_owned(),
        };
        assert_eq!(kind(classify_source(&candidate("a.py"), b"x\0y".to_vec())), "binary-file");
        let long = format!("var a;{}", "a=1;".repeat(2000)).into_bytes();
        assert_eq!(kind(classify_source(&candidate("a.js"), long.clone())), "minified-bundle");
        // Only JavaScript is judged minified by line length; a long Python line is just long.
        assert_eq!(kind(classify_source(&candidate("a.py"), long)), "text");
        assert_eq!(kind(classify_source(&candidate("a.py"), b"caf\xe9".to_vec())), "lossy");
        assert_eq!(kind(classify_source(&candidate("a.ts"), b"let x = 1;".to_vec())), "text");
    }

    #[test]
    fn a_missing_root_or_a_file_root_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(
            discover(&dir.path().join("nope"), &DiscoveryOptions::default()),
            Err(DiscoverError::Unreadable(std::io::ErrorKind::NotFound))
        ));
        write(dir.path(), "f.py", b"");
        assert!(matches!(
            discover(&dir.path().join("f.py"), &DiscoveryOptions::default()),
            Err(DiscoverError::NotADirectory)
        ));
    }
}
