//! Generated OpenAPI clients.
//!
//! Recognises three shapes the common TypeScript generators emit:
//! - request-option objects passed to the generated core, as in openapi-typescript-codegen and
//!   older @hey-api clients: `__request(OpenAPI, { method: "GET", url: "/api/v1/items/{id}",
//!   path: { id } })`;
//! - @hey-api/client-* calls with a request object: `client.get({ url: "/api/v1/items/{id}" })`;
//! - openapi-fetch calls: `client.GET("/api/v1/items/{id}", { params })`;
//! - openapi-generator's typescript-fetch `BaseAPI.request`, in a generated file:
//!   `this.request({ path: urlPath, method: 'GET', … })`, with `urlPath` a local holding
//!   `` `/api/items/{id}/` `` (its `.replace("{id}", …)` reassignment keeps the placeholder).
//!
//! The generated URL is relative to the client's configured base (`OpenAPI.BASE`, the client's
//! `baseUrl`), whose value is unknown: the call is recorded with that base stripped. A request
//! object without a literal `method` is not taken as a request; an object with a `handler` key is
//! a server route definition (Fastify), never a call. A computed `url` in `__request` is refused
//! as `computed-url`; the other two shapes are taken only with a readable URL.
//!
//! Example: `__request(OpenAPI, { method: "DELETE", url: "/api/v1/items/{id}" })` →
//! `DELETE /api/v1/items/{id}`, base `OpenAPI.BASE` stripped.

use cartograph_core::HttpMethod;

use super::args::{Args, MethodSpec};
use super::url::{CallUrl, StrippedBase};

const UPPER_VERBS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// The generated core's request function.
pub(super) fn is_request_function(name: &str) -> bool {
    name == "__request"
}

/// openapi-fetch's upper-case method names.
pub(super) fn is_upper_verb(name: &str) -> bool {
    UPPER_VERBS.contains(&name)
}

/// `__request(OpenAPI, { method, url, … })`.
pub(super) fn request_object(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let options = args.get(1).or_else(|| args.get(0))?.object.as_ref()?;
    if options.handler || options.method == MethodSpec::Absent {
        return None;
    }
    let url = options.url.clone()?;
    Some((options.method.or_get(), with_base(url, "OpenAPI.BASE")))
}

/// `client.GET("/x", …)`.
pub(super) fn fetch_style(verb: &str, args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let first = args.get(0)?;
    first.literal.as_ref()?;
    let url = first.url.clone();
    if matches!(url, CallUrl::Computed { .. }) {
        return None;
    }
    Some((HttpMethod::parse(verb), with_base(url, "the generated client's baseUrl")))
}

/// `client.get({ url: "/x", … })`.
pub(super) fn client_object(
    verb: Option<&str>,
    args: &Args,
) -> Option<(Option<HttpMethod>, CallUrl)> {
    let method = HttpMethod::parse(verb?)?;
    let options = args.get(0)?.object.as_ref()?;
    let url = options.url.clone()?;
    if options.handler || !matches!(url, CallUrl::Path { .. }) {
        return None;
    }
    Some((Some(method), with_base(url, "the generated client's baseUrl")))
}

/// `this.request({ path, method: "GET" })` in a generated typescript-fetch client.
pub(super) fn base_api_request(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let options = args.get(0)?.object.as_ref()?;
    if options.handler || options.method == MethodSpec::Absent {
        return None;
    }
    let url = options.path.clone()?;
    if !matches!(url, CallUrl::Path { .. }) {
        return None;
    }
    Some((options.method.or_get(), with_base(url, "the generated client's basePath")))
}

/// A relative URL with an unknown configured base in front.
fn with_base(url: CallUrl, description: &str) -> CallUrl {
    match url {
        CallUrl::Path { path, stripped: None } => CallUrl::Path {
            path,
            stripped: Some(StrippedBase {
                description: description.to_owned(),
                known_value: false,
                default_path: None,
                relative: false,
            }),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn generated_clients() {
        check!(
            "web/src/client/services.gen.ts",
            r#"
import { OpenAPI } from "./core/OpenAPI";
import { request as __request } from "./core/request";
export class ItemsService {
  public static readItem(data: { id: string }) {
    return __request(OpenAPI, { method: "GET", url: "/api/v1/items/{id}", path: { id: data.id } });
  }
  public static deleteItem(data: { id: string }) {
    return __request(OpenAPI, { method: "DELETE", url: "/api/v1/items/{id}" });
  }
}
export const listUsers = (options) => (options?.client ?? client).get({ url: "/api/v1/users/", ...options });
const { data } = await fetchClient.GET("/api/v1/things/{thing_id}", { params: { path: { thing_id: 1 } } });
fastify.route({ method: "GET", url: "/served", handler: async () => ({}) });
"#
        );
        check!(
            "web/src/openapi/apis/ItemsApi.ts",
            r#"
/* NOTE: This class is auto generated by OpenAPI Generator. Do not edit the class manually. */
import * as runtime from '../runtime';
export class ItemsApi extends runtime.BaseAPI {
    async itemsRetrieveRaw(requestParameters, initOverrides) {
        let urlPath = `/api/items/{id}/`;
        urlPath = urlPath.replace(`{${"id"}}`, encodeURIComponent(String(requestParameters['id'])));
        const response = await this.request({ path: urlPath, method: 'GET', headers: {} }, initOverrides);
        return new runtime.JSONApiResponse(response);
    }
    async itemsRetrieve(requestParameters, initOverrides) {
        const response = await this.itemsRetrieveRaw(requestParameters, initOverrides);
        return await response.value();
    }
}
"#
        );
    }
}
