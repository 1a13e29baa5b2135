//! What a module exports, so a router mounted in another module can be followed to the object
//! behind the import (not a recogniser of its own: the route recognisers share it).
//!
//! Records `export default x`, `export default function f`, `export const x = …`, `export
//! function f`, `export { a, b as c }`, `module.exports = x`, `module.exports = { a, b: c }`,
//! `exports.x = y` and `module.exports.x = y`. An anonymous default export is recorded under the
//! local key `default`. `export … from "m"` binds nothing here (it is a re-export). Also records,
//! for Next.js, the exported functions named after an HTTP method and the default export, also
//! where they are re-exported from another module.

use tree_sitter::Node;

use super::nextjs::next_handler;
use super::{DefaultExport, Export, JsRouteFacts, ReExport, is_function};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position, text};

/// The exported name an assignment target stands for: `default` for `module.exports`, `x` for
/// `exports.x` and `module.exports.x`.
pub(super) fn exported_name(left: Node<'_>, cx: &Context<'_>) -> Option<String> {
    let written = text(left, cx.source);
    if written == "module.exports" {
        return Some("default".to_owned());
    }
    let member =
        written.strip_prefix("module.exports.").or_else(|| written.strip_prefix("exports."))?;
    member.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$').then(|| member.to_owned())
}

/// `module.exports = …` and `exports.x = …`.
pub(super) fn assignment(node: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
        return;
    };
    let Some(exported) = exported_name(left, cx) else {
        return;
    };
    // `const app = module.exports = express()` exports the variable.
    if let Some(local) = super::declared_name(node, cx) {
        js.exports.push(Export { exported, local });
        return;
    }
    let right = super::strip_expression(right);
    match right.kind_name() {
        "identifier" => {
            js.exports.push(Export { exported, local: text(right, cx.source).to_owned() });
        }
        // `module.exports = { orders, users: usersRouter }`
        "object" if exported == "default" => {
            let mut cursor = right.walk();
            for child in right.named_children(&mut cursor) {
                match child.kind_name() {
                    "shorthand_property_identifier" => {
                        let name = text(child, cx.source).to_owned();
                        js.exports.push(Export { exported: name.clone(), local: name });
                    }
                    "pair" => {
                        let (Some(k), Some(v)) = (child.field("key"), child.field("value")) else {
                            continue;
                        };
                        if k.kind_name() == "property_identifier" && v.kind_name() == "identifier" {
                            js.exports.push(Export {
                                exported: text(k, cx.source).to_owned(),
                                local: text(v, cx.source).to_owned(),
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        // A function expression is keyed by the export it is assigned to (see `function_key`),
        // and so is a creation such as `module.exports = Router()`.
        _ => js.exports.push(Export { exported: exported.clone(), local: exported }),
    }
}

/// `export …` statements without a source.
pub(super) fn export_statement(node: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    if let Some(source) = node.field("source") {
        reexport(node, source, cx, js);
        return;
    }
    let is_default = {
        let mut cursor = node.walk();
        node.children(&mut cursor).any(|c| !c.is_named() && c.kind_name() == "default")
    };
    let (line, column) = position(node);
    if let Some(declaration) = node.field("declaration") {
        declared(declaration, is_default, line, column, cx, js);
        return;
    }
    if let Some(value) = node.field("value") {
        let value = super::strip_expression(value);
        let name = match value.kind_name() {
            "identifier" => Some(text(value, cx.source).to_owned()),
            kind if is_function(kind) => value.field("name").map(|n| text(n, cx.source).to_owned()),
            _ => None,
        };
        let local = name.clone().unwrap_or_else(|| "default".to_owned());
        js.exports.push(Export { exported: "default".to_owned(), local });
        js.default_export = Some(DefaultExport { name, line, column });
        return;
    }
    // `export { a, b as c }`
    let mut cursor = node.walk();
    for clause in node.named_children(&mut cursor) {
        if clause.kind_name() != "export_clause" {
            continue;
        }
        for (spec, local, exported) in specifiers(clause, cx.source) {
            if exported == "default" {
                js.default_export = Some(DefaultExport { name: Some(local.clone()), line, column });
            }
            next_handler(&exported, &local, spec, js);
            js.exports.push(Export { exported, local });
        }
    }
}

/// `export function f`, `export const a = …, b = …`, `export default function f`.
fn declared(
    declaration: Node<'_>,
    is_default: bool,
    line: u32,
    column: u32,
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
) {
    match declaration.kind_name() {
        "lexical_declaration" | "variable_declaration" => {
            let mut cursor = declaration.walk();
            for declarator in declaration.named_children(&mut cursor) {
                if declarator.kind_name() != "variable_declarator" {
                    continue;
                }
                let Some(name) = declarator.field("name") else {
                    continue;
                };
                if name.kind_name() != "identifier" {
                    continue;
                }
                let name_text = text(name, cx.source).to_owned();
                next_handler(&name_text, &name_text, declarator, js);
                js.exports.push(Export { exported: name_text.clone(), local: name_text });
            }
        }
        _ => {
            let name = declaration.field("name").map(|n| text(n, cx.source));
            if is_default {
                let local = name.unwrap_or("default").to_owned();
                js.exports.push(Export { exported: "default".to_owned(), local });
                js.default_export =
                    Some(DefaultExport { name: name.map(str::to_owned), line, column });
            } else if let Some(name) = name {
                next_handler(name, name, declaration, js);
                js.exports.push(Export { exported: name.to_owned(), local: name.to_owned() });
            }
        }
    }
}

/// `export { a, b as c } from "m"` and `export * from "m"`; `export * as ns from "m"` is left out.
fn reexport(node: Node<'_>, source: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let Some(specifier) = literal_string(source, cx.source) else {
        return;
    };
    let mut clause = None;
    let mut namespace = false;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind_name() {
            "export_clause" => clause = Some(child),
            "namespace_export" => namespace = true,
            _ => {}
        }
    }
    let Some(clause) = clause else {
        if !namespace {
            js.reexports.push(ReExport { exported: None, imported: String::new(), specifier });
        }
        return;
    };
    let (line, column) = position(node);
    for (spec, imported, exported) in specifiers(clause, cx.source) {
        // Next.js route files that re-export their handlers: `export { default } from "…"`
        // (Pages Router) and `export { GET, POST } from "…"` (App Router).
        if exported == "default" {
            js.default_export = Some(DefaultExport { name: None, line, column });
        }
        next_handler(&exported, &imported, spec, js);
        js.reexports.push(ReExport {
            exported: Some(exported),
            imported,
            specifier: specifier.clone(),
        });
    }
}

/// `(specifier, name, exported name)` of each specifier of an `export { a, b as c }` clause.
fn specifiers<'t>(clause: Node<'t>, source: &str) -> Vec<(Node<'t>, String, String)> {
    let mut cursor = clause.walk();
    clause
        .named_children(&mut cursor)
        .filter(|spec| spec.kind_name() == "export_specifier")
        .filter_map(|spec| {
            let name = text(spec.field("name")?, source).to_owned();
            let exported =
                spec.field("alias").map_or_else(|| name.clone(), |a| text(a, source).to_owned());
            Some((spec, name, exported))
        })
        .collect()
}
