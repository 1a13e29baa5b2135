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
                    local: (*local).to_owned(),
                    target: BindingTarget::Module(RepoPath::new(module).unwrap()),
                    member: member.map(str::to_owned),
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

fn check(sources: &[Source<'_>], routes: &[&str], expected: &[&str]) {
    assert_eq!(link(sources, routes), expected);
}

#[test]
fn exact_match_is_certain_and_names_the_path() {
    check(
        &[src("web/api.ts", "fetch(`/api/v1/items/${id}`);\n")],
        &["GET /api/v1/items/{item_id}", "DELETE /api/v1/items/{item_id}"],
        &[
            "web/api.ts -> route:GET /api/v1/items/{} [certain/resolver] fetch GET \"/api/v1/items/{}\" matches route GET /api/v1/items/{item_id}",
        ],
    );
}

#[test]
fn method_mismatch_is_not_a_match() {
    check(
        &[src("web/api.ts", "fetch(\"/api/items\", { method: \"DELETE\" });\n")],
        &["GET /api/items", "POST /api/items"],
        &["unmatched-call@1: call to DELETE /api/items matches no served route"],
    );
}

#[test]
fn any_method_routes_serve_every_method_but_a_specific_one_wins() {
    check(
        &[src(
            "web/api.ts",
            "fetch(\"/api/items\", { method: \"POST\" });\nfetch(\"/api/other\", { method: \"POST\" });\n",
        )],
        &["POST /api/items", "ANY /api/items", "ANY /api/other"],
        &[
            "web/api.ts -> route:ANY /api/other [certain/resolver] fetch POST \"/api/other\" matches route ANY /api/other",
            "web/api.ts -> route:POST /api/items [certain/resolver] fetch POST \"/api/items\" matches route POST /api/items",
        ],
    );
}

#[test]
fn literal_route_beats_parameter_route() {
    check(
        &[src("web/api.ts", "fetch(\"/orders/export\");\n")],
        &["GET /orders/{id}", "GET /orders/export"],
        &[
            "web/api.ts -> route:GET /orders/export [certain/resolver] fetch GET \"/orders/export\" matches route GET /orders/export",
        ],
    );
}

#[test]
fn literal_meeting_a_parameter_is_possible_and_says_so() {
    check(
        &[src("web/api.ts", "fetch(\"/orders/export\");\n")],
        &["GET /orders/{id}"],
        &[
            "web/api.ts -> route:GET /orders/{} [possible/resolver] fetch GET \"/orders/export\" matches route GET /orders/{id}; a literal segment meets a route parameter",
        ],
    );
}

#[test]
fn a_stale_call_does_not_lend_its_evidence_to_a_proper_one() {
    check(
        &[src(
            "web/items.ts",
            "__request(OpenAPI, { method: \"GET\", url: \"/api/items/export\" });\n__request(OpenAPI, { method: \"GET\", url: \"/api/items/{id}\" });\n",
        )],
        &["GET /api/items/{id}"],
        &[
            "web/items.ts -> route:GET /api/items/{} [likely/resolver] generated OpenAPI client (base OpenAPI.BASE stripped) GET \"/api/items/{}\" matches route GET /api/items/{id}",
        ],
    );
}

#[test]
fn the_most_specific_catch_all_wins() {
    check(
        &[src("web/api.ts", "fetch(`/api/v2/pools/${name}`);\n")],
        &["GET /api/v2/pools/{pool_name:path}", "GET /api/{rest:path}", "GET /{rest_of_path:path}"],
        &[
            "web/api.ts -> route:GET /api/v2/pools/{*} [likely/resolver] fetch GET \"/api/v2/pools/{}\" matches route GET /api/v2/pools/{*pool_name}, only through a catch-all or a parameter of the call",
        ],
    );
}

#[test]
fn ambiguity_names_every_candidate() {
    check(
        &[src("web/api.ts", "fetch(`/files/${kind}`);\n")],
        &["GET /files/recent", "GET /files/shared"],
        &[
            "web/api.ts -> route:GET /files/recent [possible/resolver] fetch GET \"/files/{}\" matches route GET /files/recent, only through a catch-all or a parameter of the call; one of 2 equally good candidates: GET /files/recent, GET /files/shared",
            "web/api.ts -> route:GET /files/shared [possible/resolver] fetch GET \"/files/{}\" matches route GET /files/shared, only through a catch-all or a parameter of the call; one of 2 equally good candidates: GET /files/recent, GET /files/shared",
        ],
    );
}

#[test]
fn stripped_base_is_likely_and_may_supply_a_prefix() {
    check(
        &[src(
            "web/api.ts",
            "fetch(`${API_URL}/api/items`);\nfetch(import.meta.env.VITE_API_URL + \"/users\", { method: \"POST\" });\nfetch(\"http://localhost:8000/api/health\");\n",
        )],
        &["GET /api/items", "GET /api/health", "POST /api/v1/users"],
        &[
            "web/api.ts -> route:GET /api/health [likely/resolver] fetch (local host localhost:8000 stripped) GET \"/api/health\" matches route GET /api/health",
            "web/api.ts -> route:GET /api/items [likely/resolver] fetch (base API_URL stripped) GET \"/api/items\" matches route GET /api/items",
            "web/api.ts -> route:POST /api/v1/users [likely/resolver] fetch (base import.meta.env.VITE_API_URL stripped) POST \"/users\" matches route POST /api/v1/users, the stripped base taken to supply the prefix /api/v1",
        ],
    );
}

#[test]
fn a_known_path_is_never_matched_by_its_tail() {
    check(
        &[src("web/api.ts", "fetch(\"/users\");\n")],
        &["GET /api/v1/users"],
        &["unmatched-call@1: call to GET /users matches no served route"],
    );
}

#[test]
fn external_hosts_and_computed_urls() {
    check(
        &[src(
            "svc/gh.py",
            "import requests\nrequests.get(f\"https://api.github.com/repos/{owner}/{repo}\")\nrequests.get(url)\nrequests.request(method, \"/x\")\n",
        )],
        &["GET /x"],
        &[
            "svc/gh.py -> external:https://api.github.com [certain/syntax] requests GET to external host https://api.github.com (path \"/repos/{}/{}\")",
            "computed-url@3: requests call: the URL is a variable or computed value, so its path cannot be read",
            "computed-url@4: requests call to /x: its HTTP method cannot be read, so it cannot be matched to a route",
        ],
    );
}

#[test]
fn imported_axios_instance_brings_its_base() {
    check(
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
        &["POST /api/orders", "GET /api/orders"],
        &[
            "web/src/orders.ts -> route:POST /api/orders [likely/resolver] axios instance api imported from web/src/client.ts (baseURL from import.meta.env.VITE_API_URL, stripped) POST \"/orders\" matches route POST /api/orders, the stripped base taken to supply the prefix /api",
        ],
    );
}

#[test]
fn a_written_default_base_decides_the_prefix() {
    check(
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
        &["GET /api/v1/orders", "GET /bff/orders", "POST /bff/orders/export"],
        &[
            "web/src/orders.ts -> route:GET /api/v1/orders [likely/resolver] axios instance api imported from web/src/client.ts (baseURL from import.meta.env.VITE_API_URL, stripped; its default /api/v1 applied) GET \"/api/v1/orders\" matches route GET /api/v1/orders",
            "worker/other.py -> route:GET /api/v1/orders [possible/resolver] requests (base environment variable OTHER_API stripped) GET \"/orders\" matches route GET /api/v1/orders, the stripped base taken to supply the prefix /api/v1; one of 2 equally good candidates: GET /api/v1/orders, GET /bff/orders",
            "worker/other.py -> route:GET /bff/orders [possible/resolver] requests (base environment variable OTHER_API stripped) GET \"/orders\" matches route GET /bff/orders, the stripped base taken to supply the prefix /bff; one of 2 equally good candidates: GET /api/v1/orders, GET /bff/orders",
            "worker/tasks.py -> route:GET /api/v1/orders [likely/resolver] requests (base API stripped; its default /api/v1 applied) GET \"/api/v1/orders\" matches route GET /api/v1/orders",
            "unmatched-call@3: call to POST /api/v1/orders/export matches no served route",
        ],
    );
}

#[test]
fn imported_python_client_with_literal_base() {
    check(
        &[
            src("svc/http.py", "import httpx\nclient = httpx.Client(base_url=\"/api/v1\")\n"),
            Source {
                path: "svc/jobs.py",
                text: "from svc.http import client\nclient.get(\"/jobs\")\nclient.delete(\"/jobs/1\")\n",
                bindings: &[("client", "svc/http.py", Some("client"))],
            },
        ],
        &["GET /api/v1/jobs", "DELETE /api/v1/jobs/{job_id}"],
        &[
            "svc/jobs.py -> route:DELETE /api/v1/jobs/{} [possible/resolver] httpx instance client imported from svc/http.py DELETE \"/api/v1/jobs/1\" matches route DELETE /api/v1/jobs/{job_id}; a literal segment meets a route parameter",
            "svc/jobs.py -> route:GET /api/v1/jobs [certain/resolver] httpx instance client imported from svc/http.py GET \"/api/v1/jobs\" matches route GET /api/v1/jobs",
        ],
    );
}

#[test]
fn navigation_and_server_routes_are_not_calls() {
    check(
        &[src(
            "web/app.tsx",
            "import express from \"express\";\nconst app = express();\napp.get(\"/api/items\", (req, res) => res.json([]));\nrouter.navigate(\"/api/items\");\nconst x = <Link to=\"/api/items\" />;\n",
        )],
        &["GET /api/items"],
        &[],
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
        "import { stripe } from \"./client\";\nexport const pay = () => stripe.post(\"/charges\");\nexport const items = () => fetch(\"/api/items\");\nexport const any = (u: string) => fetch(u);\n",
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
