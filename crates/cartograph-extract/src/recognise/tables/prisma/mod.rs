//! Prisma schema files (`schema.prisma`): the tables their models map to.
//!
//! Recognises `model Name { … }` blocks and their `@@map("table")` and `@@schema("schema")`
//! attributes; a model without `@@map` maps to a table named like the model, as Prisma does.
//! `view` and `enum` blocks are not tables and are skipped. A `@@map` whose argument is not a
//! plain string is refused (`computed-table`). Prisma schemas are not parsed with tree-sitter (there
//! is no maintained grammar crate); this is a small line-oriented reader that understands comments
//! and nested braces well enough for the block structure Prisma allows.
//!
//! ```prisma
//! model Item {
//!   id    Int    @id
//!   title String
//!   @@map("items")
//! }
//! ```
//! yields the model `Item` mapping to the table `items`.

pub mod link;

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};

/// One model of a Prisma schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrismaModel {
    pub model: String,
    pub table: String,
    pub schema: Option<String>,
    /// 1-based line of the `model` keyword.
    pub line: u32,
}

/// Reads the models of one schema file; refusals for what cannot be read.
pub fn extract_prisma(path: &RepoPath, text: &str) -> (Vec<PrismaModel>, Vec<Refusal>) {
    let mut models = Vec::new();
    let mut refusals = Vec::new();
    let mut current: Option<PrismaModel> = None;
    let mut depth = 0usize;
    for (index, raw) in text.lines().enumerate() {
        let line_no = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let line = strip_comment(raw).trim();
        if depth == 0 {
            let mut words = line.split_whitespace();
            if words.next() == Some("model")
                && let Some(name) = words.next()
            {
                let name = name.trim_end_matches('{').to_owned();
                if is_identifier(&name) {
                    current = Some(PrismaModel {
                        table: name.clone(),
                        model: name,
                        schema: None,
                        line: line_no,
                    });
                }
            }
        } else if depth == 1
            && let Some(model) = current.as_mut()
        {
            if let Some(argument) = attribute_argument(line, "@@map") {
                match string_literal(argument) {
                    Some(table) => model.table = table,
                    None => refusals.push(Refusal::new(
                        RefusalKind::ComputedTable,
                        SourceLocation::new(path.clone(), line_no, 1),
                        format!("the @@map of model {} is not a plain string", model.model),
                    )),
                }
            } else if let Some(argument) = attribute_argument(line, "@@schema") {
                model.schema = string_literal(argument);
            }
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0
                        && let Some(model) = current.take()
                    {
                        models.push(model);
                    }
                }
                _ => {}
            }
        }
    }
    (models, refusals)
}

/// The line without a `//` comment (Prisma has no string that may hold `//` on a block line
/// that matters here, except inside quotes, which are kept).
fn strip_comment(line: &str) -> &str {
    let mut in_string = false;
    let bytes = line.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The text inside `@@name( … )` on a line, if the line is that attribute.
fn attribute_argument<'l>(line: &'l str, name: &str) -> Option<&'l str> {
    let rest = line.strip_prefix(name)?.trim_start();
    let inner = rest.strip_prefix('(')?;
    let end = inner.rfind(')')?;
    Some(inner[..end].trim())
}

/// A plain double-quoted string, possibly as `name: "x"` or `map: "x"`.
fn string_literal(argument: &str) -> Option<String> {
    let value = argument.split_once(':').map_or(argument, |(key, value)| {
        if key.trim() == "name" || key.trim() == "map" { value } else { argument }
    });
    let value = value.trim();
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.is_empty() && !inner.contains(['"', '\\'])).then(|| inner.to_owned())
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &[(&str, &str, Option<&str>, u32)]) -> Vec<Refusal> {
        let path = RepoPath::new("prisma/schema.prisma").expect("path");
        let (models, refusals) = extract_prisma(&path, text);
        let got: Vec<_> = models
            .iter()
            .map(|m| (m.model.as_str(), m.table.as_str(), m.schema.as_deref(), m.line))
            .collect();
        assert_eq!(got, expected);
        refusals
    }

    #[test]
    fn models_map_to_tables() {
        let schema = r#"
// The shop schema.
datasource db {
  provider = "postgresql"
  url      = env("DATABASE_URL")
}

model User {
  id    Int    @id @default(autoincrement())
  posts Post[] // relation
  @@map("users")
}

model Post {
  id       Int  @id
  author   User @relation(fields: [authorId], references: [id])
  authorId Int
  @@schema("blog")
}

enum Role {
  USER
}

view Stats {
  id Int @unique
}
"#;
        let refusals =
            check(schema, &[("User", "users", None, 8), ("Post", "Post", Some("blog"), 14)]);
        assert!(refusals.is_empty());
    }

    #[test]
    fn map_with_name_argument_and_comments() {
        check(
            "model A {\n  id Int @id\n  @@map(name: \"a_table\") // legacy name\n}\n",
            &[("A", "a_table", None, 1)],
        );
    }

    #[test]
    fn computed_map_is_refused() {
        let refusals = check("model A {\n  @@map(env(\"T\"))\n}\n", &[("A", "A", None, 1)]);
        assert_eq!(refusals.len(), 1);
        assert_eq!(refusals[0].kind, RefusalKind::ComputedTable);
        assert!(!refusals[0].reason.contains("env("));
    }

    #[test]
    fn garbage_does_not_panic() {
        let path = RepoPath::new("x.prisma").expect("path");
        for text in
            ["}}}}", "model", "model {", "@@map(", "model A { @@map(\"", "\u{feff}model B {"]
        {
            let _ = extract_prisma(&path, text);
        }
    }
}
