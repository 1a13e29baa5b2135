//! Turning a TREE argument into an analysis: a directory, a git revision of the repository at hand,
//! or a snapshot file.

use std::path::Path;

use anyhow::{Result, anyhow};
use cartograph_pipeline::discover::DiscoverError;
use cartograph_pipeline::git::GitRevisionSource;
use cartograph_pipeline::source::{TreeSpec, parse_tree_arg};
use cartograph_pipeline::{Analysis, DirectorySource, FactCache, analyse::AnalyseError};
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

/// Reads `arg` as a tree and analyses it (or reads the snapshot it names).
pub fn load_tree(arg: &str, args: &AnalysisArgs, cache: Option<&FactCache>) -> Result<LoadedTree> {
    let cwd = std::env::current_dir()
        .map_err(|e| anyhow!("cannot read the current directory ({})", e.kind()))?;
    let spec = parse_tree_arg(arg, &cwd).map_err(|e| anyhow!("{e}"))?;
    let options = options(args)?;
    match spec {
        TreeSpec::Directory(path) => {
            let named = Path::new(arg.strip_prefix("dir:").unwrap_or(arg));
            let analysis = run_analysis(named, || {
                cartograph_pipeline::analyse_source(&DirectorySource::new(&path), &options, cache)
            })?;
            Ok(LoadedTree { analysis, source: "directory", label: directory_label(&path) })
        }
        TreeSpec::Revision(revision) => {
            let source = GitRevisionSource::open(&cwd, &revision).map_err(|e| anyhow!("{e}"))?;
            let label = format!("{revision} ({})", short_id(source.commit_hex()));
            let analysis = run_analysis(Path::new(&revision), || {
                cartograph_pipeline::analyse_source(&source, &options, cache)
            })?;
            Ok(LoadedTree { analysis, source: "revision", label })
        }
        TreeSpec::Snapshot(path) => {
            let named = shown(Path::new(arg.strip_prefix("snapshot:").unwrap_or(arg)));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| anyhow!("snapshot {named} cannot be read ({})", e.kind()))?;
            let analysis = SnapshotDocument::from_json(&text)
                .and_then(SnapshotDocument::into_analysis)
                .map_err(|e| anyhow!("snapshot {named} {e}"))?;
            Ok(LoadedTree { analysis, source: "snapshot", label: file_label(&path) })
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
    let analysis = result.map_err(|error| match error {
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
    })?;
    if analysis.stats.files_analysed == 0 {
        eprintln!("note: no analysable source files were found in {}", shown(shown_as));
    }
    Ok(analysis)
}
