//! HTTP client calls: method and URL of every request a file makes, and the client instances it
//! declares (`axios.create({ baseURL })`, `httpx.Client(base_url=…)`).
//!
//! Only a call on a known client counts: a global `fetch`, an imported client library (`axios`,
//! `ky`, `requests`, `httpx`, `aiohttp`), an instance of one declared in the file, an Angular
//! `HttpClient` field, a generated OpenAPI client's request object, or a name imported from
//! another module that the linker finds to be a client instance there. Everything else that
//! happens to be called `.get(…)` — `app.get('/x', handler)` on a server, `Map.get`,
//! `router.push('/x')`, `navigate('/x')` — is not a call.
//!
//! The walk collects candidate calls; `Family::finish` decides which receivers are clients once
//! the whole file is seen (an instance may be declared below its first use). URLs are read by
//! `url.rs`; each recogniser file interprets its client's argument conventions.

mod aiohttp;
mod angular;
mod args;
mod axios;
mod fetch;
mod httpx;
mod ky;
mod libraries;
pub mod link;
mod openapi;
mod requests;
mod url;

use serde::{Deserialize, Serialize};
use std::collections::HashSet;

use cartograph_core::{EdgeKind, HttpMethod, Language};
use tree_sitter::Node;

use super::registry::Recogniser;
use super::{Context, Family};
use crate::syntax::FieldExt;
use crate::syntax::{position, text};
use crate::{FileFacts, Syntax};
use args::Args;
use libraries::{Libraries, is_constructor, libs_of};

pub use url::{CallUrl, StrippedBase};

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
        name: "httpx",
        file: "calls/httpx.rs",
        languages: PY,
        edges: CALLS,
        summary: "httpx requests and Client/AsyncClient(base_url=…) instances",
    },
    Recogniser {
        name: "ky",
        file: "calls/ky.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "ky requests and ky.create({ prefixUrl }) instances",
    },
    Recogniser {
        name: "openapi-client",
        file: "calls/openapi.rs",
        languages: TS_JS,
        edges: CALLS,
        summary: "generated OpenAPI clients: request objects { method, url } and client.GET(\"/x\")",
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
            Some(n) if matches!(n.kind(), "program" | "module") => return true,
            Some(n)
                if matches!(
                    n.kind(),
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
}

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
        ]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        const JS: &[&str] = &[
            "fetch",
            "axios",
            "ky",
            "HttpClient",
            "request",
            "url:",
            ".get",
            ".post",
            ".put",
            ".patch",
            ".delete",
            ".GET",
            ".POST",
            ".PUT",
            ".PATCH",
            ".DELETE",
        ];
        const PY: &[&str] = &["requests", "httpx", "aiohttp", ".get", ".post", ".put", ".patch"];
        let needles = match cx.syntax {
            Syntax::Python => PY,
            Syntax::JavaScript => JS,
        };
        needles.iter().any(|n| cx.source.contains(n))
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        match cx.syntax {
            Syntax::Python => match kind {
                "call" => self.call(node, cx, facts),
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
                "variable_declarator" => {
                    self.constant(node, "name", "value", cx);
                    self.declaration(node, "name", "value", cx, facts);
                }
                "assignment_expression" => {
                    self.declaration(node, "left", "right", cx, facts);
                }
                "public_field_definition" => {
                    self.declaration(node, "name", "value", cx, facts);
                    let libs = libs_of(&mut self.libs, facts);
                    angular::field(node, cx.source, libs, &mut self.angular);
                }
                "required_parameter" | "optional_parameter" => {
                    let libs = libs_of(&mut self.libs, facts);
                    angular::parameter(node, cx.source, libs, &mut self.angular);
                }
                "export_statement" => {
                    let value = node.field("value");
                    let is_default = node.children(&mut node.walk()).any(|c| c.kind() == "default");
                    if let (true, Some(value)) = (is_default, value) {
                        if value.kind() == "identifier" {
                            self.default_exports.push(text(value, cx.source).to_owned());
                        } else {
                            self.instance("default".to_owned(), value, cx, facts);
                        }
                    }
                }
                _ => {}
            },
        }
    }

    fn finish(&mut self, cx: &Context<'_>, facts: &mut FileFacts) {
        let libs = self.libs.take().unwrap_or_else(|| Libraries::of(facts));
        for name in std::mem::take(&mut self.default_exports) {
            if let Some(found) = self.instances.iter().find(|i| i.name == name).cloned() {
                self.instances.push(ClientInstance { name: "default".to_owned(), ..found });
            }
        }
        for pending in std::mem::take(&mut self.pending) {
            if let Some(fact) = self.resolve(pending, &libs, cx.syntax) {
                facts.calls.calls.push(fact);
            }
        }
        facts.calls.calls.sort_by_key(|c| (c.line, c.column));
        facts.calls.clients = std::mem::take(&mut self.instances);
    }
}

impl Calls {
    fn call(&mut self, node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
        let callee = node.field("function");
        let arguments = node.field("arguments");
        let (Some(mut callee), Some(arguments)) = (callee, arguments) else { return };
        // The TypeScript grammar parses `await api.get<T>(x)` as a call of `await api.get`.
        if callee.kind() == "await_expression"
            && let Some(inner) = callee.named_child(0)
        {
            callee = inner;
        }
        let (line, column) = position(node);
        let push = |facts: &mut FileFacts, client, found: Option<(Option<HttpMethod>, CallUrl)>| {
            if let Some((method, url)) = found {
                facts.calls.calls.push(CallFact { line, column, client, method, url });
            }
        };
        match callee.kind() {
            "identifier" => {
                let name = text(callee, cx.source);
                if name == "fetch" {
                    let args = args::read(arguments, cx.source, &self.constants);
                    push(facts, CallClient::Library("fetch"), fetch::interpret(&args));
                    return;
                }
                if openapi::is_request_function(name) {
                    let args = args::read(arguments, cx.source, &self.constants);
                    push(facts, CallClient::Library("openapi"), openapi::request_object(&args));
                    return;
                }
                let libs = libs_of(&mut self.libs, facts);
                let wanted = libs.library_of_handle(name).is_some()
                    || (match cx.syntax {
                        Syntax::Python => false,
                        Syntax::JavaScript => libs.imported.contains(name),
                    })
                    || self.instances.iter().any(|i| i.name == name);
                if wanted {
                    let args = args::read(arguments, cx.source, &self.constants);
                    self.pending.push(Pending {
                        line,
                        column,
                        receiver: name.to_owned(),
                        verb: None,
                        args,
                    });
                }
            }
            "member_expression" | "attribute" => {
                let object = callee.field("object");
                let property = callee.field("property").or_else(|| callee.field("attribute"));
                let (Some(object), Some(property)) = (object, property) else { return };
                let receiver = text(object, cx.source);
                let verb = text(property, cx.source);
                if verb == "fetch" && matches!(receiver, "window" | "globalThis" | "self") {
                    let args = args::read(arguments, cx.source, &self.constants);
                    push(facts, CallClient::Library("fetch"), fetch::interpret(&args));
                } else if openapi::is_upper_verb(verb) {
                    let args = args::read(arguments, cx.source, &self.constants);
                    push(facts, CallClient::Library("openapi"), openapi::fetch_style(verb, &args));
                } else if is_verb(verb) {
                    let args = args::read(arguments, cx.source, &self.constants);
                    self.pending.push(Pending {
                        line,
                        column,
                        receiver: receiver.to_owned(),
                        verb: Some(verb.to_owned()),
                        args,
                    });
                }
            }
            _ => {}
        }
    }

    /// A module-level `const NAME = "…"` / `NAME = f"…"`: remembered for URLs that use it.
    fn constant(
        &mut self,
        node: Node<'_>,
        name_field: &'static str,
        value_field: &'static str,
        cx: &Context<'_>,
    ) {
        let (Some(name), Some(value)) = (node.field(name_field), node.field(value_field)) else {
            return;
        };
        if name.kind() != "identifier" || !is_module_level(node, cx) {
            return;
        }
        // Only `const` bindings keep their value; a `let` or `var` may be reassigned anywhere.
        let constant = node.kind() != "variable_declarator"
            || cx.parent(node).is_some_and(|p| text(p, cx.source).starts_with("const"));
        if !constant {
            return;
        }
        let parts = url::parts(value, cx.source, &self.constants);
        url::record_constant(&mut self.constants, text(name, cx.source), parts);
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
        let (Some(name), Some(value)) = (node.field(name_field), node.field(value_field)) else {
            return;
        };
        if !matches!(
            name.kind(),
            "identifier" | "property_identifier" | "member_expression" | "attribute"
        ) {
            return;
        }
        let mut name = text(name, cx.source).to_owned();
        if node.kind() == "public_field_definition" {
            name = format!("this.{name}");
        }
        match cx.syntax {
            Syntax::Python => {}
            Syntax::JavaScript => {
                let libs = libs_of(&mut self.libs, facts);
                angular::injected(&name, value, cx.source, libs, &mut self.angular);
            }
        }
        self.instance(name, value, cx, facts);
    }

    /// Records `name` as a client instance when `value` constructs one.
    fn instance(&mut self, name: String, value: Node<'_>, cx: &Context<'_>, facts: &FileFacts) {
        let mut value = value;
        while matches!(value.kind(), "await_expression" | "await" | "parenthesized_expression") {
            match value.named_child(0) {
                Some(inner) => value = inner,
                None => return,
            }
        }
        if !matches!(value.kind(), "call_expression" | "call") {
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
        let args = args::read(arguments, cx.source, &self.constants);
        let base = match library {
            "axios" => axios::base(&args),
            "ky" => ky::base(&args),
            "httpx" => httpx::base(&args),
            "aiohttp" => aiohttp::base(&args),
            _ => None,
        };
        self.instances.retain(|i| i.name != name);
        self.instances.push(ClientInstance { name, library, base });
    }

    /// Decides whether a pending call is made on a client, and reads it.
    fn resolve(&self, p: Pending, libs: &Libraries, syntax: Syntax) -> Option<CallFact> {
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
            };
            // A direct call of an imported function is taken only with a readable URL: most are
            // plain functions (`inject(HttpClient)`), not client instances.
            if verb.is_none() && matches!(found, Some((_, CallUrl::Computed { .. })) | None) {
                return None;
            }
            (CallClient::Imported { receiver: p.receiver.clone() }, found)
        } else {
            match syntax {
                Syntax::Python => return None,
                Syntax::JavaScript => {
                    (CallClient::Library("openapi"), openapi::client_object(verb, &p.args))
                }
            }
        };
        let (method, url) = found?;
        Some(CallFact { line: p.line, column: p.column, client, method, url })
    }
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

    pub(crate) fn show(url: &CallUrl) -> String {
        match url {
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
