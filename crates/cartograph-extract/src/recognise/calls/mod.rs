//! HTTP client calls: method and URL of every request a file makes, and the client instances it
//! declares (`axios.create({ baseURL })`, `httpx.Client(base_url=…)`).
//!
//! Only a call on a known client counts: a global `fetch`, jQuery's Ajax helpers (`$.ajax`), an
//! imported client library (`axios`, `ky`, `requests`, `httpx`, `aiohttp`), an instance of one
//! declared in the file, an Angular `HttpClient` field, a generated OpenAPI client's request
//! object, or a name imported from another module that the linker finds to be a client instance
//! there. Everything else that
//! happens to be called `.get(…)` — `app.get('/x', handler)` on a server, `Map.get`,
//! `router.push('/x')`, `navigate('/x')` — is not a call.
//!
//! The walk collects candidate calls; `Family::finish` decides which receivers are clients once
//! the whole file is seen (an instance may be declared below its first use). URLs are read by
//! `url.rs`, through the file's constants (also object members `routes.base`, class fields
//! `this.url`, static members `Service.BASE`, functions returning a URL template) and, inside a
//! function, its local constants and parameters (`scope.rs`); each recogniser file interprets its
//! client's argument conventions.
//!
//! A request whose URL or method comes from the enclosing function's parameters makes that
//! function a wrapper (`wrappers.rs`): the request is recorded as the function's summary, not as a
//! call, and the calls of the function — in this file or, through imports, in others — are
//! recorded as invocations that the link half follows to it (`link/resolve.rs`). A URL naming an
//! imported constant is kept in parts (`CallUrl::Deferred`) and read in the link half too.

mod aiohttp;
mod angular;
mod args;
mod axios;
mod choices;
mod factories;
mod fetch;
mod globals;
mod hono_rpc;
mod httpx;
mod jquery;
mod ky;
mod libraries;
pub mod link;
mod openapi;
mod paired;
mod request_object;
mod requests;
mod scope;
mod swagger;
mod swr;
mod url;
pub mod wrappers;

use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use cartograph_core::{EdgeKind, HttpMethod, Language};
use tree_sitter::Node;

use super::registry::Recogniser;
use super::{Context, Family};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{position, text};
use crate::{FileFacts, Syntax};
use args::Args;
use libraries::{Libraries, is_constructor, libs_of};

pub use url::{CallUrl, Hole, Part, StrippedBase};
use wrappers::{
    ClassFact, ClassInstance, Invocation, InvocationArg, OptionsMethod, Sink, UrlConstant, Wrapper,
};

const TS_JS: &[Language] = &[Language::TypeScript, Language::JavaScript];
const PY: &[Language] = &[Language::Python];
const CALLS: &[EdgeKind] = &[EdgeKind::Calls];

/// This family's recognisers, one per file of this folder.
pub const RECOGNISERS: &[Recogniser] = &[
    Recogniser {
        name: "aiohttp",
        file: "calls/aiohttp.rs",
        languages: PY,
        edges: CALLS,
        summary: "aiohttp ClientSession requests, with base_url",
    },
    Recogniser {
        name: "angular-http",
        file: "calls/angular.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "Angular HttpClient requests (constructor parameter or inject(HttpClient))",
    },
    Recogniser {
        name: "axios",
        file: "calls/axios.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "axios requests and axios.create({ baseURL }) instances, also across modules",
    },
    Recogniser {
        name: "fetch",
        file: "calls/fetch.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "fetch(url, { method }) requests",
    },
    Recogniser {
        name: "hono-rpc",
        file: "calls/hono_rpc.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "Hono RPC clients: hc(base), the property chain is the path, $get/$post the method",
    },
    Recogniser {
        name: "http-wrappers",
        file: "calls/wrappers.rs",
        languages: &[Language::TypeScript, Language::JavaScript, Language::Python],
        edges: CALLS,
        summary: "functions and methods whose parameter becomes a request's URL, followed to their callers across modules; generated client methods attributed to their callers",
    },
    Recogniser {
        name: "httpx",
        file: "calls/httpx.rs",
        languages: PY,
        edges: CALLS,
        summary: "httpx requests and Client/AsyncClient(base_url=…) instances",
    },
    Recogniser {
        name: "jquery",
        file: "calls/jquery.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "jQuery Ajax helpers: $.ajax({ url, type }), $.get, $.post, $.getJSON",
    },
    Recogniser {
        name: "ky",
        file: "calls/ky.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "ky requests and ky.create({ prefixUrl }) instances",
    },
    Recogniser {
        name: "swr",
        file: "calls/swr.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "SWR hooks: useSWR(url, fetcher) is a GET of its key",
    },
    Recogniser {
        name: "openapi-client",
        file: "calls/openapi.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "generated OpenAPI clients: request objects { method, url } and client.GET(\"/x\")",
    },
    Recogniser {
        name: "swagger-js-codegen",
        file: "calls/swagger.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "swagger-js-codegen clients: operations calling this.request(\"GET\", domain + path), attributed to their callers",
    },
    Recogniser {
        name: "request-object",
        file: "calls/request_object.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "request objects handed to a method: relay.execute({ url, method: \"POST\" })",
    },
    Recogniser {
        name: "requests",
        file: "calls/requests.rs",
        languages: PY,
        edges: CALLS,
        summary: "Python requests calls and Session instances",
    },
];

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallFacts {
    /// Requests, in source order.
    pub calls: Vec<CallFact>,
    /// Client instances declared in this file, by the name other modules import them under
    /// (`default` for a default export).
    pub clients: Vec<ClientInstance>,
    /// Functions of this file that are clients themselves (see `wrappers.rs`).
    pub wrappers: Vec<Wrapper>,
    /// Calls that may be of a wrapper, here or in another module, in source order. Read only
    /// when this file is linked, and most of its facts' memory: kept encoded until then.
    pub invocations: crate::PackedVec<Invocation>,
    /// Classes, with what they extend.
    pub classes: Vec<ClassFact>,
    /// Names holding instances of classes.
    pub objects: Vec<ClassInstance>,
    /// Members of object literals that name another value (`const CTFd = { fetch }`:
    /// `CTFd.fetch` → `fetch`), and `default` → the default-exported name.
    pub aliases: Vec<(String, String)>,
    /// Exported constants a URL may be built from, for other modules.
    pub constants: Vec<UrlConstant>,
}

/// One HTTP request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallFact {
    /// 1-based position of the call.
    pub line: u32,
    pub column: u32,
    pub client: CallClient,
    /// `None` when the method cannot be read (a computed `method:` option).
    pub method: Option<HttpMethod>,
    /// The URL as the call writes it, before any client base URL is applied.
    pub url: CallUrl,
}

/// Who makes a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallClient {
    /// A client library used directly (`fetch`, `axios.get`, `requests.post`); the recogniser name.
    Library(#[serde(with = "crate::interned")] crate::interned::Name),
    /// An instance declared in this file.
    Instance(ClientInstance),
    /// A name imported from another module (`import { api } from "./api"`): a client only if the
    /// linker finds an instance of that name there. `receiver` is the name as called (`api`,
    /// `http.client` for `import app.http as http`).
    Imported { receiver: String },
}

/// A client instance and its base URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientInstance {
    /// The name calls use (`api`, `this.http`, `self.client`), or the exported name.
    pub name: String,
    /// The recogniser that knows its library (`axios`, `ky`, `httpx`).
    #[serde(with = "crate::interned")]
    pub library: crate::interned::Name,
    /// The base URL requests are relative to, when one is given.
    pub base: Option<CallUrl>,
}

/// Lower-case method names clients expose, plus `request`.
const VERBS: &[&str] = &["get", "post", "put", "patch", "delete", "head", "options", "request"];

fn is_verb(name: &str) -> bool {
    VERBS.contains(&name)
}

/// True for a declaration or assignment directly in the module body (also under `export`).
fn is_module_level(node: Node<'_>, cx: &Context<'_>) -> bool {
    let mut current = cx.parent(node);
    for _ in 0..3 {
        match current {
            Some(n) if matches!(n.kind_name(), "program" | "module") => return true,
            Some(n)
                if matches!(
                    n.kind_name(),
                    "lexical_declaration"
                        | "variable_declaration"
                        | "export_statement"
                        | "expression_statement"
                ) =>
            {
                current = cx.parent(n);
            }
            _ => return false,
        }
    }
    false
}

/// A call whose receiver is decided at the end of the file.
#[derive(Debug)]
struct Pending {
    line: u32,
    column: u32,
    /// The callee (`api` for `api(…)`) or the receiver of a method call (`this.http`).
    receiver: String,
    /// The method called on the receiver; `None` for a direct call.
    verb: Option<String>,
    args: Args,
    /// The function the call is in.
    scope: Option<Rc<scope::FnScope>>,
}

/// A call that may be of a wrapper, decided at the end of the file.
#[derive(Debug)]
struct MaybeInvocation {
    invocation: Invocation,
    scope: Option<Rc<scope::FnScope>>,
    /// True when the callee's first name is bound by an import.
    imported: bool,
}

/// The family's state during one walk.
#[derive(Default)]
pub(crate) struct Calls {
    libs: Option<Libraries>,
    pending: Vec<Pending>,
    instances: Vec<ClientInstance>,
    /// Receivers typed as Angular `HttpClient` (`this.http`).
    angular: HashSet<String>,
    /// Names exported as the default export (`export default api`).
    default_exports: Vec<String>,
    /// Module-level string constants seen so far, substituted into URLs.
    constants: url::Constants,
    /// Constants local to functions, by the function's node id.
    locals: HashMap<usize, url::Constants>,
    /// Functions local to functions that return a URL (`const getUrl = (url) => …` in a
    /// hook), by the enclosing function's node id.
    local_templates: HashMap<usize, url::Templates>,
    /// Request options held by `const` names local to functions (`const options = { method:
    /// "POST" }` before `fetch(url, options)`), by the function's node id.
    local_options: HashMap<usize, HashMap<String, args::ObjectArg>>,
    /// Functions returning a URL template.
    templates: url::Templates,
    /// Requests read directly (fetch, generated clients), with their arguments and scope.
    direct: Vec<(CallFact, Args, Option<Rc<scope::FnScope>>)>,
    maybe: Vec<MaybeInvocation>,
    classes: Vec<ClassFact>,
    objects: Vec<ClassInstance>,
    aliases: Vec<(String, String)>,
    exported: Vec<UrlConstant>,
    generated: Option<bool>,
    /// Names of called functions by whether the file may declare them ([`Calls::may_be_declared`]).
    declared: HashMap<String, bool>,
    /// The scopes read, by the node id of their innermost function (and where the window of
    /// ancestors starts, see [`scope::innermost_function`]): the calls of one function share
    /// it, and reading it walks and copies the function's names. The last one read is asked
    /// most.
    last_scope: Option<(scope::Key, Option<Rc<scope::FnScope>>)>,
    scopes: crate::syntax::AddressMap<scope::Key, Option<Rc<scope::FnScope>>>,
    /// Functions returning a client instance, and names bound to what functions return.
    factories: factories::Factories,
    /// Hono RPC calls (`client.users.$get()`), whose client is decided at the end of the file.
    rpc: Vec<hono_rpc::RpcCall>,
}

// In order of how often a file holds the word, so a file that wants the family is told
// so early (the order changes no answer, only how much text is read). Imported
// constants, wrappers and generated clients may be used anywhere, and a module of URL
// constants exports them: `import`, `export` and `require(` come first.
/// The family's gate words for JavaScript ([`super::Gate`]).
pub(crate) static JS_WORDS: super::Words = super::Words::new(&[
    "import",
    "export",
    "require(",
    "request",
    ".get",
    "fetch",
    ".delete",
    "url:",
    ".post",
    ".patch",
    ".put",
    "axios",
    "ky",
    "swr",
    "HttpClient",
    ".GET",
    ".POST",
    ".PUT",
    ".PATCH",
    ".DELETE",
    ".ajax(",
    ".getJSON(",
]);
/// The family's gate words for Python: helpers taking a path may be imported anywhere.
pub(crate) static PY_WORDS: super::Words = super::Words::new(&[
    "import", ".get", "requests", ".post", ".patch", ".put", "httpx", "aiohttp",
]);

impl Family for Calls {
    fn kinds(&self) -> &'static [&'static str] {
        &[
            "call_expression",
            "call",
            "variable_declarator",
            "assignment",
            "assignment_expression",
            "public_field_definition",
            "required_parameter",
            "optional_parameter",
            "export_statement",
            "as_pattern",
            "class_declaration",
            "abstract_class_declaration",
            "class",
            "class_definition",
            "function_declaration",
            "return_statement",
        ]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        match cx.syntax {
            Syntax::Python => PY_WORDS.any_in(cx),
            Syntax::JavaScript => JS_WORDS.any_in(cx),
            Syntax::Rust => false,
        }
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        match cx.syntax {
            Syntax::Python => match kind {
                "call" => self.call(node, cx, facts),
                "class_definition" => self.class(node, cx),
                "assignment" => {
                    self.constant(node, "left", "right", cx);
                    self.declaration(node, "left", "right", cx, facts);
                }
                "as_pattern" => {
                    // `with httpx.Client(base_url=…) as client:`
                    let alias = node.field("alias");
                    if let (Some(value), Some(alias)) = (node.named_child(0), alias) {
                        self.instance(text(alias, cx.source).to_owned(), value, cx, facts);
                    }
                }
                _ => {}
            },
            Syntax::JavaScript => match kind {
                "call_expression" => self.call(node, cx, facts),
                "class_declaration" | "abstract_class_declaration" | "class" => {
                    self.class(node, cx);
                }
                "function_declaration" => self.template_function(node, cx),
                "return_statement" => {
                    if let Some(value) = node.named_child(0) {
                        self.returned(value, None, cx, facts);
                    }
                }
                "variable_declarator" => {
                    libs_of(&mut self.libs, facts);
                    self.constant(node, "name", "value", cx);
                    self.declaration(node, "name", "value", cx, facts);
                    // `const useApi = () => useStaticApi({ … })`: an expression body is returned.
                    let arrow = cx.field(node, "value").map(unwrap_value);
                    let body = arrow.filter(|v| v.kind_name() == "arrow_function");
                    if let (Some(body), Some(name)) =
                        (body.and_then(|f| f.field("body")), cx.field(node, "name"))
                        && body.kind_name() != "statement_block"
                        && name.kind_name() == "identifier"
                    {
                        self.returned(body, Some(text(name, cx.source).to_owned()), cx, facts);
                    }
                }
                "assignment_expression" => {
                    libs_of(&mut self.libs, facts);
                    self.constant(node, "left", "right", cx);
                    self.declaration(node, "left", "right", cx, facts);
                }
                "public_field_definition" => {
                    libs_of(&mut self.libs, facts);
                    self.field(node, cx);
                    self.declaration(node, "name", "value", cx, facts);
                    let libs = libs_of(&mut self.libs, facts);
                    angular::field(node, cx.source, libs, &mut self.angular);
                }
                "required_parameter" | "optional_parameter" => {
                    let libs = libs_of(&mut self.libs, facts);
                    angular::parameter(node, cx.source, libs, &mut self.angular);
                    self.typed_parameter(node, cx);
                }
                "export_statement" => {
                    let value = node.field("value");
                    let is_default =
                        node.children(&mut node.walk()).any(|c| c.kind_name() == "default");
                    let declared = node.field("declaration").filter(|d| is_class(d.kind_name()));
                    if let (true, Some(class)) = (is_default, declared)
                        && let Some(name) = class.field("name")
                    {
                        self.aliases.push(("default".to_owned(), text(name, cx.source).to_owned()));
                    }
                    if let (true, Some(value)) = (is_default, value) {
                        if value.kind_name() == "identifier" {
                            let name = text(value, cx.source).to_owned();
                            self.aliases.push(("default".to_owned(), name.clone()));
                            self.default_exports.push(name);
                        } else {
                            self.instance("default".to_owned(), value, cx, facts);
                        }
                    }
                }
                _ => {}
            },
            Syntax::Rust => {}
        }
    }

    fn finish(&mut self, cx: &Context<'_>, facts: &mut FileFacts) {
        libs_of(&mut self.libs, facts);
        let libs = self.libs.take().expect("read above");
        if !self.factories.is_empty() {
            let made = self.factories.instances(&self.instances);
            self.instances.extend(made);
        }
        for name in std::mem::take(&mut self.default_exports) {
            if let Some(found) = self.instances.iter().find(|i| i.name == name).cloned() {
                self.instances.push(ClientInstance { name: "default".to_owned(), ..found });
            }
            // `export default useApi` of a factory: what `useApi` returns is `default()`.
            let returned = factories::returned_name(&name);
            if let Some(found) = self.instances.iter().find(|i| i.name == returned).cloned() {
                let name = factories::returned_name("default");
                self.instances.push(ClientInstance { name, ..found });
            }
        }
        let generated = self.is_generated(cx);
        let mut made = std::mem::take(&mut self.direct);
        for rpc in std::mem::take(&mut self.rpc) {
            if let Some(fact) = rpc.resolve(&self.instances, |n| libs.importing.contains(n)) {
                made.push((fact, Args::default(), None));
            }
        }
        for pending in std::mem::take(&mut self.pending) {
            match self.resolve(&pending, &libs, cx.syntax) {
                Some(fact) => {
                    if matches!(fact.client, CallClient::Imported { .. }) {
                        self.maybe_invocation(&pending, &libs, cx.syntax);
                    }
                    made.push((fact, pending.args, pending.scope));
                }
                None => self.maybe_invocation(&pending, &libs, cx.syntax),
            }
        }
        for (fact, args, scope) in made {
            let named = scope.as_deref().and_then(|s| s.name.clone().map(|n| (n, s)));
            if let Some((name, scope)) = &named
                && let Some(method) = wrappers::request_sink(&fact, &args, &scope.params, name)
            {
                facts.calls.wrappers.push(Wrapper {
                    name: name.clone(),
                    line: scope.line,
                    sink: Sink::Request { client: fact.client, method, url: fact.url },
                    generated,
                });
                continue;
            }
            if let Some((name, scope)) = &named
                && (generated || matches!(fact.client, CallClient::Library("openapi")))
            {
                facts.calls.wrappers.push(Wrapper {
                    name: name.clone(),
                    line: scope.line,
                    sink: Sink::Request {
                        client: fact.client.clone(),
                        method: fact.method.map_or(wrappers::WrapperMethod::Unknown, |m| {
                            wrappers::WrapperMethod::Known(m)
                        }),
                        url: fact.url.clone(),
                    },
                    generated: true,
                });
            }
            facts.calls.calls.push(fact);
        }
        let wrapper_names: HashSet<String> =
            facts.calls.wrappers.iter().map(|w| w.name.clone()).collect();
        let local: HashSet<&str> = self
            .objects
            .iter()
            .map(|o| o.name.as_str())
            .chain(self.aliases.iter().map(|(a, _)| a.split('.').next().unwrap_or(a)))
            .chain(self.classes.iter().map(|c| c.name.as_str()))
            .chain(wrapper_names.iter().map(|w| w.split('.').next().unwrap_or(w)))
            .collect();
        let mut invocations = Vec::new();
        for maybe in std::mem::take(&mut self.maybe) {
            let mut inv = maybe.invocation;
            let head = inv.callee.split('.').next().unwrap_or(&inv.callee);
            let reachable =
                maybe.imported || matches!(head, "this" | "super" | "self") || local.contains(head);
            if !reachable {
                // `App.fetch(…)` on a name the file neither declares nor imports: a global
                // another module publishes (`globals.rs`).
                let global = cx.syntax == Syntax::JavaScript
                    && inv.callee.contains('.')
                    && globals::may_be_published(head)
                    && !libs.importing.contains(head)
                    && !self
                        .declared
                        .get(head)
                        .copied()
                        .unwrap_or_else(|| declares(head, cx.source));
                if !global {
                    continue;
                }
                inv.callee = format!("window.{}", inv.callee);
            }
            // A parameter anywhere in an argument's URL: also one filling a whole segment
            // (`post(`/reports/${type}`)`), which a caller's literal names (see `resolve.rs`).
            let depends = inv.args.iter().any(|a| {
                a.param.is_some()
                    || a.method_param.is_some()
                    || a.parts.as_deref().is_some_and(holds_param)
            });
            if let Some(scope) = &maybe.scope
                && let Some(name) = &scope.name
                && (depends || generated)
            {
                facts.calls.wrappers.push(Wrapper {
                    name: name.clone(),
                    line: scope.line,
                    sink: Sink::Call(inv.clone()),
                    generated,
                });
            }
            invocations.push(inv);
        }
        facts.calls.calls.sort_by_key(|c| (c.line, c.column));
        invocations.sort_by_key(|c| (c.line, c.column));
        facts.calls.invocations = invocations.into();
        facts.calls.wrappers.sort_by(|a, b| (&a.name, a.line).cmp(&(&b.name, b.line)));
        facts.calls.clients = std::mem::take(&mut self.instances);
        facts.calls.classes = std::mem::take(&mut self.classes);
        facts.calls.objects = std::mem::take(&mut self.objects);
        facts.calls.aliases = std::mem::take(&mut self.aliases);
        // A name exported twice keeps its last definition: sorted stably by name, the last of
        // each run of one name wins (one pass, where a search per definition was quadratic in
        // a generated module's thousands of members).
        let mut constants = std::mem::take(&mut self.exported);
        constants.sort_by(|a, b| a.name.cmp(&b.name));
        constants.reverse();
        constants.dedup_by(|a, b| a.name == b.name);
        constants.reverse();
        facts.calls.constants = constants;
    }
}

fn is_class(kind: &str) -> bool {
    matches!(
        kind,
        "class_declaration" | "abstract_class_declaration" | "class" | "class_definition"
    )
}

impl Calls {
    /// The names a URL read in `scope` may use.
    fn env<'a>(&'a self, scope: Option<&'a scope::FnScope>) -> url::Env<'a> {
        url::Env {
            consts: Some(&self.constants),
            locals: scope.and_then(|s| self.locals.get(&s.id)),
            outer_locals: scope.and_then(|s| s.outer).and_then(|o| self.locals.get(&o)),
            params: scope.map_or(&[], |s| s.params.as_slice()),
            imported: self.libs.as_ref().map(|l| &l.importing),
            templates: Some(&self.templates),
            options: scope.and_then(|s| self.local_options.get(&s.id)),
            local_templates: scope.and_then(|s| {
                self.local_templates
                    .get(&s.id)
                    .or_else(|| s.outer.and_then(|o| self.local_templates.get(&o)))
            }),
        }
    }

    fn read_args(
        &self,
        arguments: Node<'_>,
        cx: &Context<'_>,
        scope: Option<&scope::FnScope>,
    ) -> Args {
        args::read(arguments, cx.source, &self.env(scope))
    }

    /// The positional arguments of a call that may be of a wrapper, read only when one may be
    /// worth keeping ([`args::glance`]), and whether it has a positional argument at all.
    fn wrapper_args(
        &self,
        arguments: Node<'_>,
        cx: &Context<'_>,
        scope: Option<&scope::FnScope>,
    ) -> (Vec<InvocationArg>, bool) {
        let env = self.env(scope);
        let glance = args::glance(arguments, cx, &env);
        let args = if glance.maybe_useful {
            args::read_positional(arguments, cx.source, &env)
        } else {
            Vec::new()
        };
        (args, glance.any)
    }

    /// The scope of the node being visited ([`scope::enclosing`]), read once per function.
    fn scope(&mut self, cx: &Context<'_>) -> Option<Rc<scope::FnScope>> {
        let key = scope::innermost_function(cx);
        if let Some((last, scope)) = &self.last_scope
            && *last == key
        {
            return scope.clone();
        }
        let scope = match self.scopes.get(&key) {
            Some(scope) => scope.clone(),
            None => {
                let scope = scope::enclosing(cx).map(Rc::new);
                self.scopes.insert(key, scope.clone());
                scope
            }
        };
        self.last_scope = Some((key, scope.clone()));
        scope
    }

    /// Whether `name` may be declared in this file as something a call of it can reach through
    /// the file's own facts: a function or class (`function name`, `class name`), or a binding
    /// (`name = …`, `name: T = …`). A call of a name the file never declares is kept only as a
    /// call of a wrapper when the name is imported, so reading its arguments is skipped. A fast
    /// path for speed: most calls in a frontend (`useState(x)`, `t("key")`) are of such names.
    /// Textual, so it may say yes for a name that is not declared, never no for one that is.
    fn may_be_declared(&mut self, name: &str, source: &str) -> bool {
        if let Some(&known) = self.declared.get(name) {
            return known;
        }
        let found = declares(name, source);
        self.declared.insert(name.to_owned(), found);
        found
    }

    fn is_generated(&mut self, cx: &Context<'_>) -> bool {
        *self.generated.get_or_insert_with(|| wrappers::is_generated(cx.path.as_str(), cx.source))
    }

    fn call(&mut self, node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
        let callee = cx.field(node, "function");
        let arguments = cx.field(node, "arguments");
        let (Some(mut callee), Some(arguments)) = (callee, arguments) else { return };
        // The TypeScript grammar parses `await api.get<T>(x)` as a call of `await api.get`.
        if callee.kind_name() == "await_expression"
            && let Some(inner) = callee.named_child(0)
        {
            callee = inner;
        }
        libs_of(&mut self.libs, facts);
        let (line, column) = position(node);
        type Found = Option<(Option<HttpMethod>, CallUrl)>;
        let direct = |this: &mut Self,
                      client: CallClient,
                      args: Args,
                      scope: Option<Rc<scope::FnScope>>,
                      found: Found| {
            if let Some((method, url)) = found {
                let fact = CallFact { line, column, client, method, url };
                this.direct.push((fact, args, scope));
            }
        };
        // `(retry ? withRetry(send) : send)(url, init)`: the function both branches call.
        if callee.kind_name() == "parenthesized_expression"
            && cx.syntax == Syntax::JavaScript
            && let Some(name) = decorated_callee(callee, cx.source)
        {
            let libs = self.libs.as_ref().expect("read above");
            let importing = libs.importing.contains(name);
            let scope = self.scope(cx);
            let (args, any) = self.wrapper_args(arguments, cx, scope.as_deref());
            self.invocation(line, column, name, args, any, scope, importing, cx.syntax);
            return;
        }
        match callee.kind_name() {
            "identifier" => {
                let name = text(callee, cx.source);
                if name == "fetch" {
                    let scope = self.scope(cx);
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    let found = fetch::interpret(&args);
                    let branches = match found {
                        Some((None, _)) => {
                            let env = self.env(scope.as_deref());
                            fetch::method_branches(arguments, cx.source, &env)
                                .or_else(|| self.paired_direct(node, cx, scope.as_deref()))
                        }
                        _ => None,
                    };
                    match branches {
                        Some(branches) => {
                            for (method, url) in branches {
                                let found = Some((Some(method), url));
                                let client = CallClient::Library("fetch");
                                direct(self, client, args.clone(), scope.clone(), found);
                            }
                        }
                        None => direct(self, CallClient::Library("fetch"), args, scope, found),
                    }
                    return;
                }
                if openapi::is_request_function(name) {
                    let scope = self.scope(cx);
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    let found = openapi::request_object(&args);
                    direct(self, CallClient::Library("openapi"), args, scope, found);
                    return;
                }
                let libs = self.libs.as_ref().expect("read above");
                if libs.swr.contains(name) {
                    let scope = self.scope(cx);
                    let args = swr::read(arguments, cx.source, &self.env(scope.as_deref()));
                    let found = swr::interpret(&args);
                    direct(self, CallClient::Library("swr"), args, scope, found);
                    return;
                }
                let imported = match cx.syntax {
                    Syntax::Python | Syntax::Rust => false,
                    Syntax::JavaScript => libs.imported.contains(name),
                };
                let wanted = libs.library_of_handle(name).is_some()
                    || imported
                    || self.instances.iter().any(|i| i.name == name);
                if wanted {
                    let scope = self.scope(cx);
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    self.pending.push(Pending {
                        line,
                        column,
                        receiver: name.to_owned(),
                        verb: None,
                        args,
                        scope,
                    });
                } else if has_url_like_argument(arguments, cx)
                    || libs.importing.contains(name)
                    // A function of this file may be a wrapper declared anywhere in it.
                    || (cx.syntax == Syntax::JavaScript
                        && arguments.named_child_count() > 0
                        && self.may_be_declared(name, cx.source))
                    || (cx.syntax == Syntax::JavaScript && self.is_generated(cx))
                {
                    let libs = self.libs.as_ref().expect("read above");
                    let importing = libs.importing.contains(name);
                    let scope = self.scope(cx);
                    let (args, any) = self.wrapper_args(arguments, cx, scope.as_deref());
                    for args in self.paired_args(node, args, cx, scope.as_deref()) {
                        let scope = scope.clone();
                        self.invocation(line, column, name, args, any, scope, importing, cx.syntax);
                    }
                }
            }
            "member_expression" | "attribute" => {
                let object = callee.field("object");
                let property = callee.field("property").or_else(|| callee.field("attribute"));
                let (Some(object), Some(property)) = (object, property) else { return };
                let receiver = text(object, cx.source);
                let verb = text(property, cx.source);
                if let Some(method) =
                    hono_rpc::method(verb).filter(|_| cx.syntax == Syntax::JavaScript)
                {
                    self.rpc.extend(hono_rpc::read(object, method, (line, column), cx.source));
                    return;
                }
                if cx.syntax == Syntax::JavaScript
                    && jquery::is_request(receiver, verb, &facts.imports)
                {
                    let scope = self.scope(cx);
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    let found = jquery::interpret(verb, &args, arguments, cx.source);
                    direct(self, CallClient::Library("jquery"), args, scope, found);
                    return;
                }
                if cx.syntax == Syntax::JavaScript
                    && !is_verb(verb)
                    && !openapi::is_upper_verb(verb)
                    && request_object::may_be(arguments, cx.source)
                {
                    let scope = self.scope(cx);
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    let found = request_object::interpret(&args);
                    if found.is_some() {
                        let client = CallClient::Library("request object");
                        direct(self, client, args, scope, found);
                        return;
                    }
                }
                let is_fetch = verb == "fetch"
                    && cx.syntax == Syntax::JavaScript
                    && matches!(receiver, "window" | "globalThis" | "self");
                let wanted = is_fetch || openapi::is_upper_verb(verb) || is_verb(verb);
                let scope = if wanted { self.scope(cx) } else { None };
                if is_fetch {
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    let found = fetch::interpret(&args);
                    direct(self, CallClient::Library("fetch"), args, scope, found);
                } else if openapi::is_upper_verb(verb) {
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    let found = openapi::fetch_style(verb, &args);
                    direct(self, CallClient::Library("openapi"), args, scope, found);
                } else if is_verb(verb) {
                    let args = self.read_args(arguments, cx, scope.as_deref());
                    self.pending.push(Pending {
                        line,
                        column,
                        receiver: receiver.to_owned(),
                        verb: Some(verb.to_owned()),
                        args,
                        scope,
                    });
                } else if let Some(class) = constructed_class(object, cx.source) {
                    // `new ItemsApi().itemsList(…)`: a method of the class.
                    let libs = self.libs.as_ref().expect("read above");
                    let head = class.split('.').next().unwrap_or(&class);
                    let importing = libs.importing.contains(head);
                    let scope = self.scope(cx);
                    let (args, any) = self.wrapper_args(arguments, cx, scope.as_deref());
                    let callee = format!("{class}.{verb}");
                    self.invocation(line, column, &callee, args, any, scope, importing, cx.syntax);
                } else if is_dotted(receiver) {
                    let libs = self.libs.as_ref().expect("read above");
                    let head = receiver.split('.').next().unwrap_or(receiver);
                    // A method of a class instance of this file (`const api = new ItemsApi();
                    // api.itemsList(…)`) may be a wrapper in the class's module.
                    let on_object =
                        !receiver.contains('.') && self.objects.iter().any(|o| o.name == receiver);
                    let importing = libs.importing.contains(head) || on_object;
                    let on_self = matches!(head, "this" | "self" | "super") || on_object;
                    let javascript = cx.syntax == Syntax::JavaScript;
                    let generated = javascript && self.is_generated(cx);
                    if !(on_self
                        || generated
                        || has_url_like_argument(arguments, cx)
                        || (importing && javascript))
                    {
                        return;
                    }
                    let scope = self.scope(cx);
                    let (args, any) = self.wrapper_args(arguments, cx, scope.as_deref());
                    let callee = format!("{receiver}.{verb}");
                    for args in self.paired_args(node, args, cx, scope.as_deref()) {
                        let scope = scope.clone();
                        self.invocation(
                            line, column, &callee, args, any, scope, importing, cx.syntax,
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// `send(url, { method })` with its URL and method assigned together in the branches of an
    /// `if` before it ([`paired`]): the arguments of each branch, the URL and the method set;
    /// the arguments as they are for any other call.
    fn paired_args(
        &self,
        node: Node<'_>,
        args: Vec<InvocationArg>,
        cx: &Context<'_>,
        scope: Option<&scope::FnScope>,
    ) -> Vec<Vec<InvocationArg>> {
        let unknown = args
            .get(1)
            .is_some_and(|o| o.options == Some(OptionsMethod::Unknown) && o.method_param.is_none());
        if cx.syntax != Syntax::JavaScript || !unknown || args.is_empty() {
            return vec![args];
        }
        let Some(pairs) = paired::branches(node, cx, &self.env(scope)) else {
            return vec![args];
        };
        if pairs.iter().any(|(_, parts)| holds_param(parts)) {
            return vec![args];
        }
        pairs
            .into_iter()
            .map(|(method, parts)| {
                let mut branch = args.clone();
                let url = &mut branch[0];
                url.parts = Some(parts);
                url.literal = None;
                url.param = None;
                branch[1].options = Some(OptionsMethod::Known(method));
                branch
            })
            .collect()
    }

    /// A direct `fetch(url, { method })` read per branch as [`Self::paired_args`] reads a
    /// wrapper's invocation.
    fn paired_direct(
        &self,
        node: Node<'_>,
        cx: &Context<'_>,
        scope: Option<&scope::FnScope>,
    ) -> Option<Vec<(HttpMethod, CallUrl)>> {
        let pairs = paired::branches(node, cx, &self.env(scope))?;
        if pairs.iter().any(|(_, parts)| holds_param(parts)) {
            return None;
        }
        Some(
            pairs
                .into_iter()
                .map(|(method, parts)| (method, url::deferred_or(parts, url::Role::Call)))
                .collect(),
        )
    }

    /// Keeps a call that may be of a wrapper, when it can matter: its callee is imported (in
    /// JavaScript, where generated clients are called without a URL), or an argument is URL-like.
    #[allow(clippy::too_many_arguments)]
    fn invocation(
        &mut self,
        line: u32,
        column: u32,
        callee: &str,
        mut args: Vec<InvocationArg>,
        has_args: bool,
        scope: Option<Rc<scope::FnScope>>,
        imported: bool,
        syntax: Syntax,
    ) {
        args.truncate(args::KEPT);
        let useful = args.iter().any(InvocationArg::useful);
        let local_function = !callee.contains('.') && has_args;
        let keep = match syntax {
            Syntax::JavaScript => {
                useful || imported || local_function || self.generated == Some(true)
            }
            Syntax::Python | Syntax::Rust => useful,
        };
        if !keep {
            return;
        }
        let args = if useful { args } else { Vec::new() };
        let class = scope.as_deref().and_then(|s| s.class.clone());
        let callee = match callee.split_once('.') {
            Some(("self", rest)) => format!("this.{rest}"),
            _ => callee.to_owned(),
        };
        let invocation = Invocation { line, column, callee, class, args };
        self.maybe.push(MaybeInvocation { invocation, scope, imported });
    }

    /// A pending call that is not on a client may still be of a wrapper (`this.get(url)`).
    fn maybe_invocation(&mut self, p: &Pending, libs: &Libraries, syntax: Syntax) {
        let callee = match &p.verb {
            Some(verb) => format!("{}.{verb}", p.receiver),
            None => p.receiver.clone(),
        };
        if !is_dotted(&callee) {
            return;
        }
        let head = p.receiver.split('.').next().unwrap_or(&p.receiver);
        let imported = libs.importing.contains(head);
        let has_args = !p.args.positional.is_empty();
        self.invocation(
            p.line,
            p.column,
            &callee,
            p.args.positional.iter().map(InvocationArg::of).collect(),
            has_args,
            p.scope.clone(),
            imported,
            syntax,
        );
    }

    /// A class and what it extends.
    fn class(&mut self, node: Node<'_>, cx: &Context<'_>) {
        if let Some((name, extends)) = scope::class_heritage(node, cx.source) {
            self.classes.push(ClassFact { name, extends });
        }
    }

    /// `constructor(private api: ApiService)`: `this.api` holds an `ApiService`.
    fn typed_parameter(&mut self, node: Node<'_>, cx: &Context<'_>) {
        let mut cursor = node.walk();
        let property = node
            .children(&mut cursor)
            .any(|c| matches!(c.kind_name(), "accessibility_modifier" | "readonly"));
        let (Some(name), Some(typed)) = (node.field("pattern"), node.field("type")) else {
            return;
        };
        if !property {
            return;
        }
        let class = text(typed, cx.source).trim_start_matches(':').trim();
        if !is_class_name(class) {
            return;
        }
        let scope = self.scope(cx).and_then(|s| s.class.clone());
        let name = format!("this.{}", text(name, cx.source));
        self.objects.push(ClassInstance { name, class: class.to_owned(), scope });
    }

    /// A class field: `url = "/api/x"` (`this.url`), `static BASE = …` (`Class.BASE`),
    /// `api: ApiService` or `api = new ApiService()` (an instance).
    fn field(&mut self, node: Node<'_>, cx: &Context<'_>) {
        let Some(name) = node.field("name") else { return };
        let name = text(name, cx.source);
        let class = cx.ancestry().iter().rev().find(|n| is_class(n.kind_name()));
        let class = class.and_then(|c| c.field("name")).map(|n| text(n, cx.source).to_owned());
        let mut cursor = node.walk();
        let is_static = node.children(&mut cursor).any(|c| c.kind_name() == "static");
        if let Some(typed) = node.field("type") {
            let ty = text(typed, cx.source).trim_start_matches(':').trim();
            if is_class_name(ty) {
                let name = format!("this.{name}");
                self.objects.push(ClassInstance {
                    name,
                    class: ty.to_owned(),
                    scope: class.clone(),
                });
            }
        }
        let Some(value) = node.field("value") else { return };
        if let Some(ty) = constructed_class(value, cx.source) {
            let name = format!("this.{name}");
            self.objects.push(ClassInstance { name, class: ty, scope: class });
            return;
        }
        if matches!(value.kind_name(), "arrow_function" | "function_expression") {
            return;
        }
        let key = match (&class, is_static) {
            (Some(class), true) => format!("{class}.{name}"),
            _ => format!("this.{name}"),
        };
        let parts = url::parts(value, cx.source, &self.env(None));
        url::record_constant(&mut self.constants, &key, parts.clone());
        if is_static && let Some(parts) = parts {
            self.export_constant(&key, node, parts);
        }
    }

    fn export_constant(&mut self, name: &str, node: Node<'_>, parts: Vec<Part>) {
        // Only what the file itself would substitute: a value with a literal in it.
        if !matches!(self.constants.get(name), Some(Some(_)))
            || parts.iter().any(|p| matches!(p, Part::Hole(h) if h.arg.is_some()))
        {
            return;
        }
        let line = node.start_position().row as u32 + 1;
        self.exported.push(UrlConstant { name: name.to_owned(), line, parts });
    }

    /// `function itemUrl(id) { return `/items/${id}` }` at module level: a URL template.
    fn template_function(&mut self, node: Node<'_>, cx: &Context<'_>) {
        if !is_module_level(node, cx) {
            return;
        }
        let Some(name) = node.field("name") else { return };
        let name = text(name, cx.source).to_owned();
        let exported = cx.parent(node).is_some_and(|p| p.kind_name() == "export_statement");
        self.record_template(&name, node, cx, exported);
    }

    /// Records a function returning a URL (an arrow function with an expression body, or a body
    /// that is one `return`) under `name`.
    /// An exported one is offered to other modules too (`buildPath(path, params)` there).
    fn record_template(
        &mut self,
        name: &str,
        function: Node<'_>,
        cx: &Context<'_>,
        exported: bool,
    ) {
        let Some(returned) = returned_url(function) else { return };
        let params = function_params(function, cx.source);
        let env = url::Env { params: &params, ..self.env(None) };
        let parts = url::parts(returned, cx.source, &env);
        // `(path) => `${getBasePath()}${path}``: a configured base before the path is a URL
        // template too, though it writes no literal.
        let based = |p: &[Part]| {
            matches!(p, [Part::Hole(base), Part::Hole(path)]
                if base.config && base.arg.is_none() && path.arg.is_some())
        };
        let useful = parts.as_deref().is_some_and(|p| choices::has_literal(p) || based(p));
        let parts = if useful { parts } else { None };
        if exported && let Some(parts) = &parts {
            let line = function.start_position().row as u32 + 1;
            self.exported.push(UrlConstant { name: name.to_owned(), line, parts: parts.clone() });
        }
        let slot = self.templates.entry(name.to_owned()).or_insert(None);
        *slot = parts;
    }

    /// A module-level `const NAME = "…"` / `NAME = f"…"`: remembered for URLs that use it; an
    /// object literal's members too (`routes.base`), and functions returning a URL. In a
    /// function, a local `const url = base + path` is remembered for that function.
    fn constant(
        &mut self,
        node: Node<'_>,
        name_field: &'static str,
        value_field: &'static str,
        cx: &Context<'_>,
    ) {
        let (Some(name), Some(value)) = (cx.field(node, name_field), cx.field(node, value_field))
        else {
            return;
        };
        let module_level = is_module_level(node, cx);
        if cx.syntax == Syntax::JavaScript
            && let Some(alias) = globals::alias(name, value, module_level, cx.source)
        {
            self.aliases.push(alias);
            return;
        }
        if name.kind_name() == "member_expression" && !module_level {
            // `this.url = "/api/x"` in a constructor: a field of the class, when it holds no
            // parameter (whose value differs per instance).
            let name = text(name, cx.source);
            if name.starts_with("this.") && is_dotted(name) {
                let parts = url::parts(value, cx.source, &self.env(None));
                url::record_constant(&mut self.constants, name, parts);
            }
            return;
        }
        if name.kind_name() == "object_pattern" {
            self.destructured(name, value, cx);
            return;
        }
        if name.kind_name() != "identifier" {
            return;
        }
        let name = text(name, cx.source).to_owned();
        if node.kind_name() == "assignment_expression" && module_level {
            return;
        }
        if !module_level {
            let function = unwrap_value(value);
            if matches!(function.kind_name(), "arrow_function" | "function_expression") {
                self.local_template(&name, function, cx);
                return;
            }
            if function.kind_name() == "object" {
                self.local_options(node, &name, function, cx);
                return;
            }
            // `const url = buildUrl("api/items", params)` with `buildUrl` imported: a call the
            // link half expands when its module exports it as a URL template.
            let imported_call = value.kind_name() == "call_expression"
                && value
                    .field("arguments")
                    .and_then(|a| a.named_child(0))
                    .is_some_and(|first| is_stringish(unwrap_value(first)))
                && factories::called_function(value, cx.source)
                    .is_some_and(|f| self.libs.as_ref().is_some_and(|l| l.importing.contains(f)));
            if !may_hold_url(value) && !imported_call {
                return;
            }
            let Some(scope) = self.scope(cx) else { return };
            let parts = url::parts(value, cx.source, &self.env(Some(&scope)));
            let locals = self.locals.entry(scope.id).or_default();
            // `let url; if (a) { url = x } else { url = base + x }`: one value per branch. A
            // value built from the name itself (`url = base + url`) replaces it instead.
            let assigned = node.kind_name() == "assignment_expression";
            let itself = assigned && mentions(value, &name, cx.source);
            if assigned && !itself && locals.get(&name).is_some_and(Option::is_some) {
                let before = locals.get(&name).cloned().flatten();
                let merged = before.zip(parts).and_then(|(a, b)| choices::either(a, b));
                locals.insert(name, merged);
                return;
            }
            if itself {
                locals.remove(&name);
            }
            url::record_constant(locals, &name, parts);
            return;
        }
        // Only `const` bindings keep their value; a `let` or `var` may be reassigned anywhere.
        let constant = node.kind_name() != "variable_declarator" || is_const_declarator(node, cx);
        if !constant {
            return;
        }
        let exported =
            cx.ancestry().iter().rev().take(4).any(|n| n.kind_name() == "export_statement");
        let value = unwrap_value(value);
        match value.kind_name() {
            "arrow_function" | "function_expression" => {
                self.record_template(&name, value, cx, exported);
            }
            "object" => self.object(&name, value, cx, exported, 0),
            kind if !exported && is_opaque(kind) => {
                url::record_constant(&mut self.constants, &name, None);
            }
            _ => {
                let parts = url::parts(value, cx.source, &self.env(None));
                url::record_constant(&mut self.constants, &name, parts.clone());
                if exported && let Some(parts) = parts {
                    self.export_constant(&name, node, parts);
                }
            }
        }
    }

    /// `const { get, post: send } = useApi()`: `get` and `send` are the members of what the
    /// function returns, `useApi.get` and `useApi.post` (see `scope.rs`).
    fn destructured(&mut self, pattern: Node<'_>, value: Node<'_>, cx: &Context<'_>) {
        let value = unwrap_value(value);
        if value.kind_name() != "call_expression" {
            return;
        }
        let Some(callee) = value.field("function").filter(|c| c.kind_name() == "identifier") else {
            return;
        };
        let callee = text(callee, cx.source);
        // `const { data } = useSWR(…)`: a library's result, no function of the project.
        // `const { get } = require("./http")` binds an import, read as such.
        let libs = self.libs.as_ref();
        if callee == "require"
            || libs.is_some_and(|l| l.swr.contains(callee) || l.library_of_handle(callee).is_some())
        {
            return;
        }
        let mut cursor = pattern.walk();
        for member in pattern.named_children(&mut cursor) {
            let (key, local) = match member.kind_name() {
                "shorthand_property_identifier_pattern" => (member, member),
                "pair_pattern" => match (member.field("key"), member.field("value")) {
                    (Some(k), Some(v)) if v.kind_name() == "identifier" => (k, v),
                    _ => continue,
                },
                _ => continue,
            };
            let local = text(local, cx.source).to_owned();
            if libs.is_some_and(|l| l.importing.contains(&local)) {
                continue;
            }
            self.aliases.push((local, format!("{callee}.{}", text(key, cx.source))));
        }
    }

    /// `const options = { method: "POST", … }` in a function: the request options a call of the
    /// same function may pass by name (see [`args::arg`]). Only a `const` declaration, whose
    /// object is the one every use sees; an object that names no `method`, `url` or base is
    /// no request's options.
    fn local_options(&mut self, node: Node<'_>, name: &str, object: Node<'_>, cx: &Context<'_>) {
        let written = text(object, cx.source);
        if !["method", "url", "baseURL", "prefixUrl", "baseUrl"].iter().any(|k| written.contains(k))
        {
            return;
        }
        let constant = node.kind_name() == "variable_declarator" && is_const_declarator(node, cx);
        if !constant {
            return;
        }
        let Some(scope) = self.scope(cx) else { return };
        let options = args::object_arg(object, cx.source, &self.env(Some(&scope)));
        self.local_options.entry(scope.id).or_default().insert(name.to_owned(), options);
    }

    /// `const getUrl = (url) => `${base}/api${url}`` inside a function: a URL template for the
    /// calls of that function and of the functions inside it.
    fn local_template(&mut self, name: &str, function: Node<'_>, cx: &Context<'_>) {
        let Some(returned) = returned_url(function) else { return };
        let Some(scope) = self.scope(cx) else { return };
        let params = function_params(function, cx.source);
        let env = url::Env { params: &params, ..self.env(Some(&scope)) };
        let parts = url::parts(returned, cx.source, &env);
        let parts = parts.filter(|p| choices::has_literal(p));
        let templates = self.local_templates.entry(scope.id).or_default();
        match templates.get_mut(name) {
            Some(slot) => *slot = None,
            None => {
                templates.insert(name.to_owned(), parts);
            }
        }
    }

    /// The members of a module-level object literal: URL constants, URL templates, and aliases
    /// of other names (`{ fetch }`, `{ api: API }`); nested objects two levels deep.
    fn object(
        &mut self,
        name: &str,
        object: Node<'_>,
        cx: &Context<'_>,
        exported: bool,
        depth: u8,
    ) {
        let mut cursor = object.walk();
        for member in object.named_children(&mut cursor) {
            match member.kind_name() {
                "shorthand_property_identifier" => {
                    let key = text(member, cx.source);
                    self.aliases.push((format!("{name}.{key}"), key.to_owned()));
                }
                "pair" => {
                    let (Some(key), Some(value)) = (member.field("key"), member.field("value"))
                    else {
                        continue;
                    };
                    let Some(key) = crate::syntax::javascript::property_key(key, cx.source) else {
                        continue;
                    };
                    let full = format!("{name}.{key}");
                    let value = unwrap_value(value);
                    match value.kind_name() {
                        "arrow_function" | "function_expression" => {
                            self.record_template(&full, value, cx, exported);
                        }
                        "object" if depth < 2 => self.object(&full, value, cx, exported, depth + 1),
                        "identifier" | "member_expression"
                            if is_dotted(text(value, cx.source))
                                && !self.constants.contains_key(text(value, cx.source)) =>
                        {
                            self.aliases.push((full, text(value, cx.source).to_owned()));
                        }
                        kind if !exported && is_opaque(kind) => {
                            url::record_constant(&mut self.constants, &full, None);
                        }
                        _ => {
                            let parts = url::parts(value, cx.source, &self.env(None));
                            url::record_constant(&mut self.constants, &full, parts.clone());
                            if exported && let Some(parts) = parts {
                                self.export_constant(&full, member, parts);
                            }
                        }
                    }
                }
                "method_definition" => {
                    if let Some(key) = member.field("name") {
                        let full = format!("{name}.{}", text(key, cx.source));
                        self.record_template(&full, member, cx, exported);
                    }
                }
                _ => {}
            }
        }
    }

    /// `const api = axios.create(…)`, `self.client = httpx.Client(…)`, `http = inject(HttpClient)`.
    fn declaration(
        &mut self,
        node: Node<'_>,
        name_field: &'static str,
        value_field: &'static str,
        cx: &Context<'_>,
        facts: &FileFacts,
    ) {
        let (Some(name), Some(value)) = (cx.field(node, name_field), cx.field(node, value_field))
        else {
            return;
        };
        if !matches!(
            name.kind_name(),
            "identifier" | "property_identifier" | "member_expression" | "attribute"
        ) {
            return;
        }
        let mut name = text(name, cx.source).to_owned();
        if node.kind_name() == "public_field_definition" {
            name = format!("this.{name}");
        }
        match cx.syntax {
            Syntax::Python => {
                // `client = ApiClient()`, `self.api = Api(base)`: an instance of a class.
                if value.kind_name() == "call"
                    && let Some(callee) = value.field("function")
                    && is_class_name(text(callee, cx.source))
                {
                    let class = text(callee, cx.source).to_owned();
                    let scope = self.scope(cx).and_then(|s| s.class.clone());
                    let name = name.replacen("self.", "this.", 1);
                    self.objects.push(ClassInstance { name, class, scope });
                }
            }
            Syntax::JavaScript => {
                let libs = libs_of(&mut self.libs, facts);
                angular::injected(&name, value, cx.source, libs, &mut self.angular);
                if let Some(class) = constructed_class(value, cx.source) {
                    let scope = self.scope(cx).and_then(|s| s.class.clone());
                    self.objects.push(ClassInstance { name: name.clone(), class, scope });
                }
                // `const api = useApi()`: a client when `useApi` is a client factory, imported
                // or of this file (which then uses a client library).
                let called = unwrap_value(value);
                let libs = libs_of(&mut self.libs, facts);
                if called.kind_name() == "call_expression"
                    && let Some(function) = factories::called_function(called, cx.source)
                    && libs.library_of_handle(function).is_none()
                    && (libs.importing.contains(function) || factories::may_make_clients(libs))
                {
                    self.factories.bind(&name, function);
                }
            }
            Syntax::Rust => {}
        }
        self.instance(name, value, cx, facts);
    }

    /// Records `name` as a client instance when `value` constructs one.
    fn instance(&mut self, name: String, value: Node<'_>, cx: &Context<'_>, facts: &FileFacts) {
        let mut value = factories::memoised(unwrap_value(value), cx.source);
        while matches!(value.kind_name(), "await_expression" | "await" | "parenthesized_expression")
        {
            match value.named_child(0) {
                Some(inner) => value = inner,
                None => return,
            }
        }
        if !matches!(value.kind_name(), "call_expression" | "call") {
            return;
        }
        let (Some(callee), Some(arguments)) = (value.field("function"), value.field("arguments"))
        else {
            return;
        };
        let callee_text = text(callee, cx.source);
        let library = match libs_of(&mut self.libs, facts).constructed_by(callee_text) {
            Some(lib) => lib,
            // `api.extend({ … })` on a ky instance makes another instance.
            None => {
                let Some((receiver, member)) = callee_text.rsplit_once('.') else { return };
                match self.instances.iter().find(|i| i.name == receiver) {
                    Some(parent) if is_constructor(parent.library, member) => parent.library,
                    _ => return,
                }
            }
        };
        let scope = self.scope(cx);
        let args = self.read_args(arguments, cx, scope.as_deref());
        let base = match library {
            "axios" => axios::base(&args),
            "ky" => ky::base(&args),
            "httpx" => httpx::base(&args),
            "aiohttp" => aiohttp::base(&args),
            hono_rpc::LIBRARY => hono_rpc::base(&args),
            _ => None,
        };
        // A base given to the enclosing constructor or function (`axios.create({ baseURL })`
        // with `baseURL` a parameter) differs per instance: a base of unknown value.
        let base = base.map(|b| match b {
            CallUrl::Deferred { .. } => CallUrl::Path {
                path: "/".to_owned(),
                stripped: Some(StrippedBase {
                    description: "a base URL given as a parameter".to_owned(),
                    known_value: false,
                    default_path: None,
                    relative: false,
                }),
            },
            b => b,
        });
        self.instances.retain(|i| i.name != name);
        self.instances.push(ClientInstance { name, library, base });
    }

    /// Decides whether a pending call is made on a client, and reads it.
    fn resolve(&self, p: &Pending, libs: &Libraries, syntax: Syntax) -> Option<CallFact> {
        let verb = p.verb.as_deref();
        let (client, found) = if let Some(lib) = libs.library_of_handle(&p.receiver) {
            (CallClient::Library(lib), interpret(lib, verb, &p.args))
        } else if let Some(instance) = self.instances.iter().find(|i| i.name == p.receiver) {
            let found = interpret(instance.library, verb, &p.args);
            (CallClient::Instance(instance.clone()), found)
        } else if self.angular.contains(&p.receiver) {
            (CallClient::Library("angular"), angular::interpret(verb, &p.args))
        } else if is_imported_receiver(&p.receiver, libs) {
            let found = match syntax {
                Syntax::Python => requests::interpret(verb, &p.args),
                Syntax::JavaScript => axios::interpret(verb, &p.args),
                Syntax::Rust => None,
            };
            // A direct call of an imported function is taken only with a readable URL: most are
            // plain functions (`inject(HttpClient)`, `httpGet(url)`), not client instances, and
            // a call of one with a URL read later is followed as a possible wrapper instead.
            if verb.is_none()
                && matches!(
                    found,
                    Some((_, CallUrl::Computed { .. } | CallUrl::Deferred { .. })) | None
                )
            {
                return None;
            }
            (CallClient::Imported { receiver: p.receiver.clone() }, found)
        } else {
            match syntax {
                Syntax::Python => return None,
                // `const api = useApi(); api.get(…)`: a request on what a client factory returns.
                Syntax::JavaScript
                    if verb.is_some() && self.factories.result_of(&p.receiver).is_some() =>
                {
                    let function = self.factories.result_of(&p.receiver).expect("checked");
                    let name = factories::returned_name(function);
                    if let Some(instance) = self.instances.iter().find(|i| i.name == name) {
                        let found = interpret(instance.library, verb, &p.args);
                        (CallClient::Instance(instance.clone()), found)
                    } else if libs.importing.contains(function) {
                        let found = axios::interpret(verb, &p.args);
                        (CallClient::Imported { receiver: name }, found)
                    } else {
                        return None;
                    }
                }
                Syntax::JavaScript if p.receiver == "this" && verb == Some("request") => {
                    if let Some(found) = swagger::operation_request(&p.args) {
                        (CallClient::Library("openapi"), Some(found))
                    } else if self.generated != Some(true) {
                        return None;
                    } else {
                        (CallClient::Library("openapi"), openapi::base_api_request(&p.args))
                    }
                }
                Syntax::JavaScript => {
                    (CallClient::Library("openapi"), openapi::client_object(verb, &p.args))
                }
                Syntax::Rust => return None,
            }
        };
        let (method, url) = found?;
        Some(CallFact { line: p.line, column: p.column, client, method, url })
    }
}

/// A `const` declaration's declarator: its value is the one every use sees.
fn is_const_declarator(declarator: Node<'_>, cx: &Context<'_>) -> bool {
    cx.parent(declarator).is_some_and(|p| text(p, cx.source).starts_with("const"))
}

/// True when `source` has `name` as a whole word after `function`, `function*`, `class` or `:`,
/// or followed by `=` (not `==` or `=>`), `:`, or the `,`, `}` or `]` of a destructuring pattern
/// (see [`Calls::may_be_declared`]).
fn declares(name: &str, source: &str) -> bool {
    let bytes = source.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    memchr::memmem::find_iter(bytes, name.as_bytes()).any(|at| {
        let end = at + name.len();
        if at > 0 && is_word(bytes[at - 1]) || bytes.get(end).is_some_and(|&b| is_word(b)) {
            return false;
        }
        let before = source[..at].trim_end();
        let keyword = ["function", "function*", "class"].iter().any(|k| {
            before.ends_with(k)
                && !before[..before.len() - k.len()].bytes().next_back().is_some_and(is_word)
        });
        let after = source[end..].trim_start().as_bytes();
        let binds = match after {
            [b'=', b'=' | b'>', ..] => false,
            [b'=' | b':', ..] | [b'!' | b'?', b':', ..] => true,
            // A name in a destructuring pattern: `const { get, post } = useApi()`.
            [b',' | b'}' | b']', ..] => true,
            _ => false,
        };
        let renamed = before.ends_with(':');
        keyword || binds || renamed
    })
}

/// What a function returns when it may be a URL: an expression body, or a body that is one
/// `return` after at most a few `const` declarations (`const qs = query(params); return qs ?
/// `${path}?${qs}` : path`), when it is a string, template, concatenation or conditional.
fn returned_url(function: Node<'_>) -> Option<Node<'_>> {
    let body = function.field("body")?;
    let returned = if body.kind_name() == "statement_block" {
        let mut cursor = body.walk();
        let statements: Vec<Node<'_>> = body
            .named_children(&mut cursor)
            .filter(|c| c.kind_name() != "comment")
            .take(5)
            .collect();
        match statements.split_last() {
            Some((last, before))
                if last.kind_name() == "return_statement"
                    && before.iter().all(|s| s.kind_name() == "lexical_declaration") =>
            {
                last.named_child(0)
            }
            _ => None,
        }
    } else {
        Some(body)
    };
    let returned = unwrap_value(returned?);
    matches!(
        returned.kind_name(),
        "template_string" | "binary_expression" | "string" | "ternary_expression"
    )
    .then_some(returned)
}

/// True when `name` appears as a word in the node's text (`url` in `base + url`).
fn mentions(node: Node<'_>, name: &str, source: &str) -> bool {
    let t = text(node, source);
    t.match_indices(name).any(|(i, _)| {
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        let before = t[..i].chars().next_back().is_none_or(|c| !word(c) && c != '.');
        let after = t[i + name.len()..].chars().next().is_none_or(|c| !word(c));
        before && after
    })
}

/// `(c ? f : g(f))`, `(c ? g(f) : f)`, `(c ? f : f)`: `f`, a function called either as it is or
/// through a decorator that returns a function calling it (`fetch-retry`'s `retry(f)`).
fn decorated_callee<'s>(callee: Node<'_>, source: &'s str) -> Option<&'s str> {
    let ternary = unwrap_value(callee);
    if ternary.kind_name() != "ternary_expression" {
        return None;
    }
    let branch = |node: Node<'_>| -> Option<&'s str> {
        let node = unwrap_value(node);
        match node.kind_name() {
            "identifier" => Some(text(node, source)),
            "call_expression" => {
                let arguments = node.field("arguments")?;
                if arguments.named_child_count() != 1 {
                    return None;
                }
                let only = arguments.named_child(0)?;
                (only.kind_name() == "identifier").then(|| text(only, source))
            }
            _ => None,
        }
    };
    let a = branch(ternary.field("consequence")?)?;
    let b = branch(ternary.field("alternative")?)?;
    (a == b).then_some(a)
}

/// True when a parameter of the enclosing function is among the parts, or in a conditional or
/// call among them.
fn holds_param(parts: &[Part]) -> bool {
    parts.iter().any(|p| matches!(p, Part::Hole(h) if h.arg.is_some() || choices::holds_arg(h)))
}

/// True when an argument is a string, a template or a concatenation that can hold a URL or a
/// path piece: it has a `/` in it. A wrapper's URL is a path (`"/api/x"`, `` `${base}/x` ``); a
/// string without a slash (`log.info("done")`, `d.get("key")`, the great majority of calls with
/// a string) is not one, and reading such calls as possible wrapper invocations is what would
/// cost.
fn has_url_like_argument(arguments: Node<'_>, cx: &Context<'_>) -> bool {
    // Most argument lists have no slash at all: one scan of their text, and no cursor.
    if !text(arguments, cx.source).contains('/') {
        return false;
    }
    let mut cursor = arguments.walk();
    arguments
        .named_children(&mut cursor)
        .any(|a| is_stringish_kind(cx.kind(a)) && text(a, cx.source).contains('/'))
}

/// A string, template or concatenation: an expression that flattens to URL parts.
fn is_stringish(node: Node<'_>) -> bool {
    is_stringish_kind(node.kind_name())
}

fn is_stringish_kind(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "template_string"
            | "binary_expression"
            | "binary_operator"
            | "concatenated_string"
    )
}

/// Whether a function-local assignment's value can be a URL constant worth remembering: a
/// string, template or concatenation (`config.urlRoot + path`), a conditional choosing between
/// such values (one URL per branch, see `choices.rs`), or a name (an alias of a constant). Any
/// other value (a call, a number) flattens to nothing useful.
fn may_hold_url(node: Node<'_>) -> bool {
    is_stringish(node)
        || matches!(node.kind_name(), "identifier" | "member_expression" | "ternary_expression")
}

/// A value whose URL parts are one plain hole that no constant keeps (a collection, a number,
/// a function, an operator other than concatenation): recorded as assigned without reading it.
/// A fast path for speed: reading a large dictionary as a URL scans its text several times.
fn is_opaque(kind: &str) -> bool {
    matches!(
        kind,
        "dictionary"
            | "list"
            | "tuple"
            | "set"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "lambda"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "subscript"
            | "comparison_operator"
            | "not_operator"
            | "unary_operator"
            | "array"
            | "number"
            | "null"
            | "undefined"
            | "regex"
            | "class"
            | "unary_expression"
            | "subscript_expression"
    )
}

/// `x`, `this.api`, `a.b.c`: a name callers can follow.
fn is_dotted(t: &str) -> bool {
    !t.is_empty()
        && t.split('.').all(|seg| {
            let mut chars = seg.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

/// `ApiService`, `base.Service`: a name written like a class (initial capital).
fn is_class_name(t: &str) -> bool {
    is_dotted(t) && t.rsplit('.').next().is_some_and(|l| l.starts_with(|c: char| c.is_uppercase()))
}

/// `new ApiClient(…)` → `ApiClient`.
fn constructed_class(value: Node<'_>, source: &str) -> Option<String> {
    let value = unwrap_value(value);
    if value.kind_name() != "new_expression" {
        return None;
    }
    let class = text(value.field("constructor")?, source);
    is_class_name(class).then(|| class.to_owned())
}

/// `(x)`, `x as T`, `x satisfies T`, `await x` → `x`.
fn unwrap_value(mut node: Node<'_>) -> Node<'_> {
    for _ in 0..8 {
        match node.kind_name() {
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression"
            | "await_expression" => match node.named_child(0) {
                Some(inner) => node = inner,
                None => break,
            },
            _ => break,
        }
    }
    node
}

/// The parameter names of a function node (see `scope.rs`).
fn function_params(function: Node<'_>, source: &str) -> Vec<String> {
    if let Some(single) = function.field("parameter") {
        return vec![text(single, source).to_owned()];
    }
    let Some(list) = function.field("parameters") else { return Vec::new() };
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|p| p.kind_name() != "comment")
        .map(|p| {
            let name = match p.kind_name() {
                "identifier" => Some(p),
                "required_parameter" | "optional_parameter" => p.field("pattern"),
                "assignment_pattern" => p.field("left"),
                _ => None,
            };
            name.filter(|n| n.kind_name() == "identifier")
                .map_or(String::new(), |n| text(n, source).to_owned())
        })
        .collect()
}

/// `api` imported by name, or `http.client` with `http` an imported module of the project.
fn is_imported_receiver(receiver: &str, libs: &Libraries) -> bool {
    match receiver.split_once('.') {
        None => libs.imported.contains(receiver),
        Some((head, rest)) => !rest.contains('.') && libs.imported_modules.contains(head),
    }
}

/// Reads a call on a client of `library`.
fn interpret(
    library: &str,
    verb: Option<&str>,
    args: &Args,
) -> Option<(Option<HttpMethod>, CallUrl)> {
    match library {
        "ky" => ky::interpret(verb, args),
        "axios" => axios::interpret(verb, args),
        "requests" | "httpx" | "aiohttp" => requests::interpret(verb, args),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{Extractor, grammar_for};
    use cartograph_core::RepoPath;

    /// Extracts `source` as `file` and renders its calls as `METHOD url (client)` lines and its
    /// instances as `instance name library base` lines.
    pub(crate) fn render(file: &str, source: &str) -> Vec<String> {
        let path = RepoPath::new(file).unwrap();
        let grammar = grammar_for(&path).unwrap();
        let facts = Extractor::new().extract(&path, grammar, source);
        let mut out: Vec<String> = facts
            .calls
            .calls
            .iter()
            .map(|c| {
                let method = c.method.map_or("?", |m| m.as_str());
                let client = match &c.client {
                    CallClient::Library(l) => (*l).to_owned(),
                    CallClient::Instance(i) => format!("{} {}", i.library, i.name),
                    CallClient::Imported { receiver } => format!("imported {receiver}"),
                };
                let url = match &c.client {
                    CallClient::Instance(i) => CallUrl::joined(i.base.as_ref(), &c.url),
                    _ => c.url.clone(),
                };
                format!("{method} {} ({client})", show(&url))
            })
            .collect();
        out.extend(facts.calls.wrappers.iter().map(|w| {
            let kind = if w.generated { "generated" } else { "wrapper" };
            match &w.sink {
                Sink::Request { client, method, url } => {
                    format!("{kind} {}: {method:?} {} ({})", w.name, show(url), client_name(client))
                }
                Sink::Call(inv) => format!("{kind} {}: calls {}", w.name, invocation(inv)),
            }
        }));
        out.extend(
            facts.calls.invocations.to_vec().iter().map(|i| format!("invoke {}", invocation(i))),
        );
        out.extend(
            facts.calls.classes.iter().map(|c| {
                format!("class {} extends {}", c.name, c.extends.as_deref().unwrap_or("-"))
            }),
        );
        out.extend(
            facts.calls.objects.iter().map(|o| format!("object {} = new {}", o.name, o.class)),
        );
        out.extend(facts.calls.aliases.iter().map(|(a, t)| format!("alias {a} = {t}")));
        out.extend(
            facts
                .calls
                .constants
                .iter()
                .map(|c| format!("constant {} = {}", c.name, parts(&c.parts))),
        );
        out.extend(facts.calls.clients.iter().map(|i| {
            format!(
                "instance {} {} {}",
                i.name,
                i.library,
                i.base.as_ref().map_or("-".to_owned(), show)
            )
        }));
        out
    }

    fn client_name(client: &CallClient) -> String {
        match client {
            CallClient::Library(l) => (*l).to_owned(),
            CallClient::Instance(i) => format!("{} {}", i.library, i.name),
            CallClient::Imported { receiver } => format!("imported {receiver}"),
        }
    }

    fn parts(parts: &[Part]) -> String {
        parts
            .iter()
            .map(|p| match p {
                Part::Literal(l) => l.clone(),
                Part::Hole(h) => match (h.arg, h.imported) {
                    (Some(k), _) => format!("${{arg{k}}}"),
                    (None, true) => format!("${{import {}}}", h.dotted),
                    (None, false) => format!("${{{}}}", h.dotted),
                },
            })
            .collect()
    }

    fn invocation(i: &Invocation) -> String {
        let args: Vec<String> = i
            .args
            .iter()
            .map(|a| {
                if let Some(k) = a.param {
                    return format!("arg{k}");
                }
                if let Some(o) = a.options {
                    return format!("{{method {o:?}}}");
                }
                a.parts.as_deref().map_or("?".to_owned(), parts)
            })
            .collect();
        let class = i.class.as_deref().map_or(String::new(), |c| format!(" in {c}"));
        format!("{}({}){class}", i.callee, args.join(", "))
    }

    pub(crate) fn show(url: &CallUrl) -> String {
        match url {
            CallUrl::Deferred { parts: p } => format!("deferred {}", parts(p)),
            CallUrl::Path { path, stripped: None } => path.clone(),
            CallUrl::Path { path, stripped: Some(s) } => {
                let default =
                    s.default_path.as_deref().map_or(String::new(), |d| format!(" ?? {d}"));
                format!(
                    "[{}{}{default}]{path}",
                    s.description,
                    if s.known_value { "" } else { "?" }
                )
            }
            CallUrl::External { scheme, host, path } => format!("{scheme}://{host}{path}"),
            CallUrl::Computed { .. } => "computed".to_owned(),
        }
    }

    /// The calls and client instances of one file, a line each.
    pub(crate) fn described(file: &str, source: &str) -> String {
        render(file, source).join("\n")
    }

    /// The textual test that lets a call of an undeclared name skip its arguments says yes for
    /// every way the file's facts can name a function, class or binding.
    #[test]
    fn declared_names_are_found_in_the_text() {
        let source = "async function getJSON(u) {}\nfunction* gen() {}\nclass Api {}\n\
                      const post = (u) => fetch(u);\nlet put: Put = (u) => u;\nvar del!: D;\n\
                      const api = { get(u) { return u } };\nx.y = 1;\n\
                      const { list, one: item } = useApi();\nconst [first] = hooks();\n";
        let names = ["getJSON", "gen", "Api", "post", "put", "del", "api", "y", "list", "item"];
        for name in names.into_iter().chain(["first"]) {
            assert!(declares(name, source), "{name}");
        }
        let uses =
            "useState(x);\nif (t == 1) t2(x);\nconst f = t3 => t3(x);\nnotfunction t4() {}\n";
        for name in ["useState", "t", "t2", "t3", "t4", "s"] {
            assert!(!declares(name, uses), "{name}");
        }
    }

    #[test]
    fn traps_are_not_calls() {
        check!(
            "web/nav.tsx",
            r#"
import { useNavigate, Link } from "react-router-dom";
import express from "express";
const app = express();
app.get("/items", (req, res) => res.json([]));
const m = new Map(); m.get("/x");
router.navigate("/x"); router.push("/y"); navigate("/z"); history.push("/w");
window.location.href = "/login";
const el = <Link to="/items">x</Link>;
fs.readFile("/etc/x");
"#
        );
        check!(
            "app/views.py",
            r#"
from flask import Flask
app = Flask(__name__)
@app.get("/items")
def items(): return {}
d = {}; d.get("/x")
os.path.join("/tmp", "x")
"#
        );
    }
}
