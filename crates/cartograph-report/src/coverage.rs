//! The `coverage` part of the summary, diff and map documents: what the analysis did not see,
//! so that a reader tells "none found" from "not looked at" (see `cartograph_graph::coverage`).

use std::fmt::Write as _;

use cartograph_graph::coverage::Coverage;
use serde::{Deserialize, Serialize};

use crate::words::plural;

/// Rows of each coverage list a Markdown rendering shows.
const MAX_ROWS: usize = 10;
/// Entries of each coverage list a document keeps (the totals count them all).
pub const MAX_LISTED: usize = 25;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CoverageDoc {
    pub files_seen: u64,
    pub files_analysed: u64,
    /// Files skipped with a refusal.
    pub files_skipped: u64,
    /// Files that are not source files of an analysed language.
    pub files_other: u64,
    /// Files skipped with a refusal, by reason and extension, most first; at most
    /// [`MAX_LISTED`] entries.
    pub skipped: Vec<SkippedDoc>,
    /// Files that are not source files of an analysed language, by extension, most first; at
    /// most [`MAX_LISTED`] entries.
    pub other_files: Vec<OtherFilesDoc>,
    /// Languages present in the tree that Cartograph does not analyse, most files first.
    pub languages_not_analysed: Vec<LanguageDoc>,
    /// Frontend components (a `.tsx`, `.jsx`, `.vue` or `.svelte` module, or a UI framework
    /// import) and the modules in
    /// which no HTTP call was recognised and none refused: unknown, not "no calls". Most such
    /// modules first; at most [`MAX_LISTED`] entries.
    pub frontends: Vec<FrontendDoc>,
    /// Frontend components in all.
    pub frontends_total: u64,
    /// Every refusal kind present, with what it leaves unknown.
    pub refusals: Vec<RefusalCoverageDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SkippedDoc {
    /// The refusal kind.
    pub reason: String,
    /// Lower case, without the dot; empty for none.
    pub extension: String,
    pub files: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct OtherFilesDoc {
    pub extension: String,
    pub files: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct LanguageDoc {
    pub language: String,
    pub files: u64,
    pub extensions: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct FrontendDoc {
    pub component: String,
    pub modules: u64,
    pub with_calls: u64,
    pub with_call_refusals: u64,
    pub without_calls: u64,
    /// The first few modules without a recognised call, in path order.
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RefusalCoverageDoc {
    pub kind: String,
    pub refusals: u64,
    pub files: u64,
    pub affects: String,
}

impl CoverageDoc {
    pub fn from_coverage(coverage: &Coverage) -> Self {
        Self {
            files_seen: coverage.files_seen,
            files_analysed: coverage.files_analysed,
            files_skipped: coverage.skipped.iter().map(|s| s.files).sum(),
            files_other: coverage.other_files.iter().map(|o| o.files).sum(),
            skipped: coverage
                .skipped
                .iter()
                .take(MAX_LISTED)
                .map(|s| SkippedDoc {
                    reason: s.reason.as_str().to_owned(),
                    extension: s.extension.clone(),
                    files: s.files,
                })
                .collect(),
            other_files: coverage
                .other_files
                .iter()
                .take(MAX_LISTED)
                .map(|o| OtherFilesDoc {
                    extension: o.extension.clone(),
                    files: o.files,
                    language: o.language.map(str::to_owned),
                })
                .collect(),
            languages_not_analysed: coverage
                .languages_not_analysed
                .iter()
                .map(|l| LanguageDoc {
                    language: l.language.to_owned(),
                    files: l.files,
                    extensions: l.extensions.clone(),
                })
                .collect(),
            frontends: {
                let mut most: Vec<_> = coverage.frontends.iter().collect();
                most.sort_by(|a, b| {
                    b.without_calls
                        .cmp(&a.without_calls)
                        .then_with(|| a.component.cmp(&b.component))
                });
                most.into_iter()
                    .take(MAX_LISTED)
                    .map(|f| FrontendDoc {
                        component: f.component.clone(),
                        modules: f.modules,
                        with_calls: f.with_calls,
                        with_call_refusals: f.with_call_refusals,
                        without_calls: f.without_calls,
                        examples: f.examples.iter().map(ToString::to_string).collect(),
                    })
                    .collect()
            },
            frontends_total: coverage.frontends.len() as u64,
            refusals: coverage
                .refusals
                .iter()
                .map(|r| RefusalCoverageDoc {
                    kind: r.kind.as_str().to_owned(),
                    refusals: r.refusals,
                    files: r.files,
                    affects: r.affects.to_owned(),
                })
                .collect(),
        }
    }

    /// The analysis's coverage, as a document.
    pub fn from_analysis(analysis: &cartograph_graph::Analysis) -> Self {
        Self::from_coverage(&cartograph_graph::coverage(analysis))
    }

    /// The lines a report shows, as plain sentences with identities between backticks (each
    /// front end sets those as it sets code). Empty when nothing was left unseen.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        lines.push(format!(
            "{} of {} file{} analysed; {} skipped with a refusal; {} not source files of an analysed language.",
            self.files_analysed,
            self.files_seen,
            plural(self.files_seen),
            self.files_skipped,
            self.files_other,
        ));
        if !self.languages_not_analysed.is_empty() {
            let shown: Vec<String> = self
                .languages_not_analysed
                .iter()
                .take(MAX_ROWS)
                .map(|l| {
                    let extensions: Vec<String> =
                        l.extensions.iter().map(|e| format!("`.{e}`")).collect();
                    format!(
                        "{} ({} file{}: {})",
                        l.language,
                        l.files,
                        plural(l.files),
                        extensions.join(", ")
                    )
                })
                .collect();
            let more = self.languages_not_analysed.len().saturating_sub(MAX_ROWS);
            lines.push(format!(
                "Languages present but not analysed — their imports, routes and calls are unknown: {}{}.",
                shown.join("; "),
                if more > 0 { format!("; and {more} more") } else { String::new() }
            ));
        }
        for skipped in self.skipped.iter().take(MAX_ROWS) {
            let extension = if skipped.extension.is_empty() {
                "no extension".to_owned()
            } else {
                format!("`.{}`", skipped.extension)
            };
            lines.push(format!(
                "Skipped: {} file{} ({extension}) — `{}`.",
                skipped.files,
                plural(skipped.files),
                skipped.reason
            ));
        }
        if self.skipped.len() > MAX_ROWS {
            lines.push(format!("Skipped: {} more kinds of file.", self.skipped.len() - MAX_ROWS));
        }
        for frontend in self.frontends.iter().filter(|f| f.without_calls > 0).take(MAX_ROWS) {
            let examples: Vec<String> =
                frontend.examples.iter().map(|e| format!("`{e}`")).collect();
            lines.push(format!(
                "Frontend `{}`: {} of {} module{} with no HTTP call recognised and none refused — unknown, not \"no calls\" ({} with calls, {} with a call refused); e.g. {}.",
                frontend.component,
                frontend.without_calls,
                frontend.modules,
                plural(frontend.modules),
                frontend.with_calls,
                frontend.with_call_refusals,
                examples.join(", ")
            ));
        }
        for refusal in &self.refusals {
            lines.push(format!(
                "`{}`: {} in {} file{} — {}.",
                refusal.kind,
                refusal.refusals,
                refusal.files,
                plural(refusal.files),
                refusal.affects
            ));
        }
        lines
    }
}

/// The coverage part of a Markdown summary or map: a heading and one bullet per line. With
/// `escaped`, every line is escaped for GitHub (identities as code that cannot break out);
/// without, identities stay between backticks, as the summary writes them.
pub fn render_markdown(doc: &CoverageDoc, heading: &str, escaped: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{heading} Coverage: what was not seen\n");
    for line in doc.lines() {
        if escaped {
            let _ = writeln!(out, "- {}", crate::diff_markdown::escape::text_with_code(&line));
        } else {
            let _ = writeln!(out, "- {line}");
        }
    }
    let _ = writeln!(out);
    out
}
