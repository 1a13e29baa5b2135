//! HTTP calls linked to served routes: method and template matching, literal-over-parameter
//! preference, ambiguity, unmatched and computed refusals, external hosts, imported client
//! instances, and one run through `analyse_tree`.

use cartograph_core::{
    Confidence, EdgeKind, HttpMethod, Provenance, RefusalKind, RepoPath, RouteTemplate,
    SourceLocation,
};
use cartograph_extract::recognise::calls::link as calls;
use cartograph_extract::recognise::link::{
    BindingTarget, FileView, LinkInput, Linked, ResolvedBinding, ServedRoute,
};
use cartograph_extract::{Extractor, FileFacts, TreeIndex, grammar_for};
use cartograph_pipeline::{AnalysisOptions, analyse_tree};

/// A served route `METHOD /path` declared in `api/routes.py`.
fn route(spec: &str) -> ServedRoute {
    let (method, path) = spec.split_once(' ').unwrap();
    let module = RepoPath::new("api/routes.py").unwrap();
    ServedRoute {
        method: HttpMethod::parse(method).unwrap(),
        template: RouteTemplate::parse(path),
        module: module.clone(),
        handler: Some("handler".to_owned()),
        location: SourceLocation::new(module, 1, 1),
        framework: "test",
        provenance: Provenance::Syntax,
        confidence: Confidence::Certain,
        evidence: "test route".to_owned(),
    }
}

/// One source file of a linker test, with the import bindings resolution would give it.
struct Source<'a> {
    path: &'a str,
    text: &'a str,
    /// `(local, module, member)`.
    bindings: &'a [(&'a str, &'a str, Option<&'a str>)],
}

fn src<'a>(path: &'a str, text: &'a str) -> Source<'a> {
    Source { path, text, bindings: &[] }
}

/// Extracts the sources, links their calls to `routes`, and renders edges and refusals:
/// `from -> to [confidence/provenance] evidence` and `kind@line: reason`.
fn link(sources: &[Source<'_>], routes: &[&str]) -> Vec<String> {
    let routes: Vec<ServedRoute> = routes.iter().map(|r| route(r)).collect();
    let paths: Vec<RepoPath> = sources.iter().map(|s| RepoPath::new(s.path).unwrap()).collect();
    let facts: Vec<FileFacts> = sources
        .iter()
        .zip(&paths)
        .map(|(s, p)| Extractor::new().extract(p, grammar_for(p).unwrap(), s.text))
        .collect();
    let bindings: Vec<Vec<ResolvedBinding>> = sources
        .iter()
        .map(|s| {
            s.bindings
                .iter()
                .map(|(local, module, member)| ResolvedBinding {
                    local: (*local).into(),
                    target: BindingTarget::Module(RepoPath::new(module).unwrap()),
                    member: member.map(Into::into),
                })
                .collect()
        })
        .collect();
    let index = TreeIndex::new(paths.iter().cloned());
    let views: Vec<FileView<'_>> = paths
        .iter()
        .zip(&facts)
        .zip(&bindings)
        .map(|((path, facts), bindings)| FileView {
            path,
            language: facts.language,
            facts,
            bindings,
            python_module: None,
        })
        .collect();
    let input = LinkInput::new(views, &index);
    let mut linked = Linked::default();
    calls::link(&input, &routes, &mut linked);
    render(&linked)
}

fn render(linked: &Linked) -> Vec<String> {
    let mut out: Vec<String> = linked
        .edges
        .iter()
        .map(|e| {
            assert_eq!(e.kind, EdgeKind::Calls);
            format!(
                "{} -> {} [{}/{}] {}",
                e.from.name(),
                e.to.id(),
                e.confidence.as_str(),
                e.provenance.as_str(),
                e.evidence
            )
        })
        .collect();
    out.extend(
        linked.refusals.iter().map(|r| format!("{}@{}: {}", r.kind, r.location.line, r.reason)),
    );
    out
}

/// The call edges and refusals linked from `sources` against `routes`.
fn described(sources: &[Source<'_>], routes: &[&str]) -> (String, ()) {
    (link(sources, routes).join("\n"), ())
}

#[test]
fn exact_match_is_certain_and_names_the_path() {
    check!(
        &[src("web/api.ts", "fetch(`/api/v1/items/${id}`);\n")],
        &["GET /api/v1/items/{item_id}", "DELETE /api/v1/items/{item_id}"]
    );
}

#[test]
fn method_mismatch_is_not_a_match() {
    check!(
        &[src("web/api.ts", "fetch(\"/api/items\", { method: \"DELETE\" });\n")],
        &["GET /api/items", "POST /api/items"]
    );
}

#[test]
fn any_method_routes_serve_every_method_but_a_specific_one_wins() {
    check!(
        &[src(
            "web/api.ts",
            "fetch(\"/api/items\", { method: \"POST\" });\nfetch(\"/api/other\", { method: \"POST\" });\n",
        )],
        &["POST /api/items", "ANY /api/items", "ANY /api/other"]
    );
}

#[test]
fn literal_route_beats_parameter_route() {
    check!(
        &[src("web/api.ts", "fetch(\"/orders/export\");\n")],
        &["GET /orders/{id}", "GET /orders/export"]
    );
}

#[test]
fn literal_meeting_a_parameter_is_possible_and_says_so() {
    check!(&[src("web/api.ts", "fetch(\"/orders/export\");\n")], &["GET /orders/{id}"]);
}

#[test]
fn a_stale_call_does_not_lend_its_evidence_to_a_proper_one() {
    check!(
        &[src(
            "web/items.ts",
            "__request(OpenAPI, { method: \"GET\", url: \"/api/items/export\" });\n__request(OpenAPI, { method: \"GET\", url: \"/api/items/{id}\" });\n",
        )],
        &["GET /api/items/{id}"]
    );
}

#[test]
fn the_most_specific_catch_all_wins() {
    check!(
        &[src("web/api.ts", "fetch(`/api/v2/pools/${name}`);\n")],
        &["GET /api/v2/pools/{pool_name:path}", "GET /api/{rest:path}", "GET /{rest_of_path:path}"]
    );
}

#[test]
fn ambiguity_names_every_candidate() {
    check!(
        &[src("web/api.ts", "fetch(`/files/${kind}`);\n")],
        &["GET /files/recent", "GET /files/shared"]
    );
}

#[test]
fn stripped_base_is_likely_and_may_supply_a_prefix() {
    check!(
        &[src(
            "web/api.ts",
            "fetch(`${API_URL}/api/items`);\nfetch(import.meta.env.VITE_API_URL + \"/users\", { method: \"POST\" });\nfetch(\"http://localhost:8000/api/health\");\n",
        )],
        &["GET /api/items", "GET /api/health", "POST /api/v1/users"]
    );
}

#[test]
fn a_route_met_only_through_its_catch_all_yields_to_an_exact_tail() {
    // `/secret/{*}` serves pages; the API is under the unknown base. A call with no exact tail
    // keeps the catch-all.
    check!(
        &[src(
            "web/api.js",
            "fetch(`${config.host}/secret/${id}/exist`);\nfetch(`${config.host}/files/${name}/raw`);\n",
        )],
        &[
            "GET /secret/{*}",
            "GET /api/secret/{id}/exist",
            "GET /files/{*path}",
            "GET /api/files/{id}"
        ]
    );
}

#[test]
fn request_options_held_by_a_const_give_the_method() {
    // A `let` may be reassigned before the call: its method stays unknown.
    check!(
        &[src(
            "web/api.js",
            "export async function create(body) {\n  const options = { method: 'POST', body };\n  return fetch('/api/items', options);\n}\nexport async function remove(id) {\n  let options = { method: 'DELETE' };\n  return fetch(`/api/items/${id}`, options);\n}\n",
        )],
        &["POST /api/items", "DELETE /api/items/{id}"]
    );
}

#[test]
fn a_known_path_is_never_matched_by_its_tail() {
    check!(&[src("web/api.ts", "fetch(\"/users\");\n")], &["GET /api/v1/users"]);
}

#[test]
fn external_hosts_and_computed_urls() {
    check!(
        &[src(
            "svc/gh.py",
            "import requests\nrequests.get(f\"https://api.github.com/repos/{owner}/{repo}\")\nrequests.get(url)\nrequests.request(method, \"/x\")\n",
        )],
        &["GET /x"]
    );
}

#[test]
fn imported_axios_instance_brings_its_base() {
    check!(
        &[
            src(
                "web/src/client.ts",
                "import axios from \"axios\";\nexport const api = axios.create({ baseURL: import.meta.env.VITE_API_URL });\n",
            ),
            Source {
                path: "web/src/orders.ts",
                text: "import { api } from \"./client\";\nimport { router } from \"./router\";\napi.post(\"/orders\", body);\nrouter.get(\"/orders\");\n",
                bindings: &[
                    ("api", "web/src/client.ts", Some("api")),
                    ("router", "web/src/router.ts", Some("router")),
                ],
            },
        ],
        &["POST /api/orders", "GET /api/orders"]
    );
}

#[test]
fn a_written_default_base_decides_the_prefix() {
    check!(
        &[
            src(
                "web/src/client.ts",
                "import axios from \"axios\";\nexport const api = axios.create({ baseURL: import.meta.env.VITE_API_URL ?? \"/api/v1\" });\n",
            ),
            Source {
                path: "web/src/orders.ts",
                text: "import { api } from \"./client\";\napi.get(\"/orders\");\napi.post(\"/orders/export\");\n",
                bindings: &[("api", "web/src/client.ts", Some("api"))],
            },
            src(
                "worker/tasks.py",
                "import os\nimport requests\nAPI = os.environ.get(\"SHIPYARD_API\", \"http://localhost:8000/api/v1\")\nrequests.get(f\"{API}/orders\")\n",
            ),
            src(
                "worker/other.py",
                "import os\nimport requests\nrequests.get(os.getenv(\"OTHER_API\") + \"/orders\")\n",
            ),
        ],
        &["GET /api/v1/orders", "GET /bff/orders", "POST /bff/orders/export"]
    );
}

#[test]
fn imported_python_client_with_literal_base() {
    check!(
        &[
            src("svc/http.py", "import httpx\nclient = httpx.Client(base_url=\"/api/v1\")\n"),
            Source {
                path: "svc/jobs.py",
                text: "from svc.http import client\nclient.get(\"/jobs\")\nclient.delete(\"/jobs/1\")\n",
                bindings: &[("client", "svc/http.py", Some("client"))],
            },
        ],
        &["GET /api/v1/jobs", "DELETE /api/v1/jobs/{job_id}"]
    );
}

#[test]
fn navigation_and_server_routes_are_not_calls() {
    check!(
        &[src(
            "web/app.tsx",
            "import express from \"express\";\nconst app = express();\napp.get(\"/api/items\", (req, res) => res.json([]));\nrouter.navigate(\"/api/items\");\nconst x = <Link to=\"/api/items\" />;\n",
        )],
        &["GET /api/items"]
    );
}

#[test]
fn wrapper_functions_are_followed_to_their_callers() {
    check!(
        &[
            src(
                "web/src/lib/http.ts",
                "import config from \"./config\";\nexport async function getJSON(url: string) {\n  const res = await fetch(url);\n  return res.json();\n}\nexport default (url, options) => {\n  url = config.urlRoot + url;\n  return fetch(url, options);\n};\nexport const del = (path) => fetch(path, { method: \"DELETE\" });\n",
            ),
            Source {
                path: "web/src/pages/items.ts",
                text: "import { getJSON, del } from \"../lib/http\";\nimport send from \"../lib/http\";\ngetJSON(`/api/items/${id}`);\nsend(\"/api/items\", { method: \"POST\" });\nsend(\"/api/items\");\ndel(`/api/items/${id}`);\ngetJSON(someUrl);\ngetJSON(\"/api/nowhere\");\n",
                bindings: &[
                    ("getJSON", "web/src/lib/http.ts", Some("getJSON")),
                    ("del", "web/src/lib/http.ts", Some("del")),
                    ("send", "web/src/lib/http.ts", Some("default")),
                ],
            },
        ],
        &[
            "GET /api/items/{item_id}",
            "POST /api/items",
            "GET /api/items",
            "DELETE /api/items/{item_id}"
        ]
    );
}

#[test]
fn methods_of_a_base_class_in_another_module_are_wrappers() {
    check!(
        &[
            src(
                "web/src/services/api.service.ts",
                "import axios from \"axios\";\nexport abstract class APIService {\n  private axiosInstance;\n  constructor(baseURL: string) {\n    this.axiosInstance = axios.create({ baseURL, withCredentials: true });\n  }\n  get(url: string, params = {}) { return this.axiosInstance.get(url, { ...params }); }\n  post(url: string, data = {}) { return this.axiosInstance.post(url, data); }\n}\n",
            ),
            Source {
                path: "web/src/services/project.service.ts",
                text: "import { APIService } from \"./api.service\";\nexport class ProjectService extends APIService {\n  constructor() { super(API_BASE_URL); }\n  list(slug: string) { return this.get(`/api/workspaces/${slug}/projects/`); }\n  create(slug: string, data) { return this.post(`/api/workspaces/${slug}/projects/`, data); }\n}\nexport const projectService = new ProjectService();\n",
                bindings: &[("APIService", "web/src/services/api.service.ts", Some("APIService"))],
            },
            Source {
                path: "web/src/stores/project.ts",
                text: "import { ProjectService } from \"../services/project.service\";\nconst service = new ProjectService();\nservice.list(slug);\n",
                bindings: &[(
                    "ProjectService",
                    "web/src/services/project.service.ts",
                    Some("ProjectService")
                )],
            },
        ],
        &["GET /api/workspaces/{slug}/projects/", "POST /api/workspaces/{slug}/projects/"]
    );
}

#[test]
fn an_exported_client_object_and_its_aliases() {
    check!(
        &[
            src(
                "web/src/utils/ApiClient.ts",
                "class ApiClient {\n  baseUrl = \"/api\";\n  request = (path: string, method: string, data?: object) => fetch(`${this.baseUrl}${path}`, { method, body: JSON.stringify(data) });\n  post = (path: string, data?: object) => this.request(path, \"POST\", data);\n  get = (path: string) => this.request(path, \"GET\");\n}\nexport const client = new ApiClient();\n",
            ),
            Source {
                path: "web/src/stores/documents.ts",
                text: "import { client } from \"../utils/ApiClient\";\nclient.post(\"/documents.info\", { id });\nclient.get(\"/documents.list\");\n",
                bindings: &[("client", "web/src/utils/ApiClient.ts", Some("client"))],
            },
            src(
                "web/src/compat/fetch.js",
                "import config from \"./config\";\nexport default (url, options) => fetch(config.urlRoot + url, options);\n",
            ),
            Source {
                path: "web/src/compat/CTFd.js",
                text: "import fetch from \"./fetch\";\nconst CTFd = { fetch };\nexport default CTFd;\n",
                bindings: &[("fetch", "web/src/compat/fetch.js", Some("default"))],
            },
            Source {
                path: "web/src/pages/challenge.js",
                text: "import CTFd from \"../compat/CTFd\";\nCTFd.fetch(\"/api/v1/challenges/\" + id, { method: \"PATCH\" });\n",
                bindings: &[("CTFd", "web/src/compat/CTFd.js", Some("default"))],
            },
        ],
        &[
            "POST /api/documents.info",
            "POST /api/documents.list",
            "PATCH /api/v1/challenges/{challenge_id}"
        ]
    );
}

#[test]
fn imported_url_constants_are_read_from_their_module() {
    check!(
        &[
            src(
                "web/src/lib/routes.ts",
                "const prefix = \"/api\";\nexport const routes = {\n  recipes: `${prefix}/recipes`,\n  recipe: (slug: string) => `${prefix}/recipes/${slug}`,\n};\nexport const TAGS = `${prefix}/tags`;\n",
            ),
            Source {
                path: "web/src/lib/api.ts",
                text: "import axios from \"axios\";\nimport { routes, TAGS } from \"./routes\";\nimport * as R from \"./routes\";\naxios.get(routes.recipes);\naxios.get(`${TAGS}/${id}`);\naxios.post(R.TAGS);\naxios.get(routes.unknown);\n",
                bindings: &[
                    ("routes", "web/src/lib/routes.ts", Some("routes")),
                    ("TAGS", "web/src/lib/routes.ts", Some("TAGS")),
                    ("R", "web/src/lib/routes.ts", None),
                ],
            },
        ],
        &["GET /api/recipes", "GET /api/tags/{id}", "POST /api/tags"]
    );
}

#[test]
fn generated_clients_are_attributed_to_their_callers() {
    check!(
        &[
            src(
                "web/src/client/sdk.gen.ts",
                "// This file is auto-generated by @hey-api/openapi-ts\nimport { OpenAPI } from \"./core/OpenAPI\";\nimport { request as __request } from \"./core/request\";\nexport class UsersService {\n  public static createUser(data) {\n    return __request(OpenAPI, { method: \"POST\", url: \"/api/v1/users/\", body: data });\n  }\n}\n",
            ),
            Source {
                path: "web/src/components/AddUser.tsx",
                text: "import { UsersService } from \"../client/sdk.gen\";\nexport const add = (data) => UsersService.createUser({ requestBody: data });\n",
                bindings: &[("UsersService", "web/src/client/sdk.gen.ts", Some("UsersService"))],
            },
        ],
        &["POST /api/v1/users/"]
    );
}

#[test]
fn relative_urls_and_page_bases_resolve_by_their_tail() {
    check!(
        &[src(
            "web/src/api.ts",
            "fetch(\"api/queries/\" + id);\nfetch(new URL(\"api/jobs\", document.baseURI));\nfetch(`${environment.apiBaseUrl}documents/${id}/`);\n",
        )],
        &["GET /api/queries/{query_id}", "GET /api/jobs", "GET /api/documents/{id}/"]
    );
}

#[test]
fn python_helpers_and_clients_held_on_self() {
    check!(
        &[
            src(
                "worker/api.py",
                "import os\nimport httpx\nimport requests\nBASE = os.environ.get(\"API\", \"http://localhost:8000\")\n\ndef get(path):\n    return requests.get(BASE + path)\n\ndef call(method, path, **kw):\n    return requests.request(method, f\"{BASE}{path}\", **kw)\n\nclass Client:\n    def __init__(self):\n        self.http = httpx.Client(base_url=\"http://localhost:8000/api/v1\")\n\n    def fetch(self, path):\n        return self.http.get(path)\n\n    def jobs(self):\n        return self.fetch(\"/jobs\")\n",
            ),
            Source {
                path: "worker/tasks.py",
                text: "from worker.api import get, call, Client\nget(\"/api/v1/orders\")\ncall(\"DELETE\", \"/api/v1/orders/1\")\nclient = Client()\nclient.fetch(\"/runs\")\n",
                bindings: &[
                    ("get", "worker/api.py", Some("get")),
                    ("call", "worker/api.py", Some("call")),
                    ("Client", "worker/api.py", Some("Client")),
                ],
            },
        ],
        &[
            "GET /api/v1/orders",
            "DELETE /api/v1/orders/{order_id}",
            "GET /api/v1/jobs",
            "GET /api/v1/runs"
        ]
    );
}

/// Runs the whole pipeline on a client-only tree: no route is served, so relative calls are
/// refusals, external ones edges, and the imported instance is followed across files.
#[test]
fn end_to_end_through_analyse_tree() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    write(
        "web/src/client.ts",
        "import axios from \"axios\";\nexport const stripe = axios.create({ baseURL: \"https://api.stripe.com/v1\" });\n",
    );
    write(
        "web/src/pay.ts",
        "import { stripe } from \"./client\";\nexport const pay = () => stripe.post(\"/charges\");\nexport const items = () => fetch(\"/api/items\");\nexport const any = (u: string[]) => u.map((x) => fetch(x));\n",
    );
    let analysis = analyse_tree(dir.path(), &AnalysisOptions::default()).unwrap();
    let calls: Vec<String> = analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Calls)
        .map(|e| format!("{} -> {} {}", e.from.name(), e.to.id(), e.provenance.as_str()))
        .collect();
    assert_eq!(calls, ["web/src/pay.ts -> external:https://api.stripe.com resolver"]);
    let refusals: Vec<String> = analysis
        .refusals
        .iter()
        .filter(|r| matches!(r.kind, RefusalKind::UnmatchedCall | RefusalKind::ComputedUrl))
        .map(|r| {
            format!("{} {}:{} {}", r.kind, r.location.path.as_str(), r.location.line, r.reason)
        })
        .collect();
    assert_eq!(
        refusals,
        [
            "unmatched-call web/src/pay.ts:3 call to GET /api/items matches no served route",
            "computed-url web/src/pay.ts:4 fetch call: the URL is a variable or computed value, so its path cannot be read",
        ]
    );
    let external = analysis.nodes.iter().find(|n| n.key.id() == "external:https://api.stripe.com");
    assert!(external.is_some(), "the external node exists");
}

#[test]
fn hook_returned_closures_and_conditional_urls() {
    check!(
        &[
            src(
                "web/src/lib/url.ts",
                "export function withQuery(path: string, params: object = {}): string {\n  const qs = new URLSearchParams(params).toString();\n  return qs ? `${path}?${qs}` : path;\n}\n",
            ),
            Source {
                path: "web/src/lib/http.ts",
                text: "import { withQuery } from \"./url\";\nexport async function send(method: string, url: string, body?: string) {\n  return fetch(url, { method, body });\n}\nexport async function httpGet(path: string, params = {}) {\n  return send(\"GET\", withQuery(path, params));\n}\nexport async function httpPost(path: string, params = {}) {\n  return send(\"POST\", path, JSON.stringify(params));\n}\n",
                bindings: &[("withQuery", "web/src/lib/url.ts", Some("withQuery"))],
            },
            Source {
                path: "web/src/hooks/useApi.ts",
                text: "import { useCallback } from \"react\";\nimport { httpGet, httpPost } from \"../lib/http\";\nexport function useApi() {\n  const basePath = process.env.basePath;\n  const getUrl = (url: string) => (url.startsWith(\"http\") ? url : `${basePath || \"\"}/api${url}`);\n  return {\n    get: useCallback(async (url: string, params = {}) => httpGet(getUrl(url), params), []),\n    post: useCallback(async (url: string, data = {}) => httpPost(getUrl(url), data), []),\n  };\n}\n",
                bindings: &[
                    ("httpGet", "web/src/lib/http.ts", Some("httpGet")),
                    ("httpPost", "web/src/lib/http.ts", Some("httpPost")),
                ],
            },
            Source {
                path: "web/src/hooks/useUpdate.ts",
                text: "import { useApi } from \"./useApi\";\nexport function useUpdate(path: string) {\n  const { post } = useApi();\n  return useMutation({ mutationFn: (data) => post(path, data) });\n}\n",
                bindings: &[("useApi", "web/src/hooks/useApi.ts", Some("useApi"))],
            },
            Source {
                path: "web/src/pages/boards.tsx",
                text: "import { useApi } from \"../hooks/useApi\";\nimport { useUpdate } from \"../hooks/useUpdate\";\nexport function Boards({ teamId, boardId }) {\n  const { get: read } = useApi();\n  useQuery({ queryFn: () => read(teamId ? `/teams/${teamId}/boards` : \"/boards\") });\n  useQuery({ queryFn: () => read(`/boards/${boardId}`) });\n  const { mutate } = useUpdate(`/boards/${boardId}`);\n  read(\"/nowhere\");\n}\n",
                bindings: &[
                    ("useApi", "web/src/hooks/useApi.ts", Some("useApi")),
                    ("useUpdate", "web/src/hooks/useUpdate.ts", Some("useUpdate")),
                ],
            },
        ],
        &[
            "GET /api/teams/{teamId}/boards",
            "GET /api/boards",
            "GET /api/boards/{boardId}",
            "POST /api/boards/{boardId}",
        ]
    );
}

#[test]
fn a_hook_returning_a_ky_instance_and_keys_of_the_global_swr_fetcher() {
    check!(
        &[
            src(
                "web/src/hooks/use-api.ts",
                "import ky from \"ky\";\nimport { useContext, useMemo } from \"react\";\nexport const useStaticApi = ({ prefixUrl, timeout }: Props) => {\n  const client = useMemo(() => ky.create({ prefixUrl, timeout }), [prefixUrl, timeout]);\n  return client;\n};\nconst useApi = () => {\n  const { endpoint } = useContext(AppContext);\n  return useStaticApi({ prefixUrl: endpoint });\n};\nexport default useApi;\n",
            ),
            src(
                "web/src/utils/url.ts",
                "export const withParams = (path: string, params: object) =>\n  `${path}?${new URLSearchParams(params).toString()}`;\n",
            ),
            Source {
                path: "web/src/pages/Teams.tsx",
                text: "import useSWR from \"swr\";\nimport useApi from \"@/hooks/use-api\";\nimport useStore from \"@/hooks/use-store\";\nimport { withParams } from \"@/utils/url\";\nexport default function Teams({ teamId, page, admin }) {\n  const api = useApi();\n  const store = useStore();\n  const { data } = useSWR<Team>(teamId && `api/teams/${teamId}`);\n  const url = withParams(\"api/teams\", { page: String(page) });\n  const list = useSWR<Team[]>(url);\n  const members = useSWR(withParams(`api/teams/${teamId}/members`, { page }), {\n    revalidateOnFocus: false,\n  });\n  const remove = async () => {\n    await api.delete(`api/teams/${teamId}`);\n  };\n  const rename = async (name: string) => {\n    await api\n      .patch(`api/teams/${teamId}`, { json: { name } })\n      .json<Team>();\n  };\n  const kind = admin ? \"owners\" : \"members\";\n  const add = () => api.post(`api/teams/${teamId}/${kind}`);\n  store.get(\"api/teams\");\n  useSWR(\"team-settings\");\n}\n",
                bindings: &[
                    ("useApi", "web/src/hooks/use-api.ts", Some("default")),
                    ("useStore", "web/src/hooks/use-store.ts", Some("default")),
                    ("withParams", "web/src/utils/url.ts", Some("withParams")),
                ],
            },
            src(
                "web/src/hooks/use-store.ts",
                "export default function useStore() {\n  return new Map();\n}\n"
            ),
        ],
        &[
            "GET /api/teams",
            "GET /api/teams/{id}",
            "PATCH /api/teams/{id}",
            "DELETE /api/teams/{id}",
            "GET /api/teams/{id}/members",
            "POST /api/teams/{id}/members",
            "POST /api/teams/{id}/owners",
            "POST /api/teams/{id}/settings",
        ]
    );
}

#[test]
fn hono_rpc_clients_and_a_base_path_helper() {
    check!(
        &[
            src(
                "web/src/lib/paths.ts",
                "export const getBasePath = (): string => process.env.BASE_PATH ?? \"\";\nexport const withBasePath = (path: string): string => {\n  return `${getBasePath()}${path}`;\n};\n",
            ),
            Source {
                path: "web/src/lib/locale.ts",
                text: "import { withBasePath } from \"./paths\";\nexport async function saveLocale(body) {\n  await fetch(withBasePath(\"/api/locale\"), { method: \"post\", body });\n}\n",
                bindings: &[("withBasePath", "web/src/lib/paths.ts", Some("withBasePath"))],
            },
            src(
                "web/src/auth/client.ts",
                "import { hc } from \"hono/client\";\nexport class SessionClient {\n  constructor(options: { baseUrl: string }) {\n    this.rpc = hc<AppType>(options.baseUrl);\n  }\n  async signOut() {\n    await this.rpc.logout.$post();\n  }\n  async unlink(id: string) {\n    await this.rpc[\"linked-accounts\"][\":accountId\"].$delete({ param: { accountId: id } });\n  }\n  async stale() {\n    await this.rpc.gone.$get();\n  }\n}\nexport const sessions = new SessionClient({ baseUrl: \"/api/session\" });\n",
            ),
        ],
        &[
            "POST /api/locale",
            "POST /api/session/logout",
            "DELETE /api/session/linked-accounts/{accountId}",
        ]
    );
}

#[test]
fn a_store_method_over_a_client_five_wrappers_deep() {
    check!(
        &[
            src(
                "web/src/utils/client.ts",
                "const sendWithToken = (url: string, init: object) => fetch(url, init);\nclass HttpClient {\n  send = (path: string, method: string, data?: object) => sendWithToken(\"/api\" + path, { method, body: data });\n  once = (path: string, method: string, data?: object) => this.send(path, method, data);\n  post = (path: string, data?: object) => this.once(path, \"POST\", data);\n}\nexport const client = new HttpClient();\n",
            ),
            Source {
                path: "web/src/stores/TeamsStore.ts",
                text: "import { client } from \"../utils/client\";\nexport default class TeamsStore {\n  perform = async (action: string, id: string) => {\n    await client.post(`/teams.${action}`, { id });\n  };\n  archive = (id: string) => this.perform(\"archive\", id);\n  restore = (id: string) => this.perform(\"restore\", id);\n}\n",
                bindings: &[("client", "web/src/utils/client.ts", Some("client"))],
            },
        ],
        &["POST /api/teams.archive", "POST /api/teams.list"]
    );
}

#[test]
fn typescript_fetch_generated_client_is_attributed_to_callers() {
    check!(
        &[
            src(
                "web/src/openapi/apis/ItemsApi.ts",
                "/* NOTE: This class is auto generated by OpenAPI Generator. Do not edit the class manually. */\nimport * as runtime from '../runtime';\nexport class ItemsApi extends runtime.BaseAPI {\n    async itemsRetrieveRaw(requestParameters, initOverrides) {\n        let urlPath = `/api/items/{id}/`;\n        urlPath = urlPath.replace(`{${\"id\"}}`, encodeURIComponent(String(requestParameters['id'])));\n        const response = await this.request({ path: urlPath, method: 'GET', headers: {} }, initOverrides);\n        return new runtime.JSONApiResponse(response);\n    }\n    async itemsRetrieve(requestParameters, initOverrides) {\n        const response = await this.itemsRetrieveRaw(requestParameters, initOverrides);\n        return await response.value();\n    }\n    async itemsCreateRaw(requestParameters, initOverrides) {\n        let urlPath = `/api/items/`;\n        const response = await this.request({ path: urlPath, method: 'POST' }, initOverrides);\n        return new runtime.JSONApiResponse(response);\n    }\n    async itemsCreate(requestParameters, initOverrides) {\n        const response = await this.itemsCreateRaw(requestParameters, initOverrides);\n        return await response.value();\n    }\n}\n",
            ),
            Source {
                path: "web/src/stores/items.ts",
                text: "import { ItemsApi } from \"../openapi\";\nexport function load(id) {\n  let api = new ItemsApi();\n  api.itemsRetrieve({ id }).then((r) => r);\n  new ItemsApi().itemsCreate({ item: {} });\n}\n",
                bindings: &[("ItemsApi", "web/src/openapi/apis/ItemsApi.ts", Some("ItemsApi"))],
            },
        ],
        &["GET /api/items/{pk}/", "POST /api/items/"]
    );
}

#[test]
fn barrels_named_segments_and_cache_keys() {
    check!(
        &[
            Source {
                path: "web/src/openapi/index.ts",
                text: "export * from './runtime';\nexport * from './apis';\n",
                bindings: &[
                    ("*", "web/src/openapi/runtime.ts", None),
                    ("*", "web/src/openapi/apis/index.ts", None),
                ],
            },
            src("web/src/openapi/runtime.ts", "export class BaseAPI {}\n"),
            Source {
                path: "web/src/openapi/apis/index.ts",
                text: "export * from './ItemsApi';\n",
                bindings: &[("*", "web/src/openapi/apis/ItemsApi.ts", None)],
            },
            src(
                "web/src/openapi/apis/ItemsApi.ts",
                "/* NOTE: This class is auto generated by OpenAPI Generator. Do not edit the class manually. */\nexport class ItemsApi extends BaseAPI {\n    async itemsListRaw(requestParameters, initOverrides) {\n        let urlPath = `/api/items/`;\n        return await this.request({ path: urlPath, method: 'GET' }, initOverrides);\n    }\n    async itemsList(requestParameters, initOverrides) {\n        return await (await this.itemsListRaw(requestParameters, initOverrides)).value();\n    }\n}\n",
            ),
            src(
                "web/src/hooks/useReport.ts",
                "const post = (url: string) => fetch(url, { method: \"POST\" });\nexport function useReport(type: string) {\n  return useQuery({ queryFn: () => post(`/api/reports/${type}`) });\n}\n",
            ),
            Source {
                path: "web/src/pages/reports.tsx",
                text: "import useSWR from \"swr\";\nimport { ItemsApi } from \"../openapi\";\nimport { useReport } from \"../hooks/useReport\";\nnew ItemsApi().itemsList({});\nuseReport(\"utm\");\nuseReport(\"custom\");\nuseReport(kind);\nuseSWR(`/billing-${tier}`, loadCheckout);\n",
                bindings: &[
                    ("ItemsApi", "web/src/openapi/index.ts", Some("ItemsApi")),
                    ("useReport", "web/src/hooks/useReport.ts", Some("useReport")),
                ],
            },
        ],
        &[
            "GET /api/items/",
            "POST /api/reports/utm",
            "POST /api/reports/{reportId}",
            "GET /billing"
        ]
    );
}

#[test]
fn branch_assigned_locals_and_a_retry_decorated_fetch() {
    check!(
        &[
            src(
                "web/src/utils/ApiClient.ts",
                "import retry from \"fetch-retry\";\nclass ApiClient {\n  baseUrl: string;\n  constructor(options = {}) {\n    this.baseUrl = options.baseUrl || \"/api\";\n  }\n  fetch = async (path: string, method: string, data, options = {}) => {\n    let modifiedPath: string | undefined;\n    let urlToFetch: string;\n    if (method === \"GET\") {\n      modifiedPath = `${path}?${stringify(data)}`;\n    } else {\n      modifiedPath = path;\n    }\n    if (path.match(/^http/)) {\n      urlToFetch = modifiedPath || path;\n    } else {\n      urlToFetch = (options.baseUrl ?? this.baseUrl) + (modifiedPath || path);\n    }\n    const send = (input, init) => fetch(input, init);\n    return (options.retry === false ? send : retry(send))(urlToFetch, { method, body: data });\n  };\n  post = (path: string, data?: object) => this.fetch(path, \"POST\", data);\n}\nexport const client = new ApiClient();\n",
            ),
            Source {
                path: "web/src/stores/docs.ts",
                text: "import { client } from \"../utils/ApiClient\";\nexport const info = (id) => client.post(\"/documents.info\", { id });\nexport const list = (params) => client.post(\"/documents.list\", params);\n",
                bindings: &[("client", "web/src/utils/ApiClient.ts", Some("client"))],
            },
        ],
        &["POST /api/documents.info", "POST /api/documents.list"]
    );
}

#[test]
fn swagger_codegen_operations_are_attributed_through_an_object_member() {
    check!(
        &[
            src(
                "web/js/compat/client.js",
                "let Client = (function () {\n  function Client(options) {\n    this.domain = typeof options === \"object\" ? options.domain : options;\n  }\n  Client.prototype.request = function (method, url, parameters, body) {\n    fetch(url, { method, body: JSON.stringify(body) });\n  };\n  Client.prototype.get_widget_parts = function (parameters) {\n    let domain = this.domain,\n      path = \"/widgets/{widget_id}/parts\";\n    path = path.replace(\"{widget_id}\", parameters[\"widgetId\"]);\n    this.request(\"GET\", domain + path, parameters, {});\n  };\n  Client.prototype.get_status = function (parameters) {\n    let domain = this.domain,\n      path = \"/status\";\n    this.request(\"GET\", domain + path, parameters, {});\n  };\n  return Client;\n})();\nexport default Client;\n",
            ),
            Source {
                path: "web/js/compat/App.js",
                text: "import Client from \"./client\";\nconst api = new Client(\"/\");\nconst App = { api };\nexport default App;\n",
                bindings: &[("Client", "web/js/compat/client.js", Some("default"))],
            },
            Source {
                path: "web/js/pages/widget.js",
                text: "import App from \"../compat/App\";\nconst load = (x) => App.api.get_widget_parts({ widgetId: x });\nApp.api.get_status();\n",
                bindings: &[("App", "web/js/compat/App.js", Some("default"))],
            },
        ],
        // The domain is set at run time: the routes under `/api/v1` end in the operation's path,
        // and a fallback page route, which every path reaches, is no better reading.
        &["GET /api/v1/widgets/{widget_id}/parts", "GET /api/v1/status", "GET /{path:path}"]
    );
}

#[test]
fn a_fallback_ranks_below_a_literal_meeting_a_parameter() {
    check!(
        &[src(
            "web/js/stats.js",
            "$.get(App.config.urlRoot + \"/api/v1/stats/category\");\n$.ajax({ url: \"/api/v1/uploads\", type: \"POST\" });\n$.get(\"/about\");\n",
        )],
        &["GET /api/v1/stats/{column}", "POST /api/v1/uploads", "GET /{path:path}"]
    );
}

#[test]
fn globals_published_on_window_are_followed_to_their_module() {
    check!(
        &[
            src(
                "web/js/compat/fetch.js",
                "import config from \"./config\";\nexport default (url, options) => fetch(config.urlRoot + url, options);\n",
            ),
            Source {
                path: "web/js/compat/App.js",
                text: "import fetch from \"./fetch\";\nconst App = { fetch };\nexport default App;\n",
                bindings: &[("fetch", "web/js/compat/fetch.js", Some("default"))],
            },
            Source {
                path: "web/js/pages/main.js",
                text: "import App from \"../compat/App\";\nwindow.App = App;\n",
                bindings: &[("App", "web/js/compat/App.js", Some("default"))],
            },
            // Another bundle publishes its own `App`, farther from the callers.
            src("other/bundle/main.js", "window.App = { fetch: null };\n"),
            src(
                "web/js/components/Form.vue",
                "<script>\nexport default {\n  methods: {\n    save() {\n      App.fetch(\"/api/v1/forms\", { method: \"POST\" });\n    },\n  },\n};\n</script>\n",
            ),
            src(
                "web/js/compat/helpers.js",
                "export const list = () => {\n  const App = window.App;\n  return App.fetch(\"/api/v1/forms?all=1\");\n};\n",
            ),
        ],
        &["POST /api/v1/forms", "GET /api/v1/forms"]
    );
}

#[test]
fn a_local_chosen_by_a_conditional_gives_one_url_per_branch() {
    check!(
        &[src(
            "web/js/members.js",
            "function search(q) {\n  const endpoint = window.MODE === \"teams\" ? \"/api/v1/teams\" : \"/api/v1/users\";\n  return fetch(endpoint + \"?q=\" + encodeURIComponent(q));\n}\n",
        )],
        &["GET /api/v1/teams", "GET /api/v1/users"]
    );
}
