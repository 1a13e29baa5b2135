//! The function a node sits in: its name as callers write it, its class, and its parameters.
//!
//! Not a recogniser. A request or a call whose URL comes from a parameter makes the enclosing
//! function a wrapper (`wrappers.rs`); its name is how callers reach it: `getJSON` for a function
//! or a `const getJSON = (url) => …`, `ApiService.get` for a method, a class field holding an
//! arrow function or a function assigned to `ApiService.prototype.get`, `api.get` for a method
//! of an object literal bound to `api`, `default` for a default-exported function. An anonymous
//! callback (`.then((r) => …)`) is not a name callers can reach: the scope is the named function
//! around it, less the callback's own parameters, which shadow.
//!
//! Read from the walk's ancestry, so it costs a walk up the path to the node and no tree search.

use tree_sitter::Node;

use super::super::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::text;

/// The function around a node.
#[derive(Debug, Clone, Default)]
pub(super) struct FnScope {
    /// The node id of the function, for its local constants.
    pub id: usize,
    /// The name callers use, when it has one.
    pub name: Option<String>,
    /// 1-based line of the function.
    pub line: u32,
    /// The class the function is a method of (or sits in), for `this.x`.
    pub class: Option<String>,
    /// Its parameters, in order; a parameter that is a pattern is an empty name.
    pub params: Vec<String>,
    /// The node id of the function around this one, whose local constants it sees.
    pub outer: Option<usize>,
}

/// At most this many ancestors are looked at.
const MAX_DEPTH: usize = 200;

pub(super) fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "function_definition"
    )
}

fn is_class(kind: &str) -> bool {
    matches!(
        kind,
        "class_declaration" | "abstract_class_declaration" | "class" | "class_definition"
    )
}

/// The scope of the node being visited; `None` at module level.
pub(super) fn enclosing(cx: &Context<'_>) -> Option<FnScope> {
    let ancestry = cx.ancestry();
    let source = cx.source;
    let start = ancestry.len().saturating_sub(MAX_DEPTH);
    // Parameters of anonymous functions between the node and the named one: they shadow.
    let mut shadowed: Vec<String> = Vec::new();
    let mut innermost: Option<FnScope> = None;
    // Skip the visited node itself: a function declaration is not inside itself.
    let upto = ancestry.len().saturating_sub(1);
    for i in (start..upto).rev() {
        let node = ancestry[i];
        if !is_function(cx.kind(node)) {
            continue;
        }
        let name = function_name(ancestry, i, source);
        let params = parameters(node, source, cx);
        let class = ancestry[start..i]
            .iter()
            .rev()
            .find(|n| is_class(cx.kind(**n)))
            .and_then(|c| c.field("name"))
            .map(|n| text(n, source).to_owned())
            .or_else(|| prototype_method(ancestry, i, source).map(|(class, _)| class.to_owned()));
        let outer =
            ancestry[start..i].iter().rev().find(|n| is_function(n.kind_name())).map(|n| n.id());
        let scope = FnScope {
            id: node.id(),
            name: name.clone(),
            line: node.start_position().row as u32 + 1,
            class,
            params: params.clone(),
            outer,
        };
        if name.is_some() {
            let mut scope = scope;
            scope.params = scope
                .params
                .into_iter()
                .map(|p| if shadowed.contains(&p) { String::new() } else { p })
                .collect();
            return Some(scope);
        }
        shadowed.extend(params);
        innermost.get_or_insert(scope);
    }
    innermost.map(|mut s| {
        s.params.clear();
        s
    })
}

/// The node id of the innermost function around the node being visited (within the ancestors
/// [`enclosing`] looks at; `None` at module level), and where those ancestors start. Every
/// node with the same key has the same [`enclosing`] scope, so it is the key a caller may
/// remember that scope by.
pub(super) fn innermost_function(cx: &Context<'_>) -> Key {
    let ancestry = cx.ancestry();
    let start = ancestry.len().saturating_sub(MAX_DEPTH);
    let upto = ancestry.len().saturating_sub(1);
    let function = ancestry[start..upto].iter().rev().find(|n| is_function(cx.kind(**n)));
    (function.map(Node::id), start)
}

/// What [`enclosing`] depends on: the node id of the innermost function (`None` outside any),
/// and where the window of ancestors it reads starts.
pub(super) type Key = (Option<usize>, usize);

/// The parameters of a function node (Python methods without `self` / `cls`).
fn parameters(node: Node<'_>, source: &str, cx: &Context<'_>) -> Vec<String> {
    if let Some(single) = node.field("parameter") {
        return vec![text(single, source).to_owned()];
    }
    let Some(list) = node.field("parameters") else { return Vec::new() };
    let mut out = Vec::new();
    let mut cursor = list.walk();
    for p in list.named_children(&mut cursor) {
        let name = match p.kind_name() {
            "identifier" => Some(p),
            "required_parameter" | "optional_parameter" => p.field("pattern"),
            "assignment_pattern" => p.field("left"),
            "default_parameter" | "typed_default_parameter" => p.field("name"),
            "typed_parameter" => p.named_child(0),
            "comment" => continue,
            _ => None,
        };
        let name =
            name.filter(|n| n.kind_name() == "identifier").map(|n| text(n, source).to_owned());
        out.push(name.unwrap_or_default());
    }
    let in_class = cx.syntax == crate::Syntax::Python
        && node.kind_name() == "function_definition"
        && cx
            .parent(node)
            .and_then(|b| cx.parent(b))
            .is_some_and(|c| c.kind_name() == "class_definition");
    if in_class && out.first().is_some_and(|p| p == "self" || p == "cls") {
        out.remove(0);
    }
    out
}

/// The name callers use for the function at `ancestry[i]`.
fn function_name(ancestry: &[Node<'_>], i: usize, source: &str) -> Option<String> {
    let node = ancestry[i];
    let parent = |k: usize| i.checked_sub(k).map(|j| ancestry[j]);
    let class_of = |from: usize| {
        ancestry[..from]
            .iter()
            .rev()
            .take(3)
            .find(|n| is_class(n.kind_name()))
            .and_then(|c| c.field("name"))
            .map(|n| text(n, source).to_owned())
    };
    match node.kind_name() {
        "function_declaration" | "generator_function_declaration" => {
            Some(text(node.field("name")?, source).to_owned())
        }
        "function_definition" => {
            let name = text(node.field("name")?, source);
            // `def get(self, path)` in a class: `Client.get`.
            match (parent(1), parent(2)) {
                (Some(b), Some(c))
                    if b.kind_name() == "block" && c.kind_name() == "class_definition" =>
                {
                    Some(format!("{}.{name}", text(c.field("name")?, source)))
                }
                _ => Some(name.to_owned()),
            }
        }
        "method_definition" => {
            let name = text(node.field("name")?, source);
            let holder = parent(1)?;
            match holder.kind_name() {
                "class_body" => Some(format!("{}.{name}", class_of(i)?)),
                "object" => Some(format!("{}.{name}", object_name(ancestry, i - 1, source)?)),
                _ => None,
            }
        }
        _ => {
            // An arrow function or function expression: named by what holds it.
            let mut j = i.checked_sub(1)?;
            loop {
                match ancestry[j].kind_name() {
                    "parenthesized_expression" | "as_expression" | "satisfies_expression" => {
                        j = j.checked_sub(1)?;
                    }
                    // `get: useCallback(async (url) => …, [])`: the memoised function is
                    // named by what holds the hook call.
                    "arguments" if is_memo(ancestry.get(j.checked_sub(1)?)?, source) => {
                        j = j.checked_sub(2)?;
                    }
                    _ => break,
                }
            }
            let holder = ancestry[j];
            match holder.kind_name() {
                "variable_declarator" => {
                    let name = holder.field("name")?;
                    (name.kind_name() == "identifier").then(|| text(name, source).to_owned())
                }
                "public_field_definition" => {
                    let name = text(holder.field("name")?, source);
                    Some(format!("{}.{name}", class_of(j)?))
                }
                "pair" => {
                    let key = text(holder.field("key")?, source).trim_matches(['"', '\'']);
                    let object = j.checked_sub(1)?;
                    (ancestry[object].kind_name() == "object")
                        .then(|| object_name(ancestry, object, source))
                        .flatten()
                        .map(|o| format!("{o}.{key}"))
                }
                "export_statement" => Some("default".to_owned()),
                // `Api.prototype.get_item = function (…) {…}`: a method of `Api`.
                "assignment_expression" => prototype_method(ancestry, i, source)
                    .map(|(class, method)| format!("{class}.{method}")),
                _ => None,
            }
        }
    }
}

/// For a function assigned to `Class.prototype.method`, the class and the method.
fn prototype_method<'s>(
    ancestry: &[Node<'_>],
    i: usize,
    source: &'s str,
) -> Option<(&'s str, &'s str)> {
    let holder = ancestry.get(i.checked_sub(1)?)?;
    if holder.kind_name() != "assignment_expression"
        || holder.field("right").is_none_or(|r| r.id() != ancestry[i].id())
    {
        return None;
    }
    let left = text(holder.field("left")?, source);
    let (class, method) = left.split_once(".prototype.")?;
    let simple =
        |t: &str| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    (simple(class) && simple(method)).then_some((class, method))
}

/// `useCallback(fn, deps)`, `useMemo(…)`: a React hook call that hands back its function.
fn is_memo(call: &Node<'_>, source: &str) -> bool {
    call.kind_name() == "call_expression"
        && call
            .field("function")
            .is_some_and(|f| matches!(text(f, source), "useCallback" | "React.useCallback"))
}

/// The name an object literal at `ancestry[i]` is bound to (`const api = { … }`); an object a
/// named function returns (`function useApi() { return { get } }`, `() => ({ get })`) is named
/// after the function: its members are `useApi.get`, which `const { get } = useApi()` aliases.
fn object_name(ancestry: &[Node<'_>], i: usize, source: &str) -> Option<String> {
    let mut k = i.checked_sub(1)?;
    while matches!(ancestry[k].kind_name(), "parenthesized_expression" | "as_expression") {
        k = k.checked_sub(1)?;
    }
    let holder = ancestry.get(k)?;
    match holder.kind_name() {
        "variable_declarator" => {
            let name = holder.field("name")?;
            (name.kind_name() == "identifier").then(|| text(name, source).to_owned())
        }
        "export_statement" => Some("default".to_owned()),
        "arrow_function" => function_name(ancestry, k, source),
        "return_statement" => {
            let block =
                k.checked_sub(1).filter(|b| ancestry[*b].kind_name() == "statement_block")?;
            let function =
                block.checked_sub(1).filter(|f| is_function(ancestry[*f].kind_name()))?;
            function_name(ancestry, function, source)
        }
        _ => None,
    }
}

/// The class a node sits in, and what it extends (`class A extends Base<T>` → `Base`).
pub(super) fn class_heritage(node: Node<'_>, source: &str) -> Option<(String, Option<String>)> {
    let name = text(node.field("name")?, source).to_owned();
    let extends = if node.kind_name() == "class_definition" {
        node.field("superclasses").and_then(|s| s.named_child(0)).map(|s| text(s, source))
    } else {
        let mut cursor = node.walk();
        let heritage = node.children(&mut cursor).find(|c| c.kind_name() == "class_heritage");
        heritage.map(|h| text(h, source))
    };
    let extends = extends.and_then(|t| {
        let t = t.trim().strip_prefix("extends").unwrap_or(t).trim_start();
        let end = t.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'));
        let name = end.map_or(t, |e| &t[..e]);
        (!name.is_empty()).then(|| name.to_owned())
    });
    Some((name, extends))
}
