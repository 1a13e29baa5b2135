//! The facts of the JS route family for one file: apps and routers, route calls, mounts,
//! exports, NestJS controllers and Next.js handlers, as the walk records them.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use cartograph_core::HttpMethod;

use crate::{ImportFact, ImportTarget};

/// The packages of the flat-routes conventions a React Router / Remix route config imports.
const FLAT_ROUTES: &[&str] = &["remix-flat-routes", "@react-router/fs-routes"];

/// True when one of `imports` is of a flat-routes package.
pub(crate) fn imports_flat_routes(imports: &[ImportFact]) -> bool {
    imports.iter().any(|import| {
        let ImportTarget::Js(js) = &import.target else { return false };
        FLAT_ROUTES.contains(&js.specifier.as_str())
    })
}

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsRouteFacts {
    /// Apps and routers created in this file, kept only when the constructor is imported from
    /// the framework's package.
    pub servers: Vec<Server>,
    /// Route declarations on a receiver that may or may not be an app or router.
    pub routes: Vec<RouteCall>,
    /// Routers, sub-apps and plugins mounted on a receiver.
    pub mounts: Vec<Mount>,
    /// Calls that hand a server created in this file to a function (`routes(app)`).
    pub applies: Vec<Apply>,
    /// Names the module exports: `export default x`, `module.exports = x`, `export const x`.
    pub exports: Vec<Export>,
    /// `export { a as b } from "./m"` and `export * from "./m"`: names exported from another
    /// module (barrel files).
    pub reexports: Vec<ReExport>,
    pub nest_controllers: Vec<NestController>,
    /// `app.setGlobalPrefix(...)` in a file that creates a Nest app.
    pub nest_apps: Vec<NestApp>,
    /// `x.setGlobalPrefix(...)` in a file that does not create a Nest app (a bootstrap split
    /// across files): the linker ties it to an app only when that is unambiguous.
    pub nest_loose_prefixes: Vec<NestPrefix>,
    /// Exported functions named after an HTTP method (Next.js App Router handlers).
    pub next_handlers: Vec<NextHandler>,
    /// Exported `loader` (method `GET`) and `action` (method `POST`) functions: the handlers of a
    /// React Router / Remix route module, which the linker routes by the file's path.
    pub remix_exports: Vec<NextHandler>,
    /// The default export, for Next.js Pages Router API routes.
    pub default_export: Option<DefaultExport>,
    /// True when the file imports `next` or `next/…`.
    pub imports_next: bool,
    /// True when the file imports a package of the flat-routes conventions (`remix-flat-routes`,
    /// `@react-router/fs-routes`): a React Router / Remix route config (see `remix::link`). Read
    /// from every JavaScript file's imports, whichever recognisers its text wakes.
    #[serde(default)]
    pub imports_flat_routes: bool,
    /// Keys of functions wrapped by `fastify-plugin` (`fp(async (f) => …)`): a plugin so wrapped
    /// is not encapsulated, and a `prefix` given when registering it does not apply.
    pub unencapsulated_plugins: Vec<String>,
    /// True when the file calls `RouterModule.register`/`forRoutes` with routes that are not read
    /// (a computed list, a spread, a module that is not a plain name): Nest module paths that may
    /// prefix controllers, which the linker cannot compose.
    pub nest_router_module: bool,
    /// `const ctrl = autoload(path.join(ROOT, "/controllers"))` with `autoload` from the
    /// `auto-load` package: the local name and the folder, relative to this file's folder
    /// (`./controllers`); `ctrl.auth` is then the default export of `controllers/auth.js`.
    pub autoloads: Vec<(String, String)>,
    /// `@Module({ controllers: [...] })` classes (NestJS) with the controllers they declare.
    pub nest_modules: Vec<NestModule>,
    /// Modules `RouterModule.register([{ path, module, children }])` places under a path.
    pub nest_module_paths: Vec<NestModulePath>,
    /// In a `next.config.*` file: the `basePath` option.
    pub next_base_path: Option<PathValue>,
    /// The methods the file's code checks the request's `method` against (Next.js Pages Router
    /// handlers); empty when it checks none. Read only in files that read a `req.method` or sit
    /// in a `pages/api/` folder.
    pub checked_methods: Vec<HttpMethod>,
    /// Apps and routers created in this file that a function returns (`return app`, `return
    /// [a, b]`): a factory whose call is mounted mounts them.
    pub returns: Vec<Returned>,
    /// Items put into a registry under a key (`PluginManager.add({ type: Hook.API, value: r })`),
    /// read in files that call a registering method with an object literal (see `hooks`).
    pub hook_registrations: Vec<HookRegistration>,
    /// Mounts of the items a registry holds under a key (`getHooks(Hook.API).forEach((h) =>
    /// router.use("/", h.value.routes()))`).
    pub hook_mounts: Vec<HookMount>,
    /// Static getters returning a registry query, read in files with a `static get`.
    pub hook_getters: Vec<HookGetter>,
}

/// A name or a string literal: a registry, the key an item is registered under, or a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum HookValue {
    /// A plain or dotted name as written (`Hook.API`, `router`).
    Name(String),
    /// A string literal's value.
    Literal(String),
}

/// One object literal handed to a registry's method: `registry.add({ type: K, value: v })`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRegistration {
    /// The receiver of the registering call as written (`PluginManager`).
    pub registry: String,
    /// The object's properties whose value is a name or a string literal, by their path in the
    /// object (`type`, `value`, `value.router` one level down).
    pub properties: Vec<(String, HookValue)>,
    pub line: u32,
    pub column: u32,
}

/// Where the items a mount reads come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HookQuery {
    /// `PluginManager.getHooks(Hook.API)`: the registry's receiver as written and the query's
    /// one argument.
    Direct { registry: String, key: HookValue },
    /// `Helper.providers`: a class's static getter that returns such a query.
    Getter(String),
}

/// A class's static getter that returns a registry query: `static get providers() { return
/// PluginManager.getHooks(Hook.AuthProvider); }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookGetter {
    pub class: String,
    /// The name the class is exported under (`default` for `export default class`).
    pub exported: Option<String>,
    pub getter: String,
    pub registry: String,
    pub key: HookValue,
}

/// A mount of what a registry holds under a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookMount {
    pub receiver: Receiver,
    pub prefix: Option<PathValue>,
    pub query: HookQuery,
    /// The path into each item that is mounted (`value` for `h.value.routes()`).
    pub path: String,
    pub call: String,
    pub line: u32,
    pub column: u32,
}

/// A server created in the file and returned by a function of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Returned {
    /// The function's key (see `function_key`).
    pub function: String,
    /// The server's local name.
    pub local: String,
}

/// The web framework an app or router belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Framework {
    Express,
    Koa,
    Fastify,
    Hono,
}

impl Framework {
    /// The recogniser name, as in the registry.
    pub fn recogniser(self) -> &'static str {
        match self {
            Framework::Express => "express",
            Framework::Koa => "koa",
            Framework::Fastify => "fastify",
            Framework::Hono => "hono",
        }
    }

    /// The name used in evidence.
    pub fn display(self) -> &'static str {
        match self {
            Framework::Express => "Express",
            Framework::Koa => "Koa",
            Framework::Fastify => "Fastify",
            Framework::Hono => "Hono",
        }
    }
}

/// Whether an object serves on its own or only once mounted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerKind {
    /// `express()`, `Fastify()`, `new Hono()`, `new Koa()`: serves at its own root unless mounted.
    App,
    /// `Router()`, `new KoaRouter()`: serves only where it is mounted.
    Router,
}

/// A path or prefix: a literal, or something computed at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathValue {
    Literal(String),
    /// A plain name during the walk; replaced after it by the string constant it is bound to in
    /// this file, or by `Computed`. Never left in finished facts.
    Named(String),
    Computed,
}

impl PathValue {
    /// Replaces a name by the file's string constant of that name, or by `Computed`.
    pub(super) fn settle(&mut self, constants: &HashMap<String, Option<String>>) {
        if let PathValue::Named(name) = self {
            *self = match constants.get(name.as_str()) {
                Some(Some(value)) => PathValue::Literal(value.clone()),
                _ => PathValue::Computed,
            };
        }
    }
}

/// An app or router created in this file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Server {
    /// The local name it is bound to; `default` for `export default new Hono()`.
    pub local: String,
    pub framework: Framework,
    pub kind: ServerKind,
    /// Koa-router `prefix` option or Hono `basePath`.
    pub prefix: Option<PathValue>,
    pub line: u32,
    pub column: u32,
}

/// What a route or mount is declared on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receiver {
    /// The receiver as written: `app`, or a dotted `api.router`.
    pub name: String,
    /// When the receiver is a parameter of an enclosing function (a Fastify plugin, an Express
    /// `module.exports = (app) => …`): that function's key and the parameter's index.
    pub param: Option<(String, u32)>,
}

/// A route declared on a receiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteCall {
    pub receiver: Receiver,
    pub methods: Vec<HttpMethod>,
    pub path: PathValue,
    /// The handler's name when it is a named function or a dotted reference; `None` inline.
    pub handler: Option<String>,
    /// The call as it reads in evidence: `router.get`, `app.route().post`, `fastify.route`.
    pub call: String,
    pub line: u32,
    pub column: u32,
}

/// Something mounted on a receiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mount {
    pub receiver: Receiver,
    /// `None` when mounted without a prefix.
    pub prefix: Option<PathValue>,
    pub target: MountTarget,
    /// How the mount reads in evidence: `app.use`, `app.route`, `fastify.register`.
    pub call: String,
    /// True for `register`, whose target is a plugin function receiving the instance.
    pub plugin: bool,
    /// The function the mounted app is handed to (`app.use(mount("/api", api))`); such a mount
    /// is kept only when the function is koa-mount's.
    pub wrapper: Option<String>,
    pub line: u32,
    pub column: u32,
}

/// What a mount names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MountTarget {
    /// A name or dotted member: `ordersRouter`, `routes.orders`.
    Name(String),
    /// A function written inline (a Fastify plugin), by its key.
    Function(String),
    /// `require("./x")` or `import("./x")` written inline, with the member taken from it.
    Module { specifier: String, member: Option<String> },
    /// A call of a named function (`initApis(tenant)`), or a loop over what it returns (`for
    /// (const r of createRouters()) app.use(r.routes())`): the servers the function returns.
    Call(String),
    /// Anything else (a computed expression).
    Other,
}

/// `f(app)`: a server created in this file, or a parameter of the enclosing function, handed
/// to a function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Apply {
    pub function: MountTarget,
    /// The server's local name and the argument index it is passed at.
    pub server: String,
    pub index: u32,
    /// When the server is a parameter (`function routes(app) { more(app) }`): the enclosing
    /// function's key and the parameter's index.
    pub param: Option<(String, u32)>,
    pub line: u32,
    pub column: u32,
}

/// One exported name and the local name (or function key) behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    /// `default` for `export default` and `module.exports =`.
    pub exported: String,
    pub local: String,
}

/// A name re-exported from another module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReExport {
    /// The name exported here; `None` for `export * from "m"` (every name of `m`).
    pub exported: Option<String>,
    /// The name in the other module (`default` for `export { default as x }`).
    pub imported: String,
    pub specifier: String,
}

/// A NestJS controller class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestController {
    pub class: String,
    pub prefix: PathValue,
    /// `@Controller({ version })` or `@Version(...)` on the class.
    pub version: Option<NestVersion>,
    pub routes: Vec<NestRoute>,
    pub line: u32,
    pub column: u32,
}

/// A NestJS `@Module` class and the controller classes its `controllers` list names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestModule {
    pub class: String,
    pub controllers: Vec<String>,
}

/// A module placed under a path by `RouterModule.register`: the paths of the route entries from
/// the outermost down to the one naming the module (children compose).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestModulePath {
    pub module: String,
    pub path: Vec<PathValue>,
    pub line: u32,
    pub column: u32,
}

/// A NestJS handler method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestRoute {
    pub method: HttpMethod,
    pub path: PathValue,
    pub handler: String,
    /// `@Version(...)` on the method.
    pub version: Option<NestVersion>,
    pub line: u32,
    pub column: u32,
}

/// A file that creates a Nest application, with its global prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestApp {
    /// `None` when no `setGlobalPrefix` call is seen.
    pub prefix: Option<PathValue>,
    /// True when `setGlobalPrefix` received options besides the prefix that are not a literal
    /// `exclude` list.
    pub prefix_options: bool,
    /// The routes `setGlobalPrefix(…, { exclude })` keeps out of the prefix.
    pub prefix_excludes: Vec<NestExclude>,
    /// The file's `enableVersioning(...)` call, if any.
    pub versioning: Option<NestVersioning>,
    pub line: u32,
    pub column: u32,
}

/// The versions a NestJS controller or handler is served under (`"1"`, `["1", "2"]`,
/// `VERSION_NEUTRAL`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NestVersion {
    /// Each version; `None` for `VERSION_NEUTRAL` (served without a version segment).
    Listed(Vec<Option<String>>),
    /// Not a literal, an array of literals or `VERSION_NEUTRAL`.
    Computed,
}

/// How `app.enableVersioning({ type, prefix, defaultVersion })` versions routes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NestVersioning {
    /// `VersioningType.URI` (also the default of `enableVersioning()`): a path segment of the
    /// prefix (`v` unless `prefix` says otherwise; `prefix: false` for none) and the version,
    /// after the global prefix.
    ///
    /// `root` names a computed leading part of the prefix (`${CONTEXT_PATH}v`): a deployment
    /// path taken as the root, the literal rest being the prefix.
    Uri { prefix: Option<String>, default: Option<NestVersion>, root: Option<String> },
    /// Header, media-type or custom versioning: no path segment.
    Other,
    /// The type or prefix is computed.
    Computed,
}

/// One entry of `setGlobalPrefix(…, { exclude: [...] })`: a path (`"health"`, `"auth/*"`) with
/// the method it is limited to (`{ path, method: RequestMethod.GET }`); `None` for every method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestExclude {
    pub method: Option<HttpMethod>,
    pub path: String,
}

/// A `setGlobalPrefix` call away from `NestFactory.create`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestPrefix {
    pub prefix: PathValue,
    pub options: bool,
    pub excludes: Vec<NestExclude>,
    pub line: u32,
    pub column: u32,
}

/// An exported function named after an HTTP method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NextHandler {
    pub method: HttpMethod,
    /// The local function behind the export (`handler` for `export { handler as GET }`).
    pub handler: String,
    pub line: u32,
    pub column: u32,
}

/// The file's default export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefaultExport {
    /// The function or variable name, when it has one.
    pub name: Option<String>,
    pub line: u32,
    pub column: u32,
}

/// Settles every [`PathValue::Named`] of the file's facts.
pub(super) fn settle_names(js: &mut JsRouteFacts, constants: &HashMap<String, Option<String>>) {
    for server in &mut js.servers {
        if let Some(p) = &mut server.prefix {
            p.settle(constants);
        }
    }
    for route in &mut js.routes {
        route.path.settle(constants);
    }
    for mount in &mut js.mounts {
        if let Some(p) = &mut mount.prefix {
            p.settle(constants);
        }
    }
    for mount in &mut js.hook_mounts {
        if let Some(p) = &mut mount.prefix {
            p.settle(constants);
        }
    }
    for placed in &mut js.nest_module_paths {
        for p in &mut placed.path {
            p.settle(constants);
        }
    }
    for controller in &mut js.nest_controllers {
        controller.prefix.settle(constants);
        for route in &mut controller.routes {
            route.path.settle(constants);
        }
    }
}
