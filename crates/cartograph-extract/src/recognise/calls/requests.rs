//! Python `requests`: `requests.get/post/put/patch/delete/head/options(url, …)`,
//! `requests.request("GET", url)` (also `url=` / `method=` keywords), and `requests.Session()`
//! instances (`session.get(url)`), also imported from another module.
//!
//! The argument conventions here are shared by `httpx` and `aiohttp`, whose files reuse them.
//! A computed URL (`requests.get(url)`) is refused as `computed-url`; a computed method too.
//!
//! Example: `requests.get(f"{settings.API_URL}/items/{item_id}")` → `GET /items/{item_id}`, base
//! `settings.API_URL` stripped.

use cartograph_core::HttpMethod;

use super::args::{Args, MethodSpec};
use super::url::CallUrl;

/// Members of the library that make an instance.
pub(super) const CONSTRUCTORS: &[&str] = &["Session", "session"];

/// Reads a call on a Python HTTP client (module or instance).
pub(super) fn interpret(verb: Option<&str>, args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    match verb? {
        "request" => {
            let method = args.named_or("method", 0).map_or(MethodSpec::Unknown, |a| a.method());
            let url = args.named_or("url", 1)?.url.clone();
            Some((method.or_get(), url))
        }
        verb => Some((HttpMethod::parse(verb), args.named_or("url", 0)?.url.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn requests_calls() {
        check!(
            "svc/client.py",
            r#"
import requests
from app.core.config import settings

def sync(item_id, url):
    requests.get(f"{settings.API_URL}/items/{item_id}")
    requests.post("http://localhost:8000/api/v1/items/", json={})
    requests.request("DELETE", "/api/v1/items/" + str(item_id))
    requests.get(url=settings.BASE_URL + "/health")
    requests.get(url)
    requests.get("https://api.github.com/repos/a/b", timeout=3)
    s = requests.Session()
    s.put("/api/v1/things")
    {}.get("/not-a-call")
"#
        );
    }

    #[test]
    fn module_constants_are_substituted() {
        check!(
            "svc/billing.py",
            r#"
import os
import requests
STRIPE_CHARGES_URL = "https://api.stripe.com/v1/charges"
API_BASE = os.environ.get("SHIPYARD_API", "http://localhost:8000/api/v1")
PREFIX = "/api/v2"
TWICE = "/a"
TWICE = "/b"

def charge(order_id):
    requests.post(STRIPE_CHARGES_URL, data={})
    requests.get(f"{API_BASE}/orders/{order_id}")
    requests.get(PREFIX + "/orders")
    requests.get(TWICE)
"#
        );
    }

    #[test]
    fn imported_python_clients_are_left_to_the_linker() {
        check!(
            "svc/jobs.py",
            r#"
import os
import app.http as http
from app.http import client
client.get("/api/v1/jobs")
http.client.get("/api/v1/runs")
os.environ.get("/not/a/call")
"#
        );
    }
}
