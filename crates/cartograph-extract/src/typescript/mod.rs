//! TypeScript and JavaScript import extraction (`.ts`, `.tsx`, `.js`, `.jsx`, `.mjs`, `.cjs`, …).
//!
//! Recognises, anywhere in a file (nested scopes included), in source order:
//!
//! - `import x from "m"`, `import {a} from "m"`, `import * as n from "m"`, `import "m"` —
//!   [`ImportForm::Static`];
//! - `import x = require("m")` and `export import x = require("m")` — `Static` too: TypeScript
//!   treats the import-require clause as a static import declaration, not a call;
//! - `export {a} from "m"`, `export * from "m"`, `export * as n from "m"` —
//!   [`ImportForm::ReExport`];
//! - `require("m")` — [`ImportForm::Require`]; `import("m")` — [`ImportForm::Dynamic`];
//! - `typeof import("m")` / `import("m").T` in a type position — `Static`, type-only.
//!
//! `import type …`, `export type …`, and `import {type A, type B} from "m"` (every specifier
//! type-qualified, no default or namespace binding) are marked type-only.
//!
//! Refuses (records a `dynamic-import` refusal for) `require(expr)` and `import(expr)` whose
//! argument is not a plain string literal. Member calls (`module.require("x")`,
//! `require.resolve("x")`) are not imports. A local binding named `require` is not tracked: a call
//! to it is still taken as a `require` (the common `const require = createRequire(…)` makes that
//! the right answer).
//!
//! Example: `export type * from "./a"` yields one type-only re-export of `./a`, although the
//! TypeScript grammar (0.23.2) wraps its `type` keyword in an ERROR node. Statements swallowed by
//! larger ERROR regions are recovered by the scanner in [`error_scan`].
//!
//! The walk is iterative (a `TreeCursor`), so no nesting depth can overflow the stack.

mod error_scan;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use tree_sitter::{Node, Tree};

use crate::syntax::FieldExt;
use crate::syntax::{literal_string, position, text};
use crate::{Binding, FileFacts, ImportFact, ImportForm, ImportTarget, Imported, JsImport};

/// Extracts the imports of one TS/JS file into `facts`, with refusals for computed ones.
/// True when the file's imports are all statements: static imports and re-exports, which are
/// statements of the program (or of a namespace or ambient module). `require` and `import()` are
/// calls that can sit in any expression. Without their words in the file, and without error
/// regions to scan, the import walk stays on statements and skips the expressions, which are
/// most of a tree's nodes; the recognisers' walk can then read them on its way
/// ([`statement`]).
pub(crate) fn statements_only(tree: &Tree, source: &str) -> bool {
    !tree.root_node().has_error()
        && !source.contains("require(")
        && !source.contains("require (")
        && !source.contains("import(")
        && !source.contains("import (")
}

/// An import or export statement met by the recognisers' walk of a file whose imports are all
/// statements ([`statements_only`]), with the nodes from the root down to it (it last): read as
/// [`extract`] reads it when it reaches it (through statements only).
pub(crate) fn statement(
    node: Node<'_>,
    ancestry: &[Node<'_>],
    source: &str,
    facts: &mut FileFacts,
) {
    let above = &ancestry[..ancestry.len().saturating_sub(1)];
    if !above.iter().all(|a| holds_statements(a.kind())) {
        return;
    }
    let mut walk = Walk::new(source);
    match node.kind() {
        "import_statement" => walk.import_statement(node),
        "export_statement" => walk.export_statement(node),
        _ => return,
    }
    push_found(walk.found, facts);
}

fn push_found(mut found: Vec<Found>, facts: &mut FileFacts) {
    found.sort_by_key(|f| f.offset);
    for found in found {
        facts.imports.push(ImportFact {
            line: found.line,
            column: found.column,
            type_only: found.type_only,
            target: ImportTarget::Js(JsImport { specifier: found.specifier, form: found.form }),
            bindings: found.bindings,
        });
    }
}

pub(crate) fn extract(path: &RepoPath, tree: &Tree, source: &str, facts: &mut FileFacts) {
    let root = tree.root_node();
    let mut walk = Walk::new(source);
    walk.statements_only = statements_only(tree, source);
    walk.run(root);
    if root.has_error() {
        walk.scan_error_regions();
    }
    push_found(walk.found, facts);
    walk.refused.sort_by_key(|r| r.offset);
    for refused in walk.refused {
        facts.refusals.push(Refusal::new(
            RefusalKind::DynamicImport,
            SourceLocation::new(path.clone(), refused.line, refused.column),
            refused.reason,
        ));
    }
}

/// An import found in the tree or by the error-region scanner, keyed by its byte offset.
struct Found {
    offset: usize,
    line: u32,
    column: u32,
    specifier: String,
    form: ImportForm,
    type_only: bool,
    /// Local names the import binds (filled for static imports and `require` assignments).
    bindings: Vec<Binding>,
}

/// A computed import, to become a refusal.
struct Refused {
    offset: usize,
    line: u32,
    column: u32,
    reason: &'static str,
}

struct Walk<'s, 't> {
    source: &'s str,
    found: Vec<Found>,
    refused: Vec<Refused>,
    /// Start bytes of the import statements and calls the tree yielded; the error scanner skips
    /// them.
    statements: HashSet<usize>,
    /// ERROR nodes that are not inside another ERROR node, in source order.
    error_regions: Vec<Node<'t>>,
    /// Descend only into nodes that can hold statements (see [`holds_statements`]).
    statements_only: bool,
}

/// Node kinds that can hold an import or export statement below them without an expression in
/// between: the program, namespaces and ambient modules (`declare module "x" { … }`).
fn holds_statements(kind: &str) -> bool {
    matches!(
        kind,
        "program"
            | "statement_block"
            | "ambient_declaration"
            | "module"
            | "internal_module"
            | "expression_statement"
            | "export_statement"
    )
}

/// Node kinds whose subtree is a type, where `import("m")` is a type-level import.
fn is_type_context(kind: &str) -> bool {
    matches!(
        kind,
        "type_annotation"
            | "opting_type_annotation"
            | "omitting_type_annotation"
            | "asserts_annotation"
            | "type_alias_declaration"
            | "interface_declaration"
            | "type_arguments"
            | "type_parameters"
            | "type_query"
            | "implements_clause"
            | "extends_type_clause"
    )
}

impl<'s, 't> Walk<'s, 't> {
    fn new(source: &'s str) -> Self {
        Self {
            source,
            found: Vec::new(),
            refused: Vec::new(),
            statements: HashSet::new(),
            error_regions: Vec::new(),
            statements_only: false,
        }
    }

    /// Visits every node in pre-order with one cursor.
    fn run(&mut self, root: Node<'t>) {
        let mut cursor = root.walk();
        // End bytes of the enclosing type contexts; a node is in a type while this is non-empty.
        let mut type_ends: Vec<usize> = Vec::new();
        let mut last_error_end = 0usize;
        'walk: loop {
            let node = cursor.node();
            let start = node.start_byte();
            while type_ends.last().is_some_and(|&end| end <= start) {
                type_ends.pop();
            }
            let mut descend = true;
            match node.kind() {
                "import_statement" if node.is_named() => self.import_statement(node),
                "export_statement" if node.is_named() => self.export_statement(node),
                "call_expression" => self.call(node, !type_ends.is_empty()),
                "string" | "comment" => descend = false,
                // Only outermost regions are scanned; a nested one lies inside the last.
                _ if node.is_error()
                    && (self.error_regions.is_empty() || start >= last_error_end) =>
                {
                    self.error_regions.push(node);
                    last_error_end = node.end_byte();
                }
                kind if self.statements_only && !holds_statements(kind) => descend = false,
                kind if is_type_context(kind) => type_ends.push(node.end_byte()),
                _ => {}
            }
            if !crate::syntax::advance(&mut cursor, descend) {
                break 'walk;
            }
        }
    }

    fn push(&mut self, node: Node<'_>, specifier: String, form: ImportForm, type_only: bool) {
        self.push_binding(node, specifier, form, type_only, Vec::new());
    }

    fn push_binding(
        &mut self,
        node: Node<'_>,
        specifier: String,
        form: ImportForm,
        type_only: bool,
        bindings: Vec<Binding>,
    ) {
        let (line, column) = position(node);
        self.found.push(Found {
            offset: node.start_byte(),
            line,
            column,
            specifier,
            form,
            type_only,
            bindings,
        });
    }

    fn refuse(&mut self, node: Node<'_>, reason: &'static str) {
        let (line, column) = position(node);
        self.refused.push(Refused { offset: node.start_byte(), line, column, reason });
    }

    /// `import … from "m"`, `import "m"`, `import x = require("m")`.
    fn import_statement(&mut self, node: Node<'_>) {
        let mut type_keyword = false;
        let mut clause = None;
        let mut source = node.field("source");
        let mut bindings = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "type" if !child.is_named() => type_keyword = true,
                "import_clause" => clause = Some(child),
                "import_require_clause" if source.is_none() => {
                    source = child.field("source");
                    bindings.extend(require_clause_binding(child, self.source));
                }
                _ => {}
            }
        }
        if let Some(clause) = clause {
            bindings.extend(import_clause_bindings(clause, self.source));
        }
        // A statement cut short by a syntax error has no source: nothing sound to record.
        let Some(specifier) = source.and_then(|s| literal_string(s, self.source)) else {
            return;
        };
        let type_only = type_keyword || clause.is_some_and(every_import_specifier_is_typed);
        self.statements.insert(node.start_byte());
        self.push_binding(node, specifier, ImportForm::Static, type_only, bindings);
    }

    /// `export … from "m"`, and the `export import x = require("m")` form the grammar misparses.
    fn export_statement(&mut self, node: Node<'_>) {
        let Some(source) = node.field("source") else {
            self.export_import_require(node);
            return;
        };
        let Some(specifier) = literal_string(source, self.source) else {
            return;
        };
        let mut type_only = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "type" if !child.is_named() => type_only = true,
                // tree-sitter-typescript 0.23.2 does not know `export type * from "m"` and wraps
                // the `type` keyword alone in an ERROR node inside an otherwise sound statement.
                _ if child.is_error() && text(child, self.source).trim() == "type" => {
                    type_only = true;
                }
                "export_clause" if every_export_specifier_is_typed(child) => type_only = true,
                _ => {}
            }
        }
        self.statements.insert(node.start_byte());
        self.push(node, specifier, ImportForm::ReExport, type_only);
    }

    /// The grammar parses `export import x = require("m");` as `export import x = require` (with a
    /// missing `;`) followed by the expression statement `("m");`. Recognise exactly that shape.
    fn export_import_require(&mut self, node: Node<'_>) {
        let Some(alias) = node.field("declaration") else {
            return;
        };
        if alias.kind() != "import_alias" {
            return;
        }
        let mut cursor = alias.walk();
        let Some(last) = alias.named_children(&mut cursor).last() else {
            return;
        };
        if last.kind() != "identifier" || text(last, self.source) != "require" {
            return;
        }
        let Some(next) = node.next_named_sibling() else {
            return;
        };
        let Some(paren) = next.named_child(0).filter(|_| next.kind() == "expression_statement")
        else {
            return;
        };
        if paren.kind() != "parenthesized_expression" || paren.named_child_count() != 1 {
            return;
        }
        let Some(specifier) = paren.named_child(0).and_then(|s| literal_string(s, self.source))
        else {
            return;
        };
        // The alias is `x = require`: its first named child is the bound name.
        let bindings = alias
            .named_child(0)
            .filter(|n| n.kind() == "identifier")
            .map(|n| Binding {
                local: text(n, self.source).to_string(),
                imported: Imported::Module,
            })
            .into_iter()
            .collect();
        self.statements.insert(node.start_byte());
        self.push_binding(node, specifier, ImportForm::Static, false, bindings);
    }

    /// `require("m")`, `import("m")`, and their computed forms.
    fn call(&mut self, node: Node<'_>, in_type: bool) {
        let Some(function) = node.field("function") else {
            return;
        };
        let form = match function.kind() {
            "import" => ImportForm::Dynamic,
            "identifier" if text(function, self.source) == "require" => ImportForm::Require,
            _ => return,
        };
        // A tagged template (require`m`) has a template string, not arguments, here.
        let Some(arguments) = node.field("arguments") else {
            return;
        };
        if arguments.kind() != "arguments" {
            return;
        }
        let mut cursor = arguments.walk();
        let first = arguments.named_children(&mut cursor).find(|a| a.kind() != "comment");
        // `require()` with no argument loads nothing; it is not an import.
        let Some(first) = first else {
            return;
        };
        match literal_string(first, self.source) {
            // `typeof import("m")` is resolved by the compiler and never runs.
            Some(specifier) if in_type && form == ImportForm::Dynamic => {
                self.statements.insert(node.start_byte());
                self.push(node, specifier, ImportForm::Static, true);
            }
            Some(specifier) => {
                self.statements.insert(node.start_byte());
                let bindings = if form == ImportForm::Require {
                    require_bindings(node, self.source)
                } else {
                    Vec::new()
                };
                self.push_binding(node, specifier, form, false, bindings);
            }
            None if in_type => {}
            None if form == ImportForm::Require => {
                self.refuse(node, "require with a computed argument");
            }
            None => self.refuse(node, "dynamic import with a computed specifier"),
        }
    }

    /// Recovers import/export statements that ERROR regions swallowed.
    fn scan_error_regions(&mut self) {
        for region in std::mem::take(&mut self.error_regions) {
            let base = region.start_byte();
            let start = region.start_position();
            for scanned in error_scan::scan(text(region, self.source)) {
                let offset = base + scanned.offset;
                if self.statements.contains(&offset) {
                    continue;
                }
                let (line, column) =
                    line_column(self.source, base, (start.row, start.column), offset);
                self.found.push(Found {
                    offset,
                    line,
                    column,
                    specifier: scanned.specifier,
                    form: scanned.form,
                    type_only: scanned.type_only,
                    bindings: Vec::new(),
                });
            }
        }
    }
}

/// The names an import clause binds: `x`, `{a, b as c}`, `* as ns`, or a mix.
fn import_clause_bindings(clause: Node<'_>, source: &str) -> Vec<Binding> {
    let mut bindings = Vec::new();
    let mut cursor = clause.walk();
    for child in clause.named_children(&mut cursor) {
        match child.kind() {
            "identifier" => bindings.push(Binding {
                local: text(child, source).to_string(),
                imported: Imported::Default,
            }),
            "namespace_import" => {
                let mut inner = child.walk();
                let name = child.named_children(&mut inner).find(|n| n.kind() == "identifier");
                if let Some(name) = name {
                    bindings.push(Binding {
                        local: text(name, source).to_string(),
                        imported: Imported::Module,
                    });
                }
            }
            "named_imports" => {
                let mut inner = child.walk();
                for spec in child.named_children(&mut inner) {
                    if spec.kind() != "import_specifier" {
                        continue;
                    }
                    let Some(name) = spec.field("name") else {
                        continue;
                    };
                    // `import {"a-b" as c}` names the export with a string.
                    let imported = literal_string(name, source)
                        .unwrap_or_else(|| text(name, source).to_string());
                    let local = spec.field("alias").unwrap_or(name);
                    if local.kind() != "identifier" {
                        continue;
                    }
                    bindings.push(Binding {
                        local: text(local, source).to_string(),
                        imported: Imported::Name(imported),
                    });
                }
            }
            _ => {}
        }
    }
    bindings
}

/// The name bound by `import x = require("m")`.
fn require_clause_binding(clause: Node<'_>, source: &str) -> Option<Binding> {
    let name = clause.named_child(0).filter(|n| n.kind() == "identifier")?;
    Some(Binding { local: text(name, source).to_string(), imported: Imported::Module })
}

/// The names a `require("m")` call binds when it initialises a declaration:
/// `const x = require("m")` binds the module, `const {a, b: c} = require("m")` binds members, and
/// `const x = require("m").y` binds the member `y` (`default` meaning the default export).
fn require_bindings(call: Node<'_>, source: &str) -> Vec<Binding> {
    let mut value = call;
    let mut member = None;
    if let Some(parent) = call.parent().filter(|p| p.kind() == "member_expression") {
        let Some(property) = parent.field("property") else {
            return Vec::new();
        };
        if property.kind() != "property_identifier" {
            return Vec::new();
        }
        member = Some(text(property, source).to_string());
        value = parent;
    }
    let Some(declarator) = value.parent().filter(|p| p.kind() == "variable_declarator") else {
        return Vec::new();
    };
    if declarator.field("value").map(|v| v.id()) != Some(value.id()) {
        return Vec::new();
    }
    let Some(name) = declarator.field("name") else {
        return Vec::new();
    };
    match name.kind() {
        "identifier" => {
            let imported = match member {
                None => Imported::Module,
                Some(m) if m == "default" => Imported::Default,
                Some(m) => Imported::Name(m),
            };
            vec![Binding { local: text(name, source).to_string(), imported }]
        }
        "object_pattern" if member.is_none() => object_pattern_bindings(name, source),
        _ => Vec::new(),
    }
}

/// `{a, b: c}` destructured from a required module: `a` binds `a`, `c` binds `b`. Nested patterns,
/// defaults and rest elements bind nothing we can name.
fn object_pattern_bindings(pattern: Node<'_>, source: &str) -> Vec<Binding> {
    let mut bindings = Vec::new();
    let mut cursor = pattern.walk();
    for child in pattern.named_children(&mut cursor) {
        match child.kind() {
            "shorthand_property_identifier_pattern" => {
                let name = text(child, source).to_string();
                bindings.push(Binding { local: name.clone(), imported: Imported::Name(name) });
            }
            "pair_pattern" => {
                let (Some(key), Some(value)) = (child.field("key"), child.field("value")) else {
                    continue;
                };
                if value.kind() != "identifier" {
                    continue;
                }
                let imported = match key.kind() {
                    "property_identifier" => text(key, source).to_string(),
                    _ => match literal_string(key, source) {
                        Some(k) => k,
                        None => continue,
                    },
                };
                bindings.push(Binding {
                    local: text(value, source).to_string(),
                    imported: Imported::Name(imported),
                });
            }
            _ => {}
        }
    }
    bindings
}

/// True when an import clause has only named specifiers, all of them `type`-qualified.
fn every_import_specifier_is_typed(clause: Node<'_>) -> bool {
    let mut typed = 0usize;
    let mut cursor = clause.walk();
    for child in clause.named_children(&mut cursor) {
        match child.kind() {
            "named_imports" => {
                let mut inner = child.walk();
                for spec in child.named_children(&mut inner) {
                    if spec.kind() != "import_specifier" {
                        continue;
                    }
                    if !has_type_keyword(spec) {
                        return false;
                    }
                    typed += 1;
                }
            }
            // A default or namespace binding is a value import.
            _ => return false,
        }
    }
    typed > 0
}

/// True when an export clause has at least one specifier and every one is `type`-qualified.
fn every_export_specifier_is_typed(clause: Node<'_>) -> bool {
    let mut typed = 0usize;
    let mut cursor = clause.walk();
    for spec in clause.named_children(&mut cursor) {
        if spec.kind() != "export_specifier" {
            continue;
        }
        if !has_type_keyword(spec) {
            return false;
        }
        typed += 1;
    }
    typed > 0
}

fn has_type_keyword(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| !c.is_named() && c.kind() == "type")
}

/// 1-based line and byte column of `offset`, counted from a known position at `base`.
fn line_column(source: &str, base: usize, base_pos: (usize, usize), offset: usize) -> (u32, u32) {
    let between = source.as_bytes().get(base..offset).unwrap_or_default();
    let newlines = between.iter().filter(|&&b| b == b'\n').count();
    let (row, column) = match between.iter().rposition(|&b| b == b'\n') {
        Some(last) => (base_pos.0 + newlines, between.len() - last - 1),
        None => (base_pos.0, base_pos.1 + between.len()),
    };
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (to_u32(row).saturating_add(1), to_u32(column).saturating_add(1))
}
