//! Plain text for a person at a terminal: every document a command prints, read at a glance.
//!
//! The Markdown reports are written for a pull-request comment: HTML for collapsible sections,
//! character references that keep a hostile name from breaking a table, a Mermaid diagram. None
//! of that reads in a terminal. The text here says the same things from the same data (the
//! Markdown renderers' counts, folding and labels, shared rather than derived again): the verdict
//! first, then findings by severity, one line each with where it is, then counts. Evidence (the
//! edges and their sentences) is shown when asked for ([`TextOptions::evidence`]).
//!
//! Text holds no HTML, no character reference and no Markdown markup; it is wrapped to
//! [`TextOptions::width`] at spaces, so a path is never broken; colour is added only when
//! [`TextOptions::color`] says so, and no control character from an analysed tree reaches the
//! terminal (see [`page`]).

mod blast;
mod check;
mod diff;
mod map;
mod page;
mod recognisers;
mod summary;
mod trace;

pub use blast::render_blast;
pub use check::render_check;
pub use diff::{DiffTextOptions, Gate, render_diff};
pub use map::render_map;
pub use recognisers::render_recognisers;
pub use summary::render_summary;
pub use trace::render_trace;

/// The width text is wrapped to when the terminal's is unknown.
pub const DEFAULT_WIDTH: usize = 80;

/// How text is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOptions {
    /// Columns to wrap at (at least 40 are used).
    pub width: usize,
    /// Add ANSI colour.
    pub color: bool,
    /// Show the evidence: the edges behind each finding with their sentences, every hop's
    /// sentence, every affected node's chain, and lists in full.
    pub evidence: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        Self { width: DEFAULT_WIDTH, color: false, evidence: false }
    }
}

/// A node id without its kind, as text names it: `route:GET /items` is `GET /items`.
fn name(id: &str) -> &str {
    crate::diff_markdown::node_name(id)
}

/// `path:line`, or the path alone for a whole file.
fn at(location: &crate::snapshot::LocationDoc) -> String {
    if location.line == 0 {
        location.path.clone()
    } else {
        format!("{}:{}", location.path, location.line)
    }
}

/// Where an edge was found: `line N` when it is in the file of its `from` module, else
/// `path:line`.
fn place(location: &crate::snapshot::LocationDoc, from: &str) -> String {
    if from.strip_prefix("module:") == Some(location.path.as_str()) {
        match location.line {
            0 => String::from("whole file"),
            line => format!("line {line}"),
        }
    } else {
        at(location)
    }
}

/// A sentence that sets names in backticks (`layer \`web/**\``), without them: text has no
/// code spans. With an odd number of backticks the sentence is left as it is.
fn unquoted(sentence: &str) -> String {
    let ticks = sentence.matches('`').count();
    if ticks >= 2 && ticks.is_multiple_of(2) {
        sentence.replace('`', "")
    } else {
        sentence.to_owned()
    }
}

/// The note for a list cut short: how many were left out and how to see them.
fn more_note(left: usize, what: &str) -> String {
    format!("… and {left} more {what} (--evidence lists every one; --json has them all)")
}

/// The coverage part as text: a heading and one wrapped line per coverage line, identities
/// without their backticks (paths stay whole).
fn coverage(page: &mut page::Page, doc: &crate::coverage::CoverageDoc, title: &str) {
    page.blank();
    page.para(0, 0, &[(page::Role::Strong, title)]);
    for line in doc.lines() {
        page.para(2, 4, &[(page::Role::Plain, &line.replace('`', ""))]);
    }
}
