//! axios: `axios.get/post/put/patch/delete/head/options(url, …)`, `axios(url, config)`,
//! `axios({ url, method })`, `axios.request({ url, method })`, and instances made by
//! `axios.create({ baseURL })` used the same ways (`api.get("/x")`, `api({ url })`).
//!
//! An instance may be declared in another module and imported (`import { api } from "./api"`):
//! the call is recorded under the imported name and the linker follows the import to the
//! instance and its `baseURL`. The instance's base is applied to relative URLs; a base taken from
//! configuration (`import.meta.env.VITE_API_URL`) is stripped. A config object whose `url` or
//! `method` is computed is refused (`computed-url`).
//!
//! Example: `const api = axios.create({ baseURL: "/api" }); api.post("/orders", body)` →
//! `POST /api/orders`.

use cartograph_core::HttpMethod;

use super::args::{Args, MethodSpec};
use super::url::CallUrl;

/// Members of the library that make an instance.
pub(super) const CONSTRUCTORS: &[&str] = &["create"];

/// The base URL of `axios.create({ baseURL })`.
pub(super) fn base(args: &Args) -> Option<CallUrl> {
    args.get(0)?.object.as_ref()?.base.clone()
}

/// Reads a call on axios or an axios-like instance; `verb` is `None` for a direct call.
pub(super) fn interpret(verb: Option<&str>, args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let first = args.get(0)?;
    match verb {
        // `axios({ url, method })`, `axios.request({ url, method })`
        None | Some("request") if first.object.is_some() => {
            let config = first.object.as_ref()?;
            let url = config.url.clone()?;
            let method = if config.spread && config.method == MethodSpec::Absent {
                MethodSpec::Unknown
            } else {
                config.method
            };
            Some((method.or_get(), url))
        }
        Some("request") => None,
        // `axios(url, config?)`
        None => {
            let method = args.get(1).map_or(MethodSpec::Absent, |c| c.options_method());
            Some((method.or_get(), first.url.clone()))
        }
        Some(verb) => Some((HttpMethod::parse(verb), first.url.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn axios_library_calls() {
        check!(
            "web/src/orders.ts",
            r#"
import axios from "axios";
axios.get("/api/orders");
axios.post(`${baseUrl}/api/orders`, body);
axios({ url: "/api/orders/1", method: "patch" });
axios.request({ url: "/api/orders/2" });
axios("/api/ping");
axios(someUrl);
axios({ url: "/api/x", method: m });
axios.isCancel(err);
"#
        );
    }

    #[test]
    fn axios_instances() {
        check!(
            "web/src/client.ts",
            r#"
import axios from "axios";
export const api = axios.create({ baseURL: import.meta.env.VITE_API_URL });
const local = axios.create({ baseURL: "/api" });
const fallback = axios.create({ baseURL: import.meta.env.VITE_API_URL ?? "http://localhost:8000/api/v1" });
const envOnly = axios.create({ baseURL: process.env.API_URL || someDefault() });
api.post("/orders", body);
local.get(`/orders/${id}`);
class Svc { client = axios.create({ baseURL: "https://api.stripe.com/v1" }); go() { return this.client.get("/charges"); } }
export default local;
"#
        );
    }

    #[test]
    fn imported_instances_are_left_to_the_linker() {
        check!(
            "web/src/items.ts",
            r#"
import { api } from "./client";
import http from "./http";
api.get("/items");
const { data } = await api.get<Order[]>(`/orders/${id}`);
http({ url: "/things", method: "DELETE" });
const cache = new Map(); cache.get("/items");
"#
        );
    }
}
