//! Architecture rules for both front ends: finding and reading a repository's rules file and its
//! baseline, checking a tree against them, and adding a change's rule findings to its diff.
//!
//! Which rules file applies: the one given (`--config FILE`); otherwise `cartograph.toml` in the
//! tree when the tree is a directory (for a diff, the head's); otherwise `cartograph.toml` in the
//! working directory, the checkout a CI job runs in. The baseline is the file the rules file names
//! (`baseline = …`, default `cartograph-baseline.json`), beside it, unless one is given.

use std::path::{Path, PathBuf};

use cartograph_graph::policy::{Policy, Violation, evaluate};
use cartograph_report::diff::DiffDocument;
use cartograph_report::rules::{BaselineDocument, CheckDocument, attach_to_diff, judge};

use crate::config::{CONFIG_FILE, ConfigError, parse_config};
use crate::names::shown;
use crate::tree::LoadedTree;

/// A rules file read, with its baseline when there is one.
#[derive(Debug, Clone)]
pub struct Rules {
    pub policy: Policy,
    /// Where the baseline is (read or to be written).
    pub baseline_path: PathBuf,
    /// The baseline's name as reports show it: as the rules file names it.
    pub baseline_name: String,
    /// The baseline, when the file exists.
    pub baseline: Option<BaselineDocument>,
    /// The baseline's text, for locating stale entries in SARIF.
    pub baseline_text: Option<String>,
}

/// Why rules could not be read: one sentence, no absolute path.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("the rules file {named} cannot be read ({kind})")]
    Unreadable { named: String, kind: std::io::ErrorKind },
    #[error("the rules file {named} is invalid at {error}")]
    Invalid { named: String, error: ConfigError },
    #[error("the baseline {named} cannot be read ({kind})")]
    BaselineUnreadable { named: String, kind: std::io::ErrorKind },
    #[error("the baseline {named} {error}")]
    BaselineInvalid { named: String, error: cartograph_report::rules::BaselineError },
}

/// The rules file that applies (see the module documentation), if one exists: `given`, else
/// `cartograph.toml` in `tree_dir`, else in `cwd`.
pub fn find_config(given: Option<&Path>, tree_dir: Option<&Path>, cwd: &Path) -> Option<PathBuf> {
    if let Some(given) = given {
        return Some(given.to_path_buf());
    }
    [tree_dir, Some(cwd)].into_iter().flatten().map(|d| d.join(CONFIG_FILE)).find(|p| p.is_file())
}

/// Reads the rules file at `path` and, unless `baseline` overrides it, the baseline it names.
pub fn read_rules(path: &Path, baseline: Option<&Path>) -> Result<Rules, RulesError> {
    let named = shown(path);
    let text = std::fs::read(path)
        .map_err(|e| RulesError::Unreadable { named: named.clone(), kind: e.kind() })?;
    let text = String::from_utf8(text).map_err(|_| RulesError::Invalid {
        named: named.clone(),
        error: ConfigError { line: 1, message: "the file is not UTF-8 text".into() },
    })?;
    let config = parse_config(&text).map_err(|error| RulesError::Invalid { named, error })?;
    let (baseline_path, baseline_name) = match baseline {
        Some(given) => (given.to_path_buf(), display_name(given)),
        None => {
            let dir = path.parent().unwrap_or(Path::new(""));
            (dir.join(&config.baseline), config.baseline.clone())
        }
    };
    let (baseline, baseline_text) = match std::fs::read_to_string(&baseline_path) {
        Ok(text) => {
            let doc = BaselineDocument::from_json(&text).map_err(|error| {
                RulesError::BaselineInvalid { named: shown(&baseline_path), error }
            })?;
            (Some(doc), Some(text))
        }
        // The rules file's own baseline may not exist yet; one given by name must.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && baseline.is_none() => (None, None),
        Err(e) => {
            return Err(RulesError::BaselineUnreadable {
                named: shown(&baseline_path),
                kind: e.kind(),
            });
        }
    };
    Ok(Rules { policy: config.policy, baseline_path, baseline_name, baseline, baseline_text })
}

/// A path as a report names it: as given when relative, else its file name.
fn display_name(path: &Path) -> String {
    if path.is_absolute() {
        path.file_name().map_or_else(|| "baseline".to_owned(), |n| n.to_string_lossy().into_owned())
    } else {
        path.to_string_lossy().into_owned()
    }
}

/// Every violation of the rules in a tree.
pub fn violations(tree: &LoadedTree, rules: &Rules) -> Vec<Violation> {
    evaluate(tree.analysis.view(), &rules.policy)
}

/// The check document of a tree.
pub fn check_document(tree: &LoadedTree, rules: &Rules) -> CheckDocument {
    let found = violations(tree, rules);
    let judged = judge(&rules.policy, &found, rules.baseline.as_ref());
    let baseline = rules.baseline.as_ref().map(|_| rules.baseline_name.clone());
    CheckDocument::new(tree.doc(), &rules.policy, judged, baseline)
}

/// The baseline that accepts every violation of the rules in a tree.
pub fn baseline_document(tree: &LoadedTree, rules: &Rules) -> BaselineDocument {
    BaselineDocument::from_violations(&rules.policy, &violations(tree, rules))
}

/// Adds a change's rule findings to its diff document.
pub fn attach_rules(doc: &mut DiffDocument, base: &LoadedTree, head: &LoadedTree, rules: &Rules) {
    let before = violations(base, rules);
    let after = violations(head, rules);
    attach_to_diff(doc, &rules.policy, &before, &after, rules.baseline.as_ref());
}
