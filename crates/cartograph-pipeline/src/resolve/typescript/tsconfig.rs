//! `tsconfig.json` / `jsconfig.json`: the `baseUrl` and `paths` that apply to each directory.
//!
//! Every `tsconfig.json` in the tree (or `jsconfig.json` where a directory has no `tsconfig.json`)
//! is read as JSON with comments. `extends` is followed — a relative path with or without `.json`,
//! an array of them (TypeScript 5), or a workspace package's `tsconfig.json`; a package that is
//! not in the tree is skipped — cycle-safe and to a bounded depth. As in TypeScript, an extending
//! config overrides `baseUrl` and `paths` wholesale; `baseUrl` is relative to the config that
//! declares it, and `paths` targets are relative to the effective `baseUrl` or, without one, to the
//! config that declares `paths`. `outDir`/`rootDir` are read the same way, to map a workspace
//! package's build outputs back to their sources.
//!
//! One extension beyond TypeScript's own lookup: a solution-style `tsconfig.json` (one with
//! `references` and no `baseUrl`/`paths` of its own, as Vite scaffolds) borrows the aliases of the
//! first referenced project that declares some, and resolutions through them are marked `likely`.
//!
//! A config that cannot be read or parsed becomes an `invalid-config` refusal at its path, and
//! resolution continues as if it were absent.

use std::collections::{HashMap, HashSet};

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use serde_json::Value;

use super::split_package;
use crate::TreeIndex;
use crate::resolve::jsonc;
use crate::tree::{dir_of, join_normalised};

/// How many `extends` links are followed from one config.
const MAX_EXTENDS_DEPTH: usize = 32;

/// The path-alias settings in effect for the directories under one config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct AliasSettings {
    /// The directory bare specifiers are also looked up under (`baseUrl`), if inside the tree.
    pub(super) base_url: Option<String>,
    /// `paths` entries, each with its targets as tree paths (a `*` left for substitution).
    pub(super) paths: Vec<PathAlias>,
    /// True when the settings were borrowed from a project the nearest config references.
    pub(super) from_reference: bool,
    /// `(outDir, rootDir)` as tree paths, when the config declares both: a build output under
    /// `outDir` has its source at the same place under `rootDir`.
    pub(super) build_layout: Option<(String, String)>,
}

/// One `paths` entry: `"@/*": ["./src/*"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PathAlias {
    /// The pattern as written, for messages.
    pub(super) pattern: String,
    prefix: String,
    /// `None` for an exact pattern (no `*`).
    suffix: Option<String>,
    /// Targets joined onto their base directory; targets that leave the tree are dropped.
    targets: Vec<String>,
    /// True when a miss should fall through to package lookup: a catch-all `*` pattern, or one
    /// whose targets point into `node_modules`.
    pub(super) falls_through: bool,
}

/// A `paths` match: the alias and its substituted targets, in order.
pub(super) struct AliasMatch<'a> {
    pub(super) alias: &'a PathAlias,
    pub(super) targets: Vec<String>,
}

impl AliasSettings {
    /// The `paths` entry that applies to `specifier`: an exact pattern first, else the wildcard
    /// pattern with the longest prefix (TypeScript's precedence).
    pub(super) fn match_paths(&self, specifier: &str) -> Option<AliasMatch<'_>> {
        if let Some(alias) = self.paths.iter().find(|a| a.suffix.is_none() && a.prefix == specifier)
        {
            return Some(AliasMatch { alias, targets: alias.targets.clone() });
        }
        let mut best: Option<(&PathAlias, &str)> = None;
        for alias in &self.paths {
            let Some(suffix) = &alias.suffix else {
                continue;
            };
            if specifier.len() < alias.prefix.len() + suffix.len()
                || !specifier.starts_with(alias.prefix.as_str())
                || !specifier.ends_with(suffix.as_str())
            {
                continue;
            }
            let star = &specifier[alias.prefix.len()..specifier.len() - suffix.len()];
            if best.is_none_or(|(b, _)| alias.prefix.len() > b.prefix.len()) {
                best = Some((alias, star));
            }
        }
        let (alias, star) = best?;
        let targets = alias
            .targets
            .iter()
            .filter_map(|t| {
                let substituted = t.replacen('*', star, 1);
                join_normalised("", &substituted)
            })
            .collect();
        Some(AliasMatch { alias, targets })
    }

    fn is_empty(&self) -> bool {
        self.base_url.is_none() && self.paths.is_empty()
    }
}

/// Every config in the tree, read once.
pub(super) struct ConfigSet {
    /// Alias settings, one per config that was read.
    pub(super) settings: Vec<AliasSettings>,
    /// The directory of each config → its index in `settings`.
    pub(super) by_dir: HashMap<String, usize>,
    pub(super) refusals: Vec<Refusal>,
}

/// Reads every tsconfig/jsconfig of the tree. `packages` maps workspace package names to their
/// directories, for `extends` that name a package.
pub(super) fn load(
    tree: &TreeIndex,
    read: &dyn Fn(&RepoPath) -> Option<String>,
    packages: &HashMap<String, String>,
) -> ConfigSet {
    let mut loader = Loader {
        tree,
        read,
        packages,
        raw: HashMap::new(),
        in_progress: HashSet::new(),
        refusals: Vec::new(),
    };
    let mut set = ConfigSet { settings: Vec::new(), by_dir: HashMap::new(), refusals: Vec::new() };
    for file in tree.files() {
        let dir = dir_of(file);
        let preferred = match file.file_name() {
            "tsconfig.json" => true,
            "jsconfig.json" => !tree.is_file(&child(&dir, "tsconfig.json")),
            _ => false,
        };
        if !preferred {
            continue;
        }
        let Some(settings) = loader.settings(file.as_str()) else {
            continue;
        };
        set.by_dir.insert(dir, set.settings.len());
        set.settings.push(settings);
    }
    // A config reached through several `extends` chains is refused once.
    loader.refusals.sort();
    loader.refusals.dedup();
    set.refusals = loader.refusals;
    set
}

/// `dir/name`, or `name` at the root.
fn child(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") }
}

/// `paths` entries as written: pattern → targets.
type RawPaths = Vec<(String, Vec<String>)>;

/// A config's own fields, before `extends`.
#[derive(Debug, Clone, Default)]
struct RawConfig {
    dir: String,
    extends: Vec<String>,
    base_url: Option<String>,
    paths: Option<RawPaths>,
    references: Vec<String>,
    out_dir: Option<String>,
    root_dir: Option<String>,
}

/// Where a `baseUrl` points.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BaseUrl {
    InTree(String),
    OutsideTree,
}

/// A config's settings after `extends`.
#[derive(Debug, Clone, Default)]
struct Effective {
    base_url: Option<BaseUrl>,
    /// Raw `paths` entries and the directory of the config that declared them.
    paths: Option<(RawPaths, String)>,
    /// `outDir` and `rootDir` as tree paths; `Some(None)` when declared but outside the tree.
    out_dir: Option<Option<String>>,
    root_dir: Option<Option<String>>,
}

struct Loader<'a> {
    tree: &'a TreeIndex,
    read: &'a dyn Fn(&RepoPath) -> Option<String>,
    packages: &'a HashMap<String, String>,
    /// Config path → its fields; `None` when it could not be read (already refused).
    raw: HashMap<String, Option<RawConfig>>,
    in_progress: HashSet<String>,
    refusals: Vec<Refusal>,
}

impl Loader<'_> {
    /// The alias settings of the config at `path`, following references of a solution config.
    fn settings(&mut self, path: &str) -> Option<AliasSettings> {
        let effective = self.effective(path, 0)?;
        let settings = to_settings(&effective, false);
        if !settings.is_empty() {
            return Some(settings);
        }
        let Some(raw) = self.raw(path) else {
            return Some(settings);
        };
        for reference in &raw.references {
            let Some(target) = self.reference_target(&raw.dir, reference) else {
                continue;
            };
            if let Some(borrowed) = self.effective(&target, 0) {
                let borrowed = to_settings(&borrowed, true);
                if !borrowed.is_empty() {
                    return Some(borrowed);
                }
            }
        }
        Some(settings)
    }

    /// The settings of the config at `path` after its `extends` chain. Not memoised: a result
    /// computed inside a cycle would depend on where the cycle was entered, and chains are short
    /// (the parsed files are memoised).
    fn effective(&mut self, path: &str, depth: usize) -> Option<Effective> {
        // A cycle or an over-long chain contributes nothing more.
        if depth > MAX_EXTENDS_DEPTH || !self.in_progress.insert(path.to_owned()) {
            return None;
        }
        let raw = self.raw(path);
        let result = raw.map(|raw| {
            let mut effective = Effective::default();
            for extends in &raw.extends {
                let Some(target) = self.extends_target(path, &raw.dir, extends) else {
                    continue;
                };
                if let Some(base) = self.effective(&target, depth + 1) {
                    if base.base_url.is_some() {
                        effective.base_url = base.base_url;
                    }
                    if base.paths.is_some() {
                        effective.paths = base.paths;
                    }
                    if base.out_dir.is_some() {
                        effective.out_dir = base.out_dir;
                    }
                    if base.root_dir.is_some() {
                        effective.root_dir = base.root_dir;
                    }
                }
            }
            if let Some(base_url) = &raw.base_url {
                effective.base_url = Some(match join_normalised(&raw.dir, base_url) {
                    Some(dir) => BaseUrl::InTree(dir),
                    None => BaseUrl::OutsideTree,
                });
            }
            if let Some(paths) = &raw.paths {
                effective.paths = Some((paths.clone(), raw.dir.clone()));
            }
            if let Some(out_dir) = &raw.out_dir {
                effective.out_dir = Some(join_normalised(&raw.dir, out_dir));
            }
            if let Some(root_dir) = &raw.root_dir {
                effective.root_dir = Some(join_normalised(&raw.dir, root_dir));
            }
            effective
        });
        self.in_progress.remove(path);
        result
    }

    /// The config file an `extends` entry names, if it is in the tree.
    fn extends_target(&mut self, config: &str, dir: &str, extends: &str) -> Option<String> {
        if extends.starts_with('.') {
            let base = join_normalised(dir, extends);
            let found = base.as_deref().and_then(|b| self.config_file(b));
            // A base inside `node_modules` is a dependency, which discovery does not keep.
            if found.is_none() && !extends.contains("node_modules") {
                self.refuse(config, "extends a configuration file that is not in the tree");
            }
            return found;
        }
        if extends.starts_with('/') || extends.contains(':') {
            return None;
        }
        // A package: only a workspace package of this tree can be followed.
        let (name, sub) = split_package(extends)?;
        let package_dir = self.packages.get(name)?;
        match sub {
            Some(sub) => self.config_file(&join_normalised(package_dir, sub)?),
            None => self.config_file(&child(package_dir, "tsconfig.json")),
        }
    }

    /// A project reference's config: a file, or a directory's `tsconfig.json`.
    fn reference_target(&self, dir: &str, reference: &str) -> Option<String> {
        self.config_file(&join_normalised(dir, reference)?)
    }

    /// `path`, `path.json`, or `path/tsconfig.json`, whichever is a file of the tree.
    fn config_file(&self, path: &str) -> Option<String> {
        let candidates = [path.to_owned(), format!("{path}.json"), child(path, "tsconfig.json")];
        candidates.into_iter().find(|c| !c.is_empty() && self.tree.is_file(c))
    }

    fn raw(&mut self, path: &str) -> Option<RawConfig> {
        if let Some(raw) = self.raw.get(path) {
            return raw.clone();
        }
        let parsed = self.parse(path);
        self.raw.insert(path.to_owned(), parsed.clone());
        parsed
    }

    fn parse(&mut self, path: &str) -> Option<RawConfig> {
        let repo_path = RepoPath::new(path).ok()?;
        let Some(text) = (self.read)(&repo_path) else {
            self.refuse(path, "configuration file could not be read");
            return None;
        };
        let value = match jsonc::parse(&text) {
            Ok(value) => value,
            Err(error) => {
                self.refuse(path, &format!("configuration file is {error}"));
                return None;
            }
        };
        let Some(object) = value.as_object() else {
            self.refuse(path, "configuration file is not a JSON object");
            return None;
        };
        let options = object.get("compilerOptions").and_then(Value::as_object);
        let extends = match object.get("extends") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) => {
                items.iter().filter_map(Value::as_str).map(str::to_owned).collect()
            }
            _ => Vec::new(),
        };
        let option = |name: &str| {
            options.and_then(|o| o.get(name)).and_then(Value::as_str).map(str::to_owned)
        };
        let base_url = option("baseUrl");
        let out_dir = option("outDir");
        let root_dir = option("rootDir");
        let paths = options.and_then(|o| o.get("paths")).and_then(Value::as_object).map(|paths| {
            paths
                .iter()
                .map(|(pattern, targets)| {
                    let targets = match targets {
                        Value::Array(items) => {
                            items.iter().filter_map(Value::as_str).map(str::to_owned).collect()
                        }
                        Value::String(s) => vec![s.clone()],
                        _ => Vec::new(),
                    };
                    (pattern.clone(), targets)
                })
                .collect()
        });
        let references = object
            .get("references")
            .and_then(Value::as_array)
            .map(|refs| {
                refs.iter()
                    .filter_map(|r| r.get("path").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        Some(RawConfig {
            dir: dir_of(&repo_path),
            extends,
            base_url,
            paths,
            references,
            out_dir,
            root_dir,
        })
    }

    fn refuse(&mut self, path: &str, reason: &str) {
        if let Ok(repo_path) = RepoPath::new(path) {
            self.refusals.push(Refusal::new(
                RefusalKind::InvalidConfig,
                SourceLocation::file(repo_path),
                reason,
            ));
        }
    }
}

/// Turns effective settings into lookups: `paths` targets joined onto their base directory.
fn to_settings(effective: &Effective, from_reference: bool) -> AliasSettings {
    let base_url = match &effective.base_url {
        Some(BaseUrl::InTree(dir)) => Some(dir.clone()),
        _ => None,
    };
    let mut paths = Vec::new();
    if let Some((entries, declared_in)) = &effective.paths {
        let base = match &effective.base_url {
            Some(BaseUrl::InTree(dir)) => Some(dir.as_str()),
            Some(BaseUrl::OutsideTree) => None,
            None => Some(declared_in.as_str()),
        };
        for (pattern, targets) in entries {
            let (prefix, suffix) = match pattern.split_once('*') {
                Some((_, suffix)) if suffix.contains('*') => continue,
                Some((prefix, suffix)) => (prefix.to_owned(), Some(suffix.to_owned())),
                None => (pattern.clone(), None),
            };
            let falls_through =
                pattern == "*" || targets.iter().any(|t| t.contains("node_modules"));
            let targets = match base {
                Some(base) => targets.iter().filter_map(|t| join_normalised(base, t)).collect(),
                None => Vec::new(),
            };
            paths.push(PathAlias {
                pattern: pattern.clone(),
                prefix,
                suffix,
                targets,
                falls_through,
            });
        }
    }
    let build_layout = match (&effective.out_dir, &effective.root_dir) {
        (Some(Some(out)), Some(Some(root))) if !out.is_empty() && out != root => {
            Some((out.clone(), root.clone()))
        }
        _ => None,
    };
    AliasSettings { base_url, paths, from_reference, build_layout }
}
