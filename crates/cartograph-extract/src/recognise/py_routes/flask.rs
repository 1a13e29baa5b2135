//! Flask: routes, blueprints and blueprint registration.
//!
//! Recognises `@app.route("/x", methods=["GET", "POST"])` (GET when `methods` is absent) and the
//! Flask 2 shortcuts `@bp.get/post/put/patch/delete("/x")` (both recorded by the shared decorator
//! reader in `mod.rs`), `app.add_url_rule("/x", view_func=handler, methods=[...])` (a
//! `View.as_view("name")` view serves the HTTP methods its class and its in-tree bases define,
//! or those a literal `methods = ["GET", "POST"]` class attribute lists),
//! `bp = Blueprint("name", __name__, url_prefix="/p")` and
//! `app.register_blueprint(bp, url_prefix="/q")` — the registration's prefix overrides the
//! blueprint's own, as Flask does — across modules and for nested blueprints.
//!
//! A helper that hands its parameters on to `add_url_rule` or `register_blueprint`
//! (`register_view(bp, routes, view_func)` looping over `routes`; `configure(app, blueprints)`
//! looping over a tuple of blueprints) places its routes at its calls (`forward.rs`), and a
//! prefix read from `app.config["KEY"]` is the default the `config.from_object` class gives the
//! key (`likely`: a deployment's config can override it).
//!
//! Refuses (at link time): computed paths, prefixes or `methods` (`computed-route`), and a
//! registered blueprint that cannot be found (`unresolved-mount`).
//!
//! Example: `bp = Blueprint("shop", __name__, url_prefix="/shop")`, `@bp.route("/cart",
//! methods=["POST"])` and `app.register_blueprint(bp, url_prefix="/api")` give `POST /api/cart`.

use tree_sitter::Node;

use super::{
    Methods, MountDecl, MountKind, PathExpr, PathPart, PyRouteFacts, RouteDecl, methods_keyword,
    path_expr, prefix_keyword,
};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::python::{dotted, find_argument_value};
use crate::syntax::{position, text};

/// The `call` of a route added with a class-based view, so the linker can read its methods.
pub const AS_VIEW_RULE: &str = "add_url_rule:as_view";

/// `register_blueprint` and `add_url_rule` calls on `object`.
pub(super) fn call(
    node: Node<'_>,
    object: &str,
    attr: &str,
    args: Node<'_>,
    source: &str,
    out: &mut PyRouteFacts,
) {
    let (line, column) = position(node);
    match attr {
        "register_blueprint" => {
            let child = find_argument_value(args, "blueprint", 0, source);
            out.mounts.push(MountDecl {
                parent: object.to_owned(),
                child: child.and_then(|c| dotted(c, source)),
                prefix: prefix_keyword(args, &["url_prefix"], source),
                kind: MountKind::RegisterBlueprint,
                scope: None,
                line,
                column,
            });
        }
        "add_url_rule" => {
            let rule = find_argument_value(args, "rule", 0, source);
            let view = find_argument_value(args, "view_func", 2, source);
            let (handler, class_based) = match view {
                Some(v) => view_function(v, source),
                None => (None, false),
            };
            let methods = methods_keyword(args, source);
            let call = if class_based && methods == Methods::Default {
                AS_VIEW_RULE.to_owned()
            } else {
                attr.to_owned()
            };
            out.routes.push(RouteDecl {
                object: object.to_owned(),
                call,
                path: rule.map_or_else(
                    || PathExpr { parts: vec![PathPart::Computed] },
                    |r| path_expr(r, source),
                ),
                methods,
                handler,
                scope: None,
                line,
                column,
            });
        }
        _ => {}
    }
}

/// A view function (`handler`, `views.handler`) or a class view (`ItemView.as_view("items")`).
fn view_function(node: Node<'_>, source: &str) -> (Option<String>, bool) {
    if node.kind_name() == "call" {
        let Some(function) = node.field("function") else { return (None, false) };
        if function.kind_name() == "attribute"
            && function.field("attribute").is_some_and(|a| text(a, source) == "as_view")
        {
            let class = function.field("object").and_then(|o| dotted(o, source));
            return (class, true);
        }
        return (None, false);
    }
    (dotted(node, source), false)
}
