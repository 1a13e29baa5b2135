//! HTTP wrappers: functions and methods whose parameter becomes the URL (or the method) of a
//! request, so that their callers are the call sites; and, in generated client code, functions
//! whose request is fixed, so that their callers are attributed the call too.
//!
//! Not a recogniser: the syntax half of the calls family records, per file,
//! - a [`Wrapper`] summary for each such function: `getJSON(url)` whose body is
//!   `fetch(url)` is "parameter 0 is the URL of a GET"; `post(url, data)` whose body is
//!   `this.request(url, "POST", data)` is "call `this.request` with parameter 0 and `POST`";
//! - every [`Invocation`] that may reach one: a call of a name bound by an import, of `this.x` /
//!   `super.x`, or of a name the file declares as a wrapper, an object, or a class instance;
//! - the classes, their `extends`, the instances (`new ApiClient()`, a constructor parameter
//!   typed with a class), the member aliases of object literals (`const CTFd = { fetch }`), and the
//!   exported URL constants;
//!
//! and the link half (`link.rs`, `resolve.rs`) joins them across modules. The HTTP method comes
//! from the request (`axios.get`), a parameter (`method`, or the options a `fetch` is given), or
//! the wrapper's own name (`get`, `postJson`, `del`).
//!
//! Example: `export const getJSON = (url) => fetch(url).then((r) => r.json())` in one module and
//! ``getJSON(`/api/items/${id}`)`` in another → `GET /api/items/{id}` from the second module,
//! `via wrapper getJSON`.

use serde::{Deserialize, Serialize};

use cartograph_core::HttpMethod;

use super::args::{Args, MethodSpec};
use super::url::{CallUrl, Part};
use super::{CallClient, CallFact};

/// A function that is a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wrapper {
    /// The name callers use: `getJSON`, `ApiService.get`, `api.get`, `default`.
    pub name: String,
    /// 1-based line of the function.
    pub line: u32,
    pub sink: Sink,
    /// True in generated client code, where a fixed request is attributed to the callers.
    pub generated: bool,
}

/// What a wrapper does with its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sink {
    /// A request on a client; the URL may hold the parameters (`CallUrl::Deferred`).
    Request { client: CallClient, method: WrapperMethod, url: CallUrl },
    /// A call of another function, which may be a wrapper itself.
    Call(Invocation),
}

/// Where a wrapper's request takes its method from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WrapperMethod {
    Known(HttpMethod),
    /// The caller's argument at this index names it (`request(method, url)`).
    Param(u8),
    /// The caller's argument at this index is an options object with a `method` key, `GET`
    /// when absent (`fetch(url, options)`).
    Options(u8),
    Unknown,
}

/// A call that may be of a wrapper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invocation {
    pub line: u32,
    pub column: u32,
    /// The callee as written: `getJSON`, `this.get`, `client.post`, `UsersService.createUser`.
    pub callee: String,
    /// The class the call is written in, for `this.` and `super.`.
    pub class: Option<String>,
    pub args: Vec<InvocationArg>,
}

/// One argument of an invocation, as far as a wrapper may use it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvocationArg {
    /// The argument flattened as a URL.
    pub parts: Option<Vec<Part>>,
    /// A plain string literal (a method name).
    pub literal: Option<String>,
    /// For an options object: its `method`.
    pub options: Option<OptionsMethod>,
    /// The enclosing function's parameter the argument is, when it is exactly one.
    pub param: Option<u8>,
    /// For an options object whose `method` is a parameter of the enclosing function
    /// (`{ method, body }`): that parameter, filled in by the caller's literal.
    #[serde(default)]
    pub method_param: Option<u8>,
    /// Link time only: true when the value came from the outermost caller's arguments.
    #[serde(skip)]
    pub from_caller: bool,
}

/// The `method` of an options object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OptionsMethod {
    Absent,
    Known(HttpMethod),
    Unknown,
}

/// A class of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassFact {
    pub name: String,
    /// The class it extends, as written (`APIService`, `base.Service`).
    pub extends: Option<String>,
}

/// A name holding an instance of a class: `const client = new ApiClient()`, `this.api` for a
/// constructor parameter `private api: ApiService`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassInstance {
    pub name: String,
    pub class: String,
    /// The class whose `this` the name is on.
    pub scope: Option<String>,
}

/// A constant a URL may be built from, as other modules import it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlConstant {
    /// `API`, `routes.base`, `VideoService.BASE_URL`.
    pub name: String,
    pub line: u32,
    pub parts: Vec<Part>,
}

/// How a request in a function reads when its parameters are substituted at callers, or `None`
/// when the request does not depend on them.
pub(super) fn request_sink(
    fact: &CallFact,
    args: &Args,
    params: &[String],
    name: &str,
) -> Option<WrapperMethod> {
    // A parameter in a whole path segment is a path parameter, not the URL.
    let depends =
        matches!(&fact.url, CallUrl::Deferred { parts } if super::url::glued_params(parts));
    let method = match fact.method {
        Some(m) => WrapperMethod::Known(m),
        None => method_from(args, params).unwrap_or_else(|| method_of_name(name)),
    };
    let by_param = matches!(method, WrapperMethod::Param(_) | WrapperMethod::Options(_));
    (depends || by_param).then_some(method)
}

/// A method given by the caller: a parameter passed as the method or the options.
fn method_from(args: &Args, params: &[String]) -> Option<WrapperMethod> {
    for (i, arg) in args.positional.iter().enumerate() {
        if let Some(object) = &arg.object
            && let Some(k) = object.method_param
        {
            return Some(WrapperMethod::Param(k));
        }
        let Some(k) = arg.param else { continue };
        // `fetch(url, options)`, `axios(url, config)`: the options are the second argument.
        if i >= 1 {
            let is_method = params.get(usize::from(k)).is_some_and(|p| p == "method");
            return Some(if is_method {
                WrapperMethod::Param(k)
            } else {
                WrapperMethod::Options(k)
            });
        }
    }
    let k = params.iter().position(|p| p == "method")?;
    u8::try_from(k).ok().map(WrapperMethod::Param)
}

/// `get`, `getJSON`, `postForm`, `del`, `ApiService.patch` → the method the name starts with.
pub(super) fn method_of_name(name: &str) -> WrapperMethod {
    let last = name.rsplit('.').next().unwrap_or(name);
    let lower = last.to_ascii_lowercase();
    let verbs: &[(&str, HttpMethod)] = &[
        ("get", HttpMethod::Get),
        ("post", HttpMethod::Post),
        ("put", HttpMethod::Put),
        ("patch", HttpMethod::Patch),
        ("delete", HttpMethod::Delete),
        ("del", HttpMethod::Delete),
    ];
    for (verb, method) in verbs {
        let Some(rest) = last.get(verb.len()..) else { continue };
        if lower.starts_with(verb) && rest.chars().next().is_none_or(|c| !c.is_lowercase()) {
            return WrapperMethod::Known(*method);
        }
    }
    WrapperMethod::Unknown
}

impl InvocationArg {
    pub(super) fn of(arg: &super::args::Arg) -> Self {
        Self::new(arg.parts.clone(), arg.literal.clone(), arg.object.as_ref(), arg.param)
    }

    /// An argument read at a call: its parts, its literal text, the options object it is and
    /// the parameter it names.
    pub(super) fn new(
        parts: Option<Vec<Part>>,
        literal: Option<String>,
        object: Option<&super::args::ObjectArg>,
        param: Option<u8>,
    ) -> Self {
        let options = object.map(|o| match o.method {
            MethodSpec::Absent if o.spread => OptionsMethod::Unknown,
            MethodSpec::Absent => OptionsMethod::Absent,
            MethodSpec::Known(m) => OptionsMethod::Known(m),
            MethodSpec::Unknown => OptionsMethod::Unknown,
        });
        InvocationArg {
            parts,
            literal,
            options,
            param,
            method_param: object.and_then(|o| o.method_param),
            from_caller: false,
        }
    }

    /// True when the argument is worth keeping for a wrapper: a string, a template, a
    /// parameter.
    pub(super) fn useful(&self) -> bool {
        self.literal.is_some()
            || self.param.is_some()
            || self.method_param.is_some()
            || self.parts.as_ref().is_some_and(|p| {
                p.iter().any(|p| match p {
                    Part::Literal(_) => true,
                    Part::Hole(h) => h.arg.is_some() || h.imported || !h.choices.is_empty(),
                })
            })
    }
}

/// True when the file says it is generated (`This file is auto-generated by …`).
pub(super) fn is_generated(path: &str, source: &str) -> bool {
    let mut end = source.len().min(600);
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let head = source.get(..end).unwrap_or("").to_ascii_lowercase();
    path.contains(".gen.")
        || ["auto-generated", "generated by", "generated with", "@generated", "do not edit"]
            .iter()
            .any(|marker| head.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn fetch_wrappers_take_url_and_method_from_parameters() {
        check!(
            "web/src/lib/http.ts",
            r#"
import config from "./config";
export async function getJSON(url: string) {
  const res = await fetch(url);
  return res.json();
}
export const send = (url, options) => {
  url = config.urlRoot + url;
  return fetch(url, options).then((r) => r.json());
};
export function request(method: string, path: string, body?: unknown) {
  return fetch(`${API_URL}${path}`, { method, body: JSON.stringify(body) });
}
export const postJson = (path, body) => fetch(path, { method: "POST", body });
const items = () => getJSON(`/api/items/${id}`);
"#
        );
    }

    #[test]
    fn class_wrappers_and_their_callers() {
        check!(
            "web/src/services/project.service.ts",
            r#"
import axios, { AxiosInstance } from "axios";
import { APIService } from "./api.service";
export abstract class BaseService {
  private axiosInstance: AxiosInstance;
  constructor(protected baseURL: string) {
    this.axiosInstance = axios.create({ baseURL, withCredentials: true });
  }
  get(url: string, params = {}) { return this.axiosInstance.get(url, { ...params }); }
  del = (url: string) => this.axiosInstance.delete(url);
}
export class ProjectService extends APIService {
  constructor(private readonly issues: IssueService) { super(API_BASE_URL); }
  list(slug: string) { return this.get(`/api/workspaces/${slug}/projects/`); }
  remove(slug: string, id: string) { return this.delete(`/api/workspaces/${slug}/projects/${id}/`); }
  issuesOf(id) { return this.issues.fetchAll(id); }
}
export const projectService = new ProjectService();
"#
        );
    }

    #[test]
    fn url_constants_objects_fields_and_templates() {
        check!(
            "web/src/lib/api/recipe.ts",
            r#"
import { api } from "./client";
import { prefix } from "./base";
const base = "/api";
export const routes = {
  recipes: `${base}/recipes`,
  recipe: (slug: string) => `${base}/recipes/${slug}`,
  nested: { tags: `${base}/tags` },
};
export const remote = `${prefix}/remote`;
function itemUrl(id) { return `${base}/items/${id}`; }
export class VideoService {
  static BASE_URL = environment.apiUrl + "/api/v1/videos/";
  private url = "/api/x";
  list() { return api.get(routes.recipes); }
  one(slug) { return api.get(routes.recipe(slug)); }
  tags() { return api.get(routes.nested.tags); }
  item(id) { return api.get(itemUrl(id)); }
  own() { return api.get(this.url); }
  video(id) { return api.get(VideoService.BASE_URL + id); }
  far() { return api.get(remote); }
  imported() { return api.get(`${prefix}/things`); }
}
"#
        );
    }

    #[test]
    fn aliases_generated_clients_and_relative_urls() {
        check!(
            "web/src/client/sdk.gen.ts",
            r#"
// This file is auto-generated by @hey-api/openapi-ts
import { OpenAPI } from "./core/OpenAPI";
import { request as __request } from "./core/request";
export class UsersService {
  public static createUser(data) {
    return __request(OpenAPI, { method: "POST", url: "/api/v1/users/", body: data.requestBody });
  }
}
export const useUsersServiceCreateUser = (options) =>
  useMutation({ mutationFn: (data) => UsersService.createUser(data), ...options });
"#
        );
        check!(
            "web/src/compat/CTFd.js",
            r#"
import fetch from "./fetch";
import api from "./api";
const CTFd = { fetch, api, config: { urlRoot: "" } };
export default CTFd;
fetch("api/v1/queries/" + id);
fetch(new URL("/api/v1/health", document.baseURI));
fetch(new URL("api/v1/jobs", document.baseURI));
fetch(`${environment.apiBaseUrl}documents/${id}/`);
"#
        );
    }
}
