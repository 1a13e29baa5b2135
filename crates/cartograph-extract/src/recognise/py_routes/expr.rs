//! Python expression helpers shared by this family's recognisers: dotted names, call arguments,
//! method lists and path expressions (literals, f-strings and `+` of names).

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::{Methods, PathExpr, PathPart};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::python::{dotted, find_argument_value, keyword_argument};
use crate::syntax::text;

/// The string default of a pydantic `Field("/api/v1")` / `Field(default="/api/v1")`.
pub(super) fn field_default<'t>(node: Node<'t>, source: &str) -> Option<Node<'t>> {
    if node.kind_name() != "call" {
        return None;
    }
    let function = dotted(node.field("function")?, source)?;
    if function != "Field" && !function.ends_with(".Field") {
        return None;
    }
    let args = node.field("arguments")?;
    find_argument_value(args, "default", 0, source).filter(|v| is_stringish(*v))
}

pub(super) fn in_class_body(node: Node<'_>, cx: &Context<'_>) -> bool {
    // assignment → expression_statement → block → class_definition
    cx.parent(node)
        .and_then(|s| cx.parent(s))
        .and_then(|b| cx.parent(b))
        .is_some_and(|c| c.kind_name() == "class_definition")
}

pub(super) fn is_module_level(node: Node<'_>, cx: &Context<'_>) -> bool {
    cx.parent(node)
        .filter(|s| s.kind_name() == "expression_statement")
        .and_then(|s| cx.parent(s))
        .is_some_and(|m| m.kind_name() == "module")
}

/// A string, an f-string, implicit concatenation, or a `+` with a string on one side.
pub(super) fn is_stringish(node: Node<'_>) -> bool {
    match node.kind_name() {
        "string" | "concatenated_string" => true,
        "binary_operator" => {
            let side = |f: &'static str| {
                node.field(f)
                    .is_some_and(|s| matches!(s.kind_name(), "string" | "concatenated_string"))
            };
            side("left") || side("right")
        }
        _ => false,
    }
}

/// The prefix keyword of a router or mount: its expression, or a computed one when the call
/// passes `**kwargs` that may hold it.
pub(super) fn prefix_keyword(args: Node<'_>, names: &[&str], source: &str) -> Option<PathExpr> {
    if let Some(value) = names.iter().find_map(|n| keyword_argument(args, n, source)) {
        return Some(path_expr(value, source));
    }
    let mut cursor = args.walk();
    let splat = args.named_children(&mut cursor).any(|a| a.kind_name() == "dictionary_splat");
    splat.then(|| PathExpr { parts: vec![PathPart::Computed] })
}

/// `methods=[...]` of `route` / `api_route` / `add_url_rule` / `add_api_route`.
pub(super) fn methods_keyword(args: Node<'_>, source: &str) -> Methods {
    match keyword_argument(args, "methods", source) {
        None => Methods::Default,
        Some(list) => match method_list(list, source) {
            Some(methods) if !methods.is_empty() => Methods::Listed(methods),
            _ => Methods::Computed,
        },
    }
}

/// A list, tuple or set of literal method names.
pub(super) fn method_list(node: Node<'_>, source: &str) -> Option<Vec<HttpMethod>> {
    if !matches!(node.kind_name(), "list" | "tuple" | "set") {
        return None;
    }
    let mut methods = Vec::new();
    let mut cursor = node.walk();
    for item in node.named_children(&mut cursor) {
        let name = crate::syntax::literal_string(item, source)?;
        let method = HttpMethod::parse(&name)?;
        if !methods.contains(&method) {
            methods.push(method);
        }
    }
    Some(methods)
}

/// A path expression: string literals (f-strings with name interpolations), implicit
/// concatenation and `+`, names and attributes; anything else is [`PathPart::Computed`].
pub(super) fn path_expr(node: Node<'_>, source: &str) -> PathExpr {
    let mut parts = Vec::new();
    // Right-to-left on the stack so that parts come out in order.
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind_name() {
            "string" => string_parts(n, source, &mut parts),
            "concatenated_string" => {
                let mut cursor = n.walk();
                let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
            "binary_operator" if n.field("operator").is_some_and(|o| text(o, source) == "+") => {
                if let (Some(l), Some(r)) = (n.field("left"), n.field("right")) {
                    stack.push(r);
                    stack.push(l);
                }
            }
            "parenthesized_expression" => stack.extend(n.named_child(0)),
            "subscript" | "call" if let Some(key) = super::forward::config_key(n, source) => {
                parts.push(PathPart::Config(key));
            }
            _ => match dotted(n, source) {
                Some(name) => parts.push(PathPart::Ref(name)),
                None => parts.push(PathPart::Computed),
            },
        }
        if parts.len() > 256 || stack.len() > 256 {
            parts.push(PathPart::Computed);
            break;
        }
    }
    PathExpr { parts }
}

pub(super) fn string_parts(node: Node<'_>, source: &str, parts: &mut Vec<PathPart>) {
    let push_literal = |parts: &mut Vec<PathPart>, s: &str| match parts.last_mut() {
        Some(PathPart::Literal(l)) => l.push_str(s),
        _ => parts.push(PathPart::Literal(s.to_owned())),
    };
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind_name() {
            "string_content" | "escape_sequence" => push_literal(parts, text(child, source)),
            "escape_interpolation" => {
                push_literal(parts, text(child, source).get(..1).unwrap_or(""));
            }
            "interpolation" => {
                let simple = child.named_child_count() == 1;
                let name = child.field("expression").and_then(|e| dotted(e, source));
                match name {
                    Some(name) if simple => parts.push(PathPart::Ref(name)),
                    _ => parts.push(PathPart::Computed),
                }
            }
            "string_start" | "string_end" => {}
            _ => parts.push(PathPart::Computed),
        }
    }
    if parts.is_empty() {
        parts.push(PathPart::Literal(String::new()));
    }
}
