//! Express, Koa, Fastify and Hono: the routes of every app, composed through mount chains across
//! modules.
//!
//! An *object* is an app or router created in a file (`const app = express()`), or a function
//! parameter that receives one (a Fastify plugin's `fastify`, `module.exports = (app) => …`). A
//! route call counts only when its receiver resolves to an object — in its own file or through an
//! import binding and the other module's exports — so `router.navigate("/x")` or
//! `map.get("k", d)` never make a route. Mounts (`use`, Hono `route`, Fastify `register`, and
//! `f(app)` hand-offs) form a graph; every app that nothing mounts is a root, and each route is
//! emitted once per chain from a root with the chain's prefixes composed, walked iteratively with
//! a depth cap and a cycle guard.
//!
//! A function parameter that mounts an app while nothing in the tree hands it a server (a
//! service's `init(app)` loaded by name at run time) is a root too, at `likely`. A root app's own
//! computed base path (`new Hono().basePath(env(...))`) is taken as the deployment root: its
//! routes are placed relative to it, at `likely`, and the evidence says so.
//!
//! Test files (`*.test.*`, `*.spec.*`, `__tests__/`, `test/`, `tests/`, `e2e/`) take no part: they
//! mount routers on throwaway apps at made-up prefixes.
//!
//! A computed prefix (a router's own, or one given to a mount) does not hide the routes below
//! it: they are kept under an unknown `{prefix}` segment, at most `possible`, and one
//! `computed-route` refusal per prefix says how many routes it affects.
//!
//! Refusals: a computed route path or prefix (`computed-route`); a prefixed mount of something
//! that cannot be followed to a router, or a router with routes that is mounted nowhere the
//! analyser can follow (`unresolved-mount`).

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::recognise::js_routes::{
    Export, Framework, Mount, MountTarget, PathValue, Receiver, RouteCall, ServerKind,
};
use cartograph_core::{
    Confidence, Provenance, Refusal, RefusalKind, RepoPath, RouteTemplate, SourceLocation,
};

use crate::recognise::link::{LinkInput, Linked, ServedRoute};

mod hooks;
mod names;

/// How deep mount chains are followed.
const MAX_DEPTH: usize = 16;
/// How many (object, chain) states one root may expand; a tree past it is refused, not walked.
const MAX_STATES: usize = 20_000;
/// How many re-export steps one name resolution may take in all (`export *` branches).
const MAX_STEPS: usize = 256;
/// How many import hops a name is followed through (`index.js` re-exporting a router).
const MAX_HOPS: usize = 8;

/// An app, router or receiving parameter: the file it lives in, its local name (or function key)
/// and, for a parameter, its index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct ObjKey<'a> {
    file: &'a RepoPath,
    local: String,
    param: Option<u32>,
}

#[derive(Debug, Clone)]
struct Object {
    framework: Option<Framework>,
    kind: ServerKind,
    prefix: Option<PathValue>,
    line: u32,
    column: u32,
}

/// One resolved mount: `parent` serves `child` under `prefix`.
#[derive(Debug, Clone)]
struct MountEdge<'a> {
    parent: ObjKey<'a>,
    child: ObjKey<'a>,
    prefix: Option<PathValue>,
    file: &'a RepoPath,
    call: String,
    line: u32,
    column: u32,
    /// A Fastify plugin wrapped with `fastify-plugin`: the registration's prefix does not apply.
    unencapsulated: bool,
    /// The child is a module of a folder loaded with `auto-load`, found beside the mounting file.
    autoloaded: bool,
}

/// Where a name leads.
enum Resolved<'a> {
    /// A local name (or function key) in a file of the tree.
    Local(&'a RepoPath, String),
    /// A third-party package (middleware such as `cors`): not a router of this tree.
    Package,
    Unknown,
}

struct Linker<'i, 'a> {
    input: &'i LinkInput<'a>,
    objects: BTreeMap<ObjKey<'a>, Object>,
    /// Export name → local name, per file.
    exports: HashMap<&'a RepoPath, HashMap<&'a str, &'a str>>,
    /// Function key → the servers of its file it returns, per file.
    returns: HashMap<(&'a RepoPath, &'a str), Vec<&'a str>>,
    routes: BTreeMap<ObjKey<'a>, Vec<(&'a RepoPath, &'a RouteCall)>>,
    mounts: Vec<MountEdge<'a>>,
    refusals: Vec<Refusal>,
    /// Steps left to the current name resolution (see [`MAX_STEPS`]).
    budget: Cell<usize>,
}

/// The routes of every Express/Koa/Fastify/Hono app in the tree.
pub(super) fn link(input: &LinkInput<'_>, linked: &mut Linked) -> Vec<ServedRoute> {
    if input.files.iter().all(|f| {
        let js = &f.facts.js_routes;
        js.servers.is_empty() && js.routes.is_empty() && js.mounts.is_empty()
    }) {
        return Vec::new();
    }
    let mut linker = Linker::new(input);
    linker.collect_objects();
    linker.collect_routes();
    linker.collect_mounts();
    let routes = linker.walk();
    linked.refusals.append(&mut linker.refusals);
    routes
}

impl<'i, 'a> Linker<'i, 'a> {
    fn new(input: &'i LinkInput<'a>) -> Self {
        let exports = input
            .files
            .iter()
            .map(|f| {
                let exports = f
                    .facts
                    .js_routes
                    .exports
                    .iter()
                    .map(|Export { exported, local }| (exported.as_str(), local.as_str()))
                    .collect();
                (f.path, exports)
            })
            .collect();
        let mut returns: HashMap<(&'a RepoPath, &'a str), Vec<&'a str>> = HashMap::new();
        for f in &input.files {
            for r in &f.facts.js_routes.returns {
                returns.entry((f.path, r.function.as_str())).or_default().push(r.local.as_str());
            }
        }
        Self {
            input,
            objects: BTreeMap::new(),
            exports,
            returns,
            routes: BTreeMap::new(),
            mounts: Vec::new(),
            refusals: Vec::new(),
            budget: Cell::new(MAX_STEPS),
        }
    }

    fn location(&self, file: &RepoPath, line: u32, column: u32) -> SourceLocation {
        SourceLocation::new(file.clone(), line, column)
    }

    fn collect_objects(&mut self) {
        for view in self.input.files.iter().filter(|f| !is_test_file(f.path)) {
            let file = view.path;
            for s in &view.facts.js_routes.servers {
                let key = ObjKey { file, local: s.local.clone(), param: None };
                self.objects.entry(key).or_insert(Object {
                    framework: Some(s.framework),
                    kind: s.kind,
                    prefix: s.prefix.clone(),
                    line: s.line,
                    column: s.column,
                });
            }
        }
    }

    /// The object a receiver stands for, creating parameter objects on first sight.
    fn receiver_object(
        &mut self,
        file: &'a RepoPath,
        receiver: &Receiver,
        line: u32,
        column: u32,
    ) -> Option<ObjKey<'a>> {
        if let Some((function, index)) = &receiver.param {
            let key = ObjKey { file, local: function.clone(), param: Some(*index) };
            self.objects.entry(key.clone()).or_insert(Object {
                framework: None,
                kind: ServerKind::Router,
                prefix: None,
                line,
                column,
            });
            return Some(key);
        }
        match self.resolve_name(file, &receiver.name) {
            Resolved::Local(f, local) => {
                let key = ObjKey { file: f, local, param: None };
                self.objects.contains_key(&key).then_some(key)
            }
            Resolved::Package | Resolved::Unknown => None,
        }
    }

    fn collect_routes(&mut self) {
        let input = self.input;
        for view in input.files.iter().filter(|f| !is_test_file(f.path)) {
            let file = view.path;
            for route in &view.facts.js_routes.routes {
                if let Some(key) =
                    self.receiver_object(file, &route.receiver, route.line, route.column)
                {
                    self.routes.entry(key).or_default().push((file, route));
                }
            }
        }
    }

    /// `function routes(app) { more(app) }`: a parameter handed on to a function whose parameter
    /// is a server object becomes one too, mounting the callee's. Followed to a fixed point
    /// (bounded by [`MAX_DEPTH`] rounds), since a forwarding function may itself be forwarded to.
    fn collect_forwarded(&mut self) {
        let input = self.input;
        let mut added: BTreeSet<(ObjKey<'a>, ObjKey<'a>)> = BTreeSet::new();
        for _ in 0..MAX_DEPTH {
            let mut changed = false;
            for view in input.files.iter().filter(|f| !is_test_file(f.path)) {
                let file = view.path;
                for apply in &view.facts.js_routes.applies {
                    let Some((function, param)) = &apply.param else { continue };
                    let resolved = match &apply.function {
                        MountTarget::Name(name) => self.resolve_name(file, name),
                        MountTarget::Module { specifier, member } => {
                            self.resolve_module(file, specifier, member.as_deref())
                        }
                        _ => continue,
                    };
                    let Resolved::Local(f, local) = resolved else { continue };
                    let child = ObjKey { file: f, local: local.clone(), param: Some(apply.index) };
                    let parent = ObjKey { file, local: function.clone(), param: Some(*param) };
                    if parent == child
                        || !self.objects.contains_key(&child)
                        || !added.insert((parent.clone(), child.clone()))
                    {
                        continue;
                    }
                    changed = true;
                    self.objects.entry(parent.clone()).or_insert(Object {
                        framework: None,
                        kind: ServerKind::Router,
                        prefix: None,
                        line: apply.line,
                        column: apply.column,
                    });
                    self.mounts.push(MountEdge {
                        parent,
                        child,
                        prefix: None,
                        file,
                        call: if local == "default" {
                            format!("{} passed on to the default export of {f}", apply.server)
                        } else {
                            format!("{} passed on to {local}", apply.server)
                        },
                        line: apply.line,
                        column: apply.column,
                        unencapsulated: false,
                        autoloaded: false,
                    });
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn collect_mounts(&mut self) {
        self.collect_forwarded();
        self.collect_hook_mounts();
        let input = self.input;
        for view in input.files.iter().filter(|f| !is_test_file(f.path)) {
            let file = view.path;
            let js = &view.facts.js_routes;
            // Targets of one call are grouped: a prefix with middleware before the router is
            // refused only when none of its arguments is a router.
            let mut groups: BTreeMap<(u32, u32), (bool, Option<String>)> = BTreeMap::new();
            for mount in &js.mounts {
                let Some(parent) =
                    self.receiver_object(file, &mount.receiver, mount.line, mount.column)
                else {
                    continue;
                };
                let param = mount.plugin.then_some(0);
                if let MountTarget::Call(function) = &mount.target {
                    // A factory mounts what it returns; a call returning no server of the tree
                    // is middleware (`cors()`, `koaGuard(…)`), which needs no refusal.
                    self.mount_returned(file, mount, parent, function);
                    continue;
                }
                let resolved = match &mount.target {
                    MountTarget::Name(name) => self.resolve_name(file, name),
                    MountTarget::Function(key) => Resolved::Local(file, key.clone()),
                    MountTarget::Module { specifier, member } => {
                        self.resolve_module(file, specifier, member.as_deref())
                    }
                    MountTarget::Call(_) | MountTarget::Other => Resolved::Package,
                };
                let group = groups.entry((mount.line, mount.column)).or_insert((false, None));
                match resolved {
                    Resolved::Local(f, local) => {
                        let child = ObjKey { file: f, local: local.clone(), param };
                        if self.objects.contains_key(&child) {
                            group.0 = true;
                            let unencapsulated = mount.plugin
                                && input.file(f).is_some_and(|v| {
                                    v.facts.js_routes.unencapsulated_plugins.contains(&local)
                                });
                            self.mounts.push(MountEdge {
                                parent,
                                child,
                                prefix: if unencapsulated { None } else { mount.prefix.clone() },
                                file,
                                call: mount.call.clone(),
                                line: mount.line,
                                column: mount.column,
                                unencapsulated,
                                autoloaded: match &mount.target {
                                    MountTarget::Name(name) => {
                                        name.split_once('.').is_some_and(|(base, _)| {
                                            js.autoloads.iter().any(|(l, _)| l == base)
                                        })
                                    }
                                    _ => false,
                                },
                            });
                        } else if !matches!(mount.target, MountTarget::Function(_))
                            && (mount.prefix.is_some() || looks_like_router(&local))
                        {
                            // An inline function is middleware or a handler, not a router.
                            group.1 = Some(target_name(&mount.target));
                        }
                    }
                    Resolved::Package => {}
                    Resolved::Unknown => {
                        if mount.prefix.is_some() || looks_like_router(&target_name(&mount.target))
                        {
                            group.1 = Some(target_name(&mount.target));
                        }
                    }
                }
            }
            for ((line, column), (any_router, unresolved)) in groups {
                let Some(name) = unresolved.filter(|_| !any_router) else {
                    continue;
                };
                self.refusals.push(Refusal::new(
                    RefusalKind::UnresolvedMount,
                    self.location(file, line, column),
                    format!(
                        "mounted {name} cannot be followed to an app or router declared in the tree"
                    ),
                ));
            }
            for apply in js.applies.iter().filter(|a| a.param.is_none()) {
                let parent = ObjKey { file, local: apply.server.clone(), param: None };
                let resolved = match &apply.function {
                    MountTarget::Name(name) => self.resolve_name(file, name),
                    MountTarget::Module { specifier, member } => {
                        self.resolve_module(file, specifier, member.as_deref())
                    }
                    _ => continue,
                };
                if let Resolved::Local(f, local) = resolved {
                    let child = ObjKey { file: f, local: local.clone(), param: Some(apply.index) };
                    if self.objects.contains_key(&child) {
                        self.mounts.push(MountEdge {
                            parent,
                            child,
                            prefix: None,
                            file,
                            call: if local == "default" {
                                format!("{} passed to the default export of {f}", apply.server)
                            } else {
                                format!("{} passed to {local}", apply.server)
                            },
                            line: apply.line,
                            column: apply.column,
                            unencapsulated: false,
                            autoloaded: false,
                        });
                    }
                }
            }
        }
    }

    /// `app.use(factory())`: mounts each server the factory returns.
    fn mount_returned(
        &mut self,
        file: &'a RepoPath,
        mount: &Mount,
        parent: ObjKey<'a>,
        function: &str,
    ) {
        let Resolved::Local(f, key) = self.resolve_name(file, function) else {
            return;
        };
        let returned = self.returns.get(&(f, key.as_str())).cloned().unwrap_or_default();
        for local in returned {
            let child = ObjKey { file: f, local: local.to_owned(), param: None };
            if child == parent || !self.objects.contains_key(&child) {
                continue;
            }
            self.mounts.push(MountEdge {
                parent: parent.clone(),
                child,
                prefix: mount.prefix.clone(),
                file,
                call: format!("{} of what {key} returns", mount.call),
                line: mount.line,
                column: mount.column,
                unencapsulated: false,
                autoloaded: false,
            });
        }
    }

    /// Walks every chain from every root and emits the routes.
    fn walk(&mut self) -> Vec<ServedRoute> {
        let mounted: BTreeSet<ObjKey<'a>> = self.mounts.iter().map(|m| m.child.clone()).collect();
        // A parameter that mounts an app (`init(app) { app.use(mount("/api", api)) }`) while
        // nothing in the tree is seen handing it a server (services loaded by name at run time)
        // is taken as the root app: the apps it mounts are placed under it, at `likely`.
        let mounts_an_app: BTreeSet<&ObjKey<'a>> = self
            .mounts
            .iter()
            .filter(|m| self.objects.get(&m.child).is_some_and(|o| o.kind == ServerKind::App))
            .map(|m| &m.parent)
            .collect();
        let roots: Vec<ObjKey<'a>> = self
            .objects
            .iter()
            .filter(|(k, o)| {
                !mounted.contains(k)
                    && (o.kind == ServerKind::App
                        || (k.param.is_some() && mounts_an_app.contains(k)))
            })
            .map(|(k, _)| k.clone())
            .collect();
        let mut by_parent: BTreeMap<ObjKey<'a>, Vec<usize>> = BTreeMap::new();
        for (i, m) in self.mounts.iter().enumerate() {
            by_parent.entry(m.parent.clone()).or_default().push(i);
        }
        let mut out = Vec::new();
        let mut reached: BTreeSet<ObjKey<'a>> = BTreeSet::new();
        let mut refused_at: BTreeSet<(&'a RepoPath, u32, u32)> = BTreeSet::new();
        let mut unknown_counts: BTreeMap<UnknownPrefix, usize> = BTreeMap::new();
        let mut refusals = Vec::new();
        for root in &roots {
            let root_framework = self.objects.get(root).and_then(|o| o.framework);
            // A root app's own computed base path (`new Hono().basePath(env("BASE_PATH"))`) is
            // where the app is deployed: its routes are placed relative to it, at `likely`.
            let deployment_base = self.objects.get(root).is_some_and(|o| {
                matches!(o.prefix, Some(PathValue::Computed | PathValue::Named(_)))
            });
            // (object, prefix so far, chain of mount edges from the root)
            // (object, prefix so far, chain of mount edges, computed prefixes on the way)
            let mut stack: Vec<(ObjKey<'a>, RouteTemplate, Vec<usize>, Vec<UnknownPrefix>)> =
                vec![(root.clone(), RouteTemplate::parse("/"), Vec::new(), Vec::new())];
            let mut states = 0usize;
            while let Some((key, prefix, chain, mut unknown)) = stack.pop() {
                states += 1;
                if states > MAX_STATES {
                    if let Some(object) = self.objects.get(root) {
                        refusals.push(Refusal::new(
                            RefusalKind::UnresolvedMount,
                            self.location(root.file, object.line, object.column),
                            "the app's mount chains are too many to follow; the rest of its routes are not reported",
                        ));
                    }
                    break;
                }
                reached.insert(key.clone());
                let Some(object) = self.objects.get(&key) else {
                    continue;
                };
                let prefix = match &object.prefix {
                    None => prefix,
                    Some(PathValue::Literal(own)) => RouteTemplate::parse(own).prefixed(&prefix),
                    Some(_) if deployment_base && key == *root => prefix,
                    Some(PathValue::Computed | PathValue::Named(_)) => {
                        unknown.push((
                            self.location(key.file, object.line, object.column),
                            "the router's prefix is computed at run time".to_owned(),
                        ));
                        unknown_segment().prefixed(&prefix)
                    }
                };
                let framework = object.framework.or(root_framework).unwrap_or(Framework::Express);
                for &(file, route) in self.routes.get(&key).map(Vec::as_slice).unwrap_or_default() {
                    let PathValue::Literal(path) = &route.path else {
                        if refused_at.insert((file, route.line, route.column)) {
                            refusals.push(Refusal::new(
                                RefusalKind::ComputedRoute,
                                self.location(file, route.line, route.column),
                                format!("the path of {} is computed at run time; the route is not reported", route.call),
                            ));
                        }
                        continue;
                    };
                    let template = RouteTemplate::parse(path).prefixed(&prefix);
                    for method in &route.methods {
                        let mut served = self
                            .served(file, route, *method, &template, &key, root, &chain, framework);
                        if !unknown.is_empty() {
                            served.confidence = Confidence::Possible;
                            served.evidence.push_str(
                                "; a prefix of the chain is computed at run time, so the route \
                                 is kept under an unknown segment and is at most possible",
                            );
                            for u in &unknown {
                                *unknown_counts.entry(u.clone()).or_default() += 1;
                            }
                        }
                        if deployment_base {
                            served.confidence = served.confidence.max(Confidence::Likely);
                            served.evidence.push_str(
                                ", relative to the app's base path, which is computed at run time \
                                 and taken as the deployment root",
                            );
                        }
                        out.push(served);
                    }
                }
                if chain.len() >= MAX_DEPTH {
                    continue;
                }
                for &i in by_parent.get(&key).map(Vec::as_slice).unwrap_or_default() {
                    let Some(edge) = self.mounts.get(i) else {
                        continue;
                    };
                    let on_chain = edge.child == *root
                        || edge.child == key
                        || chain
                            .iter()
                            .any(|&c| self.mounts.get(c).is_some_and(|m| m.parent == edge.child));
                    if on_chain {
                        continue;
                    }
                    let mut child_unknown = unknown.clone();
                    let child_prefix = match &edge.prefix {
                        None => prefix.clone(),
                        Some(PathValue::Literal(p)) => RouteTemplate::parse(p).prefixed(&prefix),
                        Some(PathValue::Computed | PathValue::Named(_)) => {
                            child_unknown.push((
                                self.location(edge.file, edge.line, edge.column),
                                format!(
                                    "the prefix given to {} is computed at run time",
                                    edge.call
                                ),
                            ));
                            unknown_segment().prefixed(&prefix)
                        }
                    };
                    let mut next_chain = chain.clone();
                    next_chain.push(i);
                    stack.push((edge.child.clone(), child_prefix, next_chain, child_unknown));
                }
            }
        }
        for (key, routes) in &self.routes {
            // A function parameter is only known to be a server once something hands it one;
            // unmounted, it is most likely not a server at all.
            if reached.contains(key) || mounted.contains(key) || key.param.is_some() {
                continue;
            }
            let Some(object) = self.objects.get(key) else {
                continue;
            };
            let what = format!("router {}", display_key(&key.local));
            refusals.push(Refusal::new(
                RefusalKind::UnresolvedMount,
                self.location(key.file, object.line, object.column),
                format!(
                    "{what} declares {} route{} but is mounted nowhere the analyser can follow",
                    routes.len(),
                    if routes.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        for ((location, what), count) in unknown_counts {
            let kept = if count == 1 {
                "1 route below it is".to_owned()
            } else {
                format!("{count} routes below it are")
            };
            refusals.push(Refusal::new(
                RefusalKind::ComputedRoute,
                location,
                format!("{what}; {kept} kept under an unknown segment, at most possible"),
            ));
        }
        self.refusals.append(&mut refusals);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn served(
        &self,
        file: &'a RepoPath,
        route: &RouteCall,
        method: cartograph_core::HttpMethod,
        template: &RouteTemplate,
        key: &ObjKey<'a>,
        root: &ObjKey<'a>,
        chain: &[usize],
        framework: Framework,
    ) -> ServedRoute {
        let mut evidence = format!(
            "{} route {method} {} from {} in {}",
            framework.display(),
            template.display(),
            route.call,
            file
        );
        let mut files: BTreeSet<&RepoPath> = BTreeSet::from([file, key.file, root.file]);
        let mut indirect = false;
        if key.param.is_none() && key.file != file {
            evidence.push_str(&format!(" on the object created in {}", key.file));
        }
        if let Some(PathValue::Literal(own)) = self.objects.get(key).and_then(|o| o.prefix.as_ref())
        {
            evidence
                .push_str(&format!(" with its own prefix {}", RouteTemplate::parse(own).display()));
        }
        for &i in chain.iter().rev() {
            let Some(edge) = self.mounts.get(i) else {
                continue;
            };
            files.insert(edge.file);
            match &edge.prefix {
                Some(PathValue::Literal(p)) => evidence.push_str(&format!(
                    ", mounted at {} by {} in {}",
                    RouteTemplate::parse(p).display(),
                    edge.call,
                    edge.file
                )),
                _ => evidence.push_str(&format!(", mounted by {} in {}", edge.call, edge.file)),
            }
            if edge.autoloaded {
                indirect = true;
                evidence.push_str(
                    " from a folder loaded with auto-load, whose computed path is read as the \
                     folder of that name beside the mounting file",
                );
            }
            if edge.unencapsulated {
                indirect = true;
                evidence.push_str(
                    " as a plugin wrapped with fastify-plugin, to which a registration prefix does not apply",
                );
            }
            let parent_prefix = self.objects.get(&edge.parent).and_then(|o| o.prefix.as_ref());
            if let Some(PathValue::Literal(own)) = parent_prefix {
                evidence.push_str(&format!(
                    " on a router with its own prefix {}",
                    RouteTemplate::parse(own).display()
                ));
            }
        }
        let parameter_root = root.param.is_some();
        if parameter_root {
            evidence.push_str(&format!(
                ", on a parameter of {} taken as the root app: it mounts an app, and nothing in \
                 the tree is seen handing it one",
                display_key(&root.local)
            ));
        }
        ServedRoute {
            method,
            template: template.clone(),
            module: file.clone(),
            handler: route.handler.clone(),
            location: self.location(file, route.line, route.column),
            framework: framework.recogniser(),
            provenance: if files.len() == 1 { Provenance::Syntax } else { Provenance::Resolver },
            // Whether the registration passed a prefix that Fastify then ignores is not checked:
            // the route is where Fastify puts it, but the reading of the plugin is less direct.
            confidence: if indirect || parameter_root {
                Confidence::Likely
            } else {
                Confidence::Certain
            },
            evidence,
        }
    }
}

/// A computed prefix on the way to a route: where it is written and what it is.
type UnknownPrefix = (SourceLocation, String);

/// The segment a computed prefix leaves in a route's path.
fn unknown_segment() -> RouteTemplate {
    RouteTemplate::parse("{prefix}")
}

/// Test files build throwaway apps that mount routers at made-up prefixes (`supertest`), so
/// they take no part: `__tests__/`, `test/`, `tests/`, `e2e/`, `cypress/`, `*.test.*`, `*.spec.*`.
fn is_test_file(path: &RepoPath) -> bool {
    let path = path.as_str();
    let file = path.rsplit('/').next().unwrap_or(path);
    file.contains(".test.")
        || file.contains(".spec.")
        || path.split('/').any(|dir| {
            matches!(dir, "__tests__" | "__mocks__" | "test" | "tests" | "e2e" | "cypress")
        })
}

/// A name for a mount target in a refusal.
fn target_name(target: &MountTarget) -> String {
    match target {
        MountTarget::Name(n) => n.clone(),
        MountTarget::Function(_) => "an inline function".to_owned(),
        MountTarget::Module { specifier, .. } => format!("module {specifier}"),
        MountTarget::Call(f) => format!("what {f} returns"),
        MountTarget::Other => "an expression".to_owned(),
    }
}

/// An unprefixed mount is refused only when its name says it is a router: most are middleware.
fn looks_like_router(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["router", "routes", "api", "app"].iter().any(|w| lower.contains(w))
}

fn display_key(local: &str) -> &str {
    if local.starts_with('@') { "written inline" } else { local }
}
