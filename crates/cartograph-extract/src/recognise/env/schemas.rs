//! Validated environment schemas: envalid, t3-env and zod.
//!
//! Recognises the names a schema declares, read where the schema is validated against the
//! environment (the module that holds the call; modules that import the validated object read
//! nothing more):
//! - envalid: `cleanEnv(process.env, { KEY: str(), PORT: port({ default: 3000 }) })`, the specs
//!   an object literal or a module constant holding one;
//! - t3-env: `createEnv({ server: { KEY: z.string() }, client: { … }, shared: { … },
//!   runtimeEnv: … })` from `@t3-oss/env-core`, `env-nextjs` or `env-nuxt`: each key of
//!   `server`, `client` and `shared`;
//! - zod: `schema.parse(process.env)` (also `safeParse`, `parseAsync`, `safeParseAsync`) where
//!   `schema` is `z.object({ … })`, written there or bound to a module constant (methods chained
//!   on it, `.extend({ … })` included, add their keys).
//!
//! Provenance `syntax`; confidence `certain` for envalid over `process.env`, `likely`
//! otherwise (a t3 `runtimeEnv` may map a key to another variable; a schema parsed from
//! `process.env` may be transformed). Defaults are never read.
//!
//! ```ts
//! import { cleanEnv, str, port } from "envalid";
//! export const env = cleanEnv(process.env, { DATABASE_URL: str(), PORT: port() }); // reads both
//! ```

use cartograph_core::Provenance;
use tree_sitter::Node;

use super::names::module_value;
use super::{read, read_as};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::javascript::{named_args, property_key};
use crate::syntax::text;
use crate::{FileFacts, ImportTarget};

pub(super) const ENVALID: &str = "envalid";
pub(super) const T3: &str = "t3-env";
pub(super) const ZOD: &str = "zod-env";

/// A call that validates a schema against the environment. False when it is none.
pub(super) fn call(node: Node<'_>, callee: &str, cx: &Context<'_>, facts: &mut FileFacts) -> bool {
    let Some(arguments) = node.field("arguments") else { return false };
    let args = named_args(arguments);
    let last = callee.rsplit('.').next().unwrap_or(callee);
    match last {
        "cleanEnv" if imported_from(facts, callee, &["envalid"]) => {
            let Some(specs) = args.get(1).and_then(|s| object(*s, cx)) else { return true };
            let over_env = args.first().is_some_and(|e| text(*e, cx.source) == "process.env");
            for (key, at) in keys(specs, cx) {
                let evidence = format!("envalid cleanEnv declares {key}");
                if over_env {
                    read(at, key, ENVALID, evidence, facts);
                } else {
                    read_as(at, key, ENVALID, evidence, Provenance::Syntax, facts);
                }
            }
            true
        }
        "createEnv"
            if imported_from(
                facts,
                callee,
                &["@t3-oss/env-core", "@t3-oss/env-nextjs", "@t3-oss/env-nuxt"],
            ) =>
        {
            let Some(options) = args.first().and_then(|o| object(*o, cx)) else { return true };
            for part in ["server", "client", "shared"] {
                let Some(schema) =
                    crate::syntax::javascript::object_property(options, part, cx.source)
                        .and_then(|s| object(s, cx))
                else {
                    continue;
                };
                for (key, at) in keys(schema, cx) {
                    let evidence = format!("t3-env createEnv declares {key} in its {part} schema");
                    read_as(at, key, T3, evidence, Provenance::Syntax, facts);
                }
            }
            true
        }
        "parse" | "safeParse" | "parseAsync" | "safeParseAsync" => {
            let over_env = args.first().is_some_and(|e| text(*e, cx.source) == "process.env");
            let schema = node.field("function").and_then(|f| f.field("object"));
            let (true, Some(schema)) = (over_env, schema) else { return false };
            let mut objects = Vec::new();
            zod_objects(schema, cx, &mut objects, 0);
            let name = match schema.kind_name() {
                "identifier" => text(schema, cx.source),
                _ => "z.object(...)",
            };
            for object in objects {
                for (key, at) in keys(object, cx) {
                    let evidence =
                        format!("zod schema {name} parsed from process.env declares {key}");
                    read_as(at, key, ZOD, evidence, Provenance::Syntax, facts);
                }
            }
            true
        }
        _ => false,
    }
}

/// True when `callee`'s first name was imported from one of `packages` (`cleanEnv` from
/// `envalid`, or `envalid.cleanEnv` through a namespace import).
pub(super) fn imported_from(facts: &FileFacts, callee: &str, packages: &[&str]) -> bool {
    let head = callee.split('.').next().unwrap_or(callee);
    facts.imports.iter().any(|i| {
        matches!(&i.target, ImportTarget::Js(js) if packages.contains(&js.specifier.as_str()))
            && i.bindings.iter().any(|b| b.local == head)
    })
}

/// An object literal, written there or bound to a module constant.
fn object<'s>(node: Node<'s>, cx: &Context<'s>) -> Option<Node<'s>> {
    match node.kind_name() {
        "object" => Some(node),
        "identifier" => {
            module_value(text(node, cx.source), cx).filter(|v| v.kind_name() == "object")
        }
        _ => None,
    }
}

/// The objects of the `z.object({ … })` a schema expression is built from: `z.object(a)`,
/// `schema.extend(b)`, `z.object(a).strict()`, or a module constant holding one.
fn zod_objects<'s>(node: Node<'s>, cx: &Context<'s>, found: &mut Vec<Node<'s>>, depth: u8) {
    if depth > 6 {
        return;
    }
    match node.kind_name() {
        "identifier" => {
            if let Some(value) = module_value(text(node, cx.source), cx) {
                zod_objects(value, cx, found, depth + 1);
            }
        }
        "call_expression" => {
            let Some(function) =
                node.field("function").filter(|f| f.kind_name() == "member_expression")
            else {
                return;
            };
            let method = function.field("property").map(|p| text(p, cx.source)).unwrap_or("");
            let first = node.field("arguments").and_then(|a| named_args(a).first().copied());
            match method {
                "object" if function.field("object").is_some_and(|o| text(o, cx.source) == "z") => {
                    found.extend(first.filter(|o| o.kind_name() == "object"));
                }
                "extend" | "merge" => {
                    found.extend(first.and_then(|o| object(o, cx)));
                    if let Some(inner) = function.field("object") {
                        zod_objects(inner, cx, found, depth + 1);
                    }
                }
                _ => {
                    if let Some(inner) = function.field("object") {
                        zod_objects(inner, cx, found, depth + 1);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The keys of an object literal, each with its node.
fn keys<'s>(object: Node<'s>, cx: &Context<'s>) -> Vec<(String, Node<'s>)> {
    let mut keys = Vec::new();
    let mut cursor = object.walk();
    for entry in object.named_children(&mut cursor) {
        let key = match entry.kind_name() {
            "pair" => entry.field("key").and_then(|k| property_key(k, cx.source)),
            "shorthand_property_identifier" => Some(text(entry, cx.source).to_owned()),
            _ => None,
        };
        if let Some(key) = key.filter(|k| !k.is_empty()) {
            keys.push((key, entry));
        }
    }
    keys
}
