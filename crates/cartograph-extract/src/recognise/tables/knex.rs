//! knex query builders.
//!
//! Recognises, in files that mention `knex`: `knex("users")`, `db("users")`, `trx("users")` and a
//! variable assigned from `knex(...)` / `require("knex")(...)`, called with a literal table name
//! (`"users as u"` gives `users`, `db<Row>("users")` too); `knex.from("t")`, `.into("t")`,
//! `.table("t")` and `.join("t", ...)` (any `*Join`) on a chain that starts from such a name. In
//! any file, the same on an imported name (`import { db } from "./db"`): the linker keeps it only
//! when the name leads to a variable assigned from `knex(...)` in the imported module. The access is a write
//! when the chain calls `insert`, `update`, `del`, `delete`, `truncate`, `upsert` or `merge`, or
//! names the table with `into`; a read otherwise. Provenance `syntax`, confidence `likely` (the
//! callee is recognised by its name).
//!
//! Refuses (`computed-table`): `knex(name)` with a computed table name.
//!
//! ```js
//! const rows = await knex("orders").where({ id });    // reads orders
//! await db("audit").insert({ event });                 // writes audit
//! ```

use cartograph_core::{Confidence, Provenance};
use tree_sitter::Node;

use super::sqlalchemy::refuse_computed;
use super::{Access, TableAccess, chained_methods, literal, positional_args};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{member_name, position, text};
use crate::{FileFacts, ImportTarget};

const WRITES: &[&str] = &["insert", "update", "del", "delete", "truncate", "upsert", "merge"];

/// `const db = knex(config)` / `const db = require("knex")(config)`: `db` holds a knex instance.
pub(super) fn remember_instance(
    node: Node<'_>,
    cx: &Context<'_>,
    names: &mut Vec<String>,
    facts: &mut FileFacts,
) {
    let source = cx.source;
    let (Some(name), Some(value)) = (cx.field(node, "name"), cx.field(node, "value")) else {
        return;
    };
    if name.kind_name() != "identifier" || value.kind_name() != "call_expression" {
        return;
    }
    let Some(function) = value.field("function") else { return };
    let is_knex = match function.kind_name() {
        "identifier" => matches!(text(function, source), "knex" | "Knex"),
        "call_expression" => {
            text(function, source).replace(['\'', '`'], "\"") == "require(\"knex\")"
        }
        _ => false,
    };
    if is_knex {
        names.push(text(name, source).to_owned());
        facts.tables.knex_instances.push(text(name, source).to_owned());
    }
}

fn is_knex_name(name: &str, names: &[String]) -> bool {
    matches!(name, "knex" | "db" | "trx") || names.iter().any(|n| n == name)
}

/// `knex("t")`, `knex.from("t")`, `knex.select(...).from("t")`.
/// `local` is whether the file mentions knex at all.
pub(super) fn call(
    node: Node<'_>,
    cx: &Context<'_>,
    local: bool,
    names: &[String],
    facts: &mut FileFacts,
) {
    let Some(function) = cx.field(node, "function") else { return };
    let mut upstream: Vec<String> = Vec::new();
    let mut via_into = false;
    let root = match function.kind_name() {
        "identifier" => text(function, cx.source),
        "member_expression" => {
            let Some(method) = member_name(function, cx.source) else {
                return;
            };
            if !matches!(method, "from" | "into" | "table") && !method.ends_with("oin") {
                return;
            }
            let Some(root) = chain_root(function, cx.source, &mut upstream) else { return };
            via_into = method == "into";
            root
        }
        _ => return,
    };
    // A knex name of this file, or an imported name the linker checks.
    let instance = if local && is_knex_name(root, names) {
        None
    } else if is_imported(root, facts) {
        Some(root.to_owned())
    } else {
        return;
    };
    let Some(first) = positional_args(node).into_iter().next() else { return };
    let Some(raw) = literal(first, cx.source) else {
        if instance.is_none()
            && matches!(
                first.kind_name(),
                "identifier" | "member_expression" | "template_string" | "binary_expression"
            )
        {
            refuse_computed(cx, node, "the table name of a knex query is computed", facts);
        }
        return;
    };
    let Some(table) = raw.split_whitespace().next().map(str::to_owned) else { return };
    let downstream = chained_methods(node, cx.source);
    let write =
        via_into || downstream.iter().chain(upstream.iter()).any(|m| WRITES.contains(&m.as_str()));
    let (schema, table) = match table.split_once('.') {
        Some((s, t)) => (Some(s.to_owned()), t.to_owned()),
        None => (None, table),
    };
    let (line, column) = position(node);
    facts.tables.accesses.push(TableAccess {
        table,
        schema,
        access: if write { Access::Write } else { Access::Read },
        framework: "knex",
        via: "knex query builder",
        provenance: Provenance::Syntax,
        confidence: Confidence::Likely,
        line,
        column,
        instance,
    });
}

/// True when `name` is bound by an import of a module of this tree (a relative or aliased
/// specifier, not a bare package name such as `typeorm` or `@scope/pkg`).
fn is_imported(name: &str, facts: &FileFacts) -> bool {
    facts.imports.iter().any(|i| {
        let ImportTarget::Js(js) = &i.target else { return false };
        let bare = js.specifier.starts_with(|c: char| c.is_ascii_alphanumeric())
            || (js.specifier.starts_with('@') && !js.specifier.starts_with("@/"));
        !bare && i.bindings.iter().any(|b| b.local == name)
    })
}

/// Walks down `a.b(...).c(...).from` to its root identifier, recording the methods called on the
/// way.
fn chain_root<'s>(member: Node<'_>, source: &'s str, methods: &mut Vec<String>) -> Option<&'s str> {
    let mut current = member.field("object");
    for _ in 0..16 {
        let node = current?;
        match node.kind_name() {
            "identifier" => return Some(text(node, source)),
            "call_expression" => current = node.field("function"),
            "member_expression" => {
                if let Some(p) = node.field("property") {
                    methods.push(text(p, source).to_owned());
                }
                current = node.field("object");
            }
            "await_expression" | "parenthesized_expression" => current = node.named_child(0),
            _ => return None,
        }
    }
    None
}
