//! TypeORM entities.
//!
//! Recognises, in files that mention `typeorm`, a class decorated with `@Entity(...)`:
//! `@Entity("name")` and `@Entity({ name: "name", schema: "s" })` name the table (`certain`);
//! `@Entity()` (or an options object without `name`) takes TypeORM's default naming strategy, the
//! class name in snake_case (`UserProfile` → `user_profile`), with provenance `convention` and
//! confidence `likely` (a custom naming strategy in the data source would change it).
//! Repository and query-builder uses are not recognised.
//!
//! Refuses (`computed-table`): an entity name that is not a literal.
//!
//! ```ts
//! @Entity({ name: "orders", schema: "shop" })   // defines table shop.orders
//! export class Order { @PrimaryGeneratedColumn() id: number; }
//!
//! @Entity()                                     // defines table line_item
//! export class LineItem {}
//! ```

use tree_sitter::Node;

use super::sqlalchemy::refuse_computed;
use super::{ModelFact, ModelTable, literal, positional_args};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{position, text};

/// A decorator: records the entity when it is `@Entity(...)` on a class.
pub(super) fn decorator(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let Some(call) = node.named_child(0).filter(|c| c.kind_name() == "call_expression") else {
        return;
    };
    if call.field("function").map(|f| text(f, cx.source)) != Some("Entity")
        || !cx.source.contains("typeorm")
    {
        return;
    }
    let Some(class_name) = decorated_class(node, cx.source) else { return };
    let args = positional_args(call);
    let (mut name, mut schema, mut computed) = (None, None, false);
    match args.first() {
        None => {}
        Some(arg) if arg.kind_name() == "object" => {
            let mut cursor = arg.walk();
            for pair in arg.named_children(&mut cursor).filter(|p| p.kind_name() == "pair") {
                let key = pair.field("key").map(|k| {
                    literal(k, cx.source).unwrap_or_else(|| text(k, cx.source).to_owned())
                });
                let value = pair.field("value");
                match key.as_deref() {
                    Some("name") => match value.and_then(|v| literal(v, cx.source)) {
                        Some(v) => name = Some(v),
                        None => computed = true,
                    },
                    Some("schema") => schema = value.and_then(|v| literal(v, cx.source)),
                    _ => {}
                }
            }
        }
        Some(arg) => match literal(*arg, cx.source) {
            Some(v) => name = Some(v),
            None => computed = true,
        },
    }
    if computed {
        refuse_computed(
            cx,
            node,
            &format!("the table name of TypeORM entity {class_name} is computed"),
            facts,
        );
        return;
    }
    let table = match name {
        Some(name) => ModelTable::Declared { name, schema },
        None => ModelTable::Default {
            name: snake_case(&class_name),
            schema,
            rule: "TypeORM's default naming strategy, the class name in snake_case",
        },
    };
    let (line, column) = position(node);
    facts.tables.models.push(ModelFact {
        name: class_name,
        line,
        column,
        framework: "typeorm",
        table,
    });
}

/// The name of the class a decorator is attached to.
pub(super) fn decorated_class(decorator: Node<'_>, source: &str) -> Option<String> {
    let parent = decorator.parent()?;
    let class = match parent.kind_name() {
        "class_declaration" | "abstract_class_declaration" | "class" => parent,
        "export_statement" => parent.field("declaration")?,
        _ => return None,
    };
    class.field("name").map(|n| text(n, source).to_owned())
}

/// TypeORM's `snakeCase`: `ABc` → `a_bc`, `aC` → `a_c`, then lower case.
pub(super) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    // First rule: an upper-case letter followed by an upper-case letter and a lower-case one.
    let mut first: Vec<char> = Vec::with_capacity(chars.len() + 4);
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        first.push(c);
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let after = chars.get(i + 2).copied().unwrap_or(' ');
        if c.is_ascii_uppercase() && next.is_ascii_uppercase() && after.is_ascii_lowercase() {
            first.push('_');
            first.push(next);
            first.push(after);
            i += 3;
            continue;
        }
        i += 1;
    }
    // Second rule: a lower-case letter or digit followed by an upper-case letter.
    let mut out = String::with_capacity(first.len() + 4);
    for (i, c) in first.iter().enumerate() {
        if c.is_ascii_uppercase()
            && i > 0
            && first.get(i - 1).is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake_case_follows_typeorm() {
        for (input, expected) in [
            ("User", "user"),
            ("UserProfile", "user_profile"),
            ("HTTPRequest", "http_request"),
            ("Order2Item", "order2_item"),
        ] {
            assert_eq!(snake_case(input), expected, "{input}");
        }
    }
}
