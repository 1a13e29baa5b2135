//! Raw SQL in string literals (Python and TypeScript/JavaScript).
//!
//! Recognises a string literal (Python strings, f-strings and implicitly concatenated strings;
//! JS/TS strings and template literals, tagged ones included) whose text starts, after
//! whitespace, with `SELECT`, `INSERT`, `UPDATE`, `DELETE`, `REPLACE` or `WITH`
//! (case-insensitive), read by a small hand-written tokenizer: `FROM t` and `JOIN t` read
//! (`FROM a, b` both; subqueries too; `FROM` inside a function call such as
//! `EXTRACT(YEAR FROM d)` does not count, nor does `IS DISTINCT FROM`); `INSERT INTO t`,
//! `REPLACE INTO t`, `UPDATE t … SET` and `DELETE FROM t` write. `schema.t` gives the schema;
//! quoted identifiers are unquoted. Placeholders in values (`%s`, `?`, `$1`, `:name`, `{x}`,
//! `${x}`) are fine. Provenance `heuristic`, confidence `likely`.
//! To keep prose out: Python docstrings and bare string statements are skipped; the text must
//! open with a whole keyword and that statement's shape (`INSERT … INTO`, `UPDATE t … SET`,
//! `DELETE FROM`, `WITH name AS (`), so `"Updated connection from test"` is not SQL; a text whose
//! SQL keywords mix upper and lower case (`"Select a file from the list"`) or that holds common
//! English words (`the`, `your`, `please`, …) is not SQL. SQL in a test's string literal counts
//! like any other.
//!
//! Names that are not tables are not tables:
//! - a common table expression defined in the same text (`WITH recent AS (…) SELECT … FROM
//!   recent`) is the statement's own name; the tables inside its body are read;
//! - a table function (`FROM generate_series(1, 3)`, `JOIN LATERAL unnest(…)`) is a call;
//! - a database's own catalog is skipped silently, not refused (the analysis is not uncertain
//!   about it, it is simply not an application table): `information_schema.*`, `pg_catalog.*`
//!   and any `pg_*` schema, `pg_*` relations (`pg_class`, `pg_settings`, `pg_indexes`),
//!   `sqlite_*` (`sqlite_master`, `sqlite_schema`, `sqlite_sequence`), `mysql.*`,
//!   `performance_schema.*`, `sys.*` and `dual`.
//!
//! Refuses (`computed-table`): a table position holding an interpolation
//! (`f"SELECT * FROM {table}"`), a literal that ends where the table name should be and is
//! concatenated with something else (`"SELECT * FROM " + t`), or a table position holding a
//! template placeholder written in the text (`"DELETE FROM %s" % t`, `"UPDATE __TABLE__ SET …"`,
//! `{table}`, `{{ table }}`, `${table}`, `%(table)s`, `:table`, `$1`, `?`, `<table>`): the SQL
//! names its table through a placeholder.
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
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{member_name, position, text};

/// The character that stands for an interpolation in the reassembled text.
const HOLE: char = '\u{1}';

/// What one file's SQL literals name before it is known whether they run, and the names handed
/// to an execution sink, so that a literal assigned to a variable counts once the variable is
/// executed somewhere in the file ([`finish`]).
#[derive(Debug, Default)]
pub(super) struct Pending {
    /// True when the file's text holds a statement keyword: only then are the arguments of
    /// execution sinks worth recording (a fast path for speed).
    sql_text: bool,
    /// `(name, accesses, refusals)` of each SQL literal assigned to a name.
    held: Vec<(String, Vec<TableAccess>, Vec<Refusal>)>,
    /// Names found in the arguments of execution sinks.
    executed: Vec<String>,
    /// Names the file's literals define as common table expressions, fragments included
    /// (`` `model AS (SELECT …)` `` composed into another query through `${…}`).
    ctes: Vec<String>,
}

impl Pending {
    /// A fresh state for a file.
    pub(super) fn for_file(cx: &Context<'_>) -> Self {
        Self { sql_text: SQL_WORDS.any_in(cx), ..Self::default() }
    }
}

/// Words one of which a file holding SQL text holds.
pub(crate) static SQL_WORDS: crate::recognise::Words = crate::recognise::Words::new(&[
    "SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "select ", "insert ", "update ", "delete ",
    "replace ",
]);

/// Where a SQL literal's value goes, as far as the syntax of its file says.
#[derive(Debug, PartialEq, Eq)]
enum Reach {
    /// Into an execution sink: `cursor.execute("…")`, `db.query(`…`)`, `sql`…``, `text("…")`.
    Executed,
    /// Into a name (`QUERY = "…"`, `const sql = `…``): executed only when the name is.
    Held(String),
    /// Anywhere else: a message, an example in a prompt, a dictionary of test data, a
    /// connector's text for another database handed to a function that is not a sink.
    Elsewhere,
}

/// A string literal node: reassemble it, and record what its SQL names when the literal reaches
/// an execution sink, directly or through a name the file executes.
pub(super) fn literal(
    node: Node<'_>,
    cx: &Context<'_>,
    pending: &mut Pending,
    facts: &mut FileFacts,
) {
    let raw = text(node, cx.source);
    if pending.sql_text && has_as_paren(raw) {
        fragment_ctes(&content(node, cx.source), &mut pending.ctes);
    }
    // The cheap test first, on the raw text: most literals are not SQL.
    if !starts_like_sql(raw) {
        return;
    }
    let parent = cx.parent(node);
    let parent_kind = parent.map(|p| p.kind_name()).unwrap_or("");
    // Parts of a concatenation are read as one; docstrings and bare strings are prose.
    if parent_kind == "concatenated_string" || parent_kind == "expression_statement" {
        return;
    }
    let Some(sql) = reassemble(node, cx.source) else { return };
    let Some(found) = scan(&sql) else { return };
    let reach = reach(node, cx);
    if reach == Reach::Elsewhere {
        return;
    }
    let (line, column) = position(node);
    let concatenated = matches!(parent_kind, "binary_operator" | "binary_expression");
    let reason = if found.computed || (found.open_end && concatenated) {
        Some("SQL statement whose table name is computed")
    } else if found.placeholder {
        Some("SQL names its table through a placeholder")
    } else {
        None
    };
    let refusals: Vec<Refusal> = reason
        .map(|reason| {
            Refusal::new(
                RefusalKind::ComputedTable,
                SourceLocation::new(cx.path.clone(), line, column),
                reason,
            )
        })
        .into_iter()
        .collect();
    let accesses: Vec<TableAccess> = found
        .tables
        .into_iter()
        .map(|(schema, table, access, via)| TableAccess {
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
        })
        .collect();
    match reach {
        Reach::Held(name) => pending.held.push((name, accesses, refusals)),
        _ => commit(accesses, refusals, facts),
    }
}

/// Records a literal's accesses and refusals.
fn commit(accesses: Vec<TableAccess>, refusals: Vec<Refusal>, facts: &mut FileFacts) {
    facts.refusals.extend(refusals);
    for access in accesses {
        let duplicate = facts.tables.accesses.iter().any(|a| {
            a.line == access.line
                && a.column == access.column
                && a.table == access.table
                && a.access == access.access
        });
        if !duplicate {
            facts.tables.accesses.push(access);
        }
    }
}

/// After the walk: the SQL held by names the file executes counts, and a name some literal of
/// the file defines as a common table expression is not a table.
pub(super) fn finish(pending: &mut Pending, facts: &mut FileFacts) {
    for (name, accesses, refusals) in std::mem::take(&mut pending.held) {
        if pending.executed.contains(&name) {
            commit(accesses, refusals, facts);
        }
    }
    if !pending.ctes.is_empty() {
        let ctes = &pending.ctes;
        facts.tables.accesses.retain(|a| {
            a.framework != "raw-sql"
                || a.schema.is_some()
                || !ctes.iter().any(|c| c.eq_ignore_ascii_case(&a.table))
        });
    }
}

/// True when the text holds `AS (` or `as (` (whitespace between or not): a cheap test before
/// looking for common table expressions.
fn has_as_paren(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    memchr::memchr_iter(b'(', bytes).any(|at| {
        let before = bytes.get(..at).unwrap_or_default();
        let trimmed = before.trim_ascii_end();
        trimmed.len() >= 3
            && trimmed.get(trimmed.len() - 2..).is_some_and(|w| w.eq_ignore_ascii_case(b"as"))
            && trimmed.get(trimmed.len() - 3).is_some_and(|c| c.is_ascii_whitespace())
    })
}

/// Every `name AS (SELECT …` (or `WITH`, `VALUES`, `INSERT`, `UPDATE`, `DELETE`) in a text: the
/// common table expressions it defines, whether or not the text is a whole statement.
fn fragment_ctes(text: &str, out: &mut Vec<String>) {
    let tokens = tokenize(text);
    for window in tokens.windows(4) {
        let [Token::Word(name), as_, Token::Punct('('), body] = window else { continue };
        if is_keyword(name) || !word_is(Some(as_), "AS") {
            continue;
        }
        if ["SELECT", "WITH", "VALUES", "INSERT", "UPDATE", "DELETE"]
            .iter()
            .any(|k| word_is(Some(body), k))
            && !out.iter().any(|c| c == name)
        {
            out.push(name.clone());
        }
    }
}

/// A call (Python `call`, JS `call_expression` or `new_expression`): when it is an execution
/// sink, remember the names its arguments hand over (`cursor.execute(QUERY)`,
/// `session.execute(text(SQL.format(t)))`, `db.query(self.sql, params)`).
pub(super) fn call(node: Node<'_>, cx: &Context<'_>, pending: &mut Pending) {
    if !pending.sql_text {
        return;
    }
    let Some(callee) = cx.field(node, "function").or_else(|| node.field("constructor")) else {
        return;
    };
    if !is_sink(last_name(callee, cx.source)) {
        return;
    }
    let Some(args) = node.field("arguments") else { return };
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        names_in(arg, cx.source, 0, &mut pending.executed);
    }
}

/// The names an argument expression is built from: `q`, `self.q` (`q`), `q.format(…)`,
/// `text(q)`, `q % args`, `"…" + q`.
fn names_in(node: Node<'_>, source: &str, depth: usize, names: &mut Vec<String>) {
    if depth > 4 {
        return;
    }
    let mut push = |name: &str| {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    };
    match node.kind_name() {
        "identifier" => push(text(node, source)),
        "attribute" => {
            if let Some(name) = node.field("attribute") {
                push(text(name, source));
            }
        }
        "member_expression" => {
            if let Some(name) = node.field("property") {
                push(text(name, source));
            }
        }
        "call" | "call_expression" => {
            if let Some(function) = node.field("function") {
                // `q.format(…)`, `q.replace(…)`: the receiver.
                if let Some(object) = function.field("object") {
                    names_in(object, source, depth + 1, names);
                }
            }
            if let Some(args) = node.field("arguments") {
                let mut cursor = args.walk();
                for arg in args.named_children(&mut cursor) {
                    names_in(arg, source, depth + 1, names);
                }
            }
        }
        _ => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                names_in(child, source, depth + 1, names);
            }
        }
    }
}

/// The last name of a callee or tag: `execute` for `cursor.execute`, `sql` for `sql`,
/// `type` for `sql.type(X)` read as its own callee's last name (`sql`).
fn last_name<'s>(callee: Node<'_>, source: &'s str) -> &'s str {
    match callee.kind_name() {
        "attribute" | "member_expression" => member_name(callee, source).unwrap_or(""),
        "identifier" => text(callee, source),
        _ => "",
    }
}

/// A function or method that runs the SQL text it is given, by its name: any name holding
/// `query`, `exec` or `sql` (`execute`, `executemany`, `exec_driver_sql`, `$queryRaw`,
/// `$executeRaw`, `rawQuery`, `RunSQL`, `RawSQL`, `sql` tags), and the query methods of common
/// clients (`raw`, `prepare`, `run`, `all`, `get`, pg-promise's and slonik's `one`, `many`,
/// `any`, `none`, asyncpg's `fetch`, `fetchrow`, `fetchval`, SQLAlchemy's `text`).
fn is_sink(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "raw",
        "prepare",
        "run",
        "all",
        "get",
        "one",
        "many",
        "any",
        "none",
        "oneOrNone",
        "manyOrNone",
        "maybeOne",
        "oneFirst",
        "manyFirst",
        "anyFirst",
        "result",
        "unsafe",
        "fetch",
        "fetchrow",
        "fetchval",
        "mogrify",
        "text",
        "each",
        "iterate",
        "stream",
    ];
    let name = name.trim_start_matches('$').as_bytes();
    let holds =
        |word: &str| name.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word.as_bytes()));
    ["query", "exec", "sql"].iter().any(|w| holds(w))
        || EXACT.iter().any(|e| e.as_bytes().eq_ignore_ascii_case(name))
}

/// Follows a literal's value up through the expressions that keep it SQL (concatenation,
/// formatting, `await`, lists of statements, keyword arguments) to where it goes.
fn reach(node: Node<'_>, cx: &Context<'_>) -> Reach {
    let mut current = node;
    for _ in 0..12 {
        let Some(parent) = cx.parent(current) else { return Reach::Elsewhere };
        match parent.kind_name() {
            "concatenated_string"
            | "binary_operator"
            | "binary_expression"
            | "parenthesized_expression"
            | "template_substitution"
            | "template_string"
            | "await"
            | "await_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression"
            | "list"
            | "tuple"
            | "array"
            | "keyword_argument"
            | "conditional_expression"
            | "ternary_expression" => current = parent,
            // `"…".format(x)`, `"…".strip()`, `` `…`.trim() ``: the call's result is the text.
            "attribute" | "member_expression"
                if parent.field("object").map(|o| o.id()) == Some(current.id()) =>
            {
                let Some(call) = cx.parent(parent).filter(|c| {
                    matches!(c.kind_name(), "call" | "call_expression")
                        && c.field("function").map(|f| f.id()) == Some(parent.id())
                }) else {
                    return Reach::Elsewhere;
                };
                current = call;
            }
            "argument_list" | "arguments" => {
                let Some(call) = cx.parent(parent) else { return Reach::Elsewhere };
                let callee = call.field("function").or_else(|| call.field("constructor"));
                return match callee {
                    Some(callee) if is_sink(last_name(callee, cx.source)) => Reach::Executed,
                    Some(callee) if is_transparent(last_name(callee, cx.source)) => {
                        current = call;
                        continue;
                    }
                    _ => Reach::Elsewhere,
                };
            }
            // A tagged template: `` sql`…` ``, `` prisma.$queryRaw`…` ``, `` sql.type(T)`…` ``.
            "call_expression"
                if parent.field("arguments").map(|a| a.id()) == Some(current.id()) =>
            {
                let Some(tag) = parent.field("function") else { return Reach::Elsewhere };
                let tag = match tag.kind_name() {
                    "call_expression" => tag.field("function").and_then(|f| f.field("object")),
                    _ => Some(tag),
                };
                return match tag {
                    Some(tag) if is_sink(last_name(tag, cx.source)) => Reach::Executed,
                    _ => Reach::Elsewhere,
                };
            }
            "assignment" | "assignment_expression" | "augmented_assignment"
                if parent.field("right").map(|r| r.id()) == Some(current.id()) =>
            {
                return held(parent.field("left"), cx.source);
            }
            "variable_declarator"
                if parent.field("value").map(|v| v.id()) == Some(current.id()) =>
            {
                return held(parent.field("name"), cx.source);
            }
            "public_field_definition" | "field_definition"
                if parent.field("value").map(|v| v.id()) == Some(current.id()) =>
            {
                return held(parent.field("name").or_else(|| parent.field("property")), cx.source);
            }
            _ => return Reach::Elsewhere,
        }
    }
    Reach::Elsewhere
}

/// Functions whose result is their argument's text, reformatted: `dedent`, `cleandoc`, `trim`.
fn is_transparent(name: &str) -> bool {
    ["dedent", "cleandoc", "format", "strip", "trim", "str", "String"].contains(&name)
}

/// The name an assignment target gives: `q`, `self.q` and `this.q` (`q`).
fn held(target: Option<Node<'_>>, source: &str) -> Reach {
    let Some(target) = target else { return Reach::Elsewhere };
    let name = match target.kind_name() {
        "identifier" | "property_identifier" | "private_property_identifier" => {
            text(target, source)
        }
        "attribute" | "member_expression" => last_name(target, source),
        _ => "",
    };
    if name.is_empty() { Reach::Elsewhere } else { Reach::Held(name.to_owned()) }
}

/// The text of a literal with each interpolation replaced by [`HOLE`] and each escape sequence by
/// a space. `None` for anything that cannot hold SQL.
fn reassemble(node: Node<'_>, source: &str) -> Option<String> {
    let out = content(node, source);
    // The text itself must start with a statement keyword.
    starts_like_sql(&out).then_some(out)
}

/// The text of a literal with each interpolation replaced by [`HOLE`] and each escape sequence by
/// a space.
fn content(node: Node<'_>, source: &str) -> String {
    let mut out = String::new();
    let parts: Vec<Node<'_>> = if node.kind_name() == "concatenated_string" {
        let mut cursor = node.walk();
        node.named_children(&mut cursor).filter(|c| c.kind_name() == "string").collect()
    } else {
        vec![node]
    };
    for part in parts {
        let mut cursor = part.walk();
        for child in part.named_children(&mut cursor) {
            match child.kind_name() {
                "string_content" | "string_fragment" => out.push_str(text(child, source)),
                "escape_sequence" => out.push(' '),
                "interpolation" | "template_substitution" => out.push(HOLE),
                _ => {}
            }
        }
    }
    out
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
    ["SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH"]
        .iter()
        .any(|k| head.get(..k.len()).is_some_and(|h| h.eq_ignore_ascii_case(k)))
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    /// An interpolation (`f"{x}"`, `${x}` in a template literal).
    Hole,
    /// A placeholder written in the text: a bind parameter or a template slot (`?`, `%s`,
    /// `%(name)s`, `:name`, `$1`, `@name`, `{x}`, `{{ x }}`, `${x}`, `__X__`).
    Placeholder,
    Punct(char),
    Other,
}

/// What one SQL text names.
#[derive(Debug, Default, PartialEq, Eq)]
struct Scan {
    tables: Vec<(Option<String>, String, Access, &'static str)>,
    /// A table position held an interpolation.
    computed: bool,
    /// A table position held a placeholder written in the text.
    placeholder: bool,
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
            let word: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
            tokens.push(if is_template_word(&word) {
                Token::Placeholder
            } else {
                Token::Word(word)
            });
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
            if inner.contains(HOLE) {
                tokens.push(Token::Hole);
            } else if inner.contains('{') || is_template_word(&inner) {
                tokens.push(Token::Placeholder);
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
        } else if c == HOLE {
            i += 1;
            tokens.push(Token::Hole);
        } else if c == '?' {
            i += 1;
            tokens.push(Token::Placeholder);
        } else if c == '{' || (matches!(c, '$' | '#') && at(i + 1) == '{') {
            // `{x}`, `${x}`, `#{x}`, and `{{ x }}` read to its double close.
            if c != '{' {
                i += 1;
            }
            let double = at(i + 1) == '{';
            while i < chars.len() && !(at(i) == '}' && (!double || at(i + 1) == '}')) {
                i += 1;
            }
            i += if double { 2 } else { 1 };
            tokens.push(Token::Placeholder);
        } else if c == '%' && (at(i + 1) == '(' || at(i + 1).is_ascii_alphabetic()) {
            i += 1;
            if at(i) == '(' {
                while i < chars.len() && at(i) != ')' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            tokens.push(Token::Placeholder);
        } else if ((c == '$' || c == '@') && (at(i + 1).is_alphanumeric() || at(i + 1) == '_'))
            || (c == ':' && (at(i + 1).is_alphabetic() || at(i + 1) == '_'))
        {
            // `$1`, `@name`, `:name` (a `::type` cast starts with a second colon, not a letter).
            i += 1;
            while i < chars.len() && (at(i).is_alphanumeric() || at(i) == '_') {
                i += 1;
            }
            tokens.push(Token::Placeholder);
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
        // `WITH [RECURSIVE] name [(columns)] AS (`
        "WITH" => {
            let at = if word_is(tokens.get(1), "RECURSIVE") { 2 } else { 1 };
            cte_at(tokens, at).is_some()
        }
        _ => false,
    }
}

/// A word that is a template slot, not a name: `__TABLE__`.
fn is_template_word(word: &str) -> bool {
    word.len() > 4 && word.starts_with("__") && word.ends_with("__")
}

/// The name a common table expression defines at `start`: `name [(columns)] AS [NOT]
/// [MATERIALIZED] (`.
fn cte_at(tokens: &[Token], start: usize) -> Option<String> {
    let name = match tokens.get(start)? {
        Token::Word(w) if !is_keyword(w) => w.clone(),
        Token::Quoted(q) if !q.is_empty() => q.clone(),
        _ => return None,
    };
    let mut i = start + 1;
    if tokens.get(i) == Some(&Token::Punct('(')) {
        // A column list: names and commas only.
        i += 1;
        while let Some(token) = tokens.get(i) {
            match token {
                Token::Punct(')') => break,
                Token::Word(_) | Token::Quoted(_) | Token::Punct(',') => i += 1,
                _ => return None,
            }
        }
        i += 1;
    }
    if !word_is(tokens.get(i), "AS") {
        return None;
    }
    i += 1;
    if word_is(tokens.get(i), "NOT") {
        i += 1;
    }
    if word_is(tokens.get(i), "MATERIALIZED") {
        i += 1;
    }
    (tokens.get(i) == Some(&Token::Punct('('))).then_some(name)
}

/// Every common table expression the text defines: after `WITH`, `WITH RECURSIVE` or a comma.
fn cte_names(tokens: &[Token]) -> Vec<String> {
    (1..tokens.len())
        .filter(|&i| {
            let previous = tokens.get(i - 1);
            word_is(previous, "WITH")
                || word_is(previous, "RECURSIVE")
                || previous == Some(&Token::Punct(','))
        })
        .filter_map(|i| cte_at(tokens, i))
        .collect()
}

/// A database's own catalog rather than an application table: `information_schema.*`,
/// `pg_catalog.*` and any `pg_*` schema, `pg_*` relations without a schema (`pg_class`,
/// `pg_settings`), `sqlite_*` (`sqlite_master`, `sqlite_schema`, `sqlite_sequence`), `mysql.*`,
/// `performance_schema.*`, `sys.*`, ClickHouse's `system.*`, SQL Server's `sys*` compatibility
/// views (`sysobjects`, `syscolumns`), Oracle's dictionary views (`all_tables`, `user_tables`,
/// `dba_tables`, …) and `dual`.
fn is_system_catalog(schema: Option<&str>, table: &str) -> bool {
    const VIEWS: &[&str] = &[
        "sysobjects",
        "syscolumns",
        "sysindexes",
        "systypes",
        "sysusers",
        "sysdatabases",
        "syscomments",
        "all_tables",
        "all_tab_columns",
        "all_objects",
        "all_views",
        "all_constraints",
        "all_cons_columns",
        "all_indexes",
        "user_tables",
        "user_tab_columns",
        "user_objects",
        "user_views",
        "user_constraints",
        "user_cons_columns",
        "user_indexes",
        "user_sequences",
        "dba_tables",
        "dba_objects",
        "dual",
    ];
    let lower = table.to_ascii_lowercase();
    match schema.map(str::to_ascii_lowercase) {
        Some(schema) => {
            schema.starts_with("pg_")
                || ["information_schema", "mysql", "performance_schema", "sys", "system"]
                    .contains(&schema.as_str())
        }
        None => {
            lower.starts_with("pg_")
                || lower.starts_with("sqlite_")
                || VIEWS.contains(&lower.as_str())
        }
    }
}

fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

fn word_is(token: Option<&Token>, keyword: &str) -> bool {
    matches!(token, Some(Token::Word(w)) if w.eq_ignore_ascii_case(keyword))
}

/// What the raw-SQL reader makes of one SQL text, without the literal around it: `None` when the
/// text is not read as SQL, else each table it names as `(schema, table, access)` in order, and
/// whether a table position held an interpolation (`computed`) or a placeholder written in the text.
/// For the fuzz targets (`fuzz/`) and their regression tests; not a stable interface.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSqlScan {
    pub tables: Vec<(Option<String>, String, Access)>,
    pub computed: bool,
    pub placeholder: bool,
    pub open_end: bool,
}

/// Runs the tokenizer and the statement reader on `sql` (see [`RawSqlScan`]). An interpolation is
/// written as U+0001, as the literal's reassembly writes it.
#[doc(hidden)]
pub fn scan_raw_sql(sql: &str) -> Option<RawSqlScan> {
    scan(sql).map(|found| RawSqlScan {
        tables: found
            .tables
            .into_iter()
            .map(|(schema, table, access, _)| (schema, table, access))
            .collect(),
        computed: found.computed,
        placeholder: found.placeholder,
        open_end: found.open_end,
    })
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
            Token::Punct('(') => parens.push(
                ["SELECT", "WITH", "INSERT", "UPDATE", "DELETE"]
                    .iter()
                    .any(|k| word_is(tokens.get(i + 1), k)),
            ),
            Token::Punct(')') => {
                parens.pop();
            }
            Token::Word(w) if in_query => {
                let w = w.to_ascii_uppercase();
                match w.as_str() {
                    "FROM" if !word_is(previous, "DELETE") && !word_is(previous, "DISTINCT") => {
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
                    "UPDATE" if !["FOR", "DO", "KEY"].iter().any(|k| word_is(previous, k)) => {
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
    // A common table expression's name is the statement's own, not a table.
    let ctes = cte_names(&tokens);
    scan.tables
        .retain(|(s, t, _, _)| s.is_some() || !ctes.iter().any(|c| c.eq_ignore_ascii_case(t)));
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
            // A template slot (`__TABLE__`, `{table}`, `%s`, `<table>`) where the name should be.
            Some(Token::Placeholder | Token::Punct('<')) => {
                scan.placeholder = true;
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
    if is_system_catalog(schema.as_deref(), &table) {
        return (i, true);
    }
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
        scan.placeholder |= probe.placeholder;
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

    /// `refused`: a table position held an interpolation or a placeholder.
    fn check(sql: &str, expected: &[(&str, Access)], refused: bool) {
        let scan = scan(sql).unwrap_or_default();
        let got: Vec<(String, Access)> = scan
            .tables
            .iter()
            .map(|(s, t, a, _)| (s.as_ref().map_or(t.clone(), |s| format!("{s}.{t}")), *a))
            .collect();
        let want: Vec<(String, Access)> =
            expected.iter().map(|(t, a)| ((*t).to_owned(), *a)).collect();
        assert_eq!(got, want, "{sql}");
        assert_eq!(scan.computed || scan.placeholder, refused, "{sql}");
    }

    /// True when the text is SQL whose table position holds a placeholder written in the text.
    fn placeholder(sql: &str) -> bool {
        scan(sql).is_some_and(|s| s.placeholder && !s.computed && s.tables.is_empty())
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
    fn template_placeholders_are_refused_not_tables() {
        for sql in [
            "UPDATE __TABLE__ SET value = NULL WHERE value = 'null'",
            "SELECT * FROM {table} WHERE id = 1",
            "SELECT * FROM {{ table }} WHERE id = 1",
            "SELECT * FROM ${table}",
            "SELECT * FROM #{table}",
            "DELETE FROM %(table)s WHERE id = %(id)s",
            "DELETE FROM %s",
            "INSERT INTO :table (a) VALUES (:a)",
            "SELECT * FROM $1",
            "SELECT * FROM ?",
            "SELECT * FROM @target",
            "SELECT * FROM <table_name> WHERE id = 1",
            "SELECT * FROM \"__TABLE__\"",
            "SELECT * FROM public.__TABLE__",
            "SELECT * FROM public.{table}",
        ] {
            assert!(placeholder(sql), "{sql}");
        }
        // A placeholder elsewhere in the statement still leaves the real table.
        check("UPDATE xcom SET value = {value} WHERE key = ?", &[("xcom", Access::Write)], false);
        // An interpolation is computed, not a placeholder.
        let scan = scan("SELECT * FROM \u{1}").unwrap_or_default();
        assert!(scan.computed && !scan.placeholder);
    }

    #[test]
    fn system_catalogs_are_skipped_silently() {
        use Access::Read;
        for sql in [
            "SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_NAME = %s",
            "SELECT column_name FROM INFORMATION_SCHEMA.columns WHERE table_name = %s",
            "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace",
            "SELECT setting FROM pg_settings WHERE name = 'server_version_num'",
            "SELECT * FROM pg_catalog.pg_tables",
            "SELECT * FROM pg_toast.pg_toast_2619",
            "SELECT name FROM sqlite_master WHERE type = 'table'",
            "SELECT name FROM sqlite_schema",
            "DELETE FROM sqlite_sequence WHERE name = ?",
            "SELECT user FROM mysql.user",
            "SELECT * FROM performance_schema.threads",
            "SELECT name FROM sys.tables",
            "SELECT 1 FROM dual",
        ] {
            check(sql, &[], false);
        }
        // The list goes on after a catalog, and an application schema is not a catalog.
        check(
            "SELECT * FROM pg_locks l, jobs j JOIN public.pg_notes p ON p.id = j.id",
            &[("jobs", Read), ("public.pg_notes", Read)],
            false,
        );
    }

    #[test]
    fn common_table_expressions_are_not_tables() {
        use Access::{Read, Write};
        check(
            "WITH recent AS (SELECT id FROM orders WHERE created > now()) SELECT * FROM recent",
            &[("orders", Read)],
            false,
        );
        check(
            "WITH RECURSIVE tree (id, parent) AS (SELECT id, parent FROM nodes \
             UNION ALL SELECT n.id, n.parent FROM nodes n JOIN tree t ON n.parent = t.id), \
             leaves AS MATERIALIZED (SELECT id FROM tree) SELECT * FROM leaves JOIN tree USING (id)",
            &[("nodes", Read)],
            false,
        );
        check(
            "with moved as (delete from queue where done returning *) \
             insert into archive select * from moved",
            &[("queue", Write), ("archive", Write)],
            false,
        );
        check(
            "INSERT INTO totals WITH s AS (SELECT sum(x) AS x FROM items) SELECT x FROM s",
            &[("totals", Write), ("items", Read)],
            false,
        );
        // A schema-qualified name is never the CTE.
        check("WITH users AS (SELECT 1) SELECT * FROM auth.users", &[("auth.users", Read)], false);
        assert_eq!(scan("With the new release as (planned) we ship"), None);
    }

    #[test]
    fn set_returning_functions_are_not_tables() {
        use Access::Read;
        for sql in [
            "SELECT * FROM generate_series(1, 3)",
            "SELECT * FROM unnest(ARRAY[1, 2]) AS u(x)",
            "SELECT * FROM pg_catalog.generate_series(1, 3) g",
            "SELECT key, value FROM json_each(:doc)",
        ] {
            check(sql, &[], false);
        }
        check(
            "SELECT * FROM events e JOIN LATERAL unnest(e.tags) AS t(tag) ON true",
            &[("events", Read)],
            false,
        );
        check(
            "SELECT * FROM unnest(ARRAY(SELECT id FROM jobs)) AS j(id)",
            &[("jobs", Read)],
            false,
        );
    }

    #[test]
    fn comparison_and_upsert_keywords_are_not_table_positions() {
        use Access::{Read, Write};
        check("SELECT * FROM runs WHERE state IS DISTINCT FROM 'done'", &[("runs", Read)], false);
        check("SELECT * FROM runs WHERE a IS NOT DISTINCT FROM b", &[("runs", Read)], false);
        check(
            "INSERT INTO counters (k, n) VALUES (%s, 1) ON DUPLICATE KEY UPDATE n = n + 1",
            &[("counters", Write)],
            false,
        );
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
