//! Components read through their script blocks: positions are those of the original file.

use cartograph_core::RepoPath;

use super::{Component, ScriptBlocks};
use crate::recognise::calls::CallUrl;
use crate::{Extractor, Grammar, ImportTarget};

/// The facts of a component, one line each: `line:column what`, then its language.
fn render(path: &str, source: &str) -> Vec<String> {
    let path = RepoPath::new(path).unwrap();
    let grammar = crate::grammar_for(&path).unwrap();
    let facts = Extractor::new().extract(&path, grammar, source);
    let mut out = vec![format!("language {}", facts.language.as_str())];
    for import in &facts.imports {
        let ImportTarget::Js(js) = &import.target else { panic!("a Python import") };
        let kind = if import.type_only { "import type" } else { "import" };
        out.push(format!("{}:{} {kind} {}", import.line, import.column, js.specifier));
    }
    for call in &facts.calls.calls {
        let method = call.method.map_or("?", |m| m.as_str());
        let url = match &call.url {
            CallUrl::Path { path, .. } => path.clone(),
            _ => "(not a path)".to_owned(),
        };
        out.push(format!("{}:{} call {method} {url}", call.line, call.column));
    }
    for read in &facts.env.reads {
        out.push(format!("{}:{} env {}", read.line, read.column, read.name));
    }
    for refusal in &facts.refusals {
        let location = &refusal.location;
        out.push(format!(
            "{}:{} refused {}: {}",
            location.line,
            location.column,
            refusal.kind.as_str(),
            refusal.reason
        ));
    }
    if facts.error_regions > 0 {
        out.push(format!("{} error regions", facts.error_regions));
    }
    out
}

#[track_caller]
fn check(path: &str, source: &str, expected: &[&str]) {
    assert_eq!(render(path, source), expected, "source:\n{source}");
}

const VUE_TS: &str = r#"<template>
  <ul><li v-for="item in items">{{ item.name }}</li></ul>
  <button @click="fetch('/api/not-a-call')">x</button>
</template>

<script setup lang="ts">
import { ref } from "vue";
import type { Item } from "./types";
const items = ref<Item[]>([]);
const res = await fetch("/api/items");
    const base = import.meta.env.VITE_API_URL;
</script>

<style scoped>
li { color: red; }
</style>
"#;

#[test]
fn a_vue_script_setup_below_a_template_keeps_its_lines_and_columns() {
    check(
        "web/src/components/ItemList.vue",
        VUE_TS,
        &[
            "language typescript",
            "7:1 import vue",
            "8:1 import type ./types",
            "10:19 call GET /api/items",
            "11:18 env VITE_API_URL",
        ],
    );
}

#[test]
fn template_content_is_never_script() {
    let scripts = ScriptBlocks::of(Component::Vue, VUE_TS);
    assert_eq!(scripts.masked.len(), VUE_TS.len());
    assert_eq!(scripts.masked.lines().count(), VUE_TS.lines().count());
    assert!(!scripts.masked.contains("not-a-call"));
    assert!(!scripts.masked.contains("color"));
    assert!(scripts.masked.contains("import { ref } from \"vue\";"));
    assert_eq!(scripts.grammar, Grammar::TypeScript);
}

#[test]
fn vue_script_and_script_setup_are_both_read_and_javascript_by_default() {
    let source = "<script>\nimport a from './a.js'\nexport default { name: 'X' }\n</script>\n\
                  <script setup>\nimport B from './B.vue'\naxios.post('/api/b')\n</script>\n\
                  <template><B /></template>\n";
    check("src/X.vue", source, &["language javascript", "2:1 import ./a.js", "6:1 import ./B.vue"]);
    let scripts = ScriptBlocks::of(Component::Vue, source);
    assert_eq!((scripts.blocks, scripts.grammar), (2, Grammar::JavaScript));
}

#[test]
fn svelte_module_and_instance_scripts_are_read() {
    let source = r#"<script context="module" lang="typescript">
  export const prerender = true;
  import { api } from "$lib/api";
</script>

<script lang="ts">
  import Row from "./Row.svelte";
  let rows = fetch("/api/rows", { method: "POST" });
</script>

<svelte:head><script src="https://cdn.example/x.js"></script><script>fetch("/nope")</script></svelte:head>
{#each rows as row}<Row {row} />{/each}
"#;
    check(
        "src/routes/+page.svelte",
        source,
        &[
            "language typescript",
            "3:3 import $lib/api",
            "7:3 import ./Row.svelte",
            "8:14 call POST /api/rows",
        ],
    );
}

#[test]
fn a_component_without_a_script_block_has_no_facts() {
    check(
        "src/Logo.vue",
        "<template>\n  <svg><path d=\"M0 0\"/></svg>\n</template>\n",
        &["language javascript"],
    );
    check("src/Logo.svelte", "<h1>Hello {name}</h1>\n", &["language javascript"]);
    check("src/Empty.vue", "", &["language javascript"]);
}

#[test]
fn an_external_script_is_an_import_of_its_src() {
    let source = "<template><p /></template>\n<script lang=\"ts\" src=\"./logic.ts\"></script>\n\
                  <script src=\"https://cdn.example/x.js\"></script>\n";
    check("src/A.vue", source, &["language typescript", "2:1 import ./logic.ts"]);
}

#[test]
fn malformed_tags_are_refused_never_a_panic() {
    check(
        "src/A.vue",
        "<template><p/></template>\n<script lang=\"ts\">\nimport a from './a'\n",
        &["language javascript", "2:1 refused syntax-errors: a script block is never closed"],
    );
    check(
        "src/B.vue",
        "<script lang=\"ts\"\nimport a from './a'\n",
        &["language javascript", "1:1 refused syntax-errors: a script tag is never closed"],
    );
    check(
        "src/C.vue",
        "<script lang=\"coffee\">\nx = 1\n</script>\n",
        &[
            "language javascript",
            "1:1 refused syntax-errors: a script block in a language other than TypeScript or \
             JavaScript was not read",
        ],
    );
    // A block read before the broken tag keeps its facts.
    check(
        "src/D.svelte",
        "<script>\nimport a from './a'\n</script>\n<script>\n",
        &[
            "language javascript",
            "2:1 import ./a",
            "4:1 refused syntax-errors: a script block is never closed",
        ],
    );
    for source in [
        "<",
        "<script",
        "<script>",
        "</script>",
        "<!--",
        "<template",
        "<template>",
        "<<>>",
        "<script src=>",
        "<script '>",
        "<style>\u{e9}",
    ] {
        for path in ["src/E.vue", "src/E.svelte"] {
            render(path, source);
        }
    }
}

#[test]
fn a_block_ending_without_a_semicolon_does_not_run_into_the_next() {
    let source = "<script>const a = 1</script><script>import b from './b'</script>";
    check("src/F.svelte", source, &["language javascript", "1:37 import ./b"]);
}

#[test]
fn non_script_types_and_attribute_values_with_brackets() {
    let source = "<script type=\"application/ld+json\">{\"fetch\": 1}</script>\n\
                  <script setup lang=\"ts\" generic=\"T extends Record<string, number>\">\n\
                  import c from './c'\n</script>\n\
                  <i18n>\n<script>import no from './no'</script>\n</i18n>\n\
                  <!-- <script>import no from './no'</script> -->\n";
    check("src/G.vue", source, &["language typescript", "3:1 import ./c"]);
}

#[test]
fn multibyte_text_before_a_script_keeps_byte_columns() {
    let source = "<template><p>héllo wörld</p></template><script>import x from './x'</script>\n";
    let column = source.find("import").unwrap() + 1;
    check("src/H.vue", source, &["language javascript", &format!("1:{column} import ./x")]);
}
