//! What resolution needs from a `package.json`: the package name, its entry points (`exports`,
//! `types`/`typings`, `module`, `main`, `source`) and its private `imports` map.
//!
//! Conditional exports are flattened into candidate targets in a fixed preference order
//! ([`CONDITION_ORDER`], then any other condition in key order): resolution tries each candidate
//! against the tree and keeps the first that names a file, so a `types` entry pointing at an
//! unbuilt `dist/index.d.ts` does not hide an `import` entry that exists.

use serde_json::{Map, Value};

/// Conditions tried first, in this order; other conditions follow in key order.
const CONDITION_ORDER: &[&str] =
    &["types", "import", "module", "default", "require", "node", "browser", "development"];

/// How deeply nested condition objects are followed; real manifests nest two or three levels.
const MAX_CONDITION_DEPTH: usize = 16;

/// The entry fields read after `exports`, in order.
const ENTRY_FIELDS: &[&str] = &["types", "typings", "module", "main", "source"];

/// One parsed `package.json`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Manifest {
    /// The directory that holds it, `""` at the root.
    pub(super) dir: String,
    pub(super) name: Option<String>,
    exports: Option<Value>,
    /// String values of [`ENTRY_FIELDS`], in that order.
    entry_fields: Vec<String>,
    imports: Option<Map<String, Value>>,
}

impl Manifest {
    /// Reads the fields resolution needs; `None` when the document is not a JSON object.
    pub(super) fn from_value(dir: String, value: &Value) -> Option<Self> {
        let object = value.as_object()?;
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        let entry_fields = ENTRY_FIELDS
            .iter()
            .filter_map(|field| object.get(*field).and_then(Value::as_str))
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
            .collect();
        let exports = object.get("exports").filter(|v| !v.is_null()).cloned();
        let imports = object.get("imports").and_then(Value::as_object).cloned();
        Some(Self { dir, name, exports, entry_fields, imports })
    }

    pub(super) fn has_exports(&self) -> bool {
        self.exports.is_some()
    }

    /// True when the manifest names any entry point for the package root.
    pub(super) fn names_an_entry(&self) -> bool {
        !self.entry_fields.is_empty() || self.export_targets(".").is_some_and(|t| !t.is_empty())
    }

    /// Candidate targets (relative to the package directory) for the package root: the `exports`
    /// entry for `"."`, then the entry fields.
    pub(super) fn root_candidates(&self) -> Vec<String> {
        let mut candidates = self.export_targets(".").unwrap_or_default();
        candidates.extend(self.entry_fields.iter().cloned());
        candidates
    }

    /// Candidate targets for an `exports` subpath (`"."` or `"./sub"`); `None` when the manifest
    /// has no `exports` or does not list the subpath.
    pub(super) fn export_targets(&self, subpath: &str) -> Option<Vec<String>> {
        let exports = self.exports.as_ref()?;
        match exports {
            Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => lookup(map, subpath),
            // A string, an array or a conditions object describes the root only.
            _ if subpath == "." => {
                let mut out = Vec::new();
                condition_targets(exports, None, 0, &mut out);
                Some(out)
            }
            _ => None,
        }
    }

    /// Candidate targets for a `#private` specifier from the `imports` field; `None` when the
    /// manifest does not map it.
    pub(super) fn import_targets(&self, specifier: &str) -> Option<Vec<String>> {
        lookup(self.imports.as_ref()?, specifier)
    }
}

/// Looks `key` up in a subpath map: an exact key first, else the pattern with one `*` and the
/// longest prefix that matches (Node's precedence), with `*` substituted in its targets.
fn lookup(map: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    if let Some(value) = map.get(key) {
        let mut out = Vec::new();
        condition_targets(value, None, 0, &mut out);
        return Some(out);
    }
    let mut best: Option<(&str, &Value, &str)> = None;
    for (pattern, value) in map {
        let Some((prefix, suffix)) = pattern.split_once('*') else {
            continue;
        };
        if suffix.contains('*') || key.len() < prefix.len() + suffix.len() {
            continue;
        }
        if !key.starts_with(prefix) || !key.ends_with(suffix) {
            continue;
        }
        let star = &key[prefix.len()..key.len() - suffix.len()];
        if best.is_none_or(|(p, _, _)| prefix.len() > p.len()) {
            best = Some((prefix, value, star));
        }
    }
    let (_, value, star) = best?;
    let mut out = Vec::new();
    condition_targets(value, Some(star), 0, &mut out);
    Some(out)
}

/// Flattens a target (a string, an array of fallbacks, or a conditions object) into strings, in
/// preference order. `null` (an excluded subpath) yields nothing.
fn condition_targets(value: &Value, star: Option<&str>, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_CONDITION_DEPTH {
        return;
    }
    match value {
        Value::String(target) => {
            let target = match star {
                Some(star) => target.replace('*', star),
                None => target.clone(),
            };
            if !out.contains(&target) {
                out.push(target);
            }
        }
        Value::Array(items) => {
            for item in items {
                condition_targets(item, star, depth + 1, out);
            }
        }
        Value::Object(conditions) => {
            for condition in CONDITION_ORDER {
                if let Some(v) = conditions.get(*condition) {
                    condition_targets(v, star, depth + 1, out);
                }
            }
            for (condition, v) in conditions {
                if !CONDITION_ORDER.contains(&condition.as_str()) {
                    condition_targets(v, star, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// Extensions of build outputs, longest first.
const OUTPUT_EXTENSIONS: &[&str] = &[".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".jsx"];

/// A build output path without its output extension (`a/b.d.ts` → `a/b`).
pub(super) fn strip_output_extension(path: &str) -> &str {
    OUTPUT_EXTENSIONS.iter().find_map(|ext| path.strip_suffix(ext)).unwrap_or(path)
}

/// Where the source of a build output probably is: `dist/x.js` → `src/x`, `lib/esm/x.d.ts` →
/// `src/x` (without extension, for the caller to probe). Empty when `target` is not under a
/// conventional output directory.
pub(super) fn source_candidates(target: &str) -> Vec<String> {
    const OUTPUT_DIRS: &[&str] = &["dist", "lib", "build", "out", "esm", "cjs", "es", "types"];
    const FLAVOUR_DIRS: &[&str] =
        &["esm", "cjs", "es", "mjs", "types", "module", "node", "browser"];
    let target = target.trim_start_matches("./");
    let Some((first, rest)) = target.split_once('/') else {
        return Vec::new();
    };
    if !OUTPUT_DIRS.contains(&first) || rest.is_empty() {
        return Vec::new();
    }
    let stem = strip_output_extension(rest);
    let mut out = vec![format!("src/{stem}")];
    if let Some((flavour, inner)) = stem.split_once('/')
        && FLAVOUR_DIRS.contains(&flavour)
        && !inner.is_empty()
    {
        out.push(format!("src/{inner}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn manifest(value: &Value) -> Manifest {
        Manifest::from_value("pkg".to_owned(), value).unwrap()
    }

    #[test]
    fn root_candidates_follow_condition_preference_then_fields() {
        let m = manifest(&json!({
            "name": "@x/y",
            "main": "./dist/index.js",
            "types": "./dist/index.d.ts",
            "exports": {
                ".": {
                    "require": "./dist/index.cjs",
                    "import": {"types": "./dist/index.d.mts", "default": "./dist/index.mjs"},
                },
                "./package.json": "./package.json",
                "./utils/*": "./src/utils/*.ts",
                "./utils/internal/*": null,
            },
        }));
        assert_eq!(m.name.as_deref(), Some("@x/y"));
        assert_eq!(
            m.root_candidates(),
            [
                "./dist/index.d.mts",
                "./dist/index.mjs",
                "./dist/index.cjs",
                "./dist/index.d.ts",
                "./dist/index.js"
            ]
        );
        assert_eq!(m.export_targets("./utils/a/b"), Some(vec!["./src/utils/a/b.ts".to_owned()]));
        assert_eq!(m.export_targets("./utils/internal/x"), Some(vec![]));
        assert_eq!(m.export_targets("./other"), None);
    }

    #[test]
    fn string_and_condition_exports_describe_the_root() {
        assert_eq!(manifest(&json!({"exports": "./index.js"})).root_candidates(), ["./index.js"]);
        let m = manifest(&json!({"exports": {"default": "./a.js", "types": "./a.d.ts"}}));
        assert_eq!(m.root_candidates(), ["./a.d.ts", "./a.js"]);
        assert_eq!(m.export_targets("./a"), None);
        assert!(!manifest(&json!({"name": "x"})).names_an_entry());
        assert!(Manifest::from_value(String::new(), &json!([1])).is_none());
    }

    #[test]
    fn imports_map_private_specifiers() {
        let m =
            manifest(&json!({"imports": {"#db": "./src/db.ts", "#lib/*": {"node": "./lib/*.js"}}}));
        assert_eq!(m.import_targets("#db"), Some(vec!["./src/db.ts".to_owned()]));
        assert_eq!(m.import_targets("#lib/x"), Some(vec!["./lib/x.js".to_owned()]));
        assert_eq!(m.import_targets("#other"), None);
    }

    #[test]
    fn build_outputs_map_to_sources() {
        assert_eq!(source_candidates("./dist/index.js"), ["src/index"]);
        assert_eq!(source_candidates("dist/esm/a/b.d.ts"), ["src/esm/a/b", "src/a/b"]);
        assert_eq!(source_candidates("./lib/x.mjs"), ["src/x"]);
        assert!(source_candidates("./src/index.ts").is_empty());
        assert!(source_candidates("index.js").is_empty());
    }
}
