//! pydantic settings classes: each field is read from an environment variable.
//!
//! Recognises a class deriving from `BaseSettings` imported from `pydantic_settings` or
//! `pydantic` (also written `pydantic_settings.BaseSettings`), or from such a class declared
//! earlier in the same file (which passes its configuration on). Each annotated field (not
//! `_private`, not `model_config`, not `ClassVar`) reads the variable `env_prefix + name`,
//! upper-cased unless `case_sensitive=True`; the prefix and `case_sensitive` come from
//! `model_config = SettingsConfigDict(...)` (or a dict literal) or a nested `class Config:`. An
//! alias (`Field(alias="X")`, `validation_alias="X"`, `AliasChoices("X", "Y")`, pydantic v1's
//! `env="X"`) is used as is, without the prefix. Provenance `convention`, confidence `likely`
//! (pydantic matches names case-insensitively by default, and a settings source may be swapped).
//! Field defaults are never read.
//!
//! Refuses (`computed-env-key`): a class whose `env_prefix` is not a literal, and a field whose
//! alias is not a literal.
//!
//! ```python
//! class Settings(BaseSettings):
//!     model_config = SettingsConfigDict(env_prefix="APP_")
//!     database_url: str = "sqlite://"       # reads APP_DATABASE_URL
//!     redis: str = Field(alias="REDIS_DSN") # reads REDIS_DSN
//! ```

use cartograph_core::{Confidence, Provenance};
use tree_sitter::Node;

use super::EnvRead;
use super::refuse;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position, text};
use crate::{FileFacts, ImportTarget, Imported};

/// Settings base names of one file, and the configuration each settings class passes on.
#[derive(Debug, Default)]
pub(super) struct SettingsClasses {
    /// Local names of `BaseSettings` and dotted spellings of it.
    bases: Vec<String>,
    /// Settings classes declared so far in this file, with their configuration.
    declared: Vec<(String, Config)>,
}

/// The part of a settings configuration that decides variable names.
#[derive(Debug, Clone, Default)]
struct Config {
    prefix: String,
    case_sensitive: bool,
    /// `env_nested_delimiter`: a field typed with a model of the file reads one variable per
    /// field of the model (`DB__HOST`).
    nested_delimiter: Option<String>,
}

impl SettingsClasses {
    pub(super) fn from_imports(facts: &FileFacts) -> Self {
        Self { bases: Self::bases(facts), declared: Vec::new() }
    }

    /// Reads the bases again from the file's imports, keeping the classes declared so far.
    pub(super) fn read_imports(&mut self, facts: &FileFacts) {
        self.bases = Self::bases(facts);
    }

    fn bases(facts: &FileFacts) -> Vec<String> {
        let mut bases =
            vec!["pydantic_settings.BaseSettings".to_owned(), "pydantic.BaseSettings".to_owned()];
        for import in &facts.imports {
            let ImportTarget::Python(python) = &import.target else { continue };
            let module = python.module.as_deref().unwrap_or("");
            if python.level != 0 || !matches!(module, "pydantic_settings" | "pydantic") {
                continue;
            }
            for binding in &import.bindings {
                if binding.imported == Imported::Name("BaseSettings".to_owned()) {
                    bases.push(binding.local.clone());
                }
            }
        }
        bases
    }

    /// A class: records its fields' variables when it is a settings class.
    pub(super) fn class(&mut self, node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
        let (Some(name), Some(body), Some(args)) =
            (node.field("name"), node.field("body"), node.field("superclasses"))
        else {
            return;
        };
        let class_name = text(name, cx.source);
        let mut inherited: Option<Config> = None;
        let mut cursor = args.walk();
        for base in args.named_children(&mut cursor) {
            let base: String =
                text(base, cx.source).chars().filter(|c| !c.is_whitespace()).collect();
            if self.bases.contains(&base) {
                inherited.get_or_insert_with(Config::default);
            } else if let Some((_, config)) = self.declared.iter().find(|(n, _)| *n == base) {
                inherited.get_or_insert_with(|| config.clone());
            }
        }
        let Some(mut config) = inherited else { return };
        if !read_config(body, cx, class_name, &mut config, facts) {
            return;
        }
        self.declared.push((class_name.to_owned(), config.clone()));
        fields(body, cx, class_name, &config, facts);
    }
}

/// Applies `model_config` / `class Config` of the body. False when the prefix is computed (the
/// class is then refused).
fn read_config(
    body: Node<'_>,
    cx: &Context<'_>,
    class_name: &str,
    config: &mut Config,
    facts: &mut FileFacts,
) -> bool {
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let settings: Vec<(String, Node<'_>)> = match statement.kind_name() {
            "expression_statement" => {
                let Some(assignment) =
                    statement.named_child(0).filter(|a| a.kind_name() == "assignment")
                else {
                    continue;
                };
                let is_config =
                    assignment.field("left").is_some_and(|l| text(l, cx.source) == "model_config");
                let Some(value) = assignment.field("right").filter(|_| is_config) else {
                    continue;
                };
                config_entries(value, cx.source)
            }
            "class_definition" => {
                let is_config =
                    statement.field("name").is_some_and(|n| text(n, cx.source) == "Config");
                let Some(inner) = statement.field("body").filter(|_| is_config) else {
                    continue;
                };
                let mut entries = Vec::new();
                let mut cursor = inner.walk();
                for s in inner.named_children(&mut cursor) {
                    if let Some(a) = s.named_child(0).filter(|a| {
                        s.kind_name() == "expression_statement" && a.kind_name() == "assignment"
                    }) && let (Some(l), Some(r)) = (a.field("left"), a.field("right"))
                    {
                        entries.push((text(l, cx.source).to_owned(), r));
                    }
                }
                entries
            }
            _ => continue,
        };
        for (key, value) in settings {
            match key.as_str() {
                "env_prefix" => match literal_string(value, cx.source) {
                    Some(prefix) => config.prefix = prefix,
                    None => {
                        refuse(
                            value,
                            cx,
                            format!(
                                "the env_prefix of settings class {class_name} is computed, so its variable names are unknown"
                            ),
                            facts,
                        );
                        return false;
                    }
                },
                "case_sensitive" => config.case_sensitive = text(value, cx.source) == "True",
                "env_nested_delimiter" => {
                    config.nested_delimiter =
                        literal_string(value, cx.source).filter(|d| !d.is_empty());
                }
                _ => {}
            }
        }
    }
    true
}

/// The `key=value` entries of `SettingsConfigDict(...)` / `ConfigDict(...)` / `{"key": value}`.
fn config_entries<'t>(value: Node<'t>, source: &str) -> Vec<(String, Node<'t>)> {
    let mut entries = Vec::new();
    match value.kind_name() {
        "call" => {
            let Some(args) = value.field("arguments") else { return entries };
            let mut cursor = args.walk();
            for arg in
                args.named_children(&mut cursor).filter(|a| a.kind_name() == "keyword_argument")
            {
                if let (Some(n), Some(v)) = (arg.field("name"), arg.field("value")) {
                    entries.push((text(n, source).to_owned(), v));
                }
            }
        }
        "dictionary" => {
            let mut cursor = value.walk();
            for pair in value.named_children(&mut cursor).filter(|p| p.kind_name() == "pair") {
                if let (Some(k), Some(v)) =
                    (pair.field("key").and_then(|k| literal_string(k, source)), pair.field("value"))
                {
                    entries.push((k, v));
                }
            }
        }
        _ => {}
    }
    entries
}

/// Every annotated field of the body, with its variable name(s).
fn fields(
    body: Node<'_>,
    cx: &Context<'_>,
    class_name: &str,
    config: &Config,
    facts: &mut FileFacts,
) {
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let Some(assignment) = statement.named_child(0).filter(|a| {
            statement.kind_name() == "expression_statement" && a.kind_name() == "assignment"
        }) else {
            continue;
        };
        let (Some(left), Some(ty)) = (assignment.field("left"), assignment.field("type")) else {
            continue;
        };
        let field = text(left, cx.source);
        if left.kind_name() != "identifier"
            || field.starts_with('_')
            || field == "model_config"
            || text(ty, cx.source).trim_start().starts_with("ClassVar")
        {
            continue;
        }
        let aliases = match assignment.field("right") {
            Some(value) => match aliases(value, cx.source) {
                Ok(aliases) => aliases,
                Err(()) => {
                    refuse(
                        left,
                        cx,
                        format!("settings field {field} of {class_name} has a computed alias"),
                        facts,
                    );
                    continue;
                }
            },
            None => Vec::new(),
        };
        let (line, column) = position(left);
        let nested = match &config.nested_delimiter {
            Some(delimiter) if aliases.is_empty() => nested_fields(ty, cx, delimiter, 0),
            _ => Vec::new(),
        };
        if !nested.is_empty() {
            let delimiter = config.nested_delimiter.as_deref().unwrap_or_default();
            for path in nested {
                let joined = format!("{}{field}{path}", config.prefix);
                let name = if config.case_sensitive { joined } else { joined.to_uppercase() };
                let dotted = format!("{field}{path}").replace(delimiter, ".");
                let evidence = format!(
                    "pydantic settings field {dotted} of {class_name} reads {name} \
                     (env_nested_delimiter {delimiter})"
                );
                push(facts, name, line, column, evidence);
            }
        } else if aliases.is_empty() {
            let joined = format!("{}{field}", config.prefix);
            let name = if config.case_sensitive { joined } else { joined.to_uppercase() };
            let mut evidence =
                format!("pydantic settings field {field} of {class_name} reads {name}");
            if !config.prefix.is_empty() {
                evidence.push_str(&format!(" (env_prefix {})", config.prefix));
            }
            push(facts, name, line, column, evidence);
        } else {
            for alias in aliases {
                let evidence = format!(
                    "pydantic settings field {field} of {class_name} reads {alias} (alias)"
                );
                push(facts, alias, line, column, evidence);
            }
        }
    }
}

/// For a field typed with a model class of the file (`db: DatabaseSettings`,
/// `Optional[DatabaseSettings]`), the delimiter-joined paths of the model's fields
/// (`__host`, `__pool__size` two levels deep); empty when the type is no such class.
fn nested_fields(ty: Node<'_>, cx: &Context<'_>, delimiter: &str, depth: u8) -> Vec<String> {
    if depth > 2 {
        return Vec::new();
    }
    let written: String = text(ty, cx.source).chars().filter(|c| !c.is_whitespace()).collect();
    let written =
        written.strip_prefix("Optional[").and_then(|t| t.strip_suffix(']')).unwrap_or(&written);
    let written = written.strip_suffix("|None").unwrap_or(written);
    if written.is_empty() || !written.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Vec::new();
    }
    let Some(root) = cx.ancestry().first() else { return Vec::new() };
    let mut cursor = root.walk();
    let class = root.named_children(&mut cursor).find_map(|s| {
        let class = match s.kind_name() {
            "class_definition" => s,
            "decorated_definition" => s.field("definition")?,
            _ => return None,
        };
        (class.field("name").map(|n| text(n, cx.source)) == Some(written)).then_some(class)
    });
    let Some(body) = class.and_then(|c| c.field("body")) else { return Vec::new() };
    let mut paths = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let Some(assignment) = statement.named_child(0).filter(|a| {
            statement.kind_name() == "expression_statement" && a.kind_name() == "assignment"
        }) else {
            continue;
        };
        let (Some(left), Some(sub_ty)) = (assignment.field("left"), assignment.field("type"))
        else {
            continue;
        };
        let sub = text(left, cx.source);
        if left.kind_name() != "identifier" || sub.starts_with('_') || sub == "model_config" {
            continue;
        }
        let deeper = nested_fields(sub_ty, cx, delimiter, depth + 1);
        if deeper.is_empty() {
            paths.push(format!("{delimiter}{sub}"));
        } else {
            paths.extend(deeper.into_iter().map(|d| format!("{delimiter}{sub}{d}")));
        }
    }
    paths
}

fn push(facts: &mut FileFacts, name: String, line: u32, column: u32, evidence: String) {
    facts.env.reads.push(EnvRead {
        name,
        line,
        column,
        recogniser: "pydantic-settings",
        evidence,
        provenance: Provenance::Convention,
        confidence: Confidence::Likely,
        process_env_member: false,
    });
}

/// The aliases a field's `Field(...)` gives: `alias`, `validation_alias` (a string or
/// `AliasChoices` of strings) or v1's `env`. `Err` when one is computed.
fn aliases(value: Node<'_>, source: &str) -> Result<Vec<String>, ()> {
    if value.kind_name() != "call"
        || !value
            .field("function")
            .is_some_and(|f| matches!(text(f, source), "Field" | "pydantic.Field"))
    {
        return Ok(Vec::new());
    }
    let Some(args) = value.field("arguments") else { return Ok(Vec::new()) };
    let mut found = Vec::new();
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor).filter(|a| a.kind_name() == "keyword_argument") {
        let (Some(name), Some(v)) = (arg.field("name"), arg.field("value")) else {
            continue;
        };
        let key = text(name, source);
        // validation_alias wins over alias for reading, as in pydantic.
        if !matches!(key, "alias" | "validation_alias" | "env") {
            continue;
        }
        let names = alias_names(v, source)?;
        if key == "validation_alias" || found.is_empty() {
            found = names;
        }
    }
    Ok(found)
}

fn alias_names(value: Node<'_>, source: &str) -> Result<Vec<String>, ()> {
    if let Some(name) = literal_string(value, source) {
        return Ok(vec![name]);
    }
    let callee = value.field("function").map(|f| text(f, source));
    let items: Vec<Node<'_>> = match (value.kind_name(), callee) {
        ("call", Some("AliasChoices" | "AliasPath")) | ("list" | "tuple" | "set", _) => {
            let container = if value.kind_name() == "call" {
                value.field("arguments").ok_or(())?
            } else {
                value
            };
            let mut cursor = container.walk();
            let all: Vec<Node<'_>> = container.named_children(&mut cursor).collect();
            if callee == Some("AliasPath") { all.into_iter().take(1).collect() } else { all }
        }
        _ => return Err(()),
    };
    let names: Option<Vec<String>> = items.iter().map(|i| literal_string(*i, source)).collect();
    match names {
        Some(n) if !n.is_empty() => Ok(n),
        _ => Err(()),
    }
}
