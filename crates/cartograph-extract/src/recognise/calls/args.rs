//! The arguments of a call, read once into shapes every client recogniser interprets its own way.
//!
//! Not a recogniser. A positional argument or keyword value is read as a URL expression, a
//! literal string (for method names), or an object literal with the keys clients care about
//! (`url`, `method`, `baseURL`, `prefixUrl`, `baseUrl`). Example: `fetch("/x", { method: "POST" })`
//! → two positional arguments, the second an object whose method is `POST`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::super::Context;
use super::url::{self, CallUrl, Env, Part, Role};
use super::wrappers::InvocationArg;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::javascript::property_key;
use crate::syntax::{literal_string, text};

/// What a call's arguments say.
#[derive(Debug, Clone, Default)]
pub(crate) struct Args {
    pub positional: Vec<Arg>,
    /// Python keyword arguments (`url=…`, `method=…`, `base_url=…`).
    pub keywords: Vec<(String, Arg)>,
}

/// One argument.
#[derive(Debug, Clone)]
pub(crate) struct Arg {
    /// The argument read as a call URL (a `Computed` URL for an object literal).
    pub url: CallUrl,
    /// The value of a plain string literal.
    pub literal: Option<String>,
    /// The keys of an object literal, when the argument is one.
    pub object: Option<ObjectArg>,
    /// The argument flattened, for a wrapper's callers; `None` for an object literal.
    pub parts: Option<Vec<Part>>,
    /// The index of the enclosing function's parameter the argument is, when it is exactly one.
    pub param: Option<u8>,
}

/// The keys of an object literal that HTTP clients read.
#[derive(Debug, Clone, Default)]
pub(crate) struct ObjectArg {
    pub url: Option<CallUrl>,
    /// `path` holding a string (openapi-generator's typescript-fetch `this.request({ path })`);
    /// an object under `path` (path parameters of other generators) is not recorded.
    pub path: Option<CallUrl>,
    pub method: MethodSpec,
    /// `baseURL` (axios), `prefixUrl` (ky), `baseUrl` (generated clients), read as a base.
    pub base: Option<CallUrl>,
    /// True when the object has a spread (`...options`): absent keys may come from it.
    pub spread: bool,
    /// True when the object has a `handler` key: a server route definition, not a request.
    pub handler: bool,
    /// The enclosing function's parameter the `method` key's value is, when it is one.
    pub method_param: Option<u8>,
}

/// What is known of the method a call names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum MethodSpec {
    /// No method given.
    #[default]
    Absent,
    Known(HttpMethod),
    /// Given, but computed or not a method name.
    Unknown,
}

impl MethodSpec {
    fn of_literal(value: Option<String>) -> Self {
        match value.as_deref().and_then(HttpMethod::parse) {
            Some(HttpMethod::Any) | None => MethodSpec::Unknown,
            Some(m) => MethodSpec::Known(m),
        }
    }

    /// The method of a request whose default is `GET`; `None` when it cannot be read.
    pub(crate) fn or_get(self) -> Option<HttpMethod> {
        match self {
            MethodSpec::Absent => Some(HttpMethod::Get),
            MethodSpec::Known(m) => Some(m),
            MethodSpec::Unknown => None,
        }
    }
}

impl Arg {
    /// The argument read as a client base URL. Read on demand: few arguments are bases (only
    /// those of a client's constructor), and every argument of a call is read.
    pub(crate) fn base(&self) -> CallUrl {
        match (&self.object, &self.parts) {
            (Some(_), _) => CallUrl::computed(OBJECT),
            (None, Some(parts)) => url::deferred_or(parts.clone(), Role::Base),
            (None, None) => CallUrl::computed(TOO_MANY),
        }
    }

    /// The method named by this argument used as a method (`"GET"`, `method="POST"`).
    pub(crate) fn method(&self) -> MethodSpec {
        MethodSpec::of_literal(self.literal.clone())
    }

    /// The method in this argument used as an options object: `Absent` → default, and unknown
    /// when the options are not a literal object or spread a value that may hold one.
    pub(crate) fn options_method(&self) -> MethodSpec {
        match &self.object {
            Some(o) if o.method == MethodSpec::Absent && o.spread => MethodSpec::Unknown,
            Some(o) => o.method,
            None => MethodSpec::Unknown,
        }
    }
}

impl Args {
    pub(crate) fn get(&self, index: usize) -> Option<&Arg> {
        self.positional.get(index)
    }

    pub(crate) fn keyword(&self, name: &str) -> Option<&Arg> {
        self.keywords.iter().find(|(k, _)| k == name).map(|(_, a)| a)
    }

    /// A keyword argument, else the positional one at `index`.
    pub(crate) fn named_or(&self, name: &str, index: usize) -> Option<&Arg> {
        self.keyword(name).or_else(|| self.get(index))
    }
}

/// What the positional arguments of a call can give a wrapper's callers, seen without reading
/// them: whether there is one, and whether one may be worth keeping (a string, a template, a
/// conditional, an options object, a parameter, a constant, an imported name, a URL template's
/// call: what `InvocationArg::useful` can find in a read argument). Never `false` where reading would find
/// one useful. A fast path for speed: reading an argument builds its URL parts, and most calls
/// that may be of a wrapper have none worth keeping (`self.log.info(msg)`, `setState(x)`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Glance {
    pub any: bool,
    pub maybe_useful: bool,
}

/// At most this many positional arguments are kept for a wrapper's callers.
pub(crate) const KEPT: usize = 6;

pub(crate) fn glance(arguments: Node<'_>, cx: &Context<'_>, env: &Env<'_>) -> Glance {
    let mut glance = Glance { any: false, maybe_useful: false };
    let mut cursor = arguments.walk();
    let mut seen = 0;
    for child in arguments.named_children(&mut cursor) {
        match cx.kind(child) {
            "comment" | "keyword_argument" => {}
            "list_splat" | "dictionary_splat" | "spread_element" => break,
            _ if seen == KEPT => break,
            _ => {
                seen += 1;
                glance.any = true;
                if may_be_useful(child, cx, env) {
                    glance.maybe_useful = true;
                    break;
                }
            }
        }
    }
    glance
}

fn may_be_useful(node: Node<'_>, cx: &Context<'_>, env: &Env<'_>) -> bool {
    let node = unwrap_expression(node);
    match cx.kind(node) {
        // A conditional holds choices.
        "string"
        | "template_string"
        | "concatenated_string"
        | "binary_expression"
        | "binary_operator"
        | "new_expression"
        | "ternary_expression"
        | "conditional_expression" => true,
        // An options object is kept for a `method` key that is a parameter.
        "object" => text(node, cx.source).contains("method"),
        "identifier" | "member_expression" | "attribute" | "shorthand_property_identifier" => {
            let name = text(node, cx.source);
            let head = name.split('.').next().unwrap_or(name);
            env.params.iter().any(|p| p == name)
                || env.constant(name).is_some()
                || env.imported.is_some_and(|i| i.contains(head))
        }
        // A URL template of the file or the function, or an imported one expanded later.
        "call_expression" | "call" => node.field("function").is_some_and(|f| {
            let callee = text(f, cx.source);
            let head = callee.split('.').next().unwrap_or(callee);
            env.templates.is_some_and(|t| t.contains_key(callee))
                || env.local_templates.is_some_and(|t| t.contains_key(callee))
                || env.imported.is_some_and(|i| i.contains(head))
        }),
        _ => false,
    }
}

/// Reads the `arguments` node of a JS/TS call or the `argument_list` of a Python call.
pub(crate) fn read(arguments: Node<'_>, source: &str, env: &Env<'_>) -> Args {
    let mut args = Args::default();
    let mut cursor = arguments.walk();
    for child in arguments.named_children(&mut cursor) {
        match child.kind_name() {
            "comment" => {}
            "keyword_argument" => {
                let name = child.field("name").map(|n| text(n, source));
                if let (Some(name), Some(value)) = (name, child.field("value")) {
                    args.keywords.push((name.to_owned(), arg(value, source, env)));
                }
            }
            // `*args` / `**kwargs` / `...rest`: what follows cannot be placed.
            "list_splat" | "dictionary_splat" | "spread_element" => break,
            _ => args.positional.push(arg(child, source, env)),
        }
    }
    args
}

/// The first [`KEPT`] positional arguments of a call, without its keyword arguments: all a
/// wrapper's caller keeps (see `Calls::invocation`). A fast path for speed: calls in Python
/// pass many keyword arguments, and reading one builds its URL parts.
///
/// Read for a call that may be of a wrapper, so as a wrapper's caller keeps them
/// ([`InvocationArg`]): without the call URL each argument would make on its own, which only a
/// request reads (a fast path for speed: most calls read so are of no wrapper at all).
pub(crate) fn read_positional(
    arguments: Node<'_>,
    source: &str,
    env: &Env<'_>,
) -> Vec<InvocationArg> {
    let mut args = Vec::new();
    let mut cursor = arguments.walk();
    for child in arguments.named_children(&mut cursor) {
        match child.kind_name() {
            "comment" | "keyword_argument" => {}
            "list_splat" | "dictionary_splat" | "spread_element" => break,
            _ if args.len() == KEPT => break,
            _ => {
                let node = unwrap_expression(child);
                let object = (node.kind_name() == "object").then(|| object_arg(node, source, env));
                let parts = if object.is_some() { None } else { url::parts(node, source, env) };
                let literal = literal_string(node, source);
                args.push(InvocationArg::new(
                    parts,
                    literal,
                    object.as_ref(),
                    param(node, source, env),
                ));
            }
        }
    }
    args
}

const OBJECT: &str = "the request is an object, not a URL";
const TOO_MANY: &str = "the URL is built from too many pieces to read";

pub(crate) fn arg(node: Node<'_>, source: &str, env: &Env<'_>) -> Arg {
    let node = unwrap_expression(node);
    let object = match node.kind_name() {
        "object" => Some(object_arg(node, source, env)),
        // `fetch(url, options)` with `const options = { method: "POST" }` in the function.
        "identifier" => env.options.and_then(|o| o.get(text(node, source))).cloned(),
        _ => None,
    };
    let param = param(node, source, env);
    let (url, parts) = if object.is_some() {
        (CallUrl::computed(OBJECT), None)
    } else {
        match url::parts(node, source, env) {
            Some(parts) => (url::deferred_or(parts.clone(), Role::Call), Some(parts)),
            None => (CallUrl::computed(TOO_MANY), None),
        }
    };
    Arg { url, literal: literal_string(node, source), object, parts, param }
}

/// The index of the parameter an identifier argument names.
fn param(node: Node<'_>, source: &str, env: &Env<'_>) -> Option<u8> {
    (node.kind_name() == "identifier")
        .then(|| env.params.iter().position(|p| p == text(node, source)))
        .flatten()
        .and_then(|k| u8::try_from(k).ok())
}

/// `x as T`, `x!`, `(x)`, `x satisfies T` → `x`.
fn unwrap_expression(mut node: Node<'_>) -> Node<'_> {
    for _ in 0..8 {
        match node.kind_name() {
            "as_expression"
            | "non_null_expression"
            | "satisfies_expression"
            | "parenthesized_expression" => match node.named_child(0) {
                Some(inner) => node = inner,
                None => break,
            },
            _ => break,
        }
    }
    node
}

pub(crate) fn object_arg(node: Node<'_>, source: &str, env: &Env<'_>) -> ObjectArg {
    let mut object = ObjectArg::default();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind_name() {
            "spread_element" => object.spread = true,
            "shorthand_property_identifier" => {
                // `{ url, method }`: the values are variables.
                match text(child, source) {
                    "url" | "method" | "baseURL" | "prefixUrl" | "baseUrl" => {
                        // `{ url, method }`: the values are variables, maybe parameters.
                        let value = url::parts(child, source, env).unwrap_or_default();
                        match text(child, source) {
                            "url" => object.url = Some(url::deferred_or(value, Role::Call)),
                            "method" => {
                                object.method = MethodSpec::Unknown;
                                object.method_param = env
                                    .params
                                    .iter()
                                    .position(|p| p == "method")
                                    .and_then(|k| u8::try_from(k).ok());
                            }
                            _ => object.base = Some(url::deferred_or(value, Role::Base)),
                        }
                    }
                    "handler" => object.handler = true,
                    _ => {}
                }
            }
            "pair" => {
                let (Some(key), Some(value)) = (child.field("key"), child.field("value")) else {
                    continue;
                };
                let key = property_key(key, source).unwrap_or_default();
                let value = unwrap_expression(value);
                match key.as_str() {
                    "url" => object.url = Some(url::read(value, source, env, Role::Call)),
                    "path"
                        if matches!(
                            value.kind_name(),
                            "string" | "template_string" | "identifier"
                        ) =>
                    {
                        object.path = Some(url::read(value, source, env, Role::Call));
                    }
                    "method" => {
                        object.method = MethodSpec::of_literal(literal_string(value, source));
                        object.method_param = (value.kind_name() == "identifier")
                            .then(|| env.params.iter().position(|p| p == text(value, source)))
                            .flatten()
                            .and_then(|k| u8::try_from(k).ok());
                    }
                    "baseURL" | "prefixUrl" | "baseUrl" => {
                        object.base = Some(url::read(value, source, env, Role::Base));
                    }
                    "handler" => object.handler = true,
                    _ => {}
                }
            }
            "method_definition"
                if child.field("name").is_some_and(|n| text(n, source) == "handler") =>
            {
                object.handler = true;
            }
            _ => {}
        }
    }
    object
}
