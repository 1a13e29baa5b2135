//! SQLModel: classes declared with `table=True`.
//!
//! Recognises `class X(Base, table=True)`: the table is `__tablename__` when it is a literal,
//! else the class name lower-cased, as SQLModel's default `__tablename__` does
//! (`cls.__name__.lower()`: `ItemTag` → `itemtag`), with provenance `convention` and confidence
//! `likely`. A literal `__table_args__ = {"schema": "x"}` gives the schema. Classes without
//! `table=True` are data models only and declare nothing. Queries on SQLModel models
//! (`select(Item)`, `session.exec(...)`, `session.add(...)`) are recognised by the `sqlalchemy`
//! recogniser, since SQLModel re-exports SQLAlchemy's.
//!
//! Refuses (`computed-table`): a `__tablename__` that is not a literal.
//!
//! ```python
//! class Item(ItemBase, table=True):          # defines table item
//!     id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
//! ```

use tree_sitter::Node;

use super::sqlalchemy::{ClassAttrs, refuse_computed};
use super::{ModelFact, ModelTable};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{position, text};

/// A `table=True` class. Returns true when the class was handled (a model or a refusal).
pub(super) fn class(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) -> bool {
    let (Some(name), Some(body)) = (node.field("name"), node.field("body")) else {
        return false;
    };
    if !has_table_true(node, cx.source) {
        return false;
    }
    let class_name = text(name, cx.source);
    let attrs = ClassAttrs::read(body, cx.source);
    let table = match attrs.tablename {
        Some(Some(table)) => ModelTable::Declared { name: table, schema: attrs.schema },
        Some(None) => {
            refuse_computed(
                cx,
                node,
                &format!("the table name of class {class_name} is computed"),
                facts,
            );
            return true;
        }
        None => ModelTable::Default {
            name: class_name.to_lowercase(),
            schema: attrs.schema,
            rule: "SQLModel's default table name, the class name lower-cased",
        },
    };
    let (line, column) = position(name);
    super::sqlalchemy::push_mapped(
        class_name,
        super::sqlalchemy::mapped_attributes(body, cx.source, true),
        facts,
    );
    facts.tables.models.push(ModelFact {
        name: class_name.to_owned(),
        line,
        column,
        framework: "sqlmodel",
        table,
    });
    true
}

/// `table=True` among the class keywords.
fn has_table_true(class: Node<'_>, source: &str) -> bool {
    let Some(args) = class.field("superclasses") else { return false };
    let mut cursor = args.walk();
    args.named_children(&mut cursor).any(|a| {
        a.kind_name() == "keyword_argument"
            && a.field("name").is_some_and(|n| text(n, source) == "table")
            && a.field("value").is_some_and(|v| text(v, source) == "True")
    })
}
