//! Loading trees: the [`LoadedTree`] both front ends answer from; opening a TREE argument (a
//! directory, a git revision of the repository at hand, or a snapshot file) into files to analyse;
//! and analysing one tree, or a diff's two trees together.
//!
//! The MCP server opens no argument here: its trees come from its grant, authorized and opened
//! before any file is read, and it hands those sources to [`analyse_pair`] (or to the analyser)
//! itself, so nothing here can reach a tree the grant did not admit.

use std::fmt;
use std::path::{Path, PathBuf};

use cartograph_graph::Analysis;
use cartograph_pipeline::analyse::AnalyseError;
use cartograph_pipeline::{
    AnalysisOptions, DirectorySource, FactCache, FileSource, GitRevisionSource, SourceError,
    TreeSpec, parse_tree_arg,
};
use cartograph_report::diff::TreeDoc;
use cartograph_report::snapshot::{SnapshotDocument, SnapshotError};

use crate::failure::failure_sentence;
use crate::names::{directory_label, file_label, revision_label, shown};

/// One analysed tree and how a report names it.
#[derive(Debug)]
pub struct LoadedTree {
    pub analysis: Analysis,
    /// `directory`, `revision` or `snapshot`.
    pub source: &'static str,
    /// What the user named, safe to print: a directory's or snapshot file's own name, or
    /// `REV (commit)`; never an absolute path.
    pub label: String,
}

impl LoadedTree {
    /// The tree as a diff document describes it.
    pub fn doc(&self) -> TreeDoc {
        TreeDoc::from_view(
            self.source,
            self.label.clone(),
            self.analysis.stats.files_analysed,
            self.analysis.view(),
        )
        .with_coverage(cartograph_report::coverage::CoverageDoc::from_analysis(&self.analysis))
    }
}

/// A TREE argument, opened: files to analyse, or a snapshot already read.
#[allow(clippy::large_enum_variant)] // one per tree argument, never held in a collection
pub enum OpenedTree {
    Files(TreeFiles),
    Snapshot(LoadedTree),
}

/// The files of one tree, ready to analyse, and how to name the tree.
pub struct TreeFiles {
    pub source: Box<dyn FileSource>,
    /// `directory` or `revision`.
    pub kind: &'static str,
    /// How a report names the tree (see [`LoadedTree::label`]).
    pub label: String,
    /// The tree as the user wrote it (a directory path, perhaps absolute, or a revision); a
    /// message shows it through [`shown`].
    pub named: PathBuf,
}

impl TreeFiles {
    /// Analyses the files; with a `cache`, a file whose facts it holds is not parsed again.
    pub fn load(
        self,
        options: &AnalysisOptions,
        cache: Option<&FactCache>,
    ) -> Result<LoadedTree, LoadError> {
        match cartograph_pipeline::analyse_source(self.source.as_ref(), options, cache) {
            Ok(analysis) => Ok(self.into_loaded(analysis)),
            Err(error) => Err(LoadError::Tree { subject: shown(&self.named), error }),
        }
    }

    fn into_loaded(self, analysis: Analysis) -> LoadedTree {
        LoadedTree { analysis, source: self.kind, label: self.label }
    }
}

/// Why a TREE argument could not be opened: one sentence with no absolute path.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The argument names no tree, or names it ambiguously, or its revision cannot be opened.
    #[error("{0}")]
    Source(#[from] SourceError),
    #[error("snapshot {named} cannot be read ({kind})")]
    SnapshotUnreadable { named: String, kind: std::io::ErrorKind },
    #[error("snapshot {named} {reason}")]
    SnapshotInvalid { named: String, reason: SnapshotError },
    /// A file given where a tree is expected that is not a snapshot (it does not start as a
    /// JSON object does).
    #[error(
        "{named} is a file, not a directory or a snapshot document (a snapshot is the JSON `cartograph snapshot` writes)"
    )]
    NotATreeFile { named: String },
}

/// Whether a file's first bytes could begin a snapshot document: a JSON object, after any
/// byte-order mark and white space.
fn looks_like_a_json_object(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// The first bytes of a file (enough to tell a snapshot from another file).
fn first_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(256);
    std::fs::File::open(path)?.take(256).read_to_end(&mut head)?;
    Ok(head)
}

/// Opens `arg` (relative paths against `cwd`) as [`parse_tree_arg`] reads it: a directory or a
/// revision as files to analyse, a snapshot file read back into its analysis.
pub fn open_tree(arg: &str, cwd: &Path) -> Result<OpenedTree, OpenError> {
    match parse_tree_arg(arg, cwd)? {
        TreeSpec::Directory(path) => {
            let named = PathBuf::from(arg.strip_prefix("dir:").unwrap_or(arg));
            Ok(OpenedTree::Files(TreeFiles {
                label: directory_label(&path),
                source: Box::new(DirectorySource::new(path)),
                kind: "directory",
                named,
            }))
        }
        TreeSpec::Revision(revision) => {
            let source = GitRevisionSource::open(cwd, &revision)?;
            let label = revision_label(&revision, source.commit_hex());
            Ok(OpenedTree::Files(TreeFiles {
                source: Box::new(source),
                kind: "revision",
                label,
                named: revision.into(),
            }))
        }
        TreeSpec::Snapshot(path) => {
            let tagged = arg.starts_with("snapshot:");
            let named = shown(Path::new(arg.strip_prefix("snapshot:").unwrap_or(arg)));
            // A file not written as `snapshot:FILE` is a snapshot only when it looks like one: a
            // source file or a README given by mistake is named as what it is, not as a corrupt
            // snapshot.
            if !tagged {
                match first_bytes(&path) {
                    Ok(head) if looks_like_a_json_object(&head) => {}
                    Ok(_) => return Err(OpenError::NotATreeFile { named }),
                    Err(e) => return Err(OpenError::SnapshotUnreadable { named, kind: e.kind() }),
                }
            }
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) => return Err(OpenError::SnapshotUnreadable { named, kind: e.kind() }),
            };
            let analysis = SnapshotDocument::analysis_from_json(&text)
                .map_err(|reason| OpenError::SnapshotInvalid { named, reason })?;
            Ok(OpenedTree::Snapshot(LoadedTree {
                analysis,
                source: "snapshot",
                label: file_label(&path),
            }))
        }
    }
}

/// Why a tree could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The analyser could not read the tree `subject` (named as the user wrote it, safe to show).
    Tree { subject: String, error: AnalyseError },
    /// The analyser returned fewer analyses than trees (never expected).
    Incomplete,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tree { subject, error } => f.write_str(&failure_sentence(error, subject)),
            Self::Incomplete => f.write_str(INCOMPLETE),
        }
    }
}

impl std::error::Error for LoadError {}

const INCOMPLETE: &str = "the analysis of the two trees returned no result";

/// Loads the two trees of a diff, analysed together (see [`analyse_pair`]).
pub fn load_pair(
    base: TreeFiles,
    head: TreeFiles,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<(LoadedTree, LoadedTree), LoadError> {
    match analyse_pair(base.source.as_ref(), head.source.as_ref(), options, cache) {
        Ok((a, b)) => Ok((base.into_loaded(a), head.into_loaded(b))),
        Err(PairError::Tree { side, error }) => {
            let at_fault = match side {
                Side::Base => &base.named,
                Side::Head => &head.named,
            };
            Err(LoadError::Tree { subject: shown(at_fault), error })
        }
        Err(PairError::Incomplete) => Err(LoadError::Incomplete),
    }
}

/// One of a diff's two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Base,
    Head,
}

/// Why two trees analysed together have no analyses.
#[derive(Debug, thiserror::Error)]
pub enum PairError {
    /// One tree could not be analysed: the base when it cannot be listed, otherwise the head.
    #[error("{error}")]
    Tree { side: Side, error: AnalyseError },
    #[error("{INCOMPLETE}")]
    Incomplete,
}

/// Analyses a diff's two trees together, so a content present in both is extracted once and the
/// work spreads over every core; with a `cache`, a file whose facts it holds is not parsed again.
pub fn analyse_pair(
    base: &dyn FileSource,
    head: &dyn FileSource,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<(Analysis, Analysis), PairError> {
    let analyses =
        cartograph_pipeline::analyse_sources(&[base, head], options, cache).map_err(|error| {
            // Trees fail in discovery: the base is at fault when it cannot be listed.
            let base_fails = base.discover(&options.discovery).is_err();
            PairError::Tree { side: if base_fails { Side::Base } else { Side::Head }, error }
        })?;
    let mut analyses = analyses.into_iter();
    match (analyses.next(), analyses.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(PairError::Incomplete),
    }
}
