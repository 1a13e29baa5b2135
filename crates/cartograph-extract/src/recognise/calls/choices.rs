//! Conditional URLs: `id ? `/boards/${id}` : "/boards"` is one URL per branch.
//!
//! Not a recogniser. A conditional expression in a URL is flattened into a hole that keeps what
//! each branch flattens to (at most [`MAX_CHOICES`] branches; nested conditionals are spliced in,
//! deeper ones or more branches stay a plain hole, read as today). The hole travels like any
//! other part — through constants, URL templates, wrapper arguments — and is expanded only at
//! link time, where each branch becomes its own URL: the link half links the branches that match
//! a route, each with evidence naming the branch, and refuses the call only when none does.
//!
//! Example: `get(teamId ? `/teams/${teamId}/websites` : "/me/websites")` → two URLs,
//! `/teams/{teamId}/websites` and `/me/websites`.

use std::cell::Cell;

use tree_sitter::Node;

use super::url::{self, Env, Hole, MAX_CHOICES, Part};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;

/// At most this many URLs are made from one expression's conditionals (several often read the
/// same: a query string added or not).
const MAX_EXPANSIONS: usize = 16;

/// At most this many conditionals are read inside one another.
const MAX_NESTING: u8 = 4;

thread_local! {
    static NESTING: Cell<u8> = const { Cell::new(0) };
}

/// The hole for a conditional expression, with its branches when they can be kept.
pub(super) fn conditional(node: Node<'_>, source: &str, env: &Env<'_>) -> Hole {
    let mut hole = url::hole(node, source);
    let depth = NESTING.with(Cell::get);
    if depth >= MAX_NESTING {
        return hole;
    }
    NESTING.with(|n| n.set(depth + 1));
    let branches = [node.field("consequence"), node.field("alternative")];
    let mut choices: Vec<Vec<Part>> = Vec::new();
    let mut readable = true;
    for branch in branches {
        match branch.and_then(|b| url::parts(b, source, env)) {
            Some(parts) => match parts.as_slice() {
                [Part::Hole(inner)] if !inner.choices.is_empty() => {
                    choices.extend(inner.choices.iter().cloned());
                }
                _ => choices.push(parts),
            },
            None => readable = false,
        }
    }
    NESTING.with(|n| n.set(depth));
    if readable && choices.len() <= MAX_CHOICES {
        hole.choices = choices;
    }
    hole
}

/// One value or the other (`a || b`, two assignments of one local): a conditional hole, or
/// `None` past [`MAX_CHOICES`] branches.
pub(super) fn either(a: Vec<Part>, b: Vec<Part>) -> Option<Vec<Part>> {
    let mut choices: Vec<Vec<Part>> = Vec::new();
    for parts in [a, b] {
        match parts.as_slice() {
            [Part::Hole(inner)] if !inner.choices.is_empty() => {
                choices.extend(inner.choices.iter().cloned());
            }
            _ => choices.push(parts),
        }
    }
    if choices.len() > MAX_CHOICES {
        return None;
    }
    let hole = Hole {
        dotted: String::new(),
        config: false,
        param: String::new(),
        label: String::new(),
        fallback: None,
        arg: None,
        imported: false,
        choices,
        call: None,
    };
    Some(vec![Part::hole(hole)])
}

/// `a || b`, `a ?? b` with `b` not a literal (a literal is a configured value's default, read
/// by `url.rs`): one value or the other.
pub(super) fn alternative(node: Node<'_>, source: &str, env: &Env<'_>) -> Option<Vec<Part>> {
    let op = node.field("operator").map(|o| crate::syntax::text(o, source))?;
    if !matches!(op, "||" | "??") {
        return None;
    }
    let (left, right) = (node.field("left")?, node.field("right")?);
    if crate::syntax::literal_string(right, source).is_some() {
        return None;
    }
    // `process.env.API_URL || defaultUrl()`: a call's value is unknown either way, and the
    // configured value before it is what names the base.
    if [left, right].iter().any(|n| matches!(n.kind_name(), "call_expression" | "await_expression"))
    {
        return None;
    }
    let depth = NESTING.with(Cell::get);
    if depth >= MAX_NESTING {
        return None;
    }
    NESTING.with(|n| n.set(depth + 1));
    let both = url::parts(left, source, env).zip(url::parts(right, source, env));
    NESTING.with(|n| n.set(depth));
    let (a, b) = both?;
    either(a, b)
}

/// True when a parameter of the enclosing function is inside a conditional's branches or an
/// imported call's arguments.
pub(super) fn holds_arg(hole: &Hole) -> bool {
    let inside = |parts: &Vec<Part>| {
        parts.iter().any(|p| matches!(p, Part::Hole(h) if h.arg.is_some() || holds_arg(h)))
    };
    hole.choices.iter().any(inside) || hole.call.iter().flatten().any(inside)
}

/// True when a literal is among the parts or in a branch of their conditionals.
pub(super) fn has_literal(parts: &[Part]) -> bool {
    parts.iter().any(|p| match p {
        Part::Literal(_) => true,
        Part::Hole(h) => h.choices.iter().any(|c| has_literal(c)),
    })
}

/// `parts` with each parameter hole replaced by the argument given for it, also inside
/// conditionals and imported calls; `None` when an argument is missing.
pub(super) fn bind_args(parts: &[Part], given: &[Vec<Part>]) -> Option<Vec<Part>> {
    let mut out = Vec::new();
    for part in parts {
        match part {
            Part::Hole(h) if h.arg.is_some() => {
                let k = usize::from(h.arg?);
                url::push_parts(&mut out, given.get(k)?.clone());
            }
            Part::Hole(h) if holds_arg(h) => {
                let mut h = h.clone();
                h.choices = h.choices.iter().map(|c| bind_args(c, given)).collect::<Option<_>>()?;
                if let Some(call) = &h.call {
                    h.call = Some(call.iter().map(|c| bind_args(c, given)).collect::<Option<_>>()?);
                }
                out.push(Part::Hole(h));
            }
            other => url::push_parts(&mut out, vec![other.clone()]),
        }
    }
    Some(out)
}

/// Every URL `parts` may be, one per combination of branches of its conditionals; the parts
/// themselves (their conditionals read as plain holes) when there would be more than
/// [`MAX_EXPANSIONS`].
pub(crate) fn expand(parts: &[Part]) -> Vec<Vec<Part>> {
    if !parts.iter().any(|p| matches!(p, Part::Hole(h) if !h.choices.is_empty())) {
        return vec![parts.to_vec()];
    }
    let mut out: Vec<Vec<Part>> = vec![Vec::new()];
    for part in parts {
        match part {
            Part::Hole(h) if !h.choices.is_empty() => {
                let mut branches: Vec<Vec<Part>> = Vec::new();
                for choice in &h.choices {
                    branches.extend(expand(choice));
                }
                if out.len() * branches.len() > MAX_EXPANSIONS {
                    return vec![plain(parts)];
                }
                out = out
                    .iter()
                    .flat_map(|o| {
                        branches.iter().map(move |b| {
                            let mut v = o.clone();
                            url::push_parts(&mut v, b.clone());
                            v
                        })
                    })
                    .collect();
            }
            other => {
                for o in &mut out {
                    url::push_parts(o, vec![other.clone()]);
                }
            }
        }
    }
    out
}

/// The parts with their conditionals dropped to plain holes.
fn plain(parts: &[Part]) -> Vec<Part> {
    parts
        .iter()
        .map(|p| match p {
            Part::Hole(h) if !h.choices.is_empty() => {
                let mut h = h.clone();
                h.choices.clear();
                Part::Hole(h)
            }
            other => other.clone(),
        })
        .collect()
}
