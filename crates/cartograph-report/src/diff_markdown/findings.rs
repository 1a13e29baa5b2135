//! The rows of the findings table and the evidence behind each finding.
//!
//! The table must fit the width of a GitHub comment (about 780 pixels), where a table is as wide
//! as its longest unbreakable word. So a row has four narrow columns (number, severity, kind,
//! what changed) and no column repeats another: the finding's subject is set as code where the
//! message names it (or in front of the message when it does not), and every path the message
//! names is shortened (see [`crate::short_path`]). A long route may wrap after a `/`. The
//! evidence, below the table, names every file and subject in full.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use super::escape::{code, code_wrapping, plain, thousands};
use super::group_text::{GroupText, Writers, group_text, named_paths};
use super::grouping::{RowGroup, ShownFinding, group_rows};
use super::rows::evidence_row;
use super::{Severity, finding_label, finding_words, glyph, node_name};
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
    /// How many findings the row stands for: 1, or a group's members.
    pub(super) findings: usize,
    /// The row up to its last cell: number, severity and label.
    row_start: String,
    /// The last cell: the finding's message, or what a group's findings share.
    cell: String,
    /// A group's members, one entry each, listed in a collapsible list in the last cell; empty
    /// for a single finding.
    members: Vec<String>,
    pub(super) evidence_title: String,
    pub(super) evidence: Vec<String>,
}

impl PreparedFinding {
    /// The row, with at most `max_members` entries of a group's member list (none: no list),
    /// and how many entries it left out.
    pub(super) fn row(&self, max_members: usize) -> (String, usize) {
        let Self { row_start, cell, members, .. } = self;
        if members.is_empty() || max_members == 0 {
            return (format!("{row_start}{cell} |\n"), members.len());
        }
        let take = max_members.min(members.len());
        let mut list = members[..take].join("<br>");
        let left = members.len() - take;
        if left > 0 {
            list.push_str(&format!("<br>… and {} more", thousands(left)));
        }
        (format!("{row_start}<details><summary>{cell}</summary>{list}</details> |\n"), left)
    }
}

/// The table's rows and the note on how its paths were shortened (empty when none was).
pub(super) struct PreparedFindings {
    pub(super) rows: Vec<PreparedFinding>,
    pub(super) paths_note: String,
}

/// One row per finding that no other finding covers, or per group of them (see
/// [`super::grouping`]), numbered in order; a covering finding's label names the kinds it covers
/// (`new cross-language call + route added`). Its message already names what they say, and its
/// edges include theirs.
pub(super) fn prepare_findings(doc: &DiffDocument) -> PreparedFindings {
    let also = covered_kinds(&doc.findings);
    let shown = shown_findings(&doc.findings, &also);
    let groups = group_rows(&shown);

    let paths = DocumentPaths::new(doc);
    let pieces: Vec<Vec<Piece>> = shown.iter().map(|s| message_pieces(s.finding, &paths)).collect();
    let named: Vec<String> = groups.iter().flat_map(|g| named_paths(g, &shown)).collect();
    let shortener = PathShortener::new(
        pieces
            .iter()
            .flatten()
            .filter(|p| p.kind == PieceKind::Path)
            .map(|p| p.text.as_str())
            .chain(named.iter().map(String::as_str)),
        paths.known.iter().map(String::as_str),
        MAX_TABLE_PATH_CHARS,
    );
    // The cells and the names of a group's summary are written by two closures, both noting
    // which shortening they used.
    let used = RefCell::new(Shortened::default());
    let mut cell = |m: usize| render_pieces(&pieces[m], &shortener, &mut used.borrow_mut());
    let mut path = |p: &str| code_wrapping(&shortener.shorten_noting(p, &mut used.borrow_mut()));
    let mut rows = Vec::with_capacity(groups.len());
    for (i, group) in groups.iter().enumerate() {
        let row = if let [only] = group.members[..] {
            prepare_finding(i, &shown[only], &cell(only))
        } else {
            let text = group_text(group, &shown, &mut Writers { cell: &mut cell, path: &mut path });
            prepare_group(i, group, &shown, text)
        };
        rows.push(row);
    }
    let how = shortener.how(used.into_inner());
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

/// The kinds of the findings each finding covers, by the covering finding's kind and subject.
pub(crate) fn covered_kinds(findings: &[FindingDoc]) -> BTreeMap<(&str, &str), Vec<&str>> {
    let mut also: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for f in findings {
        if let Some(by) = &f.covered_by {
            let kinds = also.entry((by.kind.as_str(), by.subject.as_str())).or_default();
            if !kinds.contains(&f.kind.as_str()) {
                kinds.push(&f.kind);
            }
        }
    }
    also
}

/// The findings a reader is shown, in document order: every one that no other finding covers,
/// with the kinds it covers (see [`covered_kinds`]).
pub(crate) fn shown_findings<'a>(
    findings: &'a [FindingDoc],
    also: &'a BTreeMap<(&'a str, &'a str), Vec<&'a str>>,
) -> Vec<ShownFinding<'a>> {
    // A finding names a cover that is not in the document (a hand-edited file): keep its row.
    let present = |by: &CoveredByDoc| {
        findings
            .iter()
            .any(|g| g.kind == by.kind && g.subject == by.subject && g.covered_by.is_none())
    };
    findings
        .iter()
        .filter(|f| f.covered_by.as_ref().is_none_or(|by| !present(by)))
        .map(|f| ShownFinding {
            finding: f,
            covers: also.get(&(f.kind.as_str(), f.subject.as_str())).map_or(&[][..], Vec::as_slice),
        })
        .collect()
}

/// A finding's label as [`label`] writes it, unescaped: for terminal text.
pub(crate) fn shown_label(shown: &ShownFinding<'_>) -> String {
    let mut label = finding_words(&shown.finding.kind);
    for kind in shown.covers {
        label.push_str(" + ");
        label.push_str(&finding_words(kind));
    }
    label
}

/// A finding's label, with the kinds it covers: `new cross-language call + route added`.
fn label(shown: &ShownFinding<'_>) -> String {
    let mut label = finding_label(&shown.finding.kind);
    for kind in shown.covers {
        label.push_str(" + ");
        label.push_str(&finding_label(kind));
    }
    label
}

fn row_start(index: usize, severity: &str, label: &str) -> String {
    format!("| {} | {}&nbsp;{} | {label} | ", index + 1, glyph(severity), plain(severity))
}

fn prepare_finding(index: usize, shown: &ShownFinding<'_>, cell: &str) -> PreparedFinding {
    let f = shown.finding;
    let label = label(shown);
    let evidence_title = format!("**{}. {label}** {}", index + 1, code(node_name(&f.subject)));
    PreparedFinding {
        severity: Severity::parse(&f.severity),
        findings: 1,
        row_start: row_start(index, &f.severity, &label),
        cell: cell.to_owned(),
        members: Vec::new(),
        evidence_title,
        evidence: f.edges.iter().map(evidence_row).collect(),
    }
}

/// A group's row: the severity of its first member (a move's: of its removed routes), its label
/// (a move names both kinds, and the call kinds of new routes newly called), the edges of all its
/// members, each once.
fn prepare_group(
    index: usize,
    group: &RowGroup,
    shown: &[ShownFinding<'_>],
    text: GroupText,
) -> PreparedFinding {
    // A move sits where its first removed route was, with that route's severity.
    let first = &shown[group.moved.as_ref().map_or(group.members[0], |m| m.pairs[0].0)];
    let label = match &group.moved {
        Some(m) => {
            let mut kinds = vec!["route-removed", "route-added"];
            for (_, a) in &m.pairs {
                let kind = shown[*a].finding.kind.as_str();
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            kinds.iter().map(|k| finding_label(k)).collect::<Vec<_>>().join(" + ")
        }
        None => label(first),
    };
    let severity = &first.finding.severity;
    let mut seen = BTreeSet::new();
    let evidence = group
        .members
        .iter()
        .flat_map(|&i| &shown[i].finding.edges)
        .filter(|e| seen.insert((&e.side, &e.kind, &e.from, &e.to)))
        .map(evidence_row)
        .collect();
    PreparedFinding {
        severity: Severity::parse(severity),
        findings: group.members.len(),
        row_start: row_start(index, severity, &label),
        evidence_title: format!("**{}. {label}** {}", index + 1, text.summary),
        cell: text.summary,
        members: text.members,
        evidence,
    }
}

/// Every repository path the document names: module files and components.
struct DocumentPaths {
    known: BTreeSet<String>,
}

impl DocumentPaths {
    fn new(doc: &DiffDocument) -> Self {
        let mut known = BTreeSet::new();
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
