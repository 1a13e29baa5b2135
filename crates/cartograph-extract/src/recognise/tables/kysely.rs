//! Kysely query builders.
//!
//! Recognises the methods that name a table in Kysely's query builder, with a literal table
//! (`"schema.table"` gives the schema; an alias, `"table as t"`, is dropped):
//! `x.selectFrom("t")` reads; `x.insertInto("t")`, `x.replaceInto("t")`, `x.updateTable("t")`,
//! `x.deleteFrom("t")` and `x.mergeInto("t")` write; `.innerJoin("t", …)`, `.leftJoin`,
//! `.rightJoin`, `.fullJoin` (and their `Lateral` forms) read, on a chain that starts from one of
//! those. The method names are Kysely's own, so the receiver is not resolved: provenance
//! `syntax`, confidence `likely` (the receiver is taken to be a Kysely instance or expression
//! builder).
//!
//! Refuses (`computed-table`): a table that is not a literal, in a file that mentions Kysely.
//!
//! ```ts
//! await db.selectFrom("Team as t").innerJoin("Member as m", "m.teamId", "t.id").execute();
//! // reads Team, reads Member
//! await db.deleteFrom("Session").where("expires", "<", now).execute();   // writes Session
//! ```

use cartograph_core::{Confidence, Provenance};
use tree_sitter::Node;

use super::sqlalchemy::refuse_computed;
use super::{Access, TableAccess, literal, positional_args};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{member_name, position, text};

/// Methods that start a query on a table, and what they do to it.
fn starts(method: &str) -> Option<Access> {
    match method {
        "selectFrom" => Some(Access::Read),
        "insertInto" | "replaceInto" | "updateTable" | "deleteFrom" | "mergeInto" => {
            Some(Access::Write)
        }
        _ => None,
    }
}

fn is_join(method: &str) -> bool {
    matches!(
        method,
        "innerJoin"
            | "leftJoin"
            | "rightJoin"
            | "fullJoin"
            | "innerJoinLateral"
            | "leftJoinLateral"
            | "crossJoin"
    )
}

/// A call: records the table a query method names.
pub(super) fn call(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let Some(function) =
        cx.field(node, "function").filter(|f| f.kind_name() == "member_expression")
    else {
        return;
    };
    let Some(method) = member_name(function, cx.source) else { return };
    let access = match starts(method) {
        Some(access) => access,
        None if is_join(method) && function.field("object").is_some_and(|o| on_query(o, cx)) => {
            Access::Read
        }
        None => return,
    };
    let Some(first) = positional_args(node).first().copied() else { return };
    let Some(name) = literal(first, cx.source) else {
        // A subquery or a callback (`.innerJoin((eb) => …)`) is not a table position.
        if first.kind_name() == "identifier" && cx.source.contains("ysely") {
            let reason = format!("the table passed to Kysely's {method} is computed");
            refuse_computed(cx, node, &reason, facts);
        }
        return;
    };
    // `"schema.table as alias"`.
    let name = name.split_whitespace().next().unwrap_or("");
    let (schema, table) = match name.rsplit_once('.') {
        Some((schema, table)) => (Some(schema.to_owned()), table),
        None => (None, name),
    };
    if table.is_empty() || !table.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return;
    }
    let (line, column) = position(node);
    facts.tables.accesses.push(TableAccess {
        table: table.to_owned(),
        schema,
        access,
        framework: "kysely",
        via: if access == Access::Read { "Kysely query" } else { "Kysely write" },
        provenance: Provenance::Syntax,
        confidence: Confidence::Likely,
        line,
        column,
        instance: None,
    });
}

/// True when the chain below `object` holds a call of a method that starts a Kysely query.
fn on_query(object: Node<'_>, cx: &Context<'_>) -> bool {
    let mut current = object;
    for _ in 0..24 {
        if current.kind_name() != "call_expression" {
            return false;
        }
        let Some(function) = current.field("function") else { return false };
        if function.kind_name() != "member_expression" {
            return false;
        }
        if function.field("property").is_some_and(|p| starts(text(p, cx.source)).is_some()) {
            return true;
        }
        let Some(next) = function.field("object") else { return false };
        current = next;
    }
    false
}
