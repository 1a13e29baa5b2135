//! Turning a TREE argument into an analysis: a directory, a git revision of the repository at hand,
//! or a snapshot file.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use cartograph_graph::Analysis;
use cartograph_pipeline::discover::DiscoverError;
use cartograph_pipeline::git::GitRevisionSource;
use cartograph_pipeline::source::{TreeSpec, parse_tree_arg};
use cartograph_pipeline::{
    AnalysisOptions, DirectorySource, FactCache, FileSource, analyse::AnalyseError,
};
use cartograph_report::diff::TreeDoc;
use cartograph_report::snapshot::SnapshotDocument;

use crate::args::AnalysisArgs;
use crate::commands::options;
use crate::output::shown;

/// One analysed tree and how to name it in a report.
pub struct LoadedTree {
    pub analysis: Analysis,
    /// `directory`, `revision` or `snapshot`.
    pub source: &'static str,
    /// What the user named, safe to print: never an absolute path.
    pub label: String,
}

impl LoadedTree {
    pub fn doc(&self) -> TreeDoc {
        TreeDoc {
            source: self.source.to_owned(),
            label: self.label.clone(),
            files_analysed: self.analysis.stats.files_analysed,
            nodes: self.analysis.nodes.len() as u64,
            edges: self.analysis.edges.len() as u64,
            refusals: self.analysis.refusals.len() as u64,
        }
    }
}

/// A tree argument, opened: files to analyse, or a snapshot already read.
enum Opened {
    Files { source: Box<dyn FileSource>, kind: &'static str, label: String, named: PathBuf },
    Loaded(LoadedTree),
}

/// Reads `arg` as a tree and analyses it (or reads the snapshot it names).
pub fn load_tree(arg: &str, args: &AnalysisArgs, cache: Option<&FactCache>) -> Result<LoadedTree> {
    finish(open_tree(arg)?, &options(args)?, cache)
}

/// Loads the two trees of a diff. When both are files to analyse, they are analysed together, so
/// a content present in both is extracted once and the work spreads over every core.
pub fn load_pair(
    base: &str,
    head: &str,
    args: &AnalysisArgs,
    cache: Option<&FactCache>,
) -> Result<(LoadedTree, LoadedTree)> {
    let options = options(args)?;
    match (open_tree(base)?, open_tree(head)?) {
        (
            Opened::Files { source: a, kind: a_kind, label: a_label, named: a_named },
            Opened::Files { source: b, kind: b_kind, label: b_label, named: b_named },
        ) => {
            let spinner = crate::commands::progress_spinner();
            let result =
                cartograph_pipeline::analyse_sources(&[a.as_ref(), b.as_ref()], &options, cache);
            if let Some(spinner) = spinner {
                spinner.finish_and_clear();
            }
            let mut analyses = match result {
                Ok(analyses) => analyses,
                // Trees fail in discovery: the base is at fault when it cannot be listed.
                Err(error) => {
                    let at_fault =
                        if a.discover(&options.discovery).is_err() { &a_named } else { &b_named };
                    return Err(analysis_error(at_fault, error));
                }
            };
            let head_analysis = analyses.pop();
            let base_analysis = analyses.pop();
            let (Some(base_analysis), Some(head_analysis)) = (base_analysis, head_analysis) else {
                bail!("the analysis of the two trees returned no result");
            };
            note_if_empty(&base_analysis, &a_named);
            note_if_empty(&head_analysis, &b_named);
            Ok((
                LoadedTree { analysis: base_analysis, source: a_kind, label: a_label },
                LoadedTree { analysis: head_analysis, source: b_kind, label: b_label },
            ))
        }
        (base, head) => Ok((finish(base, &options, cache)?, finish(head, &options, cache)?)),
    }
}

/// The analysis of an opened tree (a snapshot is already one).
fn finish(
    opened: Opened,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<LoadedTree> {
    match opened {
        Opened::Loaded(tree) => Ok(tree),
        Opened::Files { source, kind, label, named } => {
            let analysis = run_analysis(&named, || {
                cartograph_pipeline::analyse_source(source.as_ref(), options, cache)
            })?;
            Ok(LoadedTree { analysis, source: kind, label })
        }
    }
}

fn open_tree(arg: &str) -> Result<Opened> {
    let cwd = std::env::current_dir()
        .map_err(|e| anyhow!("cannot read the current directory ({})", e.kind()))?;
    match parse_tree_arg(arg, &cwd).map_err(|e| anyhow!("{e}"))? {
        TreeSpec::Directory(path) => {
            let named = PathBuf::from(arg.strip_prefix("dir:").unwrap_or(arg));
            Ok(Opened::Files {
                label: directory_label(&path),
                source: Box::new(DirectorySource::new(path)),
                kind: "directory",
                named,
            })
        }
        TreeSpec::Revision(revision) => {
            let source = GitRevisionSource::open(&cwd, &revision).map_err(|e| anyhow!("{e}"))?;
            let label = format!("{revision} ({})", short_id(source.commit_hex()));
            Ok(Opened::Files {
                source: Box::new(source),
                kind: "revision",
                label,
                named: revision.into(),
            })
        }
        TreeSpec::Snapshot(path) => {
            let named = shown(Path::new(arg.strip_prefix("snapshot:").unwrap_or(arg)));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| anyhow!("snapshot {named} cannot be read ({})", e.kind()))?;
            let analysis = SnapshotDocument::from_json(&text)
                .and_then(SnapshotDocument::into_analysis)
                .map_err(|e| anyhow!("snapshot {named} {e}"))?;
            Ok(Opened::Loaded(LoadedTree {
                analysis,
                source: "snapshot",
                label: file_label(&path),
            }))
        }
    }
}

fn short_id(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

/// A directory's name as a label: its last component (of the canonical path for `.`).
fn directory_label(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| {
            std::fs::canonicalize(path)
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| ".".to_owned());
    name.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(|| "snapshot".to_owned(), |n| n.to_string_lossy().into_owned())
}

/// Runs one analysis with a spinner, turning its errors into one sentence about `shown_as`.
fn run_analysis(
    shown_as: &Path,
    analyse: impl FnOnce() -> Result<Analysis, AnalyseError>,
) -> Result<Analysis> {
    let spinner = crate::commands::progress_spinner();
    let result = analyse();
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let analysis = result.map_err(|error| analysis_error(shown_as, error))?;
    note_if_empty(&analysis, shown_as);
    Ok(analysis)
}

/// One sentence about a tree that could not be analysed.
fn analysis_error(shown_as: &Path, error: AnalyseError) -> anyhow::Error {
    match error {
        AnalyseError::Discover(DiscoverError::NotADirectory) => {
            anyhow!("{} is not a directory", shown(shown_as))
        }
        AnalyseError::Discover(DiscoverError::Unreadable(std::io::ErrorKind::NotFound)) => {
            anyhow!("{} does not exist", shown(shown_as))
        }
        AnalyseError::Discover(DiscoverError::Unreadable(kind)) => {
            anyhow!("{} cannot be read ({kind})", shown(shown_as))
        }
        other => anyhow!("{other}"),
    }
}

fn note_if_empty(analysis: &Analysis, shown_as: &Path) {
    if analysis.stats.files_analysed == 0 {
        eprintln!("note: no analysable source files were found in {}", shown(shown_as));
    }
}
