//! jQuery's Ajax helpers: `$.ajax`, `$.get`, `$.post`, `$.getJSON` (also on `jQuery`).
//!
//! The receiver is `$` or `jQuery`, global or imported from the `jquery` package; a `$` bound by
//! an import of any other module (a DOM helper, a shell library) is not jQuery. `$.ajax` takes a
//! settings object (`{ url, type: "POST" }`, `method` being the newer name of `type`), alone or
//! after the URL; the method defaults to `GET`. `$.get` and `$.getJSON` are `GET`, `$.post` is
//! `POST`, each with the URL first or a settings object holding it. A `type` or `method` that is
//! not a literal, or settings that spread another object without naming the method, leave the
//! method unknown and the call is refused; an unreadable URL is refused as `computed-url`.
//! `$.getScript` loads a script and `$(selector).load(…)` fills an element: neither is read.
//!
//! Example: `$.ajax({ url: CTFd.config.urlRoot + "/api/v1/files", type: "POST" })` →
//! `POST /api/v1/files`, base `CTFd.config.urlRoot` stripped.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::args::{Args, MethodSpec};
use super::url::CallUrl;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::javascript::property_key;
use crate::syntax::literal_string;
use crate::{ImportFact, ImportTarget};

/// The Ajax helpers read.
const HELPERS: &[&str] = &["ajax", "get", "post", "getJSON"];

/// True for `$.ajax`, `jQuery.get` and the like, on a jQuery receiver.
pub(super) fn is_request(receiver: &str, helper: &str, imports: &[ImportFact]) -> bool {
    matches!(receiver, "$" | "jQuery") && HELPERS.contains(&helper) && is_jquery(receiver, imports)
}

/// True unless an import binds `receiver` to a module other than jQuery.
fn is_jquery(receiver: &str, imports: &[ImportFact]) -> bool {
    imports.iter().all(|import| {
        let ImportTarget::Js(js) = &import.target else { return true };
        js.specifier == "jquery" || import.bindings.iter().all(|b| b.local != receiver)
    })
}

/// Reads a call of a helper; `arguments` is the call's argument list, for the `type` key.
pub(super) fn interpret(
    helper: &str,
    args: &Args,
    arguments: Node<'_>,
    source: &str,
) -> Option<(Option<HttpMethod>, CallUrl)> {
    let first = args.get(0)?;
    // `$.ajax(url, settings)` or `$.ajax(settings)`.
    let (url, settings_at) = match &first.object {
        Some(settings) => (settings.url.clone()?, 0),
        None => (first.url.clone(), 1),
    };
    let method = match helper {
        "ajax" => match args.get(settings_at).and_then(|a| a.object.as_ref()) {
            None => MethodSpec::Absent,
            Some(settings) => {
                match (settings.method, settings_type(arguments, settings_at, source)) {
                    (MethodSpec::Absent, MethodSpec::Absent) if settings.spread => {
                        MethodSpec::Unknown
                    }
                    (MethodSpec::Absent, by_type) => by_type,
                    (by_method, _) => by_method,
                }
            }
        },
        "post" => MethodSpec::Known(HttpMethod::Post),
        _ => MethodSpec::Absent,
    };
    Some((method.or_get(), url))
}

/// The `type` key of the settings object at `index`.
fn settings_type(arguments: Node<'_>, index: usize, source: &str) -> MethodSpec {
    let mut cursor = arguments.walk();
    let settings =
        arguments.named_children(&mut cursor).filter(|c| c.kind_name() != "comment").nth(index);
    let Some(settings) = settings.filter(|s| s.kind_name() == "object") else {
        return MethodSpec::Absent;
    };
    let mut cursor = settings.walk();
    for pair in settings.named_children(&mut cursor) {
        match pair.kind_name() {
            "pair" => {
                let (Some(key), Some(value)) = (pair.field("key"), pair.field("value")) else {
                    continue;
                };
                if property_key(key, source).as_deref() != Some("type") {
                    continue;
                }
                return match literal_string(value, source).as_deref().and_then(HttpMethod::parse) {
                    Some(m) if m != HttpMethod::Any => MethodSpec::Known(m),
                    _ => MethodSpec::Unknown,
                };
            }
            "shorthand_property_identifier" if crate::syntax::text(pair, source) == "type" => {
                return MethodSpec::Unknown;
            }
            _ => {}
        }
    }
    MethodSpec::Absent
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn jquery_ajax_helpers() {
        check!(
            "static/js/admin.js",
            r##"
$.ajax({ url: App.config.urlRoot + "/api/v1/uploads", type: "POST", data: form });
$.ajax({ url: "/api/v1/things", method: "DELETE" });
$.ajax("/api/v1/ping", { type: "put" });
$.ajax({ url: "/api/v1/plain" });
$.ajax({ url: "/api/v1/computed", type: verb });
$.ajax({ ...defaults, url: "/api/v1/spread" });
$.get(App.config.urlRoot + "/api/v1/items/" + window.ITEM_ID, function (r) {});
jQuery.post("/api/v1/items", { name: "x" });
$.getJSON(`/api/v1/items/${id}/stats`);
$.get({ url: "/api/v1/settings" });
$.getScript(App.config.urlRoot + plugin.script);
$("#list").load("/fragments/list");
"##
        );
        check!(
            "web/src/shell.js",
            r#"
import $ from "./dom";
$.get("/api/v1/not-jquery");
"#
        );
        check!(
            "web/src/page.js",
            r#"
import $ from "jquery";
$.post("/api/v1/imported", body);
"#
        );
    }
}
