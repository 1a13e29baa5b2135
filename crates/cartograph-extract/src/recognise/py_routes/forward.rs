//! Forwarding helpers, syntax half: what lets the linker follow a route or mount written on a
//! function's parameters back to the calls that give them values.
//!
//! Records, per file, the enclosing function of each route and mount (its parameters in order),
//! the `for var in sequence:` loops around them, sequences of names (`BLUEPRINTS = (a, b)`,
//! `bps = bps + DEFAULTS`), the calls that pass an object of the file, a sequence or a class view
//! (`register_view(bp, routes=["/a", "/b"], view_func=V.as_view("v"))`), and the classes an
//! app's `config.from_object(...)` loads (`app.config["URL_PREFIX"]` defaults to their
//! attributes).
//!
//! Example: `def register_view(bp_or_app, routes, view_func): for route in routes:
//! bp_or_app.add_url_rule(route, view_func=view_func)` records the rule with its function
//! `register_view(bp_or_app, routes, view_func)` and the loop `route in routes`; a call
//! `register_view(forum, routes=["/a"], view_func=Forum.as_view("forum"))` in another module is
//! an [`Invocation`]. The linker (`link/forward.rs`) joins them.

use tree_sitter::Node;

use super::expr::{is_stringish, path_expr};
use super::{
    ArgValue, Argument, ConfigSource, FunctionDecl, Invocation, LoopDecl, PyRouteFacts, SeqItem,
    SequenceDecl,
};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::python::dotted;
use crate::syntax::{literal_string, position, text};

/// The most ancestors looked at for an enclosing function.
const MAX_UP: usize = 64;

/// The function enclosing `node` (registered in `out.functions`), and the `for` loops between
/// them (loop variable and the dotted name it iterates).
fn enclosing(
    node: Node<'_>,
    cx: &Context<'_>,
    out: &mut PyRouteFacts,
) -> (Option<u32>, Vec<(String, String)>) {
    let source = cx.source;
    let mut loops = Vec::new();
    let mut current = cx.parent(node);
    for _ in 0..MAX_UP {
        let Some(n) = current else { break };
        match n.kind_name() {
            "for_statement" => {
                let var = n.field("left").filter(|l| l.kind_name() == "identifier");
                let over = n.field("right").and_then(|r| dotted(r, source));
                if let (Some(var), Some(over)) = (var, over) {
                    loops.push((text(var, source).to_owned(), over));
                }
            }
            "function_definition" => return (Some(function(n, cx, out)), loops),
            "class_definition" | "lambda" | "module" => break,
            _ => {}
        }
        current = cx.parent(n);
    }
    (None, loops)
}

/// The index of a function definition in `out.functions`, recording it on first sight.
fn function(node: Node<'_>, cx: &Context<'_>, out: &mut PyRouteFacts) -> u32 {
    let (line, column) = position(node);
    if let Some(i) = out.functions.iter().position(|f| f.line == line && f.column == column) {
        return u32::try_from(i).unwrap_or(u32::MAX);
    }
    let source = cx.source;
    let name = node.field("name").map_or("", |n| text(n, source)).to_owned();
    let mut params = Vec::new();
    let mut splat = false;
    if let Some(list) = node.field("parameters") {
        let mut cursor = list.walk();
        for p in list.named_children(&mut cursor) {
            let name = match p.kind_name() {
                "identifier" => Some(p),
                "typed_parameter" => p.named_child(0).filter(|n| n.kind_name() == "identifier"),
                "default_parameter" | "typed_default_parameter" => p.field("name"),
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    splat = true;
                    None
                }
                _ => None,
            };
            if let Some(n) = name {
                params.push(text(n, source).to_owned());
            }
        }
    }
    let mut up = cx.parent(node);
    if up.is_some_and(|u| u.kind_name() == "decorated_definition") {
        up = up.and_then(|u| cx.parent(u));
    }
    let class = up
        .filter(|b| b.kind_name() == "block")
        .and_then(|b| cx.parent(b))
        .filter(|c| c.kind_name() == "class_definition")
        .and_then(|c| c.field("name"))
        .map(|n| text(n, source).to_owned());
    out.functions.push(FunctionDecl { name, class, params, splat, line, column });
    u32::try_from(out.functions.len() - 1).unwrap_or(u32::MAX)
}

/// Gives the routes and mounts recorded from `node` since the counts `routes` and `mounts` their
/// enclosing function, and records the loops around them.
pub(super) fn scope_new(
    node: Node<'_>,
    cx: &Context<'_>,
    routes: usize,
    mounts: usize,
    out: &mut PyRouteFacts,
) {
    if out.routes.len() == routes && out.mounts.len() == mounts {
        return;
    }
    let (scope, loops) = enclosing(node, cx, out);
    for r in out.routes.iter_mut().skip(routes) {
        r.scope = scope;
    }
    for m in out.mounts.iter_mut().skip(mounts) {
        m.scope = scope;
    }
    for (var, over) in loops {
        if !out.loops.iter().any(|l| l.var == var && l.over == over && l.scope == scope) {
            out.loops.push(LoopDecl { var, over, scope });
        }
    }
}

/// The items of `a + b`, `(a, b)`, `[a, *b]` when every piece is a dotted name.
fn sequence_items(node: Node<'_>, source: &str) -> Option<Vec<SeqItem>> {
    match node.kind_name() {
        "list" | "tuple" => {
            let mut items = Vec::new();
            let mut cursor = node.walk();
            for item in node.named_children(&mut cursor) {
                if item.kind_name() == "comment" {
                    continue;
                }
                if item.kind_name() == "list_splat" {
                    items.push(SeqItem::All(dotted(item.named_child(0)?, source)?));
                } else {
                    items.push(SeqItem::One(dotted(item, source)?));
                }
            }
            (!items.is_empty()).then_some(items)
        }
        "binary_operator" if node.field("operator").is_some_and(|o| text(o, source) == "+") => {
            let mut items = Vec::new();
            for side in [node.field("left")?, node.field("right")?] {
                match dotted(side, source) {
                    Some(name) => items.push(SeqItem::All(name)),
                    None => items.extend(sequence_items(side, source)?),
                }
            }
            Some(items)
        }
        _ => None,
    }
}

/// `name = (a, b)` and the like.
pub(super) fn sequence(
    node: Node<'_>,
    name: &str,
    right: Node<'_>,
    cx: &Context<'_>,
    out: &mut PyRouteFacts,
) {
    let Some(items) = sequence_items(right, cx.source) else { return };
    let (scope, _) = enclosing(node, cx, out);
    out.sequences.push(SequenceDecl { name: name.to_owned(), items, scope });
}

/// What an argument is, as far as a forwarding function may use it.
fn arg_value(node: Node<'_>, source: &str) -> ArgValue {
    if let Some(name) = dotted(node, source) {
        return ArgValue::Name(name);
    }
    if is_stringish(node) {
        return ArgValue::Path(path_expr(node, source));
    }
    match node.kind_name() {
        "list" | "tuple" => {
            let mut cursor = node.walk();
            let items: Vec<Node<'_>> =
                node.named_children(&mut cursor).filter(|i| i.kind_name() != "comment").collect();
            if !items.is_empty() && items.iter().all(|i| is_stringish(*i)) {
                return ArgValue::Paths(items.iter().map(|i| path_expr(*i, source)).collect());
            }
            sequence_items(node, source).map_or(ArgValue::Other, ArgValue::Items)
        }
        "call" => {
            let function = node.field("function").filter(|f| f.kind_name() == "attribute");
            let as_view = function
                .filter(|f| f.field("attribute").is_some_and(|a| text(a, source) == "as_view"));
            as_view
                .and_then(|f| f.field("object"))
                .and_then(|o| dotted(o, source))
                .map_or(ArgValue::Other, ArgValue::View)
        }
        _ => ArgValue::Other,
    }
}

/// True when an argument may carry an object, sequence or view a forwarding function uses: a
/// class view, or a name this file binds to an instance or a sequence.
fn worth_keeping(value: &ArgValue, out: &PyRouteFacts) -> bool {
    let known = |name: &str| {
        let first = name.split('.').next().unwrap_or(name);
        out.instances.iter().any(|i| i.name == first)
            || out.sequences.iter().any(|s| s.name == first)
    };
    match value {
        ArgValue::View(_) => true,
        ArgValue::Name(name) => known(name),
        ArgValue::Items(items) => items.iter().any(|i| match i {
            SeqItem::One(n) | SeqItem::All(n) => known(n),
        }),
        ArgValue::Path(_) | ArgValue::Paths(_) | ArgValue::Other => false,
    }
}

/// The syntax-only test of [`worth_keeping`], done before any argument is read.
fn may_keep(node: Node<'_>, source: &str, out: &PyRouteFacts, depth: usize) -> bool {
    let known = |name: &str| {
        let first = name.split('.').next().unwrap_or(name);
        out.instances.iter().any(|i| i.name == first)
            || out.sequences.iter().any(|s| s.name == first)
    };
    match node.kind_name() {
        "identifier" | "attribute" => known(text(node, source)),
        "list" | "tuple" | "list_splat" if depth == 0 => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).any(|i| may_keep(i, source, out, depth + 1))
        }
        "keyword_argument" => node.field("value").is_some_and(|v| may_keep(v, source, out, depth)),
        "call" => node
            .field("function")
            .filter(|f| f.kind_name() == "attribute")
            .and_then(|f| f.field("attribute"))
            .is_some_and(|a| text(a, source) == "as_view"),
        _ => false,
    }
}

/// A call of a dotted callee: recorded when an argument is worth keeping.
pub(super) fn invocation(node: Node<'_>, cx: &Context<'_>, out: &mut PyRouteFacts) {
    let source = cx.source;
    // A statement of its own, or a value assigned or returned: not an entry of a list (Django
    // `path(...)`) nor an argument of another call.
    let statement = cx.parent(node).is_some_and(|p| {
        matches!(
            p.kind_name(),
            "expression_statement" | "assignment" | "return_statement" | "await"
        )
    });
    let Some(args) = node.field("arguments").filter(|a| a.kind_name() == "argument_list") else {
        return;
    };
    // A class called is an instance made, not a function that forwards.
    let function = node.field("function");
    let last = function.map(|f| match f.field("attribute") {
        Some(a) => text(a, source),
        None => text(f, source),
    });
    if !statement || last.is_none_or(|l| l.starts_with(|c: char| c.is_ascii_uppercase())) {
        return;
    }
    // Cheap first: most calls pass nothing this family knows. A method called on an instance
    // of the file (`api.add(Item, "/items")`) may be a helper of the instance's class.
    let receiver = function
        .filter(|f| f.kind_name() == "attribute")
        .and_then(|f| f.field("object"))
        .filter(|o| o.kind_name() == "identifier")
        .is_some_and(|o| out.instances.iter().any(|i| i.name == text(o, source)));
    let mut cursor = args.walk();
    let method_call = receiver && args.named_child_count() > 0;
    let keep = method_call || args.named_children(&mut cursor).any(|a| may_keep(a, source, out, 0));
    if !keep {
        return;
    }
    let children: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
    let mut arguments = Vec::with_capacity(children.len());
    let mut splat = false;
    for child in children {
        match child.kind_name() {
            "keyword_argument" => {
                let (Some(k), Some(v)) = (child.field("name"), child.field("value")) else {
                    continue;
                };
                let keyword = Some(text(k, source).to_owned());
                arguments.push(Argument { keyword, value: arg_value(v, source) });
            }
            "list_splat" | "dictionary_splat" => splat = true,
            "comment" => {}
            _ => arguments.push(Argument { keyword: None, value: arg_value(child, source) }),
        }
    }
    if !receiver && !arguments.iter().any(|a| worth_keeping(&a.value, out)) {
        return;
    }
    let Some(callee) = function.and_then(|f| dotted(f, source)) else { return };
    let (line, column) = position(node);
    let (scope, _) = enclosing(node, cx, out);
    out.invocations.push(Invocation { callee, args: arguments, splat, scope, line, column });
}

/// `app.config.from_object("pkg.DefaultConfig")` or `from_object(DefaultConfig)`.
pub(super) fn config_source(object: &str, args: Node<'_>, source: &str, out: &mut PyRouteFacts) {
    if object != "config" && !object.ends_with(".config") {
        return;
    }
    let mut cursor = args.walk();
    let Some(first) = args.named_children(&mut cursor).next() else { return };
    let source = match literal_string(first, source) {
        Some(s) => ConfigSource { class: s, string: true },
        None => match dotted(first, source) {
            Some(name) => ConfigSource { class: name, string: false },
            None => return,
        },
    };
    if !out.config_sources.contains(&source) {
        out.config_sources.push(source);
    }
}

/// `X.config["KEY"]` or `X.config.get("KEY")`: the key.
pub(super) fn config_key(node: Node<'_>, source: &str) -> Option<String> {
    let is_config = |n: Node<'_>| {
        n.kind_name() == "attribute"
            && n.field("attribute").is_some_and(|a| text(a, source) == "config")
    };
    match node.kind_name() {
        "subscript" => {
            node.field("value").filter(|v| is_config(*v))?;
            literal_string(node.field("subscript")?, source)
        }
        "call" => {
            let function = node.field("function").filter(|f| f.kind_name() == "attribute")?;
            if function.field("attribute").map(|a| text(a, source)) != Some("get") {
                return None;
            }
            function.field("object").filter(|o| is_config(*o))?;
            let args = node.field("arguments")?;
            let mut cursor = args.walk();
            let first = args.named_children(&mut cursor).next()?;
            literal_string(first, source)
        }
        _ => None,
    }
}
