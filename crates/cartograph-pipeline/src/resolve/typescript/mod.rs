//! TypeScript/JavaScript import resolution: from a specifier as written to a file of the tree, an
//! npm package, a Node built-in, or an unresolved reason.
//!
//! A specifier is tried, in order, as:
//!
//! 1. **relative** (`./x`, `../x`, `.`): the exact file; for `.js`/`.jsx`/`.mjs`/`.cjs` the
//!    TypeScript source it stands for (`./Foo.js` → `Foo.ts`, TypeScript's ESM convention); the
//!    path plus each of [`EXTENSIONS`]; then a directory's `package.json` entry or its `index`
//!    with those extensions. A non-source file (`./styles.css`) is a module like any other. A Vite
//!    style query (`./icon.svg?react`) is ignored for the lookup;
//! 2. **absolute** (`/x`) or **URL** (`https:`, `data:`, `virtual:`): unresolved, except `node:`
//!    and `bun:` (built-ins) and `npm:` (a package);
//! 3. **`#private`**: the `imports` map of the nearest `package.json`;
//! 4. **bare**: the nearest tsconfig's `paths` (see the `tsconfig` module), a Node built-in, the
//!    file under `baseUrl`, a workspace package (every `package.json` with a `name`, see the
//!    `manifest` module), else the npm package `@scope/pkg` or `pkg` named by its first
//!    segment(s).
//!
//! In a SvelteKit project (a directory with a `svelte.config.*`, the nearest at or above the
//! importing file), a bare `$lib` or `$lib/x` that no tsconfig path matches is SvelteKit's default
//! alias for that project's `src/lib` (likely: `kit.alias` and `kit.files.lib` can move it; the
//! generated `.svelte-kit/tsconfig.json` that declares it is rarely in the tree), and
//! `$app/…`, `$env/…` and `$service-worker` are virtual modules of the npm package
//! `@sveltejs/kit`.
//!
//! Workspace packages resolve through their manifest: for the bare name, `exports["."]`, then
//! `types`/`typings`, `module`, `main`, `source`; for `name/sub`, `exports["./sub"]` (with `*`
//! patterns), then `<dir>/sub`. A manifest entry that is a build output missing from the tree
//! (`dist/index.js`) is mapped to its source (`src/index.ts`), and `src/index.*`, `index.*` and
//! `<dir>/src/sub` are conventions; matches through those are `likely`, with a note saying why.
//!
//! Everything is read and indexed in [`JsResolver::new`]; [`JsResolver::resolve`] does hash
//! lookups only, so it is cheap to call from every rayon worker.

mod manifest;
#[cfg(test)]
mod tests;
mod tsconfig;

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use cartograph_core::{Confidence, Ecosystem, Refusal, RefusalKind, RepoPath, SourceLocation};

use super::Resolution;
use super::builtins::is_node_builtin;
use super::jsonc;
use crate::TreeIndex;
use crate::tree::{dir_of, join_normalised};
use manifest::{Manifest, source_candidates, strip_output_extension};
use tsconfig::AliasSettings;

/// Extensions tried after a specifier without one, in TypeScript's order of preference.
pub const EXTENSIONS: &[&str] =
    &[".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"];

/// The most characters of a specifier a reason quotes.
const MAX_SHOWN: usize = 80;

/// How many `package.json` entry indirections a directory lookup follows (a `main` naming a
/// directory that has its own manifest).
const MAX_ENTRY_DEPTH: u8 = 2;

const NOTE_BUILD_OUTPUT: &str =
    "the manifest entry is a build output that is not in the tree; matched its source file";
const NOTE_CONVENTIONAL_INDEX: &str =
    "the manifest names no entry point that is in the tree; matched the conventional index file";
const NOTE_UNEXPORTED: &str =
    "the package's exports map does not list this subpath; matched the file by path";
const NOTE_SRC_SUBPATH: &str = "matched under the package's src directory, not a manifest entry";
const NOTE_REFERENCED_PROJECT: &str =
    "the path alias comes from a project the nearest tsconfig references";
const NOTE_BUILTIN_NAME: &str = "the name is also a Node built-in module";
const NOTE_SVELTE_LIB: &str = "SvelteKit's default $lib alias for the project's src/lib";

/// The file names that mark a SvelteKit (or Svelte) project's root.
const SVELTE_CONFIGS: &[&str] =
    &["svelte.config.js", "svelte.config.mjs", "svelte.config.cjs", "svelte.config.ts"];

/// Resolves TS/JS import specifiers against the tree.
#[derive(Debug, Default)]
pub struct JsResolver {
    tree: TreeIndex,
    /// Alias settings, one per config that was read.
    aliases: Vec<AliasSettings>,
    /// Directory → its nearest config's settings (absent when no config applies).
    dir_alias: HashMap<String, usize>,
    manifests: Vec<Manifest>,
    /// Workspace package name → its manifests, shallowest first (then in path order).
    by_name: HashMap<String, Vec<usize>>,
    /// Directory holding a `package.json` → its manifest.
    manifest_at: HashMap<String, usize>,
    /// Directory → the nearest `package.json` at or above it (the package scope).
    dir_scope: HashMap<String, usize>,
    /// Directory → the nearest directory at or above it with a `svelte.config.*`.
    dir_svelte: HashMap<String, String>,
}

/// A file found for a specifier, with the notes that make it less than certain.
struct Hit {
    path: RepoPath,
    notes: Vec<Cow<'static, str>>,
}

impl Hit {
    fn exact(path: RepoPath) -> Self {
        Self { path, notes: Vec::new() }
    }

    fn with(mut self, note: &'static str) -> Self {
        self.notes.push(Cow::Borrowed(note));
        self
    }

    fn with_owned(mut self, note: String) -> Self {
        self.notes.push(Cow::Owned(note));
        self
    }

    fn with_optional(self, note: Option<&'static str>) -> Self {
        match note {
            Some(note) => self.with(note),
            None => self,
        }
    }

    fn into_resolution(self) -> Resolution {
        if self.notes.is_empty() {
            return Resolution::module(self.path);
        }
        Resolution::Module {
            path: self.path,
            confidence: Confidence::Likely,
            note: Some(self.notes.join("; ")),
        }
    }
}

impl JsResolver {
    /// Builds the resolver: reads tsconfig/jsconfig files and every `package.json` through `read`.
    /// Configuration that cannot be read or parsed becomes `invalid-config` refusals, and
    /// resolution proceeds without it.
    pub fn new(
        index: &TreeIndex,
        read: &dyn Fn(&RepoPath) -> Option<String>,
    ) -> (Self, Vec<Refusal>) {
        let mut refusals = Vec::new();
        let mut resolver = JsResolver { tree: index.clone(), ..JsResolver::default() };
        for file in index.files().filter(|f| f.file_name() == "package.json") {
            match read_manifest(file, read) {
                Ok(manifest) => resolver.add_manifest(manifest),
                Err(reason) => refusals.push(Refusal::new(
                    RefusalKind::InvalidConfig,
                    SourceLocation::file(file.clone()),
                    reason,
                )),
            }
        }
        for candidates in resolver.by_name.values_mut() {
            let manifests = &resolver.manifests;
            let key = |i: &usize| manifests.get(*i).map(|m| (depth_of(&m.dir), m.dir.clone()));
            candidates.sort_by_key(key);
        }
        let package_dirs: HashMap<String, String> = resolver
            .by_name
            .iter()
            .filter_map(|(name, candidates)| {
                let first = resolver.manifests.get(*candidates.first()?)?;
                Some((name.clone(), first.dir.clone()))
            })
            .collect();
        let configs = tsconfig::load(index, read, &package_dirs);
        refusals.extend(configs.refusals);
        resolver.aliases = configs.settings;

        let svelte_roots: BTreeSet<String> =
            index.files().filter(|f| SVELTE_CONFIGS.contains(&f.file_name())).map(dir_of).collect();
        // Every directory of the tree, parents before children (a prefix sorts first).
        let mut dirs = BTreeSet::from([String::new()]);
        for file in index.files() {
            let mut dir = file.parent();
            while let Some(d) = dir {
                if !dirs.insert(d.as_str().to_owned()) {
                    break;
                }
                dir = d.parent();
            }
        }
        for dir in dirs {
            let parent = dir.rsplit_once('/').map_or("", |(p, _)| p);
            let inherit = |map: &HashMap<String, usize>| {
                if dir.is_empty() { None } else { map.get(parent).copied() }
            };
            let alias = configs.by_dir.get(&dir).copied().or_else(|| inherit(&resolver.dir_alias));
            let scope =
                resolver.manifest_at.get(&dir).copied().or_else(|| inherit(&resolver.dir_scope));
            if let Some(alias) = alias {
                resolver.dir_alias.insert(dir.clone(), alias);
            }
            let svelte = if svelte_roots.contains(&dir) {
                Some(dir.clone())
            } else if dir.is_empty() {
                None
            } else {
                resolver.dir_svelte.get(parent).cloned()
            };
            if let Some(svelte) = svelte {
                resolver.dir_svelte.insert(dir.clone(), svelte);
            }
            if let Some(scope) = scope {
                resolver.dir_scope.insert(dir, scope);
            }
        }
        refusals.sort();
        (resolver, refusals)
    }

    fn add_manifest(&mut self, manifest: Manifest) {
        let index = self.manifests.len();
        self.manifest_at.insert(manifest.dir.clone(), index);
        if let Some(name) = &manifest.name {
            self.by_name.entry(name.clone()).or_default().push(index);
        }
        self.manifests.push(manifest);
    }

    /// Resolves `specifier` as written in the file `from`.
    pub fn resolve(&self, from: &RepoPath, specifier: &str) -> Resolution {
        if specifier.trim().is_empty() {
            return unresolved("an empty import specifier names no module".to_owned());
        }
        let from_dir = dir_of(from);
        if is_relative(specifier) {
            return self.resolve_relative(&from_dir, specifier);
        }
        if specifier.starts_with('/') || specifier.starts_with('\\') {
            return unresolved(format!(
                "absolute import path {} is not resolved against the tree",
                shown(specifier)
            ));
        }
        if specifier.starts_with('#') {
            return self.resolve_private(&from_dir, specifier);
        }
        if let Some((scheme, rest)) = url_scheme(specifier) {
            return match scheme {
                "node" => builtin(rest),
                "bun" => builtin(specifier),
                "npm" => {
                    // `npm:pkg@1.2` or `npm:@scope/pkg@^1/sub`: the name without the version.
                    let name = split_package(rest).map(|(name, _)| strip_version(name));
                    match name.filter(|n| is_package_name(n)) {
                        Some(name) => package(name),
                        None => unresolved(format!(
                            "import {} does not name a valid npm package",
                            shown(specifier)
                        )),
                    }
                }
                "data" => {
                    unresolved("a data: URL import is not resolved against the tree".to_owned())
                }
                _ => unresolved(format!(
                    "URL import {} is not resolved against the tree",
                    shown(specifier)
                )),
            };
        }
        self.resolve_bare(&from_dir, specifier)
    }

    fn resolve_relative(&self, from_dir: &str, specifier: &str) -> Resolution {
        let path_part = strip_query(specifier);
        let Some(target) = join_normalised(from_dir, path_part) else {
            return unresolved(format!("relative import {} leaves the tree", shown(specifier)));
        };
        let hit = if path_part.ends_with('/') {
            self.probe_dir(&target, 0)
        } else {
            self.probe(&target, 0)
        };
        match hit {
            Some(hit) => hit.into_resolution(),
            None => unresolved(format!("relative import {} resolves to no file", shown(specifier))),
        }
    }

    /// `#x` through the `imports` map of the importing file's package.
    fn resolve_private(&self, from_dir: &str, specifier: &str) -> Resolution {
        let Some(manifest) = self.dir_scope.get(from_dir).and_then(|&i| self.manifests.get(i))
        else {
            return unresolved(format!(
                "package import {} has no package.json above the importing file",
                shown(specifier)
            ));
        };
        let Some(targets) = manifest.import_targets(specifier) else {
            return unresolved(format!(
                "package import {} is not in the imports of the nearest package.json",
                shown(specifier)
            ));
        };
        for target in &targets {
            if target.starts_with("./") {
                if let Some(hit) = self.probe_target(&manifest.dir, target) {
                    return hit.into_resolution();
                }
            } else if !target.starts_with('#') && !target.starts_with('/') {
                // A bare target names another package.
                return self.resolve_bare(from_dir, target);
            }
        }
        if let Some(hit) = self.probe_build_outputs(&manifest.dir, &targets) {
            return hit.into_resolution();
        }
        unresolved(format!("package import {} resolves to no file", shown(specifier)))
    }

    fn resolve_bare(&self, from_dir: &str, specifier: &str) -> Resolution {
        let path_part = strip_query(specifier);
        let alias = self.dir_alias.get(from_dir).and_then(|&i| self.aliases.get(i));
        let reference_note = alias.filter(|a| a.from_reference).map(|_| NOTE_REFERENCED_PROJECT);
        if let Some(matched) = alias.and_then(|a| a.match_paths(path_part)) {
            for target in &matched.targets {
                if let Some(hit) = self.probe(target, 0) {
                    return hit.with_optional(reference_note).into_resolution();
                }
            }
            if !matched.alias.falls_through {
                return unresolved(format!(
                    "import {} matches the path alias \"{}\" but resolves to no file",
                    shown(specifier),
                    matched.alias.pattern
                ));
            }
        }
        let is_builtin = is_node_builtin(path_part);
        if let Some(base) = alias.and_then(|a| a.base_url.as_deref())
            && let Some(hit) =
                join_normalised(base, path_part).and_then(|target| self.probe(&target, 0))
        {
            let hit = hit.with_optional(reference_note);
            let hit = if is_builtin { hit.with(NOTE_BUILTIN_NAME) } else { hit };
            return hit.into_resolution();
        }
        if is_builtin {
            return builtin(path_part);
        }
        if path_part.starts_with('$')
            && let Some(root) = self.dir_svelte.get(from_dir)
        {
            return self.resolve_svelte_kit(root, specifier, path_part);
        }
        let Some((name, sub)) = split_package(path_part).filter(|(name, _)| is_package_name(name))
        else {
            return unresolved(format!(
                "import {} matches no path alias and is not a valid package name",
                shown(specifier)
            ));
        };
        let Some(candidates) = self.by_name.get(name) else {
            return package(name);
        };
        // When several packages share the name (examples, fixtures), the first that resolves wins,
        // and it is certain only if no other one would resolve too.
        let resolve_in = |manifest: &Manifest| match sub {
            None => self.package_root(manifest, 0),
            Some(sub) => self.package_subpath(manifest, sub),
        };
        let mut hits =
            candidates.iter().filter_map(|&i| self.manifests.get(i)).filter_map(resolve_in);
        let hit = hits.next();
        let others = hits.count();
        let hit = match hit {
            Some(hit) if others > 0 => Some(hit.with_owned(format!(
                "{} workspace packages with this name resolve it; took the shallowest",
                others + 1
            ))),
            hit => hit,
        };
        match hit {
            Some(hit) => hit.into_resolution(),
            None => unresolved(format!(
                "import {} names the workspace package {name} but matches no file in it",
                shown(specifier)
            )),
        }
    }

    /// A SvelteKit alias (`$lib/x`) or virtual module (`$app/stores`) of the project at `root`.
    fn resolve_svelte_kit(&self, root: &str, specifier: &str, path_part: &str) -> Resolution {
        let first = path_part.split('/').next().unwrap_or(path_part);
        match first {
            "$lib" => {
                let lib = child(root, "src/lib");
                let rest = path_part.strip_prefix("$lib").unwrap_or_default();
                let hit = match rest.strip_prefix('/') {
                    Some(sub) if !sub.is_empty() => {
                        join_normalised(&lib, sub).and_then(|target| self.probe(&target, 0))
                    }
                    _ => self.probe_dir(&lib, 0),
                };
                match hit {
                    Some(hit) => hit.with(NOTE_SVELTE_LIB).into_resolution(),
                    None => unresolved(format!(
                        "import {} names SvelteKit's $lib but resolves to no file under src/lib",
                        shown(specifier)
                    )),
                }
            }
            "$app" | "$env" | "$service-worker" => package("@sveltejs/kit"),
            _ => unresolved(format!(
                "import {} matches no path alias and is not a valid package name",
                shown(specifier)
            )),
        }
    }

    /// The entry file of a package: manifest entries that exist, then their sources, then the
    /// conventional index files.
    fn package_root(&self, manifest: &Manifest, depth: u8) -> Option<Hit> {
        let candidates = manifest.root_candidates();
        for candidate in &candidates {
            let target = join_normalised(&manifest.dir, candidate);
            // An entry naming the package directory itself must not re-enter this manifest.
            let depth = if target.as_deref() == Some(manifest.dir.as_str()) {
                MAX_ENTRY_DEPTH
            } else {
                depth
            };
            if let Some(hit) = target.and_then(|t| self.probe(&t, depth)) {
                return Some(hit);
            }
        }
        if let Some(hit) = self.probe_build_outputs(&manifest.dir, &candidates) {
            return Some(hit);
        }
        if let Some(hit) = self.probe_index(&child(&manifest.dir, "src")) {
            return Some(hit.with(NOTE_CONVENTIONAL_INDEX));
        }
        let hit = self.probe_index(&manifest.dir)?;
        // Without any entry, `index.js` is Node's own default, not a guess.
        Some(if manifest.names_an_entry() { hit.with(NOTE_CONVENTIONAL_INDEX) } else { hit })
    }

    /// `name/sub` inside a workspace package.
    fn package_subpath(&self, manifest: &Manifest, sub: &str) -> Option<Hit> {
        if let Some(targets) = manifest.export_targets(&format!("./{sub}")) {
            for target in &targets {
                if let Some(hit) = self.probe_target(&manifest.dir, target) {
                    return Some(hit);
                }
            }
            if let Some(hit) = self.probe_build_outputs(&manifest.dir, &targets) {
                return Some(hit);
            }
        }
        if let Some(hit) = self.probe_target(&manifest.dir, sub) {
            return Some(if manifest.has_exports() { hit.with(NOTE_UNEXPORTED) } else { hit });
        }
        if let Some(hit) = self.probe_target(&manifest.dir, &format!("src/{sub}")) {
            return Some(hit.with(NOTE_SRC_SUBPATH));
        }
        self.probe_build_outputs(&manifest.dir, &[sub.to_owned()])
    }

    /// A manifest target (relative to the package directory).
    fn probe_target(&self, dir: &str, target: &str) -> Option<Hit> {
        self.probe(&join_normalised(dir, target)?, MAX_ENTRY_DEPTH)
    }

    /// The sources of build-output targets. When the package's tsconfig declares `outDir` and
    /// `rootDir`, a target under `outDir` maps to the same place under `rootDir`, as TypeScript's
    /// project references map outputs to sources (certain); otherwise conventional output
    /// directories map to `src` (`dist/x.js` → `src/x.ts`, likely).
    fn probe_build_outputs(&self, dir: &str, targets: &[String]) -> Option<Hit> {
        let layout = self
            .dir_alias
            .get(dir)
            .and_then(|&i| self.aliases.get(i))
            .and_then(|a| a.build_layout.as_ref());
        if let Some((out_dir, root_dir)) = layout {
            for target in targets {
                let Some(full) = join_normalised(dir, target) else {
                    continue;
                };
                let Some(rest) =
                    full.strip_prefix(out_dir.as_str()).and_then(|r| r.strip_prefix('/'))
                else {
                    continue;
                };
                let source = child(root_dir, strip_output_extension(rest));
                if let Some(hit) = self.probe(&source, MAX_ENTRY_DEPTH) {
                    return Some(hit);
                }
            }
        }
        targets
            .iter()
            .flat_map(|target| source_candidates(target))
            .find_map(|source| self.probe_target(dir, &source))
            .map(|hit| hit.with(NOTE_BUILD_OUTPUT))
    }

    /// A file path as a module: exact, its TypeScript source, with an extension, or a directory.
    fn probe(&self, path: &str, depth: u8) -> Option<Hit> {
        if !path.is_empty() {
            if let Some(file) = self.tree.file(path) {
                return Some(Hit::exact(file));
            }
            if let Some((stem, sources)) = typescript_sources(path) {
                for ext in sources {
                    if let Some(file) = self.tree.file(&format!("{stem}{ext}")) {
                        return Some(Hit::exact(file));
                    }
                }
            }
            for ext in EXTENSIONS {
                if let Some(file) = self.tree.file(&format!("{path}{ext}")) {
                    return Some(Hit::exact(file));
                }
            }
        }
        self.probe_dir(path, depth)
    }

    /// A directory as a module: its `package.json` entry, else its `index` file.
    fn probe_dir(&self, path: &str, depth: u8) -> Option<Hit> {
        if !self.tree.is_dir(path) {
            return None;
        }
        if depth < MAX_ENTRY_DEPTH
            && let Some(manifest) = self.manifest_at.get(path).and_then(|&i| self.manifests.get(i))
        {
            return self.package_root(manifest, depth + 1);
        }
        self.probe_index(path)
    }

    fn probe_index(&self, dir: &str) -> Option<Hit> {
        EXTENSIONS
            .iter()
            .find_map(|ext| self.tree.file(&child(dir, &format!("index{ext}"))))
            .map(Hit::exact)
    }
}

fn read_manifest(
    file: &RepoPath,
    read: &dyn Fn(&RepoPath) -> Option<String>,
) -> Result<Manifest, String> {
    let text = read(file).ok_or_else(|| "package manifest could not be read".to_owned())?;
    let value = jsonc::parse(&text).map_err(|e| format!("package manifest is {e}"))?;
    Manifest::from_value(dir_of(file), &value)
        .ok_or_else(|| "package manifest is not a JSON object".to_owned())
}

/// The specifier quoted for a reason, cut to [`MAX_SHOWN`] characters: a specifier can be long
/// (a `data:` URL holds code), and a reason never quotes source text.
fn shown(specifier: &str) -> String {
    match specifier.char_indices().nth(MAX_SHOWN) {
        Some((cut, _)) => format!("\"{}…\"", &specifier[..cut]),
        None => format!("\"{specifier}\""),
    }
}

/// The number of components of a directory path, 0 for the root.
fn depth_of(dir: &str) -> usize {
    if dir.is_empty() { 0 } else { dir.split('/').count() }
}

fn unresolved(reason: String) -> Resolution {
    Resolution::Unresolved { reason }
}

fn builtin(name: &str) -> Resolution {
    Resolution::Builtin { ecosystem: Ecosystem::Npm, name: name.to_owned() }
}

fn package(name: &str) -> Resolution {
    Resolution::Package { ecosystem: Ecosystem::Npm, name: name.to_owned() }
}

/// `dir/name`, or `name` at the root.
fn child(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") }
}

fn is_relative(specifier: &str) -> bool {
    specifier == "."
        || specifier == ".."
        || specifier.starts_with("./")
        || specifier.starts_with("../")
}

/// The specifier without a bundler query (`./icon.svg?react` → `./icon.svg`).
fn strip_query(specifier: &str) -> &str {
    specifier.split_once('?').map_or(specifier, |(path, _)| path)
}

/// `(scheme, rest)` when the specifier starts with a URL scheme of two or more characters (a
/// one-letter "scheme" is a Windows drive, handled as an absolute path would be).
fn url_scheme(specifier: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = specifier.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic()
        && scheme.len() >= 2
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some((scheme, rest))
}

/// Splits a bare specifier into its package name (`pkg` or `@scope/pkg`) and the subpath after
/// it, if any.
pub(super) fn split_package(specifier: &str) -> Option<(&str, Option<&str>)> {
    let name_end = if specifier.starts_with('@') {
        let (scope, rest) = specifier.split_once('/')?;
        let package = rest.split('/').next().unwrap_or(rest);
        if scope.len() < 2 || package.is_empty() {
            return None;
        }
        scope.len() + 1 + package.len()
    } else {
        specifier.find('/').unwrap_or(specifier.len())
    };
    let name = specifier.get(..name_end)?;
    if name.is_empty() {
        return None;
    }
    let sub = specifier.get(name_end + 1..).filter(|s| !s.is_empty());
    Some((name, sub))
}

/// True for a plausible npm package name: `pkg` or `@scope/pkg`, each part made of URL-safe
/// characters and not starting with `.`, `_` or `~`.
fn is_package_name(name: &str) -> bool {
    let part_ok = |part: &str| {
        !part.is_empty()
            && !part.starts_with(['.', '_', '~'])
            && part.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
    };
    if name.len() > 214 {
        return false;
    }
    match name.strip_prefix('@') {
        Some(scoped) => scoped.split_once('/').is_some_and(|(s, p)| part_ok(s) && part_ok(p)),
        None => part_ok(name),
    }
}

/// `pkg@1.2.3` → `pkg`, `@scope/pkg@^1` → `@scope/pkg`.
fn strip_version(name: &str) -> &str {
    let search_from = usize::from(name.starts_with('@'));
    match name.get(search_from..).and_then(|rest| rest.find('@')) {
        Some(at) => &name[..search_from + at],
        None => name,
    }
}

/// For a path ending in a JavaScript extension, the stem and the TypeScript extensions whose
/// source it stands for (`./Foo.js` means `./Foo.ts` in TypeScript's ESM convention).
fn typescript_sources(path: &str) -> Option<(&str, &'static [&'static str])> {
    const MAP: &[(&str, &[&str])] = &[
        (".js", &[".ts", ".tsx", ".d.ts"]),
        (".jsx", &[".tsx"]),
        (".mjs", &[".mts", ".d.mts"]),
        (".cjs", &[".cts", ".d.cts"]),
    ];
    MAP.iter().find_map(|(js, sources)| Some((path.strip_suffix(js)?, *sources)))
}
