//! A small scanner that recovers import and export statements from the text of an ERROR region.
//!
//! tree-sitter-typescript 0.23.2 cannot parse some current TypeScript (variance modifiers on type
//! parameters, generic call signatures, `accessor` fields, `export type * from`, …), and an error
//! can swallow the statements that follow it into one large ERROR node. The imports inside are
//! usually intact, so this scanner tokenises the region (skipping strings, template literals and
//! comments) and matches exactly these shapes, nothing looser:
//!
//! - `import "m"`, `import <clause> from "m"`, `import x = require("m")` (optionally `type`);
//! - `export * from "m"`, `export * as n from "m"`, `export {…} from "m"` (optionally `type`);
//! - `require("m")`, `import("m")` and `typeof import("m")` with one plain string argument.
//!
//! A keyword after `.` (`x.import`, `module.require`) is a property, not a statement or call.
//! Computed `require`/`import` calls inside a region are not refused here: the region already
//! counts as unanalysed in the file's syntax-error refusal.

use crate::ImportForm;

/// A statement found in a region; `offset` is the byte offset of its keyword within the region.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ScannedImport {
    pub(super) offset: usize,
    pub(super) specifier: String,
    pub(super) form: ImportForm,
    pub(super) type_only: bool,
}

/// The most tokens a braced specifier list may hold; a real list with more names is rare, and the
/// bound keeps a malformed region linear to scan.
const MAX_CLAUSE_TOKENS: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token<'a> {
    Word(&'a str),
    /// A single- or double-quoted string's content as written (escapes are kept).
    Str(&'a str),
    Punct(u8),
    /// A template literal or an unterminated string: never part of an import statement.
    Other,
}

/// Finds the import/export statements in `region`, in order.
pub(super) fn scan(region: &str) -> Vec<ScannedImport> {
    let tokens = tokenize(region);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (offset, token) = &tokens[i];
        let after_dot = i > 0 && tokens[i - 1].1 == Token::Punct(b'.');
        let matched = match token {
            Token::Word("import") if !after_dot && punct_at(&tokens, i + 1, b'(') => {
                let in_type = i > 0 && tokens[i - 1].1 == Token::Word("typeof");
                call(&tokens, i + 1, ImportForm::Dynamic, in_type)
            }
            Token::Word("require") if !after_dot => {
                call(&tokens, i + 1, ImportForm::Require, false)
            }
            Token::Word("import") if !after_dot => import_statement(&tokens, i + 1),
            Token::Word("export") if !after_dot => export_statement(&tokens, i + 1),
            _ => None,
        };
        match matched {
            Some((specifier, form, type_only, next)) => {
                found.push(ScannedImport {
                    offset: *offset,
                    specifier: specifier.to_owned(),
                    form,
                    type_only,
                });
                i = next;
            }
            None => i += 1,
        }
    }
    found
}

type Matched<'a> = (&'a str, ImportForm, bool, usize);

fn word_at<'a>(tokens: &[(usize, Token<'a>)], i: usize) -> Option<&'a str> {
    match tokens.get(i) {
        Some((_, Token::Word(w))) => Some(w),
        _ => None,
    }
}

fn str_at<'a>(tokens: &[(usize, Token<'a>)], i: usize) -> Option<&'a str> {
    match tokens.get(i) {
        Some((_, Token::Str(s))) => Some(s),
        _ => None,
    }
}

fn punct_at(tokens: &[(usize, Token<'_>)], i: usize, p: u8) -> bool {
    matches!(tokens.get(i), Some((_, Token::Punct(q))) if *q == p)
}

/// `("m")` or `("m", …)` after `require` or `import`; `typeof import("m")` is a type-level import.
fn call<'a>(
    tokens: &[(usize, Token<'a>)],
    j: usize,
    form: ImportForm,
    in_type: bool,
) -> Option<Matched<'a>> {
    if !punct_at(tokens, j, b'(') {
        return None;
    }
    let s = str_at(tokens, j + 1)?;
    // `import("m", { with: … })` takes options; `require` takes one argument.
    let with_options = form == ImportForm::Dynamic && punct_at(tokens, j + 2, b',');
    if !punct_at(tokens, j + 2, b')') && !with_options {
        return None;
    }
    if in_type {
        return Some((s, ImportForm::Static, true, j + 2));
    }
    Some((s, form, false, j + 2))
}

/// After `import`: a bare specifier, an import-require clause, or a clause and `from "m"`.
fn import_statement<'a>(tokens: &[(usize, Token<'a>)], mut j: usize) -> Option<Matched<'a>> {
    if let Some(s) = str_at(tokens, j) {
        return Some((s, ImportForm::Static, false, j + 1));
    }
    let mut type_only = false;
    if word_at(tokens, j) == Some("type") && is_type_modifier(tokens, j) {
        type_only = true;
        j += 1;
    }
    // `import x = require("m")`
    if word_at(tokens, j).is_some() && punct_at(tokens, j + 1, b'=') {
        let shape = word_at(tokens, j + 2) == Some("require")
            && punct_at(tokens, j + 3, b'(')
            && punct_at(tokens, j + 5, b')');
        let s = str_at(tokens, j + 4).filter(|_| shape)?;
        return Some((s, ImportForm::Static, type_only, j + 6));
    }
    // `import d from`, `import d, {…} from`, `import d, * as n from`, `import {…} from`,
    // `import * as n from`: a strict sequence, so a malformed clause cannot run on into the next
    // statement.
    let mut value_binding = false;
    let mut all_typed = false;
    let default_binding = match word_at(tokens, j) {
        Some("from") => word_at(tokens, j + 1) == Some("from"),
        Some(_) => true,
        None => false,
    };
    if default_binding {
        value_binding = true;
        j += 1;
        if !punct_at(tokens, j, b',') {
            return from_clause(tokens, j, ImportForm::Static, type_only);
        }
        j += 1;
    }
    if punct_at(tokens, j, b'*') {
        if word_at(tokens, j + 1) != Some("as") || word_at(tokens, j + 2).is_none() {
            return None;
        }
        value_binding = true;
        j += 3;
    } else if punct_at(tokens, j, b'{') {
        let (typed, next) = braced_specifiers(tokens, j)?;
        all_typed = typed;
        j = next;
    } else {
        return None;
    }
    from_clause(tokens, j, ImportForm::Static, type_only || (all_typed && !value_binding))
}

/// `from "m"` at `j`.
fn from_clause<'a>(
    tokens: &[(usize, Token<'a>)],
    j: usize,
    form: ImportForm,
    type_only: bool,
) -> Option<Matched<'a>> {
    if word_at(tokens, j) != Some("from") {
        return None;
    }
    let s = str_at(tokens, j + 1)?;
    Some((s, form, type_only, j + 2))
}

/// `{ a, b as c, type D, "e-f" as g }` starting at the `{` at `j`: whether every specifier is
/// `type`-qualified (and there is at least one), and the index after the `}`.
fn braced_specifiers(tokens: &[(usize, Token<'_>)], j: usize) -> Option<(bool, usize)> {
    let mut specifiers = Specifiers::default();
    let end = tokens.len().min(j + MAX_CLAUSE_TOKENS);
    let mut k = j + 1;
    loop {
        match tokens.get(k).filter(|_| k < end).map(|t| &t.1) {
            Some(Token::Punct(b'}')) => break,
            Some(Token::Punct(b',')) => specifiers.finish(),
            Some(token @ (Token::Word(_) | Token::Str(_))) => specifiers.push(token),
            _ => return None,
        }
        k += 1;
    }
    specifiers.finish();
    Some((specifiers.all_typed(), k + 1))
}

/// `import type X …`, `import type {…}`, `import type * as n …` — but `import type from "m"` and
/// `import type, {…} from "m"` bind a default import named `type`.
fn is_type_modifier(tokens: &[(usize, Token<'_>)], j: usize) -> bool {
    match tokens.get(j + 1) {
        Some((_, Token::Punct(b'{' | b'*'))) => true,
        Some((_, Token::Word("from"))) => str_at(tokens, j + 2).is_none(),
        Some((_, Token::Word(_))) => true,
        _ => false,
    }
}

/// After `export`: `[type] * [as n] from "m"` or `[type] {…} from "m"`.
fn export_statement<'a>(tokens: &[(usize, Token<'a>)], mut j: usize) -> Option<Matched<'a>> {
    let mut type_only = false;
    if word_at(tokens, j) == Some("type") {
        type_only = true;
        j += 1;
    }
    if punct_at(tokens, j, b'*') {
        j += 1;
        if word_at(tokens, j) == Some("as") {
            if word_at(tokens, j + 1).is_none() && str_at(tokens, j + 1).is_none() {
                return None;
            }
            j += 2;
        }
    } else if punct_at(tokens, j, b'{') {
        let (all_typed, next) = braced_specifiers(tokens, j)?;
        type_only |= all_typed;
        j = next;
    } else {
        return None;
    }
    from_clause(tokens, j, ImportForm::ReExport, type_only)
}

/// Counts braced specifiers by whether they carry a `type` modifier.
#[derive(Default)]
struct Specifiers<'t> {
    current: Vec<&'t str>,
    typed: usize,
    untyped: usize,
}

impl<'t> Specifiers<'t> {
    fn push(&mut self, token: &Token<'t>) {
        match token {
            Token::Word(w) => self.current.push(w),
            // A string name (`"a-b" as ab`) is never the `type` modifier.
            _ => self.current.push("\""),
        }
    }

    fn finish(&mut self) {
        let typed = match self.current.as_slice() {
            [] => {
                return;
            }
            // `type as x` imports a binding named `type`, renamed.
            ["type", "as", _] => false,
            ["type", _, ..] => true,
            _ => false,
        };
        if typed {
            self.typed += 1;
        } else {
            self.untyped += 1;
        }
        self.current.clear();
    }

    fn all_typed(&self) -> bool {
        self.typed > 0 && self.untyped == 0
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Splits `text` into words, strings and punctuation, skipping whitespace and comments. Every
/// boundary is at an ASCII byte, so every slice is on a character boundary.
fn tokenize(text: &str) -> Vec<(usize, Token<'_>)> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = bytes[i..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |p| i + p);
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |p| p + 2);
        } else if b == b'"' || b == b'\'' {
            let (end, closed) = string_end(bytes, i + 1, b);
            let token = match text.get(i + 1..end) {
                Some(content) if closed => Token::Str(content),
                _ => Token::Other,
            };
            tokens.push((start, token));
            i = if closed { end + 1 } else { end };
        } else if b == b'`' {
            let (end, _) = string_end(bytes, i + 1, b'`');
            tokens.push((start, Token::Other));
            i = end + 1;
        } else if is_word_byte(b) {
            while i < bytes.len() && is_word_byte(bytes[i]) {
                i += 1;
            }
            tokens.push((start, text.get(start..i).map_or(Token::Other, Token::Word)));
        } else {
            tokens.push((start, Token::Punct(b)));
            i += 1;
        }
    }
    tokens
}

/// The index of the closing `quote` at or after `from`, and whether it was found. A newline ends
/// an unterminated single- or double-quoted string; a template literal may span lines.
fn string_end(bytes: &[u8], from: usize, quote: u8) -> (usize, bool) {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' if quote != b'`' => return (i, false),
            c if c == quote => return (i, true),
            _ => i += 1,
        }
    }
    (bytes.len(), false)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(region: &str, expected: &[(usize, &str, ImportForm, bool)]) {
        let got: Vec<_> = scan(region)
            .into_iter()
            .map(|s| (s.offset, s.specifier, s.form, s.type_only))
            .collect();
        let expected: Vec<_> =
            expected.iter().map(|&(o, s, f, t)| (o, s.to_owned(), f, t)).collect();
        assert_eq!(got, expected, "region: {region}");
    }

    use ImportForm::{Dynamic, ReExport, Require, Static};

    #[test]
    fn recognises_each_shape() {
        check(r#"import "m""#, &[(0, "m", Static, false)]);
        check(r#"import x from 'm'"#, &[(0, "m", Static, false)]);
        check(r#"import x, {a as b, "c-d" as e} from "m""#, &[(0, "m", Static, false)]);
        check(r#"import * as n from "m""#, &[(0, "m", Static, false)]);
        check(r#"import type {A} from "m""#, &[(0, "m", Static, true)]);
        check(r#"import type X from "m""#, &[(0, "m", Static, true)]);
        check(r#"import {type A, type B as C} from "m""#, &[(0, "m", Static, true)]);
        check(r#"import {type A, B} from "m""#, &[(0, "m", Static, false)]);
        check(r#"import {type as x} from "m""#, &[(0, "m", Static, false)]);
        check(r#"import type from "m""#, &[(0, "m", Static, false)]);
        check(r#"import type, {a} from "m""#, &[(0, "m", Static, false)]);
        check(r#"import from from "m""#, &[(0, "m", Static, false)]);
        check(r#"import x = require("m")"#, &[(0, "m", Static, false)]);
        check(r#"import type x = require("m")"#, &[(0, "m", Static, true)]);
        check(r#"export * from "m""#, &[(0, "m", ReExport, false)]);
        check(r#"export * as n from "m""#, &[(0, "m", ReExport, false)]);
        check(r#"export {a, b as c} from "m""#, &[(0, "m", ReExport, false)]);
        check(r#"export type * from "m""#, &[(0, "m", ReExport, true)]);
        check(r#"export type {A} from "m""#, &[(0, "m", ReExport, true)]);
        check(r#"export {type A} from "m""#, &[(0, "m", ReExport, true)]);
        check(r#"require("m")"#, &[(0, "m", Require, false)]);
        check(r#"x = import("m")"#, &[(4, "m", Dynamic, false)]);
        check(r#"import("m", {with: {}})"#, &[(0, "m", Dynamic, false)]);
        check(r#"let x: typeof import("m")"#, &[(14, "m", Static, true)]);
    }

    #[test]
    fn refuses_what_is_not_a_static_import() {
        check(r#"export {a}"#, &[]);
        check(r#"export const x = "m""#, &[]);
        check(r#"import(m)"#, &[]);
        check(r#"require("m" + x)"#, &[]);
        check(r#"module.require("m")"#, &[]);
        check(r#"x.import "m""#, &[]);
        check(r#"import.meta"#, &[]);
        check(r#"import x"#, &[]);
        check(r#"import x = y"#, &[]);
        check(r#"import x from y"#, &[]);
        check(r#"import {a from "m""#, &[]);
        check(r#"import x from `m`"#, &[]);
        check("import x from y\nimport z from \"q\"", &[(16, "q", Static, false)]);
        check(r#"import * from "m""#, &[]);
        check(r#"import a b from "m""#, &[]);
    }

    #[test]
    fn skips_strings_and_comments_and_reports_offsets() {
        check(
            concat!(
                "f( {\n// import a from \"no\"\n",
                "/* export * from \"no\" */ s = 'import b from \"no\"'\n",
                "import c from \"c\"\n}\nexport type * from \"e\"",
            ),
            &[(77, "c", Static, false), (97, "e", ReExport, true)],
        );
        check("`import a from \"no\"` import b from \"b\"", &[(21, "b", Static, false)]);
        check("'unterminated\nimport b from \"b\"", &[(14, "b", Static, false)]);
        check("import é from \"é\"", &[(0, "é", Static, false)]);
    }
}
