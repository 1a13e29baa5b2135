//! ky: `ky.get/post/put/patch/delete/head(url, options)`, `ky(url, { method })`, and instances
//! made by `ky.create({ prefixUrl })` / `ky.extend({ prefixUrl })` (also `api.extend(…)` on an
//! instance), used the same ways.
//!
//! The instance's `prefixUrl` is applied to relative URLs; a prefix from configuration is stripped.
//! Options that are not an object literal or have a computed `method` leave the method unknown
//! and the call is refused, like a computed URL.
//!
//! Example: `const api = ky.create({ prefixUrl: "/api" }); api.get("items")` → `GET /api/items`.

use cartograph_core::HttpMethod;

use super::args::{Args, MethodSpec};
use super::url::CallUrl;

/// Members of the library (or of an instance) that make an instance.
pub(super) const CONSTRUCTORS: &[&str] = &["create", "extend"];

/// The base URL of `ky.create({ prefixUrl })`.
pub(super) fn base(args: &Args) -> Option<CallUrl> {
    args.get(0)?.object.as_ref()?.base.clone()
}

/// Reads a call on ky or a ky instance; `verb` is `None` for a direct call.
pub(super) fn interpret(verb: Option<&str>, args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let first = args.get(0)?;
    match verb {
        None => {
            let method = args.get(1).map_or(MethodSpec::Absent, |o| o.options_method());
            Some((method.or_get(), first.url.clone()))
        }
        Some("request") => None,
        Some(verb) => Some((HttpMethod::parse(verb), first.url.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn ky_calls_and_instances() {
        check!(
            "web/src/ky.ts",
            r#"
import ky from "ky";
ky.get("/api/items").json();
ky("/api/items", { method: "post", json: {} });
const api = ky.create({ prefixUrl: "/api/v2" });
const admin = api.extend({ prefixUrl: "/admin" });
api.delete("items/3");
admin.get("users");
"#
        );
    }
}
