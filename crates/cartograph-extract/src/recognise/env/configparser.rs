//! configparser with an interpolation that reads the environment: a class of the file that
//! extends a configparser `*Interpolation` and whose `before_get(self, parser, section, option,
//! value, defaults)` passes `option` to `os.getenv` / `os.environ.get` / `os.environ[...]`
//! (through the file's names for `os`, as `python-env` reads them), a parser made with it in the
//! same file (`P = ConfigParser(interpolation=EnvInterpolation())`), and options read from that
//! parser by a literal name: configparser calls `before_get` on every read of an option, so each
//! such read reads the environment variable of the option's name. Provenance `convention`, confidence `likely`: whether the environment's value is used
//! depends on the interpolation's own logic and on the configuration file.
//!
//! Reads: `P["section"]["NAME"]`, `P["section"].get("NAME", …)` (also `getboolean`, `getint`,
//! `getfloat`), `P.get("section", "NAME", …)` and the same typed getters.
//! Refuses (`computed-env-key`): such a read whose option name is computed.
//!
//! ```python
//! class EnvInterpolation(configparser.BasicInterpolation):
//!     def before_get(self, parser, section, option, value, defaults):
//!         envvar = os.getenv(option)
//!         return envvar if value == "" and envvar else value
//!
//! config_ini = configparser.ConfigParser(interpolation=EnvInterpolation())
//! SECRET_KEY = config_ini["server"]["SECRET_KEY"]        # reads SECRET_KEY
//! ```

use tree_sitter::Node;

use super::python::{OsNames, dotted};
use super::{assigned_to, keyed_read};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::{FieldExt, KindExt, text};

const RECOGNISER: &str = "python-configparser-env";

/// The getters of a parser or a section that read one option.
const GETTERS: &[&str] = &["get", "getboolean", "getint", "getfloat"];

/// The file's environment-reading interpolation classes and the parsers made with them.
#[derive(Debug, Default)]
pub(super) struct EnvConfigParsers {
    interpolations: Vec<String>,
    parsers: Vec<(String, String)>,
}

impl EnvConfigParsers {
    /// A class definition: remembered when it is an interpolation whose `before_get` reads the
    /// environment variable named by its option.
    pub(super) fn class(&mut self, node: Node<'_>, cx: &Context<'_>, os: &OsNames) {
        let (Some(name), Some(bases), Some(body)) =
            (node.field("name"), node.field("superclasses"), node.field("body"))
        else {
            return;
        };
        if !text(bases, cx.source).contains("Interpolation") {
            return;
        }
        let mut cursor = body.walk();
        let reads = body.named_children(&mut cursor).any(|statement| {
            let function = match statement.kind_name() {
                "decorated_definition" => statement.field("definition"),
                _ => Some(statement),
            };
            function.filter(|f| f.kind_name() == "function_definition").is_some_and(|f| {
                f.field("name").is_some_and(|n| text(n, cx.source) == "before_get")
                    && option_parameter(f, cx.source)
                        .is_some_and(|option| reads_env_by(f, option, os, cx.source))
            })
        });
        if reads {
            self.interpolations.push(text(name, cx.source).to_owned());
        }
    }

    /// A call: a parser made with one of the interpolations (true), or an option read through
    /// one of the parsers (true); false for any other call.
    pub(super) fn call(&mut self, node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) -> bool {
        if self.interpolations.is_empty() {
            return false;
        }
        let Some(function) = cx.field(node, "function") else { return false };
        let callee = text(function, cx.source);
        if callee.ends_with("ConfigParser") {
            let Some(class) = self.interpolation_argument(node, cx.source) else { return false };
            if let Some((name, _)) = assigned_to(node, cx) {
                self.parsers.push((name.to_owned(), class));
            }
            return true;
        }
        if self.parsers.is_empty() || function.kind_name() != "attribute" {
            return false;
        }
        let (Some(object), Some(getter)) = (function.field("object"), function.field("attribute"))
        else {
            return false;
        };
        if !GETTERS.contains(&text(getter, cx.source)) {
            return false;
        }
        let Some(arguments) = cx.field(node, "arguments") else { return false };
        // `P["section"].get("NAME")` names the option first; `P.get("section", "NAME")` second.
        let (parser, position) = match object.kind_name() {
            "subscript" => (object.field("value"), 0),
            _ => (Some(object), 1),
        };
        let Some(class) = parser.and_then(|p| self.parser_class(p, cx.source)) else {
            return false;
        };
        let key = crate::syntax::python::positional_argument(arguments, position)
            .or_else(|| crate::syntax::python::keyword_argument(arguments, "option", cx.source));
        if let Some(key) = key {
            let how = format!("configparser option read through {class}.before_get");
            keyed_read(node, key, &how, RECOGNISER, true, cx, facts);
        }
        true
    }

    /// `P["section"]["NAME"]`: the option `NAME` read through one of the parsers.
    pub(super) fn subscript(&self, node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
        if self.parsers.is_empty() {
            return;
        }
        let (Some(section), Some(key)) = (node.field("value"), node.field("subscript")) else {
            return;
        };
        if section.kind_name() != "subscript" {
            return;
        }
        let Some(class) = section.field("value").and_then(|p| self.parser_class(p, cx.source))
        else {
            return;
        };
        let how = format!("configparser option read through {class}.before_get");
        keyed_read(node, key, &how, RECOGNISER, true, cx, facts);
    }

    /// The interpolation class of a parser named by `node`, when it is one of the file's.
    fn parser_class(&self, node: Node<'_>, source: &str) -> Option<&str> {
        if node.kind_name() != "identifier" {
            return None;
        }
        let name = text(node, source);
        self.parsers.iter().rev().find(|(p, _)| p == name).map(|(_, class)| class.as_str())
    }

    /// The class of `interpolation=Class()` when it is one of the file's interpolations.
    fn interpolation_argument(&self, call: Node<'_>, source: &str) -> Option<String> {
        let arguments = call.field("arguments")?;
        let value = crate::syntax::python::keyword_argument(arguments, "interpolation", source)?;
        let class = text(value.field("function").filter(|_| value.kind_name() == "call")?, source);
        self.interpolations.iter().find(|i| i.as_str() == class).cloned()
    }
}

/// The name of `before_get`'s option parameter: the fourth, after `self`, `parser` and
/// `section`.
fn option_parameter<'s>(function: Node<'_>, source: &'s str) -> Option<&'s str> {
    let parameters = function.field("parameters")?;
    let option = parameters.named_child(3)?;
    (option.kind_name() == "identifier").then(|| text(option, source))
}

/// Whether the body of `function` passes the parameter `option` to an environment read (one
/// that `python-env` knows, through the file's names for `os`).
fn reads_env_by(function: Node<'_>, option: &str, os: &OsNames, source: &str) -> bool {
    let Some(body) = function.field("body") else { return false };
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        match node.kind_name() {
            "call" => {
                let getter = node
                    .field("function")
                    .and_then(|f| dotted(f, source))
                    .is_some_and(|callee| os.reads_by_name(&callee));
                let first = node
                    .field("arguments")
                    .and_then(|a| crate::syntax::python::positional_argument(a, 0));
                if getter && first.is_some_and(|a| text(a, source) == option) {
                    return true;
                }
            }
            "subscript" => {
                let environ = node
                    .field("value")
                    .and_then(|v| dotted(v, source))
                    .is_some_and(|v| os.is_environ(&v));
                if environ && node.field("subscript").is_some_and(|k| text(k, source) == option) {
                    return true;
                }
            }
            // A nested function or class has parameters of its own.
            "function_definition" | "class_definition" | "lambda" => continue,
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    false
}
