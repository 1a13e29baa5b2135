//! Successive versions of one file, the later ones parsed incrementally.
//!
//! A diff extracts both versions of every file whose content changed. The second version is
//! mostly the first: tree-sitter can reuse the unchanged parts of the first tree if it is told
//! where the text changed. The changes are found with a line diff ([`similar`], Myers) of the lines
//! between the versions' common first and last lines, each one applied to the old tree as an
//! `InputEdit` in order, and the new text parsed with the edited tree. The diff runs to the end
//! whenever that middle is at most [`UNBOUNDED_LINES`] lines, so the edits (and the parse's cost)
//! do not depend on how fast the machine is; only a larger middle has a time budget.
//!
//! The edits are whole lines: narrowing each to the bytes that differ was measured to cost more,
//! not less (+1.3% instructions over the 179 changed files of Airflow 3.3.1 → 3.3.2;
//! tree-sitter-python often reparses the rest of the file either way). Only the parse is
//! incremental: every version's facts are extracted from its own whole tree, exactly as
//! [`Extractor::extract`] would.
//!
//! Incremental and fresh parses of the same text give the same tree, except that error recovery
//! may differ around syntax errors, so the old tree is reused only when it has no error, and a new
//! tree with an error is parsed again from scratch.

use std::time::{Duration, Instant};

use cartograph_core::RepoPath;
use similar::{Algorithm, DiffTag, capture_diff_slices_deadline};
use tree_sitter::{InputEdit, Point, Tree};

use crate::{Extractor, FileFacts, Grammar};

/// The most lines (old and new together) between the common first and last lines whose diff
/// always runs to the end. Myers' cost grows with those lines times the lines changed: a typical
/// edit costs a few thousand steps, and a file of 15,000 lines with every line reversed took
/// 30 ms (release build). Airflow's largest change between two patch releases, a regenerated
/// `types.gen.ts`, has a middle of 14,586 lines.
const UNBOUNDED_LINES: usize = 30_000;

/// The most time the line diff of a larger middle may take; past it the diff is coarser (larger
/// edits), never wrong.
const DIFF_BUDGET: Duration = Duration::from_millis(20);

impl Extractor {
    /// Extracts the facts of successive versions of one file (oldest first), each from its own
    /// whole tree; every version after the first is parsed reusing the previous version's tree.
    /// The result is what [`Extractor::extract`] gives for each version on its own.
    pub fn extract_versions(
        &mut self,
        path: &RepoPath,
        grammar: Grammar,
        versions: &[&str],
    ) -> Vec<FileFacts> {
        // A component's masked text changes with its markup too, and its grammar with a block's
        // `lang`: each version is extracted on its own (components are small).
        if crate::component_for(path).is_some() {
            return versions.iter().map(|text| self.extract(path, grammar, text)).collect();
        }
        let mut previous: Option<(Tree, &str)> = None;
        let mut out = Vec::with_capacity(versions.len());
        for &text in versions {
            let parser = self.parsers.get(grammar);
            let tree = match previous.take() {
                Some((mut old, old_text)) if !old.root_node().has_error() => {
                    edit_tree(&mut old, old_text, text);
                    match parser.parse(text, Some(&old)) {
                        Some(tree) if !tree.root_node().has_error() => Some(tree),
                        _ => parser.parse(text, None),
                    }
                }
                _ => parser.parse(text, None),
            };
            let Some(tree) = tree else {
                out.push(FileFacts::unparsed(path, grammar));
                continue;
            };
            out.push(self.facts_of(path, grammar, &tree, text));
            previous = Some((tree, text));
        }
        out
    }
}

/// Tells `tree` (parsed from `old`) every change that turns `old` into `new`, in order.
fn edit_tree(tree: &mut Tree, old: &str, new: &str) {
    for edit in edits(old, new) {
        tree.edit(&edit);
    }
}

/// The edits that turn `old` into `new`, each in the coordinates of the text as the edits before
/// it left it (tree-sitter applies them one after another).
fn edits(old: &str, new: &str) -> Vec<InputEdit> {
    let (old_lines, old_starts) = lines(old);
    let (new_lines, new_starts) = lines(new);
    // Lines the versions share at the start and at the end are not diffed.
    let prefix = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
    let suffix = old_lines[prefix..]
        .iter()
        .rev()
        .zip(new_lines[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let old_middle = &old_lines[prefix..old_lines.len() - suffix];
    let new_middle = &new_lines[prefix..new_lines.len() - suffix];
    let deadline = (old_middle.len() + new_middle.len() > UNBOUNDED_LINES)
        .then(|| Instant::now() + DIFF_BUDGET);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, old_middle, new_middle, deadline);
    let mut edits = Vec::new();
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        let (old_range, new_range) = (
            old_range.start + prefix..old_range.end + prefix,
            new_range.start + prefix..new_range.end + prefix,
        );
        // Everything before this change is already new text, so it starts where the new text's
        // lines do; it replaces the old lines' bytes with the new lines' bytes.
        let start_byte = new_starts[new_range.start];
        let removed = &old[old_starts[old_range.start]..old_starts[old_range.end]];
        let inserted = &new[start_byte..new_starts[new_range.end]];
        let start_position = Point { row: new_range.start, column: 0 };
        edits.push(InputEdit {
            start_byte,
            old_end_byte: start_byte + removed.len(),
            new_end_byte: start_byte + inserted.len(),
            start_position,
            old_end_position: advance(start_position, removed),
            new_end_position: advance(start_position, inserted),
        });
    }
    edits
}

/// The lines of `text`, each with its newline, and the byte offset where each starts plus one
/// past the end.
fn lines(text: &str) -> (Vec<&str>, Vec<usize>) {
    let mut lines = Vec::with_capacity(text.len() / 32 + 1);
    let mut starts = Vec::with_capacity(text.len() / 32 + 2);
    let mut start = 0;
    starts.push(0);
    for newline in memchr::memchr_iter(b'\n', text.as_bytes()) {
        // A newline byte is always a character boundary in UTF-8.
        lines.push(&text[start..=newline]);
        start = newline + 1;
        starts.push(start);
    }
    if start < text.len() {
        lines.push(&text[start..]);
        starts.push(text.len());
    }
    (lines, starts)
}

/// The point reached from `start` (at a line start) after `text`.
fn advance(start: Point, text: &str) -> Point {
    let rows = text.bytes().filter(|&b| b == b'\n').count();
    let column = text.len() - text.rfind('\n').map_or(0, |at| at + 1);
    Point { row: start.row + rows, column: if rows == 0 { start.column + column } else { column } }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> RepoPath {
        RepoPath::new(p).expect("valid path")
    }

    /// Every version's incremental facts equal a fresh extraction of that version.
    fn check(grammar: Grammar, file: &str, versions: &[&str]) {
        let mut extractor = Extractor::new();
        let path = path(file);
        let incremental = extractor.extract_versions(&path, grammar, versions);
        for (text, facts) in versions.iter().zip(&incremental) {
            let fresh = Extractor::new().extract(&path, grammar, text);
            assert_eq!(*facts, fresh, "version differs:\n{text}");
        }
    }

    const PY_V1: &str = "import os\nfrom fastapi import APIRouter\n\nrouter = APIRouter(prefix=\"/items\")\n\n@router.get(\"/{id}\")\ndef read(id: int):\n    return os.environ[\"DB_URL\"]\n";

    #[test]
    fn python_insertions_deletions_and_replacements() {
        let v2 = PY_V1.replace("import os\n", "import os\nimport requests\n");
        let v3 = v2.replace("@router.get(\"/{id}\")", "@router.post(\"/{id}/archive\")");
        let v4 = format!(
            "{v3}\n@router.delete(\"/{{id}}\")\ndef remove(id: int):\n    requests.delete(\"https://api.example.com/x\")\n"
        );
        let v5 = v4.replace("from fastapi import APIRouter\n", "");
        check(Grammar::Python, "app/items.py", &[PY_V1, &v2, &v3, &v4, &v5]);
    }

    #[test]
    fn no_trailing_newline_crlf_unicode_and_empty_versions() {
        let no_newline = PY_V1.trim_end();
        let crlf = PY_V1.replace('\n', "\r\n");
        let unicode = PY_V1.replace("DB_URL", "DB_URL\"]  # café ☕ 数据\n    x = os.environ[\"Ü");
        check(Grammar::Python, "app/a.py", &[PY_V1, no_newline, &crlf, &unicode, "", PY_V1]);
    }

    #[test]
    fn syntax_errors_on_either_side_give_fresh_results() {
        let broken = PY_V1.replace("def read(id: int):", "def read(id: int:");
        check(Grammar::Python, "app/b.py", &[PY_V1, &broken, PY_V1, &broken, &broken]);
    }

    #[test]
    fn typescript_versions() {
        let v1 = "import axios from \"axios\";\nexport const api = axios.create({ baseURL: \"/api\" });\nexport function load(id: string) {\n  return api.get(`/items/${id}`);\n}\n";
        let v2 = v1.replace("api.get(`/items/${id}`)", "api.post(`/items/${id}/archive`, {})");
        let v3 = format!("import {{ z }} from \"zod\";\n{v2}const key = process.env.API_KEY;\n");
        check(Grammar::TypeScript, "web/src/api.ts", &[v1, &v2, &v3, v1]);
        check(
            Grammar::Tsx,
            "web/src/App.tsx",
            &[
                "export const A = () => <div/>;\n",
                "import x from \"./x\";\nexport const A = () => <div>{x}</div>;\n",
            ],
        );
    }

    #[test]
    fn edits_replay_to_the_new_text() {
        // Applying the edits' byte ranges to the old text must give the new text.
        let cases = [
            ("a\nb\nc\n", "a\nB\nc\nd\n"),
            ("a\nb", "a\nb\nc"),
            ("", "x\n"),
            ("x\ny\n", ""),
            ("é\n☕\n", "é\nß\n☕\n"),
            ("def f():\n    pass\n", "def f():\n    x = 1\n    pass\n"),
            ("a(1)\nb\nc(2)\n", "a(10)\nb\nc(20)\n"),
            ("a\na\n", "a\n"),
            ("a\n", "a\na\n"),
            ("x\na\nb\nx\n", "x\nb\na\nx\n"),
        ];
        // The point of byte `at` in `text`.
        let point = |text: &str, at: usize| {
            let before = &text[..at];
            let row = before.matches('\n').count();
            Point { row, column: at - before.rfind('\n').map_or(0, |i| i + 1) }
        };
        for (old, new) in cases {
            let mut text = old.to_owned();
            for edit in edits(old, new) {
                assert_eq!(edit.start_position, point(&text, edit.start_byte), "{old:?}");
                assert_eq!(edit.old_end_position, point(&text, edit.old_end_byte), "{old:?}");
                let inserted = &new[edit.start_byte..edit.new_end_byte];
                text.replace_range(edit.start_byte..edit.old_end_byte, inserted);
                assert_eq!(edit.new_end_position, point(&text, edit.new_end_byte), "{old:?}");
            }
            assert_eq!(text, new);
        }
    }

    #[test]
    fn edits_cover_only_the_changed_lines() {
        assert!(edits("a\nb\n", "a\nb\n").is_empty());
        // The shared first and last lines are left alone; one line replaced is one edit.
        let old = "head\n".repeat(50) + "old\n" + &"tail\n".repeat(50);
        let new = "head\n".repeat(50) + "new line\n" + &"tail\n".repeat(50);
        let found = edits(&old, &new);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].start_byte, found[0].old_end_byte, found[0].new_end_byte),
            (250, 254, 259)
        );
        assert_eq!(found[0].start_position, Point { row: 50, column: 0 });
    }

    #[test]
    fn a_middle_past_the_unbounded_size_still_gives_exact_edits() {
        // Every line reversed: the middle is larger than `UNBOUNDED_LINES`, so the time budget
        // applies; whatever the diff finds, replaying it gives the new text.
        let lines = UNBOUNDED_LINES / 2 + 1;
        let old: String = (0..lines).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..lines).rev().map(|i| format!("line {i}\n")).collect();
        let mut text = old.clone();
        for edit in edits(&old, &new) {
            text.replace_range(
                edit.start_byte..edit.old_end_byte,
                &new[edit.start_byte..edit.new_end_byte],
            );
        }
        assert_eq!(text, new);
    }
}
