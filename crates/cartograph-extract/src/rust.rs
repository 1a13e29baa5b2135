//! Rust import extraction (`.rs`).
//!
//! Recognises, anywhere in a file (modules and function bodies included), in source order:
//!
//! - `use a::b::c;`, `use a::b as d;`, `use a::{b, c::d, self};`, `use a::*;`, `use ::a::b;` —
//!   one [`ImportForm::Static`] import per path (a group is expanded, nested groups too), each
//!   binding the name it brings into scope (`c`, `d`, the module for `self`; a glob binds `*`);
//! - `pub use …` (any visibility) — [`ImportForm::ReExport`];
//! - `mod x;` — a module file the file declares, the path `self::x`; a module written inline
//!   (`mod x { … }`) declares no file, and its `use` items are read as the file's;
//! - `extern crate a;` / `extern crate a as b;` — the crate `a`, bound as `a` (`b`).
//!
//! Attribute-selected module files (`#[path = "…"] mod x;`) are taken as plain `mod x;`; macros
//! are not expanded, so an import a macro writes is not seen. Nothing is refused: every `use`
//! path is literal.
//!
//! Example: `use crate::{route, controller::handshake as hs};` yields the paths
//! `crate::route` (binding `route`) and `crate::controller::handshake` (binding `hs`).
//!
//! The walk is iterative (a `TreeCursor`), so no nesting depth can overflow the stack.

use tree_sitter::{Node, Tree};

use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{position, text};
use crate::{Binding, FileFacts, ImportFact, ImportForm, ImportTarget, Imported, RustImport};

/// Extracts the imports of one Rust file into `facts`.
pub(crate) fn extract(tree: &Tree, source: &str, facts: &mut FileFacts) {
    let mut cursor = tree.root_node().walk();
    'walk: loop {
        let node = cursor.node();
        let descend = match node.kind_name() {
            "use_declaration" => {
                read_use(node, source, facts);
                false
            }
            "mod_item" if node.field("body").is_none() => {
                if let Some(name) = node.field("name") {
                    let name = text(name, source).to_owned();
                    let path = vec!["self".to_owned(), name.clone()];
                    push(node, path, Some(name), false, true, ImportForm::Static, facts);
                }
                false
            }
            "extern_crate_declaration" => {
                if let Some(name) = node.field("name") {
                    let crate_name = text(name, source).to_owned();
                    let local = node.field("alias").map(|a| text(a, source).to_owned());
                    let local = local.unwrap_or_else(|| crate_name.clone());
                    push(node, vec![crate_name], Some(local), false, false, form(node), facts);
                }
                false
            }
            // Expressions and types hold no import but `use` in a block, reached through the
            // block's statements.
            "string_literal" | "raw_string_literal" | "line_comment" | "block_comment" => false,
            _ => true,
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
}

/// `pub use` re-exports; a private `use` imports.
fn form(item: Node<'_>) -> ImportForm {
    let public = item.children(&mut item.walk()).any(|c| c.kind_name() == "visibility_modifier");
    if public { ImportForm::ReExport } else { ImportForm::Static }
}

/// Every path of one `use` item.
fn read_use(item: Node<'_>, source: &str, facts: &mut FileFacts) {
    let Some(tree) = item.field("argument") else { return };
    let form = form(item);
    // (node, the path written before it) pairs, depth first; the stack is bounded by the
    // nesting of groups.
    let mut stack: Vec<(Node<'_>, Vec<String>)> = vec![(tree, Vec::new())];
    while let Some((node, prefix)) = stack.pop() {
        match node.kind_name() {
            "scoped_identifier" | "identifier" | "crate" | "self" | "super" | "metavariable" => {
                let mut path = prefix;
                path.extend(segments(node, source));
                leaf(item, path, None, form, facts);
            }
            "use_as_clause" => {
                let (Some(p), Some(alias)) = (node.field("path"), node.field("alias")) else {
                    continue;
                };
                let mut path = prefix;
                path.extend(segments(p, source));
                let alias = text(alias, source).to_owned();
                // `use a as _;` brings the trait into scope without a name.
                leaf(item, path, Some(alias).filter(|a| a != "_"), form, facts);
            }
            "use_wildcard" => {
                let mut path = prefix;
                if let Some(p) = node.named_child(0) {
                    path.extend(segments(p, source));
                }
                push(item, path, Some("*".to_owned()), true, false, form, facts);
            }
            "scoped_use_list" => {
                let mut path = prefix;
                if let Some(p) = node.field("path") {
                    path.extend(segments(p, source));
                }
                if let Some(list) = node.field("list") {
                    group(list, &path, &mut stack);
                }
            }
            "use_list" => group(node, &prefix, &mut stack),
            _ => {}
        }
    }
}

/// The members of a `{…}` group, pushed in reverse so they pop in source order.
fn group<'t>(list: Node<'t>, prefix: &[String], stack: &mut Vec<(Node<'t>, Vec<String>)>) {
    let mut cursor = list.walk();
    let members: Vec<Node<'t>> = list.named_children(&mut cursor).collect();
    for member in members.into_iter().rev() {
        if !matches!(member.kind_name(), "line_comment" | "block_comment") {
            stack.push((member, prefix.to_vec()));
        }
    }
}

/// A path's segments: `a::b::c` is `a`, `b`, `c`; a leading `::` is dropped.
fn segments(node: Node<'_>, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = Some(node);
    while let Some(n) = current {
        if n.kind_name() == "scoped_identifier" {
            if let Some(name) = n.field("name") {
                out.push(text(name, source).to_owned());
            }
            current = n.field("path");
        } else {
            out.push(text(n, source).to_owned());
            current = None;
        }
    }
    out.reverse();
    out
}

/// One path of a `use`: it binds its last segment (or `alias`); `a::{self}` binds `a`.
fn leaf(
    item: Node<'_>,
    mut path: Vec<String>,
    alias: Option<String>,
    form: ImportForm,
    facts: &mut FileFacts,
) {
    if path.last().is_some_and(|s| s == "self") && path.len() > 1 {
        path.pop();
    }
    let Some(last) = path.last().cloned() else { return };
    let local = match alias {
        Some(alias) => Some(alias),
        // `use super;` or `use crate;` binds nothing usable.
        None if matches!(last.as_str(), "crate" | "super" | "self") => None,
        None => Some(last),
    };
    push(item, path, local, false, false, form, facts);
}

fn push(
    node: Node<'_>,
    path: Vec<String>,
    local: Option<String>,
    glob: bool,
    declares: bool,
    form: ImportForm,
    facts: &mut FileFacts,
) {
    if path.is_empty() {
        return;
    }
    let (line, column) = position(node);
    let bindings = local
        .map(|local| {
            // The resolver decides whether the last segment is a module or an item of one.
            let imported = match (glob, path.last()) {
                (true, _) | (_, None) => Imported::Module,
                (false, Some(last)) => Imported::Name(last.clone()),
            };
            Binding { local, imported }
        })
        .into_iter()
        .collect();
    facts.imports.push(ImportFact {
        line,
        column,
        type_only: false,
        target: ImportTarget::Rust(RustImport { path, declares, glob, form }),
        bindings,
    });
}

#[cfg(test)]
mod tests {
    use cartograph_core::RepoPath;

    use crate::{Extractor, Grammar, ImportTarget, Imported};

    fn imports(source: &str) -> Vec<String> {
        let path = RepoPath::new("src/server.rs").unwrap();
        let facts = Extractor::imports_only().extract(&path, Grammar::Rust, source);
        facts
            .imports
            .iter()
            .map(|i| {
                let ImportTarget::Rust(r) = &i.target else { panic!("not a Rust import") };
                let binds: Vec<String> = i
                    .bindings
                    .iter()
                    .map(|b| match &b.imported {
                        Imported::Module => format!("{} (module)", b.local),
                        Imported::Name(n) => format!("{}={n}", b.local),
                        Imported::Default => format!("{} (default)", b.local),
                    })
                    .collect();
                let mut flags = String::new();
                if r.declares {
                    flags.push_str(" mod");
                }
                if r.glob {
                    flags.push_str(" glob");
                }
                format!(
                    "{}:{} {} {}{flags} [{}]",
                    i.line,
                    r.form.describe(),
                    r.path.join("::"),
                    "",
                    binds.join(", ")
                )
                .replace("  ", " ")
            })
            .collect()
    }

    /// Every `use` shape, `mod` declarations, `extern crate`, and `use` inside a function and
    /// an inline module.
    #[test]
    fn every_import_shape() {
        let source = r#"use axum::{routing::{get, post}, Router};
use std::sync::Arc;
use crate::{route, controller::handshake as hs, model::*};
pub use self::error::Error;
use super::state::{self, AppState};
use ::serde::Deserialize;
mod route;
pub mod controller;
mod inline { use crate::util::helper; }
extern crate alloc as heap;
fn f() { use tokio::time::sleep; let s = "use fake::path;"; }
"#;
        assert_eq!(
            imports(source),
            [
                "1:import axum::routing::get [get=get]",
                "1:import axum::routing::post [post=post]",
                "1:import axum::Router [Router=Router]",
                "2:import std::sync::Arc [Arc=Arc]",
                "3:import crate::route [route=route]",
                "3:import crate::controller::handshake [hs=handshake]",
                "3:import crate::model glob [* (module)]",
                "4:re-export self::error::Error [Error=Error]",
                "5:import super::state [state=state]",
                "5:import super::state::AppState [AppState=AppState]",
                "6:import serde::Deserialize [Deserialize=Deserialize]",
                "7:import self::route mod [route=route]",
                "8:import self::controller mod [controller=controller]",
                "9:import crate::util::helper [helper=helper]",
                "10:import alloc [heap=alloc]",
                "11:import tokio::time::sleep [sleep=sleep]",
            ]
        );
    }
}
