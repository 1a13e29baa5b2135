//! Routes served by Python web frameworks, with prefix chains composed across modules.
//!
//! The extractor recorded, per file, objects created from classes, classes, string constants,
//! route declarations, mounts, Django URL entries and DRF registrations, all by the names written
//! in the file. This module follows those names through import bindings ([`Names`]): `router` to
//! the `APIRouter(...)` it was assigned, `items.router` through `from .routes import items`,
//! `settings.API_V1_STR` through `from app.core.config import settings` to `settings =
//! Settings()` and the class attribute, `app = create_app()` through the factory to the object
//! it returns. [`chains`] composes FastAPI and Flask prefix chains; [`django`] walks URL confs
//! from their roots; [`drf`] expands Django REST Framework routers where they are included.
//!
//! Confidence: `certain` when every piece of the path is a literal or a constant and the chain
//! ends at an app; `likely` when a piece is the default of a pydantic settings field (the
//! environment can override it), for DRF conventional routes, and for Django confs under a
//! computed deployment base path or one of several unincluded roots. A route whose router is not
//! mounted on any app Cartograph found is refused (`unresolved-mount`): its full path is unknown.

mod chains;
// The Django linker (and its REST framework routers) lives in the Django folder beside the
// syntax half; it is a child of this module so that it shares the family's name tables.
#[path = "django/link.rs"]
mod django;
#[path = "django/link/drf.rs"]
mod drf;

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::recognise::py_routes::{
    ClassDecl, Constant, Instance, PathExpr, PathPart, PyRouteFacts,
};
use cartograph_core::Language;
use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};

use crate::recognise::link::{BindingTarget, LinkInput, Linked, ServedRoute};

/// The routes of this family.
pub fn link(input: &LinkInput<'_>, linked: &mut Linked) -> Vec<ServedRoute> {
    let names = Names::new(input);
    let mut out = Output::default();
    chains::link(&names, &mut out);
    django::link(&names, &mut out);
    out.count_unknown_prefixes();
    linked.refusals.extend(out.refusals);
    // Routes declared in test code (test apps, test URL confs, routers built by test helpers)
    // exist only while tests run; they are not part of the architecture. The TS/JS linker skips
    // test files the same way.
    out.routes.retain(|route| !is_test_path(route.module.as_str()));
    out.routes
}

/// True for a path inside a test folder or named like a test module.
fn is_test_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.split('/').any(|d| d == "tests" || d == "test")
        || name.starts_with("test_")
        || name.ends_with("_test.py")
        || name == "conftest.py"
}

/// A Django Ninja route relative to its API, placed where a URL conf includes the API: the route
/// (its template relative to the API, its evidence from ` from @router.get(...)` on) and the
/// computed prefixes on its way.
struct NinjaRoute {
    route: ServedRoute,
    unknown: Vec<(SourceLocation, String)>,
}

/// Routes and refusals, refusals deduplicated (many routes below one computed prefix share one).
#[derive(Default)]
struct Output {
    routes: Vec<ServedRoute>,
    /// Django Ninja routes by the API (file, instance index) they belong to.
    ninja: BTreeMap<(FileIdx, usize), Vec<NinjaRoute>>,
    refusals: BTreeSet<Refusal>,
    /// Computed prefixes whose routes are kept under an unknown segment: where, what, and how
    /// many routes (one per method) sit below.
    unknown_prefixes: BTreeMap<(SourceLocation, String), usize>,
}

impl Output {
    fn refuse(&mut self, kind: RefusalKind, location: SourceLocation, reason: String) {
        self.refusals.insert(Refusal::new(kind, location, reason));
    }

    /// One `computed-route` refusal per computed prefix, saying how many routes it affects.
    fn count_unknown_prefixes(&mut self) {
        for ((location, what), count) in std::mem::take(&mut self.unknown_prefixes) {
            let routes = if count == 1 { "1 route below it is" } else { "routes below it are" };
            let shown = if count > 1 { format!("{count} ") } else { String::new() };
            self.refuse(
                RefusalKind::ComputedRoute,
                location,
                format!("{what}; {shown}{routes} kept under an unknown segment, at most possible"),
            );
        }
    }
}

/// The segment a computed prefix leaves in a route's path.
const UNKNOWN_PREFIX: &str = "{prefix}";

/// Index of a Python file in [`LinkInput::files`].
type FileIdx = usize;

/// What a name refers to after following imports.
#[derive(Debug, Clone, Copy)]
enum Def<'a> {
    Instance(FileIdx, &'a Instance),
    Class(FileIdx, &'a ClassDecl),
    Constant(FileIdx, &'a Constant),
    /// A list of Django URL entries, by its variable name.
    UrlList(FileIdx, &'a str),
    Module(FileIdx),
    /// A function that returns a name (an app factory): the name it returns, in its file, or
    /// the class it returns an instance of (`call`).
    Function(FileIdx, &'a str, bool),
    /// An object known only by its class (`settings = get_settings()` with `return Settings()`).
    InstanceOf(FileIdx, &'a str),
    /// A name from a third-party package: only its written name tells what it is.
    External,
}

/// The most import hops followed for one name (re-exports through `__init__` files).
const MAX_HOPS: usize = 16;

/// Name resolution over the Python files of the tree.
struct Names<'a> {
    input: &'a LinkInput<'a>,
    by_path: HashMap<&'a str, FileIdx>,
    by_module: HashMap<&'a str, FileIdx>,
    /// Nesting of [`Names::resolve`] (aliases and factories resolve through it): bounds cycles.
    depth: Cell<usize>,
    /// The star-imported module a name of a module comes from, by (module, name), once
    /// searched (`None`: none has it).
    stars: RefCell<HashMap<(FileIdx, String), Option<FileIdx>>>,
    /// Every `config.from_object(...)` of the tree outside tests, read once.
    config_sources: OnceCell<Vec<(FileIdx, usize)>>,
}

/// A path expression resolved to text.
#[derive(Debug, Clone, Default)]
struct ResolvedPath {
    value: String,
    /// The names it was built from, as written (`settings.API_V1_STR`).
    names: Vec<String>,
    /// Files other than the one that wrote the expression that it was read from.
    other_files: bool,
    /// A default of a pydantic settings field: the environment can override it.
    from_settings: bool,
    /// A Flask config default (`app.config["KEY"]`): the deployment's config can override it.
    from_config: bool,
}

/// The known framework class an object's class leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameworkClass {
    FastApiApp,
    FastApiRouter,
    FlaskApp,
    Blueprint,
    /// Flask-RESTX / Flask-RESTful `Api`.
    RestApi,
    /// Flask-RESTX `Namespace`.
    RestNamespace,
    /// Django Ninja `NinjaAPI`: placed by the Django URL conf that includes its `urls`.
    NinjaApi,
    /// Django Ninja `Router`.
    NinjaRouter,
    DrfRouter {
        root_view: bool,
    },
    Settings,
}

impl FrameworkClass {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            // Cadwyn is a FastAPI subclass (versioned APIs, used by Airflow).
            "FastAPI" | "Starlette" | "Cadwyn" => Self::FastApiApp,
            // `APIRouter` and the packaged subclasses named after it (`VersionedAPIRouter`).
            n if n.ends_with("APIRouter") => Self::FastApiRouter,
            "Flask" => Self::FlaskApp,
            "Blueprint" => Self::Blueprint,
            "Api" => Self::RestApi,
            "Namespace" => Self::RestNamespace,
            "NinjaAPI" | "NinjaExtraAPI" => Self::NinjaApi,
            "DefaultRouter" => Self::DrfRouter { root_view: true },
            "SimpleRouter" | "NestedSimpleRouter" | "NestedDefaultRouter" => {
                Self::DrfRouter { root_view: false }
            }
            "BaseSettings" => Self::Settings,
            _ => return None,
        })
    }
}

/// A class's in-tree lineage and the framework class it reaches, if any.
struct Lineage<'a> {
    /// The class itself and its in-tree ancestors, nearest first.
    classes: Vec<(FileIdx, &'a ClassDecl)>,
    /// Last segments of the bases that are not classes of the tree (`ModelViewSet`).
    external_bases: Vec<&'a str>,
    /// Those of them imported from a third-party package (`AccessViewSetMixin` of
    /// `rest_access_policy`), not merely unresolved.
    package_bases: Vec<&'a str>,
    framework: Option<FrameworkClass>,
}

impl<'a> Names<'a> {
    fn new(input: &'a LinkInput<'a>) -> Self {
        let mut by_path = HashMap::new();
        let mut by_module = HashMap::new();
        for (i, f) in input.files.iter().enumerate() {
            if f.language != Language::Python {
                continue;
            }
            by_path.insert(f.path.as_str(), i);
            if let Some(m) = f.python_module {
                by_module.insert(m, i);
            }
        }
        Self {
            input,
            by_path,
            by_module,
            depth: Cell::new(0),
            stars: RefCell::default(),
            config_sources: OnceCell::new(),
        }
    }

    fn facts(&self, file: FileIdx) -> Option<&'a PyRouteFacts> {
        self.input.files.get(file).map(|f| &*f.facts.py_routes)
    }

    fn path(&self, file: FileIdx) -> Option<&'a RepoPath> {
        self.input.files.get(file).map(|f| f.path)
    }

    /// A test module by the usual layouts: a `tests`/`test` folder, `test_*.py`, `*_test.py`,
    /// `conftest.py`.
    fn is_test_file(&self, file: FileIdx) -> bool {
        is_test_path(self.path_str(file))
    }

    fn path_str(&self, file: FileIdx) -> &'a str {
        self.path(file).map_or("", RepoPath::as_str)
    }

    fn location(&self, file: FileIdx, line: u32, column: u32) -> Option<SourceLocation> {
        Some(SourceLocation::new(self.path(file)?.clone(), line, column))
    }

    /// Python files in index order.
    fn python_files(&self) -> impl Iterator<Item = FileIdx> + '_ {
        let mut all: Vec<FileIdx> = self.by_path.values().copied().collect();
        all.sort_unstable();
        all.into_iter()
    }

    fn file_of(&self, target: &BindingTarget) -> Option<FileIdx> {
        match target {
            BindingTarget::Module(path) => self.by_path.get(path.as_str()).copied(),
            BindingTarget::Package(_) => None,
        }
    }

    /// What a single name means in `file`: a definition there, or where an import leads.
    fn lookup(&self, file: FileIdx, name: &str) -> Option<Def<'a>> {
        let mut file = file;
        let mut name: String = name.to_owned();
        for _ in 0..MAX_HOPS {
            let facts = self.facts(file)?;
            if let Some(i) = facts.instances.iter().find(|i| i.name == name && !i.parameter) {
                return Some(Def::Instance(file, i));
            }
            if let Some(c) = facts.classes.iter().find(|c| c.name == name) {
                return Some(Def::Class(file, c));
            }
            if let Some(c) = facts.constants.iter().find(|c| c.name == name) {
                return Some(Def::Constant(file, c));
            }
            if let Some(e) = facts.url_entries.iter().find(|e| e.list == name) {
                return Some(Def::UrlList(file, &e.list));
            }
            if let Some(i) = facts.instances.iter().find(|i| i.name == name) {
                return Some(Def::Instance(file, i));
            }
            if let Some(a) = facts.aliases.iter().find(|a| a.name == name) {
                let (def, rest) = self.resolve(file, &a.target)?;
                return match (def, a.call) {
                    (def, false) if rest.is_empty() => Some(def),
                    (Def::Function(f, value, false), true) if rest.is_empty() => {
                        self.resolve(f, value).filter(|(_, r)| r.is_empty()).map(|(d, _)| d)
                    }
                    (Def::Function(f, class, true), true) if rest.is_empty() => {
                        Some(Def::InstanceOf(f, class))
                    }
                    _ => None,
                };
            }
            if let Some(r) = facts.returns.iter().find(|r| r.function == name) {
                return Some(Def::Function(file, &r.value, r.call));
            }
            let Some(binding) = self.input.binding(self.path(file)?, &name) else {
                return self.star_lookup(file, &name);
            };
            let Some(target) = self.file_of(&binding.target) else {
                return Some(Def::External);
            };
            match &binding.member {
                None => return Some(Def::Module(target)),
                Some(member) => {
                    file = target;
                    member.as_ref().clone_into(&mut name);
                }
            }
        }
        None
    }

    /// What `name` means in `file` through the file's star imports (`from .users import *` in
    /// a package's `__init__`), the last one first as Python binds them. Names with a leading
    /// underscore are not star-imported.
    ///
    /// Answers are kept, so each (module, name) is searched once however many lookups fall
    /// through to it; a star-import cycle finds nothing on its second visit.
    fn star_lookup(&self, file: FileIdx, name: &str) -> Option<Def<'a>> {
        if name.starts_with('_') {
            return None;
        }
        let bindings = self.input.files.get(file)?.bindings;
        if !bindings.iter().any(|b| &*b.local == "*") {
            return None;
        }
        let key = (file, name.to_owned());
        let known = self.stars.borrow().get(&key).copied();
        if let Some(known) = known {
            return self.lookup(known?, name);
        }
        self.stars.borrow_mut().insert(key.clone(), None);
        let found = bindings.iter().rev().filter(|b| &*b.local == "*").find_map(|b| {
            let target = self.file_of(&b.target).filter(|t| *t != file)?;
            Some((target, self.lookup(target, name)?))
        });
        self.stars.borrow_mut().insert(key, found.map(|(target, _)| target));
        found.map(|(_, def)| def)
    }

    /// What a dotted name means in `file`, and the attribute names left after the last
    /// definition it reaches (`settings.API_V1_STR` → the settings instance and `API_V1_STR`).
    fn resolve(&self, file: FileIdx, dotted: &'a str) -> Option<(Def<'a>, Vec<&'a str>)> {
        let depth = self.depth.get();
        if depth > 24 {
            return None;
        }
        self.depth.set(depth + 1);
        let resolved = self.resolve_unguarded(file, dotted);
        self.depth.set(depth);
        resolved
    }

    fn resolve_unguarded(&self, file: FileIdx, dotted: &'a str) -> Option<(Def<'a>, Vec<&'a str>)> {
        let parts: Vec<&'a str> = dotted.split('.').collect();
        let first = parts.first()?;
        // `import a.b.c` binds the dotted name itself: try the longest such binding first.
        let mut start = None;
        for k in (2..=parts.len()).rev() {
            let prefix = parts.get(..k)?.join(".");
            let path = self.path(file)?;
            if let Some(b) = self.input.binding(path, &prefix).filter(|b| b.member.is_none())
                && let Some(target) = self.file_of(&b.target)
            {
                start = Some((Def::Module(target), k));
                break;
            }
        }
        let (mut def, mut used) = match start {
            Some(s) => s,
            None => (self.lookup(file, first)?, 1),
        };
        let mut rest: Vec<&'a str> = parts.get(used..).map(<[&str]>::to_vec).unwrap_or_default();
        while let (Def::Module(m), Some(next)) = (def, rest.first()) {
            def = self.lookup(m, next)?;
            used += 1;
            rest = parts.get(used..).map(<[&str]>::to_vec).unwrap_or_default();
        }
        Some((def, rest))
    }

    /// The in-tree ancestry of a class written as `class` in `file`.
    fn lineage(&self, file: FileIdx, class: &'a str) -> Lineage<'a> {
        let mut lineage = Lineage {
            classes: Vec::new(),
            external_bases: Vec::new(),
            package_bases: Vec::new(),
            framework: None,
        };
        let mut pending: Vec<(FileIdx, &'a str)> = vec![(file, class)];
        let mut steps = 0;
        while let Some((file, name)) = pending.pop() {
            steps += 1;
            if steps > 64 {
                break;
            }
            let last = name.rsplit('.').next().unwrap_or(name);
            match self.resolve(file, name) {
                Some((Def::Class(f, decl), rest)) if rest.is_empty() => {
                    if lineage.classes.iter().any(|(cf, c)| *cf == f && std::ptr::eq(*c, decl)) {
                        continue;
                    }
                    lineage.classes.push((f, decl));
                    pending.extend(decl.bases.iter().rev().map(|b| (f, b.as_str())));
                }
                resolved => {
                    if matches!(resolved, Some((Def::External, _))) {
                        lineage.package_bases.push(last);
                    }
                    lineage.external_bases.push(last);
                    if lineage.framework.is_none() {
                        lineage.framework = FrameworkClass::from_name(last);
                    }
                    // `Router` is a common name: Ninja's only when imported from `ninja`.
                    if lineage.framework.is_none()
                        && last == "Router"
                        && self.imported_from_ninja(file, name)
                    {
                        lineage.framework = Some(FrameworkClass::NinjaRouter);
                    }
                }
            }
        }
        lineage
    }

    /// True when `name` (`Router`, `ninja.Router`) written in `file` is imported from Django
    /// Ninja.
    fn imported_from_ninja(&self, file: FileIdx, name: &str) -> bool {
        let local = name.split('.').next().unwrap_or(name);
        let binding = self.path(file).and_then(|p| self.input.binding(p, local));
        matches!(
            binding.map(|b| &b.target),
            Some(BindingTarget::Package(p)) if &**p == "pypi:ninja" || &**p == "pypi:ninja_extra"
        )
    }

    /// The framework class of an instance.
    fn instance_class(&self, file: FileIdx, instance: &'a Instance) -> Option<FrameworkClass> {
        self.lineage(file, &instance.class).framework
    }

    /// Resolves a path expression written in `file` to text.
    fn resolve_path(&self, file: FileIdx, expr: &'a PathExpr) -> Result<ResolvedPath, String> {
        self.resolve_path_at(file, expr, 0)
    }

    fn resolve_path_at(
        &self,
        file: FileIdx,
        expr: &'a PathExpr,
        depth: usize,
    ) -> Result<ResolvedPath, String> {
        if depth > 8 {
            return Err("a chain of constants too long to follow".to_owned());
        }
        let mut out = ResolvedPath::default();
        for part in &expr.parts {
            match part {
                PathPart::Literal(l) => out.value.push_str(l),
                PathPart::Computed => return Err("a computed expression".to_owned()),
                PathPart::Config(key) => {
                    let value = self.config_default(key, depth).ok_or_else(|| {
                        format!(
                            "the config key {key}, for which no single string default was found \
                             in the classes the app's config is loaded from"
                        )
                    })?;
                    out.value.push_str(&value.value);
                    out.names.push(format!("config {key}"));
                    out.other_files = true;
                    out.from_config = true;
                }
                PathPart::Ref(name) => {
                    let (inner, value_file) = self
                        .resolve_ref(file, name, depth)
                        .ok_or_else(|| format!("{name}, which is not a string constant found"))?;
                    out.value.push_str(&inner.value);
                    out.names.push(name.clone());
                    out.other_files |= inner.other_files || value_file != file;
                    out.from_settings |= inner.from_settings;
                    out.from_config |= inner.from_config;
                }
            }
        }
        Ok(out)
    }

    /// A name used in a path: a constant, or an attribute of a class or of an instance of one.
    fn resolve_ref(
        &self,
        file: FileIdx,
        name: &'a str,
        depth: usize,
    ) -> Option<(ResolvedPath, FileIdx)> {
        let (def, rest) = self.resolve(file, name)?;
        match (def, rest.as_slice()) {
            (Def::Constant(f, c), []) => {
                Some((self.resolve_path_at(f, &c.value, depth + 1).ok()?, f))
            }
            (Def::Instance(f, i), [attr]) => self.class_attr(f, &i.class, attr, depth),
            (Def::InstanceOf(f, class), [attr]) => self.class_attr(f, class, attr, depth),
            (Def::Class(f, c), [attr]) => self.class_attr(f, &c.name, attr, depth),
            _ => None,
        }
    }

    fn class_attr(
        &self,
        file: FileIdx,
        class: &'a str,
        attr: &str,
        depth: usize,
    ) -> Option<(ResolvedPath, FileIdx)> {
        let lineage = self.lineage(file, class);
        let (f, constant) = lineage
            .classes
            .iter()
            .find_map(|(f, c)| c.attrs.iter().find(|a| a.name == attr).map(|a| (*f, a)))?;
        let mut value = self.resolve_path_at(f, &constant.value, depth + 1).ok()?;
        value.from_settings |= lineage.framework == Some(FrameworkClass::Settings);
        Some((value, f))
    }

    /// The default of a Flask config key: the attribute of that name of the classes the tree
    /// loads with `config.from_object(...)` (outside tests), when they agree on one value.
    fn config_default(&self, key: &str, depth: usize) -> Option<ResolvedPath> {
        let mut found: Option<ResolvedPath> = None;
        // Indices, not references: a cell holding references would pin the lifetime of names.
        let sources = self.config_sources.get_or_init(|| {
            let mut all = Vec::new();
            for f in self.python_files().filter(|f| !self.is_test_file(*f)) {
                let count = self.facts(f).map_or(0, |x| x.config_sources.len());
                all.extend((0..count).map(|i| (f, i)));
            }
            all
        });
        for &(file, index) in sources {
            let Some(source) = self.facts(file).and_then(|x| x.config_sources.get(index)) else {
                continue;
            };
            let class = if source.string {
                let module_file = source
                    .class
                    .rsplit_once('.')
                    .and_then(|(module, name)| Some((self.by_module.get(module).copied()?, name)));
                match module_file.and_then(|(m, name)| self.lookup(m, name)) {
                    Some(Def::Class(f, c)) => Some((f, c.name.as_str())),
                    _ => None,
                }
            } else {
                match self.resolve(file, &source.class) {
                    Some((Def::Class(f, c), rest)) if rest.is_empty() => Some((f, c.name.as_str())),
                    _ => None,
                }
            };
            let Some((f, class)) = class else { continue };
            let Some((value, _)) = self.class_attr(f, class, key, depth) else { continue };
            match &found {
                Some(v) if v.value != value.value => return None,
                Some(_) => {}
                None => found = Some(value),
            }
        }
        found
    }

    /// The module and function a handler written as `dotted` in `file` names.
    fn function(&self, file: FileIdx, dotted: &'a str) -> (FileIdx, String) {
        let last = dotted.rsplit('.').next().unwrap_or(dotted).to_owned();
        let Some((head, _)) = dotted.rsplit_once('.') else {
            // A bare name: a class defined here or reached through imports and re-exports
            // (`from app.views import ItemView` with `app/views/__init__.py` re-exporting it).
            if let Some(Def::Class(f, class)) = self.lookup(file, dotted) {
                return (f, class.name.clone());
            }
            // A function: defined here, or imported.
            if let Some(path) = self.path(file)
                && let Some(b) = self.input.binding(path, dotted)
                && let (Some(t), Some(member)) = (self.file_of(&b.target), &b.member)
            {
                return (t, member.to_string());
            }
            return (file, last);
        };
        match self.resolve(file, head) {
            Some((Def::Module(m), rest)) if rest.is_empty() => match self.lookup(m, &last) {
                Some(Def::Class(f, class)) => (f, class.name.clone()),
                _ => (m, last),
            },
            // `views.ItemView.as_view()` resolved to the class: keep its full written name.
            Some((Def::Class(f, _), rest)) if rest.is_empty() => (f, last),
            _ => (file, last),
        }
    }
}

/// Joins path pieces the way frameworks do (`/api/v1` + `/items` + `/{id}`); the template
/// normalises repeated slashes.
fn join(pieces: &[&str]) -> String {
    let mut out = String::new();
    for p in pieces {
        out.push('/');
        out.push_str(p);
    }
    out
}

/// A resolved prefix for evidence: `/api/v1 (settings.API_V1_STR)`.
fn describe(path: &ResolvedPath) -> String {
    let shown = if path.value.is_empty() { "/".to_owned() } else { path.value.clone() };
    if path.names.is_empty() { shown } else { format!("{shown} ({})", path.names.join(", ")) }
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn pieces_join_with_slashes() {
        let cases: &[(&[&str], &str)] = &[
            (&["/api/v1", "/items", "/{id}"], "/api/v1/items/{}"),
            (&["", "items/", ""], "/items"),
        ];
        for (pieces, expected) in cases {
            let template = cartograph_core::RouteTemplate::parse(&join(pieces));
            assert_eq!(template.identity(), *expected);
        }
    }
}
