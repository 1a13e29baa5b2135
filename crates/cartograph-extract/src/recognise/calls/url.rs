//! URL expressions: from a string literal, template literal, f-string or concatenation to a path
//! template, an external endpoint, or a refusal.
//!
//! Not a recogniser: every client recogniser of this family reads its URL argument through here.
//! An expression is flattened into literal parts and holes (interpolations, variables). A leading
//! hole that looks like configuration (`${API_URL}`, `import.meta.env.VITE_API_URL`,
//! `settings.API_BASE`, `OpenAPI.BASE`) is a base URL: it is stripped and the stripping recorded.
//! A hole inside the path becomes a parameter segment (`/items/${id}` → `/items/{id}`). An
//! absolute URL on a local host (`http://localhost:8000/x`) is a path on this application; on
//! any other host it is an external endpoint. A URL whose path cannot be read is `Computed`.
//!
//! Example: `` `${API_URL}/items/${item.id}` `` → `Path { path: "/items/{id}", stripped: base
//! API_URL of unknown value }`.

use aho_corasick::AhoCorasick;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use tree_sitter::Node;

use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, text};

/// What a call's URL (or a client's base URL) is known to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallUrl {
    /// A path on a server of this application, with parameters as `{name}` segments.
    Path { path: String, stripped: Option<StrippedBase> },
    /// An absolute URL on another host; `path` is its path template (`/` when none).
    External { scheme: String, host: String, path: String },
    /// The URL cannot be read; the reason is one sentence without source text.
    Computed { reason: String },
    /// The URL is built from a parameter of the enclosing function or from a name imported from
    /// another module: it is read at link time, once the parameter's argument at a caller or the
    /// imported value is known. Linked as it is, it is computed.
    Deferred { parts: Vec<Part> },
}

/// A base URL that was removed from the front of a call's URL so its path can be matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StrippedBase {
    /// What was stripped, for evidence: a configuration name (`import.meta.env.VITE_API_URL`),
    /// `a configured base`, or a local host (`localhost:8000`).
    pub description: String,
    /// False when the base's value is unknown: it may carry a path prefix (`/api`) of its own.
    pub known_value: bool,
    /// The path of the base's written default (`VITE_API_URL ?? "/api/v1"`,
    /// `os.environ.get("API", "http://localhost:8000/api/v1")`): `/api/v1`.
    pub default_path: Option<String>,
    /// True for a relative URL (`api/items`, no leading slash): the base is the page's, and a
    /// client's base URL still applies.
    #[serde(default)]
    pub relative: bool,
}

/// What a relative URL is resolved against when no client base applies.
pub(crate) const PAGE_BASE: &str = "the page's base URL";

impl CallUrl {
    pub(crate) fn computed(reason: &str) -> Self {
        CallUrl::Computed { reason: reason.to_owned() }
    }

    /// A call's URL resolved against a client's base URL (`axios.create({ baseURL })`,
    /// `httpx.Client(base_url=…)`): an absolute call URL or one with its own base ignores the
    /// client's base; a relative path is appended to it.
    pub fn joined(base: Option<&CallUrl>, call: &CallUrl) -> CallUrl {
        let Some(base) = base else { return call.clone() };
        let CallUrl::Path { path, stripped } = call else { return call.clone() };
        if stripped.as_ref().is_some_and(|s| !s.relative) {
            return call.clone();
        }
        match base {
            CallUrl::Path { path: prefix, stripped } => {
                CallUrl::Path { path: join_paths(prefix, path), stripped: stripped.clone() }
            }
            CallUrl::External { scheme, host, path: prefix } => CallUrl::External {
                scheme: scheme.clone(),
                host: host.clone(),
                path: join_paths(prefix, path),
            },
            CallUrl::Computed { .. } | CallUrl::Deferred { .. } => {
                CallUrl::computed("the base URL of the client instance cannot be read")
            }
        }
    }
}

fn join_paths(prefix: &str, path: &str) -> String {
    let prefix = prefix.trim_end_matches('/');
    let path = path.trim_start_matches('/');
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => format!("/{path}"),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix}/{path}"),
    }
}

/// One piece of a flattened URL expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Part {
    Literal(String),
    /// Boxed: a hole is several times the size of a literal, and most parts are literals. The
    /// facts of every file are held until linking, so an unboxed hole made each part the size of
    /// a hole. The encoding is the same either way.
    Hole(Box<Hole>),
}

impl Part {
    pub fn hole(hole: Hole) -> Part {
        Part::Hole(Box::new(hole))
    }
}

/// An interpolated or concatenated value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hole {
    /// The expression when it is a plain dotted name (`import.meta.env.VITE_API_URL`), else empty.
    pub dotted: String,
    /// True when the value looks like configuration: a base URL, not a path piece.
    pub config: bool,
    /// The parameter name it gives a path segment (`id` for `item.id`), possibly empty.
    pub param: String,
    /// What to call it in evidence: the dotted name, `environment variable X`, or empty.
    pub label: String,
    /// The literal a configuration value falls back to (`X ?? "/api"`, `getenv("X", "/api")`).
    pub fallback: Option<String>,
    /// The index of the enclosing function's parameter the value is, when it is one: filled in
    /// by the argument at each caller.
    pub arg: Option<u8>,
    /// True when the value's first name is bound by an import: read from the other module at
    /// link time.
    pub imported: bool,
    /// For a conditional (`id ? `/boards/${id}` : "/boards"`): what each branch flattens to, at
    /// most [`MAX_CHOICES`] in all (nested conditionals spliced in); expanded at link time, one
    /// URL per branch (see `choices.rs`). Empty for any other value.
    #[serde(default)]
    pub choices: Vec<Vec<Part>>,
    /// For a call of an imported function (`buildPath(path, params)`, `dotted` its name): the
    /// arguments, flattened, so the link half can expand the function when its module exports
    /// it as a URL template.
    #[serde(default)]
    pub call: Option<Vec<Vec<Part>>>,
}

/// At most this many branches are kept from one conditional URL expression.
pub(crate) const MAX_CHOICES: usize = 4;

/// The names a URL expression may use, at the place it is read.
#[derive(Default)]
pub(crate) struct Env<'a> {
    /// Module-level constants, also object members (`routes.base`) and class fields
    /// (`this.url`, `Service.BASE`).
    pub consts: Option<&'a Constants>,
    /// Constants local to the enclosing function.
    pub locals: Option<&'a Constants>,
    /// The enclosing function's parameters.
    pub params: &'a [String],
    /// Names bound by imports of the project's modules.
    pub imported: Option<&'a HashSet<String>>,
    /// Functions that return a URL (`(slug) => `/recipes/${slug}``), by name.
    pub templates: Option<&'a Templates>,
    /// Such functions local to the enclosing function (or the one around it).
    pub local_templates: Option<&'a Templates>,
    /// Request options held by `const` names of the enclosing function.
    pub options: Option<&'a HashMap<String, super::args::ObjectArg>>,
    /// Constants of the function around the enclosing one (a hook's locals, seen from the
    /// callbacks it returns).
    pub outer_locals: Option<&'a Constants>,
}

/// Functions returning a URL template: their parts, with parameters as holes with `arg` set.
pub(crate) type Templates = HashMap<String, Option<Vec<Part>>>;

impl Env<'_> {
    pub(super) fn constant(&self, name: &str) -> Option<&Option<Vec<Part>>> {
        self.locals
            .and_then(|l| l.get(name))
            .or_else(|| self.outer_locals.and_then(|l| l.get(name)))
            .or_else(|| self.consts.and_then(|c| c.get(name)))
    }
}

/// Module-level string constants seen so far (`const API = "/api"`, `BASE = f"{HOST}/v1"`), by
/// name; `None` for a name assigned more than once, which is never substituted.
pub(crate) type Constants = HashMap<String, Option<Vec<Part>>>;

/// Records a module-level assignment of `name`: its parts when they hold a literal, or a
/// configuration value with a literal default (`API = os.environ.get("API", "/api")`) under the
/// constant's name; nothing useful otherwise (a bare configuration value keeps its own name as
/// a hole, for evidence).
pub(crate) fn record_constant(constants: &mut Constants, name: &str, value: Option<Vec<Part>>) {
    let useful = value.and_then(|mut parts| {
        let later = |p: &Part| {
            matches!(p, Part::Hole(h) if h.arg.is_some() || h.imported || !h.choices.is_empty())
        };
        if parts.iter().any(|p| matches!(p, Part::Literal(_)) || later(p)) {
            return Some(parts);
        }
        match parts.as_mut_slice() {
            [Part::Hole(hole)] if hole.config && hole.fallback.is_some() => {
                hole.dotted = name.to_owned();
                hole.label = name.to_owned();
                hole.param = name.to_owned();
                Some(parts)
            }
            _ => None,
        }
    });
    match constants.get_mut(name) {
        Some(slot) => *slot = None,
        None => {
            constants.insert(name.to_owned(), useful);
        }
    }
}

/// At most this many parts are read from one expression; longer concatenations are computed.
const MAX_PARTS: usize = 64;

/// Flattens a URL expression of either language into parts; `None` when it has too many.
pub(crate) fn parts(node: Node<'_>, source: &str, env: &Env<'_>) -> Option<Vec<Part>> {
    let mut out: Vec<Part> = Vec::new();
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        if out.len() > MAX_PARTS || stack.len() > MAX_PARTS {
            return None;
        }
        match node.kind_name() {
            "binary_expression" | "binary_operator" => {
                let op = node.field("operator").map(|o| text(o, source));
                match (op, node.field("left"), node.field("right")) {
                    (Some("+"), Some(left), Some(right)) => {
                        stack.push(right);
                        stack.push(left);
                    }
                    _ => match super::choices::alternative(node, source, env) {
                        Some(parts) => push_parts(&mut out, parts),
                        None => out.push(Part::hole(hole(node, source))),
                    },
                }
            }
            "parenthesized_expression"
            | "as_expression"
            | "non_null_expression"
            | "satisfies_expression" => match node.named_child(0) {
                Some(inner) => stack.push(inner),
                None => out.push(Part::hole(hole(node, source))),
            },
            "concatenated_string" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
            "template_string" => template_parts(node, source, env, &mut out),
            "string" => match literal_string(node, source) {
                Some(value) if !is_byte_string(node, source) => push_literal(&mut out, value),
                Some(_) => out.push(Part::hole(hole(node, source))),
                None => python_string_parts(node, source, env, &mut out),
            },
            "ternary_expression" => {
                out.push(Part::hole(super::choices::conditional(node, source, env)));
            }
            "new_expression" => match new_url(node, source, env) {
                Some(parts) => push_parts(&mut out, parts),
                None => out.push(Part::hole(hole(node, source))),
            },
            _ => push_value(node, source, env, &mut out),
        }
    }
    Some(out)
}

fn is_byte_string(node: Node<'_>, source: &str) -> bool {
    node.child(0).is_some_and(|start| {
        start.kind_name() == "string_start"
            && text(start, source).bytes().any(|b| b.eq_ignore_ascii_case(&b'b'))
    })
}

fn push_literal(out: &mut Vec<Part>, value: String) {
    if let Some(Part::Literal(last)) = out.last_mut() {
        last.push_str(&value);
    } else {
        out.push(Part::Literal(value));
    }
}

pub(crate) fn push_parts(out: &mut Vec<Part>, parts: Vec<Part>) {
    for part in parts {
        match part {
            Part::Literal(l) => push_literal(out, l),
            hole => out.push(hole),
        }
    }
}

/// A value: a parameter, a known constant's parts, a URL template called with arguments, else a
/// hole (marked when its first name is imported).
fn push_value(node: Node<'_>, source: &str, env: &Env<'_>, out: &mut Vec<Part>) {
    let kind = node.kind_name();
    if kind == "ternary_expression" {
        out.push(Part::hole(super::choices::conditional(node, source, env)));
        return;
    }
    if kind == "binary_expression"
        && let Some(parts) = super::choices::alternative(node, source, env)
    {
        push_parts(out, parts);
        return;
    }
    if matches!(
        kind,
        "identifier" | "member_expression" | "attribute" | "shorthand_property_identifier"
    ) {
        let name = text(node, source);
        if let Some(found) = env.constant(name) {
            match found {
                Some(parts) => push_parts(out, parts.clone()),
                None => out.push(Part::hole(hole(node, source))),
            }
            return;
        }
        if let Some(k) = env.params.iter().position(|p| p == name) {
            let mut hole = hole(node, source);
            hole.arg = u8::try_from(k).ok();
            out.push(Part::hole(hole));
            return;
        }
        let head = name.split('.').next().unwrap_or(name);
        let mut hole = hole(node, source);
        hole.imported = env.imported.is_some_and(|i| i.contains(head)) && is_dotted_name(name);
        out.push(Part::hole(hole));
        return;
    }
    if matches!(kind, "call_expression" | "call") {
        if let Some(parts) = template_call(node, source, env) {
            push_parts(out, parts);
            return;
        }
        if let Some(hole) = imported_call(node, source, env) {
            out.push(Part::hole(hole));
            return;
        }
    }
    out.push(Part::hole(hole(node, source)));
}

/// `buildPath(path, params)` with `buildPath` imported: a hole naming the function, with its
/// arguments, for the link half to expand when the module exports it as a URL template.
fn imported_call(node: Node<'_>, source: &str, env: &Env<'_>) -> Option<Hole> {
    let callee = node.field("function")?;
    let name = text(callee, source);
    let head = name.split('.').next().unwrap_or(name);
    if !is_dotted_name(name) || !env.imported?.contains(head) {
        return None;
    }
    let arguments = node.field("arguments")?;
    let mut cursor = arguments.walk();
    let mut args = Vec::new();
    for arg in arguments.named_children(&mut cursor).filter(|c| c.kind_name() != "comment").take(4)
    {
        args.push(parts(arg, source, &Env { templates: None, ..*env })?);
    }
    let mut hole = hole(node, source);
    hole.dotted = name.to_owned();
    hole.imported = true;
    hole.call = Some(args);
    Some(hole)
}

/// `routes.one(slug)` where `routes.one` is a function returning a URL: its parts with each
/// parameter bound to the argument given (one level; an argument is not itself expanded
/// through another template).
fn template_call(node: Node<'_>, source: &str, env: &Env<'_>) -> Option<Vec<Part>> {
    let callee = text(node.field("function")?, source);
    let template = env
        .local_templates
        .and_then(|t| t.get(callee))
        .or_else(|| env.templates?.get(callee))?
        .as_ref()?;
    let arguments = node.field("arguments")?;
    let mut cursor = arguments.walk();
    let args: Vec<Node<'_>> =
        arguments.named_children(&mut cursor).filter(|c| c.kind_name() != "comment").collect();
    let inner = Env { templates: None, local_templates: None, ..*env };
    let mut given = Vec::with_capacity(args.len());
    for arg in &args {
        given.push(parts(*arg, source, &inner)?);
    }
    super::choices::bind_args(template, &given)
}

/// `new URL(path, base)`: an absolute path stays as it is; a relative one follows the base.
fn new_url(node: Node<'_>, source: &str, env: &Env<'_>) -> Option<Vec<Part>> {
    if text(node.field("constructor")?, source) != "URL" {
        return None;
    }
    let arguments = node.field("arguments")?;
    let path = parts(arguments.named_child(0)?, source, env)?;
    let Some(base) = arguments.named_child(1) else { return Some(path) };
    match path.first() {
        Some(Part::Literal(l)) if l.starts_with('/') || split_scheme(l).is_some() => Some(path),
        Some(Part::Literal(_)) => {
            let mut base_hole = hole(base, source);
            base_hole.config = true;
            if base_hole.label.is_empty() {
                base_hole.label = "the base of new URL".to_owned();
            }
            let mut out = vec![Part::hole(base_hole), Part::Literal("/".to_owned())];
            push_parts(&mut out, path);
            Some(out)
        }
        _ => None,
    }
}

fn template_parts(node: Node<'_>, source: &str, env: &Env<'_>, out: &mut Vec<Part>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind_name() {
            "string_fragment" | "escape_sequence" => {
                push_literal(out, text(child, source).to_owned());
            }
            "template_substitution" => match child.named_child(0) {
                Some(expr) => push_value(expr, source, env, out),
                None => out.push(Part::hole(hole(child, source))),
            },
            _ => {}
        }
    }
}

/// A Python string with interpolations (an f-string).
fn python_string_parts(node: Node<'_>, source: &str, env: &Env<'_>, out: &mut Vec<Part>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind_name() {
            "string_content" | "escape_sequence" => {
                push_literal(out, text(child, source).replace("{{", "{").replace("}}", "}"));
            }
            "interpolation" => match child.field("expression") {
                Some(expr) => push_value(expr, source, env, out),
                None => out.push(Part::hole(hole(child, source))),
            },
            _ => {}
        }
    }
}

pub(crate) fn hole(node: Node<'_>, source: &str) -> Hole {
    let t = text(node, source).trim();
    if let Some((main, fallback)) = with_fallback(node, source) {
        let mut hole = plain_hole(main, source);
        hole.config |= is_config(t);
        if hole.label.is_empty() {
            hole.label = env_label(main, source).unwrap_or_default();
        }
        hole.fallback = Some(fallback);
        return hole;
    }
    let mut hole = plain_hole(node, source);
    if let Some(label) = env_label(node, source) {
        hole.label = label;
    }
    hole
}

fn plain_hole(node: Node<'_>, source: &str) -> Hole {
    let t = text(node, source).trim();
    let dotted = if is_dotted_name(t) { t.to_owned() } else { String::new() };
    let param = dotted.rsplit('.').next().unwrap_or("").to_owned();
    Hole {
        config: is_config(t),
        label: dotted.clone(),
        dotted,
        param,
        fallback: None,
        arg: None,
        imported: false,
        choices: Vec::new(),
        call: None,
    }
}

/// Calls that read an environment variable with a literal name and optional literal default.
const ENV_READERS: &[&str] = &["os.environ.get", "os.getenv", "getenv", "environ.get"];

/// `environment variable NAME` for `os.getenv("NAME")` / `os.environ.get("NAME", …)`.
fn env_label(node: Node<'_>, source: &str) -> Option<String> {
    let (name, _) = env_call(node, source)?;
    Some(format!("environment variable {name}"))
}

/// The literal name and default of an environment read.
fn env_call(node: Node<'_>, source: &str) -> Option<(String, Option<String>)> {
    if node.kind_name() != "call" {
        return None;
    }
    let callee = text(node.field("function")?, source);
    if !ENV_READERS.contains(&callee) {
        return None;
    }
    let arguments = node.field("arguments")?;
    let name = literal_string(arguments.named_child(0)?, source)?;
    let default = arguments.named_child(1).and_then(|d| literal_string(d, source));
    Some((name, default))
}

/// `X ?? "lit"`, `X || "lit"`, `X or "lit"`, `os.environ.get("K", "lit")`: the configuration
/// value and its literal default.
fn with_fallback<'t>(node: Node<'t>, source: &str) -> Option<(Node<'t>, String)> {
    match node.kind_name() {
        "binary_expression" | "boolean_operator" => {
            let op = text(node.field("operator")?, source);
            if !matches!(op, "??" | "||" | "or") {
                return None;
            }
            let left = node.field("left")?;
            let right = literal_string(node.field("right")?, source)?;
            Some((left, right))
        }
        "call" => {
            let (_, default) = env_call(node, source)?;
            Some((node, default?))
        }
        _ => None,
    }
}

fn is_dotted_name(t: &str) -> bool {
    !t.is_empty()
        && t.split('.').all(|seg| {
            let mut chars = seg.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

/// Does an expression look like configuration (a base URL) rather than a path piece?
fn is_config(t: &str) -> bool {
    const ROOTS: &[&str] = &[
        "process.env",
        "import.meta.env",
        "settings.",
        "config.",
        "Config.",
        "CONFIG.",
        "environment.",
        "env.",
        "document.baseURI",
        "window.location.origin",
        "location.origin",
        "OpenAPI.",
        "os.environ",
        "os.getenv",
        "getenv(",
        "self.settings",
        "self.config",
        "this.config",
        "app.config",
        "current_app.config",
    ];
    // The first byte picks the few roots worth comparing.
    let first = t.as_bytes().first().copied();
    if ROOTS.iter().any(|r| r.as_bytes().first().copied() == first && t.starts_with(r)) {
        return true;
    }
    // A getter called without arguments reads like the value it returns (`getBasePath()`,
    // `WEBAPP_URL()`).
    let t = t.strip_suffix("()").unwrap_or(t);
    if !is_dotted_name(t) {
        return false;
    }
    let last = t.rsplit('.').next().unwrap_or(t);
    let named_like_a_base = BASE_WORDS.is_match(last);
    let constant = last.chars().any(|c| c.is_ascii_uppercase())
        && last.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    named_like_a_base || constant
}

/// Words in a name that make it read like a base URL, in any case (`apiUrl`, `BASE_HOST`): one
/// automaton rather than a lower-cased copy searched once per word, since every hole asks.
static BASE_WORDS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(["url", "base", "host", "origin", "endpoint", "api", "server", "domain"])
        .expect("a handful of short literal words always builds")
});

/// Which role a URL expression plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The URL of a call: a bare variable is computed.
    Call,
    /// A client's base URL: a bare configuration value is a base of unknown value.
    Base,
}

/// Reads a URL expression node.
pub(crate) fn read(node: Node<'_>, source: &str, env: &Env<'_>, role: Role) -> CallUrl {
    match parts(node, source, env) {
        Some(parts) => deferred_or(parts, role),
        None => CallUrl::computed("the URL is built from too many pieces to read"),
    }
}

/// Reads parts, keeping them for link time when a parameter or an imported name may tell more
/// there: a parameter that is the URL or a piece of one (`fetch(url)`, `${base}${path}`), not a
/// whole segment of a path (`/items/${id}`, a path parameter); an imported name, which the link
/// half reads from its module (and, when it cannot, reads as here).
pub(crate) fn deferred_or(parts: Vec<Part>, role: Role) -> CallUrl {
    if glued_params(&parts) && parts.len() <= MAX_PARTS {
        return CallUrl::Deferred { parts };
    }
    // An imported name is read from its module first, even one that looks like a base; a
    // conditional is expanded there, one URL per branch.
    let later = |p: &Part| matches!(p, Part::Hole(h) if h.imported || !h.choices.is_empty());
    if parts.iter().any(later) && parts.len() <= MAX_PARTS {
        return CallUrl::Deferred { parts };
    }
    interpret(parts, role)
}

/// True when a parameter of the enclosing function is the URL or a piece of one, not a whole
/// path segment.
pub(crate) fn glued_params(parts: &[Part]) -> bool {
    // A conditional or an imported call holding a parameter: the parameter is a piece of it.
    if parts
        .iter()
        .any(|p| matches!(p, Part::Hole(h) if h.arg.is_none() && super::choices::holds_arg(h)))
    {
        return true;
    }
    let is_arg = |p: &Part| matches!(p, Part::Hole(h) if h.arg.is_some());
    // What follows a query or a fragment is no part of the path.
    let path_end = parts
        .iter()
        .position(|p| matches!(p, Part::Literal(l) if l.contains(['?', '#'])))
        .map_or(parts.len(), |i| i + 1);
    let parts = &parts[..path_end];
    parts.iter().enumerate().any(|(i, p)| {
        if !is_arg(p) {
            return false;
        }
        let after_slash =
            i > 0 && matches!(&parts[i - 1], Part::Literal(l) if l.ends_with('/') && l.len() > 1);
        let before_end = match parts.get(i + 1) {
            None => true,
            Some(Part::Literal(l)) => l.starts_with(['/', '?', '#']),
            Some(Part::Hole(_)) => false,
        };
        !(after_slash && before_end)
    })
}

/// Reads flattened parts.
pub(crate) fn interpret(parts: Vec<Part>, role: Role) -> CallUrl {
    let mut parts = parts.into_iter().peekable();
    match parts.peek() {
        None => CallUrl::Path { path: "/".to_owned(), stripped: None },
        Some(Part::Literal(first)) => {
            if let Some((scheme, rest)) = split_scheme(first) {
                let rest = rest.to_owned();
                parts.next();
                return absolute(scheme, rest, parts.collect());
            }
            if has_other_scheme(first) {
                return CallUrl::computed("the URL is not an HTTP URL");
            }
            let relative = !first.starts_with('/') && !first.is_empty();
            let stripped = relative.then(|| StrippedBase {
                description: PAGE_BASE.to_owned(),
                known_value: false,
                default_path: None,
                relative: true,
            });
            CallUrl::Path { path: path_of(parts.collect()), stripped }
        }
        Some(Part::Hole(first)) => {
            let first = first.clone();
            parts.next();
            let rest: Vec<Part> = parts.collect();
            if rest.is_empty() {
                return match role {
                    // A base held in a variable (`axios.create({ baseURL })` with `baseURL` a
                    // parameter) is a base of unknown value, like a configured one.
                    Role::Base if first.config || !first.dotted.is_empty() => {
                        CallUrl::Path { path: "/".to_owned(), stripped: Some(unknown(&first)) }
                    }
                    _ => CallUrl::computed(
                        "the URL is a variable or computed value, so its path cannot be read",
                    ),
                };
            }
            // `${environment.apiBaseUrl}documents/`: a base ending in a slash, joined.
            let starts_path = matches!(rest.first(), Some(Part::Literal(l))
                if l.starts_with('/') || l.starts_with(|c: char| c.is_ascii_alphanumeric()));
            if !first.config {
                return CallUrl::computed(
                    "the URL starts with a computed value that is not a recognisable base URL",
                );
            }
            if !starts_path {
                return CallUrl::computed("the path after the base URL is computed");
            }
            CallUrl::Path { path: path_of(rest), stripped: Some(unknown(&first)) }
        }
    }
}

fn unknown(hole: &Hole) -> StrippedBase {
    let description =
        if hole.label.is_empty() { "a configured base".to_owned() } else { hole.label.clone() };
    let default_path = hole.fallback.as_ref().and_then(|f| {
        match interpret(vec![Part::Literal(f.clone())], Role::Base) {
            CallUrl::Path { path, .. } => Some(path),
            _ => None,
        }
    });
    StrippedBase { description, known_value: false, default_path, relative: false }
}

/// `http://`, `https://` (any case) or a scheme-relative `//`.
fn split_scheme(lit: &str) -> Option<(&'static str, &str)> {
    let lower = lit.get(..8).unwrap_or(lit).to_ascii_lowercase();
    if lower.starts_with("https://") {
        return lit.get(8..).map(|r| ("https", r));
    }
    if lower.starts_with("http://") {
        return lit.get(7..).map(|r| ("http", r));
    }
    if lit.starts_with("//") {
        return lit.get(2..).map(|r| ("https", r));
    }
    None
}

/// `ws:`, `data:`, `file:`, `mailto:` … before any slash.
fn has_other_scheme(lit: &str) -> bool {
    let head = lit.split(['/', '?', '#']).next().unwrap_or("");
    head.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    })
}

/// An absolute URL: `rest` is what follows the scheme in the first literal, `more` the parts after.
fn absolute(scheme: &str, rest: String, more: Vec<Part>) -> CallUrl {
    let end = rest.find(['/', '?', '#']);
    let authority = end.and_then(|e| rest.get(..e)).unwrap_or(&rest).to_owned();
    let after = end.and_then(|e| rest.get(e..)).unwrap_or("").to_owned();
    if end.is_none() && !more.is_empty() {
        // The host (or port) continues into a computed part: `http://${HOST}/x`,
        // `http://localhost:${PORT}/x`. Its path is readable when every hole before the first
        // slash is configuration.
        let mut more = more.into_iter();
        let mut holes: Vec<Hole> = Vec::new();
        let mut path_parts: Vec<Part> = Vec::new();
        for part in more.by_ref() {
            match part {
                Part::Hole(h) => holes.push(*h),
                Part::Literal(l) => {
                    if let Some(i) = l.find(['/', '?', '#']) {
                        path_parts.push(Part::Literal(l.get(i..).unwrap_or("").to_owned()));
                        break;
                    }
                }
            }
        }
        path_parts.extend(more);
        if holes.is_empty() || !holes.iter().all(|h| h.config) {
            return CallUrl::computed("the host of the URL is computed");
        }
        let description = holes
            .iter()
            .find(|h| !h.label.is_empty())
            .map_or_else(|| "a configured host".to_owned(), |h| h.label.clone());
        return CallUrl::Path {
            path: path_of(path_parts),
            stripped: Some(StrippedBase {
                description,
                known_value: false,
                default_path: None,
                relative: false,
            }),
        };
    }
    let authority = authority.rsplit('@').next().unwrap_or("").to_ascii_lowercase();
    if authority.is_empty() {
        return CallUrl::computed("the URL has no host");
    }
    let mut path_parts = vec![Part::Literal(after)];
    path_parts.extend(more);
    let path = path_of(path_parts);
    if is_local_host(&authority) {
        return CallUrl::Path {
            path,
            stripped: Some(StrippedBase {
                description: authority,
                known_value: true,
                default_path: None,
                relative: false,
            }),
        };
    }
    CallUrl::External { scheme: scheme.to_owned(), host: authority, path }
}

fn is_local_host(authority: &str) -> bool {
    let host = if authority.starts_with('[') {
        authority.split(']').next().map(|h| format!("{h}]")).unwrap_or_default()
    } else {
        authority.split(':').next().unwrap_or("").to_owned()
    };
    matches!(host.as_str(), "localhost" | "127.0.0.1" | "0.0.0.0" | "[::1]")
        || host.ends_with(".localhost")
}

/// True when a path segment (before any query) holds both literal text and a value:
/// `/billing-${tier}`, `/files/${id}.png`.
pub(crate) fn mixed_segment(parts: &[Part]) -> bool {
    let (mut literal, mut hole) = (false, false);
    for part in parts {
        match part {
            Part::Hole(_) => hole = true,
            Part::Literal(l) => {
                for c in l.chars() {
                    match c {
                        '?' | '#' => return literal && hole,
                        '/' => {
                            if literal && hole {
                                return true;
                            }
                            (literal, hole) = (false, false);
                        }
                        _ => literal = true,
                    }
                }
            }
        }
    }
    literal && hole
}

/// The path template of parts that form a path: query and fragment dropped, a segment with a
/// hole becomes a parameter `{name}`, `.` segments dropped.
fn path_of(parts: Vec<Part>) -> String {
    let mut segments: Vec<String> = Vec::new();
    let mut literal = String::new();
    let mut param: Option<String> = None;
    let mut flush = |literal: &mut String, param: &mut Option<String>| {
        match param.take() {
            Some(name) => segments.push(format!("{{{name}}}")),
            None if literal.is_empty() || literal == "." => {}
            None => segments.push(literal.clone()),
        }
        literal.clear();
    };
    'parts: for part in parts {
        match part {
            Part::Literal(l) => {
                for c in l.chars() {
                    match c {
                        '?' | '#' => break 'parts,
                        '/' => flush(&mut literal, &mut param),
                        c => literal.push(c),
                    }
                }
            }
            Part::Hole(h) => {
                param.get_or_insert(h.param);
            }
        }
    }
    flush(&mut literal, &mut param);
    if segments.is_empty() { "/".to_owned() } else { format!("/{}", segments.join("/")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_the_size_of_a_literal() {
        // Every file's URL parts are held until linking; an unboxed hole made each part 152 bytes.
        assert_eq!(size_of::<Part>(), size_of::<String>());
    }

    fn lit(s: &str) -> Part {
        Part::Literal(s.to_owned())
    }

    fn var(dotted: &str) -> Part {
        Part::hole(Hole {
            config: is_config(dotted),
            dotted: dotted.to_owned(),
            label: dotted.to_owned(),
            param: dotted.rsplit('.').next().unwrap_or("").to_owned(),
            fallback: None,
            arg: None,
            imported: false,
            choices: Vec::new(),
            call: None,
        })
    }

    fn path(p: &str, stripped: Option<(&str, bool)>) -> CallUrl {
        CallUrl::Path {
            path: p.to_owned(),
            stripped: stripped.map(|(d, k)| StrippedBase {
                description: d.to_owned(),
                known_value: k,
                default_path: None,
                relative: false,
            }),
        }
    }

    #[test]
    fn urls_interpret() {
        let cases: Vec<(Vec<Part>, Role, CallUrl)> = vec![
            (vec![lit("/api/items")], Role::Call, path("/api/items", None)),
            (vec![lit("/items/"), var("item.id")], Role::Call, path("/items/{id}", None)),
            (
                vec![var("API_URL"), lit("/items/"), var("id"), lit("?q=1")],
                Role::Call,
                path("/items/{id}", Some(("API_URL", false))),
            ),
            (
                vec![var("import.meta.env.VITE_API_URL"), lit("/x")],
                Role::Call,
                path("/x", Some(("import.meta.env.VITE_API_URL", false))),
            ),
            (vec![var("id"), lit("/x")], Role::Call, CallUrl::computed("")),
            (vec![var("url")], Role::Call, CallUrl::computed("")),
            (
                vec![var("import.meta.env.VITE_API_URL")],
                Role::Base,
                path("/", Some(("import.meta.env.VITE_API_URL", false))),
            ),
            (
                vec![lit("https://API.github.com/repos/"), var("o")],
                Role::Call,
                CallUrl::External {
                    scheme: "https".into(),
                    host: "api.github.com".into(),
                    path: "/repos/{o}".into(),
                },
            ),
            (
                vec![lit("http://localhost:8000/api/x")],
                Role::Call,
                path("/api/x", Some(("localhost:8000", true))),
            ),
            (
                vec![lit("http://"), var("BACKEND_HOST"), lit(":8000/api/x")],
                Role::Call,
                path("/api/x", Some(("BACKEND_HOST", false))),
            ),
            (vec![lit("http://"), var("h"), lit("/x")], Role::Call, CallUrl::computed("")),
            (vec![lit("mailto:a@b")], Role::Call, CallUrl::computed("")),
            (
                vec![lit("./data/x.json")],
                Role::Call,
                CallUrl::Path {
                    path: "/data/x.json".into(),
                    stripped: Some(StrippedBase {
                        description: PAGE_BASE.into(),
                        known_value: false,
                        default_path: None,
                        relative: true,
                    }),
                },
            ),
            (
                vec![var("environment.apiBaseUrl"), lit("documents/"), var("id"), lit("/")],
                Role::Call,
                path("/documents/{id}", Some(("environment.apiBaseUrl", false))),
            ),
            (vec![lit("/items/{item_id}")], Role::Call, path("/items/{item_id}", None)),
        ];
        for (parts, role, expected) in cases {
            let got = interpret(parts.clone(), role);
            match (&got, &expected) {
                (CallUrl::Computed { .. }, CallUrl::Computed { .. }) => {}
                _ => assert_eq!(got, expected, "{parts:?}"),
            }
        }
    }

    #[test]
    fn joins_bases() {
        let base = path("/api", None);
        let call = path("/orders", None);
        assert_eq!(CallUrl::joined(Some(&base), &call), path("/api/orders", None));
        let cfg = path("/", Some(("X", false)));
        assert_eq!(CallUrl::joined(Some(&cfg), &call), path("/orders", Some(("X", false))));
        let ext = CallUrl::External { scheme: "https".into(), host: "h".into(), path: "/".into() };
        assert!(
            matches!(CallUrl::joined(Some(&ext), &call), CallUrl::External { path, .. } if path == "/orders")
        );
        assert_eq!(CallUrl::joined(None, &call), call);
    }
}
