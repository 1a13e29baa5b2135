//! Vue single-file components (`.vue`) and Svelte components (`.svelte`): their `<script>` blocks
//! are TypeScript or JavaScript source, read like any `.ts` or `.js` file.
//!
//! A component is not parsed as markup. [`ScriptBlocks::of`] finds its script blocks with a small
//! scanner and builds a *masked* text of the same byte length in which every byte outside the
//! blocks' contents is a space (newlines kept), so the TypeScript or JavaScript grammar parses the
//! scripts in place and every fact keeps the line and column of the original file; several blocks
//! (`<script>` beside `<script setup>` in Vue, `<script context="module">` or `<script module>`
//! beside the instance script in Svelte) are all kept. The first byte of each closing tag becomes
//! `;`, so a block that ends without one cannot run into the next.
//!
//! The scanner reads, outside script blocks: HTML comments (skipped), `<style>` (skipped to its
//! close), and in Vue every other top-level block — `<template>` (nested `<template>` tags
//! counted) and custom blocks such as `<i18n>` — skipped to its close, so template content is
//! never parsed as script; in Svelte `<svelte:head>` (whose scripts belong to the page, not the
//! component) is skipped, and any other markup is scanned for script tags. Quoted attribute
//! values may hold `>` (`generic="T extends Record<string, number>"`).
//!
//! A block's grammar comes from its `lang` attribute: `ts` or `typescript` → TypeScript, `tsx` →
//! TSX, none, `js`, `javascript` or `jsx` → JavaScript. When blocks differ, the widest wins (TSX,
//! then TypeScript, which parse JavaScript too); the facts and the module count as that grammar's
//! language, a component without a script block as JavaScript (the default `lang`). A block with
//! a `type` that is not a script type (`application/ld+json`, `text/x-template`) is data and is
//! left out; a block with another `lang` (`coffee`) and a `<script` tag that is never closed are
//! refused (`syntax-errors`, nothing after the tag is read); nothing panics on any input.
//!
//! An external script, `<script src="./logic.ts">`, is a static import of its `src` (a URL with a
//! scheme or `//` is not a file of the tree and is left out), at the tag's position.
//!
//! Example: in a `.vue` file whose `<template>` fills lines 1–3 and whose line 4 is
//! `<script setup lang="ts">`, an `import { api } from "./api"` on line 5 is an import fact at line
//! 5, column 1, parsed by the TypeScript grammar.

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};

use crate::{FileFacts, Grammar, ImportFact, ImportForm, ImportTarget, JsImport};

/// A component format whose script blocks Cartograph reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    /// Vue single-file components: `<template>`, `<script>`, `<script setup>`, `<style>`, custom
    /// blocks, each at the top level.
    Vue,
    /// Svelte components: `<script>`, `<script context="module">`, markup and `<style>`.
    Svelte,
}

/// The scripts of one component, ready to parse.
pub(crate) struct ScriptBlocks {
    /// The component's text with everything but the blocks' contents blanked: same length, same
    /// lines and columns.
    pub masked: String,
    /// The grammar that parses every block.
    pub grammar: Grammar,
    /// How many blocks were kept.
    pub blocks: usize,
    /// `<script src="…">` imports, in source order.
    external: Vec<(u32, u32, String)>,
    /// Blocks refused, by position of their tag.
    refused: Vec<(u32, u32, &'static str)>,
}

/// The language of one block, from its attributes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum BlockLanguage {
    JavaScript,
    TypeScript,
    Tsx,
}

impl ScriptBlocks {
    /// Finds the script blocks of `text`, a component of the `component` format.
    pub(crate) fn of(component: Component, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut kept: Vec<(usize, usize)> = Vec::new();
        let mut widest = BlockLanguage::JavaScript;
        let mut external = Vec::new();
        let mut refused = Vec::new();
        let mut at = 0;
        while let Some(open) = find_byte(bytes, at, b'<') {
            at = open + 1;
            if bytes[open..].starts_with(b"<!--") {
                at = find(bytes, open + 4, b"-->").map_or(bytes.len(), |end| end + 3);
                continue;
            }
            let Some(name_end) = tag_name_end(bytes, open + 1) else {
                continue;
            };
            // Element names are matched as written: `<Script>` in Svelte is a component.
            let name = &text[open + 1..name_end];
            match (name, component) {
                ("script", _) => {
                    let (line, column) = line_column(bytes, open);
                    let Some(tag_end) = tag_end(bytes, name_end) else {
                        refused.push((line, column, "a script tag is never closed"));
                        break;
                    };
                    let attributes = Attributes::parse(&text[name_end..tag_end]);
                    if let Some(src) = attributes.get("src").filter(|s| is_local_script(s)) {
                        external.push((line, column, src.to_owned()));
                    }
                    at = tag_end + 1;
                    if bytes[tag_end - 1] == b'/' {
                        continue;
                    }
                    let Some(close) = find_ignore_case(bytes, at, b"</script") else {
                        refused.push((line, column, "a script block is never closed"));
                        break;
                    };
                    let content = (at, close);
                    at = close + 1;
                    if !attributes.get("type").is_none_or(is_script_type) {
                        continue;
                    }
                    match attributes.get("lang").map_or(Some(BlockLanguage::JavaScript), lang) {
                        Some(language) => {
                            widest = widest.max(language);
                            kept.push(content);
                        }
                        None => refused.push((
                            line,
                            column,
                            "a script block in a language other than TypeScript or JavaScript \
                             was not read",
                        )),
                    }
                }
                ("style", _) | ("svelte:head", Component::Svelte) => {
                    at = skip_element(bytes, name_end, name.as_bytes(), false);
                }
                ("template", Component::Vue) => {
                    at = skip_element(bytes, name_end, b"template", true);
                }
                // Any other top-level Vue block is a custom block (`<i18n>`, `<docs>`): its
                // content is not script.
                (_, Component::Vue) => {
                    at = skip_element(bytes, name_end, name.as_bytes(), false);
                }
                (_, Component::Svelte) => at = name_end,
            }
        }
        let mut masked: Vec<u8> =
            bytes.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }).collect();
        for &(start, end) in &kept {
            masked[start..end].copy_from_slice(&bytes[start..end]);
            if end < masked.len() {
                masked[end] = b';';
            }
        }
        // Kept ranges start and end at ASCII bytes of the original text, and every other byte is
        // ASCII, so the masked text is UTF-8; the lossy fallback is never taken.
        let masked = String::from_utf8(masked)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
        let grammar = match widest {
            BlockLanguage::JavaScript => Grammar::JavaScript,
            BlockLanguage::TypeScript => Grammar::TypeScript,
            BlockLanguage::Tsx => Grammar::Tsx,
        };
        Self { masked, grammar, blocks: kept.len(), external, refused }
    }

    /// Adds the external scripts and the refused blocks to the facts extracted from the blocks.
    pub(crate) fn add_to(self, path: &RepoPath, facts: &mut FileFacts) {
        if !self.external.is_empty() {
            for (line, column, specifier) in self.external {
                facts.imports.push(ImportFact {
                    line,
                    column,
                    type_only: false,
                    target: ImportTarget::Js(JsImport { specifier, form: ImportForm::Static }),
                    bindings: Vec::new(),
                });
            }
            facts.imports.sort_by_key(|import| (import.line, import.column));
        }
        for (line, column, reason) in self.refused {
            facts.refusals.push(Refusal::new(
                RefusalKind::SyntaxErrors,
                SourceLocation::new(path.clone(), line, column),
                reason,
            ));
        }
    }
}

/// The block language a `lang` attribute names, `None` for one Cartograph does not read.
fn lang(value: &str) -> Option<BlockLanguage> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "js" | "javascript" | "jsx" => Some(BlockLanguage::JavaScript),
        "ts" | "typescript" => Some(BlockLanguage::TypeScript),
        "tsx" => Some(BlockLanguage::Tsx),
        _ => None,
    }
}

/// True for a `type` attribute that makes a script element run as script.
fn is_script_type(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "" | "module"
            | "text/javascript"
            | "application/javascript"
            | "text/ecmascript"
            | "application/ecmascript"
            | "text/typescript"
            | "application/typescript"
    )
}

/// True for a `src` that names a file of the tree rather than a URL.
fn is_local_script(src: &str) -> bool {
    let src = src.trim();
    !src.is_empty() && !src.contains("://") && !src.starts_with("//") && !src.starts_with("data:")
}

/// A start tag's attributes, as written (values unquoted; a bare name has an empty value).
struct Attributes<'t> {
    pairs: Vec<(&'t str, &'t str)>,
}

impl<'t> Attributes<'t> {
    /// Parses the text between a tag's name and its closing `>`.
    fn parse(inner: &'t str) -> Self {
        let bytes = inner.as_bytes();
        let mut pairs = Vec::new();
        let mut at = 0;
        loop {
            while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
                at += 1;
            }
            if at >= bytes.len() {
                break;
            }
            let name_start = at;
            while at < bytes.len()
                && !bytes[at].is_ascii_whitespace()
                && !matches!(bytes[at], b'=' | b'/' | b'>')
            {
                at += 1;
            }
            let name = &inner[name_start..at];
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            let mut value = "";
            if at < bytes.len() && bytes[at] == b'=' {
                at += 1;
                while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                    at += 1;
                }
                if at < bytes.len() && matches!(bytes[at], b'"' | b'\'') {
                    let quote = bytes[at];
                    let start = at + 1;
                    let end = find_byte(bytes, start, quote).unwrap_or(bytes.len());
                    value = &inner[start..end];
                    at = end + 1;
                } else {
                    let start = at;
                    while at < bytes.len() && !bytes[at].is_ascii_whitespace() {
                        at += 1;
                    }
                    value = &inner[start..at];
                }
            }
            if name.is_empty() {
                // A stray `=` or `/`: step over it so the loop always advances.
                at += 1;
                continue;
            }
            pairs.push((name, value));
        }
        Self { pairs }
    }

    /// The value of the first attribute named `name` (ASCII case-insensitive).
    fn get(&self, name: &str) -> Option<&'t str> {
        self.pairs.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }
}

/// The end of a tag name that starts at `from` (just after `<`): ASCII letters first, then
/// letters, digits, `-`, `:` and `.`, and the name must end where a tag's name ends.
fn tag_name_end(bytes: &[u8], from: usize) -> Option<usize> {
    if !bytes.get(from)?.is_ascii_alphabetic() {
        return None;
    }
    let mut at = from + 1;
    while at < bytes.len()
        && (bytes[at].is_ascii_alphanumeric() || matches!(bytes[at], b'-' | b':' | b'.'))
    {
        at += 1;
    }
    match bytes.get(at) {
        None => Some(at),
        Some(b) if b.is_ascii_whitespace() || matches!(b, b'>' | b'/') => Some(at),
        Some(_) => None,
    }
}

/// The index of the `>` that ends a start tag whose attributes start at `from`, skipping quoted
/// values; `None` when the tag never ends.
fn tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if matches!(b, b'"' | b'\'') => quote = Some(b),
            None if b == b'>' => return Some(i),
            None => {}
        }
    }
    None
}

/// Where scanning resumes after the element `name` whose start tag's attributes begin at `from`:
/// after its closing tag, counting nested elements of the same name when `nests`; the end of the
/// text when it is never closed.
fn skip_element(bytes: &[u8], from: usize, name: &[u8], nests: bool) -> usize {
    let Some(tag_end) = tag_end(bytes, from) else { return bytes.len() };
    if bytes[tag_end - 1] == b'/' {
        return tag_end + 1;
    }
    let mut close = b"</".to_vec();
    close.extend_from_slice(name);
    let mut open = b"<".to_vec();
    open.extend_from_slice(name);
    let mut depth = 1usize;
    let mut at = tag_end + 1;
    loop {
        let Some(next_close) = find_tag(bytes, at, &close) else { return bytes.len() };
        let next_open = if nests { find_tag(bytes, at, &open) } else { None };
        match next_open {
            Some(inner) if inner < next_close => {
                depth += 1;
                at = inner + open.len();
            }
            _ => {
                depth -= 1;
                at = next_close + close.len();
                if depth == 0 {
                    return find_byte(bytes, at, b'>').map_or(bytes.len(), |end| end + 1);
                }
            }
        }
    }
}

/// The next occurrence at or after `from` of `<name` or `</name` (`pattern`, ASCII
/// case-insensitive) followed by the end of a tag name.
fn find_tag(bytes: &[u8], from: usize, pattern: &[u8]) -> Option<usize> {
    let mut at = from;
    loop {
        let found = find_ignore_case(bytes, at, pattern)?;
        let after = found + pattern.len();
        match bytes.get(after) {
            None => return Some(found),
            Some(b) if b.is_ascii_whitespace() || matches!(b, b'>' | b'/') => return Some(found),
            Some(_) => at = found + 1,
        }
    }
}

fn find_byte(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
    bytes.get(from..)?.iter().position(|&b| b == byte).map(|i| from + i)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|i| from + i)
}

fn find_ignore_case(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|i| from + i)
}

/// 1-based line and byte column of `offset`.
fn line_column(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (to_u32(line), to_u32(column))
}

#[cfg(test)]
mod tests;
