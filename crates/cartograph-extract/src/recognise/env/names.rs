//! Variable names built from parts, and the function a read is written in.
//!
//! Not a recogniser: the readers of this family ask here what a name that is not a plain
//! literal is made of. A name is a sequence of [`NamePart`]s: literals, module constants
//! (`PREFIX = "APP"`, `const PREFIX = "APP"`, read as their literal) and the enclosing function's
//! parameters (`key`, resolved at each caller). `PREFIX + "_FILE"`, `f"{PREFIX}_FILE"` and
//! `` `${key}_FILE` `` are such names; anything else (a call, an attribute, a local variable) is
//! computed.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::Syntax;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, text};

/// One part of a variable name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NamePart {
    Lit(String),
    /// The enclosing function's parameter at this index.
    Param(u8),
}

/// The name when every part is a literal.
pub(super) fn literal(parts: &[NamePart]) -> Option<String> {
    let mut name = String::new();
    for part in parts {
        match part {
            NamePart::Lit(s) => name.push_str(s),
            NamePart::Param(_) => return None,
        }
    }
    Some(name)
}

/// True when some part is a parameter.
pub(super) fn has_param(parts: &[NamePart]) -> bool {
    parts.iter().any(|p| matches!(p, NamePart::Param(_)))
}

/// True for a name that looks like an environment variable: `DATABASE_URL`, `APP_DEBUG`.
pub(super) fn env_like(name: &str) -> bool {
    name.len() <= 128
        && name.bytes().next().is_some_and(|b| b.is_ascii_uppercase() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && name.bytes().any(|b| b.is_ascii_uppercase())
}

/// A named function (not a method) that a read is written in: its name and parameters.
///
/// A class whose field initialisers read is one too (`members`): `new UrlSet(…, "ADMIN_")`
/// calls it, its parameters are the constructor's, and a field initialiser names the
/// parameter properties among them as `this.envPrefix` (a plain parameter is out of a field's
/// reach and holds an empty name).
#[derive(Debug, Clone, Default)]
pub(super) struct Function {
    pub name: String,
    pub params: Vec<String>,
    /// The literal default of each parameter that has one (`envPrefix = ''`).
    pub defaults: Vec<Option<String>>,
    /// A class: parameters are read as `this.P`, never as bare names.
    pub members: bool,
    /// The module's default export (importers name it `default`).
    pub default_export: bool,
}

/// The enclosing function of the last node asked about, by the node that ends the search (see
/// [`scope_of`]): a fast path for speed, since reading a function's name and parameters costs
/// more than most calls' own recognisers, and a function's calls come one after another.
#[derive(Default)]
pub(super) struct FunctionCache {
    last: Option<(usize, Option<Function>)>,
}

impl FunctionCache {
    /// [`enclosing_function`] of the visited node.
    pub(super) fn get(&mut self, cx: &Context<'_>) -> Option<&Function> {
        let key = scope_of(cx);
        if self.last.as_ref().is_none_or(|(k, _)| *k != key) {
            self.last = Some((key, enclosing_function(cx)));
        }
        self.last.as_ref().and_then(|(_, f)| f.as_ref())
    }
}

/// The id of the nearest ancestor of the visited node at which [`enclosing_function`] stops
/// (a function, lambda or class), `usize::MAX` for none: its answer depends on that node alone.
fn scope_of(cx: &Context<'_>) -> usize {
    let ancestry = cx.ancestry();
    let last = ancestry.len().saturating_sub(1);
    ancestry[..last]
        .iter()
        .rev()
        .find(|n| match cx.syntax {
            Syntax::Python => {
                matches!(cx.kind(**n), "function_definition" | "lambda" | "class_definition")
            }
            Syntax::JavaScript => matches!(
                cx.kind(**n),
                "function_declaration"
                    | "generator_function_declaration"
                    | "arrow_function"
                    | "function_expression"
                    | "function"
                    | "method_definition"
                    | "class_declaration"
                    | "class"
                    | "class_body"
            ),
            Syntax::Rust => matches!(cx.kind(**n), "function_item" | "closure_expression"),
        })
        .map_or(usize::MAX, |n| n.id())
}

/// The nearest function around the visited node, when it is a plain named function.
pub(super) fn enclosing_function(cx: &Context<'_>) -> Option<Function> {
    let ancestry = cx.ancestry();
    let last = ancestry.len().checked_sub(1)?;
    for i in (0..last).rev() {
        let node = ancestry[i];
        let parent = i.checked_sub(1).map(|p| ancestry[p]);
        let (name, params) = match (cx.syntax, cx.kind(node)) {
            (Syntax::Python, "function_definition") => {
                // A method is called through an instance, never by its bare name.
                let mut j = i;
                if parent.is_some_and(|p| cx.kind(p) == "decorated_definition") {
                    j -= 1;
                }
                let in_class = j >= 2
                    && cx.kind(ancestry[j - 1]) == "block"
                    && cx.kind(ancestry[j - 2]) == "class_definition";
                if in_class {
                    return None;
                }
                (node.field("name")?, node.field("parameters")?)
            }
            (Syntax::Python, "lambda" | "class_definition") => return None,
            (Syntax::JavaScript, "function_declaration" | "generator_function_declaration") => {
                (node.field("name")?, node.field("parameters")?)
            }
            (Syntax::JavaScript, "arrow_function" | "function_expression" | "function") => {
                let declarator = parent.filter(|p| p.kind_name() == "variable_declarator")?;
                let name = declarator.field("name").filter(|n| n.kind_name() == "identifier")?;
                let params = match node.field("parameters") {
                    Some(p) => p,
                    // `key => process.env[key]`: one bare parameter.
                    None => node.field("parameter")?,
                };
                (name, params)
            }
            (Syntax::JavaScript, "class_body") => {
                let field = ancestry.get(i + 1).copied();
                return field.and_then(|f| class_of_field(f, node, parent?, cx));
            }
            (Syntax::JavaScript, "method_definition" | "class_declaration" | "class") => {
                return None;
            }
            _ => continue,
        };
        return Some(Function {
            name: text(name, cx.source).to_owned(),
            params: parameters(params, cx.source),
            ..Function::default()
        });
    }
    None
}

/// The class a field initialiser belongs to, as a function of its constructor's parameter
/// properties: `field` is an instance field of `body`, the body of the named `class`.
fn class_of_field(
    field: Node<'_>,
    body: Node<'_>,
    class: Node<'_>,
    cx: &Context<'_>,
) -> Option<Function> {
    if !matches!(field.kind_name(), "public_field_definition" | "field_definition")
        || field.children(&mut field.walk()).any(|c| c.kind_name() == "static")
        || !matches!(class.kind_name(), "class_declaration" | "abstract_class_declaration")
    {
        return None;
    }
    let name = class.field("name")?;
    let default_export = cx.parent(class).is_some_and(|e| {
        e.kind_name() == "export_statement"
            && e.children(&mut e.walk()).any(|c| c.kind_name() == "default")
    });
    let mut params = Vec::new();
    let mut defaults = Vec::new();
    let mut cursor = body.walk();
    let constructor = body.named_children(&mut cursor).find(|m| {
        m.kind_name() == "method_definition"
            && m.field("name").is_some_and(|n| text(n, cx.source) == "constructor")
    });
    if let Some(list) = constructor.and_then(|c| c.field("parameters")) {
        let mut cursor = list.walk();
        for p in list.named_children(&mut cursor) {
            if p.kind_name() == "comment" {
                continue;
            }
            // A parameter property carries an accessibility modifier or `readonly`.
            let property = matches!(p.kind_name(), "required_parameter" | "optional_parameter")
                && p.children(&mut p.walk())
                    .any(|c| matches!(c.kind_name(), "accessibility_modifier" | "readonly"));
            let pattern = p.field("pattern").filter(|n| n.kind_name() == "identifier");
            let name = pattern.filter(|_| property).map(|n| text(n, cx.source).to_owned());
            params.push(name.unwrap_or_default());
            defaults.push(p.field("value").and_then(|v| literal_string(v, cx.source)));
        }
    }
    Some(Function {
        name: text(name, cx.source).to_owned(),
        params,
        defaults,
        members: true,
        default_export,
    })
}

/// The parameter names of a parameter list, in order; a pattern or splat is an empty name
/// (it holds a place but no caller's keyword can name it).
fn parameters(list: Node<'_>, source: &str) -> Vec<String> {
    if list.kind_name() == "identifier" {
        return vec![text(list, source).to_owned()];
    }
    let mut names = Vec::new();
    let mut cursor = list.walk();
    for p in list.named_children(&mut cursor) {
        let name = match p.kind_name() {
            "identifier" => Some(p),
            "default_parameter" | "typed_default_parameter" => p.field("name"),
            "typed_parameter" => p.named_child(0).filter(|n| n.kind_name() == "identifier"),
            "required_parameter" | "optional_parameter" => {
                p.field("pattern").filter(|n| n.kind_name() == "identifier")
            }
            "assignment_pattern" => p.field("left").filter(|n| n.kind_name() == "identifier"),
            "comment" | "keyword_separator" | "positional_separator" => continue,
            _ => None,
        };
        names.push(name.map(|n| text(n, source).to_owned()).unwrap_or_default());
    }
    names
}

/// The parts of the name `node` spells, or `None` when it is computed. `params` are the
/// enclosing function's (empty outside one).
/// Module constants are looked up only when `constants` (a lookup reads the module's top-level
/// statements).
pub(super) fn parts(
    node: Node<'_>,
    cx: &Context<'_>,
    function: Option<&Function>,
    constants: bool,
) -> Option<Vec<NamePart>> {
    let (params, members) = function.map_or((&[][..], false), |f| (&f.params[..], f.members));
    let scope = Scope { cx, params, members, constants };
    let mut out = Vec::new();
    collect(node, &scope, &mut out, 0)?;
    // Adjacent literals are one.
    let mut merged: Vec<NamePart> = Vec::with_capacity(out.len());
    for part in out {
        match (merged.last_mut(), part) {
            (Some(NamePart::Lit(a)), NamePart::Lit(b)) => a.push_str(&b),
            (_, part) => merged.push(part),
        }
    }
    (!merged.is_empty()).then_some(merged)
}

/// What names in a variable name may refer to.
struct Scope<'c, 's> {
    cx: &'c Context<'s>,
    params: &'c [String],
    /// The parameters are a class's properties: `this.P`.
    members: bool,
    constants: bool,
}

fn collect(
    node: Node<'_>,
    scope: &Scope<'_, '_>,
    out: &mut Vec<NamePart>,
    depth: u8,
) -> Option<()> {
    let cx = scope.cx;
    if depth > 8 {
        return None;
    }
    if let Some(s) = literal_string(node, cx.source) {
        out.push(NamePart::Lit(s));
        return Some(());
    }
    match node.kind_name() {
        "identifier" => out.push(identifier(text(node, cx.source), scope)?),
        "member_expression" if scope.members => {
            node.field("object").filter(|o| o.kind_name() == "this")?;
            let name = text(node.field("property")?, cx.source);
            let i = scope.params.iter().position(|p| !p.is_empty() && p == name)?;
            out.push(NamePart::Param(u8::try_from(i).ok()?));
        }
        "parenthesized_expression" => {
            collect(node.named_child(0)?, scope, out, depth + 1)?;
        }
        "binary_operator" | "binary_expression" => {
            let operator = node.field("operator").map(|o| text(o, cx.source));
            if operator != Some("+") {
                return None;
            }
            collect(node.field("left")?, scope, out, depth + 1)?;
            collect(node.field("right")?, scope, out, depth + 1)?;
        }
        "concatenated_string" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                collect(child, scope, out, depth + 1)?;
            }
        }
        // An f-string or a template literal: fragments and `{name}` / `${name}` holes.
        "string" | "template_string" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind_name() {
                    "string_start" | "string_end" => {}
                    "string_content" | "string_fragment" | "escape_sequence" => {
                        out.push(NamePart::Lit(text(child, cx.source).to_owned()));
                    }
                    "interpolation" | "template_substitution" => {
                        if child.named_child_count() != 1 {
                            return None;
                        }
                        let inner = child.named_child(0)?;
                        if !matches!(inner.kind_name(), "identifier" | "member_expression") {
                            return None;
                        }
                        collect(inner, scope, out, depth + 1)?;
                    }
                    _ => return None,
                }
            }
        }
        _ => return None,
    }
    Some(())
}

/// A name in a variable name: a parameter, or a module constant bound once to a literal.
fn identifier(name: &str, scope: &Scope<'_, '_>) -> Option<NamePart> {
    if let Some(i) = scope.params.iter().position(|p| p == name).filter(|_| !scope.members) {
        return u8::try_from(i).ok().map(NamePart::Param);
    }
    if !scope.constants {
        return None;
    }
    module_constant(name, scope.cx).map(NamePart::Lit)
}

/// The value a module-level `const NAME = …` binds (JavaScript).
pub(super) fn module_value<'s>(name: &str, cx: &Context<'s>) -> Option<Node<'s>> {
    let root = *cx.ancestry().first()?;
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let declaration = match statement.kind_name() {
            "lexical_declaration" => statement,
            "export_statement" => match statement.field("declaration") {
                Some(d) if d.kind_name() == "lexical_declaration" => d,
                _ => continue,
            },
            _ => continue,
        };
        let mut inner = declaration.walk();
        for declarator in declaration.named_children(&mut inner) {
            if declarator.kind_name() == "variable_declarator"
                && declarator.field("name").is_some_and(|n| text(n, cx.source) == name)
            {
                return declarator.field("value");
            }
        }
    }
    None
}

/// The literal a module-level `NAME = "…"` (`const NAME = "…"`) binds, when it is bound once.
pub(super) fn module_constant(name: &str, cx: &Context<'_>) -> Option<String> {
    let root = *cx.ancestry().first()?;
    let mut found: Option<String> = None;
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let mut bind = |left: Node<'_>, right: Option<Node<'_>>| -> Option<()> {
            if text(left, cx.source) != name {
                return Some(());
            }
            let value = literal_string(right?, cx.source)?;
            if found.replace(value).is_some() {
                return None;
            }
            Some(())
        };
        match statement.kind_name() {
            "expression_statement" => {
                let Some(a) = statement.named_child(0).filter(|a| a.kind_name() == "assignment")
                else {
                    continue;
                };
                let Some(left) = a.field("left") else { continue };
                bind(left, a.field("right"))?;
            }
            "lexical_declaration" | "export_statement" => {
                let declaration = if statement.kind_name() == "export_statement" {
                    match statement.field("declaration") {
                        Some(d) if d.kind_name() == "lexical_declaration" => d,
                        _ => continue,
                    }
                } else {
                    statement
                };
                if !text(declaration, cx.source).starts_with("const") {
                    continue;
                }
                let mut inner = declaration.walk();
                for declarator in declaration.named_children(&mut inner) {
                    if declarator.kind_name() != "variable_declarator" {
                        continue;
                    }
                    let Some(left) = declarator.field("name") else { continue };
                    bind(left, declarator.field("value"))?;
                }
            }
            _ => {}
        }
    }
    found
}
