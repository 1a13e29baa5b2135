//! swagger-js-codegen clients: one method per operation that hands its fixed request to the
//! client's own `request` method.
//!
//! The generator writes each operation as a method (`Api.prototype.get_item = function (…)` or a
//! class method) that reads `let domain = this.domain, path = "/items/{item_id}"`, substitutes
//! the parameters with `path.replace(…)`, and calls `this.request("GET", domain + path, …)`. The
//! method is the first argument, an upper-case literal; the URL is the second, the client's
//! `domain` (set at run time, a base of unknown value) followed by the operation's path
//! template. The request is recorded with the domain stripped; in a named function it is a
//! generated client method whose callers (`api.get_item({ itemId })`) are attributed the call,
//! as for the other generated clients (`openapi.rs`). A method that is not an upper-case
//! literal, or a URL that is not a base followed by a readable path, is not this shape and is
//! left to the other readings of `this.request`.
//!
//! Example: `this.request("DELETE", domain + path, parameters, body, headers, {}, form,
//! deferred)` with `path = "/items/{item_id}"` → `DELETE /items/{item_id}`, base `domain`
//! stripped.

use cartograph_core::HttpMethod;

use super::args::Args;
use super::url::{self, CallUrl, Part, Role, StrippedBase};

/// `this.request("GET", domain + path, …)` in a generated operation.
pub(super) fn operation_request(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let verb = args.get(0)?.literal.as_deref()?;
    if verb.is_empty() || verb.chars().any(|c| !c.is_ascii_uppercase()) {
        return None;
    }
    let method = HttpMethod::parse(verb).filter(|m| *m != HttpMethod::Any)?;
    // The domain is whatever the client was constructed with (its constructor may default it
    // in a conditional): only its place is read, never its value.
    let (Part::Hole(_), path) = args.get(1)?.parts.as_deref()?.split_first()? else {
        return None;
    };
    if !matches!(path.first(), Some(Part::Literal(l)) if l.starts_with('/')) {
        return None;
    }
    let CallUrl::Path { path, stripped: None } = url::interpret(path.to_vec(), Role::Call) else {
        return None;
    };
    let domain = StrippedBase {
        description: "the generated client's domain".to_owned(),
        known_value: false,
        default_path: None,
        relative: false,
    };
    Some((Some(method), CallUrl::Path { path, stripped: Some(domain) }))
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn swagger_codegen_operations() {
        check!(
            "web/js/client.js",
            r#"
let Client = (function () {
  function Client(options) {
    this.domain = options;
  }
  Client.prototype.request = function (method, url, parameters, body, headers, query, form, deferred) {
    fetch(url, { method, body: JSON.stringify(body) }).then((r) => deferred.resolve(r));
  };
  Client.prototype.list_widgets = function (parameters) {
    let deferred = makeDeferred();
    let domain = this.domain,
      path = "/widgets";
    this.request("GET", domain + path, parameters, {}, {}, {}, {}, deferred);
    return deferred.promise;
  };
  Client.prototype.delete_widget = function (parameters) {
    let domain = this.domain,
      path = "/widgets/{widget_id}";
    path = path.replace("{widget_id}", parameters["widgetId"]);
    this.request("DELETE", domain + path, parameters, {}, {}, {}, {}, deferred);
  };
  Client.prototype.not_an_operation = function (parameters) {
    this.request(parameters.verb, this.domain + "/x");
    this.request("get", this.domain + "/y");
  };
  return Client;
})();
export default Client;
"#
        );
    }
}
