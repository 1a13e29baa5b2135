//! Drizzle ORM table builders and the queries that name them.
//!
//! Recognises `const users = pgTable("users", {...})` (also `mysqlTable`, `sqliteTable`, and
//! `pgSchema("s").table("t", ...)` is not read): the variable stands for the table, which is
//! declared with a literal name (`certain`). Uses, once the name resolves to such a table:
//! `db.select().from(users)` and `.innerJoin/leftJoin/rightJoin/fullJoin(users, ...)` on a
//! query read (`certain`: only a query takes a table there); `db.insert(users)`,
//! `db.update(users)`, `db.delete(users)` write (`likely`: the receiver is taken to be a Drizzle
//! database).
//!
//! Refuses (`computed-table`): a table builder whose name is not a literal.
//!
//! ```ts
//! export const users = pgTable("users", { id: serial("id").primaryKey() }); // defines users
//! await db.select().from(users);                                              // reads users
//! await db.insert(users).values({ name });                                    // writes users
//! ```

use cartograph_core::Confidence;
use tree_sitter::Node;

use super::sqlalchemy::refuse_computed;
use super::{Access, ModelFact, ModelTable, dotted_name, literal, model_use, positional_args};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{member_name, position, text};

/// A table builder call or a query naming a table object.
pub(super) fn call(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let Some(function) = cx.field(node, "function") else { return };
    match function.kind_name() {
        "identifier" => builder(node, text(function, cx.source), cx, facts),
        "member_expression" => query(node, function, cx, facts),
        _ => {}
    }
}

fn builder(node: Node<'_>, callee: &str, cx: &Context<'_>, facts: &mut FileFacts) {
    if !matches!(callee, "pgTable" | "mysqlTable" | "sqliteTable") {
        return;
    }
    let args = positional_args(node);
    let Some(first) = args.first() else { return };
    let variable = cx
        .parent(node)
        .filter(|p| p.kind_name() == "variable_declarator")
        .and_then(|p| p.field("name"))
        .filter(|n| n.kind_name() == "identifier")
        .map(|n| text(n, cx.source).to_owned())
        .unwrap_or_default();
    let Some(table) = literal(*first, cx.source) else {
        refuse_computed(cx, node, &format!("the table name passed to {callee} is computed"), facts);
        return;
    };
    let (line, column) = position(node);
    facts.tables.models.push(ModelFact {
        name: variable,
        line,
        column,
        framework: "drizzle",
        table: ModelTable::Declared { name: table, schema: None },
    });
}

fn query(node: Node<'_>, function: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let Some(method) = member_name(function, cx.source) else {
        return;
    };
    let on_query = function.field("object").is_some_and(|o| o.kind_name() == "call_expression");
    let (access, confidence, reason) = match method {
        "from" | "innerJoin" | "leftJoin" | "rightJoin" | "fullJoin" if on_query => {
            (Access::Read, Confidence::Certain, None)
        }
        "insert" | "update" | "delete" => (
            Access::Write,
            Confidence::Likely,
            Some("the receiver is taken to be a Drizzle database".to_owned()),
        ),
        _ => return,
    };
    let Some(model) = positional_args(node)
        .first()
        .filter(|a| matches!(a.kind_name(), "identifier" | "member_expression"))
        .and_then(|a| dotted_name(*a, cx.source))
    else {
        return;
    };
    facts.tables.uses.push(model_use(node, model, access, method, confidence, reason));
}
