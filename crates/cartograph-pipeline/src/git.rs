//! A git revision of the repository at hand as a tree: files are listed and read straight from the
//! object store, with no checkout and no change to the working tree or the index.
//!
//! The repository is found as git finds it, from a directory upwards. The revision is anything
//! `git rev-parse` accepts for a commit: a branch (`main`, `origin/main`), a tag (peeled to its
//! commit), `HEAD~3`, a full or abbreviated SHA. The revision's tree is walked like a directory
//! ([`crate::discover`]'s builder classifies every entry, so the [`Inventory`] is the one a
//! directory walk of the same checkout gives): the default excluded directories are pruned and
//! listed, files over the size cap and minified bundles are refused, symbolic links (mode 120000)
//! are refused and never followed, submodules (commit entries) are refused, names that are not
//! UTF-8 are refused with replacement characters.
//!
//! One difference is deliberate: `.gitignore` files do not apply. Every file of the revision is
//! tracked, and a tracked file is part of the tree even when an ignore pattern matches it (a
//! directory walk of the checkout would skip it).
//!
//! A shallow clone works for every commit it holds; a revision beyond its history gets an error
//! that says to fetch more. No error names a path on this machine.
//!
//! Reads come from rayon workers in parallel: each thread keeps its own repository handle (gix's
//! `Repository` is not `Sync`), and discovery keeps the object id of every file it listed, so a
//! read is one object lookup.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{PoisonError, RwLock};

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use gix::ObjectId;
use gix::objs::tree::EntryKind;
use rayon::prelude::*;

use crate::discover::{
    DiscoverError, DiscoveryOptions, Inventory, InventoryBuilder, placeholder_path,
    repo_path_or_refusal,
};
use crate::source::{FileSource, NearestNames, SourceError};

/// One commit of a git repository, read from its object store.
pub struct GitRevisionSource {
    repo: gix::ThreadSafeRepository,
    /// One repository handle per thread that reads.
    handles: thread_local::ThreadLocal<gix::Repository>,
    revision: String,
    commit_hex: String,
    tree: ObjectId,
    /// The blob of every file discovery listed, by repository path.
    blobs: RwLock<HashMap<String, ObjectId>>,
}

impl std::fmt::Debug for GitRevisionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitRevisionSource")
            .field("revision", &self.revision)
            .field("commit", &self.commit_hex)
            .finish_non_exhaustive()
    }
}

impl GitRevisionSource {
    /// Opens the repository that holds `start` (or `start` itself), searching upwards as git does,
    /// and resolves `revision` to a commit and its tree.
    pub fn open(start: &Path, revision: &str) -> Result<Self, SourceError> {
        if revision.trim().is_empty() {
            return Err(SourceError::EmptyArgument);
        }
        let repo = gix::ThreadSafeRepository::discover(start)
            .map_err(|_| SourceError::NoRepository(revision.to_owned()))?;
        let (commit, tree) = resolve(&repo.to_thread_local(), revision)?;
        Ok(Self {
            repo,
            handles: thread_local::ThreadLocal::new(),
            revision: revision.to_owned(),
            commit_hex: commit.to_hex().to_string(),
            tree,
            blobs: RwLock::default(),
        })
    }

    /// The revision as it was written (`main`, `HEAD~1`, `v2.1.0`).
    pub fn revision(&self) -> &str {
        &self.revision
    }

    /// The commit the revision resolved to, as full lowercase hex.
    pub fn commit_hex(&self) -> &str {
        &self.commit_hex
    }

    /// This thread's repository handle.
    fn handle(&self) -> &gix::Repository {
        self.handles.get_or(|| self.repo.to_thread_local())
    }

    /// The blob of `path`: from the discovery map, else looked up in the tree.
    fn blob_id(&self, path: &RepoPath) -> io::Result<ObjectId> {
        let known =
            self.blobs.read().unwrap_or_else(PoisonError::into_inner).get(path.as_str()).copied();
        if let Some(id) = known {
            return Ok(id);
        }
        let tree = self.handle().find_tree(self.tree).map_err(|_| store_error())?;
        match tree.lookup_entry_by_path(path.as_str()) {
            Ok(Some(entry)) if entry.mode().is_blob() => Ok(entry.object_id()),
            Ok(_) => {
                Err(io::Error::new(io::ErrorKind::NotFound, "no such file in the revision's tree"))
            }
            Err(_) => Err(store_error()),
        }
    }
}

impl FileSource for GitRevisionSource {
    fn discover(&self, options: &DiscoveryOptions) -> Result<Inventory, DiscoverError> {
        let repo = self.handle();
        let mut builder = InventoryBuilder::new(options);
        let mut files: Vec<(RepoPath, ObjectId)> = Vec::new();

        let root = read_tree(repo, self.tree).ok_or(DiscoverError::ObjectStore)?;
        let mut stack: Vec<TreeItem> = Vec::new();
        push_children(&mut stack, None, root);
        while let Some(item) = stack.pop() {
            let kind = item.mode.kind();
            if kind == EntryKind::Tree
                && let Ok(name) = std::str::from_utf8(&item.name)
                && builder.is_excluded_dir(name)
            {
                if let Ok(path) = repo_path_or_refusal(&item.path, item.utf8) {
                    builder.excluded_dir(path);
                }
                continue;
            }
            let path = match repo_path_or_refusal(&item.path, item.utf8) {
                Ok(path) => Some(path),
                Err(refusal) => {
                    builder.refuse_entry(refusal);
                    None
                }
            };
            match kind {
                EntryKind::Tree => match read_tree(repo, item.id) {
                    Some(children) => push_children(&mut stack, Some(&item), children),
                    None => builder.refuse(Refusal::new(
                        RefusalKind::UnreadableFile,
                        SourceLocation::file(path.unwrap_or_else(placeholder_path)),
                        "directory not in the local git object store",
                    )),
                },
                EntryKind::Link => {
                    if let Some(path) = path {
                        builder.symlink(path);
                    }
                }
                EntryKind::Commit => {
                    if let Some(path) = path {
                        builder.refuse_entry(Refusal::new(
                            RefusalKind::UnreadableFile,
                            SourceLocation::file(path),
                            "git submodule (a commit of another repository) not followed",
                        ));
                    }
                }
                EntryKind::Blob | EntryKind::BlobExecutable => {
                    if let Some(path) = path {
                        files.push((path, item.id));
                    }
                }
            }
        }

        // Sizes come from object headers (packed objects need their delta chain walked): done in
        // parallel, then fed to the builder in walk order.
        let sizes: Vec<Option<u64>> = files
            .par_iter()
            .map(|(_, id)| self.handle().find_header(*id).ok().map(|header| header.size()))
            .collect();
        let mut blobs = self.blobs.write().unwrap_or_else(PoisonError::into_inner);
        for ((path, id), size) in files.into_iter().zip(sizes) {
            match size {
                Some(size) => {
                    blobs.insert(path.as_str().to_owned(), id);
                    builder.file(path, size);
                }
                None => builder.refuse_entry(Refusal::new(
                    RefusalKind::UnreadableFile,
                    SourceLocation::file(path),
                    "file not in the local git object store",
                )),
            }
        }
        Ok(builder.finish())
    }

    fn read(&self, path: &RepoPath, _size_hint: u64) -> io::Result<Vec<u8>> {
        let id = self.blob_id(path)?;
        let mut blob = self.handle().find_blob(id).map_err(|_| store_error())?;
        Ok(blob.take_data())
    }
}

/// An entry of a tree still to visit.
struct TreeItem {
    /// The full path, components joined by `/` (lossy where a name is not UTF-8).
    path: String,
    /// Whether every component of the path is UTF-8.
    utf8: bool,
    /// The entry's own name, as stored.
    name: Vec<u8>,
    mode: gix::objs::tree::EntryMode,
    id: ObjectId,
}

/// A tree's entries as `(name, mode, id)`, or `None` when it is not in the object store.
fn read_tree(
    repo: &gix::Repository,
    id: ObjectId,
) -> Option<Vec<(Vec<u8>, gix::objs::tree::EntryMode, ObjectId)>> {
    let tree = repo.find_tree(id).ok()?;
    let decoded = tree.decode().ok()?;
    Some(
        decoded
            .entries
            .iter()
            .map(|entry| (entry.filename.to_vec(), entry.mode, entry.oid.to_owned()))
            .collect(),
    )
}

/// Pushes `children` of `parent` (the root when `None`) so that they pop in name order, the order
/// of the directory walk.
fn push_children(
    stack: &mut Vec<TreeItem>,
    parent: Option<&TreeItem>,
    mut children: Vec<(Vec<u8>, gix::objs::tree::EntryMode, ObjectId)>,
) {
    children.sort_by(|a, b| b.0.cmp(&a.0));
    for (name, mode, id) in children {
        let shown = String::from_utf8_lossy(&name);
        let name_utf8 = std::str::from_utf8(&name).is_ok();
        let (path, utf8) = match parent {
            Some(parent) => (format!("{}/{shown}", parent.path), parent.utf8 && name_utf8),
            None => (shown.into_owned(), name_utf8),
        };
        stack.push(TreeItem { path, utf8, name, mode, id });
    }
}

/// Resolves `revision` to a commit and its tree.
fn resolve(repo: &gix::Repository, revision: &str) -> Result<(ObjectId, ObjectId), SourceError> {
    let shallow = repo.is_shallow().unwrap_or(false);
    let absent = || {
        if shallow {
            SourceError::NotInShallowClone(revision.to_owned())
        } else {
            SourceError::UnknownRevision {
                revision: revision.to_owned(),
                near: NearestNames::default(),
            }
        }
    };
    let id = match repo.rev_parse_single(revision) {
        Ok(id) => id.detach(),
        // In a shallow clone, a walk through history or a SHA may fail only for want of history;
        // a name that is not found is unknown either way.
        Err(_) if shallow && names_history(revision) => return Err(absent()),
        Err(_) => {
            return Err(SourceError::UnknownRevision {
                revision: revision.to_owned(),
                near: nearest_names(repo, revision),
            });
        }
    };
    let object = match repo.try_find_object(id) {
        Ok(Some(object)) => object,
        Ok(None) => return Err(absent()),
        Err(_) => return Err(SourceError::ObjectStore),
    };
    let commit = object
        .peel_to_kind(gix::object::Kind::Commit)
        .map_err(|_| SourceError::NotACommit(revision.to_owned()))?
        .into_commit();
    let tree = commit.tree_id().map_err(|_| SourceError::ObjectStore)?.detach();
    if !repo.has_object(tree) {
        return Err(absent());
    }
    Ok((commit.id, tree))
}

/// Whether `revision` walks history (`~`, `^`) or looks like a SHA: what a shallow clone may lack.
fn names_history(revision: &str) -> bool {
    revision.contains(['~', '^'])
        || (revision.len() >= 4 && revision.chars().all(|c| c.is_ascii_hexdigit()))
}

fn store_error() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "cannot be read from the git object store")
}

/// Resolves `word` as a commit of the repository at `start` without keeping anything.
pub(crate) fn probe_revision(start: &Path, word: &str) -> Result<(), SourceError> {
    let repo = gix::ThreadSafeRepository::discover(start)
        .map_err(|_| SourceError::NoRepository(word.to_owned()))?;
    resolve(&repo.to_thread_local(), word).map(|_| ())
}

/// At most this many references are compared with a misspelt revision (a repository with more
/// tags than that gets no suggestion rather than a slow error).
const MAX_NAMES_COMPARED: usize = 100_000;

/// The branches (local and remote) and tags whose short names are nearest to the name part of
/// `revision` by edit distance, when one is near enough to be a likely misspelling: at most three,
/// all at the same smallest distance, in name order, each with `revision`'s suffix (`~2`, `^`)
/// put back. Deterministic: the same references give the same suggestion.
pub(crate) fn nearest_names(repo: &gix::Repository, revision: &str) -> NearestNames {
    let split = revision.find(['~', '^', '@', ':']).unwrap_or(revision.len());
    let (word, suffix) = revision.split_at(split);
    let word_len = word.chars().count();
    if word_len == 0 {
        return NearestNames::default();
    }
    // One edit in a short name, two in a longer one, three in a long one; never so many that
    // the suggestion shares almost nothing with what was written.
    let allowed = match word_len {
        0..=4 => 1,
        5..=10 => 2,
        _ => 3,
    }
    .min(word_len.saturating_sub(1));
    if allowed == 0 {
        return NearestNames::default();
    }
    let Ok(platform) = repo.references() else { return NearestNames::default() };
    let Ok(all) = platform.all() else { return NearestNames::default() };
    let mut best = allowed + 1;
    let mut names: Vec<String> = Vec::new();
    for reference in all.take(MAX_NAMES_COMPARED).flatten() {
        let Ok(name) = std::str::from_utf8(reference.name().shorten()) else { continue };
        if name == word || name == "HEAD" || name.ends_with("/HEAD") {
            continue;
        }
        // Exact below the cap: a name as near as the best so far is counted, not capped to it.
        let distance = edit_distance(word, name, best + 1);
        if distance > allowed {
            continue;
        }
        if distance < best {
            best = distance;
            names.clear();
        }
        if distance == best {
            names.push(name.to_owned());
        }
    }
    names.sort();
    names.dedup();
    names.truncate(3);
    NearestNames(names.into_iter().map(|name| format!("{name}{suffix}")).collect())
}

/// The edit distance between `a` and `b` by characters, counting an insertion, a deletion, a
/// substitution or a swap of two neighbours as one edit (optimal string alignment), or `cap` when
/// it is at least `cap`.
fn edit_distance(a: &str, b: &str, cap: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) >= cap {
        return cap;
    }
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        d[i * width] = i;
        let mut row_min = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
            row_min = row_min.min(best);
        }
        if row_min >= cap {
            return cap;
        }
    }
    d[a.len() * width + b.len()].min(cap)
}

#[cfg(test)]
mod suggestion_tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("v1.2.O", "v1.2.0", 9), 1);
        assert_eq!(edit_distance("mian", "main", 9), 1);
        assert_eq!(edit_distance("main", "main", 9), 0);
        assert_eq!(edit_distance("develop", "devel", 9), 2);
        assert_eq!(edit_distance("abc", "xyz", 9), 3);
        assert_eq!(edit_distance("abc", "xyzuvw", 2), 2);
        assert_eq!(edit_distance("", "ab", 9), 2);
    }
}
