//! Routes served by TypeScript/JavaScript web frameworks: the per-file facts the linker composes
//! into routes.
//!
//! One walk records, per file and unresolved: apps and routers created in the file
//! (`express()`, `Router()`, `new Router({prefix})`, `Fastify()`, `new Hono().basePath("/p")`),
//! route declarations on a receiver (`app.get("/x", h)`, `app.route("/x").get(h)`,
//! `fastify.route({method, url})`, `app.on("GET", "/x", h)`), mounts (`app.use("/p", r)`,
//! `app.route("/p", sub)`, `fastify.register(plugin, {prefix})`), what the module exports, NestJS
//! controllers and global prefixes, and the exported handlers Next.js file routes are made of.
//! Whether a receiver really is an app or router, which module a mounted router comes from, and
//! whether a file is part of a Next.js project is decided by `cartograph-pipeline`.

mod exports;
mod express;
mod facts;
mod fastify;
mod hono;
pub(crate) mod hooks;
pub mod link;
mod nest;
mod nextjs;
mod shapes;

#[cfg(test)]
mod tests;

use cartograph_core::{EdgeKind, Language};
use tree_sitter::Node;

use super::registry::Recogniser;
use super::{Context, Family};
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position, text};

use crate::syntax::FieldExt;
use crate::syntax::javascript::{named_args, object_property};
use crate::{FileFacts, ImportTarget, Imported, Syntax};
pub(crate) use facts::imports_flat_routes;
use facts::settle_names;
pub use facts::{
    Apply, DefaultExport, Export, Framework, HookGetter, HookMount, HookQuery, HookRegistration,
    HookValue, JsRouteFacts, Mount, MountTarget, NestApp, NestController, NestExclude, NestModule,
    NestModulePath, NestPrefix, NestRoute, NestVersion, NestVersioning, NextHandler, PathValue,
    ReExport, Receiver, Returned, RouteCall, Server, ServerKind,
};
pub(crate) use hooks::JsHooks;
use shapes::{
    declared_name, function_key, handler_name, is_dotted_name, is_function, is_path_like,
    path_value, receiver, required_module, strip_expression, to_u32,
};

/// How many parameters of a rest handed on whole (`more(...args)`) are followed.
const SPREAD_PARAMETERS: u32 = 4;

const JS_LANGUAGES: &[Language] = &[Language::TypeScript, Language::JavaScript];

/// This family's recognisers, one per file of this folder.
pub const RECOGNISERS: &[Recogniser] = &[
    Recogniser {
        name: "express",
        file: "js_routes/express.rs",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "Express and Koa-router apps and routers: app.get/post/…/all, app.route chains, \
                  Router() mounted with use(prefix, router) across modules, also inside start \
                  functions and IIFEs",
    },
    Recogniser {
        name: "auto-load",
        file: "js_routes/express.rs",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "Routers of a folder loaded with the auto-load package (const ctrl = \
                  autoload(path.join(ROOT, '/controllers')); app.use('/', ctrl.auth)): the \
                  folder beside the mounting file, each member its module's default export, \
                  at likely",
    },
    Recogniser {
        name: "fastify",
        file: "js_routes/fastify.rs",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "Fastify shorthand routes, route({method, url}) and plugins registered with a \
                  prefix across modules",
    },
    Recogniser {
        name: "hono",
        file: "js_routes/hono.rs",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "Hono apps: method routes, on(method, path), basePath and route(prefix, subApp), \
                  chained on the creation too",
    },
    Recogniser {
        name: "koa",
        file: "js_routes/express.rs",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "Koa-router routers: method routes, the prefix option and router.prefix(), \
                  nested use(prefix, \
                  router.routes()), app.use(router.routes()) on a Koa app, Koa apps mounted \
                  with koa-mount, servers returned by factories (also looped over) and route \
                  modules that take the router as a (rest) parameter",
    },
    Recogniser {
        name: "plugin-registry",
        file: "js_routes/hooks.rs",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "Routers registered in a registry under a key (Registry.add({ type: K, value: \
                  router })) and mounted where the registry's items under that key are \
                  (get(K).forEach((h) => router.use(h.value.routes())), for … of, also over a \
                  class's static getter returning get(K))",
    },
    Recogniser {
        name: "nestjs",
        file: "js_routes/nest/",
        languages: &[Language::TypeScript],
        edges: &[EdgeKind::Serves],
        summary: "NestJS @Controller prefixes with @Get/@Post/… handlers, the literal global \
                  prefix of the app with its exclude list and URI versioning (default, controller and @Version \
                  versions, VERSION_NEUTRAL; a prefix `${ROOT}v` after a computed deployment \
                  root, at likely)",
    },
    Recogniser {
        name: "nest-router-module",
        file: "js_routes/nest/",
        languages: &[Language::TypeScript],
        edges: &[EdgeKind::Serves],
        summary: "NestJS RouterModule.register paths (an array literal or a const of the file, \
                  nested children composed) put in front of the routes of the controllers a \
                  module's @Module({ controllers }) lists, across files; @All('*path') \
                  wildcards as catch-all segments",
    },
    Recogniser {
        name: "nextjs",
        file: "js_routes/nextjs/",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "Next.js file routes: App Router route.ts exported method handlers and Pages \
                  Router pages/api files, their methods read from req.method checks (if, \
                  switch, includes, method-keyed tables, an imported or re-exported handler's \
                  checks), handlers re-exported from another module (export { default } from, \
                  export { GET, POST } from), [...slug] and [[...slug]] catch-all segments",
    },
    Recogniser {
        name: "react-router",
        file: "js_routes/remix/link.rs",
        languages: JS_LANGUAGES,
        edges: &[EdgeKind::Serves],
        summary: "React Router 7 / Remix resource routes: route modules exporting a loader \
                  (GET) or an action (POST, PUT, PATCH, DELETE) and no component, under the \
                  routes folder of a routes.ts using remix-flat-routes or \
                  @react-router/fs-routes; flat names, + folders, $params, $ splats",
    },
];

/// A server creation seen during the walk, kept if its constructor is imported from a
/// framework package.
struct Creation {
    local: String,
    /// The constructor as written: `express`, `express.Router`, `Router`, `Hono`.
    callee: String,
    /// Set for `require("express")()` and `require("express").Router()`.
    required: Option<String>,
    is_new: bool,
    prefix: Option<PathValue>,
    line: u32,
    column: u32,
    /// The start and end of the innermost function around the creation; `None` at the top level.
    scope: Option<Span>,
}

/// A start and an end position, as [`position`] gives them.
type Span = ((u32, u32), (u32, u32));

/// A call `f(a, b)` with the plain names among its arguments and their indexes.
struct NamedCall {
    function: MountTarget,
    names: Vec<(String, u32)>,
    /// Arguments that are parameters of the enclosing function: name, index, and the function's
    /// key and parameter index.
    params: Vec<(String, u32, (String, u32))>,
    line: u32,
    column: u32,
}

/// The family's state during one walk.
#[derive(Default)]
pub(crate) struct JsRoutes {
    creations: Vec<Creation>,
    /// Nest `setGlobalPrefix` calls and whether the file calls `NestFactory.create`.
    nest_prefixes: Vec<(PathValue, bool, Vec<NestExclude>, u32, u32)>,
    nest_factory: Option<(u32, u32)>,
    nest_versioning: Option<NestVersioning>,
    /// Calls `f(a, b)` whose arguments include plain identifiers.
    calls_with_names: Vec<NamedCall>,
    /// Functions handed to a plain call: (callee, function key).
    wrapped: Vec<(String, String)>,
    /// `const NAME = "literal"` declarations; `None` when a name is bound to different values.
    constants: std::collections::HashMap<String, Option<String>>,
    /// Koa-router `router.prefix("/p")` calls: (receiver, prefix, position).
    router_prefixes: Vec<(String, PathValue, (u32, u32))>,
    /// True once the file's method checks are read (see [`nextjs::method_checks`]).
    methods_read: bool,
    /// Names returned by functions: (function key, name, position).
    returns: Vec<(String, String, (u32, u32))>,
    /// `const x = f(path.join(root, "/dir"))`: (x, f, `./dir`), kept when `f` is `auto-load`'s.
    autoloads: Vec<(String, String, String)>,
}

/// Words one of which every file with something for this family contains.
///
/// A framework's name counts only where code names it (`"express"`, `express()`,
/// `express.Router`): the Apache licence header every file of an Apache project carries says
/// "either express or implied", and `next` is a common word and a common variable.
// In order of how often a file holds the word, so a file that wants the family is told so
// early (the order changes no answer, only how much text is read).
pub(crate) static WANTED: super::Words = super::Words::new(&[
    ".get(",
    "Router",
    // Barrel files that re-export routers.
    "export {",
    "export *",
    ".all(",
    ".delete(",
    ".post(",
    ".put(",
    ".patch(",
    ".use(",
    ".route(",
    ".register(",
    "next/",
    "\"next\"",
    "'next'",
    "express\"",
    "express'",
    "express(",
    "express.",
    "koa",
    "fastify",
    "Fastify",
    "hono",
    "Hono",
    "@nestjs",
    "setGlobalPrefix",
    // Next.js Pages Router handlers and the functions they delegate to.
    "req.method",
    // Functions that hand a server on (`function labs(router) { sync(router); }`).
    "(app)",
    "(router)",
    "(app, ",
    "(router, ",
]);

impl Family for JsRoutes {
    fn kinds(&self) -> &'static [&'static str] {
        &[
            "call_expression",
            "variable_declarator",
            "assignment_expression",
            "export_statement",
            "class_declaration",
            "pair",
            "return_statement",
        ]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        match cx.syntax {
            Syntax::Python | Syntax::Rust => return false,
            Syntax::JavaScript => {}
        }
        // Next.js route files need no framework word: `export function GET` is enough.
        let path = cx.path.as_str();
        let file = path.rsplit('/').next().unwrap_or(path);
        // Only a file under a `pages/api/` folder is a Pages Router route (see `nextjs::link`),
        // and one under a `routes/` folder a React Router route module (see `remix::link`).
        file.starts_with("route.")
            || file.starts_with("next.config.")
            || path.contains("pages/api/")
            || path.contains("routes/")
            || WANTED.any_in(cx)
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        match kind {
            "call_expression" => self.call(node, cx, facts),
            "variable_declarator" => self.declarator(node, cx),
            "assignment_expression" => {
                self.read_methods(cx, facts);
                exports::assignment(node, cx, &mut facts.js_routes);
                self.assigned_creation(node, cx);
            }
            "export_statement" => {
                self.read_methods(cx, facts);
                exports::export_statement(node, cx, &mut facts.js_routes);
                self.default_creation(node, cx);
            }
            "class_declaration" => nest::class(node, cx, &mut facts.js_routes),
            "pair" => nextjs::base_path(node, cx, &mut facts.js_routes),
            "return_statement" => self.returned(node, cx),
            _ => {}
        }
    }

    fn finish(&mut self, _cx: &Context<'_>, facts: &mut FileFacts) {
        self.scope_shadowed_names(&mut facts.js_routes);
        self.apply_router_prefixes();
        let imports = ImportedNames::of(facts);
        facts.js_routes.imports_next = imports.next;
        for creation in std::mem::take(&mut self.creations) {
            if let Some((framework, kind)) = imports.framework_of(&creation) {
                facts.js_routes.servers.push(Server {
                    local: creation.local,
                    framework,
                    kind,
                    prefix: creation.prefix,
                    line: creation.line,
                    column: creation.column,
                });
            }
        }
        let js = &mut facts.js_routes;
        for (local, callee, folder) in std::mem::take(&mut self.autoloads) {
            if imports.is_from(&callee, "auto-load") {
                js.autoloads.push((local, folder));
            }
        }
        // `app.use(mount("/api", api))` counts only with koa-mount's `mount`.
        js.mounts.retain(|m| m.wrapper.as_ref().is_none_or(|w| imports.is_from(w, "koa-mount")));
        settle_names(js, &self.constants);
        if let Some(base) = &mut js.next_base_path {
            base.settle(&self.constants);
        }
        // A receiver created in this file is that server, even inside a function that takes a
        // parameter of the same name: the function parameter reading is for imported instances.
        let local: Vec<String> = js.servers.iter().map(|s| s.local.clone()).collect();
        for route in &mut js.routes {
            if local.contains(&route.receiver.name) {
                route.receiver.param = None;
            }
        }
        for mount in &mut js.mounts {
            if local.contains(&mount.receiver.name) {
                mount.receiver.param = None;
            }
        }
        for mount in &mut js.hook_mounts {
            if local.contains(&mount.receiver.name) {
                mount.receiver.param = None;
            }
        }
        for (function, name, _) in std::mem::take(&mut self.returns) {
            if local.contains(&name) {
                js.returns.push(Returned { function, local: name });
            }
        }
        for NamedCall { function, names, params, line, column } in
            std::mem::take(&mut self.calls_with_names)
        {
            // A parameter handed on: the linker keeps it only where the parameter receives a
            // server and the callee's parameter declares routes.
            for (name, index, param) in params {
                if !local.contains(&name) {
                    js.applies.push(Apply {
                        function: function.clone(),
                        server: name,
                        index,
                        param: Some(param),
                        line,
                        column,
                    });
                }
            }
            for (name, index) in names {
                if local.contains(&name) {
                    js.applies.push(Apply {
                        function: function.clone(),
                        server: name,
                        index,
                        param: None,
                        line,
                        column,
                    });
                }
            }
        }
        for (callee, key) in std::mem::take(&mut self.wrapped) {
            if imports.is_from(&callee, "fastify-plugin") {
                js.unencapsulated_plugins.push(key);
            }
        }
        if imports.nest_common {
            nest::keep_imported(js, &imports.nest_names);
        } else {
            js.nest_controllers.clear();
            js.nest_modules.clear();
        }
        // `RouterModule` is NestJS's (or the older `nest-router` package's, read the same way);
        // Angular's has no `register`.
        if !imports.is_from("RouterModule", "@nestjs/core")
            && !imports.is_from("RouterModule", "nest-router")
        {
            js.nest_module_paths.clear();
            js.nest_router_module = false;
        }
        for (prefix, _, _, _, _) in &mut self.nest_prefixes {
            prefix.settle(&self.constants);
        }
        if let Some((line, column)) = self.nest_factory {
            let (prefix, prefix_options, prefix_excludes) = match self.nest_prefixes.as_slice() {
                [] => (None, false, Vec::new()),
                [(p, o, e, _, _)] => (Some(p.clone()), *o, e.clone()),
                // Two prefixes in one bootstrap file: which one wins depends on run-time order.
                _ => (Some(PathValue::Computed), false, Vec::new()),
            };
            let versioning = self.nest_versioning.take();
            js.nest_apps.push(NestApp {
                prefix,
                prefix_options,
                prefix_excludes,
                versioning,
                line,
                column,
            });
        } else {
            for (prefix, options, excludes, line, column) in std::mem::take(&mut self.nest_prefixes)
            {
                js.nest_loose_prefixes.push(NestPrefix { prefix, options, excludes, line, column });
            }
        }
    }
}

impl JsRoutes {
    /// Two functions of one file may each create a server under the same name (`const router =
    /// new Router()` in two factories): each is a server of its own. Such a name is renamed
    /// `name@LINE` (the creation's line) for the creations inside functions, and every use of
    /// the name is renamed after the creation whose function encloses it; a creation at the top
    /// level keeps its name, which uses outside those functions refer to.
    fn scope_shadowed_names(&mut self, js: &mut JsRouteFacts) {
        let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for c in &self.creations {
            *counts.entry(c.local.as_str()).or_default() += 1;
        }
        let shadowed: Vec<String> =
            counts.into_iter().filter(|(_, n)| *n > 1).map(|(name, _)| name.to_owned()).collect();
        if shadowed.is_empty() {
            return;
        }
        // (name, scope, new name), innermost scopes last so they win.
        let mut scoped: Vec<(String, Span, String)> = self
            .creations
            .iter_mut()
            .filter(|c| shadowed.contains(&c.local))
            .filter_map(|c| {
                let scope = c.scope?;
                let renamed = format!("{}@{}", c.local, c.line);
                let name = std::mem::replace(&mut c.local, renamed.clone());
                Some((name, scope, renamed))
            })
            .collect();
        scoped.sort_by_key(|(_, (start, _), _)| *start);
        let rename = |name: &mut String, at: (u32, u32)| {
            if let Some((_, _, renamed)) = scoped
                .iter()
                .rev()
                .find(|(n, (start, end), _)| n == name && *start <= at && at <= *end)
            {
                name.clone_from(renamed);
            }
        };
        for route in &mut js.routes {
            rename(&mut route.receiver.name, (route.line, route.column));
        }
        for mount in &mut js.mounts {
            rename(&mut mount.receiver.name, (mount.line, mount.column));
            if let MountTarget::Name(target) = &mut mount.target {
                rename(target, (mount.line, mount.column));
            }
        }
        for mount in &mut js.hook_mounts {
            rename(&mut mount.receiver.name, (mount.line, mount.column));
        }
        for call in &mut self.calls_with_names {
            for (name, _) in &mut call.names {
                rename(name, (call.line, call.column));
            }
        }
        for (_, name, at) in &mut self.returns {
            rename(name, *at);
        }
        for (name, _, at) in &mut self.router_prefixes {
            rename(name, *at);
        }
    }

    /// Applies `router.prefix(…)` calls to the routers they are made on.
    fn apply_router_prefixes(&mut self) {
        for (name, prefix, _) in std::mem::take(&mut self.router_prefixes) {
            if let Some(creation) = self.creations.iter_mut().rev().find(|c| c.local == name) {
                creation.prefix = Some(prefix);
            }
        }
    }

    /// Koa-router's `router.prefix("/p")` on a router created in the file: its prefix, set after
    /// the walk (a later call wins, as at run time in straight-line code).
    fn router_prefix(&mut self, node: Node<'_>, function: Node<'_>, cx: &Context<'_>) {
        let Some(object) = function.field("object").filter(|o| o.kind_name() == "identifier")
        else {
            return;
        };
        let args = node.field("arguments").map(named_args).unwrap_or_default();
        let [prefix] = args.as_slice() else {
            return;
        };
        if is_path_like(*prefix) {
            let name = text(object, cx.source).to_owned();
            self.router_prefixes.push((name, path_value(*prefix, cx), position(node)));
        }
    }

    /// Reads the file's `req.method` checks once, at its first export, in a file that may hold
    /// a Next.js Pages Router handler or one it delegates to: under a `pages/api/` folder, or
    /// reading a `req.method`.
    fn read_methods(&mut self, cx: &Context<'_>, facts: &mut FileFacts) {
        if self.methods_read {
            return;
        }
        self.methods_read = true;
        let path = cx.path.as_str();
        let candidate = path.starts_with("pages/api/")
            || path.contains("/pages/api/")
            || cx.source.contains("req.method")
            || cx.source.contains("request.method");
        if let Some(root) = cx.ancestry().first().filter(|_| candidate) {
            facts.js_routes.checked_methods = nextjs::method_checks(*root, cx);
        }
    }

    fn call(&mut self, node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
        // `await NestFactory.create<App>(M)` parses as a call of `await NestFactory.create`.
        let Some(function) = cx.field(node, "function").map(strip_expression) else {
            return;
        };
        let js = &mut facts.js_routes;
        match function.kind_name() {
            "member_expression" => {
                let Some(property) = function.field("property") else {
                    return;
                };
                let name = text(property, cx.source);
                match name {
                    "setGlobalPrefix" => self.nest_prefix(node, cx),
                    "prefix" => self.router_prefix(node, function, cx),
                    "create" if text(function, cx.source) == "NestFactory.create" => {
                        self.nest_factory.get_or_insert(position(node));
                    }
                    "enableVersioning" => {
                        self.nest_versioning.get_or_insert(nest::versioning(node, cx));
                    }
                    "register" | "forRoutes"
                        if function
                            .field("object")
                            .is_some_and(|o| text(o, cx.source) == "RouterModule") =>
                    {
                        nest::router_module(node, cx, js);
                    }
                    _ => express::member_call(node, function, name, cx, js),
                }
            }
            "identifier" => {
                self.record_wrapper(node, function, cx);
                self.record_apply(node, function, cx);
            }
            "call_expression" => self.record_apply(node, function, cx),
            _ => {}
        }
    }

    /// Remembers `return app` / `return [a, b]` with the enclosing function's key; kept after the
    /// walk only for names of servers created in the file.
    fn returned(&mut self, node: Node<'_>, cx: &Context<'_>) {
        let Some(value) = node.named_child(0).map(strip_expression) else {
            return;
        };
        let names: Vec<&str> = match value.kind_name() {
            "identifier" => vec![text(value, cx.source)],
            "array" => {
                let mut cursor = value.walk();
                value
                    .named_children(&mut cursor)
                    .map(strip_expression)
                    .filter(|e| e.kind_name() == "identifier")
                    .map(|e| text(e, cx.source))
                    .collect()
            }
            _ => return,
        };
        if names.is_empty() || !names.iter().any(|n| self.creations.iter().any(|c| c.local == *n)) {
            return;
        }
        let mut current = cx.parent(node);
        while let Some(n) = current {
            if is_function(n.kind_name()) {
                if let Some(key) = function_key(n, cx) {
                    for name in names {
                        self.returns.push((key.clone(), name.to_owned(), position(node)));
                    }
                }
                return;
            }
            current = cx.parent(n);
        }
    }

    /// Remembers `fp(function …)`: a function handed to a plain call, by the callee's name.
    fn record_wrapper(&mut self, node: Node<'_>, function: Node<'_>, cx: &Context<'_>) {
        let Some(arguments) = node.field("arguments") else {
            return;
        };
        let callee = text(function, cx.source);
        for arg in named_args(arguments) {
            let arg = strip_expression(arg);
            if is_function(arg.kind_name())
                && let Some(key) = function_key(arg, cx)
            {
                self.wrapped.push((callee.to_owned(), key));
            }
        }
    }

    /// Remembers `f(a, …)` / `require("./r")(app)` so that a server passed to a function that
    /// declares routes on its parameter can be followed.
    fn record_apply(&mut self, node: Node<'_>, function: Node<'_>, cx: &Context<'_>) {
        let target = match function.kind_name() {
            "identifier" => {
                let name = text(function, cx.source);
                if name == "require" {
                    return;
                }
                MountTarget::Name(name.to_owned())
            }
            _ => match required_module(function, cx) {
                Some(specifier) => MountTarget::Module { specifier, member: None },
                None => return,
            },
        };
        let Some(arguments) = node.field("arguments") else {
            return;
        };
        let mut names = Vec::new();
        let mut params = Vec::new();
        for (index, arg) in named_args(arguments).into_iter().enumerate() {
            // `more(...args)` inside `function routes(...args)`: the rest is handed on whole, so
            // each of its first parameters is forwarded to the callee's at the same offset. The
            // linker keeps only the offsets where the callee's parameter declares routes.
            if arg.kind_name() == "spread_element" {
                if let Some(inner) = arg.named_child(0).filter(|a| a.kind_name() == "identifier") {
                    let name = text(inner, cx.source);
                    if let Some((key, rest)) = shapes::rest_parameter_of(inner, name, cx) {
                        for offset in 0..SPREAD_PARAMETERS {
                            params.push((
                                name.to_owned(),
                                to_u32(index).saturating_add(offset),
                                (key.clone(), rest.saturating_add(offset)),
                            ));
                        }
                    }
                }
                continue;
            }
            // Only names of servers created earlier in the file can be handed over: a server is
            // created before it is passed on.
            let name = text(arg, cx.source);
            if arg.kind_name() != "identifier" {
                continue;
            }
            if self.creations.iter().any(|c| c.local == name) {
                names.push((name.to_owned(), to_u32(index)));
            } else if looks_like_server(name)
                && let Some(param) = shapes::parameter_of(arg, name, cx)
            {
                params.push((name.to_owned(), to_u32(index), param));
            }
        }
        if !names.is_empty() || !params.is_empty() {
            let (line, column) = position(node);
            self.calls_with_names.push(NamedCall { function: target, names, params, line, column });
        }
    }

    fn nest_prefix(&mut self, node: Node<'_>, cx: &Context<'_>) {
        let Some(arguments) = node.field("arguments") else {
            return;
        };
        let args = named_args(arguments);
        let Some(first) = args.first() else {
            return;
        };
        let (line, column) = position(node);
        let (unread, excludes) = match args.get(1) {
            Some(options) => nest::prefix_options(*options, cx),
            None => (false, Vec::new()),
        };
        self.nest_prefixes.push((path_value(*first, cx), unread, excludes, line, column));
    }

    /// `const app = express()` and the other creation shapes.
    fn declarator(&mut self, node: Node<'_>, cx: &Context<'_>) {
        let (Some(name), Some(value)) = (cx.field(node, "name"), cx.field(node, "value")) else {
            return;
        };
        if name.kind_name() != "identifier" {
            return;
        }
        if let Some(literal) = literal_string(strip_expression(value), cx.source) {
            let name = text(name, cx.source).to_owned();
            let entry = self.constants.entry(name).or_insert_with(|| Some(literal.clone()));
            if entry.as_ref() != Some(&literal) {
                *entry = None;
            }
            return;
        }
        self.autoload(text(name, cx.source), value, cx);
        self.creation(text(name, cx.source), value, cx);
    }

    /// `const ctrl = autoload(path.join(WIKI.SERVERPATH, "/controllers"))` (also
    /// `path.resolve(__dirname, "controllers")` and a plain literal): the folder is read as the
    /// call's last literal, relative to this file's folder.
    fn autoload(&mut self, local: &str, value: Node<'_>, cx: &Context<'_>) {
        let value = strip_expression(value);
        if value.kind_name() != "call_expression" {
            return;
        }
        let Some(callee) = value.field("function").filter(|f| f.kind_name() == "identifier") else {
            return;
        };
        let args = value.field("arguments").map(named_args).unwrap_or_default();
        let [folder] = args.as_slice() else {
            return;
        };
        let folder = strip_expression(*folder);
        let last = match folder.kind_name() {
            "call_expression" => {
                let joined = folder.field("function").is_some_and(|f| {
                    matches!(text(f, cx.source), "path.join" | "path.resolve" | "join" | "resolve")
                });
                let inner = folder.field("arguments").map(named_args).unwrap_or_default();
                match inner.last() {
                    Some(last) if joined => literal_string(*last, cx.source),
                    _ => None,
                }
            }
            _ => literal_string(folder, cx.source),
        };
        let Some(last) = last else {
            return;
        };
        let relative = last.trim_start_matches("./").trim_matches('/');
        if relative.is_empty() || relative.split('/').any(|s| s == "..") {
            return;
        }
        self.autoloads.push((
            local.to_owned(),
            text(callee, cx.source).to_owned(),
            format!("./{relative}"),
        ));
    }

    /// `module.exports = Router()` / `exports.api = new Hono()`.
    fn assigned_creation(&mut self, node: Node<'_>, cx: &Context<'_>) {
        let (Some(left), Some(right)) = (cx.field(node, "left"), cx.field(node, "right")) else {
            return;
        };
        // `const app = module.exports = express()`: the declarator records the creation.
        if declared_name(node, cx).is_some() {
            return;
        }
        match left.kind_name() {
            "identifier" => self.creation(text(left, cx.source), right, cx),
            _ => {
                if let Some(exported) = exports::exported_name(left, cx) {
                    self.creation(&exported, right, cx);
                }
            }
        }
    }

    /// `export default new Hono()` / `export default Router()`.
    fn default_creation(&mut self, node: Node<'_>, cx: &Context<'_>) {
        if let Some(value) = node.field("value") {
            self.creation("default", value, cx);
        }
    }

    fn creation(&mut self, local: &str, value: Node<'_>, cx: &Context<'_>) {
        let mut value = strip_expression(value);
        // `const app = module.exports = express()`
        for _ in 0..4 {
            match value.field("right") {
                Some(right) if value.kind_name() == "assignment_expression" => {
                    value = strip_expression(right);
                }
                _ => break,
            }
        }
        let mut prefix = None;
        // `new Hono().use(m).route("/", sub)`: the creation the chain starts from (keeping the
        // `basePath` call if there is one, read next).
        for _ in 0..64 {
            let Some(function) = value.field("function").filter(|f| {
                value.kind_name() == "call_expression" && f.kind_name() == "member_expression"
            }) else {
                break;
            };
            let (Some(property), Some(object)) =
                (function.field("property"), function.field("object"))
            else {
                break;
            };
            let name = text(property, cx.source);
            // `app.get(...)` on a name made elsewhere is a route, not a creation.
            if name == "basePath"
                || !shapes::is_chainable(name)
                || is_dotted_name(shapes::chain_start(object, cx))
            {
                break;
            }
            value = strip_expression(object);
        }
        // `new Hono().basePath("/api")`
        if value.kind_name() == "call_expression"
            && let Some(function) = value.field("function")
            && function.kind_name() == "member_expression"
            && function.field("property").is_some_and(|p| text(p, cx.source) == "basePath")
            && let Some(object) = function.field("object")
        {
            let args = value.field("arguments").map(named_args).unwrap_or_default();
            prefix = Some(args.first().map_or(PathValue::Computed, |a| path_value(*a, cx)));
            value = strip_expression(object);
        }
        let (callee, arguments, is_new) = match value.kind_name() {
            "call_expression" => (value.field("function"), value.field("arguments"), false),
            "new_expression" => (value.field("constructor"), value.field("arguments"), true),
            _ => return,
        };
        let Some(callee) = callee else {
            return;
        };
        let (callee_text, required) = match callee.kind_name() {
            "identifier" => (text(callee, cx.source).to_owned(), None),
            "member_expression" => {
                let Some(object) = callee.field("object") else {
                    return;
                };
                let Some(property) = callee.field("property") else {
                    return;
                };
                match object.kind_name() {
                    "identifier" => (text(callee, cx.source).to_owned(), None),
                    _ => match required_module(object, cx) {
                        Some(spec) => (text(property, cx.source).to_owned(), Some(spec)),
                        None => return,
                    },
                }
            }
            "call_expression" => match required_module(callee, cx) {
                Some(spec) => (String::new(), Some(spec)),
                None => return,
            },
            _ => return,
        };
        if prefix.is_none() {
            // Koa-router: `new Router({ prefix: "/p" })`.
            let first = arguments.map(named_args).unwrap_or_default().first().copied();
            if let Some(options) = first.filter(|a| a.kind_name() == "object") {
                prefix = object_property(options, "prefix", cx.source).map(|v| path_value(v, cx));
            }
        }
        let (line, column) = position(value);
        let scope = std::iter::successors(cx.parent(value), |n| cx.parent(*n))
            .find(|n| is_function(n.kind_name()))
            .map(|f| {
                let end = f.end_position();
                (position(f), (to_u32(end.row) + 1, to_u32(end.column) + 1))
            });
        self.creations.push(Creation {
            local: local.to_owned(),
            callee: callee_text,
            required,
            is_new,
            prefix,
            line,
            column,
            scope,
        });
    }
}

/// A parameter name that may hold a server (`app`, `router`, `apiRouter`, `fastify`): only
/// those are followed when handed on, which keeps `validate(req)` and the like out of the facts.
fn looks_like_server(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["app", "router", "api", "server", "fastify", "routes"].iter().any(|w| lower.contains(w))
}

/// What the file's imports bind, as far as this family cares.
struct ImportedNames {
    /// Local name → (package specifier, what it names).
    names: Vec<(String, String, Imported)>,
    next: bool,
    nest_common: bool,
    /// Local names bound to `@nestjs/common` members, with the member name.
    nest_names: Vec<(String, String)>,
}

impl ImportedNames {
    fn of(facts: &FileFacts) -> Self {
        let mut out =
            Self { names: Vec::new(), next: false, nest_common: false, nest_names: Vec::new() };
        for import in &facts.imports {
            let ImportTarget::Js(js) = &import.target else {
                continue;
            };
            let spec = js.specifier.as_str();
            if spec == "next" || spec.starts_with("next/") {
                out.next = true;
            }
            // `@nestjs/common/decorators` re-exports the same decorators.
            if spec == "@nestjs/common" || spec.starts_with("@nestjs/common/") {
                out.nest_common = true;
                for b in &import.bindings {
                    if let Imported::Name(n) = &b.imported {
                        out.nest_names.push((b.local.clone(), n.clone()));
                    }
                }
            }
            for b in &import.bindings {
                out.names.push((b.local.clone(), spec.to_owned(), b.imported.clone()));
            }
        }
        out
    }

    /// True when `local` is bound by an import of `package`.
    fn is_from(&self, local: &str, package: &str) -> bool {
        self.names.iter().any(|(l, spec, _)| l == local && spec == package)
    }

    /// The framework and kind a creation makes, when its constructor comes from a framework
    /// package.
    fn framework_of(&self, c: &Creation) -> Option<(Framework, ServerKind)> {
        let (base, member) = match c.callee.split_once('.') {
            Some((b, m)) => (b, Some(m)),
            None => (c.callee.as_str(), None),
        };
        let (package, imported) = match &c.required {
            Some(spec) => {
                // `require("express")()` or `require("express").Router()`.
                let imported = if c.callee.is_empty() {
                    Imported::Module
                } else {
                    Imported::Name(c.callee.clone())
                };
                (spec.as_str(), imported)
            }
            None => {
                let (_, spec, imported) = self.names.iter().find(|(l, _, _)| l == base)?;
                let imported = match (imported, member) {
                    (Imported::Module | Imported::Default, Some(m)) => Imported::Name(m.to_owned()),
                    (Imported::Name(_), Some(_)) => return None,
                    (other, None) => other.clone(),
                };
                (spec.as_str(), imported)
            }
        };
        let whole = matches!(imported, Imported::Module | Imported::Default);
        let named = |n: &str| matches!(&imported, Imported::Name(x) if x == n);
        match package {
            "express" if whole && !c.is_new => Some((Framework::Express, ServerKind::App)),
            "express" if named("Router") => Some((Framework::Express, ServerKind::Router)),
            "koa-router" | "@koa/router" if whole || named("Router") => {
                Some((Framework::Koa, ServerKind::Router))
            }
            "koa" if whole && c.is_new => Some((Framework::Koa, ServerKind::App)),
            "fastify" if !c.is_new && (whole || named("fastify") || named("Fastify")) => {
                Some((Framework::Fastify, ServerKind::App))
            }
            "hono" | "hono/tiny" | "hono/quick" if c.is_new && named("Hono") => {
                Some((Framework::Hono, ServerKind::App))
            }
            _ => None,
        }
    }
}
