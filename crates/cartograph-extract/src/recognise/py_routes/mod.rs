//! Routes served by Python web frameworks: the per-file facts the linker composes into routes.
//!
//! One walk records, per file and unresolved: objects created by calling a class (`app =
//! FastAPI()`, `router = APIRouter(prefix="/items")`, `bp = Blueprint(..., url_prefix="/p")`,
//! `settings = Settings()`) and parameters annotated with a class (`def init_views(app:
//! FastAPI)`), aliases (`api = app`, `app = create_app()`, `(sub := manager.get_app())`) and
//! what functions return (app
//! factories, `return Settings()`), classes with their bases and literal attributes (custom router
//! subclasses, pydantic settings with `Field(default=...)`, DRF viewsets), module-level string
//! constants, route
//! declarations (`@router.get("/x")`, `@app.route(...)`, `add_api_route`, `add_url_rule`), mounts
//! (`include_router`, `register_blueprint`, `mount`), Django URL conf entries and DRF router
//! registrations. Whether `router` really is a router, and what `settings.API_V1_STR` holds, is
//! decided by `cartograph-pipeline` once imports are resolved. Paths are kept as [`PathExpr`]:
//! literals and references to names, so a prefix built from constants composes across files and
//! anything computed is refused at link time. Names are per file, not per scope: two objects
//! with one name in one file resolve to the first (module level before parameters).

mod django;
mod expr;
mod fastapi;
mod flask;
mod flask_restx;
mod forward;
pub mod link;
mod ninja;

#[cfg(test)]
mod tests;

use cartograph_core::{EdgeKind, HttpMethod, Language};
use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use self::expr::{
    field_default, in_class_body, is_module_level, is_stringish, method_list, methods_keyword,
    path_expr, prefix_keyword,
};
use super::registry::Recogniser;
use super::{Context, Family};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::python::{callee_attribute, dotted, find_argument_value};
use crate::syntax::{position, text};
use crate::{FileFacts, Syntax};

/// This family's recognisers, one per file of this folder.
pub const RECOGNISERS: &[Recogniser] = &[
    Recogniser {
        name: "django",
        file: "py_routes/django/",
        languages: &[Language::Python],
        edges: &[EdgeKind::Serves],
        summary: "Django path/re_path/include URL confs across modules and Django REST \
                  Framework router.register conventional routes, drf-nested-routers nested \
                  routers, format_suffix_patterns (suffix variants not listed); viewset actions \
                  from DRF's mixins and in-tree classes (through star imports), less methods that \
                  only raise MethodNotAllowed",
    },
    Recogniser {
        name: "fastapi",
        file: "py_routes/fastapi.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Serves],
        summary: "FastAPI route decorators, APIRouter prefixes (custom subclasses too) and \
                  include_router chains across modules, prefixes from settings constants, \
                  sub-apps from factories mounted (by method name when the receiver is unknown, \
                  at most likely), Cadwyn versioned routers",
    },
    Recogniser {
        name: "flask",
        file: "py_routes/flask.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Serves],
        summary: "Flask route decorators, Blueprint url_prefix and register_blueprint chains \
                  (in create_app factories too), add_url_rule with View/MethodView.as_view \
                  serving the methods the class defines, inherits or lists in methods; \
                  helpers that forward their parameters to add_url_rule/register_blueprint \
                  followed to their calls (loops over lists and tuples of blueprints, plugin \
                  hooks by name at most likely), url_prefix from app.config[\"KEY\"] defaults \
                  of the config.from_object class (likely)",
    },
    Recogniser {
        name: "flask-restx",
        file: "py_routes/flask_restx.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Serves],
        summary: "Flask-RESTX and Flask-RESTful Api, Namespace and add_namespace paths, \
                  Resource classes routed by @ns.route or add_resource, served by their methods \
                  (inherited too); helper methods of Api subclasses that forward to \
                  add_resource",
    },
    Recogniser {
        name: "django-ninja",
        file: "py_routes/ninja.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::Serves],
        summary: "Django Ninja NinjaAPI and Router operations (@api.get, api_operation), \
                  add_router chains (routers named by dotted strings too) and the Django URL \
                  conf entry path(\"api/\", api.urls) that places the API",
    },
];

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PyRouteFacts {
    /// `name = Class(...)` and `name: Class` parameters: candidate apps, routers, DRF routers and
    /// settings objects.
    pub instances: Vec<Instance>,
    /// `name = other` and `name = factory(...)`, followed by the linker.
    pub aliases: Vec<Alias>,
    /// Functions that return a name (`return app`): app factories.
    pub returns: Vec<FunctionReturn>,
    pub classes: Vec<ClassDecl>,
    /// Module-level string constants (`API_PREFIX = "/api"`).
    pub constants: Vec<Constant>,
    pub routes: Vec<RouteDecl>,
    pub mounts: Vec<MountDecl>,
    /// Django URL conf entries (`path(...)`, `re_path(...)`) of every list in the file.
    pub url_entries: Vec<UrlEntry>,
    /// DRF `router.register(prefix, ViewSet)`.
    pub registrations: Vec<Registration>,
    /// Function views whose decorator restricts the methods they serve.
    pub views: Vec<ViewRestriction>,
    /// drf-nested-routers `NestedSimpleRouter(parent, "prefix", lookup="x")`.
    pub nested_routers: Vec<NestedRouter>,
    /// Functions whose parameters a route, mount, loop, sequence or invocation of this file may
    /// refer to (the `scope` of those facts indexes this list).
    pub functions: Vec<FunctionDecl>,
    /// `for name in sequence:` around a route or mount.
    pub loops: Vec<LoopDecl>,
    /// `name = (a, b)`, `name = [a, b]`, `name = a + b` of dotted names: sequences of objects.
    pub sequences: Vec<SequenceDecl>,
    /// Calls that pass an object of this file (an instance or a sequence) or a class view: the
    /// call sites of functions that forward their parameters to a route or mount.
    pub invocations: Vec<Invocation>,
    /// `app.config.from_object("pkg.config.DefaultConfig")`: where an app's config keys default.
    pub config_sources: Vec<ConfigSource>,
}

/// A function definition: its name, the class it is a method of, and its parameters in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionDecl {
    pub name: String,
    pub class: Option<String>,
    /// Parameter names in order (`self` included for methods).
    pub params: Vec<String>,
    /// `*args` or `**kwargs`: arguments the function may hand on unseen.
    pub splat: bool,
    pub line: u32,
    pub column: u32,
}

/// `for var in over:` (`over` a dotted name) enclosing a route, mount or invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopDecl {
    pub var: String,
    pub over: String,
    pub scope: Option<u32>,
}

/// One item of a sequence: a name, or all the items of another sequence (`a + b`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeqItem {
    One(String),
    All(String),
}

/// `name = (a, b)` and the like.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SequenceDecl {
    pub name: String,
    pub items: Vec<SeqItem>,
    pub scope: Option<u32>,
}

/// What an argument of an [`Invocation`] is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArgValue {
    /// A dotted name.
    Name(String),
    /// A string expression.
    Path(PathExpr),
    /// A list or tuple of string expressions.
    Paths(Vec<PathExpr>),
    /// A list or tuple of dotted names (and `*rest` spreads).
    Items(Vec<SeqItem>),
    /// `ViewClass.as_view(...)`: the class.
    View(String),
    Other,
}

/// One argument of an [`Invocation`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Argument {
    pub keyword: Option<String>,
    pub value: ArgValue,
}

/// A call that may be of a function forwarding its parameters to a route or mount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invocation {
    /// The callee as written (`register_view`, `factory.create_app`, `pm.hook.load`).
    pub callee: String,
    pub args: Vec<Argument>,
    /// `*args` or `**kwargs` passed: arguments that cannot be matched to parameters.
    pub splat: bool,
    pub scope: Option<u32>,
    pub line: u32,
    pub column: u32,
}

/// `object.config.from_object(source)`: a class (by dotted import string or by name) whose
/// upper-case attributes are the app's config defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigSource {
    /// `"pkg.config.DefaultConfig"` (a string) or `DefaultConfig` (a name), as written.
    pub class: String,
    /// True when `class` is an import string.
    pub string: bool,
}

/// `name = NestedSimpleRouter(parent, parent_prefix, lookup=...)`: the registrations of `name`
/// sit below the detail route of `parent_prefix`'s registration on `parent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestedRouter {
    pub name: String,
    pub parent: String,
    pub parent_prefix: PathExpr,
    /// `lookup=` when literal; the parameter is `{lookup}_{parent lookup field}`.
    pub lookup: Option<String>,
}

/// A path or prefix as written: literal text and references to names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathExpr {
    pub parts: Vec<PathPart>,
}

/// One piece of a [`PathExpr`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathPart {
    Literal(String),
    /// A name or dotted attribute (`API_PREFIX`, `settings.API_V1_STR`), resolved when linking.
    Ref(String),
    /// `app.config["KEY"]` / `app.config.get("KEY")`: a Flask config value, resolved to the
    /// default the app's `config.from_object` class gives it.
    Config(String),
    /// Anything else (a call, a subscript, a formatted interpolation): the path is computed.
    Computed,
}

impl PathExpr {
    pub fn literal(value: &str) -> Self {
        Self { parts: vec![PathPart::Literal(value.to_owned())] }
    }

    /// The value when the expression is made of literals only.
    pub fn as_literal(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                PathPart::Literal(l) => out.push_str(l),
                PathPart::Ref(_) | PathPart::Config(_) | PathPart::Computed => return None,
            }
        }
        Some(out)
    }
}

/// `name = Class(...)`, with the prefix keyword of routers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    pub name: String,
    /// The callee as written (`APIRouter`, `fastapi.APIRouter`, `CustomRouter`).
    pub class: String,
    /// `prefix=` (FastAPI) or `url_prefix=` (Flask) when given.
    pub prefix: Option<PathExpr>,
    /// A function parameter annotated with the class (`def init_views(app: FastAPI)`).
    pub parameter: bool,
    pub line: u32,
    pub column: u32,
}

/// `name = target` (`call` false) or `name = target(...)` (`call` true, a lowercase callee).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    pub name: String,
    pub target: String,
    pub call: bool,
}

/// `def function(...): ... return value` with a dotted `value`, or `return Class(...)` (`call`
/// true, `value` the class): app factories and cached settings getters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionReturn {
    pub function: String,
    pub value: String,
    pub call: bool,
}

/// A class definition: bases, methods and literal attributes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassDecl {
    pub name: String,
    /// Bases as written (dotted names only).
    pub bases: Vec<String>,
    /// Names of the functions defined directly in the body, and the lower-case names a literal
    /// `methods = ["GET", ...]` attribute lists (Flask views).
    pub methods: Vec<String>,
    /// Attributes assigned a string in the body (`API_V1_STR: str = "/api/v1"`).
    pub attrs: Vec<Constant>,
    /// DRF `@action` methods.
    pub actions: Vec<ViewSetAction>,
    /// `http_method_names = ["get", "patch"]`: the only methods a view dispatches, when the
    /// body assigns a literal list.
    pub http_method_names: Option<Vec<HttpMethod>>,
    /// Methods whose body only raises DRF's `MethodNotAllowed`: defined, yet answered with 405.
    #[serde(default)]
    pub not_allowed: Vec<String>,
    pub line: u32,
    pub column: u32,
}

/// A name bound to a string expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constant {
    pub name: String,
    pub value: PathExpr,
    pub line: u32,
    pub column: u32,
}

/// How a route declaration names its methods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Methods {
    /// Fixed by the call (`@router.get`).
    Fixed(HttpMethod),
    /// `methods=[...]` with literal names.
    Listed(Vec<HttpMethod>),
    /// No `methods=`: the framework default (GET for Flask and FastAPI).
    Default,
    /// `methods=` is computed.
    Computed,
}

/// A route declared on an object: a decorator or an `add_api_route` / `add_url_rule` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteDecl {
    /// The object as written (`router`, `app`, `items.router`).
    pub object: String,
    /// The method called on it (`get`, `route`, `api_route`, `add_url_rule`).
    pub call: String,
    pub path: PathExpr,
    pub methods: Methods,
    /// The handler function, when named.
    pub handler: Option<String>,
    /// The enclosing function (an index into [`PyRouteFacts::functions`]).
    pub scope: Option<u32>,
    pub line: u32,
    pub column: u32,
}

/// What mounts one router or app under another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MountKind {
    /// FastAPI `include_router`.
    IncludeRouter,
    /// Flask `register_blueprint`.
    RegisterBlueprint,
    /// Starlette/FastAPI `mount(path, app)`.
    Mount,
    /// Flask-RESTX / Flask-RESTful `Api(app)` or `api.init_app(app)`: the API (child) is bound
    /// to an app or blueprint (parent).
    BindApi,
    /// Flask-RESTX `api.add_namespace(ns, path)`.
    AddNamespace,
    /// Django Ninja `api.add_router(prefix, router)`; the child may be a dotted string.
    AddRouter,
}

/// `parent.include_router(child, prefix=...)` and the like.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountDecl {
    pub parent: String,
    /// The child as written, when it is a dotted name.
    pub child: Option<String>,
    pub prefix: Option<PathExpr>,
    pub kind: MountKind,
    /// The enclosing function (an index into [`PyRouteFacts::functions`]).
    pub scope: Option<u32>,
    pub line: u32,
    pub column: u32,
}

/// `path` or `re_path` (`url` is the old name of `re_path`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlFunction {
    Path,
    RePath,
}

/// What a Django URL entry leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlTarget {
    /// A view: a function, or a class with `.as_view()`.
    View {
        handler: String,
        class_based: bool,
    },
    /// `include("app.urls")`.
    IncludeModule(String),
    /// `include(router.urls)`, `include(admin.site.urls)`.
    IncludeObject(String),
    /// `include(name)` of a list in the same file.
    IncludeList(String),
    /// `include([...])`: entries whose `parent` is this entry.
    Inline,
    Computed,
}

/// One `path(...)`/`re_path(...)` entry of a URL list, or a `urlpatterns += router.urls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlEntry {
    /// The list variable the entry belongs to (`urlpatterns`); empty for inline entries.
    pub list: String,
    /// For entries of an inline `include([...])`: the index of the including entry.
    pub parent: Option<usize>,
    pub function: UrlFunction,
    pub route: PathExpr,
    pub target: UrlTarget,
    /// The methods of a viewset's `as_view({"get": "list", ...})` mapping; empty otherwise.
    pub as_view_methods: Vec<HttpMethod>,
    pub line: u32,
    pub column: u32,
}

/// `router.register(r"items", ItemViewSet)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    pub router: String,
    pub prefix: PathExpr,
    pub viewset: Option<String>,
    pub line: u32,
    pub column: u32,
}

/// A function view restricted to some methods (`@require_http_methods`, `@api_view`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewRestriction {
    pub function: String,
    pub methods: Vec<HttpMethod>,
}

/// A DRF `@action(detail=..., methods=[...], url_path=...)` method of a viewset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewSetAction {
    pub name: String,
    pub detail: bool,
    pub methods: Vec<HttpMethod>,
    /// `url_path=` when literal; the method name otherwise.
    pub url_path: String,
}

/// The family's state during one walk.
#[derive(Default)]
pub(crate) struct PyRoutes {
    /// Whether the file mentions DRF's `MethodNotAllowed`, read at its first class.
    method_not_allowed: Option<bool>,
    /// Whether the file may hold a call of a Flask forwarding helper (read on the first call).
    forwarding: Option<bool>,
}

/// Words whose absence means a file holds no call site of a Flask forwarding helper worth
/// recording (see `forward.rs`): even the syntax tests of every call of every file cost too
/// much (read once, on a file's first call).
pub(crate) static FORWARDING: super::Words = super::Words::new(&["flask"]);

/// Words whose absence means a file holds nothing for this family (or only constants that no
/// route refers to).
// In order of how often a file holds the word, so a file that wants the family is told so
// early (the order changes no answer, only how much text is read).
pub(crate) static MARKERS: super::Words = super::Words::new(&[
    "route",
    "prefix",
    "Router",
    "fastapi",
    "django",
    "flask",
    "View",
    "PREFIX",
    "Settings",
    "= \"/",
    "= '/",
    "_STR",
    "Blueprint",
    "urlpatterns",
    "rest_framework",
    "ROOT_URLCONF",
    "ninja",
    // A helper that forwards to Flask's `add_url_rule` without importing Flask.
    "url_rule",
]);

impl Family for PyRoutes {
    fn kinds(&self) -> &'static [&'static str] {
        &[
            "decorated_definition",
            "call",
            "assignment",
            "augmented_assignment",
            "class_definition",
            "typed_parameter",
            "typed_default_parameter",
            "return_statement",
            "named_expression",
        ]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        match cx.syntax {
            Syntax::Python => MARKERS.any_in(cx),
            Syntax::JavaScript | Syntax::Rust => false,
        }
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        let out = &mut facts.py_routes;
        match kind {
            "decorated_definition" => {
                let (routes, mounts) = (out.routes.len(), out.mounts.len());
                decorated(node, cx.source, out);
                forward::scope_new(node, cx, routes, mounts, out);
            }
            "call" => {
                let forwarding = *self.forwarding.get_or_insert_with(|| FORWARDING.any_in(cx));
                call(node, cx, forwarding, out);
            }
            "assignment" => assignment(node, cx, out),
            "augmented_assignment" => django::augmented(node, cx, out),
            "class_definition" => {
                let refusing = *self
                    .method_not_allowed
                    .get_or_insert_with(|| cx.source.contains("MethodNotAllowed"));
                class(node, cx.source, refusing, out);
            }
            "typed_parameter" | "typed_default_parameter" => parameter(node, cx.source, out),
            "return_statement" => function_return(node, cx, out),
            "named_expression" => walrus(node, cx.source, out),
            _ => {}
        }
    }

    fn finish(&mut self, _cx: &Context<'_>, _facts: &mut FileFacts) {}
}

/// The HTTP method a decorator or method name fixes (`get` → GET).
fn fixed_method(name: &str) -> Option<HttpMethod> {
    match name {
        "get" | "post" | "put" | "patch" | "delete" | "head" | "options" => HttpMethod::parse(name),
        _ => None,
    }
}

/// Route decorators and view restrictions on a function.
fn decorated(node: Node<'_>, source: &str, out: &mut PyRouteFacts) {
    let Some(definition) = node.field("definition") else { return };
    if definition.kind_name() == "class_definition" {
        if let Some(class) = definition.field("name").map(|n| text(n, source)) {
            flask_restx::resource_class(node, class, source, out);
        }
        return;
    }
    if definition.kind_name() != "function_definition" {
        return;
    }
    let Some(handler) = definition.field("name").map(|n| text(n, source)) else {
        return;
    };
    let mut cursor = node.walk();
    for decorator in node.named_children(&mut cursor).filter(|c| c.kind_name() == "decorator") {
        let Some(expr) = decorator.named_child(0) else { continue };
        if let Some(methods) = django::restriction(expr, source) {
            out.views.push(ViewRestriction { function: handler.to_owned(), methods });
            continue;
        }
        if expr.kind_name() != "call" {
            continue;
        }
        let Some((object, attr)) = callee_attribute(expr, source) else { continue };
        let Some(args) = expr.field("arguments") else { continue };
        let methods = match attr.as_str() {
            "api_route" | "route" => methods_keyword(args, source),
            "api_operation" => ninja::operation_methods(args, source),
            other => match fixed_method(other) {
                Some(m) => Methods::Fixed(m),
                None => continue,
            },
        };
        let at = usize::from(attr == "api_operation");
        let path = find_argument_value(args, "path", at, source)
            .map_or_else(|| PathExpr { parts: vec![PathPart::Computed] }, |p| path_expr(p, source));
        let (line, column) = position(decorator);
        out.routes.push(RouteDecl {
            object,
            call: attr,
            path,
            methods,
            handler: Some(handler.to_owned()),
            scope: None,
            line,
            column,
        });
    }
}

/// Calls that mount, register or add routes.
fn call(node: Node<'_>, cx: &Context<'_>, forwarding: bool, out: &mut PyRouteFacts) {
    let source = cx.source;
    // The attribute name first: most calls are not of interest and need no more work.
    let attr = cx
        .field(node, "function")
        .filter(|f| f.kind_name() == "attribute")
        .and_then(|f| f.field("attribute"))
        .map(|a| text(a, source));
    if !matches!(
        attr,
        Some(
            "include_router"
                | "generate_and_include_versioned_routers"
                | "mount"
                | "add_api_route"
                | "register_blueprint"
                | "add_url_rule"
                | "add_namespace"
                | "add_resource"
                | "init_app"
                | "add_router"
                | "register"
                | "append"
                | "extend"
                | "from_object"
        )
    ) {
        if forwarding {
            forward::invocation(node, cx, out);
        }
        return;
    }
    let (routes, mounts) = (out.routes.len(), out.mounts.len());
    call_of_interest(node, cx, out);
    forward::scope_new(node, cx, routes, mounts, out);
}

/// A call whose attribute name may mount, register or add routes.
fn call_of_interest(node: Node<'_>, cx: &Context<'_>, out: &mut PyRouteFacts) {
    let source = cx.source;
    let Some((object, attr)) = callee_attribute(node, source) else { return };
    let Some(args) = node.field("arguments") else { return };
    match attr.as_str() {
        "include_router" | "generate_and_include_versioned_routers" | "mount" | "add_api_route" => {
            fastapi::call(node, &object, &attr, args, source, out);
        }
        "register_blueprint" | "add_url_rule" => {
            flask::call(node, &object, &attr, args, source, out);
        }
        "add_namespace" | "add_resource" | "init_app" => {
            flask_restx::call(node, &object, &attr, args, source, out);
        }
        "add_router" => ninja::add_router(node, &object, args, source, out),
        "register" => django::register(node, &object, args, source, out),
        "append" | "extend" => django::append(&object, &attr, args, source, out),
        "from_object" => forward::config_source(&object, args, source, out),
        _ => {}
    }
}

/// `name = Class(...)` and module-level string constants; Django URL lists.
fn assignment(node: Node<'_>, cx: &Context<'_>, out: &mut PyRouteFacts) {
    let source = cx.source;
    let (Some(left), Some(right)) = (cx.field(node, "left"), cx.field(node, "right")) else {
        return;
    };
    if left.kind_name() != "identifier" {
        return;
    }
    let name = text(left, source);
    let (line, column) = position(node);
    if let Some(target) = dotted(right, source).filter(|_| name != "urlpatterns") {
        out.aliases.push(Alias { name: name.to_owned(), target, call: false });
        return;
    }
    if right.kind_name() == "call" {
        let class = right.field("function").and_then(|f| dotted(f, source));
        let Some(class) = class else { return };
        let last = class.rsplit('.').next().unwrap_or(&class);
        if in_class_body(node, cx) {
            return;
        }
        if matches!(last, "format_suffix_patterns" | "i18n_patterns") {
            django::url_list(name, right, source, out);
            return;
        }
        if !last.starts_with(|c: char| c.is_ascii_uppercase()) {
            out.aliases.push(Alias { name: name.to_owned(), target: class, call: true });
            return;
        }
        let args = right.field("arguments");
        if let (Some(args), true) = (args, last.starts_with("Nested") && last.ends_with("Router")) {
            out.nested_routers.extend(django::nested_router(name, args, source));
        }
        let prefix = match (last, args) {
            ("Namespace", Some(args)) => Some(flask_restx::namespace_path(args, source)),
            // `Api(app)` and subclasses named after it (`ExternalApi(bp)`); the linker keeps the
            // binding only when the class leads to Flask-RESTX's or Flask-RESTful's `Api`.
            (api, Some(args)) if api.ends_with("Api") => {
                out.mounts.extend(flask_restx::api_binding(right, name, args, source));
                prefix_keyword(args, &["prefix"], source)
            }
            (_, args) => args.and_then(|a| prefix_keyword(a, &["prefix", "url_prefix"], source)),
        };
        out.instances.push(Instance {
            name: name.to_owned(),
            class,
            prefix,
            parameter: false,
            line,
            column,
        });
        return;
    }
    // Integers too: `API_VERSION = 1` interpolated in `f"/api/{API_VERSION}"`.
    let integer = right.kind_name() == "integer";
    if (integer || is_stringish(right)) && is_module_level(node, cx) {
        let value =
            if integer { PathExpr::literal(text(right, source)) } else { path_expr(right, source) };
        out.constants.push(Constant { name: name.to_owned(), value, line, column });
        return;
    }
    // A sequence of names may also be a Django URL list built from others (`a + b`).
    forward::sequence(node, name, right, cx, out);
    django::url_list(name, right, source, out);
}

/// `(sub := manager.get_app())`: a name bound to what a function or method returns.
fn walrus(node: Node<'_>, source: &str, out: &mut PyRouteFacts) {
    let name = node.field("name").filter(|n| n.kind_name() == "identifier");
    let value = node.field("value").filter(|v| v.kind_name() == "call");
    let target = value.and_then(|v| v.field("function")).and_then(|f| dotted(f, source));
    let (Some(name), Some(target)) = (name, target) else { return };
    let last = target.rsplit('.').next().unwrap_or(&target);
    if last.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
        out.aliases.push(Alias { name: text(name, source).to_owned(), target, call: true });
    }
}

/// `def f(app: FastAPI)`: a parameter annotated with a class is an instance of it.
fn parameter(node: Node<'_>, source: &str, out: &mut PyRouteFacts) {
    let name = node.named_child(0).filter(|n| n.kind_name() == "identifier");
    let class = node.field("type").and_then(|t| t.named_child(0)).and_then(|t| dotted(t, source));
    let (Some(name), Some(class)) = (name, class) else { return };
    let last = class.rsplit('.').next().unwrap_or(&class);
    if !last.starts_with(|c: char| c.is_ascii_uppercase()) {
        return;
    }
    let (line, column) = position(node);
    out.instances.push(Instance {
        name: text(name, source).to_owned(),
        class,
        prefix: None,
        parameter: true,
        line,
        column,
    });
}

/// `return name` inside a function: what an app factory returns.
fn function_return(node: Node<'_>, cx: &Context<'_>, out: &mut PyRouteFacts) {
    let source = cx.source;
    let Some(returned) = node.named_child(0) else { return };
    let (value, call) = match dotted(returned, source) {
        Some(v) => (v, false),
        None if returned.kind_name() == "call" => {
            let class = returned.field("function").and_then(|f| dotted(f, source));
            let is_class = |c: &String| {
                let last = c.rsplit('.').next().unwrap_or(c);
                last.starts_with(|ch: char| ch.is_ascii_uppercase())
            };
            match class.filter(is_class) {
                Some(c) => (c, true),
                None => return,
            }
        }
        None => return,
    };
    let mut current = cx.parent(node);
    for _ in 0..64 {
        let Some(n) = current else { return };
        match n.kind_name() {
            "function_definition" => {
                if let Some(name) = n.field("name") {
                    let function = text(name, source).to_owned();
                    out.returns.push(FunctionReturn { function, value, call });
                }
                return;
            }
            "class_definition" | "lambda" => return,
            _ => current = cx.parent(n),
        }
    }
}

/// A class: bases, methods, string attributes and DRF actions.
/// `refusing`: the file mentions `MethodNotAllowed`, so a method may only raise it.
fn class(node: Node<'_>, source: &str, refusing: bool, out: &mut PyRouteFacts) {
    let Some(name) = node.field("name").map(|n| text(n, source)) else { return };
    let mut bases = Vec::new();
    if let Some(list) = node.field("superclasses") {
        let mut cursor = list.walk();
        bases.extend(list.named_children(&mut cursor).filter_map(|b| dotted(b, source)));
    }
    let (line, column) = position(node);
    let mut decl = ClassDecl {
        name: name.to_owned(),
        bases,
        methods: Vec::new(),
        attrs: Vec::new(),
        actions: Vec::new(),
        http_method_names: None,
        not_allowed: Vec::new(),
        line,
        column,
    };
    if let Some(body) = node.field("body") {
        let mut cursor = body.walk();
        for item in body.named_children(&mut cursor) {
            match item.kind_name() {
                "function_definition" => {
                    if let Some(n) = item.field("name") {
                        decl.methods.push(text(n, source).to_owned());
                        if refusing && django::only_refuses(item, source) {
                            decl.not_allowed.push(text(n, source).to_owned());
                        }
                    }
                }
                "decorated_definition" => {
                    let Some(def) = item.field("definition") else { continue };
                    if let Some(n) = def.field("name") {
                        let method = text(n, source);
                        decl.methods.push(method.to_owned());
                        if refusing && django::only_refuses(def, source) {
                            decl.not_allowed.push(method.to_owned());
                        }
                        if let Some(action) = django::action(item, method, source) {
                            decl.actions.push(action);
                        }
                    }
                }
                "expression_statement" => {
                    let Some(assign) =
                        item.named_child(0).filter(|a| a.kind_name() == "assignment")
                    else {
                        continue;
                    };
                    let (Some(left), Some(right)) = (assign.field("left"), assign.field("right"))
                    else {
                        continue;
                    };
                    if text(left, source) == "http_method_names" {
                        decl.http_method_names = method_list(right, source);
                        continue;
                    }
                    // Flask `View` classes: `methods = ["GET", "POST"]` lists what they serve.
                    if text(left, source) == "methods"
                        && let Some(listed) = method_list(right, source)
                    {
                        let names = listed.iter().map(|m| m.as_str().to_ascii_lowercase());
                        decl.methods.extend(names);
                        continue;
                    }
                    let value = if is_stringish(right) {
                        Some(right)
                    } else {
                        field_default(right, source)
                    };
                    if let (true, Some(value)) = (left.kind_name() == "identifier", value) {
                        let (line, column) = position(assign);
                        decl.attrs.push(Constant {
                            name: text(left, source).to_owned(),
                            value: path_expr(value, source),
                            line,
                            column,
                        });
                    }
                }
                _ => {}
            }
        }
    }
    out.classes.push(decl);
}
