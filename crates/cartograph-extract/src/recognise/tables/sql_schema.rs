//! SQL schema files (`*.sql`): the tables their `CREATE TABLE` statements declare.
//!
//! Recognises `CREATE [OR REPLACE] [UNLOGGED] TABLE [IF NOT EXISTS] [schema.]name` (any case;
//! quoted names are unquoted) in a `.sql` file of the application's own schema: the file defines
//! the table (provenance `syntax`, confidence `likely`: whether the file is run against the
//! application's database is not visible, though a schema folder says so). Read without
//! tree-sitter, by a small tokenizer that skips comments and string literals.
//!
//! Not read: files in a folder of migrations, seeds, fixtures, tests, examples or docs
//! (`migrations/`, `migrate/`, `alterations/`, `seeds`, `fixtures/`, `test/`, `tests/`,
//! `__tests__/`, `example_dags/`, `samples/`, `demo/`, `docs/`), since a migration may create a
//! table a later one drops or renames, and a test or an example creates its own; temporary tables
//! (`CREATE TEMP TABLE`); a name that is a template slot (`${table}`, `{{ table }}`); the
//! database's own catalogs.
//!
//! ```sql
//! create table scopes (            -- defines table scopes
//!   id varchar(21) not null,
//!   primary key (id)
//! );
//! ```

use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Node, NodeKey, Provenance, RepoPath, SourceLocation,
};

use crate::recognise::link::Linked;

/// One table a schema file creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlTable {
    pub table: String,
    pub schema: Option<String>,
    /// 1-based line of the `CREATE` keyword.
    pub line: u32,
}

/// True for a `.sql` file this recogniser reads: not in a folder of migrations, seeds, fixtures
/// or tests.
pub fn is_schema_file(path: &RepoPath) -> bool {
    if path.extension() != Some("sql") {
        return false;
    }
    let components: Vec<&str> = path.components().collect();
    let folders = components.split_last().map_or(&[][..], |(_, folders)| folders);
    !folders.iter().any(|f| {
        let f = f.to_ascii_lowercase();
        f.contains("migration")
            || f.contains("example")
            || f.contains("sample")
            || f.contains("demo")
            || matches!(
                f.as_str(),
                "migrate"
                    | "alterations"
                    | "seed"
                    | "seeds"
                    | "fixtures"
                    | "test"
                    | "tests"
                    | "__tests__"
                    | "docs"
            )
    })
}

/// The tables one schema file creates, in order.
pub fn extract_sql_schema(text: &str) -> Vec<SqlTable> {
    let words = words(text);
    let mut tables = Vec::new();
    let mut i = 0;
    while let Some((word, line)) = words.get(i) {
        i += 1;
        if !word.eq_ignore_ascii_case("create") {
            continue;
        }
        let mut j = i;
        let mut temporary = false;
        while let Some((w, _)) = words.get(j) {
            let upper = w.to_ascii_uppercase();
            match upper.as_str() {
                "OR" | "REPLACE" | "UNLOGGED" | "GLOBAL" | "LOCAL" => j += 1,
                "TEMP" | "TEMPORARY" => {
                    temporary = true;
                    j += 1;
                }
                _ => break,
            }
        }
        if !words.get(j).is_some_and(|(w, _)| w.eq_ignore_ascii_case("table")) {
            continue;
        }
        j += 1;
        if words.get(j).is_some_and(|(w, _)| w.eq_ignore_ascii_case("if"))
            && words.get(j + 1).is_some_and(|(w, _)| w.eq_ignore_ascii_case("not"))
            && words.get(j + 2).is_some_and(|(w, _)| w.eq_ignore_ascii_case("exists"))
        {
            j += 3;
        }
        let Some((name, _)) = words.get(j) else { break };
        i = j + 1;
        if temporary {
            continue;
        }
        let parts: Vec<&str> = name.split('.').collect();
        let valid = |p: &&str| {
            p.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && p.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        };
        if parts.len() > 2 || !parts.iter().all(valid) {
            continue;
        }
        let (schema, table) = match parts.as_slice() {
            [schema, table] => (Some((*schema).to_owned()), (*table).to_owned()),
            [table] => (None, (*table).to_owned()),
            _ => continue,
        };
        let lower = table.to_ascii_lowercase();
        if lower.starts_with("pg_") || lower.starts_with("sqlite_") {
            continue;
        }
        tables.push(SqlTable { table, schema, line: *line });
    }
    tables
}

/// The words of a SQL text with their 1-based lines: runs of name characters, dots joining a
/// qualified name, quotes removed from quoted identifiers; comments, string literals and
/// punctuation dropped (`(` ends a name, so `users(` is `users`).
fn words(text: &str) -> Vec<(String, u32)> {
    let chars: Vec<char> = text.chars().collect();
    let at = |j: usize| chars.get(j).copied().unwrap_or('\0');
    let mut words: Vec<(String, u32)> = Vec::new();
    let mut line = 1u32;
    let mut i = 0;
    let mut current = String::new();
    let mut start_line = 1u32;
    let flush = |current: &mut String, words: &mut Vec<(String, u32)>, line: u32| {
        if !current.is_empty() {
            words.push((std::mem::take(current), line));
        }
    };
    while i < chars.len() {
        let c = at(i);
        if c == '-' && at(i + 1) == '-' {
            flush(&mut current, &mut words, start_line);
            while i < chars.len() && at(i) != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            flush(&mut current, &mut words, start_line);
            i += 2;
            while i < chars.len() && !(at(i) == '*' && at(i + 1) == '/') {
                if at(i) == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
        } else if c == '\'' {
            flush(&mut current, &mut words, start_line);
            i += 1;
            while i < chars.len() && at(i) != '\'' {
                if at(i) == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '"' || c == '`' {
            // A quoted identifier joins the name being read (`"app"."users"`).
            if current.is_empty() {
                start_line = line;
            }
            i += 1;
            while i < chars.len() && at(i) != c {
                current.push(at(i));
                i += 1;
            }
            i += 1;
        } else if c.is_alphanumeric() || c == '_' || c == '$' || c == '.' {
            if current.is_empty() {
                start_line = line;
            }
            current.push(c);
            i += 1;
        } else {
            flush(&mut current, &mut words, start_line);
            if c == '\n' {
                line += 1;
            }
            // A template slot (`${table}`, `{{ table }}`) becomes a word no name matches.
            if c == '{' {
                current.push('{');
                flush(&mut current, &mut words, line);
            }
            i += 1;
        }
    }
    flush(&mut current, &mut words, start_line);
    words
}

/// Adds the `defines` edges of every schema file's tables.
pub fn link(schemas: &[(RepoPath, Vec<SqlTable>)], linked: &mut Linked) {
    for (path, tables) in schemas {
        for table in tables {
            let key = NodeKey::table(table.schema.as_deref(), &table.table);
            let mut node = Node::new(key.clone());
            node.attrs.framework = Some("sql-schema".to_owned());
            linked.edge(
                Edge {
                    kind: EdgeKind::Defines,
                    from: NodeKey::module(path),
                    to: key.clone(),
                    evidence: Evidence::new(format!(
                        "CREATE TABLE in a SQL schema file declares table {}",
                        key.name()
                    )),
                    provenance: Provenance::Syntax,
                    confidence: Confidence::Likely,
                    location: SourceLocation::new(path.clone(), table.line, 1),
                    type_only: false,
                    occurrences: 1,
                },
                node,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, u32)> {
        extract_sql_schema(text)
            .into_iter()
            .map(|t| {
                let name = t.schema.map_or(t.table.clone(), |s| format!("{s}.{}", t.table));
                (name, t.line)
            })
            .collect()
    }

    #[test]
    fn create_table_statements_declare_tables() {
        let text = "/* init_order = 2 */\n\ncreate table scopes (\n  id varchar(21) not null,\n  \
                    note text default 'create table fake (x int)'\n);\n\
                    -- create table commented (x int);\n\
                    CREATE TABLE IF NOT EXISTS \"audit\".\"Events\"(id int);\n\
                    create unique index scopes__id on scopes (id);\n\
                    create temporary table scratch (x int);\n\
                    create table ${name} (x int);\n\
                    create or replace unlogged table cache_entries (k text);\n";
        assert_eq!(
            names(text),
            [
                ("scopes".to_owned(), 3),
                ("audit.Events".to_owned(), 8),
                ("cache_entries".to_owned(), 12)
            ]
        );
    }

    #[test]
    fn migrations_and_tests_are_not_schema_files() {
        for (path, expected) in [
            ("packages/schemas/tables/users.sql", true),
            ("db/schema.sql", true),
            ("prisma/migrations/20240101_init/migration.sql", false),
            ("packages/schemas/alterations/next.sql", false),
            ("server/tests/fixture.sql", false),
            (concat!("db/seeds", "/demo.sql"), false),
            ("src/app/example_dags/sql/sample.sql", false),
            ("docs/howto/schema.sql", false),
            ("src/app.ts", false),
        ] {
            assert_eq!(is_schema_file(&RepoPath::new(path).unwrap()), expected, "{path}");
        }
    }
}
