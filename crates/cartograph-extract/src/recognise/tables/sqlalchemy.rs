//! SQLAlchemy: declarative models, `Table(...)` declarations, and the queries and mutations that
//! name a model.
//!
//! Recognises: a class whose body sets `__tablename__ = "literal"` (schema from a literal
//! `__table_args__ = {"schema": "x"}`, or a tuple ending in such a dict); a Flask-SQLAlchemy
//! `db.Model` subclass without `__tablename__` (its default snake_case name, `likely`);
//! `name = Table("literal", metadata, ..., schema="x")` (also `sa.Table`, `db.Table`), whose
//! variable then stands for the table. Inheritance, settled by the linker once it knows which
//! bases are models of the tree: a subclass with no primary key column of its own maps onto its
//! parent's table (single-table inheritance; Flask-SQLAlchemy drops a `__tablename__` such a
//! class sets), and declares no table; a Flask-SQLAlchemy subclass with its own primary key and
//! no `__tablename__` gets its own default snake_case table (joined-table inheritance). Uses: `select(M, M.col, ...)` and `.select_from(M)` read
//! (`certain` once `M` resolves to a model); `insert(M)`, `update(M)`, `delete(M)` write
//! (`certain`); `x.query(M)` and `x.get(M, id)` read, `x.query(M)....delete()/update()` writes,
//! `.join(M)` reads (`likely`: the receiver is taken to be a session or query); Flask-SQLAlchemy's
//! `M.query.filter_by(...)` reads and `M.query....delete()` writes (`likely`);
//! `x.add(M(...))`, `x.add(obj)`, `x.merge(obj)`, `x.delete(obj)` write when `obj` is known to be an
//! `M` in the same function (`likely` when assigned from `M(...)`, `session.get(M, …)`,
//! `M.model_validate(…)`, …; `possible` when only annotated as `M`). ORM unit-of-work writes
//! (`likely`): `obj.attr = v` / `obj.attr += v` where `obj` was last bound, in the same function,
//! to an `M` loaded from the database (`session.get(M, pk)`, `session.scalar(select(M)…)`,
//! `session.scalars(select(M)…).first()/one()/one_or_none()`, `session.execute(select(M)…)
//! .scalar_one()`, `session.query(M)….first()/one()/one_or_none()/get(pk)`, or
//! `for obj in session.scalars(select(M)…)` / `session.query(M)…`), kept by the linker only when
//! `M`'s class body maps `attr` (a column, relationship, synonym or hybrid property; not a plain
//! class attribute nor an association proxy), and not after `session.expunge(obj)`; and
//! `parent.rel.append(M(...))` / `.extend([M(...), …])` when `parent` is a known model object (or
//! `self` in a method of a model class of this file) and the element is a new `M`, taken to be
//! a relationship collection. A `.clear()` or `.remove(x)` on a collection of unknown element type
//! is not a write this recogniser can name.
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
//!
//! def pay(session, invoice_id):
//!     invoice = session.get(Invoice, invoice_id)  # reads billing.invoices (likely)
//!     invoice.paid = True                     # writes billing.invoices (likely)
//! ```

use cartograph_core::{Confidence, Refusal, RefusalKind, SourceLocation};
use tree_sitter::Node;

use super::{
    Access, MappedAttributes, ModelFact, ModelTable, Origin, Scopes, SqlaSubclass, chained_methods,
    dotted_name, literal, model_use, positional_args,
};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::python::keyword_argument;
use crate::syntax::{position, text};

const FRAMEWORK: &str = "sqlalchemy";

/// A declarative model class. Returns true when the class was handled (a model or a refusal).
/// `flask_file`: the file imports Flask-SQLAlchemy.
pub(super) fn class(
    node: Node<'_>,
    cx: &Context<'_>,
    flask_file: bool,
    facts: &mut FileFacts,
) -> bool {
    let (Some(name), Some(body)) = (node.field("name"), node.field("body")) else {
        return false;
    };
    let class_name = text(name, cx.source);
    let attrs = ClassAttrs::read(body, cx.source);
    let (line, column) = position(name);
    // Flask-SQLAlchemy's rules: the file imports it, or the class builds its columns on the
    // extension object.
    let flask = || flask_file || text(body, cx.source).contains("db.Column");
    let table = match attrs.tablename {
        Some(Some(table)) => {
            // Flask-SQLAlchemy maps a subclass that declares no primary key column onto its
            // parent's table and drops its `__tablename__`; whether a base is a model is known
            // at link time.
            let bases = if node.field("superclasses").is_some() && flask() {
                superclasses(node, cx.source)
            } else {
                Vec::new()
            };
            if bases.is_empty()
                || bases.iter().any(|b| b == "db.Model")
                || declares_primary_key(body, cx.source)
            {
                ModelTable::Declared { name: table, schema: attrs.schema }
            } else {
                ModelTable::SqlaSubclass(SqlaSubclass {
                    bases,
                    tablename: Some(table),
                    schema: attrs.schema,
                    primary_key: false,
                    flask: true,
                })
            }
        }
        Some(None) => {
            refuse_computed(
                cx,
                node,
                &format!("the table name of class {class_name} is computed"),
                facts,
            );
            return true;
        }
        None => {
            // A subclass with mapper arguments or a primary key column of its own is a model
            // when its bases are (single- or joined-table inheritance, settled at link time).
            let may_inherit = attrs.mapper_args || text(body, cx.source).contains("primary_key");
            if !(flask_file || may_inherit) {
                return false;
            }
            let bases = superclasses(node, cx.source);
            if bases.iter().any(|b| b == "db.Model") {
                if !flask_file {
                    return false;
                }
                ModelTable::Default {
                    name: snake_case(class_name),
                    schema: attrs.schema,
                    rule: "Flask-SQLAlchemy's default snake_case table name",
                }
            } else {
                let primary_key = may_inherit && declares_primary_key(body, cx.source);
                if bases.is_empty() || !(attrs.mapper_args || primary_key) {
                    return false;
                }
                ModelTable::SqlaSubclass(SqlaSubclass {
                    bases,
                    tablename: None,
                    schema: attrs.schema,
                    primary_key,
                    flask: flask(),
                })
            }
        }
    };
    push_mapped(class_name, mapped_attributes(body, cx.source, false), facts);
    facts.tables.models.push(ModelFact {
        name: class_name.to_owned(),
        line,
        column,
        framework: FRAMEWORK,
        table,
    });
    true
}

/// True when a class body declares a primary key: a `Column(..., primary_key=True)` or
/// `mapped_column(..., primary_key=True)` (also `db.Column`, `sa.Column`), or a
/// `PrimaryKeyConstraint` in `__table_args__`.
fn declares_primary_key(body: Node<'_>, source: &str) -> bool {
    let mut cursor = body.walk();
    body.named_children(&mut cursor).any(|statement| {
        let Some((left, right)) = super::assignment_sides(statement) else { return false };
        if text(left, source) == "__table_args__" {
            return text(right, source).contains("PrimaryKeyConstraint");
        }
        let is_column = right.kind_name() == "call"
            && right
                .field("function")
                .and_then(|f| dotted_name(f, source))
                .is_some_and(|n| matches!(n.rsplit('.').next(), Some("Column" | "mapped_column")));
        is_column
            && right
                .field("arguments")
                .and_then(|a| keyword_argument(a, "primary_key", source))
                .is_some_and(|v| text(v, source) == "True")
    })
}

/// `__tablename__` and the schema of `__table_args__`, read from a class body.
#[derive(Default)]
pub(super) struct ClassAttrs {
    /// `None`: not set; `Some(None)`: set but not a literal.
    pub tablename: Option<Option<String>>,
    pub schema: Option<String>,
    /// The body sets `__mapper_args__` (polymorphic identity, inheritance).
    pub mapper_args: bool,
}

impl ClassAttrs {
    pub(super) fn read(body: Node<'_>, source: &str) -> Self {
        let mut attrs = ClassAttrs::default();
        let mut cursor = body.walk();
        for statement in body.named_children(&mut cursor) {
            if statement.kind_name() == "function_definition"
                || statement.kind_name() == "decorated_definition"
            {
                let function = if statement.kind_name() == "decorated_definition" {
                    statement.field("definition")
                } else {
                    Some(statement)
                };
                if function
                    .and_then(|f| f.field("name"))
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
                "__mapper_args__" => attrs.mapper_args = true,
                _ => {}
            }
        }
        attrs
    }
}

/// `{"schema": "x"}`, or a tuple whose last element is such a dict.
fn schema_of(node: Node<'_>, source: &str) -> Option<String> {
    let dict = match node.kind_name() {
        "dictionary" => node,
        "tuple" | "parenthesized_expression" => {
            let count = node.named_child_count();
            let last = node.named_child(u32::try_from(count.checked_sub(1)?).ok()?)?;
            if last.kind_name() != "dictionary" {
                return None;
            }
            last
        }
        _ => return None,
    };
    let mut cursor = dict.walk();
    for pair in dict.named_children(&mut cursor).filter(|p| p.kind_name() == "pair") {
        let key = pair.field("key").and_then(|k| literal(k, source));
        if key.as_deref() == Some("schema") {
            return pair.field("value").and_then(|v| literal(v, source));
        }
    }
    None
}

/// The superclasses of a class as written (`db.Model`, `Base`).
pub(super) fn superclasses(class: Node<'_>, source: &str) -> Vec<String> {
    let Some(args) = class.field("superclasses") else { return Vec::new() };
    let mut cursor = args.walk();
    args.named_children(&mut cursor).filter_map(|a| dotted_name(a, source)).collect()
}

/// `name = Table("literal", metadata, ...)`.
pub(super) fn table_assignment(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let (Some(left), Some(call)) = (cx.field(node, "left"), cx.field(node, "right")) else {
        return;
    };
    if left.kind_name() != "identifier" || call.kind_name() != "call" {
        return;
    }
    let Some(callee) = call.field("function").and_then(|f| dotted_name(f, cx.source)) else {
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
    let schema = call
        .field("arguments")
        .and_then(|args| keyword_argument(args, "schema", cx.source))
        .and_then(|s| literal(s, cx.source));
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
    let Some(function) = cx.field(node, "function") else { return };
    if !worth_a_look(function, cx.source) {
        return;
    }
    let Some(callee) = dotted_name(function, cx.source) else {
        // A method on a call result: `select(...).select_from(M)`, `q.join(M)`.
        if function.kind_name() == "attribute" {
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
        "append" | "extend" => collection_append(node, function, method, cx, scopes, facts),
        "select_from" | "join" | "outerjoin" => {
            method_on_expression(node, function, cx, facts);
        }
        _ => {}
    }
}

/// The methods this recogniser reads (on a session, a statement, `M.query` or a relationship).
pub(super) const METHODS: &[&str] = &[
    "select",
    "insert",
    "update",
    "delete",
    "query",
    "get",
    "get_one",
    "add",
    "add_all",
    "merge",
    "select_from",
    "join",
    "outerjoin",
    "append",
    "extend",
];

/// A cheap test on the callee before any allocation: one of the functions or methods this
/// recogniser reads, or a method on `M.query`.
fn worth_a_look(function: Node<'_>, source: &str) -> bool {
    match function.kind_name() {
        "identifier" => matches!(text(function, source), "select" | "insert" | "update" | "delete"),
        "attribute" => {
            let method = function.field("attribute").map(|a| text(a, source));
            method.is_some_and(|m| METHODS.contains(&m))
                || function
                    .field("object")
                    .filter(|o| o.kind_name() == "attribute")
                    .and_then(|o| o.field("attribute"))
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
    let Some(method) = function.field("attribute").map(|a| text(a, cx.source)) else {
        return;
    };
    if function.field("object").is_some_and(|o| o.kind_name() == "string") {
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
    let items: Vec<Node<'_>> = if method == "add_all" && first.kind_name() == "list" {
        let mut cursor = first.walk();
        first.named_children(&mut cursor).collect()
    } else {
        vec![*first]
    };
    for item in items {
        let found = match item.kind_name() {
            "call" => item
                .field("function")
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

/// Methods that refine a query or statement without changing what it returns.
const REFINE: &[&str] = &[
    "where",
    "filter",
    "filter_by",
    "order_by",
    "options",
    "with_for_update",
    "join",
    "outerjoin",
    "join_from",
    "limit",
    "offset",
    "execution_options",
    "distinct",
    "populate_existing",
    "select_from",
    "group_by",
    "having",
    "params",
    "unique",
    "enable_eagerloads",
];

/// Result methods that return one row's object.
const ONE: &[&str] = &["one", "first", "one_or_none"];

/// The model whose instance `expr` loads from the database (when `iterated`: whose instances a
/// loop over `expr` yields), and the construct, for evidence: `session.get(M, pk)`,
/// `session.scalar(select(M)…)`, `session.scalars(select(M)…).first()`,
/// `session.execute(select(M)…).scalar_one()`, `session.exec(select(M)).one()`,
/// `session.query(M)….first()`; iterated: `session.scalars(select(M)…)`, `….all()`,
/// `session.query(M)…`. Anything else — a column select, several entities, a statement held in a
/// variable, a receiver that is a class — is not a load this knows.
pub(super) fn loaded_model(
    expr: Node<'_>,
    source: &str,
    iterated: bool,
) -> Option<(String, &'static str)> {
    // The methods chained on the root call, outermost first.
    let mut outer: Vec<&str> = Vec::new();
    let mut current = unwrap(expr)?;
    let (root, method) = loop {
        if current.kind_name() != "call" || outer.len() > 8 {
            return None;
        }
        let function = current.field("function").filter(|f| f.kind_name() == "attribute")?;
        let method = text(function.field("attribute")?, source);
        let object = unwrap(function.field("object")?)?;
        if object.kind_name() == "call" {
            outer.push(method);
            current = object;
            continue;
        }
        if dotted_name(object, source).is_none_or(|r| class_like(&r)) {
            return None;
        }
        break (current, method);
    };
    let tail: Vec<&str> = outer.iter().rev().copied().filter(|m| !REFINE.contains(m)).collect();
    let one = |t: &[&str]| matches!(t, [m] if ONE.contains(m));
    let all = |t: &[&str]| matches!(t, [] | ["all"]);
    let args = positional_args(root);
    let first = args.first().copied();
    let (model, via) = match method {
        "get" | "get_one" if !iterated && tail.is_empty() && args.len() >= 2 => {
            (class_name(first?, source)?, "session.get")
        }
        "query" if args.len() == 1 => {
            let fits = if iterated {
                all(&tail)
            } else {
                one(&tail) || matches!(tail.as_slice(), ["get"])
            };
            if !fits {
                return None;
            }
            (class_name(first?, source)?, "session.query")
        }
        "scalar" if !iterated && tail.is_empty() => {
            (statement_model(first?, source)?, "session.scalar")
        }
        "scalars" | "exec" => {
            if !(if iterated { all(&tail) } else { one(&tail) }) {
                return None;
            }
            let via = if method == "exec" { "session.exec" } else { "session.scalars" };
            (statement_model(first?, source)?, via)
        }
        "execute" => {
            let fits = if iterated {
                matches!(tail.as_slice(), ["scalars"] | ["scalars", "all"])
            } else {
                matches!(
                    tail.as_slice(),
                    ["scalar_one" | "scalar" | "scalar_one_or_none"]
                        | ["scalars", "one" | "first" | "one_or_none"]
                )
            };
            if !fits {
                return None;
            }
            (statement_model(first?, source)?, "session.execute")
        }
        _ => return None,
    };
    Some((model, via))
}

/// The model of `select(M)` (one entity, a class), possibly refined (`.where(...)`).
fn statement_model(stmt: Node<'_>, source: &str) -> Option<String> {
    let mut current = unwrap(stmt)?;
    for _ in 0..12 {
        if current.kind_name() != "call" {
            return None;
        }
        let function = current.field("function")?;
        if function.kind_name() == "attribute"
            && let Some(object) = function.field("object")
            && object.kind_name() == "call"
        {
            let method = function.field("attribute").map(|a| text(a, source));
            if !method.is_some_and(|m| REFINE.contains(&m)) {
                return None;
            }
            current = object;
            continue;
        }
        let callee = dotted_name(function, source)?;
        if !matches!(
            callee.as_str(),
            "select" | "sa.select" | "sqlalchemy.select" | "sqlmodel.select"
        ) {
            return None;
        }
        let args = positional_args(current);
        let [entity] = args.as_slice() else { return None };
        return class_name(*entity, source);
    }
    None
}

/// `x` without the `await` and parentheses around it.
fn unwrap(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    for _ in 0..4 {
        if !matches!(current.kind_name(), "await" | "parenthesized_expression") {
            return Some(current);
        }
        current = current.named_child(0)?;
    }
    None
}

/// True when the last segment of a dotted name starts with a capital, as a class name does.
fn class_like(name: &str) -> bool {
    name.rsplit('.').next().is_some_and(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
}

/// The dotted name of `node` when it names a class (`Item`, `models.Item`).
fn class_name(node: Node<'_>, source: &str) -> Option<String> {
    dotted_name(node, source).filter(|n| class_like(n))
}

/// `obj.attr = v`, `obj.attr += v`, `obj.a, obj.b = …` where `obj` was last bound, in the same
/// function, to a model instance loaded from the database: the unit of work writes the change.
pub(super) fn attribute_write(
    node: Node<'_>,
    cx: &Context<'_>,
    scopes: &Scopes,
    facts: &mut FileFacts,
) {
    let Some(left) = cx.field(node, "left") else { return };
    let targets: Vec<Node<'_>> = match left.kind_name() {
        "attribute" => vec![left],
        "pattern_list" | "tuple_pattern" => {
            let mut cursor = left.walk();
            left.named_children(&mut cursor).filter(|t| t.kind_name() == "attribute").collect()
        }
        _ => return,
    };
    let mut seen: Vec<String> = Vec::new();
    for target in targets {
        let Some(object) = target.field("object").filter(|o| o.kind_name() == "identifier") else {
            continue;
        };
        let Some(known) = scopes.get(text(object, cx.source)) else { continue };
        let Origin::Loaded(via) = known.origin else { continue };
        if seen.contains(&known.model) {
            continue;
        }
        seen.push(known.model.clone());
        let Some(attribute) = target.field("attribute") else { continue };
        let mut model_use = model_use(
            target,
            known.model.clone(),
            Access::Write,
            "attribute assignment",
            Confidence::Likely,
            Some(format!(
                "the object is a row of {} loaded by {via} in the same function, and the class \
                 maps the attribute",
                known.model
            )),
        );
        model_use.attribute = Some(text(attribute, cx.source).to_owned());
        facts.tables.uses.push(model_use);
    }
}

/// `parent.rel.append(M(...))`, `parent.rel.extend([M(...), …])`, `….extend(M(x) for x in xs)`,
/// and the same with a variable holding a new `M`: a new object added to what is taken to be a
/// relationship collection, which the unit of work inserts. `parent` must be a known model object
/// in the same function, or `self` in a method of a model class this file declares.
fn collection_append(
    node: Node<'_>,
    function: Node<'_>,
    method: &str,
    cx: &Context<'_>,
    scopes: &Scopes,
    facts: &mut FileFacts,
) {
    let source = cx.source;
    let Some(collection) = function.field("object").filter(|o| o.kind_name() == "attribute") else {
        return;
    };
    let Some(parent) = collection.field("object").filter(|o| o.kind_name() == "identifier") else {
        return;
    };
    let parent = text(parent, source);
    let known_parent = if parent == "self" {
        in_model_method(node, source, facts)
    } else {
        scopes.get(parent).is_some()
    };
    if !known_parent {
        return;
    }
    let Some(arguments) = node.field("arguments") else { return };
    let elements: Vec<Node<'_>> = if arguments.kind_name() == "generator_expression" {
        arguments.field("body").into_iter().collect()
    } else {
        let args = positional_args(node);
        let [arg] = args.as_slice() else { return };
        match (method, arg.kind_name()) {
            ("append", _) => vec![*arg],
            (_, "list" | "tuple" | "set") => {
                let mut cursor = arg.walk();
                arg.named_children(&mut cursor).collect()
            }
            (_, "list_comprehension" | "generator_expression" | "set_comprehension") => {
                arg.field("body").into_iter().collect()
            }
            _ => return,
        }
    };
    let mut seen: Vec<String> = Vec::new();
    for element in elements {
        let model = match element.kind_name() {
            "call" => element.field("function").and_then(|f| class_name(f, source)),
            "identifier" => scopes
                .get(text(element, source))
                .filter(|k| k.origin == Origin::New)
                .map(|k| k.model.clone()),
            _ => None,
        };
        let Some(model) = model.filter(|m| !seen.contains(m)) else { continue };
        seen.push(model.clone());
        let reason = format!(
            "a new {model} is added to a collection attribute of a model object, taken to be a \
             relationship"
        );
        facts.tables.uses.push(model_use(
            node,
            model,
            Access::Write,
            format!("relationship {method}"),
            Confidence::Likely,
            Some(reason),
        ));
    }
}

/// True when `node` is inside a method of a class this file declares as a SQLAlchemy or SQLModel
/// model.
fn in_model_method(node: Node<'_>, source: &str, facts: &FileFacts) -> bool {
    let mut current = node;
    let function = loop {
        let Some(parent) = current.parent() else { return false };
        if parent.kind_name() == "function_definition" {
            break parent;
        }
        current = parent;
    };
    let mut up = function.parent();
    if up.is_some_and(|p| p.kind_name() == "decorated_definition") {
        up = up.and_then(|p| p.parent());
    }
    let Some(class) = up
        .filter(|b| b.kind_name() == "block")
        .and_then(|b| b.parent())
        .filter(|c| c.kind_name() == "class_definition")
        .and_then(|c| c.field("name"))
    else {
        return false;
    };
    let class = text(class, source);
    facts
        .tables
        .models
        .iter()
        .any(|m| m.name == class && matches!(m.framework, "sqlalchemy" | "sqlmodel"))
}

/// Constructs that map a class attribute: `Column(...)`, `mapped_column(...)`,
/// `relationship(...)`, … (also as `sa.Column`, `db.relationship`, `orm.synonym`). Not
/// `association_proxy(...)`: setting one writes the proxied relationship's table, not this one.
const MAPPING: &[&str] = &[
    "Column",
    "mapped_column",
    "relationship",
    "relation",
    "synonym",
    "column_property",
    "deferred",
    "composite",
    "query_expression",
    "Field",
    "Relationship",
];

/// The attributes a model class body maps: an assignment from a [`MAPPING`] construct, an
/// annotation `Mapped[...]` (any annotation, for a SQLModel `table=True` class, when
/// `annotated` is set), or a function decorated `@hybrid_property`.
pub(super) fn mapped_attributes(body: Node<'_>, source: &str, annotated: bool) -> Vec<String> {
    let mut attributes = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        if statement.kind_name() == "decorated_definition" {
            let mut decorators = statement.walk();
            let hybrid = statement.named_children(&mut decorators).any(|d| {
                d.kind_name() == "decorator"
                    && d.named_child(0)
                        .and_then(|e| dotted_name(e, source))
                        .is_some_and(|n| n.rsplit('.').next() == Some("hybrid_property"))
            });
            if hybrid
                && let Some(name) = statement.field("definition").and_then(|f| f.field("name"))
            {
                attributes.push(text(name, source).to_owned());
            }
            continue;
        }
        let Some(assignment) = statement.named_child(0).filter(|a| {
            statement.kind_name() == "expression_statement" && a.kind_name() == "assignment"
        }) else {
            continue;
        };
        let Some(left) = assignment.field("left").filter(|l| l.kind_name() == "identifier") else {
            continue;
        };
        let by_annotation = assignment
            .field("type")
            .is_some_and(|t| annotated || text(t, source).trim_start().starts_with("Mapped["));
        let by_construct = assignment
            .field("right")
            .filter(|r| r.kind_name() == "call")
            .and_then(|r| r.field("function"))
            .and_then(|f| dotted_name(f, source))
            .is_some_and(|n| n.rsplit('.').next().is_some_and(|last| MAPPING.contains(&last)));
        if by_annotation || by_construct {
            attributes.push(text(left, source).to_owned());
        }
    }
    attributes
}

/// Records the attributes a model class maps.
pub(super) fn push_mapped(class: &str, attributes: Vec<String>, facts: &mut FileFacts) {
    facts.tables.mapped.push(MappedAttributes { class: class.to_owned(), attributes });
}

/// `session.expunge(obj)`, `make_transient(obj)`, `make_transient_to_detached(obj)`: the name of
/// the object no longer attached to a session; `Some(None)` for `session.expunge_all()`.
pub(super) fn detached<'s>(call: Node<'_>, source: &'s str) -> Option<Option<&'s str>> {
    let function = call.field("function")?;
    let name = match function.kind_name() {
        "attribute" => text(function.field("attribute")?, source),
        "identifier" => text(function, source),
        _ => return None,
    };
    match name {
        "expunge_all" if function.kind_name() == "attribute" => Some(None),
        "expunge" | "make_transient" | "make_transient_to_detached" => {
            let args = positional_args(call);
            let first = args.first().filter(|a| a.kind_name() == "identifier")?;
            Some(Some(text(*first, source)))
        }
        _ => None,
    }
}

/// The model a `select(...)` argument names: `M` or `M.column`.
fn selected_model(arg: Node<'_>, source: &str) -> Option<String> {
    let name = dotted_name(arg, source)?;
    if arg.kind_name() == "attribute" {
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

#[cfg(test)]
mod tests;
