//! The rows of the findings table and the evidence behind each finding.
//!
//! The table must fit the width of a GitHub comment (about 780 pixels), where a table is as wide
//! as its longest unbreakable word. So a row has four narrow columns (number, severity, kind,
//! what changed) and no column repeats another: the finding's subject is set as code where the
//! message names it (or in front of the message when it does not), and every path the message
//! names is shortened (see [`crate::short_path`]). A long route may wrap after a `/`. The
//! evidence, below the table, names every file and subject in full.

use std::collections::BTreeMap;

use super::escape::{code, code_wrapping, plain};
use super::rows::evidence_row;
use super::{Severity, finding_label, glyph, node_name};
use crate::diff::{CoveredByDoc, DiffDocument, FindingDoc};
use crate::short_path::{PathShortener, Shortened};

/// The longest path shown in the table, in characters.
const MAX_TABLE_PATH_CHARS: usize = 40;
/// The longest "what changed" cell, in visible characters; longer ones keep their start and
/// their end (where a "Lowered to …" note is).
const MAX_CELL_CHARS: usize = 400;

pub(super) const TABLE_HEADER: &str =
    "| # | severity | finding | what changed |\n|---:|---|---|---|\n";

pub(super) struct PreparedFinding {
    pub(super) severity: Severity,
    pub(super) row: String,
    pub(super) evidence_title: String,
    pub(super) evidence: Vec<String>,
}

/// The table's rows and the note on how its paths were shortened (empty when none was).
pub(super) struct PreparedFindings {
    pub(super) rows: Vec<PreparedFinding>,
    pub(super) paths_note: String,
}

/// One row per finding that no other finding covers, numbered in order; a covering finding's
/// label names the kinds it covers (`new cross-language call + route added`). Its message
/// already names what they say, and its edges include theirs.
pub(super) fn prepare_findings(doc: &DiffDocument) -> PreparedFindings {
    let findings = &doc.findings;
    let mut also: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for f in findings {
        if let Some(by) = &f.covered_by {
            let kinds = also.entry((by.kind.as_str(), by.subject.as_str())).or_default();
            if !kinds.contains(&f.kind.as_str()) {
                kinds.push(&f.kind);
            }
        }
    }
    // A finding names a cover that is not in the document (a hand-edited file): keep its row.
    let present = |by: &CoveredByDoc| {
        findings
            .iter()
            .any(|g| g.kind == by.kind && g.subject == by.subject && g.covered_by.is_none())
    };
    let shown: Vec<&FindingDoc> =
        findings.iter().filter(|f| f.covered_by.as_ref().is_none_or(|by| !present(by))).collect();

    let paths = DocumentPaths::new(doc);
    let pieces: Vec<Vec<Piece>> = shown.iter().map(|f| message_pieces(f, &paths)).collect();
    let shortener = PathShortener::new(
        pieces.iter().flatten().filter(|p| p.kind == PieceKind::Path).map(|p| p.text.as_str()),
        paths.known.iter().map(String::as_str),
        MAX_TABLE_PATH_CHARS,
    );
    let mut used = Shortened::default();
    let rows = shown
        .iter()
        .zip(&pieces)
        .enumerate()
        .map(|(i, (f, pieces))| {
            let covered =
                also.get(&(f.kind.as_str(), f.subject.as_str())).map_or(&[][..], Vec::as_slice);
            let cell = render_pieces(pieces, &shortener, &mut used);
            prepare_finding(i, f, covered, &cell)
        })
        .collect();
    let how = shortener.how(used);
    let paths_note = if how.is_empty() {
        String::new()
    } else {
        format!(
            "<sub>Paths in the table are shortened: {}. The evidence and the JSON report name \
             every file in full.</sub>\n",
            how.join("; ")
        )
    };
    PreparedFindings { rows, paths_note }
}

fn prepare_finding(index: usize, f: &FindingDoc, covered: &[&str], cell: &str) -> PreparedFinding {
    let n = index + 1;
    let mut label = finding_label(&f.kind);
    for kind in covered {
        label.push_str(" + ");
        label.push_str(&finding_label(kind));
    }
    let row = format!(
        "| {n} | {}&nbsp;{} | {label} | {cell} |\n",
        glyph(&f.severity),
        plain(&f.severity)
    );
    let evidence_title = format!("**{n}. {label}** {}", code(node_name(&f.subject)));
    let evidence = f.edges.iter().map(evidence_row).collect();
    PreparedFinding { severity: Severity::parse(&f.severity), row, evidence_title, evidence }
}

/// Every repository path the document names: module files and components.
struct DocumentPaths {
    known: std::collections::BTreeSet<String>,
}

impl DocumentPaths {
    fn new(doc: &DiffDocument) -> Self {
        let mut known = std::collections::BTreeSet::new();
        let mut add = |id: &str| {
            if let Some(path) = id.strip_prefix("module:").or_else(|| id.strip_prefix("component:"))
            {
                known.insert(path.to_owned());
            }
        };
        for n in doc.nodes.added.iter().chain(&doc.nodes.removed) {
            add(&n.id);
        }
        for e in doc.edges.added.iter().chain(&doc.edges.removed) {
            add(&e.claim.from);
            add(&e.claim.to);
        }
        for f in &doc.findings {
            add(&f.subject);
            for e in &f.edges {
                add(&e.from);
                add(&e.to);
            }
        }
        for m in doc.cycles.added.iter().chain(&doc.cycles.removed).flatten() {
            add(m);
        }
        let components =
            doc.nodes.added.iter().chain(&doc.nodes.removed).filter_map(|n| n.component.clone());
        known.extend(components);
        Self { known }
    }

    /// A path the document names, or a directory of one (a component a message names).
    fn names(&self, word: &str) -> bool {
        if word.is_empty() || word.starts_with('/') || word.contains("://") {
            return false;
        }
        if self.known.contains(word) {
            return true;
        }
        let dir = format!("{word}/");
        word.contains('/')
            && self.known.range(dir.clone()..).next().is_some_and(|k| k.starts_with(&dir))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PieceKind {
    Text,
    Path,
    /// The finding's subject, not a path: a route, a table, a variable, a package.
    Subject,
}

/// A word (or the subject) of a message, with whether a space comes before it.
#[derive(Debug, Clone)]
struct Piece {
    kind: PieceKind,
    text: String,
    space_before: bool,
}

/// The message cut into words, with the paths and the subject marked. A subject that is a path
/// is marked as one; a subject the message does not name comes first.
fn message_pieces(f: &FindingDoc, paths: &DocumentPaths) -> Vec<Piece> {
    let name = node_name(&f.subject);
    let is_path = f.subject.starts_with("module:") || f.subject.starts_with("component:");
    let message = f.message.as_str();
    let mut out = Vec::new();
    match (!is_path).then(|| find_word(message, name)).flatten() {
        Some(at) => {
            words(&message[..at], paths, &mut out);
            let space_before = out.last().is_some_and(|p| p.text.is_empty() && p.space_before);
            if space_before {
                out.pop();
            }
            out.push(Piece { kind: PieceKind::Subject, text: name.to_owned(), space_before });
            let rest = &message[at + name.len()..];
            let mut tail = Vec::new();
            words(rest, paths, &mut tail);
            if let Some(first) = tail.first_mut() {
                first.space_before = false;
            }
            out.extend(tail);
        }
        None => {
            let named = is_path && message.split(' ').any(|w| trim_word(w).1 == name);
            if !named {
                let kind = if is_path { PieceKind::Path } else { PieceKind::Subject };
                out.push(Piece { kind, text: name.to_owned(), space_before: false });
                out.push(Piece {
                    kind: PieceKind::Text,
                    text: ":".to_owned(),
                    space_before: false,
                });
            }
            let start = out.len();
            words(message, paths, &mut out);
            if let Some(first) = out.get_mut(start) {
                first.space_before = start > 0;
            }
        }
    }
    out
}

/// Where `name` first stands as a whole word in `message`: after the start, a space or `(`, and
/// before the end, a space or sentence punctuation.
fn find_word(message: &str, name: &str) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    message.match_indices(name).map(|(i, _)| i).find(|&i| {
        let before = message[..i].chars().next_back();
        let after = message[i + name.len()..].chars().next();
        before.is_none_or(|c| c == ' ' || c == '(')
            && after.is_none_or(|c| c == ' ' || ".,;:)".contains(c))
    })
}

/// A word split into leading `(`, its core, and trailing sentence punctuation.
fn trim_word(word: &str) -> (&str, &str, &str) {
    let core_start = word.len() - word.trim_start_matches('(').len();
    let rest = &word[core_start..];
    let core = rest.trim_end_matches(['.', ',', ';', ':', ')']);
    (&word[..core_start], core, &rest[core.len()..])
}

fn words(text: &str, paths: &DocumentPaths, out: &mut Vec<Piece>) {
    for (i, word) in text.split(' ').enumerate() {
        let space_before = i > 0;
        let (open, core, close) = trim_word(word);
        if !core.is_empty() && paths.names(core) {
            if !open.is_empty() {
                out.push(Piece { kind: PieceKind::Text, text: open.to_owned(), space_before });
            }
            out.push(Piece {
                kind: PieceKind::Path,
                text: core.to_owned(),
                space_before: space_before && open.is_empty(),
            });
            if !close.is_empty() {
                out.push(Piece {
                    kind: PieceKind::Text,
                    text: close.to_owned(),
                    space_before: false,
                });
            }
        } else {
            out.push(Piece { kind: PieceKind::Text, text: word.to_owned(), space_before });
        }
    }
}

/// The cell: text escaped, paths shortened and set as code, the subject as code; past
/// [`MAX_CELL_CHARS`] the middle gives way to `…`.
fn render_pieces(pieces: &[Piece], shortener: &PathShortener, used: &mut Shortened) -> String {
    let shown: Vec<(bool, String, bool)> = pieces
        .iter()
        .map(|p| match p.kind {
            PieceKind::Text => (p.space_before, p.text.clone(), false),
            PieceKind::Subject => (p.space_before, p.text.clone(), true),
            PieceKind::Path => (p.space_before, shortener.shorten_noting(&p.text, used), true),
        })
        .collect();
    let width =
        |(space, text, _): &(bool, String, bool)| text.chars().count() + usize::from(*space);
    let total: usize = shown.iter().map(width).sum();
    let (head, tail) = if total <= MAX_CELL_CHARS {
        (shown.len(), 0)
    } else {
        let fit = |budget: usize, items: &mut dyn Iterator<Item = &(bool, String, bool)>| {
            let mut used = 0;
            items
                .take_while(|p| {
                    used += width(p);
                    used <= budget
                })
                .count()
        };
        let head = fit(MAX_CELL_CHARS * 3 / 5, &mut shown.iter());
        let tail = fit(MAX_CELL_CHARS * 2 / 5 - 2, &mut shown.iter().rev()).min(shown.len() - head);
        (head, tail)
    };
    let mut out = String::new();
    let mut write = |(space, text, is_code): &(bool, String, bool), first: bool| {
        if *space && !first {
            out.push(' ');
        }
        if *is_code { out.push_str(&code_wrapping(text)) } else { out.push_str(&plain(text)) }
    };
    for (i, p) in shown[..head].iter().enumerate() {
        write(p, i == 0);
    }
    if head < shown.len() {
        write(&(true, "…".to_owned(), false), head == 0);
        for p in &shown[shown.len() - tail..] {
            write(p, false);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_their_brackets_and_punctuation_apart() {
        assert_eq!(trim_word("(src/a.py,"), ("(", "src/a.py", ","));
        assert_eq!(trim_word("services.gen.ts."), ("", "services.gen.ts", "."));
        assert_eq!(trim_word("(python),"), ("(", "python", "),"));
        assert_eq!(trim_word("plain"), ("", "plain", ""));
    }

    #[test]
    fn the_subject_is_found_as_a_whole_word_only() {
        let m = "src/models/connection_test.py newly writes table connection.";
        assert_eq!(find_word(m, "connection"), Some(m.len() - "connection.".len()));
        assert_eq!(find_word("GET /a/b is new", "GET /a"), None);
        assert_eq!(find_word("Route GET /a is new", "GET /a"), Some(6));
    }
}
