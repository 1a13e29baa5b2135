//! NestJS `ConfigService`: `this.configService.get("KEY")`, `get<T>("KEY")`, `getOrThrow("KEY")`.
//!
//! Recognises `get` / `getOrThrow` on a name the file types as `ConfigService` (a constructor
//! parameter `private configService: ConfigService`, a factory's `(config: ConfigService) =>`):
//! the key is read where the call is written. `ConfigModule` reads `process.env` (validated by
//! its schema) and custom configuration factories; a key that looks like a variable name
//! (`DATABASE_URL`, no dots) is taken as the variable, a dotted path (`database.host`) is custom
//! configuration and is not read. Provenance `convention`, confidence `likely`.
//!
//! Refuses nothing: a computed key may name custom configuration.
//!
//! ```ts
//! constructor(private readonly configService: ConfigService) {}
//! port = this.configService.get<number>("PORT");   // reads PORT
//! ```

use tree_sitter::Node;

use super::names::env_like;
use super::read_as;
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::javascript::named_args;
use crate::syntax::{literal_string, text};
use cartograph_core::Provenance;

pub(super) const RECOGNISER: &str = "nestjs-config";

/// The names a file types as `ConfigService`, or binds to the service looked up from the
/// application (`const configService = app.get(ConfigService)`), read once per file on first
/// need.
pub(super) fn typed_names(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in source.match_indices("ConfigService") {
        let before = source.get(..at).unwrap_or("").trim_end();
        if let Some(name) = looked_up(before)
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_owned());
            continue;
        }
        let Some(before) = before.strip_suffix(':') else { continue };
        let before = before.trim_end().trim_end_matches('?');
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '$')
            .last()
            .map_or(before.len(), |(i, _)| i);
        let name = before.get(start..).unwrap_or("").to_owned();
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The name bound by `name = [await] app.get(` or `.resolve(` (with an optional type argument)
/// when `before` is the text up to a `ConfigService` argument: NestJS's lookup of a provider from
/// the application or a module reference.
fn looked_up(before: &str) -> Option<&str> {
    let before = before.strip_suffix('(')?.trim_end();
    let before = match before.strip_suffix('>') {
        Some(typed) => typed.rsplit_once('<')?.0,
        None => before,
    };
    let before = before.strip_suffix(".get").or_else(|| before.strip_suffix(".resolve"))?;
    let receiver = before.trim_end_matches(|c: char| c.is_alphanumeric() || "_$.".contains(c));
    let receiver = receiver.trim_end();
    let receiver = receiver.strip_suffix("await").unwrap_or(receiver).trim_end();
    let assigned = receiver.strip_suffix('=')?;
    if assigned.ends_with(['=', '!', '<', '>']) {
        return None;
    }
    let assigned = assigned.trim_end();
    let start = assigned
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '$')
        .last()
        .map(|(i, _)| i)?;
    Some(&assigned[start..])
}

/// `x.get("KEY")` where `x` is typed `ConfigService`. False when the call is not one.
pub(super) fn call(
    node: Node<'_>,
    names: &[String],
    cx: &Context<'_>,
    facts: &mut FileFacts,
) -> bool {
    let Some(function) = node.field("function").filter(|f| f.kind_name() == "member_expression")
    else {
        return false;
    };
    let method = function.field("property").map(|p| text(p, cx.source)).unwrap_or("");
    if !matches!(method, "get" | "getOrThrow") {
        return false;
    }
    let Some(object) = function.field("object") else { return false };
    let receiver = match object.kind_name() {
        "identifier" => text(object, cx.source),
        "member_expression" if object.field("object").is_some_and(|o| o.kind_name() == "this") => {
            object.field("property").map(|p| text(p, cx.source)).unwrap_or("")
        }
        _ => return false,
    };
    if !names.iter().any(|n| n == receiver) {
        return false;
    }
    let Some(key) = node.field("arguments").and_then(|a| named_args(a).first().copied()) else {
        return true;
    };
    if let Some(name) = literal_string(key, cx.source).filter(|k| env_like(k)) {
        let evidence = format!("NestJS ConfigService.{method} reads {name}");
        read_as(node, name, RECOGNISER, evidence, Provenance::Convention, facts);
    }
    true
}
