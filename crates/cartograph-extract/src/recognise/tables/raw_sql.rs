//! Raw SQL in string literals (Python and TypeScript/JavaScript).
//!
//! Recognises a string literal (Python strings, f-strings and implicitly concatenated strings;
//! JS/TS strings and template literals, tagged ones included) whose text starts, after
//! whitespace, with `SELECT`, `INSERT`, `UPDATE`, `DELETE` or `REPLACE` (case-insensitive), read
//! by a small hand-written tokenizer: `FROM t` and `JOIN t` read (`FROM a, b` both; subqueries
//! too; `FROM` inside a function call such as `EXTRACT(YEAR FROM d)` does not count);
//! `INSERT INTO t`, `REPLACE INTO t`, `UPDATE t … SET` and `DELETE FROM t` write. `schema.t` gives
//! the schema; quoted identifiers are unquoted. Placeholders in values (`%s`, `?`, `$1`, `:name`,
//! `{x}`, `${x}`) are fine. Provenance `heuristic`, confidence `likely`.
//! To keep prose out: Python docstrings and bare string statements are skipped; the text must
//! open with a whole keyword and that statement's shape (`INSERT … INTO`, `UPDATE t … SET`,
//! `DELETE FROM`), so `"Updated connection from test"` is not SQL; a text whose SQL keywords mix
//! upper and lower case (`"Select a file from the list"`) or that holds common English words
//! (`the`, `your`, `please`, …) is not SQL. A statement starting with `WITH` is skipped (its CTE
//! names are not tables). SQL in a test's string literal counts like any other.
//!
//! Refuses (`computed-table`): a table position holding an interpolation or a format
//! placeholder (`f"SELECT * FROM {table}"`, `"DELETE FROM %s" % t`), or a literal that ends where
//! the table name should be and is concatenated with something else (`"SELECT * FROM " + t`).
//!
//! ```python
//! cursor.execute("SELECT id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s", (oid,))
//! # reads orders, reads customers
//! ```

use cartograph_core::{Confidence, Provenance, Refusal, RefusalKind, SourceLocation};
use tree_sitter::Node;

use super::{Access, TableAccess};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::{position, text};

/// The character that stands for an interpolation in the reassembled text.
const HOLE: char = '\u{1}';

/// A string literal node: reassemble it, and record what its SQL names.
pub(super) fn literal(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    // The cheap test first, on the raw text: most literals are not SQL.
    if !starts_like_sql(text(node, cx.source)) {
        return;
    }
    let parent = node.parent();
    let parent_kind = parent.map(|p| p.kind()).unwrap_or("");
    // Parts of a concatenation are read as one; docstrings and bare strings are prose.
    if parent_kind == "concatenated_string" || parent_kind == "expression_statement" {
        return;
    }
    let Some(sql) = reassemble(node, cx.source) else { return };
    let Some(found) = scan(&sql) else { return };
    let (line, column) = position(node);
    let concatenated = matches!(parent_kind, "binary_operator" | "binary_expression");
    if found.computed || (found.open_end && concatenated) {
        facts.refusals.push(Refusal::new(
            RefusalKind::ComputedTable,
            SourceLocation::new(cx.path.clone(), line, column),
            "SQL statement whose table name is computed",
        ));
    }
    for (schema, table, access, via) in found.tables {
        let duplicate = facts.tables.accesses.iter().any(|a| {
            a.line == line && a.column == column && a.table == table && a.access == access
        });
        if duplicate {
            continue;
        }
        facts.tables.accesses.push(TableAccess {
            table,
            schema,
            access,
            framework: "raw-sql",
            via,
            provenance: Provenance::Heuristic,
            confidence: Confidence::Likely,
            line,
            column,
            instance: None,
        });
    }
}

/// The text of a literal with each interpolation replaced by [`HOLE`] and each escape sequence by
/// a space. `None` for anything that cannot hold SQL.
fn reassemble(node: Node<'_>, source: &str) -> Option<String> {
    let mut out = String::new();
    let parts: Vec<Node<'_>> = if node.kind() == "concatenated_string" {
        let mut cursor = node.walk();
        node.named_children(&mut cursor).filter(|c| c.kind() == "string").collect()
    } else {
        vec![node]
    };
    for part in parts {
        let mut cursor = part.walk();
        for child in part.named_children(&mut cursor) {
            match child.kind() {
                "string_content" | "string_fragment" => out.push_str(text(child, source)),
                "escape_sequence" => out.push(' '),
                "interpolation" | "template_substitution" => out.push(HOLE),
                _ => {}
            }
        }
    }
    // The text itself must start with a statement keyword.
    starts_like_sql(&out).then_some(out)
}

/// True when the text starts, after whitespace and any string prefix or quotes, with a
/// statement keyword.
fn starts_like_sql(raw: &str) -> bool {
    // A Python string prefix (`f`, `rb`, ...) is at most three letters before the first quote.
    let quote = raw.find(['"', '\'', '`']).filter(|&q| {
        q <= 3 && raw.get(..q).is_some_and(|p| p.chars().all(|c| "rRbBfFuU".contains(c)))
    });
    let rest = quote.and_then(|q| raw.get(q..)).unwrap_or(raw);
    let start =
        rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`'));
    let head = start.get(..start.len().min(7)).unwrap_or(start);
    ["SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE"]
        .iter()
        .any(|k| head.get(..k.len()).is_some_and(|h| h.eq_ignore_ascii_case(k)))
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Hole,
    Punct(char),
    Other,
}

/// What one SQL text names.
#[derive(Debug, Default, PartialEq, Eq)]
struct Scan {
    tables: Vec<(Option<String>, String, Access, &'static str)>,
    /// A table position held a placeholder.
    computed: bool,
    /// The text ended where a table name was expected.
    open_end: bool,
}

fn tokenize(sql: &str) -> Vec<Token> {
    let chars: Vec<char> = sql.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let at = |j: usize| chars.get(j).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = at(i);
        if c.is_whitespace() {
            i += 1;
        } else if c == '\\' {
            // An escape left in the text (a raw or non-decoded string): skip it and its character.
            i += 2;
        } else if c == '-' && at(i + 1) == '-' {
            while i < chars.len() && at(i) != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            i += 2;
            while i < chars.len() && !(at(i) == '*' && at(i + 1) == '/') {
                i += 1;
            }
            i += 2;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (at(i).is_alphanumeric() || at(i) == '_' || at(i) == '$') {
                i += 1;
            }
            tokens.push(Token::Word(chars.get(start..i).unwrap_or(&[]).iter().collect()));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (at(i).is_alphanumeric() || at(i) == '.' || at(i) == '_') {
                i += 1;
            }
            tokens.push(Token::Other);
        } else if c == '"' || c == '`' || c == '[' {
            let close = if c == '[' { ']' } else { c };
            let start = i + 1;
            i += 1;
            while i < chars.len() && at(i) != close {
                i += 1;
            }
            let inner: String =
                chars.get(start..i.min(chars.len())).unwrap_or(&[]).iter().collect();
            i += 1;
            if inner.contains(HOLE) || inner.contains('{') {
                tokens.push(Token::Hole);
            } else {
                tokens.push(Token::Quoted(inner));
            }
        } else if c == '\'' {
            i += 1;
            while i < chars.len() {
                if at(i) == '\'' && at(i + 1) == '\'' {
                    i += 2;
                } else if at(i) == '\'' {
                    break;
                } else {
                    i += 1;
                }
            }
            i += 1;
            tokens.push(Token::Other);
        } else if c == HOLE || c == '?' {
            i += 1;
            tokens.push(Token::Hole);
        } else if c == '{' {
            while i < chars.len() && at(i) != '}' {
                i += 1;
            }
            i += 1;
            tokens.push(Token::Hole);
        } else if c == '%' && (at(i + 1) == '(' || at(i + 1).is_ascii_alphabetic()) {
            i += 1;
            if at(i) == '(' {
                while i < chars.len() && at(i) != ')' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            tokens.push(Token::Hole);
        } else if ((c == '$' || c == '@') && (at(i + 1).is_alphanumeric() || at(i + 1) == '_'))
            || (c == ':' && (at(i + 1).is_alphabetic() || at(i + 1) == '_'))
        {
            // `$1`, `@name`, `:name` (a `::type` cast starts with a second colon, not a letter).
            i += 1;
            while i < chars.len() && (at(i).is_alphanumeric() || at(i) == '_') {
                i += 1;
            }
            tokens.push(Token::Hole);
        } else {
            i += 1;
            tokens.push(Token::Punct(c));
        }
    }
    tokens
}

/// Words that can never be a table name or an alias.
const KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "FULL",
    "OUTER",
    "CROSS",
    "ON",
    "USING",
    "GROUP",
    "ORDER",
    "BY",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "INSERT",
    "INTO",
    "VALUES",
    "UPDATE",
    "SET",
    "DELETE",
    "RETURNING",
    "AS",
    "AND",
    "OR",
    "NOT",
    "NATURAL",
    "LATERAL",
    "ONLY",
    "FOR",
    "WINDOW",
    "FETCH",
    "DEFAULT",
    "WITH",
    "REPLACE",
];

/// Keywords whose case must agree for the text to count as SQL.
const STRUCTURE: &[&str] =
    &["SELECT", "FROM", "WHERE", "JOIN", "INSERT", "INTO", "VALUES", "UPDATE", "SET", "DELETE"];

/// English words that do not occur in SQL statements but do in messages that start with a
/// keyword (`"Update the connection from the form"`).
const PROSE: &[&str] = &[
    "the", "an", "your", "you", "please", "this", "these", "those", "which", "will", "would",
    "should", "could", "cannot", "can't", "won't", "don't",
];

/// The text opens with a whole statement keyword and the statement's own shape:
/// `SELECT`, `INSERT … INTO`, `REPLACE … INTO`, `UPDATE t … SET`, `DELETE … FROM`.
fn leading_statement_is_sql(tokens: &[Token]) -> bool {
    let Some(Token::Word(first)) = tokens.first() else { return false };
    let near = |keyword: &str, within: usize| {
        tokens.iter().skip(1).take(within).any(|t| word_is(Some(t), keyword))
    };
    match first.to_ascii_uppercase().as_str() {
        "SELECT" => true,
        "INSERT" | "REPLACE" => near("INTO", 3),
        "DELETE" => tokens
            .iter()
            .skip(1)
            .find(|t| !["LOW_PRIORITY", "QUICK", "IGNORE"].iter().any(|m| word_is(Some(t), m)))
            .is_some_and(|t| word_is(Some(t), "FROM")),
        // `UPDATE [ONLY] schema.table [AS] alias SET`
        "UPDATE" => near("SET", 7),
        _ => false,
    }
}

fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

fn word_is(token: Option<&Token>, keyword: &str) -> bool {
    matches!(token, Some(Token::Word(w)) if w.eq_ignore_ascii_case(keyword))
}

/// Reads the SQL text; `None` when it does not look like SQL.
fn scan(sql: &str) -> Option<Scan> {
    let tokens = tokenize(sql);
    if !leading_statement_is_sql(&tokens) {
        return None;
    }
    let mut upper = false;
    let mut lower = false;
    for token in &tokens {
        if let Token::Word(w) = token
            && PROSE.iter().any(|p| p.eq_ignore_ascii_case(w))
        {
            return None;
        }
        if let Token::Word(w) = token
            && STRUCTURE.iter().any(|k| k.eq_ignore_ascii_case(w))
        {
            if w.chars().all(|c| c.is_ascii_uppercase()) {
                upper = true;
            } else if w.chars().all(|c| c.is_ascii_lowercase()) {
                lower = true;
            } else {
                return None;
            }
        }
    }
    if upper && lower {
        return None;
    }
    let mut scan = Scan::default();
    // One entry per open parenthesis: true when it opens a subquery.
    let mut parens: Vec<bool> = Vec::new();
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        let in_query = parens.last().copied().unwrap_or(true);
        let previous = i.checked_sub(1).and_then(|p| tokens.get(p));
        match token {
            Token::Punct('(') => parens.push(word_is(tokens.get(i + 1), "SELECT")),
            Token::Punct(')') => {
                parens.pop();
            }
            Token::Word(w) if in_query => {
                let w = w.to_ascii_uppercase();
                match w.as_str() {
                    "FROM" if !word_is(previous, "DELETE") => {
                        i = table_list(&tokens, i + 1, Access::Read, "SELECT … FROM", &mut scan);
                        continue;
                    }
                    "JOIN" => {
                        i = table_ref(&tokens, i + 1, Access::Read, "JOIN", &mut scan).0;
                        continue;
                    }
                    "INTO"
                        if word_is(previous, "INSERT")
                            || word_is(previous, "REPLACE")
                            || word_is(previous, "IGNORE") =>
                    {
                        i = table_ref(&tokens, i + 1, Access::Write, "INSERT INTO", &mut scan).0;
                        continue;
                    }
                    "UPDATE" if !word_is(previous, "FOR") && !word_is(previous, "DO") => {
                        i = update(&tokens, i + 1, &mut scan);
                        continue;
                    }
                    "DELETE" if word_is(tokens.get(i + 1), "FROM") => {
                        i = table_ref(&tokens, i + 2, Access::Write, "DELETE FROM", &mut scan).0;
                        continue;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    Some(scan)
}

/// `FROM a [AS x], b [y]`: every table of the list.
fn table_list(
    tokens: &[Token],
    start: usize,
    access: Access,
    via: &'static str,
    scan: &mut Scan,
) -> usize {
    let mut i = start;
    for _ in 0..32 {
        let (next, named) = table_ref(tokens, i, access, via, scan);
        i = next;
        if !named {
            return i;
        }
        // An optional alias.
        if word_is(tokens.get(i), "AS") {
            i += 1;
        }
        if matches!(tokens.get(i), Some(Token::Word(w)) if !is_keyword(w)) {
            i += 1;
        }
        if tokens.get(i) != Some(&Token::Punct(',')) {
            return i;
        }
        i += 1;
    }
    i
}

/// One table reference at `start`. Returns the index after it and whether a table was named.
fn table_ref(
    tokens: &[Token],
    start: usize,
    access: Access,
    via: &'static str,
    scan: &mut Scan,
) -> (usize, bool) {
    let mut i = start;
    while word_is(tokens.get(i), "ONLY") || word_is(tokens.get(i), "LATERAL") {
        i += 1;
    }
    let mut parts: Vec<String> = Vec::new();
    loop {
        match tokens.get(i) {
            Some(Token::Word(w)) if !is_keyword(w) => parts.push(w.clone()),
            Some(Token::Quoted(q)) if !q.is_empty() => parts.push(q.clone()),
            Some(Token::Hole) => {
                scan.computed = true;
                return (i + 1, false);
            }
            None if parts.is_empty() => {
                scan.open_end = true;
                return (i, false);
            }
            _ => return (i, false),
        }
        i += 1;
        if tokens.get(i) == Some(&Token::Punct('.')) && parts.len() < 3 {
            i += 1;
            if tokens.get(i).is_none() {
                scan.open_end = true;
                return (i, false);
            }
            continue;
        }
        break;
    }
    // A table function (`FROM generate_series(1, 3)`), not a table; after `INSERT INTO t` the
    // parenthesis opens the column list.
    if access == Access::Read && tokens.get(i) == Some(&Token::Punct('(')) {
        return (i, false);
    }
    let Some(table) = parts.pop() else { return (i, false) };
    let schema = parts.pop();
    if !scan.tables.iter().any(|(s, t, a, _)| *s == schema && *t == table && *a == access) {
        scan.tables.push((schema, table, access, via));
    }
    (i, true)
}

/// `UPDATE [ONLY] t [[AS] alias] SET …`: a write only when `SET` follows.
fn update(tokens: &[Token], start: usize, scan: &mut Scan) -> usize {
    let mut probe = Scan::default();
    let (mut i, named) = table_ref(tokens, start, Access::Write, "UPDATE", &mut probe);
    if !named {
        scan.computed |= probe.computed;
        return i;
    }
    if word_is(tokens.get(i), "AS") {
        i += 1;
    }
    if matches!(tokens.get(i), Some(Token::Word(w)) if !is_keyword(w)) {
        i += 1;
    }
    if word_is(tokens.get(i), "SET") {
        for entry in probe.tables {
            if !scan.tables.contains(&entry) {
                scan.tables.push(entry);
            }
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(sql: &str, expected: &[(&str, Access)], computed: bool) {
        let scan = scan(sql).unwrap_or_default();
        let got: Vec<(String, Access)> = scan
            .tables
            .iter()
            .map(|(s, t, a, _)| (s.as_ref().map_or(t.clone(), |s| format!("{s}.{t}")), *a))
            .collect();
        let want: Vec<(String, Access)> =
            expected.iter().map(|(t, a)| ((*t).to_owned(), *a)).collect();
        assert_eq!(got, want, "{sql}");
        assert_eq!(scan.computed, computed, "{sql}");
    }

    #[test]
    fn statements_name_their_tables() {
        use Access::{Read, Write};
        check("SELECT * FROM users WHERE id = %s", &[("users", Read)], false);
        check(
            "select o.id from orders o join customers c on c.id = o.customer_id",
            &[("orders", Read), ("customers", Read)],
            false,
        );
        check("SELECT a FROM x, public.y AS yy", &[("x", Read), ("public.y", Read)], false);
        check("INSERT INTO audit_log (a, b) VALUES (?, ?)", &[("audit_log", Write)], false);
        check(
            "INSERT INTO archive (id) SELECT id FROM orders WHERE done",
            &[("archive", Write), ("orders", Read)],
            false,
        );
        check("UPDATE \"item\" SET title = $1 WHERE id = $2", &[("item", Write)], false);
        check("DELETE FROM sessions WHERE expires < now()", &[("sessions", Write)], false);
        check(
            "SELECT * FROM (SELECT id FROM events) e WHERE EXTRACT(YEAR FROM created) = 2020",
            &[("events", Read)],
            false,
        );
        check("SELECT * FROM jobs FOR UPDATE SKIP LOCKED", &[("jobs", Read)], false);
        check("SELECT * FROM generate_series(1, 3)", &[], false);
        check("SELECT * FROM \u{1} WHERE id = \u{1}", &[], true);
        check("DELETE FROM %s", &[], true);
        check("SELECT * FROM {table}", &[], true);
    }

    #[test]
    fn prose_is_not_sql() {
        assert_eq!(scan("update options for the configuration changes from Airflow 2"), None);
        assert_eq!(scan("Updated existing connection from successful test"), None);
        assert_eq!(scan("select the rows from the table"), None);
        assert_eq!(scan("delete it from disk"), None);
        assert_eq!(scan("Select a file from the list"), None);
        assert_eq!(scan("Update the cache and Delete from disk"), None);
        check("update the cache", &[], false);
    }
}
