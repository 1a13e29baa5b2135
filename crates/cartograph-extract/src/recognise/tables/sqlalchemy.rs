//! SQLAlchemy: declarative models, `Table(...)` declarations, and the queries and mutations that
//! name a model.
//!
//! Recognises: a class whose body sets `__tablename__ = "literal"` (schema from a literal
//! `__table_args__ = {"schema": "x"}`, or a tuple ending in such a dict); a Flask-SQLAlchemy
//! `db.Model` subclass without `__tablename__` (its default snake_case name, `likely`);
//! `name = Table("literal", metadata, ..., schema="x")` (also `sa.Table`, `db.Table`), whose
//! variable then stands for the table. Uses: `select(M, M.col, ...)` and `.select_from(M)` read
//! (`certain` once `M` resolves to a model); `insert(M)`, `update(M)`, `delete(M)` write
//! (`certain`); `x.query(M)` and `x.get(M, id)` read, `x.query(M)....delete()/update()` writes,
//! `.join(M)` reads (`likely`: the receiver is taken to be a session or query); Flask-SQLAlchemy's
//! `M.query.filter_by(...)` reads and `M.query....delete()` writes (`likely`);
//! `x.add(M(...))`, `x.add(obj)`, `x.merge(obj)`, `x.delete(obj)` write when `obj` is known to be an
//! `M` in the same function (`likely` when assigned from `M(...)`, `session.get(M, …)`,
//! `M.model_validate(…)`, …; `possible` when only annotated as `M`).
//!
//! Refuses (`computed-table`): a `__tablename__` or `Table(...)` name that is not a literal
//! (`declared_attr` functions included).
//!
//! ```python
//! class Invoice(Base):
//!     __tablename__ = "invoices"              # defines table billing.invoices
//!     __table_args__ = {"schema": "billing"}
//!
//! def create(session, data):
//!     invoice = Invoice(**data)
//!     session.add(invoice)                    # writes billing.invoices (likely)
//!     return session.execute(select(Invoice)) # reads billing.invoices (certain)
//! ```

use cartograph_core::{Confidence, Refusal, RefusalKind, SourceLocation};
use tree_sitter::Node;

use super::{
    Access, ModelFact, ModelTable, Scopes, chained_methods, dotted_name, keyword_arg, literal,
    model_use, positional_args,
};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::{position, text};

const FRAMEWORK: &str = "sqlalchemy";

/// A declarative model class. Returns true when the class was handled (a model or a refusal).
pub(super) fn class(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) -> bool {
    let (Some(name), Some(body)) =
        (node.child_by_field_name("name"), node.child_by_field_name("body"))
    else {
        return false;
    };
    let class_name = text(name, cx.source);
    let attrs = ClassAttrs::read(body, cx.source);
    let (line, column) = position(name);
    match attrs.tablename {
        Some(Some(table)) => {
            facts.tables.models.push(ModelFact {
                name: class_name.to_owned(),
                line,
                column,
                framework: FRAMEWORK,
                table: ModelTable::Declared { name: table, schema: attrs.schema },
            });
            true
        }
        Some(None) => {
            refuse_computed(
                cx,
                node,
                &format!("the table name of class {class_name} is computed"),
                facts,
            );
            true
        }
        None => {
            let flask_model = cx.source.contains("flask_sqlalchemy")
                && superclasses(node, cx.source).iter().any(|b| b == "db.Model");
            if !flask_model {
                return false;
            }
            facts.tables.models.push(ModelFact {
                name: class_name.to_owned(),
                line,
                column,
                framework: FRAMEWORK,
                table: ModelTable::Default {
                    name: snake_case(class_name),
                    schema: attrs.schema,
                    rule: "Flask-SQLAlchemy's default snake_case table name",
                },
            });
            true
        }
    }
}

/// `__tablename__` and the schema of `__table_args__`, read from a class body.
#[derive(Default)]
pub(super) struct ClassAttrs {
    /// `None`: not set; `Some(None)`: set but not a literal.
    pub tablename: Option<Option<String>>,
    pub schema: Option<String>,
}

impl ClassAttrs {
    pub(super) fn read(body: Node<'_>, source: &str) -> Self {
        let mut attrs = ClassAttrs::default();
        let mut cursor = body.walk();
        for statement in body.named_children(&mut cursor) {
            if statement.kind() == "function_definition"
                || statement.kind() == "decorated_definition"
            {
                let function = if statement.kind() == "decorated_definition" {
                    statement.child_by_field_name("definition")
                } else {
                    Some(statement)
                };
                if function
                    .and_then(|f| f.child_by_field_name("name"))
                    .is_some_and(|n| text(n, source) == "__tablename__")
                {
                    attrs.tablename = Some(None);
                }
                continue;
            }
            let Some((left, right)) = super::assignment_sides(statement) else { continue };
            match text(left, source) {
                "__tablename__" => attrs.tablename = Some(literal(right, source)),
                "__table_args__" => attrs.schema = schema_of(right, source),
                _ => {}
            }
        }
        attrs
    }
}

/// `{"schema": "x"}`, or a tuple whose last element is such a dict.
fn schema_of(node: Node<'_>, source: &str) -> Option<String> {
    let dict = match node.kind() {
        "dictionary" => node,
        "tuple" | "parenthesized_expression" => {
            let count = node.named_child_count();
            let last = node.named_child(u32::try_from(count.checked_sub(1)?).ok()?)?;
            if last.kind() != "dictionary" {
                return None;
            }
            last
        }
        _ => return None,
    };
    let mut cursor = dict.walk();
    for pair in dict.named_children(&mut cursor).filter(|p| p.kind() == "pair") {
        let key = pair.child_by_field_name("key").and_then(|k| literal(k, source));
        if key.as_deref() == Some("schema") {
            return pair.child_by_field_name("value").and_then(|v| literal(v, source));
        }
    }
    None
}

/// The superclasses of a class as written (`db.Model`, `Base`).
pub(super) fn superclasses(class: Node<'_>, source: &str) -> Vec<String> {
    let Some(args) = class.child_by_field_name("superclasses") else { return Vec::new() };
    let mut cursor = args.walk();
    args.named_children(&mut cursor).filter_map(|a| dotted_name(a, source)).collect()
}

/// `name = Table("literal", metadata, ...)`.
pub(super) fn table_assignment(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let (Some(left), Some(call)) =
        (node.child_by_field_name("left"), node.child_by_field_name("right"))
    else {
        return;
    };
    if left.kind() != "identifier" || call.kind() != "call" {
        return;
    }
    let Some(callee) = call.child_by_field_name("function").and_then(|f| dotted_name(f, cx.source))
    else {
        return;
    };
    if !matches!(callee.as_str(), "Table" | "sa.Table" | "sqlalchemy.Table" | "db.Table") {
        return;
    }
    let args = positional_args(call);
    let (Some(name), Some(_metadata)) = (args.first(), args.get(1)) else { return };
    let variable = text(left, cx.source);
    let Some(table) = literal(*name, cx.source) else {
        refuse_computed(cx, call, &format!("the table name of {variable} is computed"), facts);
        return;
    };
    let schema = keyword_arg(call, "schema", cx.source).and_then(|s| literal(s, cx.source));
    let (line, column) = position(call);
    facts.tables.models.push(ModelFact {
        name: variable.to_owned(),
        line,
        column,
        framework: FRAMEWORK,
        table: ModelTable::Declared { name: table, schema },
    });
}

/// Queries and mutations that name a model.
pub(super) fn call(node: Node<'_>, cx: &Context<'_>, scopes: &Scopes, facts: &mut FileFacts) {
    let Some(function) = node.child_by_field_name("function") else { return };
    if !worth_a_look(function, cx.source) {
        return;
    }
    let Some(callee) = dotted_name(function, cx.source) else {
        // A method on a call result: `select(...).select_from(M)`, `q.join(M)`.
        if function.kind() == "attribute" {
            method_on_expression(node, function, cx, facts);
        }
        return;
    };
    let source = cx.source;
    let args = positional_args(node);
    let statement = callee
        .strip_prefix("sa.")
        .or_else(|| callee.strip_prefix("sqlalchemy."))
        .or_else(|| callee.strip_prefix("sqlmodel."))
        .unwrap_or(&callee);
    match statement {
        "select" => {
            let mut seen: Vec<String> = Vec::new();
            for arg in &args {
                if let Some(model) = selected_model(*arg, source).filter(|m| !seen.contains(m)) {
                    seen.push(model.clone());
                    facts.tables.uses.push(model_use(
                        node,
                        model,
                        Access::Read,
                        "select",
                        Confidence::Certain,
                        None,
                    ));
                }
            }
            return;
        }
        "insert" | "update" | "delete" => {
            if let Some(model) = args.first().and_then(|a| dotted_name(*a, source)) {
                facts.tables.uses.push(model_use(
                    node,
                    model,
                    Access::Write,
                    format!("{statement} statement"),
                    Confidence::Certain,
                    None,
                ));
            }
            return;
        }
        _ => {}
    }
    let Some((receiver, method)) = callee.rsplit_once('.') else { return };
    let receiver_is_class = receiver
        .rsplit('.')
        .next()
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_uppercase()));
    if let Some(model) = receiver.strip_suffix(".query").filter(|m| {
        m.rsplit('.').next().is_some_and(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
    }) {
        query_property(node, model, method, source, facts);
        return;
    }
    if receiver_is_class || receiver.ends_with(".objects") || receiver == "objects" {
        return;
    }
    match method {
        "query" => {
            let chain = chained_methods(node, source);
            let writes = chain.iter().any(|m| m == "delete" || m == "update");
            for arg in &args {
                let Some(model) = selected_model(*arg, source) else { continue };
                let (access, via) = if writes {
                    (Access::Write, format!("{method}(...) with a bulk update or delete"))
                } else {
                    (Access::Read, method.to_owned())
                };
                facts.tables.uses.push(model_use(
                    node,
                    model,
                    access,
                    via,
                    Confidence::Likely,
                    Some(format!("the receiver {receiver} is taken to be a session")),
                ));
            }
        }
        "get" | "get_one" if args.len() >= 2 => {
            if let Some(model) = args.first().and_then(|a| dotted_name(*a, source)) {
                facts.tables.uses.push(model_use(
                    node,
                    model,
                    Access::Read,
                    method,
                    Confidence::Likely,
                    Some(format!("the receiver {receiver} is taken to be a session")),
                ));
            }
        }
        "add" | "add_all" | "merge" | "delete" => {
            session_write(node, receiver, method, &args, cx, scopes, facts);
        }
        "select_from" | "join" | "outerjoin" => {
            method_on_expression(node, function, cx, facts);
        }
        _ => {}
    }
}

/// A cheap test on the callee before any allocation: one of the functions or methods this
/// recogniser reads, or a method on `M.query`.
fn worth_a_look(function: Node<'_>, source: &str) -> bool {
    match function.kind() {
        "identifier" => matches!(text(function, source), "select" | "insert" | "update" | "delete"),
        "attribute" => {
            let method = function.child_by_field_name("attribute").map(|a| text(a, source));
            matches!(
                method,
                Some(
                    "select"
                        | "insert"
                        | "update"
                        | "delete"
                        | "query"
                        | "get"
                        | "get_one"
                        | "add"
                        | "add_all"
                        | "merge"
                        | "select_from"
                        | "join"
                        | "outerjoin"
                )
            ) || function
                .child_by_field_name("object")
                .filter(|o| o.kind() == "attribute")
                .and_then(|o| o.child_by_field_name("attribute"))
                .is_some_and(|a| text(a, source) == "query")
        }
        _ => false,
    }
}

/// Flask-SQLAlchemy's query property: `M.query.filter_by(...)` reads, and a chain that ends in
/// `.delete()` or `.update(...)` writes.
fn query_property(node: Node<'_>, model: &str, method: &str, source: &str, facts: &mut FileFacts) {
    let chain = chained_methods(node, source);
    let write = std::iter::once(method)
        .chain(chain.iter().map(String::as_str))
        .any(|m| m == "delete" || m == "update");
    let access = if write { Access::Write } else { Access::Read };
    facts.tables.uses.push(model_use(
        node,
        model.to_owned(),
        access,
        format!("query.{method}"),
        Confidence::Likely,
        Some(format!("{model}.query is taken to be Flask-SQLAlchemy's query property")),
    ));
}

/// `.select_from(M)`, `.join(M)`, `.outerjoin(M)` on any expression.
fn method_on_expression(
    node: Node<'_>,
    function: Node<'_>,
    cx: &Context<'_>,
    facts: &mut FileFacts,
) {
    let Some(method) = function.child_by_field_name("attribute").map(|a| text(a, cx.source)) else {
        return;
    };
    if function.child_by_field_name("object").is_some_and(|o| o.kind() == "string") {
        return;
    }
    let (confidence, reason) = match method {
        "select_from" => (Confidence::Certain, None),
        "join" | "outerjoin" => {
            (Confidence::Likely, Some("join is taken to be a SQLAlchemy query join".to_owned()))
        }
        _ => return,
    };
    let Some(model) = positional_args(node).first().and_then(|a| dotted_name(*a, cx.source)) else {
        return;
    };
    facts.tables.uses.push(model_use(node, model, Access::Read, method, confidence, reason));
}

/// `session.add(M(...))`, `session.add(obj)`, `session.add_all([...])`, `session.merge(obj)`,
/// `session.delete(obj)`.
fn session_write(
    node: Node<'_>,
    receiver: &str,
    method: &str,
    args: &[Node<'_>],
    cx: &Context<'_>,
    scopes: &Scopes,
    facts: &mut FileFacts,
) {
    let source = cx.source;
    let Some(first) = args.first() else { return };
    let items: Vec<Node<'_>> = if method == "add_all" && first.kind() == "list" {
        let mut cursor = first.walk();
        first.named_children(&mut cursor).collect()
    } else {
        vec![*first]
    };
    for item in items {
        let found = match item.kind() {
            "call" => item
                .child_by_field_name("function")
                .and_then(|f| dotted_name(f, source))
                .filter(|n| {
                    n.rsplit('.')
                        .next()
                        .is_some_and(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
                })
                .map(|model| {
                    let reason = format!("a new {model} is passed to {method}");
                    (model, Confidence::Likely, reason)
                }),
            "identifier" => scopes
                .get(text(item, source))
                .map(|k| (k.model.clone(), k.confidence, k.reason.clone())),
            _ => None,
        };
        let Some((model, confidence, reason)) = found else { continue };
        let confidence = confidence.max(Confidence::Likely);
        facts.tables.uses.push(model_use(
            node,
            model,
            Access::Write,
            format!("{receiver}.{method}"),
            confidence,
            Some(format!("{reason}; the receiver {receiver} is taken to be a session")),
        ));
    }
}

/// The model a `select(...)` argument names: `M` or `M.column`.
fn selected_model(arg: Node<'_>, source: &str) -> Option<String> {
    let name = dotted_name(arg, source)?;
    if arg.kind() == "attribute" {
        let (model, _column) = name.rsplit_once('.')?;
        let last = model.rsplit('.').next().unwrap_or(model);
        if last.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Some(model.to_owned());
        }
    }
    Some(name)
}

/// Flask-SQLAlchemy's `camel_to_snake_case`: `UserProfile` → `user_profile`, `HTTPLog` →
/// `http_log`.
pub(super) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars.get(i - 1).copied().unwrap_or(' ');
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            if prev.is_ascii_lowercase() || prev.is_ascii_digit() || next.is_ascii_lowercase() {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out.trim_start_matches('_').to_owned()
}

pub(super) fn refuse_computed(
    cx: &Context<'_>,
    node: Node<'_>,
    reason: &str,
    facts: &mut FileFacts,
) {
    let (line, column) = position(node);
    facts.refusals.push(Refusal::new(
        RefusalKind::ComputedTable,
        SourceLocation::new(cx.path.clone(), line, column),
        reason,
    ));
}
