//! The project's own helpers that wrap a read, and environment objects shared across modules.
//!
//! Records, per file,
//! - an [`EnvWrapper`] for each function whose parameter becomes (part of) the name of a read:
//!   `def get_bool_from_env(key, default)` whose body is `os.getenv(key)` is "parameter 0 is
//!   the variable read through os.getenv"; `(k) => process.env[`${k}_FILE`]` is "parameter 0
//!   followed by `_FILE`"; a class whose field initialiser reads `getEnv(this.envPrefix +
//!   "PORT")`, with `envPrefix` a constructor parameter property, is a wrapper called by
//!   `new UrlSet(…, "ADMIN_")`, and a caller that leaves the parameter out reads through its
//!   literal default (`envPrefix = ""` reads `PORT`);
//! - every [`EnvInvocation`] that may reach one: a call of a name the file imports or declares,
//!   with the arguments that are literal variable names (`get_bool_from_env("APP_DEBUG")`) or
//!   the enclosing function's parameters (a helper that forwards its key to another helper),
//!   `new C(…)` of a class the file imports or declares, and `environment.X` on an imported
//!   name holding `env`;
//! - the [`EnvObject`]s it binds at module level: `env = environ.Env()` (django-environ), and
//!   `export default withFileSecrets(process.env)` (the environment itself, or a proxy over it).
//!
//! The link half (`link.rs`) joins callers to helpers across modules, a bounded number of
//! helpers deep, and reads a variable where a caller passes a literal name. A caller passing a
//! computed name gives nothing: the read inside the helper stays the `computed-env-key` refusal
//! it always was. Names built from module constants (`os.getenv(PREFIX + "_FILE")`) are read
//! where they are written.
//!
//! ```python
//! # settings/helpers.py
//! def get_bool_from_env(key, default="0"):
//!     return os.getenv(key, default) in ("1", "true")
//! # settings/base.py
//! from .helpers import get_bool_from_env
//! DEBUG = get_bool_from_env("APP_DEBUG")   # reads APP_DEBUG, resolver/likely
//! ```

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::names::{self, NamePart};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, position, text};

pub(super) const RECOGNISER: &str = "env-wrappers";

/// A function whose parameter names the variable it reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvWrapper {
    /// The function's name, as callers write it.
    pub name: String,
    /// Its parameters in order, for callers' keyword arguments.
    pub params: Vec<String>,
    /// The line of the read.
    pub line: u32,
    /// How the body reads the variable: `os.getenv`, `process.env[...]`.
    pub how: String,
    /// The variable's name, in parts.
    pub parts: Vec<NamePart>,
    /// The literal default of each parameter that has one: a caller that leaves the parameter
    /// out names it.
    pub defaults: Vec<Option<String>>,
}

/// A call (or a member read) that may reach a wrapper or an environment object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvInvocation {
    pub line: u32,
    pub column: u32,
    /// The callee as written: `get_bool_from_env`, `helpers.get_env`, `env.bool`, or the object
    /// of a member read (`environment`).
    pub callee: String,
    /// True for a member read `environment.X`: `args` holds `X`.
    pub member: bool,
    /// The function the call is written in, when an argument is one of its parameters.
    pub within: Option<String>,
    /// That function's parameters.
    pub within_params: Vec<String>,
    pub args: Vec<InvocationArg>,
    /// How many positional arguments the call passes, when it is known to pass no other kind
    /// (a JavaScript call without a spread): a parameter past them takes its default.
    pub arity: Option<u8>,
}

/// One argument of an invocation that names a variable, whole or in part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvocationArg {
    /// The positional index, or `None` for a keyword argument.
    pub position: Option<u8>,
    pub keyword: Option<String>,
    pub parts: Vec<NamePart>,
}

/// What a module-level name holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObjectKind {
    /// A django-environ `Env` instance: `env("X")`, `env.bool("X")`.
    DjangoEnv,
    /// The environment itself or a proxy over it: `environment.X`.
    Environment,
}

/// A module-level name bound to an environment object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvObject {
    /// The name importers use (`env`, or `default` for a default export).
    pub name: String,
    pub line: u32,
    pub kind: ObjectKind,
}

/// A read whose key is not a plain literal: a name built from constants is read here (true);
/// a name built from the enclosing function's parameters makes the function a wrapper (false:
/// the caller still refuses this site's computed key).
pub(super) fn computed_key(
    node: Node<'_>,
    key: Node<'_>,
    how: &str,
    recogniser: &'static str,
    cx: &Context<'_>,
    facts: &mut FileFacts,
) -> bool {
    let function = names::enclosing_function(cx);
    let Some(parts) = names::parts(key, cx, function.as_ref(), true) else { return false };
    if let Some(name) = names::literal(&parts) {
        let evidence = format!("{how} reads {name} (a name built from constants)");
        super::read(node, name, recogniser, evidence, facts);
        return true;
    }
    if let Some(function) = function {
        let (line, _) = position(node);
        let wrapper = EnvWrapper {
            name: function.name,
            params: function.params,
            line,
            how: how.to_owned(),
            parts,
            defaults: function.defaults,
        };
        if function.default_export {
            let default = EnvWrapper { name: "default".to_owned(), ..wrapper.clone() };
            facts.env.wrappers.push(default);
        }
        facts.env.wrappers.push(wrapper);
    }
    false
}

/// How a call is written, for [`invocation`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum CallForm {
    /// A Python call: keyword arguments may fill any parameter.
    Python,
    /// A JavaScript call: positional arguments only.
    JavaScript,
    /// `new C(…)`: a class whose field initialisers read may take every name from its
    /// parameters' defaults, so the call is kept without a name among its arguments.
    Construct,
}

/// A call that may reach a wrapper: `callee` is its function as written.
pub(super) fn invocation(
    node: Node<'_>,
    callee: &str,
    form: CallForm,
    cx: &Context<'_>,
    functions: &mut names::FunctionCache,
    facts: &mut FileFacts,
) {
    if callee.split('.').count() > 2 || callee.starts_with("this.") || callee.starts_with("self.") {
        return;
    }
    let arguments = cx.field(node, "arguments");
    let arity = match (form, arguments) {
        (CallForm::Python, _) => None,
        (_, None) => Some(0),
        (_, Some(a)) => positional_count(a, cx),
    };
    let construct = form == CallForm::Construct && arity.is_some();
    let Some(arguments) = arguments else {
        if construct {
            push_invocation(node, callee, None, Vec::new(), arity, facts);
        }
        return;
    };
    // An argument is kept when it is a literal variable name (its text has a quote before a
    // capital, `_` or an escape) or when it uses a parameter of the enclosing function: a fast
    // path for speed, since most calls have neither, and reading each argument costs more
    // than looking at their text.
    let written = text(arguments, cx.source);
    if !quotes_a_name(written) {
        let forwards = functions.get(cx).is_some_and(|f| {
            f.params.iter().any(|p| !p.is_empty() && written.contains(p.as_str()))
        });
        if !forwards {
            if construct {
                push_invocation(node, callee, None, Vec::new(), arity, facts);
            }
            return;
        }
    }
    let mut args = Vec::new();
    let mut function: Option<Option<names::Function>> = None;
    let mut next_slot = 0u8;
    let mut cursor = arguments.walk();
    for arg in arguments.named_children(&mut cursor) {
        let (slot, keyword, value) = match cx.kind(arg) {
            "comment" => continue,
            "keyword_argument" => {
                let (Some(n), Some(v)) = (arg.field("name"), arg.field("value")) else {
                    continue;
                };
                (None, Some(text(n, cx.source).to_owned()), v)
            }
            "list_splat" | "dictionary_splat" | "spread_element" => break,
            _ => {
                let slot = next_slot;
                next_slot = next_slot.saturating_add(1);
                (Some(slot), None, arg)
            }
        };
        if slot.is_some_and(|s| s > 3) {
            break;
        }
        let parts = match literal_string(value, cx.source) {
            Some(name) if names::env_like(&name) => vec![NamePart::Lit(name)],
            Some(_) => continue,
            None if matches!(
                cx.kind(value),
                "identifier"
                    | "string"
                    | "template_string"
                    | "binary_operator"
                    | "binary_expression"
            ) =>
            {
                let function = function.get_or_insert_with(|| functions.get(cx).cloned());
                let Some(f) = function else { continue };
                match names::parts(value, cx, Some(f), false) {
                    Some(parts) if names::has_param(&parts) => parts,
                    _ => continue,
                }
            }
            None => continue,
        };
        args.push(InvocationArg { position: slot, keyword, parts });
    }
    if args.is_empty() && !construct {
        return;
    }
    let forwards = args.iter().any(|a| names::has_param(&a.parts));
    let within = if forwards { function.flatten() } else { None };
    push_invocation(node, callee, within, args, arity, facts);
}

fn push_invocation(
    node: Node<'_>,
    callee: &str,
    within: Option<names::Function>,
    args: Vec<InvocationArg>,
    arity: Option<u8>,
    facts: &mut FileFacts,
) {
    let (line, column) = position(node);
    facts.env.invocations.push(EnvInvocation {
        line,
        column,
        callee: callee.to_owned(),
        member: false,
        within_params: within.as_ref().map(|f| f.params.clone()).unwrap_or_default(),
        within: within.map(|f| f.name),
        args,
        arity,
    });
}

/// The number of a JavaScript call's arguments, `None` with a spread (`f(...xs)`).
fn positional_count(arguments: Node<'_>, cx: &Context<'_>) -> Option<u8> {
    let mut count = 0u8;
    let mut cursor = arguments.walk();
    for arg in arguments.named_children(&mut cursor) {
        match cx.kind(arg) {
            "comment" => {}
            "spread_element" => return None,
            _ => count = count.saturating_add(1),
        }
    }
    Some(count)
}

/// True when `text` may hold a literal variable name (`"APP_DEBUG"`): a quote (`"`, `'`,
/// `` ` ``), then capitals, digits and `_` with a capital among them, then a quote; or a
/// backslash in that run (an escape is read by the full test). A part of a concatenated literal
/// counts: a name spread over parts has a part of such characters holding a capital.
fn quotes_a_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    let is_quote = |b: u8| matches!(b, b'"' | b'\'' | b'`');
    memchr::memchr3_iter(b'"', b'\'', b'`', bytes).any(|at| {
        let run = bytes.get(at + 1..).unwrap_or_default();
        let length =
            run.iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_');
        let length = length.count();
        match run.get(length) {
            Some(b'\\') => true,
            Some(&end) => is_quote(end) && run[..length].iter().any(u8::is_ascii_uppercase),
            None => false,
        }
    })
}

/// `environment.X` on a name holding `env`: may be an environment object of another module.
pub(super) fn member(node: Node<'_>, object: &str, property: &str, facts: &mut FileFacts) {
    if !names::env_like(property) || !object.to_ascii_lowercase().contains("env") {
        return;
    }
    let (line, column) = position(node);
    facts.env.invocations.push(EnvInvocation {
        line,
        column,
        callee: object.to_owned(),
        member: true,
        within: None,
        within_params: Vec::new(),
        args: vec![InvocationArg {
            position: Some(0),
            keyword: None,
            parts: vec![NamePart::Lit(property.to_owned())],
        }],
        arity: None,
    });
}

/// `process.env` (the node) bound at module level, whole or through a function over it:
/// `export default withFileSecrets(process.env)`, `export const env = process.env`.
pub(super) fn environment_object(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let Some(mut holder) = cx.parent(node) else { return };
    if holder.kind_name() == "arguments" {
        // The environment as the first argument of a call that is not a schema's validation
        // (a validated schema's object holds its own names, read where it is declared).
        let first = holder.named_child(0).is_some_and(|a| a.id() == node.id());
        let Some(call) = cx.parent(holder).filter(|c| c.kind_name() == "call_expression") else {
            return;
        };
        let callee = call.field("function").map(|f| text(f, cx.source)).unwrap_or("");
        let last = callee.rsplit('.').next().unwrap_or(callee);
        if !first || matches!(last, "cleanEnv" | "createEnv" | "parse" | "safeParse") {
            return;
        }
        let Some(up) = cx.parent(call) else { return };
        holder = up;
    }
    let name = match holder.kind_name() {
        "export_statement" => "default".to_owned(),
        "variable_declarator" => {
            let Some(name) = holder.field("name").filter(|n| n.kind_name() == "identifier") else {
                return;
            };
            let module_level = cx
                .parent(holder)
                .and_then(|d| cx.parent(d))
                .is_some_and(|s| matches!(s.kind_name(), "program" | "export_statement"));
            if !module_level {
                return;
            }
            text(name, cx.source).to_owned()
        }
        _ => return,
    };
    let (line, _) = position(node);
    facts.env.objects.push(EnvObject { name, line, kind: ObjectKind::Environment });
}

/// Keeps the invocations that may reach a wrapper or an object: a callee the file imports, or
/// declares as a wrapper, an object or a forwarding function.
pub(super) fn finish(facts: &mut FileFacts) {
    if facts.env.invocations.is_empty() {
        return;
    }
    let env = &facts.env;
    let mut known: Vec<&str> = facts
        .imports
        .iter()
        .flat_map(|i| i.bindings.iter().map(|b| b.local.as_str()))
        .chain(env.wrappers.iter().map(|w| w.name.as_str()))
        .chain(env.objects.iter().map(|o| o.name.as_str()))
        .chain(env.invocations.iter().filter_map(|i| i.within.as_deref()))
        .collect();
    known.sort_unstable();
    known.dedup();
    let keep: Vec<bool> = env
        .invocations
        .iter()
        .map(|i| {
            let head = i.callee.split('.').next().unwrap_or("");
            known.binary_search(&head).is_ok() || known.binary_search(&i.callee.as_str()).is_ok()
        })
        .collect();
    let mut keep = keep.into_iter();
    facts.env.invocations.retain(|_| keep.next().unwrap_or(false));
}

#[cfg(test)]
mod tests {
    use super::quotes_a_name;

    /// Every argument text that holds a literal variable name passes; prose does not.
    #[test]
    fn a_quoted_name_is_seen_in_the_arguments_text() {
        for yes in [
            "(\"APP_DEBUG\")",
            "(key='X', default=1)",
            "(`_SECRET2`)",
            "(\"\" \"DB_URL\")",
            "(\"A\" \"b\")",
            "(\"\\x41B\")",
            "(f, r'PATH')",
        ] {
            assert!(quotes_a_name(yes), "{yes}");
        }
        for no in ["(\"Starting the worker\")", "(x, y)", "(\"_\")", "('a1')", "(\"ABC"] {
            assert!(!quotes_a_name(no), "{no}");
        }
    }
}
