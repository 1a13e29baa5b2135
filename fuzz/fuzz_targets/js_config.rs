//! `tsconfig.json`, `jsconfig.json` and `package.json`: the JS/TS resolver's readers (JSON with
//! comments, `extends` chains, `paths`, `baseUrl`, `references`, `exports`/`imports` maps), then
//! resolution of specifiers through what they declared.
//!
//! The input is split at NUL bytes: each piece is the content of the next file of [`FILES`]; a
//! piece after the files, if any, holds more specifiers to resolve, one a line.
#![no_main]

use std::collections::HashMap;

use cartograph_core::RepoPath;
use cartograph_fuzz::split;
use cartograph_pipeline::TreeIndex;
use cartograph_pipeline::resolve::jsonc;
use cartograph_pipeline::resolve::typescript::JsResolver;
use libfuzzer_sys::fuzz_target;

/// The configuration files the input fills, in order.
const FILES: &[&str] = &[
    "tsconfig.json",
    "package.json",
    "packages/shared/package.json",
    "packages/shared/tsconfig.json",
    "web/tsconfig.json",
    "web/jsconfig.json",
    "web/tsconfig.base.json",
];

/// Source files that are always in the tree, for resolutions to land on.
const SOURCES: &[&str] = &[
    "src/index.ts",
    "src/lib/util.ts",
    "packages/shared/src/index.ts",
    "packages/shared/dist/index.js",
    "web/src/main.tsx",
    "web/src/components/Button.tsx",
    "web/svelte.config.js",
];

/// Specifiers resolved from each source file.
const SPECIFIERS: &[&str] = &[
    "@/lib/util",
    "@/components/Button",
    "~/lib/util",
    "shared",
    "shared/sub",
    "@scope/shared",
    "#internal",
    "#internal/x",
    "$lib/util",
    "./lib/util",
    "../src/index",
    "lib/util",
    "components/Button",
    "react",
    "node:fs",
    "npm:left-pad@1",
];

fuzz_target!(|data: &[u8]| {
    let pieces = split(data, FILES.len() + 1);
    let mut contents: HashMap<RepoPath, String> = HashMap::new();
    for (file, piece) in FILES.iter().zip(&pieces) {
        let text = String::from_utf8_lossy(piece).into_owned();
        let _ = jsonc::parse(&text);
        let _ = jsonc::strip(&text);
        contents.insert(RepoPath::new(file).expect("a fixed valid path"), text);
    }
    let extra: Vec<String> = pieces
        .get(FILES.len())
        .map(|p| String::from_utf8_lossy(p).lines().take(16).map(str::to_owned).collect())
        .unwrap_or_default();
    let files = contents
        .keys()
        .cloned()
        .chain(SOURCES.iter().map(|s| RepoPath::new(s).expect("a fixed valid path")));
    let index = TreeIndex::new(files);
    let read = |path: &RepoPath| contents.get(path).cloned();
    let (resolver, _refusals) = JsResolver::new(&index, &read);
    for source in SOURCES {
        let from = RepoPath::new(source).expect("a fixed valid path");
        for specifier in SPECIFIERS.iter().copied().chain(extra.iter().map(String::as_str)) {
            let _ = resolver.resolve(&from, specifier);
        }
    }
});
