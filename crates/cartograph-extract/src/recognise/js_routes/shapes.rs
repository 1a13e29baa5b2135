//! Syntax shapes shared by the JS route recognisers: expressions stripped of wrappers, string
//! paths, handler and receiver names, and the keys by which functions are known across modules.

use tree_sitter::Node;

use super::exports;
use super::facts::{PathValue, Receiver};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::javascript::named_args;
use crate::syntax::{literal_string, text};

/// The variable an assignment expression initialises: `app` in `const app = module.exports = …`.
pub(super) fn declared_name(assignment: Node<'_>, cx: &Context<'_>) -> Option<String> {
    let mut node = assignment;
    for _ in 0..4 {
        let parent = cx.parent(node)?;
        match parent.kind_name() {
            "assignment_expression" | "parenthesized_expression" => node = parent,
            "variable_declarator" => {
                let name = parent.field("name")?;
                return (name.kind_name() == "identifier")
                    .then(|| text(name, cx.source).to_owned());
            }
            _ => return None,
        }
    }
    None
}

/// Skips parentheses, `await`, `as` casts and non-null assertions around an expression.
pub(super) fn strip_expression(mut node: Node<'_>) -> Node<'_> {
    for _ in 0..8 {
        match node.kind_name() {
            "parenthesized_expression"
            | "await_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => match node.named_child(0) {
                Some(inner) => node = inner,
                None => return node,
            },
            _ => return node,
        }
    }
    node
}

/// The specifier of `require("m")` or `import("m")`.
pub(super) fn required_module(node: Node<'_>, cx: &Context<'_>) -> Option<String> {
    let node = strip_expression(node);
    if node.kind_name() != "call_expression" {
        return None;
    }
    let function = node.field("function")?;
    let is_load = match function.kind_name() {
        "import" => true,
        "identifier" => text(function, cx.source) == "require",
        _ => false,
    };
    if !is_load {
        return None;
    }
    let args = named_args(node.field("arguments")?);
    literal_string(*args.first()?, cx.source)
}

/// A path argument: a literal string, a name (settled after the walk), or computed.
pub(super) fn path_value(node: Node<'_>, cx: &Context<'_>) -> PathValue {
    let node = strip_expression(node);
    if node.kind_name() == "identifier" {
        return PathValue::Named(text(node, cx.source).to_owned());
    }
    match literal_string(node, cx.source) {
        Some(value) => PathValue::Literal(value),
        None => PathValue::Computed,
    }
}

/// True when the node can be a path (a string, a template, a name, a concatenation).
pub(super) fn is_path_like(node: Node<'_>) -> bool {
    matches!(
        node.kind_name(),
        "string" | "template_string" | "identifier" | "member_expression" | "binary_expression"
    )
}

/// A handler reference: a name or dotted name, or the single name a wrapper call receives
/// (`asyncHandler(getOrder)`); `None` for an inline function or anything else.
pub(super) fn handler_name(node: Node<'_>, cx: &Context<'_>) -> Option<String> {
    let node = strip_expression(node);
    match node.kind_name() {
        "identifier" => Some(text(node, cx.source).to_owned()),
        "member_expression" if is_dotted_name(node) => Some(text(node, cx.source).to_owned()),
        "call_expression" => {
            let args = named_args(node.field("arguments")?);
            match args.as_slice() {
                [only] if matches!(only.kind_name(), "identifier" | "member_expression") => {
                    handler_name(*only, cx)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// True for `a`, `a.b`, `a.b.c` made of identifiers only.
pub(super) fn is_dotted_name(node: Node<'_>) -> bool {
    let mut node = node;
    for _ in 0..8 {
        match node.kind_name() {
            "identifier" => return true,
            "member_expression" => {
                let property_ok =
                    node.field("property").is_some_and(|p| p.kind_name() == "property_identifier");
                match node.field("object") {
                    Some(object) if property_ok => node = object,
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    false
}

/// The receiver of a call: a dotted name, with the enclosing function whose parameter it is.
pub(super) fn receiver(node: Node<'_>, cx: &Context<'_>) -> Option<Receiver> {
    let node = strip_expression(node);
    if !is_dotted_name(node) {
        // `export const auth = new Hono().use(m).route("/", session).get("/x", h)`: a call
        // chained on the creation is made on the variable the whole chain initialises.
        let name = chained_creation_name(node, cx)?;
        return Some(Receiver { name, param: None });
    }
    let name = text(node, cx.source).to_owned();
    let param = if node.kind_name() == "identifier" { parameter_of(node, &name, cx) } else { None };
    Some(Receiver { name, param })
}

/// Methods that return their instance, so that calls chain on it (Hono, Express routers).
const CHAINABLE: &[&str] = &[
    "route", "use", "get", "post", "put", "patch", "delete", "all", "on", "options", "head",
    "basePath",
];

/// True for a method that returns its instance.
pub(super) fn is_chainable(name: &str) -> bool {
    CHAINABLE.contains(&name)
}

/// The creation a chain of [`CHAINABLE`] calls starts from: `new Hono()` in
/// `new Hono().basePath("/p").route("/", sub)`.
pub(super) fn chain_start<'t>(node: Node<'t>, cx: &Context<'_>) -> Node<'t> {
    let mut node = strip_expression(node);
    for _ in 0..64 {
        if node.kind_name() != "call_expression" {
            break;
        }
        let Some(function) =
            node.field("function").filter(|f| f.kind_name() == "member_expression")
        else {
            break;
        };
        let (Some(property), Some(object)) = (function.field("property"), function.field("object"))
        else {
            break;
        };
        if !CHAINABLE.contains(&text(property, cx.source)) {
            break;
        }
        node = strip_expression(object);
    }
    node
}

/// The variable initialised by a chain of calls on a creation (`new X()` or `x()`), when `node`
/// is a link of one.
fn chained_creation_name(node: Node<'_>, cx: &Context<'_>) -> Option<String> {
    let start = chain_start(node, cx);
    if !matches!(start.kind_name(), "new_expression" | "call_expression") {
        return None;
    }
    // Up from the node through the rest of the chain to the declarator.
    let mut current = node;
    for _ in 0..128 {
        let parent = cx.parent(current)?;
        match parent.kind_name() {
            "member_expression" if parent.field("object") == Some(current) => {
                let call = cx.parent(parent).filter(|c| c.kind_name() == "call_expression")?;
                current = call;
            }
            "parenthesized_expression"
            | "await_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => current = parent,
            "variable_declarator" if parent.field("value") == Some(current) => {
                let name = parent.field("name").filter(|n| n.kind_name() == "identifier")?;
                return Some(text(name, cx.source).to_owned());
            }
            _ => return None,
        }
    }
    None
}

/// The enclosing function that declares `name` as a parameter, with the parameter's index.
pub(super) fn parameter_of(node: Node<'_>, name: &str, cx: &Context<'_>) -> Option<(String, u32)> {
    let mut current = cx.parent(node);
    while let Some(n) = current {
        if is_function(n.kind_name())
            && let Some(index) = parameter_index(n, name, cx)
        {
            return function_key(n, cx).map(|key| (key, index));
        }
        current = cx.parent(n);
    }
    None
}

pub(super) fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "generator_function_declaration"
            | "method_definition"
    )
}

/// The index of parameter `name` in a function's parameter list.
pub(super) fn parameter_index(function: Node<'_>, name: &str, cx: &Context<'_>) -> Option<u32> {
    if let Some(single) = function.field("parameter") {
        return (text(single, cx.source) == name).then_some(0);
    }
    let parameters = function.field("parameters")?;
    let mut cursor = parameters.walk();
    let params: Vec<Node<'_>> =
        parameters.named_children(&mut cursor).filter(|p| p.kind_name() != "comment").collect();
    let mut rest = None;
    for (index, param) in params.into_iter().enumerate() {
        // TS wraps a parameter as `required_parameter` with a `pattern`.
        let pattern = param.field("pattern").unwrap_or(param);
        match pattern.kind_name() {
            "identifier" if text(pattern, cx.source) == name => return Some(to_u32(index)),
            "rest_pattern" => match pattern.named_child(0) {
                // `...[router, tenant]: Args`: the rest's elements are the parameters from here.
                Some(array) if array.kind_name() == "array_pattern" => {
                    if let Some(offset) = element_index(array, name, cx) {
                        return Some(to_u32(index + offset));
                    }
                }
                Some(rest_name) if rest_name.kind_name() == "identifier" => {
                    rest = Some((text(rest_name, cx.source), index));
                }
                _ => {}
            },
            _ => {}
        }
    }
    // `(...args) => { const [router, ctx] = args; … }`: the rest unpacked first thing in the body.
    let (rest_name, index) = rest?;
    let body = function.field("body").filter(|b| b.kind_name() == "statement_block")?;
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        if !matches!(statement.kind_name(), "lexical_declaration" | "variable_declaration") {
            continue;
        }
        let mut inner = statement.walk();
        for declarator in statement.named_children(&mut inner) {
            let (Some(pattern), Some(value)) =
                (declarator.field("name"), declarator.field("value"))
            else {
                continue;
            };
            if pattern.kind_name() == "array_pattern"
                && value.kind_name() == "identifier"
                && text(value, cx.source) == rest_name
                && let Some(offset) = element_index(pattern, name, cx)
            {
                return Some(to_u32(index + offset));
            }
        }
    }
    None
}

/// The position of the plain name `name` in an array pattern (`[a, b = 1]`, `[, b]`).
fn element_index(array: Node<'_>, name: &str, cx: &Context<'_>) -> Option<usize> {
    let mut cursor = array.walk();
    // Positions are counted by commas, so that holes (`[, router]`) count too.
    let mut offset = 0;
    for element in array.children(&mut cursor) {
        match element.kind_name() {
            "," => offset += 1,
            "identifier" if text(element, cx.source) == name => return Some(offset),
            "assignment_pattern"
                if element.field("left").is_some_and(|l| {
                    l.kind_name() == "identifier" && text(l, cx.source) == name
                }) =>
            {
                return Some(offset);
            }
            _ => {}
        }
    }
    None
}

/// The enclosing function whose rest parameter is `name` (`(...args) => …`), with the rest's
/// index among the parameters.
pub(super) fn rest_parameter_of(
    node: Node<'_>,
    name: &str,
    cx: &Context<'_>,
) -> Option<(String, u32)> {
    let mut current = cx.parent(node);
    while let Some(n) = current {
        if is_function(n.kind_name()) {
            let mut cursor = n.walk();
            let params: Vec<Node<'_>> = match n.field("parameters") {
                Some(parameters) => parameters
                    .named_children(&mut cursor)
                    .filter(|p| p.kind_name() != "comment")
                    .collect(),
                None => Vec::new(),
            };
            for (index, param) in params.into_iter().enumerate() {
                let pattern = param.field("pattern").unwrap_or(param);
                let rest = (pattern.kind_name() == "rest_pattern")
                    .then(|| pattern.named_child(0))
                    .flatten()
                    .filter(|r| r.kind_name() == "identifier" && text(*r, cx.source) == name);
                if rest.is_some() {
                    return function_key(n, cx).map(|key| (key, to_u32(index)));
                }
            }
            // The innermost function with such a name decides; a plain parameter shadows it.
            if parameter_index(n, name, cx).is_some() {
                return None;
            }
        }
        current = cx.parent(n);
    }
    None
}

/// How a function is named from elsewhere: its own name, the variable it initialises, `default`
/// when it is the default export or `module.exports`, the member of `exports.x = …`, or `@offset`
/// when it is written inline as a call argument (a plugin registered in place).
pub(super) fn function_key(function: Node<'_>, cx: &Context<'_>) -> Option<String> {
    let own_name = function
        .field("name")
        .filter(|_| function.kind_name() != "method_definition")
        .map(|n| text(n, cx.source).to_owned());
    // A declaration is known by its name; a function expression by where it is put
    // (`module.exports = function routes(app) {…}` is the default export), so that the key
    // matches what the module exports.
    if matches!(function.kind_name(), "function_declaration" | "generator_function_declaration") {
        return own_name;
    }
    context_key(function, cx).or(own_name)
}

/// The key a function expression takes from its context.
pub(super) fn context_key(function: Node<'_>, cx: &Context<'_>) -> Option<String> {
    let mut node = function;
    for _ in 0..4 {
        let parent = cx.parent(node)?;
        match parent.kind_name() {
            "parenthesized_expression" => node = parent,
            "variable_declarator" => {
                let name = parent.field("name")?;
                return (name.kind_name() == "identifier")
                    .then(|| text(name, cx.source).to_owned());
            }
            "export_statement" => return Some("default".to_owned()),
            "assignment_expression" => {
                let left = parent.field("left")?;
                if left.kind_name() == "identifier" {
                    return Some(text(left, cx.source).to_owned());
                }
                return exports::exported_name(left, cx);
            }
            "arguments" => {
                let call = cx.parent(parent)?;
                // A plugin registered in place: `fastify.register(async (f) => …, opts)`.
                let registers = call.field("function").is_some_and(|f| {
                    f.kind_name() == "member_expression"
                        && f.field("property").is_some_and(|p| {
                            matches!(text(p, cx.source), "register" | "use" | "route")
                        })
                });
                if registers {
                    return Some(inline_key(function));
                }
                // A wrapper such as `fp(async (f) => …)`: the wrapper call carries the name.
                node = call;
            }
            _ => return None,
        }
    }
    None
}

/// The key of a function written inline.
pub(super) fn inline_key(function: Node<'_>) -> String {
    format!("@{}", function.start_byte())
}

pub(super) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
