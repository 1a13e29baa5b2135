//! Objects a page publishes on `window` for its other scripts: `window.App = App` in an entry
//! module, used as `App.fetch(…)` in a script or a single-file component that imports nothing,
//! or as `const App = window.App` inside a function.
//!
//! Not a recogniser: the syntax half records `window.App = App` (module level, the value a plain
//! name) as the alias `window.App` → `App`, and `const App = window.App` as `App` →
//! `window.App`; a call on a name written like an application object that the file neither
//! declares nor imports (`App.fetch(…)`) is kept as a call on `window.App`. The link half (`link/resolve.rs`) follows `window.App` to the
//! module that publishes it; when several do (one per page bundle), the one sharing the longest
//! directory with the caller, then the first by path. `globalThis.App` is the same global.
//!
//! Example: `window.CTFd = CTFd` in `pages/main.js`, and `CTFd.fetch("/api/v1/hints", …)` in a
//! component → the `fetch` member of the `CTFd` object `pages/main.js` imports.

use tree_sitter::Node;

use crate::syntax::KindExt;
use crate::syntax::text;

/// The global's name in `window.App` or `globalThis.App`.
pub(super) fn global(t: &str) -> Option<&str> {
    let name = t.strip_prefix("window.").or_else(|| t.strip_prefix("globalThis."))?;
    let simple = !name.is_empty()
        && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    simple.then_some(name)
}

/// The alias an assignment or declaration makes between a global and a plain name:
/// `window.App = App` at module level, or `App = window.App` anywhere.
pub(super) fn alias(
    name: Node<'_>,
    value: Node<'_>,
    module_level: bool,
    source: &str,
) -> Option<(String, String)> {
    match (name.kind_name(), value.kind_name()) {
        ("member_expression", "identifier") if module_level => {
            let global = global(text(name, source))?;
            Some((format!("window.{global}"), text(value, source).to_owned()))
        }
        ("identifier", "member_expression") => {
            let global = global(text(value, source))?;
            Some((text(name, source).to_owned(), format!("window.{global}")))
        }
        _ => None,
    }
}

/// True for a name the page's globals may hold: written like an application object (`App`,
/// `CTFd`, an initial capital), and not a builtin every script sees. Lower-case free names
/// (`router`, `fs`, `app`) are far more often a framework's or a runtime's than a published
/// object, and keeping their calls would cost every file for nothing.
pub(super) fn may_be_published(head: &str) -> bool {
    head.starts_with(|c: char| c.is_ascii_uppercase())
        && !matches!(
            head,
            "JSON"
                | "Object"
                | "Array"
                | "Promise"
                | "Math"
                | "Date"
                | "String"
                | "Number"
                | "URL"
                | "Reflect"
                | "Intl"
        )
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn published_globals_and_their_users() {
        check!(
            "web/js/pages/main.js",
            "import App from \"../compat/App\";\nwindow.App = App;\nglobalThis.Other = App.other;\n"
        );
        check!(
            "web/js/components/Form.vue",
            "<script>\nexport default {\n  methods: {\n    save() {\n      App.fetch(\"/api/v1/forms\", { method: \"POST\" });\n      console.log(\"/not/a/call\");\n    },\n  },\n};\n</script>\n"
        );
        check!(
            "web/js/compat/helpers.js",
            "export const remove = (id) => {\n  const App = window.App;\n  return App.fetch(`/api/v1/forms/${id}`, { method: \"DELETE\" });\n};\n"
        );
    }
}
