//! Routers put into a registry under a key and mounted wherever the registry's items under that
//! key are mounted: a plugin registry.
//!
//! Recognises the registration, `Registry.add({ type: Keys.Api, value: router })` (or an array
//! of such objects, or `register` for `add`; each object's properties that are names or string
//! literals, one level of nesting included: `value: { router, id }`), and the mount, a router's
//! `use` of an item's member inside `Registry.get(Keys.Api).forEach((item) =>
//! router.use("/", item.value.routes()))` or `for (const item of Registry.get(Keys.Api)) …`,
//! also through a local alias (`const r = await item.value.router; router.use(r.routes())`),
//! and through a class's static getter that only returns such a query (`static get providers()
//! { return Registry.get(Keys.Login); }`, looped over as `for (const p of Helper.providers)`,
//! the class followed through an import).
//! The linker mounts each router registered under the key, at the member path the mount reads,
//! when the registry and the key name the same declarations in both files (the same imported
//! member, or a string literal).
//!
//! Refuses (at link time): a mount of a registry's items that no registration of the tree
//! supplies with a router (`unresolved-mount`); a key or registry that is computed is not read.
//!
//! Example: `PluginManager.add({ type: Hook.API, value: api })` in a plugin and
//! `PluginManager.getHooks(Hook.API).forEach((h) => router.use("/", h.value.routes()))` in the
//! API module mount the plugin's router `api` under the API router.

use tree_sitter::Node;

use super::shapes::{is_dotted_name, is_function, parameter_index, strip_expression};
use super::{HookGetter, HookQuery, HookRegistration, HookValue, JsRouteFacts};
use crate::recognise::{Context, Family};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::javascript::{named_args, property_key};
use crate::syntax::{literal_string, position, text};
use crate::{FileFacts, Syntax};

/// The texts one of which a file that registers an object literal contains.
pub(crate) static REGISTERING: super::super::Words =
    super::super::Words::new(&[".add({", ".add([", ".register({", ".register(["]);

/// The text of a static getter, which may return a registry query.
const GETTER: &str = "static get ";

/// The methods that register an item.
const REGISTER_METHODS: &[&str] = &["add", "register"];

/// How many local aliases (`const r = item.value`) a mounted name is followed through.
const MAX_ALIASES: usize = 4;

/// The registrations of one file: the family of the `hooks` half of this recogniser.
#[derive(Default)]
pub(crate) struct JsHooks {
    /// Whether the file has a static getter, read at its first method.
    getters: Option<bool>,
}

impl Family for JsHooks {
    fn kinds(&self) -> &'static [&'static str] {
        &["call_expression", "method_definition"]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        matches!(cx.syntax, Syntax::JavaScript)
            && (REGISTERING.any_in(cx) || cx.source.contains(GETTER))
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        if kind == "call_expression" {
            registration(node, cx, &mut facts.js_routes);
        } else if *self.getters.get_or_insert_with(|| cx.source.contains(GETTER)) {
            getter(node, cx, &mut facts.js_routes);
        }
    }

    fn finish(&mut self, _cx: &Context<'_>, _facts: &mut FileFacts) {
        self.getters = None;
    }
}

/// `Registry.add({ … })` / `Registry.add([{ … }, …])`.
fn registration(node: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let Some(function) = node.field("function").filter(|f| f.kind_name() == "member_expression")
    else {
        return;
    };
    let (Some(object), Some(property)) = (function.field("object"), function.field("property"))
    else {
        return;
    };
    if !REGISTER_METHODS.contains(&text(property, cx.source)) || !is_dotted_name(object) {
        return;
    }
    let args = node.field("arguments").map(named_args).unwrap_or_default();
    let [arg] = args.as_slice() else {
        return;
    };
    let arg = strip_expression(*arg);
    let items: Vec<Node<'_>> = match arg.kind_name() {
        "object" => vec![arg],
        "array" => {
            let mut cursor = arg.walk();
            arg.named_children(&mut cursor)
                .map(strip_expression)
                .filter(|e| e.kind_name() == "object")
                .collect()
        }
        _ => return,
    };
    let registry = text(object, cx.source);
    for item in items {
        let mut properties = Vec::new();
        read_properties(item, "", 0, cx, &mut properties);
        // A key and something registered under it, at the least.
        if properties.len() < 2 {
            continue;
        }
        let (line, column) = position(item);
        js.hook_registrations.push(HookRegistration {
            registry: registry.to_owned(),
            properties,
            line,
            column,
        });
    }
}

/// The properties of an object literal whose value is a name or a string literal, by path, one
/// level of nested objects included.
fn read_properties(
    object: Node<'_>,
    prefix: &str,
    depth: usize,
    cx: &Context<'_>,
    out: &mut Vec<(String, HookValue)>,
) {
    let mut cursor = object.walk();
    for child in object.named_children(&mut cursor) {
        match child.kind_name() {
            "shorthand_property_identifier" => {
                let name = text(child, cx.source);
                out.push((format!("{prefix}{name}"), HookValue::Name(name.to_owned())));
            }
            "pair" => {
                let (Some(key), Some(value)) = (child.field("key"), child.field("value")) else {
                    continue;
                };
                let Some(key) = property_key(key, cx.source) else {
                    continue;
                };
                let value = strip_expression(value);
                if let Some(literal) = literal_string(value, cx.source) {
                    out.push((format!("{prefix}{key}"), HookValue::Literal(literal)));
                } else if is_dotted_name(value) {
                    let name = text(value, cx.source).to_owned();
                    out.push((format!("{prefix}{key}"), HookValue::Name(name)));
                } else if value.kind_name() == "object" && depth == 0 {
                    read_properties(value, &format!("{key}."), depth + 1, cx, out);
                }
            }
            _ => {}
        }
    }
}

/// An item of a registry that a mount reads: the registry, the key it is queried with and the
/// path into the item that is mounted.
pub(super) struct RegistryItem {
    pub query: HookQuery,
    pub path: String,
}

/// What the mounted `name` is, when it reads a member of an item of a registry query:
/// `h.value` inside `R.get(K).forEach((h) => …)` or `for (const h of R.get(K))`, also through
/// local aliases declared before the mount. `None` for anything else, or a bare item.
pub(super) fn registry_item(node: Node<'_>, name: &str, cx: &Context<'_>) -> Option<RegistryItem> {
    let mut name = name.to_owned();
    let mut aliases = 0;
    let mut below = node;
    let mut current = cx.parent(node);
    while let Some(n) = current {
        let (base, path) = match name.split_once('.') {
            Some((b, p)) => (b.to_owned(), p.to_owned()),
            None => (name.clone(), String::new()),
        };
        let kind = n.kind_name();
        if is_function(kind) {
            // Only the callback of a query's `forEach`/`map` is looked through: a name from any
            // other scope is not an item.
            if path.is_empty() || parameter_index(n, &base, cx) != Some(0) {
                return None;
            }
            let arguments = cx.parent(n).filter(|a| a.kind_name() == "arguments")?;
            let call = cx.parent(arguments).filter(|c| c.kind_name() == "call_expression")?;
            let function =
                call.field("function").filter(|f| f.kind_name() == "member_expression")?;
            let method = function.field("property")?;
            if !matches!(text(method, cx.source), "forEach" | "map") {
                return None;
            }
            return query(function.field("object")?, path, cx);
        }
        if kind == "for_in_statement"
            && n.field("left")
                .is_some_and(|l| l.kind_name() == "identifier" && text(l, cx.source) == base)
        {
            let of = n.field("operator").is_some_and(|o| text(o, cx.source) == "of");
            if !of || path.is_empty() {
                return None;
            }
            return query(n.field("right")?, path, cx);
        }
        if kind == "statement_block"
            && let Some(value) = alias(n, below, &base, cx)
        {
            // A name declared with anything but a dotted name is not an item.
            let value = value?;
            aliases += 1;
            if aliases > MAX_ALIASES {
                return None;
            }
            name = if path.is_empty() { value } else { format!("{value}.{path}") };
        }
        below = n;
        current = cx.parent(n);
    }
    None
}

/// What `const base = …` declared in `block` before the statement `below` binds: `Some(None)`
/// when it is declared with anything but a dotted name.
fn alias(block: Node<'_>, below: Node<'_>, base: &str, cx: &Context<'_>) -> Option<Option<String>> {
    let mut cursor = block.walk();
    let mut found = None;
    for statement in block.named_children(&mut cursor) {
        if statement.start_byte() >= below.start_byte() {
            break;
        }
        if statement.kind_name() != "lexical_declaration" {
            continue;
        }
        let mut inner = statement.walk();
        for declarator in statement.named_children(&mut inner) {
            let (Some(declared), Some(value)) =
                (declarator.field("name"), declarator.field("value"))
            else {
                continue;
            };
            if declared.kind_name() == "identifier" && text(declared, cx.source) == base {
                let value = strip_expression(value);
                found = Some(is_dotted_name(value).then(|| text(value, cx.source).to_owned()));
            }
        }
    }
    found
}

/// `R.get(K)` with a dotted registry and one argument that is a name or a string literal, or
/// `Helper.items`, a class's static getter that may return one.
fn query(expression: Node<'_>, path: String, cx: &Context<'_>) -> Option<RegistryItem> {
    let expression = strip_expression(expression);
    if expression.kind_name() == "member_expression" && is_dotted_name(expression) {
        let getter = text(expression, cx.source).to_owned();
        return Some(RegistryItem { query: HookQuery::Getter(getter), path });
    }
    let (registry, key) = direct_query(expression, cx)?;
    Some(RegistryItem { query: HookQuery::Direct { registry, key }, path })
}

/// `R.get(K)`: the registry as written and the key.
fn direct_query(expression: Node<'_>, cx: &Context<'_>) -> Option<(String, HookValue)> {
    if expression.kind_name() != "call_expression" {
        return None;
    }
    let function = expression.field("function").filter(|f| f.kind_name() == "member_expression")?;
    let registry = function.field("object").filter(|o| is_dotted_name(*o))?;
    let args = expression.field("arguments").map(named_args).unwrap_or_default();
    let [key] = args.as_slice() else {
        return None;
    };
    let key = strip_expression(*key);
    let key = if let Some(literal) = literal_string(key, cx.source) {
        HookValue::Literal(literal)
    } else if is_dotted_name(key) {
        HookValue::Name(text(key, cx.source).to_owned())
    } else {
        return None;
    };
    Some((text(registry, cx.source).to_owned(), key))
}

/// `static get items() { return R.get(K); }` in a class: a getter mounts may read items of.
fn getter(node: Node<'_>, cx: &Context<'_>, js: &mut JsRouteFacts) {
    let mut cursor = node.walk();
    let tokens: Vec<&str> =
        node.children(&mut cursor).filter(|c| !c.is_named()).map(|c| c.kind_name()).collect();
    if !tokens.contains(&"static") || !tokens.contains(&"get") {
        return;
    }
    let (Some(name), Some(body)) = (node.field("name"), node.field("body")) else {
        return;
    };
    let mut cursor = body.walk();
    let statements: Vec<Node<'_>> =
        body.named_children(&mut cursor).filter(|c| c.kind_name() != "comment").collect();
    let [statement] = statements.as_slice() else {
        return;
    };
    if statement.kind_name() != "return_statement" {
        return;
    }
    let Some((registry, key)) =
        statement.named_child(0).map(strip_expression).and_then(|e| direct_query(e, cx))
    else {
        return;
    };
    let class =
        cx.parent(node).filter(|b| b.kind_name() == "class_body").and_then(|b| cx.parent(b));
    let Some(class) = class else {
        return;
    };
    let Some(class_name) = class.field("name") else {
        return;
    };
    let class_name = text(class_name, cx.source).to_owned();
    let exported = cx.parent(class).filter(|e| e.kind_name() == "export_statement").map(|e| {
        let mut cursor = e.walk();
        let default = e.children(&mut cursor).any(|c| !c.is_named() && c.kind_name() == "default");
        if default { "default".to_owned() } else { class_name.clone() }
    });
    js.hook_getters.push(HookGetter {
        class: class_name,
        exported,
        getter: text(name, cx.source).to_owned(),
        registry,
        key,
    });
}
