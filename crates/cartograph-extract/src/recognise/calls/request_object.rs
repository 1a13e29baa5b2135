//! Request objects handed to a project's own HTTP layer: `relay.execute({ url, method: "POST" })`.
//!
//! Some applications send every request through a service of their own (a request relay, a
//! kernel interceptor, a test client) whose one method takes a request object. A method call whose
//! first argument is an object literal with a `url` and a literal `method` is read as that request,
//! whatever the method is called: both keys together describe an HTTP request, and nothing else
//! reads them so. The client's verbs (`api.get`, `http.request`) are left to their recognisers,
//! an object with a `handler` is a server route definition (Fastify), never a call, and a `method`
//! that is not a literal, a spread, or a URL that reads as no path leave the object unread: it may
//! be anything else holding those keys.
//!
//! Example: `relay.execute({ url: `${import.meta.env.VITE_API_URL}/auth/logout`, method: "GET" })`
//! → `GET /auth/logout`, base `import.meta.env.VITE_API_URL` stripped.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::args::{Args, MethodSpec};
use super::url::CallUrl;
use crate::syntax::KindExt;
use crate::syntax::text;

/// A cheap look at the arguments: the first is an object literal naming both keys.
pub(super) fn may_be(arguments: Node<'_>, source: &str) -> bool {
    let mut cursor = arguments.walk();
    let first = arguments.named_children(&mut cursor).find(|c| c.kind_name() != "comment");
    first.is_some_and(|o| {
        o.kind_name() == "object" && {
            let t = text(o, source);
            t.contains("url") && t.contains("method")
        }
    })
}

/// Reads the request object.
pub(super) fn interpret(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let object = args.get(0)?.object.as_ref()?;
    if object.handler || object.spread {
        return None;
    }
    let MethodSpec::Known(method) = object.method else { return None };
    let url = object.url.clone()?;
    matches!(url, CallUrl::Path { .. } | CallUrl::External { .. }).then_some((Some(method), url))
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn request_objects_to_a_relay() {
        check!(
            "web/src/platform/session.ts",
            r#"
const relay = getService(RelayService);
export async function signOut() {
  const { response } = relay.execute({ id: 1, url: `${import.meta.env.VITE_API_URL}/session/end`, method: "POST" });
  relay.execute({ url: "/api/ping", version: "HTTP/1.1", method: "GET" });
  relay.execute({ url: endpoint, method: "GET" });
  relay.execute({ url: "/api/x", method: verb });
  relay.execute({ ...base, url: "/api/y", method: "PUT" });
  fastify.route({ url: "/served", method: "GET", handler: () => ({}) });
  store.save({ url: "/api/z" });
}
"#
        );
    }
}
