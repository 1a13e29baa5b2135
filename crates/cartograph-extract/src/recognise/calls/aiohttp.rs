//! Python `aiohttp`: `aiohttp.ClientSession(base_url=…)` instances — `session = …` or
//! `async with aiohttp.ClientSession(…) as session` — then `session.get(url)`,
//! `session.post(url)`, `session.request("GET", url)`.
//!
//! The `base_url` is applied to relative URLs; one from configuration is stripped. Computed URLs
//! and methods are refused as `computed-url`.
//!
//! Example: `async with aiohttp.ClientSession() as session: session.get("http://localhost:8000/x")`
//! → `GET /x` on a local host.

use super::args::Args;
use super::url::CallUrl;

/// Members (or imported names) that make an instance.
pub(super) const CONSTRUCTORS: &[&str] = &["ClientSession"];

/// The `base_url` of `ClientSession`.
pub(super) fn base(args: &Args) -> Option<CallUrl> {
    Some(args.named_or("base_url", 0)?.base())
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn aiohttp_sessions() {
        check!(
            "svc/fetcher.py",
            r#"
import aiohttp

async def run(base):
    async with aiohttp.ClientSession(base_url="http://localhost:8080") as session:
        async with session.get("/api/status") as resp:
            pass
        await session.request("POST", "/api/jobs")
    async with aiohttp.ClientSession() as other:
        await other.get(base)
"#
        );
    }
}
