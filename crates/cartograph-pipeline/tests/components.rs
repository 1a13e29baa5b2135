//! Vue and Svelte components are source: a `.ts` module and a `.vue` component import each
//! other, and a component's `fetch` links to the route a FastAPI backend serves, with locations
//! in the component's own lines.

#[allow(dead_code)]
mod common;

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
