//! Turning a TREE argument into an analysis — a directory, a git revision of the repository at
//! hand, or a snapshot file — through the shared query layer, with a spinner on a terminal while a
//! tree is analysed and a note when it holds no analysable file.

use std::path::Path;

use anyhow::{Result, anyhow};
use cartograph_graph::Analysis;
use cartograph_pipeline::{AnalysisOptions, FactCache, ShardSpec};
use cartograph_query::{LoadedTree, OpenedTree, TreeFiles, shown};

use crate::args::AnalysisArgs;
use crate::commands::options;

/// Reads `arg` as a tree and analyses it (or reads the snapshot it names).
pub fn load_tree(arg: &str, args: &AnalysisArgs, cache: Option<&FactCache>) -> Result<LoadedTree> {
    finish(open_tree(arg)?, &options(args)?, cache)
}

/// Writes the fact file of one shard of the tree `arg` names (a directory or a revision).
pub fn write_shard(
    arg: &str,
    args: &AnalysisArgs,
    shard: ShardSpec,
    cache: Option<&FactCache>,
) -> Result<Vec<u8>> {
    let options = options(args)?;
    match open_tree(arg)? {
        OpenedTree::Snapshot(_) => Err(anyhow!(
            "{} is a snapshot file: a shard is cut from a directory or a revision",
            shown(Path::new(arg))
        )),
        OpenedTree::Files(files) => {
            let named = files.named.clone();
            with_spinner(|| {
                cartograph_pipeline::write_shard(files.source.as_ref(), &options, shard, cache)
            })
            .map_err(|error| {
                anyhow!("{}", cartograph_query::LoadError::Tree { subject: shown(&named), error })
            })
        }
    }
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
        (OpenedTree::Files(a), OpenedTree::Files(b)) => {
            let (a_named, b_named) = (a.named.clone(), b.named.clone());
            let (base, head) = with_spinner(|| cartograph_query::load_pair(a, b, &options, cache))
                .map_err(|e| anyhow!("{e}"))?;
            note_if_empty(&base.analysis, &a_named);
            note_if_empty(&head.analysis, &b_named);
            Ok((base, head))
        }
        (base, head) => Ok((finish(base, &options, cache)?, finish(head, &options, cache)?)),
    }
}

/// The analysis of an opened tree (a snapshot is already one).
fn finish(
    opened: OpenedTree,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<LoadedTree> {
    match opened {
        OpenedTree::Snapshot(tree) => Ok(tree),
        OpenedTree::Files(files) => load_files(files, options, cache),
    }
}

fn load_files(
    files: TreeFiles,
    options: &AnalysisOptions,
    cache: Option<&FactCache>,
) -> Result<LoadedTree> {
    let named = files.named.clone();
    let tree = with_spinner(|| files.load(options, cache)).map_err(|e| anyhow!("{e}"))?;
    note_if_empty(&tree.analysis, &named);
    Ok(tree)
}

fn open_tree(arg: &str) -> Result<OpenedTree> {
    let cwd = std::env::current_dir()
        .map_err(|e| anyhow!("cannot read the current directory ({})", e.kind()))?;
    cartograph_query::open_tree(arg, &cwd).map_err(|e| anyhow!("{e}"))
}

/// Runs `analyse` with a spinner on stderr when it is a terminal.
fn with_spinner<T>(analyse: impl FnOnce() -> T) -> T {
    let spinner = crate::commands::progress_spinner();
    let result = analyse();
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    result
}

fn note_if_empty(analysis: &Analysis, shown_as: &Path) {
    if analysis.stats.files_analysed == 0 {
        cartograph_diagnostics::stderr_line(&format!(
            "note: no analysable source files were found in {}",
            shown(shown_as)
        ));
    }
}
