//! Python `httpx`: `httpx.get/post/…(url)`, `httpx.request("GET", url)`, and
//! `httpx.Client(base_url=…)` / `httpx.AsyncClient(base_url=…)` instances — assigned
//! (`client = httpx.Client(…)`, `self.client = …`) or bound by `with … as client` — then
//! `client.get("/x")`. Instances may be imported from another module.
//!
//! The `base_url` is applied to relative URLs; one from configuration (`settings.API_URL`) is
//! stripped. Computed URLs and methods are refused as `computed-url`.
//!
//! Example: `async with httpx.AsyncClient(base_url=settings.API_URL) as client:
//! await client.get("/items")` → `GET /items`, base `settings.API_URL` stripped.

use super::args::Args;
use super::url::CallUrl;

/// Members (or imported names) that make an instance.
pub(super) const CONSTRUCTORS: &[&str] = &["Client", "AsyncClient"];

/// The `base_url` of a client constructor.
pub(super) fn base(args: &Args) -> Option<CallUrl> {
    Some(args.keyword("base_url")?.base())
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn httpx_calls_and_clients() {
        check!(
            "svc/http.py",
            r#"
import httpx
from httpx import AsyncClient

client = httpx.Client(base_url=settings.API_BASE)
httpx.get("/api/v1/ping")

class Remote:
    def __init__(self):
        self.http = AsyncClient(base_url="http://127.0.0.1:9000/api")

    async def go(self):
        await self.http.patch("/users/me")
        async with httpx.AsyncClient(base_url="https://api.example.com") as ext:
            await ext.get("/v2/things")

client.get("/items")
"#
        );
    }
}
