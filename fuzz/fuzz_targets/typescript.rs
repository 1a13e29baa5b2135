//! TypeScript and JavaScript (and the script blocks of Vue and Svelte components): the extractor
//! on one file, then the whole pipeline on a tree holding it.
#![no_main]

use cartograph_core::RepoPath;
use cartograph_extract::{Extractor, grammar_for};
use cartograph_fuzz::{MemoryTree, analyse, pick, text};
use libfuzzer_sys::fuzz_target;

/// Every grammar of the family and both component formats, and the file names the route
/// recognisers look at (Next.js `app/**/route.ts`, `pages/api`, SvelteKit `+server.ts`).
const PATHS: &[&str] = &[
    "web/src/api.ts",
    "web/src/App.tsx",
    "server/index.js",
    "web/src/view.jsx",
    "server/routes.mjs",
    "server/config.cjs",
    "web/app/api/items/route.ts",
    "web/pages/api/items.ts",
    "web/src/routes/items/+server.ts",
    "web/src/Item.vue",
    "web/src/Item.svelte",
    "web/src/types.d.ts",
];

fuzz_target!(|data: &[u8]| {
    let path = *pick(data, PATHS);
    let source = text(data);
    let repo_path = RepoPath::new(path).expect("a fixed valid path");
    let grammar = grammar_for(&repo_path).expect("every path has a grammar");
    let _ = Extractor::new().extract(&repo_path, grammar, &source);
    let _ = Extractor::imports_only().extract(&repo_path, grammar, &source);
    let tree = MemoryTree::new([
        (path, data.to_vec()),
        ("web/package.json", br#"{"name":"web","dependencies":{"axios":"1"}}"#.to_vec()),
        (
            "web/tsconfig.json",
            br#"{"compilerOptions":{"baseUrl":".","paths":{"@/*":["src/*"]}}}"#.to_vec(),
        ),
        ("web/src/lib.ts", b"export const api = (p: string) => fetch(`/api/${p}`);\n".to_vec()),
        ("server/app.py", b"from fastapi import FastAPI\napp = FastAPI()\n@app.get('/api/items')\ndef items(): ...\n".to_vec()),
    ]);
    let _ = analyse(&tree);
});
