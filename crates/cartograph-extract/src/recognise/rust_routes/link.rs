//! The link half of the axum recogniser: every route with the prefixes of the nests that take
//! its router, across functions and modules.
//!
//! A route's router is a *position*: the function it is written in and the `let` name its chain
//! is bound to. A nest or merge takes a position: a `let` of its own function, or a function it
//! calls (`route::route(state)`, followed through the caller's `use` bindings, or a function of
//! the same file). A route under no nest is served at its own path. Prefixes compose up to
//! [`MAX_DEPTH`] nests; a computed prefix is an unknown segment and makes the route `possible`.
//! A nest whose function is not found is an `unresolved-mount` refusal, and a function of that
//! name may sit under a prefix that is not seen: its routes are `likely`.

use std::collections::BTreeSet;

use cartograph_core::{
    Confidence, Provenance, Refusal, RefusalKind, RepoPath, RouteTemplate, SourceLocation,
};

use super::{AxumNest, Chain, NestTarget};
use crate::recognise::link::{BindingTarget, FileView, LinkInput, Linked, ServedRoute};

/// How many nests deep a router is followed.
const MAX_DEPTH: usize = 8;
/// How many ways one router is served, at most (a router nested by many routers that are each
/// nested by many would otherwise multiply).
const MAX_PLACEMENTS: usize = 64;
/// The segment a computed prefix leaves in the path.
const UNKNOWN_PREFIX: &str = "{prefix}";

/// A router: the file, function and `let` name its chain ends up in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Position<'a> {
    file: &'a RepoPath,
    function: Option<&'a str>,
    bound: Option<&'a str>,
}

/// One way a router is served: its prefix pieces (outermost first, `None` computed) and the
/// nests passed, innermost first, for evidence.
struct Placement<'a> {
    prefixes: Vec<Option<String>>,
    through: Vec<(&'a RepoPath, &'a AxumNest)>,
}

/// Links this family's facts.
pub fn link(input: &LinkInput<'_>, linked: &mut Linked) -> Vec<ServedRoute> {
    let nests: Vec<(&FileView<'_>, &AxumNest, Option<Position<'_>>)> = input
        .files
        .iter()
        .flat_map(|f| f.facts.rust_routes.nests.iter().map(move |n| (f, n)))
        .map(|(f, n)| (f, n, target(input, f, n)))
        .collect();
    for (file, nest, target) in &nests {
        if let (None, NestTarget::Call(path)) = (target, &nest.target) {
            linked.refusals.push(Refusal::new(
                RefusalKind::UnresolvedMount,
                SourceLocation::new(file.path.clone(), nest.line, nest.column),
                format!(
                    "the axum router of {path} cannot be followed to a function of the tree: its \
                     routes may lack this prefix"
                ),
            ));
        }
    }
    // Function names some nest calls without being resolved.
    let unresolved: BTreeSet<&str> = nests
        .iter()
        .filter(|(_, _, t)| t.is_none())
        .filter_map(|(_, n, _)| match &n.target {
            NestTarget::Call(path) => path.rsplit("::").next(),
            NestTarget::Local(_) => None,
        })
        .collect();
    let mut routes = Vec::new();
    for file in &input.files {
        for route in &file.facts.rust_routes.routes {
            let position = position(file.path, &route.chain);
            let mut placements = Vec::new();
            place(&nests, &position, 0, &mut placements);
            for placement in placements {
                let mut pieces = placement.prefixes.clone();
                pieces.extend(route.chain.prefixes.iter().cloned());
                let computed = pieces.iter().any(Option::is_none);
                let mut path = String::new();
                for piece in &pieces {
                    path.push_str(piece.as_deref().unwrap_or(UNKNOWN_PREFIX));
                    path.push('/');
                }
                path.push_str(&route.path);
                let template = RouteTemplate::parse(&path);
                let mut evidence = format!(
                    "axum route {} from .route(\"{}\", …) in {}",
                    template.display(),
                    route.path,
                    file.path
                );
                for prefix in route.chain.prefixes.iter().rev() {
                    match prefix {
                        Some(p) => evidence.push_str(&format!(", nested at {p} in place")),
                        None => evidence.push_str(", nested in place at a computed prefix"),
                    }
                }
                let mut files = BTreeSet::from([file.path]);
                for (at, nest) in &placement.through {
                    files.insert(*at);
                    let how = match (&nest.prefix, &nest.target) {
                        (Some(p), _) if p.is_empty() => "merged".to_owned(),
                        (Some(p), _) => format!("nested at {p}"),
                        (None, _) => "nested at a computed prefix".to_owned(),
                    };
                    evidence.push_str(&format!(", {how} in {}:{}", at, nest.line));
                }
                let unseen = placement.through.is_empty()
                    && route.chain.function.as_deref().is_some_and(|f| unresolved.contains(f));
                let confidence = if computed {
                    evidence.push_str("; a computed prefix is an unknown segment");
                    Confidence::Possible
                } else if unseen {
                    evidence.push_str(
                        "; a nest of a function of this name was not resolved, so a prefix may be \
                         missing",
                    );
                    Confidence::Likely
                } else {
                    Confidence::Certain
                };
                let (module, handler) = handler(input, file, route.handler.as_deref());
                for &method in &route.methods {
                    routes.push(ServedRoute {
                        method,
                        template: template.clone(),
                        module: module.clone(),
                        handler: handler.clone(),
                        location: SourceLocation::new(file.path.clone(), route.line, route.column),
                        framework: "axum",
                        provenance: if files.len() == 1 {
                            Provenance::Syntax
                        } else {
                            Provenance::Resolver
                        },
                        confidence,
                        evidence: evidence.clone(),
                    });
                }
            }
        }
    }
    routes
}

fn position<'a>(file: &'a RepoPath, chain: &'a Chain) -> Position<'a> {
    Position { file, function: chain.function.as_deref(), bound: chain.bound.as_deref() }
}

/// Every way the router at `position` is served: through each nest that takes it, or at its
/// own root when none does.
fn place<'a>(
    nests: &[(&'a FileView<'a>, &'a AxumNest, Option<Position<'a>>)],
    position: &Position<'a>,
    depth: usize,
    out: &mut Vec<Placement<'a>>,
) {
    let taking: Vec<_> =
        nests.iter().filter(|(_, _, t)| t.as_ref().is_some_and(|t| takes(t, position))).collect();
    if taking.is_empty() || depth >= MAX_DEPTH {
        out.push(Placement { prefixes: Vec::new(), through: Vec::new() });
        return;
    }
    for (file, nest, _) in taking {
        if out.len() >= MAX_PLACEMENTS {
            return;
        }
        let outer = self::position(file.path, &nest.chain);
        let mut above = Vec::new();
        place(nests, &outer, depth + 1, &mut above);
        for mut placement in above.into_iter().take(MAX_PLACEMENTS - out.len()) {
            placement.prefixes.extend(nest.chain.prefixes.iter().cloned());
            placement.prefixes.push(nest.prefix.clone());
            placement.through.insert(0, (file.path, *nest));
            out.push(placement);
        }
    }
}

/// Whether a nest's target is the router at `position`: a `let` names it exactly; a function
/// call takes the function's chains bound to no `let` (the chain the function returns; one
/// returned through a `let` is not followed).
fn takes(target: &Position<'_>, position: &Position<'_>) -> bool {
    target.file == position.file
        && target.function == position.function
        && (target.bound.is_none() || target.bound == position.bound)
        && (target.bound.is_some() || position.bound.is_none())
}

/// The router a nest takes: a `let` of its own function, or the function it calls.
fn target<'a>(
    input: &LinkInput<'a>,
    file: &FileView<'a>,
    nest: &'a AxumNest,
) -> Option<Position<'a>> {
    match &nest.target {
        NestTarget::Local(name) => Some(Position {
            file: file.path,
            function: nest.chain.function.as_deref(),
            bound: Some(name),
        }),
        NestTarget::Call(path) => {
            let (module, function) = function_at(input, file, path)?;
            Some(Position { file: module, function: Some(function), bound: None })
        }
    }
}

/// The module and name of the function `path` calls from `file`: a function of the file, a
/// name a `use` binds, or `module::function` with `module` bound by a `use`.
fn function_at<'a>(
    input: &LinkInput<'a>,
    file: &FileView<'a>,
    path: &'a str,
) -> Option<(&'a RepoPath, &'a str)> {
    let segments: Vec<&'a str> = path.split("::").collect();
    match segments.as_slice() {
        [name] => {
            let facts = &file.facts.rust_routes;
            let declared = facts
                .routes
                .iter()
                .map(|r| &r.chain)
                .chain(facts.nests.iter().map(|n| &n.chain))
                .any(|c| c.function.as_deref() == Some(*name));
            if declared {
                return Some((file.path, name));
            }
            let binding = input.binding(file.path, name)?;
            let BindingTarget::Module(module) = &binding.target else { return None };
            let member = binding.member.as_deref()?;
            let module = input.file(module)?.path;
            (member == *name).then_some((module, *name))
        }
        [head, name] => {
            let binding = input.binding(file.path, head)?;
            let BindingTarget::Module(module) = &binding.target else { return None };
            if binding.member.is_some() {
                return None;
            }
            Some((input.file(module)?.path, name))
        }
        _ => None,
    }
}

/// The module that declares a handler written as a path (`controller::handshake`, or a name a
/// `use` binds), and its name; the route's own file otherwise.
fn handler(
    input: &LinkInput<'_>,
    file: &FileView<'_>,
    written: Option<&str>,
) -> (RepoPath, Option<String>) {
    let Some(written) = written else { return (file.path.clone(), None) };
    let name = written.rsplit("::").next().unwrap_or(written).to_owned();
    let head = written.split("::").next().unwrap_or(written);
    let module = input.binding(file.path, head).and_then(|b| match &b.target {
        BindingTarget::Module(m) => input.file(m).map(|f| f.path.clone()),
        BindingTarget::Package(_) => None,
    });
    (module.unwrap_or_else(|| file.path.clone()), Some(name))
}
