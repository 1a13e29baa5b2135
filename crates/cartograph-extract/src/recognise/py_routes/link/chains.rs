//! FastAPI and Flask: routes on apps, routers and blueprints, with every prefix of the chain of
//! `include_router` / `register_blueprint` / `mount` calls that leads from the route's router to
//! an app.
//!
//! A router included in two places serves its routes under both paths (two routes). A router
//! that no app includes still serves the paths it declares, with confidence `possible` and
//! evidence that says so. A path that does not resolve to text is a `computed-route` refusal; a
//! prefix that does not keeps the routes below it under an unknown `{prefix}` segment, at most
//! `possible`, with one `computed-route` refusal that says how many routes it affects. An
//! include whose router is not found is an `unresolved-mount` refusal.

use std::collections::HashMap;

#[path = "forward.rs"]
mod forward;

use self::forward::{PathSlot, Pending, Sites, Via};

use crate::recognise::py_routes::{Instance, Methods, MountDecl, MountKind, PathPart, RouteDecl};
use cartograph_core::{
    Confidence, HttpMethod, Provenance, RefusalKind, RouteTemplate, SourceLocation,
};

use super::{
    Def, FileIdx, FrameworkClass, Names, NinjaRoute, Output, ResolvedPath, UNKNOWN_PREFIX,
    describe, join,
};
use crate::recognise::link::ServedRoute;
use crate::recognise::py_routes::ninja::template_path as ninja_path;

/// An object that routes can be declared on: (file, index into its instances).
type ObjId = (FileIdx, usize);

/// The most mount levels followed up from one router.
const MAX_DEPTH: usize = 16;
/// The most distinct chains composed for one route.
const MAX_CHAINS: usize = 64;

/// One mount of a child object into a parent.
struct Hop<'a> {
    parent: ObjId,
    file: FileIdx,
    decl: &'a MountDecl,
    /// The child was found by the name of the method whose result is mounted
    /// (`app.mount("/auth", manager.get_fastapi_app())` with the manager's class unknown): the
    /// method and how many apps of the tree such methods return.
    dispatched: Option<(&'a str, usize)>,
    /// The parent or child was reached through the calls of a forwarding function.
    via: Via,
}

struct Graph<'a> {
    objects: HashMap<ObjId, (&'a Instance, FrameworkClass)>,
    /// Child → the mounts that include it.
    parents: HashMap<ObjId, Vec<Hop<'a>>>,
}

pub(super) fn link(names: &Names<'_>, out: &mut Output) {
    let mut graph = Graph { objects: HashMap::new(), parents: HashMap::new() };
    for file in names.python_files() {
        let Some(facts) = names.facts(file) else { continue };
        for (i, instance) in facts.instances.iter().enumerate() {
            if let Some(
                class @ (FrameworkClass::FastApiApp
                | FrameworkClass::FastApiRouter
                | FrameworkClass::FlaskApp
                | FrameworkClass::Blueprint
                | FrameworkClass::RestApi
                | FrameworkClass::RestNamespace
                | FrameworkClass::NinjaApi
                | FrameworkClass::NinjaRouter),
            ) = names.instance_class(file, instance)
            {
                graph.objects.insert((file, i), (instance, class));
            }
        }
    }
    let sites = Sites::new(names);
    for file in names.python_files() {
        let Some(facts) = names.facts(file) else { continue };
        for decl in &facts.mounts {
            if !forwarded_mount(names, &sites, &mut graph, file, decl) {
                mount(names, &mut graph, file, decl, out);
            }
        }
    }
    for file in names.python_files() {
        let Some(facts) = names.facts(file) else { continue };
        for decl in &facts.routes {
            if !forwarded_route(names, &sites, &graph, file, decl, out) {
                route(names, &graph, file, decl, out);
            }
        }
    }
}

/// A mount whose parent or child is a parameter or a loop variable: one hop per pair of objects
/// they stand for. False when it is not such a mount, or when nothing is found for either side
/// (the plain reading then refuses or places it).
fn forwarded_mount<'a>(
    names: &Names<'a>,
    sites: &Sites<'a>,
    graph: &mut Graph<'a>,
    file: FileIdx,
    decl: &'a MountDecl,
) -> bool {
    let scope = (file, decl.scope);
    let child_name = decl.child.as_deref();
    let forwarded = Sites::forwarded(names, scope, &decl.parent)
        || child_name.is_some_and(|c| Sites::forwarded(names, scope, c));
    let Some(child_name) = child_name.filter(|_| forwarded) else { return false };
    let parents = sites.objects(names, graph, scope, &decl.parent, 0);
    let children = sites.objects(names, graph, scope, child_name, 0);
    if parents.is_empty() || children.is_empty() {
        return false;
    }
    for (child, child_via) in &children {
        for (parent, parent_via) in &parents {
            if parent == child {
                continue;
            }
            let mut via = parent_via.clone();
            via.merge(child_via);
            let hop = Hop { parent: *parent, file, decl, dispatched: None, via };
            graph.parents.entry(*child).or_default().push(hop);
        }
    }
    true
}

/// A route whose object, path or handler is a parameter or a loop variable: one route per
/// object, path and handler the calls give them. False when it is not such a route.
fn forwarded_route(
    names: &Names<'_>,
    sites: &Sites<'_>,
    graph: &Graph<'_>,
    file: FileIdx,
    decl: &RouteDecl,
    out: &mut Output,
) -> bool {
    let scope = (file, decl.scope);
    let path_name = match decl.path.parts.as_slice() {
        [PathPart::Ref(name)] => Some(name.as_str()),
        _ => None,
    };
    let forwarded = Sites::forwarded(names, scope, &decl.object)
        || path_name.is_some_and(|p| Sites::forwarded(names, scope, p))
        || decl.handler.as_deref().is_some_and(|h| Sites::forwarded(names, scope, h));
    if !forwarded {
        return false;
    }
    let class_based = decl.call.ends_with(":as_view");
    let handler = decl.handler.as_deref().map(|h| (h, class_based));
    let start = Pending::new(names, scope, &decl.object, &decl.path, handler);
    let placed = sites.routes(names, start);
    if placed.is_empty() {
        return false;
    }
    for pending in placed {
        let PathSlot::Expr(path_scope, path) = &pending.path else { continue };
        // One file must give every name the route is read with.
        let at = match &pending.handler {
            Some(h) if path.as_literal().is_some() || h.scope.0 == path_scope.0 => h.scope.0,
            Some(_) => continue,
            None => path_scope.0,
        };
        let call = match &pending.handler {
            Some(h)
                if h.class_based && decl.methods == Methods::Default && pending.extra.is_none() =>
            {
                crate::recognise::py_routes::flask::AS_VIEW_RULE.to_owned()
            }
            _ if class_based => "add_url_rule".to_owned(),
            _ => decl.call.clone(),
        };
        let (line, column) = pending.at.unwrap_or((decl.line, decl.column));
        let route = RouteDecl {
            object: decl.object.clone(),
            call,
            path: path.clone(),
            methods: pending.extra.clone().unwrap_or_else(|| decl.methods.clone()),
            handler: pending.handler.as_ref().map(|h| h.name.clone()),
            scope: None,
            line,
            column,
        };
        let Some(location) = names.location(at, line, column) else { continue };
        let (object_scope, object_name) = &pending.object;
        for (start, start_via) in sites.objects(names, graph, *object_scope, object_name, 0) {
            let mut via = pending.via.clone();
            via.merge(&start_via);
            route_from(names, graph, at, &route, start, location.clone(), &via, out);
        }
    }
    true
}

/// The routing object a dotted name in `file` refers to.
fn object(names: &Names<'_>, graph: &Graph<'_>, file: FileIdx, dotted: &str) -> Option<ObjId> {
    let (def, rest) = names.resolve(file, dotted)?;
    let Def::Instance(f, instance) = def else { return None };
    if !rest.is_empty() {
        return None;
    }
    instance_id(names, graph, f, instance)
}

/// The routing object a Django Ninja `add_router` names as a string: `"shop.api.router"` is
/// `router` of the module `shop.api`.
fn object_by_module(names: &Names<'_>, graph: &Graph<'_>, dotted: &str) -> Option<ObjId> {
    let (module, name) = dotted.rsplit_once('.')?;
    let file = names.by_module.get(module).copied()?;
    match names.lookup(file, name)? {
        Def::Instance(f, instance) => instance_id(names, graph, f, instance),
        _ => None,
    }
}

fn instance_id(
    names: &Names<'_>,
    graph: &Graph<'_>,
    f: FileIdx,
    instance: &Instance,
) -> Option<ObjId> {
    let facts = names.facts(f)?;
    let index = facts.instances.iter().position(|i| std::ptr::eq(i, instance))?;
    graph.objects.contains_key(&(f, index)).then_some((f, index))
}

fn mount<'a>(
    names: &Names<'a>,
    graph: &mut Graph<'a>,
    file: FileIdx,
    decl: &'a MountDecl,
    out: &mut Output,
) {
    let Some(location) = names.location(file, decl.line, decl.column) else { return };
    let parent = object(names, graph, file, &decl.parent);
    let child = decl.child.as_deref().and_then(|c| {
        object(names, graph, file, c).or_else(|| {
            if decl.kind == MountKind::AddRouter { object_by_module(names, graph, c) } else { None }
        })
    });
    let call = match decl.kind {
        MountKind::IncludeRouter => "include_router",
        MountKind::RegisterBlueprint => "register_blueprint",
        MountKind::Mount => "mount",
        MountKind::BindApi => "Api",
        MountKind::AddNamespace => "add_namespace",
        MountKind::AddRouter => "add_router",
    };
    match (parent, child) {
        (Some(parent), Some(child)) => {
            let hop = Hop { parent, file, decl, dispatched: None, via: Via::default() };
            graph.parents.entry(child).or_default().push(hop);
        }
        (Some(parent), None)
            if decl.kind == MountKind::Mount
                && let Some((method, apps)) = dispatched(names, graph, file, decl) =>
        {
            for &child in &apps {
                let hop = Hop {
                    parent,
                    file,
                    decl,
                    dispatched: Some((method, apps.len())),
                    via: Via::default(),
                };
                graph.parents.entry(child).or_default().push(hop);
            }
        }
        // `mount` also mounts static files and other ASGI apps (`StaticFiles(...)`, not
        // dotted): only a name that leads nowhere known hides an app's routes.
        (Some(_), None) if decl.kind == MountKind::Mount => {
            if let Some(child) = &decl.child {
                out.refuse(
                    RefusalKind::UnresolvedMount,
                    location,
                    format!(
                        "mount of {child}, which is not an app or router found in the tree; if \
                         it is an app, its routes are not placed under this mount"
                    ),
                );
            }
        }
        _ if decl.kind == MountKind::Mount => {}
        // `init_app(app)` is how many Flask extensions attach; only an API's binding counts.
        _ if decl.kind == MountKind::BindApi => {}
        (Some(_), None) => {
            let what = decl.child.as_deref().map_or_else(
                || "a computed expression".to_owned(),
                |c| format!("{c}, which is not a router or blueprint found in the tree"),
            );
            out.refuse(
                RefusalKind::UnresolvedMount,
                location,
                format!("{call} mounts {what}; its routes are not placed under this mount"),
            );
        }
        (None, Some(_)) => out.refuse(
            RefusalKind::UnresolvedMount,
            location,
            format!(
                "{call} on {}, which is not an app, router or blueprint found in the tree; the \
                 mounted routes' full path is not known",
                decl.parent
            ),
        ),
        (None, None) => {}
    }
}

/// The apps a mount of `manager.method()`'s result may mount when `manager`'s class is not
/// known: those that functions named `method` in the tree return (outside tests).
fn dispatched<'a>(
    names: &Names<'a>,
    graph: &Graph<'a>,
    file: FileIdx,
    decl: &'a MountDecl,
) -> Option<(&'a str, Vec<ObjId>)> {
    let child = decl.child.as_deref()?;
    let facts = names.facts(file)?;
    let alias = facts.aliases.iter().find(|a| a.name == child && a.call)?;
    let (_, method) = alias.target.rsplit_once('.')?;
    if names.resolve(file, &alias.target).is_some() {
        return None;
    }
    let mut apps = Vec::new();
    for f in names.python_files().filter(|f| !names.is_test_file(*f)) {
        let Some(facts) = names.facts(f) else { continue };
        for r in facts.returns.iter().filter(|r| r.function == method && !r.call) {
            let Some(app) = object(names, graph, f, &r.value) else { continue };
            let is_app =
                graph.objects.get(&app).is_some_and(|(_, c)| *c == FrameworkClass::FastApiApp);
            if is_app && !apps.contains(&app) {
                apps.push(app);
            }
        }
    }
    (!apps.is_empty()).then_some((method, apps))
}

/// One composed chain for a route: the hops from its router up to the top object.
struct Chain<'h, 'a> {
    hops: Vec<&'h Hop<'a>>,
    top: ObjId,
}

/// Every chain of mounts from `start` up to an object nothing mounts (cycles cut).
///
/// A mount written in a test file composes only routes declared in test files: a test app that
/// includes a production router under some prefix does not add routes to the architecture.
fn chains<'h, 'a>(
    names: &Names<'_>,
    graph: &'h Graph<'a>,
    start: ObjId,
    route_in_tests: bool,
) -> Vec<Chain<'h, 'a>> {
    let mut done = Vec::new();
    let mut stack: Vec<(ObjId, Vec<&'h Hop<'a>>)> = vec![(start, Vec::new())];
    while let Some((current, hops)) = stack.pop() {
        if done.len() >= MAX_CHAINS {
            break;
        }
        let parents = graph.parents.get(&current).map(Vec::as_slice).unwrap_or_default();
        let open: Vec<&'h Hop<'a>> = parents
            .iter()
            .filter(|h| h.parent != start && !hops.iter().any(|p| p.parent == h.parent))
            .filter(|h| route_in_tests || !names.is_test_file(h.file))
            .collect();
        if open.is_empty() || hops.len() >= MAX_DEPTH {
            done.push(Chain { hops, top: current });
            continue;
        }
        for hop in open.into_iter().rev() {
            let mut next = hops.clone();
            next.push(hop);
            stack.push((hop.parent, next));
        }
    }
    done
}

fn route(names: &Names<'_>, graph: &Graph<'_>, file: FileIdx, decl: &RouteDecl, out: &mut Output) {
    let Some(location) = names.location(file, decl.line, decl.column) else { return };
    let Some(start) = object(names, graph, file, &decl.object) else { return };
    route_from(names, graph, file, decl, start, location, &Via::default(), out);
}

/// A route declared on `start`, read in `file`, through `via`.
#[allow(clippy::too_many_arguments)]
fn route_from(
    names: &Names<'_>,
    graph: &Graph<'_>,
    file: FileIdx,
    decl: &RouteDecl,
    start: ObjId,
    location: SourceLocation,
    via: &Via,
    out: &mut Output,
) {
    let Some((_, class)) = graph.objects.get(&start).copied() else { return };
    let flask = matches!(
        class,
        FrameworkClass::FlaskApp
            | FrameworkClass::Blueprint
            | FrameworkClass::RestApi
            | FrameworkClass::RestNamespace
    );
    let ninja = matches!(class, FrameworkClass::NinjaApi | FrameworkClass::NinjaRouter);
    let (framework, label) = if flask {
        ("flask", "Flask")
    } else if ninja {
        ("django-ninja", "Django Ninja")
    } else {
        ("fastapi", "FastAPI")
    };
    let handler_name = decl.handler.as_deref().unwrap_or("an inline handler");
    let Some(methods) = methods(names, file, decl) else {
        out.refuse(
            RefusalKind::ComputedRoute,
            location,
            format!("{label} route of handler {handler_name}: its methods are computed"),
        );
        return;
    };
    let path = match names.resolve_path(file, &decl.path) {
        Ok(p) => p,
        Err(why) => {
            out.refuse(
                RefusalKind::ComputedRoute,
                location,
                format!("{label} route of handler {handler_name}: its path is built from {why}"),
            );
            return;
        }
    };
    let (handler_file, handler) = match decl.handler.as_deref() {
        Some(h) if decl.call.starts_with("add_") => {
            let (f, n) = names.function(file, h);
            (f, Some(n))
        }
        Some(h) => (file, Some(h.to_owned())),
        None => (file, None),
    };
    let Some(module) = names.path(handler_file).cloned() else { return };
    for chain in chains(names, graph, start, names.is_test_file(file)) {
        let Some(composed) = compose(names, graph, start, &chain, flask) else { continue };
        let mut pieces: Vec<&str> = composed.prefixes.iter().map(|p| p.value.as_str()).collect();
        let own_path = if ninja { ninja_path(&path.value) } else { path.value.clone() };
        pieces.push(&own_path);
        let template = RouteTemplate::parse(&join(&pieces));
        let mounted = graph.objects.get(&chain.top).is_some_and(|(_, c)| {
            matches!(
                c,
                FrameworkClass::FastApiApp | FrameworkClass::FlaskApp | FrameworkClass::NinjaApi
            )
        });
        if !mounted {
            // Without the app, the full path is unknown: a partial path would be a wrong route
            // (real code mounts such routers through factories and versioning libraries we
            // cannot follow), so the route is refused rather than placed.
            let (top, _) = graph.objects.get(&chain.top).copied().unzip();
            out.refuse(
                RefusalKind::UnresolvedMount,
                location.clone(),
                format!(
                    "{label} route {} of {handler_name}: Cartograph could not find the app \
                     that includes {}, so the route's full path is unknown",
                    template.display(),
                    top.map_or("its router", |i| i.name.as_str())
                ),
            );
            continue;
        }
        let from_settings = path.from_settings || composed.prefixes.iter().any(|p| p.from_settings);
        let from_config = path.from_config || composed.prefixes.iter().any(|p| p.from_config);
        let mut confidence = match composed.dispatched.max(usize::from(via.by_name)) {
            0 if !from_settings && !from_config => Confidence::Certain,
            0 | 1 => Confidence::Likely,
            _ => Confidence::Possible,
        };
        if !composed.unknown.is_empty() {
            confidence = Confidence::Possible;
            // Ninja routes are counted where a URL conf places them.
            for key in composed.unknown.iter().filter(|_| !ninja) {
                *out.unknown_prefixes.entry(key.clone()).or_default() += methods.len();
            }
        }
        let other_files = composed.other_files
            || path.other_files
            || handler_file != file
            || !via.steps.is_empty();
        let provenance = if other_files { Provenance::Resolver } else { Provenance::Syntax };
        for method in &methods {
            let call = decl.call.split(':').next().unwrap_or(&decl.call);
            let at = if call.starts_with("add_") { "" } else { "@" };
            let names_used = if path.names.is_empty() {
                String::new()
            } else {
                format!(" ({})", path.names.join(", "))
            };
            // A Ninja route's evidence starts where its API is placed (see `NinjaRoute`).
            let head = if ninja {
                String::new()
            } else {
                format!("{label} route {method} {}", template.display())
            };
            let mut evidence = format!(
                "{head} from {at}{}.{call}(\"{}\"){names_used} on {handler_name}",
                decl.object, path.value,
            );
            for step in via.steps.iter().chain(&composed.steps) {
                evidence.push_str(", ");
                evidence.push_str(step);
            }
            if from_settings {
                evidence
                    .push_str("; a settings field default can be overridden by the environment");
            }
            if from_config {
                evidence.push_str(
                    "; a config default (from the class the app's config is loaded from) can be \
                     overridden by a deployment's own config",
                );
            }
            if !composed.unknown.is_empty() {
                evidence.push_str(
                    "; a prefix of the chain is computed, so the route is kept under an unknown \
                     segment and is at most possible",
                );
            }
            let served = ServedRoute {
                method: *method,
                template: template.clone(),
                module: module.clone(),
                handler: handler.clone(),
                location: location.clone(),
                framework,
                provenance,
                confidence,
                evidence,
            };
            if ninja {
                let unknown = composed.unknown.clone();
                out.ninja.entry(chain.top).or_default().push(NinjaRoute { route: served, unknown });
            } else {
                out.routes.push(served);
            }
        }
    }
}

/// The methods a route serves; `None` when computed.
fn methods(names: &Names<'_>, file: FileIdx, decl: &RouteDecl) -> Option<Vec<HttpMethod>> {
    match &decl.methods {
        Methods::Fixed(m) => Some(vec![*m]),
        Methods::Listed(list) => Some(list.clone()),
        Methods::Computed => None,
        Methods::Default if decl.call.ends_with(":as_view") || decl.call.ends_with(":resource") => {
            // A class-based view or a REST resource serves the HTTP methods its class defines.
            let Some(class) = decl.handler.as_deref() else { return Some(vec![HttpMethod::Any]) };
            let lineage = names.lineage(file, class);
            let mut found: Vec<HttpMethod> = lineage
                .classes
                .iter()
                .flat_map(|(_, c)| c.methods.iter())
                .filter_map(|m| match m.as_str() {
                    "get" | "post" | "put" | "patch" | "delete" | "head" | "options" => {
                        HttpMethod::parse(m)
                    }
                    _ => None,
                })
                .collect();
            found.sort();
            found.dedup();
            Some(if found.is_empty() { vec![HttpMethod::Any] } else { found })
        }
        Methods::Default => Some(vec![HttpMethod::Get]),
    }
}

/// The prefixes of a chain, outermost first, and one evidence step per piece (innermost first).
struct Composed {
    prefixes: Vec<ResolvedPath>,
    steps: Vec<String>,
    other_files: bool,
    /// The computed prefixes of the chain (where, and what they are), each an unknown segment.
    unknown: Vec<(SourceLocation, String)>,
    /// The most candidate apps of a mount found by method name (0: none on the chain).
    dispatched: usize,
}

/// The piece a computed prefix leaves in the path.
fn unknown_piece() -> ResolvedPath {
    ResolvedPath { value: UNKNOWN_PREFIX.to_owned(), ..ResolvedPath::default() }
}

fn compose(
    names: &Names<'_>,
    graph: &Graph<'_>,
    start: ObjId,
    chain: &Chain<'_, '_>,
    flask: bool,
) -> Option<Composed> {
    let mut prefixes = Vec::new();
    let mut steps = Vec::new();
    let mut other_files = false;
    let mut unknown = Vec::new();
    let mut dispatched = 0;
    let mut current = start;
    let own =
        |obj: ObjId, unknown: &mut Vec<(SourceLocation, String)>| -> Option<Option<ResolvedPath>> {
            let (instance, class) = graph.objects.get(&obj)?;
            // Apps take no prefix of their own (`root_path` is for proxies, not routes).
            if matches!(class, FrameworkClass::FastApiApp | FrameworkClass::FlaskApp) {
                return Some(None);
            }
            let Some(expr) = &instance.prefix else { return Some(None) };
            match names.resolve_path(obj.0, expr) {
                Ok(p) => Some(Some(p)),
                Err(why) => {
                    let location = names.location(obj.0, instance.line, instance.column)?;
                    unknown.push((
                        location,
                        format!("the prefix of {} is built from {why}", instance.name),
                    ));
                    Some(Some(unknown_piece()))
                }
            }
        };
    for hop in &chain.hops {
        let (instance, _) = graph.objects.get(&current)?;
        let mount_prefix = match &hop.decl.prefix {
            None => None,
            Some(expr) => match names.resolve_path(hop.file, expr) {
                Ok(p) => Some(p),
                Err(why) => {
                    let location = names.location(hop.file, hop.decl.line, hop.decl.column)?;
                    unknown.push((
                        location,
                        format!(
                            "the prefix given when mounting {} is built from {why}",
                            instance.name
                        ),
                    ));
                    Some(unknown_piece())
                }
            },
        };
        // Flask: the registration's url_prefix replaces the blueprint's own.
        let own_prefix =
            if flask && mount_prefix.is_some() { None } else { own(current, &mut unknown)? };
        if let Some(p) = own_prefix {
            other_files |= p.other_files || current.0 != start.0;
            steps.push(format!("{} prefix {}", instance.name, describe(&p)));
            prefixes.push(p);
        }
        let verb = match hop.decl.kind {
            MountKind::IncludeRouter => "included under",
            MountKind::RegisterBlueprint => "registered under",
            MountKind::Mount => "mounted at",
            MountKind::BindApi => "bound under",
            MountKind::AddNamespace | MountKind::AddRouter => "added under",
        };
        let parent_name = graph.objects.get(&hop.parent).map_or("?", |(i, _)| i.name.as_str());
        let place = names.path_str(hop.file);
        match mount_prefix {
            Some(p) => {
                other_files |= p.other_files;
                steps.push(format!("{verb} {} on {parent_name} in {place}", describe(&p)));
                prefixes.push(p);
            }
            None => {
                let verb = verb.split(' ').next().unwrap_or(verb);
                steps.push(format!("{verb} in {parent_name} in {place}"));
            }
        }
        if let Some((method, apps)) = hop.dispatched {
            let which = if apps == 1 {
                "the only such app".to_owned()
            } else {
                format!("one of {apps} such apps")
            };
            steps.push(format!(
                "as the result of a {method}() call on an object whose class is not known, \
                 {which} in the tree"
            ));
            dispatched = dispatched.max(apps);
        }
        steps.extend(hop.via.steps.iter().cloned());
        if hop.via.by_name {
            dispatched = dispatched.max(1);
        }
        other_files |= hop.file != start.0 || !hop.via.steps.is_empty();
        current = hop.parent;
    }
    if let Some(p) = own(current, &mut unknown)? {
        let name = graph.objects.get(&current).map_or("?", |(i, _)| i.name.as_str());
        other_files |= p.other_files || current.0 != start.0;
        steps.push(format!("{name} prefix {}", describe(&p)));
        prefixes.push(p);
    }
    prefixes.reverse();
    Some(Composed { prefixes, steps, other_files, unknown, dispatched })
}
