//! Python import resolution.
//!
//! Source roots are detected from the tree, never configured: the repository root, every directory
//! named `src`, and the parent of every top-level package (a directory with `__init__.py` whose
//! parent has none). Namespace packages (directories without `__init__.py`) resolve like any other
//! path under a root, but only when the full dotted name reaches a file, so a stray folder named
//! like a standard-library module cannot capture its imports.
//!
//! For a file, roots are tried in this order: the roots that contain it (deepest first), its own
//! directory when it is not inside a package (script semantics), then every other root in path
//! order. `from a import b` resolves to the submodule `a.b` when that module exists, else to `a`.
//! Relative imports are resolved in path space from the importing file's package.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;

use cartograph_core::{Confidence, Ecosystem, RepoPath};
use cartograph_extract::PythonImport;

use super::Resolution;
use super::python_stdlib::is_python_stdlib;
use crate::TreeIndex;
use crate::tree::dir_of;

/// Resolves Python imports against one tree.
#[derive(Debug)]
pub struct PythonResolver {
    /// Source roots, `""` for the repository root, in path order.
    roots: Vec<String>,
    /// Directories that are regular packages (hold `__init__.py` or `__init__.pyi`).
    packages: BTreeSet<String>,
    /// The distinct orders in which roots are tried: a directory's roots that contain it
    /// (deepest first), the directory itself when it is not a package, then the other roots.
    orders: Vec<Vec<String>>,
    /// For every directory holding Python files: its order, by index into `orders`, so a lookup
    /// allocates nothing.
    order_of_dir: HashMap<String, usize>,
    /// What [`PythonResolver::find_absolute`] found, by order and dotted name. Two directories
    /// with the same order get the same answer for every name (the order fixes which roots
    /// contain the importer: those before `""`, and a script's own directory, which no other
    /// directory's order lists in the same place), so many files share each entry.
    found: Vec<Mutex<HashMap<String, Option<Found>>>>,
    /// Every name a dotted module can start with where modules are looked for: a directory or a
    /// module file directly under a root or a script's own directory. An import whose first name
    /// is not here (the standard library, a third-party package) is found under none of them, and
    /// is not looked for under each.
    top_names: HashSet<String>,
}

/// One resolved target of an import statement, with the name it was resolved for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonTarget {
    /// What was imported, as written: `a.b`, or `c from a.b` / `x from ..pkg` for a from-import.
    pub name: String,
    pub resolution: Resolution,
    /// For a from-import, the names that resolved here, each with `true` when the name is the
    /// module itself (a submodule) and `false` when it is a member of the module.
    pub names: Vec<(String, bool)>,
}

impl PythonResolver {
    pub fn new(index: &TreeIndex) -> Self {
        let mut packages = BTreeSet::new();
        let mut roots = BTreeSet::new();
        roots.insert(String::new());
        for file in index.files() {
            let name = file.file_name();
            if name == "__init__.py" || name == "__init__.pyi" {
                packages.insert(dir_of(file));
            }
        }
        for file in index.files() {
            if !matches!(file.extension(), Some("py" | "pyi")) {
                continue;
            }
            // Every `src` directory that holds Python is a root.
            let dirs: Vec<&str> = file.components().collect();
            for (i, component) in dirs.iter().enumerate().take(dirs.len().saturating_sub(1)) {
                if *component == "src" {
                    roots.insert(dirs[..=i].join("/"));
                }
            }
        }
        for package in &packages {
            let parent = parent_dir(package);
            if !packages.contains(parent) {
                roots.insert(parent.to_owned());
            }
        }
        let roots: Vec<String> = roots.into_iter().collect();
        let mut orders: Vec<Vec<String>> = Vec::new();
        let mut order_index: HashMap<Vec<String>, usize> = HashMap::new();
        let mut order_of_dir = HashMap::new();
        for file in index.files() {
            if matches!(file.extension(), Some("py" | "pyi")) {
                let dir = dir_of(file);
                if let std::collections::hash_map::Entry::Vacant(slot) = order_of_dir.entry(dir) {
                    let order = search_order_for(&roots, &packages, slot.key());
                    let index = *order_index.entry(order).or_insert_with_key(|order| {
                        orders.push(order.clone());
                        orders.len() - 1
                    });
                    slot.insert(index);
                }
            }
        }
        let found = orders.iter().map(|_| Mutex::new(HashMap::new())).collect();
        // The places a dotted name is looked for: the roots, and directories searched as
        // scripts' own (holding Python, not a package).
        let bases: HashSet<&str> = roots
            .iter()
            .map(String::as_str)
            .chain(order_of_dir.keys().map(String::as_str).filter(|d| !packages.contains(*d)))
            .collect();
        let mut top_names = HashSet::new();
        for file in index.files() {
            let path = file.as_str();
            let mut rest = path;
            let mut base = "";
            loop {
                if bases.contains(base) {
                    let top = match rest.split_once('/') {
                        Some((dir, _)) => Some(dir),
                        None => rest.strip_suffix(".py").or_else(|| rest.strip_suffix(".pyi")),
                    };
                    if let Some(top) = top
                        && !top_names.contains(top)
                    {
                        top_names.insert(top.to_owned());
                    }
                }
                let Some((_, tail)) = rest.split_once('/') else { break };
                base = &path[..path.len() - tail.len() - 1];
                rest = tail;
            }
        }
        Self { roots, packages, orders, order_of_dir, found, top_names }
    }

    /// The source roots, in path order (`""` is the repository root).
    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// The dotted module name of a Python file under the deepest root that contains it, if every
    /// component is an identifier.
    pub fn module_name(&self, file: &RepoPath) -> Option<String> {
        let root = self.roots.iter().rev().find(|r| is_under(file.as_str(), r))?;
        let relative = strip_root(file.as_str(), root);
        let without_ext = relative.strip_suffix(".py").or_else(|| relative.strip_suffix(".pyi"))?;
        let dotted = without_ext.strip_suffix("/__init__").unwrap_or(without_ext).replace('/', ".");
        if without_ext == "__init__" || !dotted.split('.').all(is_identifier) {
            return None;
        }
        Some(dotted)
    }

    /// Resolves one import statement of `from`; a `from` import yields one target per name.
    pub fn resolve(
        &self,
        index: &TreeIndex,
        from: &RepoPath,
        import: &PythonImport,
    ) -> Vec<PythonTarget> {
        if import.level > 0 {
            return self.resolve_relative(index, from, import);
        }
        let Some(module) = import.module.as_deref() else { return Vec::new() };
        if import.names.is_empty() || import.names.iter().all(|n| n == "*") {
            return vec![PythonTarget {
                name: module.to_owned(),
                resolution: self.resolve_absolute(index, from, module),
                names: Vec::new(),
            }];
        }
        let mut targets: Vec<PythonTarget> = Vec::new();
        for name in &import.names {
            let submodule = format!("{module}.{name}");
            let (resolution, is_module) = match self.find_absolute(index, from, &submodule) {
                Some(Found { path, exact: true, ambiguous }) => {
                    (module_resolution(path, ambiguous), true)
                }
                _ => (self.resolve_absolute(index, from, module), false),
            };
            let target = PythonTarget {
                name: display_from(module, name),
                resolution,
                names: vec![(name.clone(), is_module)],
            };
            push_unique(&mut targets, target);
        }
        targets
    }

    fn resolve_absolute(&self, index: &TreeIndex, from: &RepoPath, module: &str) -> Resolution {
        match self.find_absolute(index, from, module) {
            Some(Found { path, exact: true, ambiguous }) => module_resolution(path, ambiguous),
            // The package is here but the submodule is not: typically another distribution that
            // shares the namespace (`airflow.sdk`, `airflow.providers`). Linking the enclosing
            // module would be a nearest guess; unknown stays unknown.
            Some(Found { path, exact: false, .. }) => Resolution::Unresolved {
                reason: format!(
                    "{module} is not in the tree, though its enclosing module {path} is"
                ),
            },
            None => {
                let top = module.split('.').next().unwrap_or(module);
                if is_python_stdlib(top) {
                    Resolution::Builtin { ecosystem: Ecosystem::Pypi, name: top.to_owned() }
                } else {
                    Resolution::Package { ecosystem: Ecosystem::Pypi, name: top.to_owned() }
                }
            }
        }
    }

    /// Finds `module` under the first root (in preference order) that holds its top-level name.
    fn find_absolute(&self, index: &TreeIndex, from: &RepoPath, module: &str) -> Option<Found> {
        let own_dir = from.as_str().rsplit_once('/').map_or("", |(dir, _)| dir);
        let Some(&order) = self.order_of_dir.get(own_dir) else {
            let order = search_order_for(&self.roots, &self.packages, own_dir);
            return self.find_in_order(index, from, &order, module);
        };
        let top = module.split('.').next().unwrap_or(module);
        if !self.top_names.contains(top) {
            return None;
        }
        let memo = &self.found[order];
        if let Some(found) = memo.lock().ok().and_then(|memo| memo.get(module).cloned()) {
            return found;
        }
        let found = self.find_in_order(index, from, &self.orders[order], module);
        if let Ok(mut memo) = memo.lock() {
            memo.insert(module.to_owned(), found.clone());
        }
        found
    }

    fn find_in_order(
        &self,
        index: &TreeIndex,
        from: &RepoPath,
        order: &[String],
        module: &str,
    ) -> Option<Found> {
        let parts: Vec<&str> = module.split('.').collect();
        let mut found: Option<Found> = None;
        for root in order {
            let Some(hit) = self.find_under(index, root, &parts) else { continue };
            match &mut found {
                None => {
                    // An exact hit under a root that contains the importer is authoritative.
                    let contains_importer = is_under(from.as_str(), root);
                    found = Some(hit);
                    if contains_importer {
                        break;
                    }
                }
                Some(first) => {
                    if hit.path != first.path && hit.exact {
                        first.ambiguous = true;
                    }
                    break;
                }
            }
        }
        found
    }

    /// The module for `parts` under one directory: exact when every part resolved, else the
    /// longest regular-module prefix, provided the top-level name is a real module or package.
    fn find_under(&self, index: &TreeIndex, base: &str, parts: &[&str]) -> Option<Found> {
        let mut dir = base.to_owned();
        let mut deepest: Option<RepoPath> = None;
        for (i, part) in parts.iter().enumerate() {
            let candidate = join(&dir, part);
            let is_last = i + 1 == parts.len();
            if let Some(file) = module_file(index, &candidate) {
                if is_last {
                    return Some(Found { path: file, exact: true, ambiguous: false });
                }
                if self.packages.contains(&candidate) {
                    deepest = Some(file);
                } else {
                    // A plain module `a.py` cannot hold submodules; `a.b` names an attribute.
                    return Some(Found { path: file, exact: false, ambiguous: false });
                }
            } else if !index.is_dir(&candidate) {
                break;
            }
            dir = candidate;
        }
        deepest.map(|path| Found { path, exact: false, ambiguous: false })
    }

    fn resolve_relative(
        &self,
        index: &TreeIndex,
        from: &RepoPath,
        import: &PythonImport,
    ) -> Vec<PythonTarget> {
        let dots = ".".repeat(usize::try_from(import.level).unwrap_or(usize::MAX).min(64));
        let written = format!("{dots}{}", import.module.as_deref().unwrap_or(""));
        let mut base = dir_of(from);
        for _ in 1..import.level {
            if base.is_empty() {
                return vec![unresolved(
                    written.clone(),
                    format!("relative import {written} reaches above the repository root"),
                )];
            }
            base = parent_dir(&base).to_owned();
        }
        let module_parts: Vec<&str> =
            import.module.as_deref().map(|m| m.split('.').collect()).unwrap_or_default();
        let module_found = if module_parts.is_empty() {
            // `from . import x`: the package itself.
            module_file(index, &base).map(|path| Found { path, exact: true, ambiguous: false })
        } else {
            self.find_under(index, &base, &module_parts)
        };
        let module_dir = module_parts.iter().fold(base, |d, p| join(&d, p));
        let whole_module = || match &module_found {
            Some(Found { path, exact: true, .. }) => Resolution::module(path.clone()),
            Some(Found { path, exact: false, .. }) => Resolution::Unresolved {
                reason: format!(
                    "relative import {written} is not in the tree, though its enclosing module {path} is"
                ),
            },
            None => Resolution::Unresolved {
                reason: format!("relative import {written} resolves to no file in the tree"),
            },
        };
        if import.names.is_empty() || import.names.iter().all(|n| n == "*") {
            return vec![PythonTarget {
                name: written.clone(),
                resolution: whole_module(),
                names: Vec::new(),
            }];
        }
        let mut targets = Vec::new();
        let exact_package =
            matches!(module_found, Some(Found { exact: true, .. })) || module_parts.is_empty();
        for name in &import.names {
            let submodule = join(&module_dir, name);
            let (resolution, is_module) = match module_file(index, &submodule) {
                Some(path) if exact_package || index.is_dir(&module_dir) => {
                    (Resolution::module(path), true)
                }
                _ => match &module_found {
                    Some(_) => (whole_module(), false),
                    None => (
                        Resolution::Unresolved {
                            reason: format!(
                                "relative import of {name} from {written} resolves to no file in the tree"
                            ),
                        },
                        false,
                    ),
                },
            };
            let target = PythonTarget {
                name: display_from(&written, name),
                resolution,
                names: vec![(name.clone(), is_module)],
            };
            push_unique(&mut targets, target);
        }
        targets
    }
}

/// Roots in preference order for a file in `dir`: the roots that contain it (deepest first), the
/// directory itself when it is not a package (script semantics), then every other root in order.
fn search_order_for(roots: &[String], packages: &BTreeSet<String>, dir: &str) -> Vec<String> {
    let probe = format!("{dir}/x");
    let mut ordered: Vec<String> =
        roots.iter().rev().filter(|r| is_under(&probe, r)).cloned().collect();
    if !packages.contains(dir) && !ordered.iter().any(|r| r == dir) {
        ordered.push(dir.to_owned());
    }
    for root in roots {
        if !ordered.contains(root) {
            ordered.push(root.clone());
        }
    }
    ordered
}

#[derive(Debug, Clone)]
struct Found {
    path: RepoPath,
    /// False when only an enclosing module was found.
    exact: bool,
    /// True when another root holds a different module of the same name.
    ambiguous: bool,
}

fn module_resolution(path: RepoPath, ambiguous: bool) -> Resolution {
    if ambiguous {
        Resolution::Module {
            path,
            confidence: Confidence::Likely,
            note: Some("another source root holds a module of the same name".to_owned()),
        }
    } else {
        Resolution::module(path)
    }
}

fn unresolved(name: String, reason: String) -> PythonTarget {
    PythonTarget { name, resolution: Resolution::Unresolved { reason }, names: Vec::new() }
}

/// Adds a target, or folds its names into an earlier target with the same resolution.
fn push_unique(targets: &mut Vec<PythonTarget>, target: PythonTarget) {
    match targets.iter_mut().find(|t| t.resolution == target.resolution) {
        Some(existing) => existing.names.extend(target.names),
        None => targets.push(target),
    }
}

/// How a from-import of one name is described in evidence: `settings from .core.config`.
fn display_from(module: &str, name: &str) -> String {
    format!("{name} from {module}")
}

/// The file that defines module path `candidate` (`a/b` → `a/b.py`, `a/b/__init__.py`, `a/b.pyi`,
/// `a/b/__init__.pyi`; the root's is `__init__.py` or `__init__.pyi`).
fn module_file(index: &TreeIndex, candidate: &str) -> Option<RepoPath> {
    const SUFFIXES: [&str; 4] = [".py", "/__init__.py", ".pyi", "/__init__.pyi"];
    let mut probe = String::with_capacity(candidate.len() + 14);
    for suffix in SUFFIXES {
        probe.clear();
        if candidate.is_empty() {
            let Some(name) = suffix.strip_prefix('/') else { continue };
            probe.push_str(name);
        } else {
            probe.push_str(candidate);
            probe.push_str(suffix);
        }
        if let Some(file) = index.file(&probe) {
            return Some(file);
        }
    }
    None
}

fn join(dir: &str, part: &str) -> String {
    if dir.is_empty() { part.to_owned() } else { format!("{dir}/{part}") }
}

fn parent_dir(dir: &str) -> &str {
    dir.rsplit_once('/').map_or("", |(parent, _)| parent)
}

fn is_under(path: &str, root: &str) -> bool {
    root.is_empty() || path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
}

fn strip_root<'p>(path: &'p str, root: &str) -> &'p str {
    if root.is_empty() { path } else { &path[root.len() + 1..] }
}

fn is_identifier(part: &str) -> bool {
    let mut chars = part.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use cartograph_extract::ImportForm;

    fn tree(files: &[&str]) -> TreeIndex {
        TreeIndex::new(files.iter().map(|f| RepoPath::new(f).unwrap()))
    }

    fn import(level: u32, module: Option<&str>, names: &[&str]) -> PythonImport {
        PythonImport {
            level,
            module: module.map(str::to_owned),
            names: names.iter().map(|s| (*s).to_owned()).collect(),
            form: ImportForm::Static,
        }
    }

    /// Resolves and renders each target as a short string: a path, `pkg:x`, `builtin:x`,
    /// `unresolved`, with `~` appended for a less-than-certain module.
    fn check(files: &[&str], from: &str, imp: PythonImport, expected: &[&str]) {
        let index = tree(files);
        let resolver = PythonResolver::new(&index);
        let got: Vec<String> = resolver
            .resolve(&index, &RepoPath::new(from).unwrap(), &imp)
            .into_iter()
            .map(|t| match t.resolution {
                Resolution::Module { path, confidence: Confidence::Certain, .. } => {
                    path.to_string()
                }
                Resolution::Module { path, .. } => format!("{path}~"),
                Resolution::Package { name, .. } => format!("pkg:{name}"),
                Resolution::Builtin { name, .. } => format!("builtin:{name}"),
                Resolution::Unresolved { .. } => "unresolved".to_owned(),
            })
            .collect();
        assert_eq!(got, expected, "from {from}: {imp:?}");
    }

    const SRC: &[&str] = &[
        "backend/src/app/__init__.py",
        "backend/src/app/models/__init__.py",
        "backend/src/app/models/order.py",
        "backend/src/app/api/__init__.py",
        "backend/src/app/api/routes.py",
        "backend/src/app/plugins/slack.py",
        "backend/tests/test_api.py",
        "backend/tests/helpers.py",
        "worker/__init__.py",
        "worker/tasks.py",
        "scripts/tool.py",
        "email/notes.txt",
    ];

    #[test]
    fn detects_roots() {
        let r = PythonResolver::new(&tree(SRC));
        assert_eq!(r.roots(), ["", "backend/src"]);
    }

    #[test]
    fn module_names_come_from_the_deepest_root() {
        let r = PythonResolver::new(&tree(SRC));
        let name = |p: &str| r.module_name(&RepoPath::new(p).unwrap());
        assert_eq!(name("backend/src/app/models/order.py").as_deref(), Some("app.models.order"));
        assert_eq!(name("backend/src/app/__init__.py").as_deref(), Some("app"));
        assert_eq!(name("worker/tasks.py").as_deref(), Some("worker.tasks"));
    }

    #[test]
    fn absolute_imports_across_a_src_layout() {
        check(
            SRC,
            "backend/tests/test_api.py",
            import(0, Some("app.api.routes"), &[]),
            &["backend/src/app/api/routes.py"],
        );
        check(
            SRC,
            "backend/tests/test_api.py",
            import(0, Some("app"), &[]),
            &["backend/src/app/__init__.py"],
        );
    }

    #[test]
    fn from_import_prefers_submodule_then_package() {
        check(
            SRC,
            "worker/tasks.py",
            import(0, Some("app.models"), &["order", "Order"]),
            &["backend/src/app/models/order.py", "backend/src/app/models/__init__.py"],
        );
    }

    #[test]
    fn namespace_packages_resolve_only_to_files() {
        check(
            SRC,
            "worker/tasks.py",
            import(0, Some("app.plugins.slack"), &[]),
            &["backend/src/app/plugins/slack.py"],
        );
        check(
            SRC,
            "worker/tasks.py",
            import(0, Some("app.plugins"), &["slack"]),
            &["backend/src/app/plugins/slack.py"],
        );
        // A folder named like the standard library does not capture its imports.
        check(SRC, "worker/tasks.py", import(0, Some("email.mime"), &[]), &["builtin:email"]);
    }

    #[test]
    fn missing_submodule_of_a_local_package_is_refused_not_guessed() {
        check(SRC, "worker/tasks.py", import(0, Some("app.models.gone"), &[]), &["unresolved"]);
    }

    #[test]
    fn third_party_and_stdlib() {
        check(SRC, "worker/tasks.py", import(0, Some("requests.adapters"), &[]), &["pkg:requests"]);
        check(SRC, "worker/tasks.py", import(0, Some("os.path"), &[]), &["builtin:os"]);
        check(
            SRC,
            "worker/tasks.py",
            import(0, Some("collections.abc"), &["Mapping"]),
            &["builtin:collections"],
        );
    }

    #[test]
    fn script_directories_see_their_siblings() {
        check(
            SRC,
            "backend/tests/test_api.py",
            import(0, Some("helpers"), &[]),
            &["backend/tests/helpers.py"],
        );
        check(SRC, "worker/tasks.py", import(0, Some("helpers"), &[]), &["pkg:helpers"]);
    }

    #[test]
    fn relative_imports() {
        let from = "backend/src/app/api/routes.py";
        check(SRC, from, import(1, None, &["routes"]), &["backend/src/app/api/routes.py"]);
        check(SRC, from, import(1, None, &["something"]), &["backend/src/app/api/__init__.py"]);
        check(
            SRC,
            from,
            import(2, Some("models"), &["order", "Order"]),
            &["backend/src/app/models/order.py", "backend/src/app/models/__init__.py"],
        );
        check(SRC, from, import(2, None, &["models"]), &["backend/src/app/models/__init__.py"]);
        check(SRC, from, import(1, Some("legacy"), &["x"]), &["unresolved"]);
        check(
            SRC,
            from,
            import(2, Some("plugins.slack"), &["notify"]),
            &["backend/src/app/plugins/slack.py"],
        );
        check(
            SRC,
            from,
            import(2, Some("plugins"), &["slack"]),
            &["backend/src/app/plugins/slack.py"],
        );
        check(SRC, from, import(9, None, &["x"]), &["unresolved"]);
    }

    #[test]
    fn plain_module_cannot_hold_submodules() {
        check(SRC, "worker/tasks.py", import(0, Some("worker.tasks.run"), &[]), &["unresolved"]);
    }
}
