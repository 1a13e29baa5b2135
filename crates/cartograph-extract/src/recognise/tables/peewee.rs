//! Peewee models and the class methods that query them.
//!
//! Recognises, in files that mention `peewee`, a class with a base (`Model`, `peewee.Model`, a
//! project base model) whose body declares a peewee field (`name = CharField()`, any call whose
//! callee ends in `Field`) or a `Meta.table_name`: the table is `Meta.table_name` (peewee 3) or
//! `Meta.db_table` (peewee 2) when a literal (`certain`), else peewee's default, the class name
//! lower-cased (`UserProfile` → `userprofile`; in snake_case where the file sets
//! `legacy_table_names = False`), with provenance `convention` and confidence `likely`, or
//! `possible` when the file sets a `table_function` (a base's Meta may name tables). A base model
//! with no field of its own (`class BaseModel(Model): class Meta: database = db`) declares
//! nothing.
//!
//! Uses, in any Python file: `M.select`, `get`, `get_or_none`, `get_by_id` read; `M.create`,
//! `insert`, `insert_many`, `insert_from`, `replace`, `replace_many`, `update`, `delete`,
//! `delete_by_id`, `get_or_create`, `bulk_create`, `bulk_update` write (`likely`). The linker
//! keeps a use only when `M` leads to a Peewee model.
//!
//! Refuses (`computed-table`): a `table_name` that is not a literal.
//!
//! ```python
//! class Tweet(BaseModel):                  # defines table tweet
//!     user = ForeignKeyField(User, backref="tweets")
//! Tweet.select().where(Tweet.user == me)   # reads tweet
//! ```

use cartograph_core::Confidence;
use tree_sitter::Node;

use super::sqlalchemy::{refuse_computed, superclasses};
use super::{ModelFact, ModelTable, literal, model_use};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{member_name, position, text};

/// The recogniser's name, also the framework of its models and uses.
const NAME: &str = "peewee";

/// A class in a file that mentions peewee. Returns true when the class was handled (a model or
/// a refusal).
pub(super) fn class(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) -> bool {
    let (Some(name), Some(body)) = (node.field("name"), node.field("body")) else {
        return false;
    };
    if superclasses(node, cx.source).is_empty() {
        return false;
    }
    let class_name = text(name, cx.source);
    let mut has_field = false;
    let mut table = None;
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        if statement.kind_name() == "class_definition"
            && statement.field("name").is_some_and(|n| text(n, cx.source) == "Meta")
            && let Some(meta) = statement.field("body")
        {
            let mut inner = meta.walk();
            for line in meta.named_children(&mut inner) {
                let Some((left, right)) = super::assignment_sides(line) else { continue };
                if matches!(text(left, cx.source), "table_name" | "db_table") {
                    table = Some(literal(right, cx.source));
                }
            }
            continue;
        }
        let Some((_, right)) = super::assignment_sides(statement) else { continue };
        if right.kind_name() == "call"
            && right.field("function").is_some_and(|f| text(f, cx.source).ends_with("Field"))
        {
            has_field = true;
        }
    }
    let table = match table {
        Some(Some(name)) => ModelTable::Declared { name, schema: None },
        Some(None) => {
            let reason = format!("the table_name of Peewee model {class_name} is computed");
            refuse_computed(cx, node, &reason, facts);
            return true;
        }
        None if !has_field => return false,
        None if cx.source.contains("table_function") => ModelTable::Possible {
            name: class_name.to_lowercase(),
            schema: None,
            rule: "peewee's default table name, the class name lower-cased, unless a \
                   table_function of a base names it",
        },
        None if cx.source.contains("legacy_table_names = False")
            || cx.source.contains("legacy_table_names=False") =>
        {
            ModelTable::Default {
                name: super::typeorm::snake_case(class_name),
                schema: None,
                rule: "peewee's table name with legacy_table_names off, the class name in \
                       snake_case",
            }
        }
        None => ModelTable::Default {
            name: class_name.to_lowercase(),
            schema: None,
            rule: "peewee's default table name, the class name lower-cased",
        },
    };
    let (line, column) = position(name);
    facts.tables.models.push(ModelFact {
        name: class_name.to_owned(),
        line,
        column,
        framework: NAME,
        table,
    });
    true
}

/// `M.select(...)`, `M.create(...)`, `M.delete().where(...)`: a use of `M` that only a Peewee
/// model can take.
pub(super) fn call(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let Some(function) = cx.field(node, "function").filter(|f| f.kind_name() == "attribute") else {
        return;
    };
    let Some(method) = member_name(function, cx.source) else { return };
    let access = match method {
        "select" | "get" | "get_or_none" | "get_by_id" => super::Access::Read,
        "create" | "insert" | "insert_many" | "insert_from" | "replace" | "replace_many"
        | "update" | "delete" | "delete_by_id" | "get_or_create" | "bulk_create"
        | "bulk_update" => super::Access::Write,
        _ => return,
    };
    let Some(object) = function.field("object").filter(|o| o.kind_name() == "identifier") else {
        return;
    };
    let model = text(object, cx.source);
    if !model.starts_with(|c: char| c.is_ascii_uppercase()) {
        return;
    }
    let mut model_use = model_use(
        node,
        model.to_owned(),
        access,
        format!("Peewee {method}"),
        Confidence::Likely,
        None,
    );
    model_use.framework = Some(NAME.to_owned());
    facts.tables.uses.push(model_use);
}
