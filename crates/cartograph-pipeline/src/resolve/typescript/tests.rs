//! Data-driven tests of TS/JS resolution over an in-memory tree: one `check` helper.

use std::collections::HashMap;

use cartograph_core::{RefusalKind, RepoPath};

use super::JsResolver;
use crate::TreeIndex;
use crate::resolve::Resolution;

/// A tree: file paths, and the contents of the configuration files among them.
struct Fixture {
    resolver: JsResolver,
    refusals: Vec<(String, String)>,
}

fn fixture(files: &[&str], configs: &[(&str, &str)]) -> Fixture {
    let mut paths: Vec<RepoPath> = files.iter().map(|f| RepoPath::new(f).unwrap()).collect();
    paths.extend(configs.iter().map(|(f, _)| RepoPath::new(f).unwrap()));
    let index = TreeIndex::new(paths);
    let contents: HashMap<&str, &str> = configs.iter().copied().collect();
    let read = |p: &RepoPath| contents.get(p.as_str()).map(|s| (*s).to_owned());
    let (resolver, refusals) = JsResolver::new(&index, &read);
    let refusals = refusals
        .into_iter()
        .inspect(|r| assert_eq!(r.kind, RefusalKind::InvalidConfig))
        .map(|r| (r.location.path.to_string(), r.reason))
        .collect();
    Fixture { resolver, refusals }
}

/// Renders a resolution compactly: `module path`, `likely path`, `package npm:x`, `builtin x`,
/// `unresolved: reason`.
fn render(resolution: Resolution) -> String {
    match resolution {
        Resolution::Module { path, confidence, note } => match (confidence.as_str(), note) {
            ("certain", None) => format!("module {path}"),
            (c, Some(note)) => format!("{c} {path} ({note})"),
            (c, None) => format!("{c} {path}"),
        },
        Resolution::Package { ecosystem, name } => format!("package {}:{name}", ecosystem.as_str()),
        Resolution::Builtin { name, .. } => format!("builtin {name}"),
        Resolution::Unresolved { reason } => format!("unresolved: {reason}"),
    }
}

/// Resolves each `(from, specifier)` and compares with the expected rendering; a `…` suffix in
/// the expectation matches any rest (for long notes).
fn check(fixture: &Fixture, cases: &[(&str, &str, &str)]) {
    for (from, specifier, expected) in cases {
        let from = RepoPath::new(from).unwrap();
        let got = render(fixture.resolver.resolve(&from, specifier));
        let ok = match expected.strip_suffix('…') {
            Some(prefix) => got.starts_with(prefix),
            None => got == *expected,
        };
        assert!(ok, "{from} imports {specifier:?}\n  got:      {got}\n  expected: {expected}");
    }
}

#[test]
fn relative_specifiers() {
    let f = fixture(
        &[
            "src/app.ts",
            "src/util.ts",
            "src/view.tsx",
            "src/types.d.ts",
            "src/legacy.js",
            "src/comp/index.tsx",
            "src/esm/Foo.ts",
            "src/esm/Bar.mts",
            "src/esm/Baz.js",
            "src/styles.css",
            "src/data.json",
            "src/icon.svg",
            "src/both.js",
            "src/both.ts",
            "index.ts",
            "lib/main.cjs",
        ],
        &[],
    );
    check(
        &f,
        &[
            ("src/app.ts", "./util", "module src/util.ts"),
            ("src/app.ts", "./view", "module src/view.tsx"),
            ("src/app.ts", "./types", "module src/types.d.ts"),
            ("src/app.ts", "./legacy", "module src/legacy.js"),
            ("src/app.ts", "./comp", "module src/comp/index.tsx"),
            ("src/app.ts", "./comp/", "module src/comp/index.tsx"),
            ("src/app.ts", "./util.ts", "module src/util.ts"),
            ("src/app.ts", "./esm/Foo.js", "module src/esm/Foo.ts"),
            ("src/app.ts", "./esm/Bar.mjs", "module src/esm/Bar.mts"),
            ("src/app.ts", "./esm/Baz.js", "module src/esm/Baz.js"),
            ("src/app.ts", "./both.js", "module src/both.js"),
            ("src/app.ts", "./styles.css", "module src/styles.css"),
            ("src/app.ts", "./data.json", "module src/data.json"),
            ("src/app.ts", "./icon.svg?react", "module src/icon.svg"),
            ("src/esm/Foo.ts", "../util", "module src/util.ts"),
            ("src/esm/Foo.ts", "../..", "module index.ts"),
            ("src/app.ts", "..", "module index.ts"),
            ("index.ts", ".", "module index.ts"),
            ("src/app.ts", "../lib/main.cjs", "module lib/main.cjs"),
            (
                "src/app.ts",
                "./missing",
                "unresolved: relative import \"./missing\" resolves to no file",
            ),
            (
                "src/app.ts",
                "../../../x",
                "unresolved: relative import \"../../../x\" leaves the tree",
            ),
            (
                "src/app.ts",
                "./comp/missing.js",
                "unresolved: relative import \"./comp/missing.js\" resolves to no file",
            ),
        ],
    );
}

#[test]
fn builtins_packages_and_urls() {
    let f = fixture(&["src/a.ts"], &[]);
    check(
        &f,
        &[
            ("src/a.ts", "fs", "builtin fs"),
            ("src/a.ts", "node:fs", "builtin fs"),
            ("src/a.ts", "fs/promises", "builtin fs/promises"),
            ("src/a.ts", "node:fs/promises", "builtin fs/promises"),
            ("src/a.ts", "node:test", "builtin test"),
            ("src/a.ts", "child_process", "builtin child_process"),
            ("src/a.ts", "bun:test", "builtin bun:test"),
            ("src/a.ts", "test", "package npm:test"),
            ("src/a.ts", "react", "package npm:react"),
            ("src/a.ts", "react-dom/client", "package npm:react-dom"),
            ("src/a.ts", "@tanstack/react-query", "package npm:@tanstack/react-query"),
            ("src/a.ts", "@scope/pkg/deep/path.js", "package npm:@scope/pkg"),
            ("src/a.ts", "lodash.debounce", "package npm:lodash.debounce"),
            ("src/a.ts", "npm:chalk@5", "package npm:chalk"),
            ("src/a.ts", "npm:@std/path@1/posix", "package npm:@std/path"),
            (
                "src/a.ts",
                "https://esm.sh/react",
                "unresolved: URL import \"https://esm.sh/react\" is not resolved against the tree",
            ),
            (
                "src/a.ts",
                "data:text/javascript,1",
                "unresolved: a data: URL import is not resolved against the tree",
            ),
            ("src/a.ts", "virtual:pwa-register", "unresolved: URL import…"),
            (
                "src/a.ts",
                "/abs/x",
                "unresolved: absolute import path \"/abs/x\" is not resolved against the tree",
            ),
            (
                "src/a.ts",
                "@/components/x",
                "unresolved: import \"@/components/x\" matches no path alias and is not a valid package name",
            ),
            ("src/a.ts", "~/x", "unresolved: import \"~/x\" matches no path alias…"),
            ("src/a.ts", "", "unresolved: an empty import specifier names no module"),
            (
                "src/a.ts",
                "#internal",
                "unresolved: package import \"#internal\" has no package.json above the importing file",
            ),
        ],
    );
}

#[test]
fn tsconfig_paths_with_extends_chain_and_comments() {
    let f = fixture(
        &[
            "apps/web/src/main.ts",
            "apps/web/src/components/Button.tsx",
            "apps/web/src/lib/utils/index.ts",
            "shared/env.ts",
            "apps/api/src/server.ts",
            "apps/api/src/db/client.ts",
        ],
        &[
            (
                "tsconfig.base.json",
                r#"{
                    // Shared options.
                    "compilerOptions": {
                        "strict": true,
                        "paths": { "@shared/*": ["shared/*"], "env": ["shared/env.ts"], },
                    },
                }"#,
            ),
            (
                "apps/web/tsconfig.json",
                r#"{
                    "extends": "./tsconfig.paths",
                    /* the app */
                    "compilerOptions": { "jsx": "react-jsx" }
                }"#,
            ),
            (
                "apps/web/tsconfig.paths.json",
                r#"{ "extends": ["@tsconfig/strictest/tsconfig.json", "../../tsconfig.base.json"],
                     "compilerOptions": { "paths": { "@/*": ["./src/*"], "@/lib/*": ["./src/lib/*", "./missing/*"] } } }"#,
            ),
            ("apps/api/tsconfig.json", r#"{ "extends": "../../tsconfig.base.json" }"#),
        ],
    );
    assert_eq!(f.refusals, Vec::<(String, String)>::new());
    check(
        &f,
        &[
            (
                "apps/web/src/main.ts",
                "@/components/Button",
                "module apps/web/src/components/Button.tsx",
            ),
            ("apps/web/src/main.ts", "@/lib/utils", "module apps/web/src/lib/utils/index.ts"),
            // The web app's own `paths` replaces the base's wholesale, as in TypeScript.
            ("apps/web/src/main.ts", "@shared/env", "package npm:@shared/env"),
            (
                "apps/web/src/main.ts",
                "@/nothing",
                "unresolved: import \"@/nothing\" matches the path alias \"@/*\" but resolves to no file",
            ),
            ("apps/api/src/server.ts", "@shared/env", "module shared/env.ts"),
            ("apps/api/src/server.ts", "env", "module shared/env.ts"),
            (
                "apps/api/src/server.ts",
                "@/components/Button",
                "unresolved: import \"@/components/Button\" matches no path alias…",
            ),
            ("apps/api/src/server.ts", "./db/client", "module apps/api/src/db/client.ts"),
        ],
    );
}

#[test]
fn base_url_and_catch_all_paths() {
    let f = fixture(
        &["src/main.ts", "src/components/Nav.tsx", "src/util.ts", "src/events.ts", "vendor/x.ts"],
        &[(
            "tsconfig.json",
            r#"{"compilerOptions": {"baseUrl": "./src", "paths": {"*": ["*", "../vendor/*"], "~/*": ["./*"]}}}"#,
        )],
    );
    check(
        &f,
        &[
            ("src/main.ts", "components/Nav", "module src/components/Nav.tsx"),
            ("src/main.ts", "x", "module vendor/x.ts"),
            ("src/main.ts", "~/util", "module src/util.ts"),
            // `*` matched but found nothing: fall through to packages.
            ("src/main.ts", "react", "package npm:react"),
            ("src/main.ts", "path", "builtin path"),
            // A file that shadows a built-in under baseUrl wins, with a note.
            ("src/main.ts", "events", "module src/events.ts"),
        ],
    );
    let g = fixture(
        &["app/src/main.ts", "app/src/helpers.ts", "app/src/os.ts"],
        &[("app/jsconfig.json", r#"{"compilerOptions": {"baseUrl": "src"}}"#)],
    );
    check(
        &g,
        &[
            ("app/src/main.ts", "helpers", "module app/src/helpers.ts"),
            (
                "app/src/main.ts",
                "os",
                "likely app/src/os.ts (the name is also a Node built-in module)",
            ),
            ("app/src/main.ts", "lodash", "package npm:lodash"),
        ],
    );
}

#[test]
fn nearest_config_wins_and_solution_configs_borrow_from_references() {
    let f = fixture(
        &["src/main.ts", "src/lib/a.ts", "tests/x.test.ts", "tools/t.ts"],
        &[
            (
                "tsconfig.json",
                r#"{"files": [], "references": [{"path": "./tsconfig.node.json"}, {"path": "./tsconfig.app.json"}]}"#,
            ),
            ("tsconfig.node.json", r#"{"compilerOptions": {"types": ["node"]}}"#),
            ("tsconfig.app.json", r#"{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}"#),
            ("tools/tsconfig.json", r#"{"compilerOptions": {}}"#),
        ],
    );
    check(
        &f,
        &[
            (
                "src/main.ts",
                "@/lib/a",
                "likely src/lib/a.ts (the path alias comes from a project the nearest tsconfig references)",
            ),
            ("tests/x.test.ts", "@/lib/a", "likely src/lib/a.ts…"),
            ("tools/t.ts", "@/lib/a", "unresolved: import \"@/lib/a\" matches no path alias…"),
        ],
    );
}

#[test]
fn extends_cycles_and_invalid_configs() {
    let f = fixture(
        &["a/x.ts", "b/y.ts", "c/z.ts", "c/lib/q.ts", "d/w.ts", "e/v.ts", "e/src/u.ts", "pkg.json"],
        &[
            (
                "a/tsconfig.json",
                r#"{"extends": "../b/tsconfig.json", "compilerOptions": {"paths": {"q": ["../c/lib/q"]}}}"#,
            ),
            ("b/tsconfig.json", r#"{"extends": "../a/tsconfig.json"}"#),
            ("c/tsconfig.json", "{ \"compilerOptions\": { \"paths\": { \"q\": [\"lib/q\"] } "),
            ("d/tsconfig.json", r#"{"extends": "./missing.json"}"#),
            (
                "e/tsconfig.json",
                r#"{"extends": "./node_modules/@tsconfig/node18/tsconfig.json", "compilerOptions": {"baseUrl": "src"}}"#,
            ),
            ("tsconfig.json", r#"["not", "an", "object"]"#),
        ],
    );
    assert_eq!(
        f.refusals,
        vec![
            (
                "c/tsconfig.json".to_owned(),
                "configuration file is not valid JSON with comments (line 1, column 51)".to_owned()
            ),
            (
                "d/tsconfig.json".to_owned(),
                "extends a configuration file that is not in the tree".to_owned()
            ),
            ("tsconfig.json".to_owned(), "configuration file is not a JSON object".to_owned()),
        ]
    );
    check(
        &f,
        &[
            ("a/x.ts", "q", "module c/lib/q.ts"),
            ("b/y.ts", "q", "module c/lib/q.ts"),
            ("c/z.ts", "q", "package npm:q"),
            ("e/v.ts", "u", "module e/src/u.ts"),
        ],
    );
}

#[test]
fn unreadable_config_is_refused() {
    let index = TreeIndex::new(
        ["tsconfig.json", "package.json", "a.ts"].map(|p| RepoPath::new(p).unwrap()),
    );
    let (resolver, refusals) = JsResolver::new(&index, &|_| None);
    let reasons: Vec<_> =
        refusals.iter().map(|r| (r.location.path.as_str(), r.reason.as_str())).collect();
    assert_eq!(
        reasons,
        [
            ("package.json", "package manifest could not be read"),
            ("tsconfig.json", "configuration file could not be read"),
        ]
    );
    let from = RepoPath::new("a.ts").unwrap();
    assert_eq!(render(resolver.resolve(&from, "./a")), "module a.ts");
}

#[test]
fn workspace_packages() {
    let f = fixture(
        &[
            "apps/web/src/main.ts",
            "packages/ui/src/index.ts",
            "packages/ui/src/button.tsx",
            "packages/ui/src/forms/input.tsx",
            "packages/core/src/index.ts",
            "packages/core/src/math.ts",
            "packages/core/README.md",
            "packages/utils/index.js",
            "packages/utils/strings.js",
            "packages/conv/src/index.ts",
            "packages/conv/src/deep/x.ts",
            "packages/types/lib/index.d.ts",
            "packages/empty/README.md",
            "examples/ui/package.json",
        ],
        &[
            (
                "package.json",
                r#"{"name": "monorepo", "private": true, "workspaces": ["packages/*", "apps/*"]}"#,
            ),
            (
                "packages/ui/package.json",
                r#"{"name": "@acme/ui", "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"}, "./button": "./src/button.tsx", "./forms/*": "./src/forms/*.tsx"}}"#,
            ),
            ("examples/ui/package.json", r#"{"name": "@acme/ui"}"#),
            (
                "packages/core/package.json",
                r#"{"name": "@acme/core", "main": "dist/index.js", "source": "src/index.ts"}"#,
            ),
            ("packages/utils/package.json", r#"{"name": "utils"}"#),
            ("packages/conv/package.json", r#"{"name": "conv", "main": "./lib/index.js"}"#),
            (
                "packages/types/package.json",
                r#"{"name": "@acme/types", "types": "lib/index.d.ts"}"#,
            ),
            ("packages/empty/package.json", r#"{"name": "empty", "main": "index.js"}"#),
            (
                "apps/web/package.json",
                r##"{"name": "web", "imports": {"#ui": "@acme/ui", "#core/*": "./src/*.ts", "#missing": "./nope.ts"}}"##,
            ),
        ],
    );
    assert_eq!(f.refusals, Vec::<(String, String)>::new());
    let m = "apps/web/src/main.ts";
    check(
        &f,
        &[
            // Two manifests are named `@acme/ui`; only one resolves, so it wins.
            (
                m,
                "@acme/ui",
                "likely packages/ui/src/index.ts (the manifest entry is a build output that is not in the tree; matched its source file)",
            ),
            (m, "@acme/ui/button", "module packages/ui/src/button.tsx"),
            (m, "@acme/ui/forms/input", "module packages/ui/src/forms/input.tsx"),
            (
                m,
                "@acme/ui/src/button",
                "likely packages/ui/src/button.tsx (the package's exports map does not list this subpath; matched the file by path)",
            ),
            (m, "@acme/core", "module packages/core/src/index.ts"),
            (
                m,
                "@acme/core/math",
                "likely packages/core/src/math.ts (matched under the package's src directory, not a manifest entry)",
            ),
            (m, "@acme/core/README.md", "module packages/core/README.md"),
            (
                m,
                "@acme/core/nope",
                "unresolved: import \"@acme/core/nope\" names the workspace package @acme/core but matches no file in it",
            ),
            (m, "utils", "module packages/utils/index.js"),
            (m, "utils/strings", "module packages/utils/strings.js"),
            (m, "conv", "likely packages/conv/src/index.ts (the manifest entry is a build output…"),
            (m, "conv/lib/deep/x.js", "likely packages/conv/src/deep/x.ts…"),
            (m, "@acme/types", "module packages/types/lib/index.d.ts"),
            (
                m,
                "empty",
                "unresolved: import \"empty\" names the workspace package empty but matches no file in it",
            ),
            (m, "@acme/other", "package npm:@acme/other"),
            (m, "#ui", "likely packages/ui/src/index.ts…"),
            (m, "#core/x", "unresolved: package import \"#core/x\" resolves to no file"),
            (m, "#missing", "unresolved: package import \"#missing\" resolves to no file"),
            (
                m,
                "#unknown",
                "unresolved: package import \"#unknown\" is not in the imports of the nearest package.json",
            ),
            // A relative import of a package directory goes through its manifest.
            (m, "../../../packages/core", "module packages/core/src/index.ts"),
            ("packages/ui/src/button.tsx", "@acme/core", "module packages/core/src/index.ts"),
        ],
    );
}

#[test]
fn private_imports_resolve_in_the_package_scope() {
    let f = fixture(
        &["src/db/index.ts", "src/app.ts", "lib/x.ts"],
        &[(
            "package.json",
            r##"{"name": "app", "imports": {"#db": "./src/db/index.ts", "#lib/*": {"types": "./lib/*.d.ts", "default": "./lib/*.js"}}}"##,
        )],
    );
    check(
        &f,
        &[
            ("src/app.ts", "#db", "module src/db/index.ts"),
            ("src/app.ts", "#lib/x", "module lib/x.ts"),
            (
                "src/app.ts",
                "app",
                "unresolved: import \"app\" names the workspace package app but matches no file in it",
            ),
        ],
    );
}

#[test]
fn resolver_is_sync() {
    fn assert_sync<T: Sync + Send>() {}
    assert_sync::<JsResolver>();
}

#[test]
fn duplicate_workspace_names_are_less_than_certain_only_when_both_resolve() {
    let f = fixture(
        &["app/main.ts", "packages/kit/src/index.ts", "examples/kit/src/index.ts", "z/kit/x.ts"],
        &[
            ("packages/kit/package.json", r#"{"name": "kit"}"#),
            ("examples/kit/package.json", r#"{"name": "kit"}"#),
            ("z/kit/package.json", r#"{"name": "kit"}"#),
        ],
    );
    check(
        &f,
        &[
            (
                "app/main.ts",
                "kit",
                "likely examples/kit/src/index.ts (the manifest names no entry point that is in the tree; matched the conventional index file; 2 workspace packages with this name resolve it; took the shallowest)",
            ),
            ("app/main.ts", "kit/x", "module z/kit/x.ts"),
        ],
    );
}

#[test]
fn build_outputs_map_through_the_package_tsconfig_layout() {
    let f = fixture(
        &["app/main.ts", "packages/a/lib/index.ts", "packages/a/lib/deep/x.ts"],
        &[
            (
                "packages/a/package.json",
                r#"{"name": "a", "exports": {".": "./build/esm/index.js", "./x": {"types": "./build/types/deep/x.d.ts"}}}"#,
            ),
            (
                "packages/a/tsconfig.json",
                r#"{"extends": "./tsconfig.build.json", "compilerOptions": {"rootDir": "lib"}}"#,
            ),
            ("packages/a/tsconfig.build.json", r#"{"compilerOptions": {"outDir": "build/esm"}}"#),
        ],
    );
    check(
        &f,
        &[
            ("app/main.ts", "a", "module packages/a/lib/index.ts"),
            // Outside `outDir`: no layout mapping, and `build/types` is not under `src`.
            (
                "app/main.ts",
                "a/x",
                "unresolved: import \"a/x\" names the workspace package a but matches no file in it",
            ),
        ],
    );
}

#[test]
fn reasons_never_quote_long_specifiers() {
    let f = fixture(&["a.ts"], &[]);
    let long = format!("./{}", "x".repeat(500));
    let from = RepoPath::new("a.ts").unwrap();
    let Resolution::Unresolved { reason } = f.resolver.resolve(&from, &long) else {
        panic!("a missing relative import resolves to nothing");
    };
    assert!(reason.len() < 160, "{reason}");
    assert!(reason.contains("…\""), "{reason}");
    check(
        &f,
        &[(
            "a.ts",
            "data:text/javascript,export default 1",
            "unresolved: a data: URL import is not resolved against the tree",
        )],
    );
}

#[test]
fn components_and_svelte_kit_aliases() {
    const LIB: &str =
        "likely web/src/lib/api.ts (SvelteKit's default $lib alias for the project's src/lib)";
    let f = fixture(
        &[
            "web/svelte.config.js",
            "web/src/lib/api.ts",
            "web/src/lib/Row.svelte",
            "web/src/lib/index.ts",
            "web/src/routes/+page.svelte",
            "vue/src/App.vue",
            "vue/src/main.ts",
            "vue/src/components/Item.vue",
            "other/src/a.ts",
        ],
        &[],
    );
    check(
        &f,
        &[
            ("vue/src/main.ts", "./App.vue", "module vue/src/App.vue"),
            ("vue/src/App.vue", "./main", "module vue/src/main.ts"),
            ("vue/src/App.vue", "./components/Item.vue", "module vue/src/components/Item.vue"),
            // Vite does not try `.vue` after a specifier without an extension.
            (
                "vue/src/main.ts",
                "./App",
                "unresolved: relative import \"./App\" resolves to no file",
            ),
            ("web/src/routes/+page.svelte", "$lib/api", LIB),
            ("web/src/routes/+page.svelte", "$lib/api.ts", LIB),
            ("web/src/routes/+page.svelte", "$lib/Row.svelte", "likely web/src/lib/Row.svelte (…"),
            ("web/src/routes/+page.svelte", "$lib", "likely web/src/lib/index.ts (…"),
            (
                "web/src/routes/+page.svelte",
                "$lib/missing",
                "unresolved: import \"$lib/missing\" names SvelteKit's $lib but resolves to no file under src/lib",
            ),
            ("web/src/routes/+page.svelte", "$app/stores", "package npm:@sveltejs/kit"),
            ("web/src/routes/+page.svelte", "$env/static/public", "package npm:@sveltejs/kit"),
            // Outside a Svelte project `$lib` means nothing.
            (
                "other/src/a.ts",
                "$lib/api",
                "unresolved: import \"$lib/api\" matches no path alias and is not a valid package name",
            ),
        ],
    );
}
