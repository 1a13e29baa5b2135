//! NestJS: `@Controller` classes, their `@Get`/`@Post`/… handler methods, and the app's global
//! prefix.
//!
//! Recognises a class decorated `@Controller()`, `@Controller("items")` or
//! `@Controller({ path: "items" })`, whose methods carry `@Get()`, `@Get(":id")`, `@Post()`,
//! `@Put`, `@Patch`, `@Delete`, `@Head`, `@Options` or `@All` — only when `Controller` is imported
//! from `@nestjs/common`. A file that calls `NestFactory.create` is an app; its
//! `app.setGlobalPrefix("api")` applies to every Nest route (the linker decides which app a
//! controller belongs to when there are several, and lowers the confidence then).
//!
//! URI versioning: `app.enableVersioning({ type: VersioningType.URI, defaultVersion: "1",
//! prefix: "v" })` (the type and prefix shown are the defaults) puts `/v1` after the global
//! prefix; `@Controller({ path: "items", version: "2" })`, `@Version("2")` on the class or on a
//! method, arrays of versions and `VERSION_NEUTRAL` choose the versions a handler is served
//! under (the method's over the controller's over the default). Header and media-type
//! versioning add no segment.
//!
//! `RouterModule.register([{ path: "admin", module: AdminModule, children: [...] }])` (an array
//! literal, or a `const` of the file holding one): each module named, with the paths of its
//! entry and the entries above it; a module written bare in `children` takes its parent's path.
//! The controllers of a module are those its `@Module({ controllers: [...] })` lists; the linker
//! puts the module's path in front of their routes. A list that cannot be read (a call, a
//! spread, a module that is not a plain name) is only noted: the linker lowers the confidence of
//! every Nest route then.
//!
//! Refuses (at link time): a controller path, route path or global prefix that is not a literal
//! (`computed-route`).
//!
//! Example: `@Controller("items")` with `@Get(":id") findOne()` and
//! `app.setGlobalPrefix("api")` in `main.ts` serves `GET /api/items/{id}`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::{
    JsRouteFacts, NestController, NestExclude, NestModule, NestModulePath, NestRoute, NestVersion,
    NestVersioning, PathValue, named_args, object_property, path_value, strip_expression,
};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position, text};

/// A decorator's name and first argument: `@Get(":id")` → (`Get`, `":id"`).
fn decorator<'t>(node: Node<'t>, cx: &Context<'_>) -> Option<(&'static str, Option<Node<'t>>)> {
    let inner = node.named_child(0)?;
    match inner.kind_name() {
        "identifier" => Some((text_static(inner, cx), None)),
        "call_expression" => {
            let function = inner.field("function")?;
            if function.kind_name() != "identifier" {
                return None;
            }
            let args = inner.field("arguments").map(named_args).unwrap_or_default();
            Some((text_static(function, cx), args.first().copied()))
        }
        _ => None,
    }
}

/// Decorator names compared by value; the text borrowed from the source is copied into a static
/// set of known names so the result does not tie lifetimes together.
fn text_static(node: Node<'_>, cx: &Context<'_>) -> &'static str {
    const KNOWN: &[&str] = &[
        "Controller",
        "Module",
        "Version",
        "Get",
        "Post",
        "Put",
        "Patch",
        "Delete",
        "Head",
        "Options",
        "All",
    ];
    let t = text(node, cx.source);
    KNOWN.iter().find(|k| **k == t).copied().unwrap_or("")
}

/// The path a decorator argument gives: none → empty, a literal, `{ path: "x" }`, or computed.
fn decorator_path(arg: Option<Node<'_>>, cx: &Context<'_>) -> PathValue {
    match arg {
        None => PathValue::Literal(String::new()),
        Some(a) if a.kind_name() == "object" => match object_property(a, "path", cx.source) {
            Some(p) => path_value(p, cx),
            None => PathValue::Literal(String::new()),
        },
        Some(a) => path_value(a, cx),
    }
}

/// Decorators written before a class: its own children, and an enclosing `export` statement's.
fn class_decorators<'t>(class: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = class.walk();
    out.extend(class.children(&mut cursor).filter(|c| c.kind_name() == "decorator"));
    if let Some(parent) = class.parent().filter(|p| p.kind_name() == "export_statement") {
        let mut cursor = parent.walk();
        out.extend(parent.children(&mut cursor).filter(|c| c.kind_name() == "decorator"));
    }
    out
}

/// A `class_declaration`: a controller when decorated `@Controller`.
pub(super) fn class(node: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let module = cx.source.contains("@Module");
    if !module && !cx.source.contains("@Controller") {
        return;
    }
    let decorators: Vec<(&str, Option<Node<'_>>)> =
        class_decorators(node).into_iter().filter_map(|d| decorator(d, cx)).collect();
    if module
        && let Some((_, Some(options))) = decorators.iter().find(|(n, _)| *n == "Module")
        && let Some(name) = node.field("name")
    {
        module_class(text(name, cx.source), *options, cx, js);
    }
    let Some((_, arg)) = decorators.iter().find(|(name, _)| *name == "Controller").copied() else {
        return;
    };
    let from_options = arg
        .filter(|a| a.kind_name() == "object")
        .and_then(|a| object_property(a, "version", cx.source))
        .map(|v| version(v, cx));
    let from_decorator = decorators
        .iter()
        .find(|(name, _)| *name == "Version")
        .map(|(_, a)| a.map_or(NestVersion::Computed, |a| version(a, cx)));
    let class_version = from_decorator.or(from_options);
    let Some(name) = node.field("name") else {
        return;
    };
    let Some(body) = node.field("body") else {
        return;
    };
    let mut routes = Vec::new();
    let mut pending: Vec<Node<'_>> = Vec::new();
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        match member.kind_name() {
            // The TypeScript grammar puts method decorators before the method in the class body.
            "decorator" => pending.push(member),
            "method_definition" => {
                let mut decorators = std::mem::take(&mut pending);
                let mut inner = member.walk();
                decorators
                    .extend(member.children(&mut inner).filter(|c| c.kind_name() == "decorator"));
                method(member, &decorators, cx, &mut routes);
            }
            _ => pending.clear(),
        }
    }
    let (line, column) = position(node);
    js.nest_controllers.push(NestController {
        class: text(name, cx.source).to_owned(),
        prefix: decorator_path(arg, cx),
        version: class_version,
        routes,
        line,
        column,
    });
}

fn method(
    member: Node<'_>,
    decorators: &[Node<'_>],
    cx: &Context<'_>,
    routes: &mut Vec<NestRoute>,
) {
    let Some(name) = member.field("name") else {
        return;
    };
    let parsed: Vec<(&str, Option<Node<'_>>)> =
        decorators.iter().filter_map(|d| decorator(*d, cx)).collect();
    let method_version = parsed
        .iter()
        .find(|(name, _)| *name == "Version")
        .map(|(_, a)| a.map_or(NestVersion::Computed, |a| version(a, cx)));
    for d in decorators {
        let Some((decorator_name, arg)) = decorator(*d, cx) else {
            continue;
        };
        let Some(method) = (match decorator_name {
            "Controller" | "Version" | "" => None,
            other => HttpMethod::parse(other),
        }) else {
            continue;
        };
        let (line, column) = position(*d);
        routes.push(NestRoute {
            method,
            path: decorator_path(arg, cx),
            handler: text(name, cx.source).to_owned(),
            version: method_version.clone(),
            line,
            column,
        });
    }
}

/// `@Module({ controllers: [A, B] })`: the controller classes the module declares.
fn module_class(class: &str, options: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let options = strip_expression(options);
    if options.kind_name() != "object" {
        return;
    }
    let Some(list) = object_property(options, "controllers", cx.source).map(strip_expression)
    else {
        return;
    };
    if list.kind_name() != "array" {
        return;
    }
    let mut cursor = list.walk();
    let controllers: Vec<String> = list
        .named_children(&mut cursor)
        .map(strip_expression)
        .filter(|c| c.kind_name() == "identifier")
        .map(|c| text(c, cx.source).to_owned())
        .collect();
    if !controllers.is_empty() {
        js.nest_modules.push(NestModule { class: class.to_owned(), controllers });
    }
}

/// How deep `children` of `RouterModule` routes are followed.
const MAX_ROUTE_DEPTH: usize = 16;

/// `RouterModule.register(routes)`: the modules the routes place under a path.
pub(super) fn router_module(call: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let args = call.field("arguments").map(named_args).unwrap_or_default();
    let list = match args.as_slice() {
        [only] => {
            let only = strip_expression(*only);
            match only.kind_name() {
                "array" => Some(only),
                "identifier" => file_array(text(only, cx.source), cx),
                _ => None,
            }
        }
        _ => None,
    };
    let (line, column) = position(call);
    let read = list.is_some_and(|list| route_entries(list, &[], line, column, cx, js, 0));
    if !read {
        js.nest_router_module = true;
    }
}

/// The array literal a top-level `const NAME = [...]` of the file holds.
fn file_array<'t>(name: &str, cx: &Context<'t>) -> Option<Node<'t>> {
    let root = *cx.ancestry().first()?;
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let statement = match statement.kind_name() {
            "export_statement" => match statement.field("declaration") {
                Some(declaration) => declaration,
                None => continue,
            },
            _ => statement,
        };
        if !matches!(statement.kind_name(), "lexical_declaration" | "variable_declaration") {
            continue;
        }
        let mut inner = statement.walk();
        for declarator in statement.named_children(&mut inner) {
            if declarator.field("name").is_some_and(|n| text(n, cx.source) == name) {
                return declarator
                    .field("value")
                    .map(strip_expression)
                    .filter(|v| v.kind_name() == "array");
            }
        }
    }
    None
}

/// Reads the entries of a routes array under the paths `above`; false when some part cannot be
/// read.
fn route_entries(
    list: Node<'_>,
    above: &[PathValue],
    line: u32,
    column: u32,
    cx: &Context<'_>,
    js: &mut JsRouteFacts,
    depth: usize,
) -> bool {
    if depth > MAX_ROUTE_DEPTH {
        return false;
    }
    let mut read = true;
    let mut cursor = list.walk();
    for entry in list.named_children(&mut cursor) {
        let entry = strip_expression(entry);
        match entry.kind_name() {
            "comment" => {}
            // A module written bare among `children` is served at its parent's path.
            "identifier" => js.nest_module_paths.push(NestModulePath {
                module: text(entry, cx.source).to_owned(),
                path: above.to_vec(),
                line,
                column,
            }),
            "object" => {
                let mut path = above.to_vec();
                if let Some(p) = object_property(entry, "path", cx.source) {
                    path.push(path_value(p, cx));
                }
                if let Some(module) = object_property(entry, "module", cx.source) {
                    let module = strip_expression(module);
                    if module.kind_name() == "identifier" {
                        js.nest_module_paths.push(NestModulePath {
                            module: text(module, cx.source).to_owned(),
                            path: path.clone(),
                            line,
                            column,
                        });
                    } else {
                        read = false;
                    }
                }
                if let Some(children) = object_property(entry, "children", cx.source) {
                    let children = strip_expression(children);
                    read &= children.kind_name() == "array"
                        && route_entries(children, &path, line, column, cx, js, depth + 1);
                }
            }
            _ => read = false,
        }
    }
    read
}

/// A version argument: `"1"`, `["1", "2"]`, `VERSION_NEUTRAL`, or computed.
fn version(node: Node<'_>, cx: &Context<'_>) -> NestVersion {
    let one = |n: Node<'_>| -> Option<Option<String>> {
        let n = strip_expression(n);
        if n.kind_name() == "identifier" && text(n, cx.source) == "VERSION_NEUTRAL" {
            return Some(None);
        }
        literal_string(n, cx.source).map(Some)
    };
    let node = strip_expression(node);
    if node.kind_name() == "array" {
        let mut cursor = node.walk();
        let items: Option<Vec<Option<String>>> = node
            .named_children(&mut cursor)
            .filter(|n| n.kind_name() != "comment")
            .map(one)
            .collect();
        return match items {
            Some(items) if !items.is_empty() => NestVersion::Listed(items),
            _ => NestVersion::Computed,
        };
    }
    one(node).map_or(NestVersion::Computed, |v| NestVersion::Listed(vec![v]))
}

/// `app.enableVersioning({ type, prefix, defaultVersion })`.
pub(super) fn versioning(call: Node<'_>, cx: &Context<'_>) -> NestVersioning {
    let args = call.field("arguments").map(named_args).unwrap_or_default();
    let Some(options) = args.first().map(|a| strip_expression(*a)) else {
        // `enableVersioning()` defaults to URI versioning.
        return NestVersioning::Uri { prefix: Some("v".to_owned()), default: None, root: None };
    };
    if options.kind_name() != "object" {
        return NestVersioning::Computed;
    }
    let kind = object_property(options, "type", cx.source).map(|t| text(t, cx.source));
    match kind.and_then(|k| k.rsplit('.').next()) {
        Some("URI") => {}
        Some("HEADER" | "MEDIA_TYPE" | "CUSTOM") => return NestVersioning::Other,
        _ => return NestVersioning::Computed,
    }
    let mut root = None;
    let prefix = match object_property(options, "prefix", cx.source) {
        None => Some("v".to_owned()),
        Some(p) if text(p, cx.source) == "false" => None,
        Some(p) => match literal_string(strip_expression(p), cx.source) {
            Some(p) => Some(p),
            None => match rooted_prefix(strip_expression(p), cx) {
                Some((name, rest)) => {
                    root = Some(name);
                    Some(rest)
                }
                None => return NestVersioning::Computed,
            },
        },
    };
    let default = object_property(options, "defaultVersion", cx.source).map(|v| version(v, cx));
    NestVersioning::Uri { prefix, default, root }
}

/// `` `${CONTEXT_PATH}v` ``: one leading interpolation of a plain (dotted) name and a literal
/// rest without a slash, as (the name, the rest).
fn rooted_prefix(node: Node<'_>, cx: &Context<'_>) -> Option<(String, String)> {
    if node.kind_name() != "template_string" {
        return None;
    }
    let mut cursor = node.walk();
    let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let (first, rest) = parts.split_first()?;
    let name = first.named_child(0).filter(|_| first.kind_name() == "template_substitution")?;
    if !matches!(name.kind_name(), "identifier" | "member_expression") {
        return None;
    }
    let mut literal = String::new();
    for part in rest {
        if part.kind_name() != "string_fragment" {
            return None;
        }
        literal.push_str(text(*part, cx.source));
    }
    (!literal.is_empty() && !literal.contains('/'))
        .then(|| (text(name, cx.source).to_owned(), literal))
}

/// Keeps the controllers only when `Controller` is NestJS's (imported from `@nestjs/common`, or
/// one of its entry points such as `@nestjs/common/decorators`, under its own name).
pub(super) fn keep_imported(js: &mut JsRouteFacts, nest_names: &[(String, String)]) {
    let imported =
        |member: &str| nest_names.iter().any(|(local, name)| local == member && name == local);
    if !imported("Controller") {
        js.nest_controllers.clear();
    }
    if !imported("Module") {
        js.nest_modules.clear();
    }
}

/// The options of `setGlobalPrefix(prefix, options)`: whether any part is not read, and the
/// entries of a literal `exclude` list (`"health"`, `{ path: "auth/*", method: RequestMethod.GET
/// }`). Anything else — another option, a computed entry — leaves the options unread.
pub(super) fn prefix_options(options: Node<'_>, cx: &Context<'_>) -> (bool, Vec<NestExclude>) {
    let options = strip_expression(options);
    if options.kind_name() != "object" {
        return (true, Vec::new());
    }
    let mut unread = false;
    let mut excludes = Vec::new();
    let mut cursor = options.walk();
    for property in options.named_children(&mut cursor) {
        if property.kind_name() == "comment" {
            continue;
        }
        let key = property.field("key").map(|k| text(k, cx.source));
        let value = property.field("value").map(strip_expression);
        match (property.kind_name(), key, value) {
            ("pair", Some("exclude"), Some(list)) if list.kind_name() == "array" => {
                let mut inner = list.walk();
                for entry in list.named_children(&mut inner) {
                    if entry.kind_name() == "comment" {
                        continue;
                    }
                    match exclude_entry(entry, cx) {
                        Some(exclude) => excludes.push(exclude),
                        None => unread = true,
                    }
                }
            }
            _ => unread = true,
        }
    }
    (unread, excludes)
}

/// `"health"` or `{ path: "health", method: RequestMethod.GET }`.
fn exclude_entry(entry: Node<'_>, cx: &Context<'_>) -> Option<NestExclude> {
    let entry = strip_expression(entry);
    if let Some(path) = literal_string(entry, cx.source) {
        return Some(NestExclude { method: None, path });
    }
    if entry.kind_name() != "object" {
        return None;
    }
    let path = literal_string(object_property(entry, "path", cx.source)?, cx.source)?;
    let method = match object_property(entry, "method", cx.source) {
        None => None,
        Some(m) => {
            let name = m.field("property").map(|p| text(p, cx.source))?;
            Some(HttpMethod::parse(name)?)
        }
    };
    // `RequestMethod.ALL` excludes the path for every method.
    let method = method.filter(|m| *m != HttpMethod::Any);
    Some(NestExclude { method, path })
}
