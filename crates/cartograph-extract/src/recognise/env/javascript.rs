//! TypeScript/JavaScript environment reads.
//!
//! Recognises `process.env.X`, `process.env["X"]`, `const { X, Y: y, Z = "d" } = process.env`,
//! `import.meta.env.X` and `import.meta.env["X"]` (Vite; its built-ins `MODE`, `DEV`, `PROD`,
//! `SSR` and `BASE_URL` are not environment variables and are skipped), `Deno.env.get("X")`,
//! `Bun.env.X`, `"X" in process.env`, and `getEnv("X")`, `assertEnv("X")`,
//! `getEnvAsStringArray("X")` imported from `@silverhand/essentials`. Assigning or deleting
//! `process.env.X` is a write and is not reported. Provenance `syntax`, confidence `certain`.
//! Defaults in a destructuring pattern are never read. A name built from module constants
//! (`` process.env[`${PREFIX}_URL`] ``) is read; one built from the enclosing function's
//! parameters makes the function a helper (`wrappers.rs`).
//!
//! Refuses (`computed-env-key`): `process.env[name]`, `import.meta.env[key]`,
//! `Deno.env.get(name)` with a computed name.
//!
//! ```ts
//! const api = import.meta.env.VITE_API_URL;        // reads VITE_API_URL
//! const { PORT = "3000", HOST } = process.env;     // reads PORT, HOST
//! ```

use tree_sitter::Node;

use super::{is_written, names, nestjs_config, read, refuse, schemas, wrappers};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::javascript::property_key;
use crate::syntax::{literal_string, member_name, text};

const RECOGNISER: &str = "js-env";
const VITE_BUILTINS: &[&str] = &["MODE", "DEV", "PROD", "SSR", "BASE_URL"];

/// The environment object an expression is: `process.env`, `import.meta.env`, `Bun.env`.
fn env_object(node: Node<'_>, source: &str) -> Option<&'static str> {
    if node.kind_name() != "member_expression" {
        return None;
    }
    let object = node.field("object")?;
    let property = node.field("property")?;
    if text(property, source) != "env" {
        return None;
    }
    match text(object, source) {
        "process" => Some("process.env"),
        "import.meta" => Some("import.meta.env"),
        "Bun" => Some("Bun.env"),
        _ => None,
    }
}

/// Whether a member access may be one [`member`] reads: `X.env.Y` (its object ends with `env`),
/// `process.env` (its property is `env`) or `name.Y` on a name holding `env` in any case.
///
/// This is a fast path for speed: most member accesses name no environment, and reading their
/// fields costs more than looking at their text. Anything the text cannot tell (a comment
/// before the property) is read from the tree.
fn may_name_env(node: Node<'_>, source: &str) -> bool {
    let Some(property) = member_name(node, source) else { return true };
    let whole = text(node, source);
    let object = whole[..whole.len() - property.len()]
        .trim_end()
        .trim_end_matches('.')
        .trim_end_matches('?')
        .trim_end();
    let name_like =
        object.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80);
    property == "env"
        || object.ends_with("env")
        // A comment may stand between the object and the property.
        || object.contains('/')
        || (name_like && object.as_bytes().windows(3).any(|w| w.eq_ignore_ascii_case(b"env")))
}

fn skipped(object: &str, name: &str) -> bool {
    object == "import.meta.env" && VITE_BUILTINS.contains(&name)
}

/// `process.env.X`; `process.env` itself bound at module level (an environment object); and
/// `environment.X` on another name, which may be an environment object of another module.
pub(super) fn member(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    if !may_name_env(node, cx.source) {
        return;
    }
    let (Some(object_node), Some(property)) = (node.field("object"), node.field("property")) else {
        return;
    };
    let Some(object) = env_object(object_node, cx.source) else {
        if env_object(node, cx.source) == Some("process.env") {
            wrappers::environment_object(node, cx, facts);
        } else if object_node.kind_name() == "identifier" && !is_written(node) {
            let name = text(property, cx.source);
            wrappers::member(node, text(object_node, cx.source), name, facts);
        }
        return;
    };
    let name = text(property, cx.source);
    if is_written(node) || skipped(object, name) || name.is_empty() {
        return;
    }
    read(node, name.to_owned(), RECOGNISER, format!("{object} reads {name}"), facts);
    if let Some(read) = facts.env.reads.last_mut() {
        read.process_env_member = object == "process.env";
    }
}

/// `process.env["X"]`.
pub(super) fn subscript(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let Some(object) = node.field("object").and_then(|o| env_object(o, cx.source)) else {
        return;
    };
    if is_written(node) {
        return;
    }
    let Some(index) = node.field("index") else { return };
    let how = format!("{object}[...]");
    match literal_string(index, cx.source) {
        Some(name) if skipped(object, &name) => {}
        Some(name) => {
            let evidence = format!("{how} reads {name}");
            read(node, name, RECOGNISER, evidence, facts);
        }
        None if wrappers::computed_key(node, index, &how, RECOGNISER, cx, facts) => {}
        None => refuse(
            node,
            cx,
            format!("{object}[...] reads an environment variable whose name is computed"),
            facts,
        ),
    }
}

/// `const { X, Y: y, Z = "d" } = process.env`.
pub(super) fn destructuring(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let (Some(pattern), Some(value)) = (node.field("name"), node.field("value")) else {
        return;
    };
    if pattern.kind_name() != "object_pattern" {
        return;
    }
    let Some(object) = env_object(value, cx.source) else { return };
    let mut cursor = pattern.walk();
    for entry in pattern.named_children(&mut cursor) {
        let key = match entry.kind_name() {
            "shorthand_property_identifier_pattern" => Some(entry),
            "pair_pattern" => entry.field("key"),
            "object_assignment_pattern" => entry.field("left"),
            _ => None,
        };
        let Some(key) = key else { continue };
        let name =
            literal_string(key, cx.source).unwrap_or_else(|| text(key, cx.source).to_owned());
        if key.kind_name() == "computed_property_name" {
            refuse(
                entry,
                cx,
                format!("a destructuring of {object} reads a variable whose name is computed"),
                facts,
            );
            continue;
        }
        if skipped(object, &name) || name.is_empty() {
            continue;
        }
        let evidence = format!("a destructuring of {object} reads {name}");
        read(entry, name, RECOGNISER, evidence, facts);
    }
}

/// `"X" in process.env`.
pub(super) fn membership(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let (Some(left), Some(operator), Some(right)) =
        (node.field("left"), node.field("operator"), node.field("right"))
    else {
        return;
    };
    if text(operator, cx.source) != "in" {
        return;
    }
    let Some(object) = env_object(right, cx.source) else { return };
    if let Some(name) = literal_string(left, cx.source).filter(|n| !skipped(object, n)) {
        let evidence = format!("a membership test on {object} reads {name}");
        read(node, name, RECOGNISER, evidence, facts);
    }
}

/// `getEnv("X")`, `assertEnv("X")`, `getEnvAsStringArray("X")` from `@silverhand/essentials`.
const ESSENTIALS: &[&str] = &["getEnv", "assertEnv", "getEnvAsStringArray"];

/// `Deno.env.get("X")`, the readers of `@silverhand/essentials`; any other call goes to the
/// validated schemas, NestJS's `ConfigService` and then to the wrappers.
pub(super) fn call(
    node: Node<'_>,
    cx: &Context<'_>,
    nest: &mut Option<Vec<String>>,
    functions: &mut names::FunctionCache,
    facts: &mut FileFacts,
) {
    let Some(function) = cx.field(node, "function") else { return };
    let callee = match function.kind_name() {
        "identifier" => text(function, cx.source),
        "member_expression"
            if function.field("object").is_some_and(|o| o.kind_name() == "identifier")
                && function
                    .field("property")
                    .is_some_and(|p| p.kind_name() == "property_identifier") =>
        {
            text(function, cx.source)
        }
        _ => "",
    };
    if ESSENTIALS.contains(&callee)
        && schemas::imported_from(facts, callee, &["@silverhand/essentials"])
    {
        if let Some(key) = node.field("arguments").and_then(|a| a.named_child(0)) {
            let how = format!("{callee} (@silverhand/essentials)");
            super::keyed_read(node, key, &how, RECOGNISER, false, cx, facts);
        }
        return;
    }
    // `z.object({ … }).parse(process.env)`: the method alone.
    let method = match (callee, function.kind_name()) {
        ("", "member_expression") => function.field("property").map(|p| text(p, cx.source)),
        _ => Some(callee),
    };
    if method.is_some_and(|m| !m.is_empty() && schemas::call(node, m, cx, facts)) {
        return;
    }
    let names = nest.get_or_insert_with(|| nestjs_config::typed_names(cx.source));
    if !names.is_empty() && nestjs_config::call(node, names, cx, facts) {
        return;
    }
    if text(function, cx.source) != "Deno.env.get" {
        if !callee.is_empty() {
            let form = wrappers::CallForm::JavaScript;
            wrappers::invocation(node, callee, form, cx, functions, facts);
        }
        return;
    }
    let Some(args) = node.field("arguments") else { return };
    let mut cursor = args.walk();
    let Some(first) = args.named_children(&mut cursor).find(|a| a.kind_name() != "comment") else {
        return;
    };
    match literal_string(first, cx.source) {
        Some(name) => {
            let evidence = format!("Deno.env.get reads {name}");
            read(node, name, RECOGNISER, evidence, facts);
        }
        None => refuse(
            node,
            cx,
            "Deno.env.get reads an environment variable whose name is computed".to_owned(),
            facts,
        ),
    }
}

/// `new UrlSet(…)`: a class whose field initialisers read through its constructor's parameters
/// (`wrappers.rs`) is a helper called by `new`.
pub(super) fn construct(
    node: Node<'_>,
    cx: &Context<'_>,
    functions: &mut names::FunctionCache,
    facts: &mut FileFacts,
) {
    let Some(class) = cx.field(node, "constructor") else { return };
    let named = match class.kind_name() {
        "identifier" => true,
        "member_expression" => {
            class.field("object").is_some_and(|o| o.kind_name() == "identifier")
                && class.field("property").is_some_and(|p| p.kind_name() == "property_identifier")
        }
        _ => false,
    };
    let callee = text(class, cx.source);
    // A class is named with a capital (`UrlSet`, `config.UrlSet`).
    let last = callee.rsplit('.').next().unwrap_or(callee);
    if named && last.starts_with(|c: char| c.is_ascii_uppercase()) {
        wrappers::invocation(node, callee, wrappers::CallForm::Construct, cx, functions, facts);
    }
}

/// `env: { KEY: value, … }` in a Next.js config: the keys Next.js inlines (see
/// `EnvFacts::next_env_keys`).
pub(super) fn next_env_keys(pair: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let key = pair.field("key").and_then(|k| property_key(k, cx.source));
    let Some(object) = pair.field("value").filter(|v| v.kind_name() == "object") else { return };
    if key.as_deref() != Some("env") {
        return;
    }
    let mut cursor = object.walk();
    for member in object.named_children(&mut cursor) {
        let (name, value) = match member.kind_name() {
            "pair" => {
                let Some(name) = member.field("key").and_then(|k| property_key(k, cx.source))
                else {
                    continue;
                };
                (name, member.field("value").map_or("", |v| text(v, cx.source)))
            }
            "shorthand_property_identifier" => (text(member, cx.source).to_owned(), ""),
            _ => continue,
        };
        let same = ["process.env.", "process.env[\"", "process.env['"].iter().any(|how| {
            let read = format!("{how}{name}");
            value.match_indices(&read).any(|(at, _)| {
                let next = value.as_bytes().get(at + read.len());
                !next.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
            })
        });
        if !same && !facts.env.next_env_keys.contains(&name) {
            facts.env.next_env_keys.push(name);
        }
    }
}
