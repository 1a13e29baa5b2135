//! A URL and a method assigned together in the branches of an `if`: one request per branch.
//!
//! Not a recogniser. A call `send(url, { method: method, … })` whose URL and method are locals
//! of the enclosing function, both assigned in the statements before the call in its block
//! (declarations, assignments, `+=` on the URL, and `if`/`else` chains that assign them), is read
//! path by path: each way through the `if`s gives its own (URL, method) pair, never the cross
//! product of the two. Every path must give a URL and a literal method; any other assignment of
//! either name (in a loop, a `switch`, a nested function, from a call) leaves the call to the
//! usual reading, its method unknown.
//!
//! Example: `if (id) { url = `/pages/${id}`; method = "PATCH" } else { url = "/pages"; method =
//! "POST" }` then `fetch(url, { method })` → `PATCH /pages/{id}` and `POST /pages`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::super::Context;
use super::url::{self, Env, Part};
use crate::syntax::javascript::{named_args, property_key};
use crate::syntax::{FieldExt, KindExt, literal_string, text};

/// At most this many ways through the `if`s are followed.
const MAX_PATHS: usize = 8;
/// At most this many `if`s are read inside one another (an `else if` counts as one more).
const MAX_NESTING: usize = 4;
/// At most this many ancestors are looked at from the call to the statement holding it.
const MAX_UP: usize = 32;
/// At most this many nodes are searched for an assignment of the names in one statement.
const MAX_SEARCH: usize = 4096;

/// What one way through the statements leaves in the two names.
#[derive(Debug, Clone, Default)]
struct State {
    url: Option<Vec<Part>>,
    method: Option<HttpMethod>,
}

/// The two locals the call reads.
struct Names<'s> {
    url: &'s str,
    method: &'s str,
}

/// What reading the statements before a call needs, and whether an `if` assigned the names.
struct Reader<'a> {
    names: Names<'a>,
    source: &'a str,
    env: &'a Env<'a>,
    branched: bool,
}

/// The (method, URL) of each way to the call, when its URL and method are locals assigned
/// together in the branches of an `if` before it; `None` for any other call.
pub(super) fn branches(
    call: Node<'_>,
    cx: &Context<'_>,
    env: &Env<'_>,
) -> Option<Vec<(HttpMethod, Vec<Part>)>> {
    let source = cx.source;
    let arguments = call.field("arguments")?;
    let args = named_args(arguments);
    let [target, options, ..] = args.as_slice() else {
        return None;
    };
    let (target, options) =
        (super::fetch::unparenthesized(*target), super::fetch::unparenthesized(*options));
    if target.kind_name() != "identifier" || options.kind_name() != "object" {
        return None;
    }
    let names = Names { url: text(target, source), method: method_name(options, source)? };
    if names.url == names.method || env.params.iter().any(|p| p == names.url || p == names.method) {
        return None;
    }
    // The statement holding the call, and the block it is a statement of.
    let mut below = call;
    let mut block = None;
    for _ in 0..MAX_UP {
        let parent = cx.parent(below)?;
        if matches!(parent.kind_name(), "statement_block" | "program") {
            block = Some(parent);
            break;
        }
        if super::scope::is_function(parent.kind_name()) {
            return None;
        }
        below = parent;
    }
    let block = block?;
    let mut reader = Reader { names, source, env, branched: false };
    let mut paths = vec![State::default()];
    let mut cursor = block.walk();
    for statement in block.named_children(&mut cursor) {
        if statement.start_byte() >= below.start_byte() {
            break;
        }
        reader.step(statement, &mut paths, 0)?;
    }
    if !reader.branched {
        return None;
    }
    let mut out: Vec<(HttpMethod, Vec<Part>)> = Vec::new();
    for state in paths {
        let (Some(method), Some(url)) = (state.method, state.url) else {
            return None;
        };
        if !out.iter().any(|(m, u)| *m == method && *u == url) {
            out.push((method, url));
        }
    }
    Some(out)
}

/// The name the options' `method` holds: `{ method: verb }` or `{ method }`.
fn method_name<'s>(options: Node<'_>, source: &'s str) -> Option<&'s str> {
    let mut cursor = options.walk();
    for member in options.named_children(&mut cursor) {
        match member.kind_name() {
            "shorthand_property_identifier" if text(member, source) == "method" => {
                return Some(text(member, source));
            }
            "pair" => {
                let key = member.field("key").and_then(|k| property_key(k, source));
                if key.as_deref() == Some("method") {
                    let value = super::fetch::unparenthesized(member.field("value")?);
                    return (value.kind_name() == "identifier").then(|| text(value, source));
                }
            }
            _ => {}
        }
    }
    None
}

impl Reader<'_> {
    /// Runs one statement on every path; `None` when it assigns a name in a way not read.
    fn step(&mut self, statement: Node<'_>, paths: &mut Vec<State>, depth: usize) -> Option<()> {
        let (names, source) = (&self.names, self.source);
        match statement.kind_name() {
            "lexical_declaration" | "variable_declaration" => {
                let mut cursor = statement.walk();
                for declarator in statement.named_children(&mut cursor) {
                    let Some(name) = declarator.field("name") else { continue };
                    let name = text(name, source);
                    if name != names.url && name != names.method {
                        continue;
                    }
                    match declarator.field("value") {
                        Some(value) => self.assign(paths, name, "=", value)?,
                        None => {
                            for state in paths.iter_mut() {
                                if name == names.url {
                                    state.url = None;
                                } else {
                                    state.method = None;
                                }
                            }
                        }
                    }
                }
                Some(())
            }
            "expression_statement" => {
                let expression = statement.named_child(0)?;
                if matches!(
                    expression.kind_name(),
                    "assignment_expression" | "augmented_assignment_expression"
                ) && let (Some(left), Some(right)) =
                    (expression.field("left"), expression.field("right"))
                    && left.kind_name() == "identifier"
                    && (text(left, source) == names.url || text(left, source) == names.method)
                {
                    if assigns(right, names, source) {
                        return None;
                    }
                    let operator = expression.field("operator").map_or("=", |o| text(o, source));
                    return self.assign(paths, text(left, source), operator, right);
                }
                (!assigns(statement, names, source)).then_some(())
            }
            "if_statement" if assigns(statement, names, source) => {
                if depth >= MAX_NESTING {
                    return None;
                }
                self.branched = true;
                let before = paths.clone();
                let mut out = before.clone();
                self.block_step(statement.field("consequence")?, &mut out, depth)?;
                match statement.field("alternative") {
                    Some(alternative) => {
                        // `else { … }` or `else if (…) …`: the else clause's one child.
                        let mut other = before;
                        self.block_step(alternative.named_child(0)?, &mut other, depth)?;
                        out.extend(other);
                    }
                    None => out.extend(before),
                }
                if out.len() > MAX_PATHS {
                    return None;
                }
                *paths = out;
                Some(())
            }
            _ => (!assigns(statement, names, source)).then_some(()),
        }
    }

    /// A branch's body: a block's statements, or the one statement.
    fn block_step(&mut self, body: Node<'_>, paths: &mut Vec<State>, depth: usize) -> Option<()> {
        if body.kind_name() != "statement_block" {
            return self.step(body, paths, depth + 1);
        }
        let mut cursor = body.walk();
        for statement in body.named_children(&mut cursor) {
            self.step(statement, paths, depth + 1)?;
        }
        Some(())
    }

    /// `name = value` (or `name += value` for the URL) on every path.
    fn assign(
        &self,
        paths: &mut [State],
        name: &str,
        operator: &str,
        value: Node<'_>,
    ) -> Option<()> {
        let (names, source) = (&self.names, self.source);
        if name == names.method {
            if operator != "=" {
                return None;
            }
            let method = literal_string(super::fetch::unparenthesized(value), source)
                .and_then(|m| HttpMethod::parse(&m))
                .filter(|m| *m != HttpMethod::Any);
            for state in paths.iter_mut() {
                state.method = method;
            }
            return Some(());
        }
        // `url = url + "/x"` would read the name's merged value: only `+=` builds on it.
        if any_node(value, |n| n.kind_name() == "identifier" && text(n, source) == names.url) {
            return None;
        }
        let parts = url::parts(value, source, self.env)?;
        for state in paths.iter_mut() {
            state.url = match operator {
                "=" => Some(parts.clone()),
                "+=" => {
                    let mut joined = state.url.clone()?;
                    url::push_parts(&mut joined, parts.clone());
                    Some(joined)
                }
                _ => return None,
            };
        }
        Some(())
    }
}

/// True when `node` assigns (or updates) either name anywhere inside it, or is too large to
/// search.
fn assigns(node: Node<'_>, names: &Names<'_>, source: &str) -> bool {
    any_node(node, |n| {
        let target = match n.kind_name() {
            "assignment_expression" | "augmented_assignment_expression" => n.field("left"),
            "update_expression" => n.field("argument"),
            _ => None,
        };
        target.is_some_and(|t| {
            t.kind_name() == "identifier"
                && matches!(text(t, source), t if t == names.url || t == names.method)
        })
    })
}

/// True when `test` holds for `node` or a named node below it, or `node` is too large to
/// search (more than [`MAX_SEARCH`] nodes).
fn any_node(node: Node<'_>, test: impl Fn(Node<'_>) -> bool) -> bool {
    let mut stack = vec![node];
    let mut seen = 0usize;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > MAX_SEARCH || test(n) {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn url_and_method_assigned_in_branches_pair_per_branch() {
        // if/else with a shorthand `method`; a default then an `if` without else and `+=`; an
        // `else if` chain.
        check!(
            "web/src/save.js",
            r#"
import Client from "./client";

export function saveTag(tag) {
  let url, method;
  if (tag.id) {
    url = `/api/tags/${tag.id}`;
    method = "PUT";
  } else {
    url = "/api/tags";
    method = "POST";
  }
  return fetch(url, { method, body: JSON.stringify(tag) });
}

export function savePage(params) {
  var target = "/api/pages";
  var verb = "POST";
  const slug = location.pathname.split("/").pop();
  if (slug !== "new") {
    target += "/" + slug;
    verb = "PATCH";
  }
  Client.send(target, { method: verb, body: params });
}

export function moveItem(item) {
  let url = "";
  let verb = "";
  if (item.gone) {
    url = `/api/items/${item.id}`;
    verb = "DELETE";
  } else if (item.id) {
    url = `/api/items/${item.id}/move`;
    verb = "POST";
  } else {
    url = "/api/items";
    verb = "PUT";
  }
  fetch(url, { method: verb });
}
"#
        );
    }

    #[test]
    fn other_assignments_leave_the_method_unknown() {
        // Assigned in a loop, from a variable, a branch that sets no method, and a URL built
        // from itself: read as before, the method unknown.
        check!(
            "web/src/other.js",
            r#"
export function looped(ids) {
  let url = "/api/a";
  let method = "POST";
  for (const id of ids) {
    url = `/api/a/${id}`;
    method = "PATCH";
  }
  fetch(url, { method: method });
}

export function fromVariable(id, verb) {
  let url, method;
  if (id) {
    url = `/api/b/${id}`;
    method = verb;
  } else {
    url = "/api/b";
    method = "POST";
  }
  fetch(url, { method: method });
}

export function halfSet(id) {
  let url = "/api/c", method;
  if (id) {
    url = `/api/c/${id}`;
    method = "PATCH";
  }
  fetch(url, { method: method });
}

export function selfBuilt(id) {
  let url = "/api/d";
  let method = "POST";
  if (id) {
    url = url + "/" + id;
    method = "PATCH";
  }
  fetch(url, { method: method });
}
"#
        );
    }
}
