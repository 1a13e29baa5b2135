//! Database tables: model classes and table declarations, model uses, raw SQL and query builders.
//!
//! One walk records, per file and unresolved: the classes and variables that declare a table
//! ([`ModelFact`]: SQLAlchemy, SQLModel, Django, TypeORM, Drizzle), the places a model is queried
//! or mutated by name ([`ModelUse`]: `select(Item)`, `session.add(item)`, `Item.objects.filter`,
//! `db.insert(users)`), and the places a table is named directly ([`TableAccess`]: raw SQL string
//! literals and knex). Whether `Item` really is a model — possibly one declared in another module
//! and imported — is decided by `cartograph-pipeline` once imports are resolved; a use whose name
//! leads to no model yields nothing. A table name the code computes is a `computed-table` refusal.

mod django;
mod drizzle;
mod knex;
mod kysely;
pub mod link;
mod peewee;
pub mod prisma;
mod raw_sql;
pub(crate) use raw_sql::SQL_WORDS;
#[doc(hidden)]
pub use raw_sql::{RawSqlScan, scan_raw_sql};
mod sequelize;
pub mod sql_schema;
mod sqlalchemy;
mod sqlmodel;
mod typeorm;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use cartograph_core::{Confidence, EdgeKind, Language, Provenance};
use tree_sitter::Node;

use super::registry::Recogniser;
use super::{Context, Family};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position, text};
use crate::{FileFacts, Syntax};

/// This family's recognisers, one per file of this folder.
pub const RECOGNISERS: &[Recogniser] = &[
    Recogniser {
        name: "peewee",
        file: "tables/peewee.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Defines, EdgeKind::Reads, EdgeKind::Writes],
        summary: "Peewee models with fields (Meta.table_name, else the class name lower-cased); \
                  M.select/get/create/insert/update/delete on them",
    },
    Recogniser {
        name: "prisma",
        file: "tables/prisma/",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Defines],
        summary: "Prisma schema files (schema.prisma, read without tree-sitter): model blocks \
                  with @@map / @@schema, else the model name",
    },
    Recogniser {
        name: "django-models",
        file: "tables/django.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Defines, EdgeKind::Reads, EdgeKind::Writes],
        summary: "Django models (Meta.db_table, else <app_label>_<model>), ManyToManyField join \
                  tables, Model.objects queries and writes, instance save/delete; contrib models \
                  (User → auth_user)",
    },
    Recogniser {
        name: "drizzle",
        file: "tables/drizzle.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Defines, EdgeKind::Reads, EdgeKind::Writes],
        summary: "Drizzle pgTable/mysqlTable/sqliteTable declarations and db.select().from / \
                  insert / update / delete on them",
    },
    Recogniser {
        name: "knex",
        file: "tables/knex.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Reads, EdgeKind::Writes],
        summary: "knex(\"table\") and knex.from/into/table(\"t\") query builders; insert, update \
                  and delete in the chain make a write",
    },
    Recogniser {
        name: "kysely",
        file: "tables/kysely.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Reads, EdgeKind::Writes],
        summary: "Kysely selectFrom / insertInto / updateTable / deleteFrom(\"t\") and joins on \
                  such a chain",
    },
    Recogniser {
        name: "raw-sql",
        file: "tables/raw_sql.rs",
        languages: &[Language::Python, Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Reads, EdgeKind::Writes],
        summary: "SQL statements in string literals that reach an execution sink (execute, query, \
                  sql`…` tags, text(), or a name the file executes): SELECT/JOIN read, \
                  INSERT/UPDATE/DELETE write; catalogs skipped (heuristic)",
    },
    Recogniser {
        name: "sequelize",
        file: "tables/sequelize.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Defines, EdgeKind::Reads, EdgeKind::Writes],
        summary: "Sequelize models: sequelize-typescript @Table({ tableName }), sequelize.define, \
                  Model.init(attrs, { sequelize, tableName }) (default: the model name \
                  pluralised, possible); static findAll/findOne/create/update/destroy on them",
    },
    Recogniser {
        name: "sql-schema",
        file: "tables/sql_schema.rs",
        languages: &[Language::Python, Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Defines],
        summary: "CREATE TABLE statements in .sql schema files (read without tree-sitter; \
                  migrations, seeds, fixtures and tests skipped)",
    },
    Recogniser {
        name: "sqlalchemy",
        file: "tables/sqlalchemy.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Defines, EdgeKind::Reads, EdgeKind::Writes],
        summary: "SQLAlchemy declarative __tablename__ and Table(\"name\", metadata); select, \
                  session.query/get/add/delete/merge, insert/update/delete statements; setting a \
                  mapped attribute of a loaded instance, appending a new model to a relationship; \
                  single- and joined-table inheritance (a subclass with no primary key column of \
                  its own maps onto its parent's table)",
    },
    Recogniser {
        name: "sqlmodel",
        file: "tables/sqlmodel.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Defines],
        summary: "SQLModel classes with table=True (default table name: the class name \
                  lower-cased)",
    },
    Recogniser {
        name: "typeorm",
        file: "tables/typeorm.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::Defines],
        summary: "TypeORM @Entity(\"name\") / @Entity({ name, schema }) / @Entity() with the \
                  default snake_case naming",
    },
];

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableFacts {
    /// Classes and variables that declare a table.
    pub models: Vec<ModelFact>,
    /// Queries and mutations through a model's name. Read only when this file is linked: kept
    /// encoded until then.
    pub uses: crate::PackedVec<ModelUse>,
    /// Tables named directly: raw SQL and query builders.
    pub accesses: Vec<TableAccess>,
    /// Variables that hold a knex instance (`export const db = knex({...})`), so a query in
    /// another module that imports one can be recognised.
    pub knex_instances: Vec<String>,
    /// Every class name a Python file defines, so that a name defined here is never looked up
    /// through one of the file's star imports.
    pub classes: Vec<String>,
    /// The attributes each SQLAlchemy / SQLModel model class of the file maps (columns,
    /// relationships, synonyms, hybrid properties), so that an attribute assignment on a loaded
    /// instance counts as a write only when it sets one of them.
    #[serde(default)]
    pub mapped: Vec<MappedAttributes>,
}

/// The attributes a model class body maps, as written there (inherited ones are not listed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MappedAttributes {
    pub class: String,
    pub attributes: Vec<String>,
}

/// A class or variable that declares a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelFact {
    /// The class name, or the variable a table object is assigned to (`items = Table(...)`).
    pub name: String,
    pub line: u32,
    pub column: u32,
    /// The recogniser (`sqlalchemy`, `sqlmodel`, `django-models`, `typeorm`, `drizzle`).
    #[serde(with = "crate::interned")]
    pub framework: crate::interned::Name,
    pub table: ModelTable,
}

/// How a model's table name is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModelTable {
    /// Named in the code (`__tablename__ = "items"`, `@Entity("users")`, `pgTable("users")`).
    Declared { name: String, schema: Option<String> },
    /// Derived by the framework's default naming rule; `rule` says which, for evidence.
    Default {
        name: String,
        schema: Option<String>,
        #[serde(with = "crate::interned")]
        rule: crate::interned::Name,
    },
    /// Derived by a default naming rule that settings the analysis does not read may change, or
    /// that is reproduced only in part (Sequelize's English plural): `possible`.
    Possible {
        name: String,
        schema: Option<String>,
        #[serde(with = "crate::interned")]
        rule: crate::interned::Name,
    },
    /// A Django model class; whether it is concrete depends on its bases, resolved at link time.
    Django(DjangoClass),
    /// A SQLAlchemy class that may inherit a model of the tree; its table (its parent's under
    /// single-table inheritance, its own under joined-table inheritance) is settled at link time.
    SqlaSubclass(SqlaSubclass),
}

/// A SQLAlchemy class whose bases may be mapped classes, with what decides its inheritance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqlaSubclass {
    /// The bases as written (`Users`, `models.Challenges`).
    pub bases: Vec<String>,
    /// A literal `__tablename__`, if the body sets one.
    pub tablename: Option<String>,
    pub schema: Option<String>,
    /// True when the body declares a primary-key column (`db.Column(..., primary_key=True)`).
    pub primary_key: bool,
    /// True when Flask-SQLAlchemy's rules apply (the file imports it or uses `db.Column`): a
    /// subclass without a primary key column of its own maps onto its parent's table, and one
    /// with a primary key but no `__tablename__` gets the default snake_case name.
    pub flask: bool,
}

/// A class in a Django module, with what decides whether and how it maps to a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DjangoClass {
    /// The bases as written (`models.Model`, `PrimaryModel`, `base.Named`).
    pub bases: Vec<String>,
    /// True when a base is Django's `Model` itself.
    pub direct: bool,
    pub db_table: Option<String>,
    pub app_label: Option<String>,
    /// The app label taken from the folder (the folder holding `models.py` or `models/`).
    pub folder_label: Option<String>,
    /// True when the folder holds `models.py` or the `models/` package; false when the model
    /// lives elsewhere and its own folder stands in for the app.
    pub folder_label_exact: bool,
    pub is_abstract: bool,
    pub proxy: bool,
    /// The `ManyToManyField`s the class body declares without `through=`: Django creates a join
    /// table for each.
    #[serde(default)]
    pub many_to_many: Vec<String>,
}

/// Whether a use reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Access {
    Read,
    Write,
}

impl Access {
    pub fn verb(self) -> &'static str {
        match self {
            Access::Read => "reads",
            Access::Write => "writes",
        }
    }
}

/// A query or mutation through a model's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelUse {
    /// The model as written: `Item`, `models.Item`.
    pub model: String,
    pub access: Access,
    /// The construct, for evidence: `select`, `session.query`, `objects.filter`, `save`.
    pub via: String,
    pub confidence: Confidence,
    /// Why the confidence is not `certain`, when it is not.
    pub reason: Option<String>,
    pub line: u32,
    pub column: u32,
    /// For an attribute assignment on a loaded instance (`obj.attr = v`): the attribute. The
    /// linker keeps the use only when the model's class maps that attribute.
    #[serde(default)]
    pub attribute: Option<String>,
    /// The recogniser whose models alone this use can name (`sequelize` for `M.findAll()`);
    /// `None` for a model of any.
    #[serde(default)]
    pub framework: Option<String>,
}

/// A table named directly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableAccess {
    pub table: String,
    pub schema: Option<String>,
    pub access: Access,
    /// The recogniser (`raw-sql`, `knex`).
    #[serde(with = "crate::interned")]
    pub framework: crate::interned::Name,
    /// The construct, for evidence: `SELECT … FROM`, `INSERT INTO`, `knex query`.
    #[serde(with = "crate::interned")]
    pub via: crate::interned::Name,
    pub provenance: Provenance,
    pub confidence: Confidence,
    pub line: u32,
    pub column: u32,
    /// For a knex query on an imported name (`db("t")` with `db` imported): that name. The linker
    /// keeps the access only when the name leads to a knex instance in the imported module.
    pub instance: Option<String>,
}

/// What a local variable is known to hold: an instance (or query) of a model, and how sure.
#[derive(Debug, Clone)]
struct Known {
    model: String,
    confidence: Confidence,
    reason: String,
    origin: Origin,
}

/// Where the object a variable holds comes from, as far as the syntax says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A new object: `M(...)`, `M.model_validate(...)`.
    New,
    /// An instance loaded from the database; the construct, for evidence (`session.get`).
    Loaded(&'static str),
    /// Anything else: a query or statement, a Django manager result, an annotation.
    Other,
}

/// Function scopes by byte range, for "obj is known to be an `M` in the same function".
#[derive(Default)]
struct Scopes {
    /// `(end byte, scope id)` of the enclosing functions, innermost last.
    stack: Vec<(usize, u32)>,
    next: u32,
    vars: HashMap<(u32, String), Known>,
    /// Bindings that take effect once the walk passes a byte offset (the end of the value
    /// bound, which is evaluated with the name's previous binding): `(offset, scope, name,
    /// what it then holds)`.
    pending: Vec<(usize, u32, String, Option<Known>)>,
}

impl Scopes {
    /// Leaves the scopes that end before `node`.
    fn advance(&mut self, node: Node<'_>) {
        if self.pending.iter().any(|&(end, ..)| node.start_byte() >= end) {
            let (due, later): (Vec<_>, Vec<_>) =
                self.pending.drain(..).partition(|&(end, ..)| node.start_byte() >= end);
            self.pending = later;
            for (_, scope, var, known) in due {
                match known {
                    Some(known) => self.vars.insert((scope, var), known),
                    None => self.vars.remove(&(scope, var)),
                };
            }
        }
        while self.stack.last().is_some_and(|&(end, _)| node.start_byte() >= end) {
            self.stack.pop();
        }
    }

    fn enter(&mut self, node: Node<'_>) {
        self.next += 1;
        self.stack.push((node.end_byte(), self.next));
    }

    fn current(&self) -> u32 {
        self.stack.last().map_or(0, |&(_, id)| id)
    }

    fn set(&mut self, var: &str, known: Known) {
        self.vars.insert((self.current(), var.to_owned()), known);
    }

    fn get(&self, var: &str) -> Option<&Known> {
        self.vars.get(&(self.current(), var.to_owned()))
    }

    /// Binds `var` to `known` (to nothing known, for `None`: the most recent binding wins) once
    /// the walk reaches byte `after`.
    fn bind(&mut self, after: usize, var: &str, known: Option<Known>) {
        self.pending.push((after, self.current(), var.to_owned(), known));
    }

    /// The object `var` holds (every object of the scope, for `None`) is no longer attached to a
    /// session (`session.expunge(obj)`): setting its attributes writes nothing.
    fn detach(&mut self, var: Option<&str>) {
        let scope = self.current();
        for ((id, name), known) in &mut self.vars {
            if *id == scope
                && var.is_none_or(|v| v == name)
                && matches!(known.origin, Origin::Loaded(_))
            {
                known.origin = Origin::Other;
            }
        }
    }
}

/// The family's gate words ([`super::Gate`]), in order of how often a file holds the word.
pub(crate) static HINTS: super::Words = super::Words::new(&[
    "select",
    "session",
    "update",
    "delete",
    "insert",
    "sqlalchemy",
    "django",
    "Select",
    "Update",
    "Delete",
    "Insert",
    "SELECT",
    "UPDATE",
    "DELETE",
    "INSERT",
    ".objects",
    ".save(",
    "Table(",
    ".query(",
    ".query.",
    ".from(",
    "db(",
    "trx(",
    "Entity",
    "knex",
    "sqlmodel",
    "equelize",
    "@Table",
    ".findAll(",
    ".findOne(",
    ".findByPk(",
    ".create(",
    ".destroy(",
    "peewee",
]);

/// The family's state during one walk.
#[derive(Default)]
pub(crate) struct Tables {
    scopes: Scopes,
    /// True when the file mentions Django, so its classes are Django model candidates.
    django: bool,
    /// True when the file mentions peewee, so its classes are Peewee model candidates.
    peewee: bool,
    /// True when the file mentions Flask-SQLAlchemy, whose naming rules its classes follow.
    flask_sqlalchemy: bool,
    /// Local names that hold a knex instance.
    knex_names: Vec<String>,
    /// True when the file mentions knex (read once at the root, not at every call).
    knex_word: bool,
    /// True when the file mentions Sequelize.
    sequelize_word: bool,
    /// SQL literals held by names until the file says whether they run.
    sql: raw_sql::Pending,
}

impl Family for Tables {
    fn kinds(&self) -> &'static [&'static str] {
        &[
            "module",
            "function_definition",
            "class_definition",
            "assignment",
            "augmented_assignment",
            "for_statement",
            "named_expression",
            "call",
            "string",
            "concatenated_string",
            "program",
            "decorator",
            "variable_declarator",
            "call_expression",
            "new_expression",
            "template_string",
        ]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        match cx.syntax {
            Syntax::Python | Syntax::JavaScript => HINTS.any_in(cx),
            Syntax::Rust => false,
        }
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        match cx.syntax {
            Syntax::Python => self.visit_python(node, kind, cx, facts),
            Syntax::JavaScript => self.visit_js(node, kind, cx, facts),
            Syntax::Rust => {}
        }
    }

    fn finish(&mut self, _cx: &Context<'_>, facts: &mut FileFacts) {
        raw_sql::finish(&mut self.sql, facts);
    }
}

impl Tables {
    fn visit_python(
        &mut self,
        node: Node<'_>,
        kind: &str,
        cx: &Context<'_>,
        facts: &mut FileFacts,
    ) {
        self.scopes.advance(node);
        match kind {
            "module" => {
                self.django = cx.source.contains("django");
                self.peewee = cx.source.contains("peewee");
                self.flask_sqlalchemy = cx.source.contains("flask_sqlalchemy");
                self.sql = raw_sql::Pending::for_file(cx);
            }
            "function_definition" => {
                self.scopes.enter(node);
                parameters(node, cx.source, &mut self.scopes);
            }
            "class_definition" => {
                if let Some(name) = node.field("name") {
                    facts.tables.classes.push(text(name, cx.source).to_owned());
                }
                if (self.peewee && peewee::class(node, cx, facts))
                    || sqlmodel::class(node, cx, facts)
                    || sqlalchemy::class(node, cx, self.flask_sqlalchemy, facts)
                {
                    return;
                }
                if self.django {
                    django::class(node, cx, facts);
                }
            }
            "assignment" | "augmented_assignment" => {
                if kind == "assignment" {
                    sqlalchemy::table_assignment(node, cx, facts);
                }
                sqlalchemy::attribute_write(node, cx, &self.scopes, facts);
                remember_assignment(node, cx, &mut self.scopes);
            }
            "for_statement" => remember_loop(node, cx.source, &mut self.scopes),
            "named_expression" => remember_walrus(node, cx.source, &mut self.scopes),
            "call" => {
                raw_sql::call(node, cx, &mut self.sql);
                peewee::call(node, cx, facts);
                if !may_touch_tables(node, cx) {
                    return;
                }
                if let Some(detached) = sqlalchemy::detached(node, cx.source) {
                    self.scopes.detach(detached);
                }
                sqlalchemy::call(node, cx, &self.scopes, facts);
                django::call(node, cx, &self.scopes, facts);
            }
            "string" | "concatenated_string" => raw_sql::literal(node, cx, &mut self.sql, facts),
            _ => {}
        }
    }

    fn visit_js(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        match kind {
            "program" => {
                self.knex_word = cx.source.contains("knex");
                self.sequelize_word = sequelize::mentioned(cx.source);
                self.sql = raw_sql::Pending::for_file(cx);
            }
            "decorator" => {
                typeorm::decorator(node, cx, facts);
                sequelize::decorator(node, cx, self.sequelize_word, facts);
            }
            "variable_declarator" => {
                knex::remember_instance(node, cx, &mut self.knex_names, facts);
            }
            "call_expression" | "new_expression" => {
                raw_sql::call(node, cx, &mut self.sql);
                if kind == "new_expression" {
                    return;
                }
                drizzle::call(node, cx, facts);
                sequelize::call(node, cx, self.sequelize_word, facts);
                kysely::call(node, cx, facts);
                knex::call(node, cx, self.knex_word, &self.knex_names, facts);
            }
            "string" | "template_string" => raw_sql::literal(node, cx, &mut self.sql, facts),
            _ => {}
        }
    }
}

/// `a`, `a.b.c` for an identifier or a chain of attribute (Python) / member (JS) accesses on
/// identifiers; `None` for anything else. Looks at most a few levels down.
/// Whether a Python call may be one that `sqlalchemy::detached`, `sqlalchemy::call` or
/// `django::call` reads, judged from the callee's text: its last name is one of the methods
/// they read, or it goes through `objects` or `query`. A fast path for speed: each of them
/// looks the callee's fields up again, for every call of the file.
fn may_touch_tables(call: Node<'_>, cx: &Context<'_>) -> bool {
    let Some(function) = cx.field(call, "function") else { return false };
    let callee = text(function, cx.source);
    let last = callee.rsplit('.').next().and_then(|l| l.split_whitespace().last());
    last.is_some_and(|l| {
        sqlalchemy::METHODS.contains(&l)
            || matches!(
                l,
                "expunge_all"
                    | "expunge"
                    | "make_transient"
                    | "make_transient_to_detached"
                    | "save"
            )
    }) || callee.contains("objects")
        || callee.contains("query")
}

/// `(left, right)` of a statement that is a plain assignment (`name = value`), as in a class or
/// `Meta` body; `None` for any other statement.
pub(super) fn assignment_sides<'t>(statement: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let assignment = statement.named_child(0).filter(|a| {
        statement.kind_name() == "expression_statement" && a.kind_name() == "assignment"
    })?;
    Some((assignment.field("left")?, assignment.field("right")?))
}

pub(super) fn dotted_name(node: Node<'_>, source: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut current = node;
    for _ in 0..8 {
        match current.kind_name() {
            "identifier" | "this" => {
                parts.push(text(current, source));
                parts.reverse();
                return Some(parts.join("."));
            }
            "attribute" | "member_expression" => {
                let field =
                    if current.kind_name() == "attribute" { "attribute" } else { "property" };
                parts.push(text(current.field(field)?, source));
                current = current.field("object")?;
            }
            _ => return None,
        }
    }
    None
}

/// The positional arguments of a call (Python `argument_list` or JS `arguments`), skipping
/// keyword arguments, comments and splats.
pub(super) fn positional_args(call: Node<'_>) -> Vec<Node<'_>> {
    let Some(args) = call.field("arguments") else {
        return Vec::new();
    };
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter(|a| {
            !matches!(
                a.kind_name(),
                "keyword_argument"
                    | "comment"
                    | "list_splat"
                    | "dictionary_splat"
                    | "spread_element"
            )
        })
        .collect()
}

/// The method calls chained onto `call`: for `q(...).filter(...).delete()` seen from `q(...)`,
/// `["filter", "delete"]`. Looks at most a dozen levels up.
pub(super) fn chained_methods(call: Node<'_>, source: &str) -> Vec<String> {
    let mut methods = Vec::new();
    let mut current = call;
    for _ in 0..12 {
        let Some(access) = current.parent() else { break };
        if !matches!(access.kind_name(), "attribute" | "member_expression")
            || access.field("object").map(|o| o.id()) != Some(current.id())
        {
            break;
        }
        let field = if access.kind_name() == "attribute" { "attribute" } else { "property" };
        let Some(name) = access.field(field) else { break };
        let Some(next) = access.parent() else { break };
        if !matches!(next.kind_name(), "call" | "call_expression") {
            break;
        }
        methods.push(text(name, source).to_owned());
        current = next;
    }
    methods
}

/// A new [`ModelUse`] at `node`.
pub(super) fn model_use(
    node: Node<'_>,
    model: String,
    access: Access,
    via: impl Into<String>,
    confidence: Confidence,
    reason: Option<String>,
) -> ModelUse {
    let (line, column) = position(node);
    ModelUse {
        model,
        access,
        via: via.into(),
        confidence,
        reason,
        line,
        column,
        attribute: None,
        framework: None,
    }
}

/// The names of the parameters of a Python function annotated with a plain class name
/// (`item: Item`): possibly an instance of that model.
fn parameters(function: Node<'_>, source: &str, scopes: &mut Scopes) {
    let Some(params) = function.field("parameters") else { return };
    let mut cursor = params.walk();
    for param in params.named_children(&mut cursor) {
        if !matches!(param.kind_name(), "typed_parameter" | "typed_default_parameter") {
            continue;
        }
        let name = param
            .field("name")
            .or_else(|| param.named_child(0).filter(|n| n.kind_name() == "identifier"));
        let (Some(name), Some(ty)) = (name, param.field("type")) else { continue };
        let Some(class) = annotation_class(ty, source) else { continue };
        scopes.set(
            text(name, source),
            Known {
                reason: format!("the parameter is annotated as {class}"),
                model: class,
                confidence: Confidence::Possible,
                origin: Origin::Other,
            },
        );
    }
}

/// The class of a `type` node that names one class (`Item`, `models.Item`, `Item | None`).
fn annotation_class(ty: Node<'_>, source: &str) -> Option<String> {
    let inner = ty.named_child(0)?;
    let inner = if inner.kind_name() == "binary_operator" {
        let left = inner.field("left")?;
        let right = inner.field("right")?;
        if text(right, source) != "None" {
            return None;
        }
        left
    } else {
        inner
    };
    let name = dotted_name(inner, source)?;
    let last = name.rsplit('.').next().unwrap_or(&name);
    last.starts_with(|c: char| c.is_ascii_uppercase()).then_some(name)
}

/// `obj = Item(...)`, `obj = Item.objects.get(...)`, `obj = session.get(Item, id)`,
/// `obj = Item.model_validate(...)`, `obj: Item = ...`: what `obj` then holds.
/// A name bound to anything else is forgotten: the most recent binding of a name wins. The
/// binding takes effect after the assignment, whose value still sees the previous one
/// (`ti = session.merge(ti)`).
fn remember_assignment(node: Node<'_>, cx: &Context<'_>, scopes: &mut Scopes) {
    let source = cx.source;
    let Some(left) = cx.field(node, "left") else { return };
    let after = node.end_byte();
    if left.kind_name() != "identifier" {
        forget_targets(left, after, source, scopes);
        return;
    }
    let var = text(left, source);
    if node.kind_name() == "assignment"
        && let Some(right) = cx.field(node, "right")
        && let Some(known) = binding(right, source)
    {
        scopes.bind(after, var, Some(known));
        return;
    }
    if let Some(ty) = cx.field(node, "type")
        && let Some(class) = annotation_class(ty, source)
    {
        let known = Known {
            reason: format!("the variable is annotated as {class}"),
            model: class,
            confidence: Confidence::Possible,
            origin: Origin::Other,
        };
        scopes.bind(after, var, Some(known));
        return;
    }
    // `qs = qs.exclude(...)`, `stmt = stmt.where(...)`: a query refined from the name itself
    // keeps its model. An instance's method (`item = item.to_dict()`) gives something else.
    if let Some(right) = cx.field(node, "right")
        && right.kind_name() != "identifier"
        && receiver_root(right, source) == Some(var)
        && scopes.get(var).is_some_and(|known| known.origin == Origin::Other)
    {
        return;
    }
    scopes.bind(after, var, None);
}

/// The name at the root of a chain of method calls and attribute accesses (`qs` in
/// `qs.exclude(...).order_by(...)`), `await` aside.
fn receiver_root<'s>(expr: Node<'_>, source: &'s str) -> Option<&'s str> {
    let mut current = expr;
    for _ in 0..16 {
        current = match current.kind_name() {
            "identifier" => return Some(text(current, source)),
            "await" | "parenthesized_expression" => current.named_child(0)?,
            "call" => current.field("function")?,
            "attribute" => current.field("object")?,
            _ => return None,
        };
    }
    None
}

/// `for obj in session.scalars(select(M)):`: each `obj` is a loaded `M`. A loop over anything
/// else forgets its names. The binding takes effect after the iterable.
fn remember_loop(node: Node<'_>, source: &str, scopes: &mut Scopes) {
    let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
        return;
    };
    let after = right.end_byte();
    if left.kind_name() == "identifier"
        && let Some((model, via)) = sqlalchemy::loaded_model(right, source, true)
    {
        let known = Known {
            reason: format!("the object is a {model} loaded by {via} in the same function"),
            model,
            confidence: Confidence::Likely,
            origin: Origin::Loaded(via),
        };
        scopes.bind(after, text(left, source), Some(known));
        return;
    }
    forget_targets(left, after, source, scopes);
}

/// `(obj := session.get(M, pk))`.
fn remember_walrus(node: Node<'_>, source: &str, scopes: &mut Scopes) {
    let Some(name) = node.field("name").filter(|n| n.kind_name() == "identifier") else {
        return;
    };
    let known = node.field("value").and_then(|v| binding(v, source));
    scopes.bind(node.end_byte(), text(name, source), known);
}

/// Forgets, from byte `after` on, the names an assignment or loop target (`a, b`, `[a, b]`)
/// binds.
fn forget_targets(target: Node<'_>, after: usize, source: &str, scopes: &mut Scopes) {
    match target.kind_name() {
        "identifier" => scopes.bind(after, text(target, source), None),
        "pattern_list" | "tuple_pattern" | "list_pattern" | "list_splat_pattern" => {
            let mut cursor = target.walk();
            for child in target.named_children(&mut cursor) {
                forget_targets(child, after, source, scopes);
            }
        }
        _ => {}
    }
}

/// What a name bound to `expr` holds: [`instance_of`], marked as loaded from the database when
/// the expression is one of the loads [`sqlalchemy::loaded_model`] knows.
fn binding(expr: Node<'_>, source: &str) -> Option<Known> {
    let loaded = sqlalchemy::loaded_model(expr, source, false);
    match (instance_of(expr, source), loaded) {
        (Some(mut known), Some((model, via))) if known.model == model => {
            known.origin = Origin::Loaded(via);
            Some(known)
        }
        (Some(known), _) => Some(known),
        (None, Some((model, via))) => Some(Known {
            reason: format!("the object is a {model} loaded by {via} in the same function"),
            model,
            confidence: Confidence::Likely,
            origin: Origin::Loaded(via),
        }),
        (None, None) => None,
    }
}

/// The model an expression produces an instance (or query) of, when the syntax says so.
fn instance_of(expr: Node<'_>, source: &str) -> Option<Known> {
    let mut current = expr;
    // True while `current` is the whole expression (an `await` aside): only then is a
    // constructor call's result the value bound.
    let mut top = true;
    // Walk down a chain such as `session.exec(select(Item)).first()` to its root call.
    for _ in 0..8 {
        if current.kind_name() == "await" {
            current = current.named_child(0)?;
            continue;
        }
        let new = if top { Origin::New } else { Origin::Other };
        top = false;
        if current.kind_name() != "call" {
            return None;
        }
        let function = current.field("function")?;
        if let Some(name) = dotted_name(function, source) {
            let last = name.rsplit('.').next().unwrap_or(&name);
            if last.starts_with(|c: char| c.is_ascii_uppercase()) {
                return Some(Known {
                    reason: format!("the object is created by {name}(...) in the same function"),
                    model: name,
                    confidence: Confidence::Likely,
                    origin: new,
                });
            }
            if let Some((receiver, method)) = name.rsplit_once('.') {
                if matches!(method, "model_validate" | "from_orm" | "parse_obj" | "construct")
                    && receiver
                        .rsplit('.')
                        .next()
                        .is_some_and(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
                {
                    return Some(Known {
                        reason: format!("the object is created by {name} in the same function"),
                        model: receiver.to_owned(),
                        confidence: Confidence::Likely,
                        origin: new,
                    });
                }
                if let Some(model) = receiver.strip_suffix(".objects") {
                    return Some(Known {
                        reason: format!(
                            "the object comes from {model}.objects in the same function"
                        ),
                        model: model.to_owned(),
                        confidence: Confidence::Likely,
                        origin: Origin::Other,
                    });
                }
                if matches!(method, "get" | "query" | "get_one") {
                    let args = positional_args(current);
                    let first = args.first().and_then(|a| dotted_name(*a, source));
                    if let Some(model) = first.filter(|m| {
                        m.rsplit('.')
                            .next()
                            .is_some_and(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
                    }) {
                        return Some(Known {
                            reason: format!(
                                "the object comes from {method}({model}) in the same function"
                            ),
                            model,
                            confidence: Confidence::Likely,
                            origin: Origin::Other,
                        });
                    }
                }
            }
            if matches!(
                name.as_str(),
                "select" | "sa.select" | "sqlalchemy.select" | "sqlmodel.select"
            ) {
                let args = positional_args(current);
                let model = args.first().and_then(|a| dotted_name(*a, source))?;
                return Some(Known {
                    reason: format!("the object comes from select({model}) in the same function"),
                    model,
                    confidence: Confidence::Likely,
                    origin: Origin::Other,
                });
            }
        }
        // A method call on something else: look at its receiver, or at the first argument of
        // `session.exec(...)` / `session.scalars(...)`.
        if let Some(object) = function.field("object") {
            let method = function.field("attribute").map(|a| text(a, source));
            current = if matches!(method, Some("exec" | "execute" | "scalars" | "scalar")) {
                *positional_args(current).first()?
            } else {
                object
            };
            continue;
        }
        return None;
    }
    None
}

/// The value of a literal string node, or `None` when it is computed.
pub(super) fn literal(node: Node<'_>, source: &str) -> Option<String> {
    literal_string(node, source)
}

#[cfg(test)]
mod tests;
