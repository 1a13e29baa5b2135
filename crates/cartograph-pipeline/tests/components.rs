//! Vue and Svelte components are source: a `.ts` module and a `.vue` component import each
//! other, and a component's `fetch` links to the route a FastAPI backend serves, with locations
//! in the component's own lines.

#[allow(dead_code)]
use crate::common;

use cartograph_core::{EdgeKind, NodeKey};

const MAIN_PY: &str = r#"from fastapi import FastAPI, APIRouter

router = APIRouter(prefix="/items")


@router.get("/")
def list_items():
    return []


app = FastAPI()
app.include_router(router, prefix="/api")
"#;

const STORE_TS: &str = r#"import ItemList from "./components/ItemList.vue";
export const views = { ItemList };
export const limit = 20;
"#;

const ITEM_LIST_VUE: &str = r#"<template>
  <ul>
    <li v-for="item in items" :key="item.id">{{ item.name }}</li>
  </ul>
</template>

<script setup lang="ts">
import { ref } from "vue";
import { limit } from "../store";
const items = ref([]);
const response = await fetch("/api/items/");
</script>
"#;

const ROW_SVELTE: &str = r#"<script>
  import { limit } from "../store";
</script>
<p>{limit}</p>
"#;

#[test]
fn a_vue_component_imports_is_imported_and_calls_a_fastapi_route() {
    let analysis = common::analyse_files(&[
        ("backend/main.py", MAIN_PY),
        ("web/src/store.ts", STORE_TS),
        ("web/src/components/ItemList.vue", ITEM_LIST_VUE),
        ("web/src/components/Row.svelte", ROW_SVELTE),
        ("web/src/components/Logo.vue", "<template><svg /></template>\n"),
    ]);
    let mut edges: Vec<String> = analysis
        .edges
        .iter()
        .filter(|e| matches!(e.kind, EdgeKind::Imports | EdgeKind::Calls))
        .map(|e| {
            format!(
                "{} {} -> {} @{}:{}",
                e.kind.as_str(),
                e.from.name(),
                e.to.id(),
                e.location.line,
                e.location.column
            )
        })
        .collect();
    edges.sort();
    assert_eq!(
        edges,
        [
            "calls web/src/components/ItemList.vue -> route:GET /api/items @11:24",
            "imports backend/main.py -> package:pypi:fastapi @1:1",
            "imports web/src/components/ItemList.vue -> module:web/src/store.ts @9:1",
            "imports web/src/components/ItemList.vue -> package:npm:vue @8:1",
            "imports web/src/components/Row.svelte -> module:web/src/store.ts @2:3",
            "imports web/src/store.ts -> module:web/src/components/ItemList.vue @1:1",
        ]
    );
    let language = |path: &str| {
        let key = NodeKey::module(&cartograph_core::RepoPath::new(path).unwrap());
        let node = analysis.nodes.iter().find(|n| n.key == key).expect("module node");
        node.attrs.language.map(|l| l.as_str())
    };
    assert_eq!(language("web/src/components/ItemList.vue"), Some("typescript"));
    assert_eq!(language("web/src/components/Row.svelte"), Some("javascript"));
    assert_eq!(language("web/src/components/Logo.vue"), Some("javascript"));
    assert!(
        analysis.refusals.iter().all(|r| !r.location.path.as_str().ends_with(".vue")),
        "{:?}",
        analysis.refusals
    );
}

/// Coverage says what was not seen: files of languages not analysed and other files by
/// extension, a large image counted with the other files (never refused: it would never be
/// read), a large source file refused, and the frontend modules in which no call was recognised.
#[test]
fn coverage_counts_what_was_not_seen() {
    use cartograph_core::RefusalKind;
    use cartograph_pipeline::{AnalysisOptions, DiscoveryOptions, analyse_tree};

    let dir = tempfile::tempdir().expect("tempdir");
    let big = "x".repeat(4096);
    let files: Vec<(&str, String)> = vec![
        ("main.py", MAIN_PY.to_owned()),
        ("web/package.json", r#"{"name": "web", "dependencies": {"react": "19"}}"#.to_owned()),
        (
            "web/src/App.tsx",
            "import React from \"react\";\nexport const App = () => null;\n".to_owned(),
        ),
        ("web/src/api.ts", "export const items = () => fetch(\"/api/items/\");\n".to_owned()),
        ("web/src/util.ts", "export const twice = (n: number) => n * 2;\n".to_owned()),
        (
            "web/src/url.ts",
            "export const all = (u: string[]) => u.map((x) => fetch(x));\n".to_owned(),
        ),
        ("svc/main.go", "package main\n".to_owned()),
        ("svc/util.go", "package main\n".to_owned()),
        ("docs/README.md", "# docs\n".to_owned()),
        ("assets/logo.png", big.clone()),
        ("gen/huge.py", format!("# {big}\n")),
        ("Makefile", "all:\n".to_owned()),
    ];
    for (path, text) in &files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, text).unwrap();
    }
    let options = AnalysisOptions {
        discovery: DiscoveryOptions { max_file_size: 1024, ..DiscoveryOptions::default() },
        ..AnalysisOptions::default()
    };
    let analysis = analyse_tree(dir.path(), &options).expect("analysis");
    let too_large: Vec<&str> = analysis
        .refusals
        .iter()
        .filter(|r| r.kind == RefusalKind::FileTooLarge)
        .map(|r| r.location.path.as_str())
        .collect();
    assert_eq!(too_large, ["gen/huge.py"], "only a file we would read is refused for its size");

    let coverage = cartograph_graph::coverage(&analysis);
    assert_eq!(coverage.files_seen, 12);
    assert_eq!(coverage.files_analysed, 5);
    let other: Vec<(&str, u64, Option<&str>)> =
        coverage.other_files.iter().map(|o| (o.extension.as_str(), o.files, o.language)).collect();
    assert_eq!(
        other,
        [
            ("go", 2, Some("Go")),
            ("", 1, None),
            ("json", 1, None),
            ("md", 1, None),
            ("png", 1, None)
        ]
    );
    assert_eq!(coverage.languages_not_analysed.len(), 1);
    assert_eq!(coverage.languages_not_analysed[0].language, "Go");
    assert_eq!(coverage.languages_not_analysed[0].files, 2);
    assert_eq!(coverage.skipped.len(), 1);
    assert_eq!(coverage.skipped[0].reason, RefusalKind::FileTooLarge);
    assert_eq!(coverage.skipped[0].extension, "py");

    assert_eq!(coverage.frontends.len(), 1, "{:?}", coverage.frontends);
    let web = &coverage.frontends[0];
    assert_eq!(web.modules, 4);
    assert_eq!(web.with_calls, 1, "api.ts calls a served route");
    assert_eq!(web.with_call_refusals, 1, "url.ts calls a computed URL");
    assert_eq!(web.without_calls, 2);
    let examples: Vec<&str> = web.examples.iter().map(|p| p.as_str()).collect();
    assert_eq!(examples, ["web/src/App.tsx", "web/src/util.ts"]);
    let kinds: Vec<RefusalKind> = coverage.refusals.iter().map(|r| r.kind).collect();
    assert!(
        kinds.contains(&RefusalKind::FileTooLarge) && kinds.contains(&RefusalKind::ComputedUrl)
    );
    assert!(coverage.refusals.iter().all(|r| !r.affects.is_empty() && r.files >= 1));
}
