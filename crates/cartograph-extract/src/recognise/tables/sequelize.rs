//! Sequelize models (`sequelize.define`, `Model.init`, sequelize-typescript's `@Table`) and the
//! static model methods that query them.
//!
//! Recognises, in files that mention Sequelize:
//! - `@Table({ tableName: "t", schema: "s" })` on a class (sequelize-typescript): the class
//!   declares table `t` (`certain`);
//! - `const M = sequelize.define("name", attributes, { tableName: "t" })`: `M` declares `t`;
//! - `M.init(attributes, { sequelize, tableName: "t" })`: `M` declares `t`.
//!
//! Without `tableName`, Sequelize names the table after the model (`modelName`, else the class
//! or `define` name): as it is with `freezeTableName: true`, else pluralised in English
//! (`underscored: true` puts it in snake_case first). Sequelize's instance-wide `define` options
//! can change both, and the plural here follows the common English rules only, so such a name
//! is `possible` (provenance `convention`).
//!
//! Uses, in any JS/TS file: `M.findAll`, `findOne`, `findByPk`, `findAndCountAll`, `count`,
//! `max`, `min`, `sum`, `aggregate` read; `M.create`, `bulkCreate`, `update`, `destroy`,
//! `upsert`, `increment`, `decrement`, `restore`, `truncate`, `findOrCreate` write (`likely`);
//! `M.scope(…)`, `M.unscoped()` and `M.schema(…)` before the method are seen through. The
//! linker keeps a use only when `M` leads to a Sequelize model, through imports or, where a
//! barrel's re-exports are not followed, by a model name that only one Sequelize model has.
//!
//! Refuses (`computed-table`): a `tableName` or model name that is not a literal.
//!
//! ```ts
//! @Table({ tableName: "teams", modelName: "team" })   // defines table teams
//! class Team extends Model {}
//! const Tag = sequelize.define("Tag", { name: DataTypes.STRING }); // defines Tags (possible)
//! await Team.findByPk(id);                             // reads teams
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

/// The recogniser's name, also the framework of its models and uses.
pub(super) const NAME: &str = "sequelize";

/// Static methods of a Sequelize model that read its table.
const READS: &[&str] = &[
    "findAll",
    "findOne",
    "findByPk",
    "findAndCountAll",
    "count",
    "max",
    "min",
    "sum",
    "aggregate",
];

/// Static methods of a Sequelize model that write its table.
const WRITES: &[&str] = &[
    "create",
    "bulkCreate",
    "update",
    "destroy",
    "upsert",
    "increment",
    "decrement",
    "restore",
    "truncate",
    "findOrCreate",
];

/// True when the file's text mentions Sequelize (`sequelize`, `Sequelize`, `sequelize-typescript`).
pub(super) fn mentioned(source: &str) -> bool {
    source.contains("equelize")
}

/// A decorator: `@Table` or `@Table({...})` on a class, in a file that mentions Sequelize.
pub(super) fn decorator(node: Node<'_>, cx: &Context<'_>, mentioned: bool, facts: &mut FileFacts) {
    if !mentioned {
        return;
    }
    let Some(inner) = node.named_child(0) else { return };
    let options = match inner.kind_name() {
        "identifier" if text(inner, cx.source) == "Table" => None,
        "call_expression"
            if inner.field("function").map(|f| text(f, cx.source)) == Some("Table") =>
        {
            positional_args(inner).first().copied()
        }
        _ => return,
    };
    let Some(class_name) = super::typeorm::decorated_class(node, cx.source) else { return };
    let options = match options {
        Some(o) if o.kind_name() == "object" => Some(o),
        Some(_) => {
            let reason = format!("the options of Sequelize model {class_name} are computed");
            refuse_computed(cx, node, &reason, facts);
            return;
        }
        None => None,
    };
    model(node, class_name, None, options, cx, facts);
}

/// A call: `sequelize.define(...)`, `M.init(..., { sequelize })`, or a static model method.
pub(super) fn call(node: Node<'_>, cx: &Context<'_>, mentioned: bool, facts: &mut FileFacts) {
    let Some(function) =
        cx.field(node, "function").filter(|f| f.kind_name() == "member_expression")
    else {
        return;
    };
    let Some(method) = member_name(function, cx.source) else { return };
    // The receiver is read only for a method some branch below takes.
    let known = (mentioned && matches!(method, "define" | "init"))
        || READS.contains(&method)
        || WRITES.contains(&method);
    if !known {
        return;
    }
    let Some(object) = function.field("object") else { return };
    match method {
        "define" if mentioned => define(node, cx, facts),
        "init" if mentioned => init(node, object, cx, facts),
        _ => model_method(node, method, object, cx, facts),
    }
}

/// `sequelize.define("name", attributes, options)`.
fn define(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let args = positional_args(node);
    let (Some(first), Some(attributes)) = (args.first(), args.get(1)) else { return };
    if attributes.kind_name() != "object" {
        return;
    }
    let Some(model_name) = literal(*first, cx.source) else {
        refuse_computed(cx, node, "the model name passed to Sequelize's define is computed", facts);
        return;
    };
    let variable = cx
        .parent(node)
        .filter(|p| p.kind_name() == "variable_declarator")
        .and_then(|p| p.field("name"))
        .filter(|n| n.kind_name() == "identifier")
        .map(|n| text(n, cx.source).to_owned())
        .unwrap_or_else(|| model_name.clone());
    let options = args.get(2).copied().filter(|o| o.kind_name() == "object");
    // `define` names the model by its first argument, whatever the options say.
    model(node, variable, Some(model_name), options, cx, facts);
}

/// `M.init(attributes, { sequelize, tableName })`.
fn init(node: Node<'_>, object: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    if object.kind_name() != "identifier" {
        return;
    }
    let args = positional_args(node);
    let Some(options) = args.get(1).copied().filter(|o| o.kind_name() == "object") else { return };
    if option(options, "sequelize", cx.source).is_none() {
        return;
    }
    let class_name = text(object, cx.source).to_owned();
    model(node, class_name, None, Some(options), cx, facts);
}

/// Records the model `name` (the class or variable), with its table from `options` or Sequelize's
/// default. The model name is `defined` (`define`'s first argument), else the options'
/// `modelName`, else `name`.
fn model(
    node: Node<'_>,
    name: String,
    defined: Option<String>,
    options: Option<Node<'_>>,
    cx: &Context<'_>,
    facts: &mut FileFacts,
) {
    let value = |key: &str| options.and_then(|o| option(o, key, cx.source));
    let computed = |facts: &mut FileFacts, what: &str| {
        let reason = format!("the {what} of Sequelize model {name} is computed");
        refuse_computed(cx, node, &reason, facts);
    };
    let schema = value("schema").and_then(|v| literal(v, cx.source));
    let table = if let Some(table) = value("tableName") {
        let Some(table) = literal(table, cx.source) else { return computed(facts, "tableName") };
        ModelTable::Declared { name: table, schema }
    } else {
        let model_name = match (defined, value("modelName")) {
            (Some(defined), _) => defined,
            (None, Some(v)) => match literal(v, cx.source) {
                Some(m) => m,
                None => return computed(facts, "modelName"),
            },
            (None, None) => name.clone(),
        };
        let flag = |key: &str| value(key).is_some_and(|v| text(v, cx.source) == "true");
        if flag("freezeTableName") {
            ModelTable::Possible {
                name: model_name,
                schema,
                rule: "Sequelize's frozen table name, the model name",
            }
        } else if flag("underscored") {
            ModelTable::Possible {
                name: pluralise(&super::typeorm::snake_case(&model_name)),
                schema,
                rule: "Sequelize's default table name, the model name underscored and pluralised",
            }
        } else {
            ModelTable::Possible {
                name: pluralise(&model_name),
                schema,
                rule: "Sequelize's default table name, the model name pluralised",
            }
        }
    };
    let (line, column) = position(node);
    facts.tables.models.push(ModelFact { name, line, column, framework: NAME, table });
}

/// `M.findAll(...)`, `M.scope("x").findOne(...)`, `models.M.create(...)`.
fn model_method(
    node: Node<'_>,
    method: &str,
    object: Node<'_>,
    cx: &Context<'_>,
    facts: &mut FileFacts,
) {
    let access = if READS.contains(&method) {
        Access::Read
    } else if WRITES.contains(&method) {
        Access::Write
    } else {
        return;
    };
    // `M.scope(...)`, `M.unscoped()`, `M.schema(...)`: the model itself.
    let mut receiver = object;
    if receiver.kind_name() == "call_expression"
        && let Some(inner) = receiver.field("function").filter(|f| {
            f.kind_name() == "member_expression"
                && f.field("property")
                    .is_some_and(|p| matches!(text(p, cx.source), "scope" | "unscoped" | "schema"))
        })
        && let Some(model) = inner.field("object")
    {
        receiver = model;
    }
    if !matches!(receiver.kind_name(), "identifier" | "member_expression") {
        return;
    }
    let Some(model) = dotted_name(receiver, cx.source) else { return };
    let last = model.rsplit('.').next().unwrap_or(&model);
    if !last.starts_with(|c: char| c.is_ascii_uppercase()) || model.starts_with("this.") {
        return;
    }
    let mut model_use =
        model_use(node, model, access, format!("Sequelize {method}"), Confidence::Likely, None);
    model_use.framework = Some(NAME.to_owned());
    facts.tables.uses.push(model_use);
}

/// The value of `key` in an object literal (`{ key: v }`, or `{ key }` shorthand: the key).
fn option<'t>(object: Node<'t>, key: &str, source: &str) -> Option<Node<'t>> {
    let mut cursor = object.walk();
    object.named_children(&mut cursor).find_map(|child| match child.kind_name() {
        "pair" => {
            let k = child.field("key")?;
            let name = literal(k, source).unwrap_or_else(|| text(k, source).to_owned());
            (name == key).then(|| child.field("value")).flatten()
        }
        "shorthand_property_identifier" => (text(child, source) == key).then_some(child),
        _ => None,
    })
}

/// The English plural of a model name, as the `inflection` library Sequelize uses forms it for
/// common words: `User` → `Users`, `Category` → `Categories`, `Box` → `Boxes`, `Person` →
/// `People`; uncountable words stay (`Information`, `Data`).
pub(super) fn pluralise(name: &str) -> String {
    const IRREGULAR: &[(&str, &str)] = &[
        ("person", "people"),
        ("man", "men"),
        ("woman", "women"),
        ("child", "children"),
        ("mouse", "mice"),
        ("goose", "geese"),
        ("foot", "feet"),
        ("tooth", "teeth"),
    ];
    const UNCOUNTABLE: &[&str] = &[
        "equipment",
        "information",
        "rice",
        "money",
        "species",
        "series",
        "fish",
        "sheep",
        "moose",
        "deer",
        "news",
        "data",
        "metadata",
    ];
    let lower = name.to_ascii_lowercase();
    if UNCOUNTABLE.iter().any(|u| lower.ends_with(u)) {
        return name.to_owned();
    }
    for (one, many) in IRREGULAR {
        if lower.ends_with(one) {
            let stem = name.get(..name.len() - one.len()).unwrap_or("");
            let first_upper = name
                .get(name.len() - one.len()..)
                .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_uppercase()));
            // A whole word only: `Human` is not a `man`.
            if !(stem.is_empty() || stem.ends_with('_') || first_upper) {
                continue;
            }
            let mut tail = (*many).to_owned();
            if first_upper && let Some(first) = tail.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            return format!("{stem}{tail}");
        }
    }
    let bytes = lower.as_bytes();
    let before_last = bytes.len().checked_sub(2).and_then(|i| bytes.get(i)).copied();
    let vowel = |c: Option<u8>| matches!(c, Some(b'a' | b'e' | b'i' | b'o' | b'u'));
    if lower.ends_with('y') && !vowel(before_last) {
        return format!("{}ies", name.get(..name.len() - 1).unwrap_or(""));
    }
    if ["s", "x", "z", "ch", "sh"].iter().any(|e| lower.ends_with(e)) {
        return format!("{name}es");
    }
    format!("{name}s")
}

#[cfg(test)]
mod tests {
    use super::pluralise;

    #[test]
    fn pluralise_follows_english() {
        for (one, many) in [
            ("User", "Users"),
            ("Category", "Categories"),
            ("Day", "Days"),
            ("Box", "Boxes"),
            ("Address", "Addresses"),
            ("Branch", "Branches"),
            ("Person", "People"),
            ("SalesPerson", "SalesPeople"),
            ("user_profile", "user_profiles"),
            ("Metadata", "Metadata"),
            ("Human", "Humans"),
        ] {
            assert_eq!(pluralise(one), many, "{one}");
        }
    }
}
