//! Tests of the Python route facts: what one file yields, per recogniser.

use cartograph_core::RepoPath;

use super::*;

fn facts(source: &str) -> PyRouteFacts {
    let path = RepoPath::new("app/x.py").unwrap_or_else(|e| panic!("{e}"));
    crate::Extractor::new().extract(&path, crate::Grammar::Python, source).py_routes.into_inner()
}

/// One-line descriptions of everything extracted, in a fixed order.
fn described(source: &str) -> String {
    let f = facts(source);
    let mut got = Vec::new();
    let show = |p: &PathExpr| {
        p.parts
            .iter()
            .map(|part| match part {
                PathPart::Literal(l) => format!("'{l}'"),
                PathPart::Ref(r) => r.clone(),
                PathPart::Config(key) => format!("config[{key}]"),
                PathPart::Computed => "?".to_owned(),
            })
            .collect::<Vec<_>>()
            .join("+")
    };
    for i in &f.instances {
        let prefix = i.prefix.as_ref().map(show).unwrap_or_default();
        let kind = if i.parameter { "parameter" } else { "instance" };
        got.push(format!("{kind} {} = {} [{prefix}] @{}", i.name, i.class, i.line));
    }
    for a in &f.aliases {
        got.push(format!("alias {} = {}{}", a.name, a.target, if a.call { "()" } else { "" }));
    }
    for r in &f.returns {
        let call = if r.call { "()" } else { "" };
        got.push(format!("return {}{call} from {}", r.value, r.function));
    }
    for c in &f.classes {
        let attrs: Vec<String> =
            c.attrs.iter().map(|a| format!("{}={}", a.name, show(&a.value))).collect();
        let actions: Vec<String> = c
            .actions
            .iter()
            .map(|a| format!("{}:{}:{:?}:{}", a.name, a.detail, a.methods, a.url_path))
            .collect();
        let not_allowed = if c.not_allowed.is_empty() {
            String::new()
        } else {
            format!(" not_allowed={}", c.not_allowed.join(","))
        };
        got.push(format!(
            "class {}({}) methods={} attrs={} actions={}{not_allowed}",
            c.name,
            c.bases.join(","),
            c.methods.join(","),
            attrs.join(","),
            actions.join(",")
        ));
    }
    for c in &f.constants {
        got.push(format!("const {} = {}", c.name, show(&c.value)));
    }
    for r in &f.routes {
        got.push(format!(
            "route {}.{} {} {:?} -> {} @{}",
            r.object,
            r.call,
            show(&r.path),
            r.methods,
            r.handler.as_deref().unwrap_or("-"),
            r.line
        ));
    }
    for m in &f.mounts {
        let prefix = m.prefix.as_ref().map(show).unwrap_or_default();
        got.push(format!(
            "mount {:?} {} <- {} [{prefix}]",
            m.kind,
            m.parent,
            m.child.as_deref().unwrap_or("?")
        ));
    }
    for (i, e) in f.url_entries.iter().enumerate() {
        got.push(format!(
            "url#{i} {}{:?} {:?} {} -> {:?}{}",
            e.list,
            e.parent,
            e.function,
            show(&e.route),
            e.target,
            if e.as_view_methods.is_empty() {
                String::new()
            } else {
                format!(" {:?}", e.as_view_methods)
            }
        ));
    }
    for r in &f.registrations {
        got.push(format!(
            "register {} {} {}",
            r.router,
            show(&r.prefix),
            r.viewset.as_deref().unwrap_or("?")
        ));
    }
    for v in &f.views {
        got.push(format!("view {} {:?}", v.function, v.methods));
    }
    for n in &f.nested_routers {
        let lookup = n.lookup.as_deref().unwrap_or("-");
        got.push(format!("nested {} <- {} {} {lookup}", n.name, n.parent, show(&n.parent_prefix)));
    }
    forwarding(&f, &show, &mut got);
    got.join("\n")
}

/// The facts that let the linker follow forwarding functions.
fn forwarding(f: &PyRouteFacts, show: &dyn Fn(&PathExpr) -> String, got: &mut Vec<String>) {
    let scope = |s: Option<u32>| s.map_or_else(|| "module".to_owned(), |s| format!("fn#{s}"));
    let item = |i: &SeqItem| match i {
        SeqItem::One(n) => n.clone(),
        SeqItem::All(n) => format!("*{n}"),
    };
    for (i, func) in f.functions.iter().enumerate() {
        let class = func.class.as_deref().map(|c| format!("{c}.")).unwrap_or_default();
        let splat = if func.splat { " +splat" } else { "" };
        got.push(format!("fn#{i} {class}{}({}){splat}", func.name, func.params.join(", ")));
    }
    for r in f.routes.iter().filter(|r| r.scope.is_some()) {
        got.push(format!("route @{} in {}", r.line, scope(r.scope)));
    }
    for m in f.mounts.iter().filter(|m| m.scope.is_some()) {
        got.push(format!("mount @{} in {}", m.line, scope(m.scope)));
    }
    for l in &f.loops {
        got.push(format!("loop {} in {} ({})", l.var, l.over, scope(l.scope)));
    }
    for q in &f.sequences {
        let items: Vec<String> = q.items.iter().map(item).collect();
        got.push(format!("sequence {} = [{}] ({})", q.name, items.join(", "), scope(q.scope)));
    }
    for c in &f.invocations {
        let args: Vec<String> = c
            .args
            .iter()
            .map(|a| {
                let value = match &a.value {
                    ArgValue::Name(n) => n.clone(),
                    ArgValue::Path(p) => show(p),
                    ArgValue::Paths(ps) => {
                        format!("[{}]", ps.iter().map(show).collect::<Vec<_>>().join(", "))
                    }
                    ArgValue::Items(items) => {
                        format!("({})", items.iter().map(item).collect::<Vec<_>>().join(", "))
                    }
                    ArgValue::View(c) => format!("{c}.as_view"),
                    ArgValue::Other => "?".to_owned(),
                };
                a.keyword.as_ref().map_or(value.clone(), |k| format!("{k}={value}"))
            })
            .collect();
        let splat = if c.splat { " +splat" } else { "" };
        got.push(format!(
            "call {}({}){splat} in {} @{}",
            c.callee,
            args.join(", "),
            scope(c.scope),
            c.line
        ));
    }
    for c in &f.config_sources {
        got.push(format!("config from {}{}", c.class, if c.string { " (string)" } else { "" }));
    }
}

#[test]
fn fastapi_routers_routes_and_mounts() {
    check!(
        r#"
from fastapi import APIRouter, FastAPI
from app.core.config import settings

app = FastAPI(title="x")
router = APIRouter(prefix="/items", tags=["items"])

@router.get("/{id}")
def read_item(id: int): ...

@router.api_route("/both", methods=["GET", "post"])
async def both(): ...

@router.api_route("/dflt")
async def dflt(): ...

app.include_router(router, prefix=settings.API_V1_STR)
app.include_router(items.router, prefix=f"{settings.API_V1_STR}/x")
app.include_router(make())
app.include_router(router, **options)
extra = APIRouter(**router_options)
app.mount("/sub", subapp)
router.add_api_route("/added", added, methods=["DELETE"])
"#
    );
}

#[test]
fn settings_classes_constants_and_computed_paths() {
    check!(
        r#"
class Settings(BaseSettings):
    API_V1_STR: str = "/api/v1"
    NAME = "x" + SUFFIX
    ROOT: str = Field(default="/root", description="d")
    OTHER: str = Field(alias="X")
    PORT: int = 8000
    def helper(self): ...

settings = Settings()
PREFIX = "/p"
JOINED = PREFIX + "/q"

@app.get(build_path())
def computed(): ...

@app.route(PREFIX + "/lit", methods=METHODS)
def refs(): ...
"#
    );
}

#[test]
fn flask_blueprints_and_rules() {
    check!(
        r#"
from flask import Blueprint, Flask

bp = Blueprint("shop", __name__, url_prefix="/shop")

@bp.route("/cart", methods=["POST"])
def cart(): ...

@bp.route("/list")
def listing(): ...

def create_app():
    app = Flask(__name__)
    app.register_blueprint(bp, url_prefix="/api")
    app.add_url_rule("/items", view_func=ItemView.as_view("items"))
    app.add_url_rule("/ping", "ping", ping)
    return app
"#
    );
}

#[test]
fn django_url_confs() {
    check!(
        r#"
from django.urls import include, path, re_path
from . import views

extra = [path("more/", views.more)]

urlpatterns = [
    path("items/<int:id>/", views.item_detail, name="detail"),
    re_path(r"^old/(?P<pk>\d+)/$", views.old),
    path("api/", include("shop.api.urls")),
    path("v1/", include(router.urls)),
    path("cbv/", views.ItemView.as_view()),
    path("extra/", include(extra)),
    path("inline/", include([path("a/", views.a)])),
    static("x"),
] + router.urls
urlpatterns += [path("late/", views.late)]
"#
    );
}

#[test]
fn django_tuples_splats_appends_and_viewset_mappings() {
    check!(
        r#"
_patterns = (
    path("a/", views.a),
)
_patterns.append(path("dbg/", include(debug_toolbar.urls)))
_patterns.extend([path("b/", views.b)])
urlpatterns = [
    path(settings.BASE_PATH, include(_patterns)),
    path("devices/", views.DeviceViewSet.as_view({"get": "list", "post": "create"})),
    *router.urls,
]
urlpatterns += i18n_patterns(path("about/", views.about), prefix_default_language=False)
items.append(compute(x))
"#
    );
}

#[test]
fn drf_routers_viewsets_and_restricted_views() {
    check!(
        r#"
from rest_framework.routers import DefaultRouter

router = DefaultRouter()
router.register(r"items", ItemViewSet, basename="item")
admin.site.register(Item)

class ItemViewSet(viewsets.ModelViewSet):
    lookup_field = "slug"

    @action(detail=True, methods=["post"], url_path="set-price")
    def set_price(self, request, slug=None): ...

    @action(detail=False)
    def recent(self, request): ...

@api_view(["GET", "POST"])
def listing(request): ...

@require_http_methods(["DELETE"])
def remove(request): ...

@require_safe
def safe(request): ...
"#
    );
}

#[test]
fn annotated_parameters_aliases_and_factories() {
    check!(
        r#"
from fastapi import FastAPI

def create_execution_app() -> FastAPI:
    app = FastAPI()
    return app

def init_views(app: FastAPI, router: "APIRouter", other: int = 1, *, bp: Blueprint = None) -> None:
    app.include_router(public_router)

def create_app():
    app = FastAPI()
    sub = create_execution_app()
    app.mount("/execution", sub)
    api = app
    return api
"#
    );
}

#[test]
fn flask_restx_apis_namespaces_and_resources() {
    check!(
        r#"
from flask import Blueprint
from flask_restx import Api, Namespace, Resource

bp = Blueprint("api", __name__, url_prefix="/api/v2")
api = Api(bp, version="2", prefix="/rest")
later = Api()
later.init_app(app)
custom = ExternalApi(bp, prefix="/ext")
cache.init_app(app)
books = Namespace("books", description="d")
moved = Namespace("shelves", path="/racks")
dynamic = Namespace(make_name())
api.add_namespace(books)
api.add_namespace(moved, "/cases")
api.add_namespace(dynamic, path=None)
api.add_resource(Health, "/health", "/healthz", endpoint="health")
api.add_resource(Spread, *URLS)

@books.route("", "/all")
@books.doc(params={"q": "query"})
class BookList(Resource):
    def get(self): ...
    def post(self): ...

@moved.route("/<int:rack_id>")
class Rack(BaseResource):
    def delete(self, rack_id): ...
"#
    );
}

#[test]
fn django_url_packages_spread_and_add_lists() {
    check!(
        r#"
from .cycles import urlpatterns as cycle_urls
from .boards import urlpatterns as board_urls
from . import legacy

old_patterns = [path("old/", views.old)]
new_patterns = [path("new/", views.new)]
urlpatterns = [*cycle_urls, *board_urls, *legacy.urlpatterns, path("x/", views.x)]
urlpatterns += old_patterns + new_patterns
urlpatterns = [path("dbg/", views.dbg)] + urlpatterns
INSTALLED_APPS = [*DJANGO_APPS, *LOCAL_APPS]
total = count + offset
"#
    );
}

#[test]
fn other_files_are_not_wanted() {
    assert_eq!(facts("import os\nx = 1\n"), PyRouteFacts::default());
}

#[test]
fn django_ninja_apis_routers_and_operations() {
    check!(
        r#"
from ninja import NinjaAPI, Router

api = NinjaAPI(urls_namespace="public", version="2")
orders = Router(tags=["orders"])

@api.get("/health")
def health(request): ...

@orders.post("/{int:order_id}/refund")
def refund(request, order_id: int): ...

@orders.api_operation(["GET", "PATCH"], "/summary")
def summary(request): ...

@orders.api_operation(methods=allowed, path="/dyn")
def dyn(request): ...

api.add_router("/orders/", orders)
api.add_router("/catalog", "catalog.endpoints.router")
orders.add_router(prefix=ORDERS_SUB, router=lines.router)
"#
    );
}

#[test]
fn flask_method_views_cadwyn_routers_and_walrus_factories() {
    check!(
        r#"
from flask.views import MethodView, View

class BaseItems(MethodView):
    def get(self): ...

class Items(BaseItems):
    def post(self): ...

class Report(View):
    methods = ["GET", "HEAD"]
    def dispatch_request(self): ...

bp.add_url_rule("/items", view_func=Items.as_view("items"))
versioned.generate_and_include_versioned_routers(public_router, internal.router)
if app and (sub := manager.get_web_app()):
    app.mount("/auth", sub)
"#
    );
}

#[test]
fn drf_format_suffix_patterns_keep_their_entries() {
    check!(
        r#"
from rest_framework.urlpatterns import format_suffix_patterns

urlpatterns = format_suffix_patterns([
    path("snippets/", views.snippet_list),
    path("snippets/<int:pk>/", views.snippet_detail),
])
urlpatterns = format_suffix_patterns(urlpatterns, allowed=["json", "html"])
"#
    );
}

#[test]
fn drf_nested_routers() {
    check!(
        r#"
from rest_framework_nested import routers

shelves = routers.DefaultRouter()
shelves.register(r"shelves", ShelfViewSet)
books = routers.NestedSimpleRouter(shelves, r"shelves", lookup="shelf")
books.register(r"books", BookViewSet)
pages = NestedSimpleRouter(parent_router=books, parent_prefix="books")
"#
    );
}

#[test]
fn drf_methods_that_only_refuse_are_marked() {
    check!(
        r#"
from rest_framework import exceptions, viewsets
from rest_framework.exceptions import MethodNotAllowed

class BadgeViewSet(viewsets.ModelViewSet):
    def update(self, request, pk=None):
        """Badges are immutable."""
        raise MethodNotAllowed(request.method)

    @some_decorator
    def partial_update(self, request, pk=None):
        raise exceptions.MethodNotAllowed("PATCH")

    def destroy(self, request, pk=None):
        if request.user.is_staff:
            return super().destroy(request, pk)
        raise MethodNotAllowed(request.method)

    def create(self, request):
        raise ValueError("not refused by DRF")
"#
    );
}

#[test]
fn forwarding_helpers_loops_sequences_and_config_sources() {
    check!(
        r#"
from flask import Blueprint
from shop.util import add_view, other

BUILTIN = (status_bp,)
LEVEL = 2
COUNT = 3.5

def attach_all(app, parts):
    for part in parts:
        app.register_blueprint(part, url_prefix=f"/v{LEVEL}")

def add_view(target, rules, view, *extra, **options):
    for rule in rules:
        target.add_url_rule(rule, view_func=view)

class Panel:
    def hook(self, app: Flask, name="x"):
        app.add_url_rule("/panel", view_func=panel)

def load_parts(app):
    store = Blueprint("store", __name__)
    add_view(store, rules=["/shelf", "/shelf/<int:n>"], view_func=Shelf.as_view("shelf"))
    add_view(store, "/one", show)
    app.register_blueprint(store, url_prefix=app.config["STORE_PREFIX"])
    parts = BUILTIN + (store, *extra_parts)
    attach_all(app, parts)
    other(1, "two", *rest)
    app.config.from_object("shop.settings.Base")
    app.config.from_object(Overrides)
    return app.config.get("PLAIN")
"#
    );
}
