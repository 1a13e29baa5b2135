//! The rules file, `cartograph.toml`: the architecture a repository declares it wants, read into
//! a [`Policy`]. Its JSON Schema is `schemas/config.schema.json` (`cartograph schema config`).
//!
//! ```toml
//! baseline = "cartograph-baseline.json"   # optional; beside this file by default
//!
//! [[rule]]
//! id = "web-not-backend"
//! kind = "forbidden"
//! severity = "error"                      # error (default), warning or info
//! reason = "The web app reaches the backend over HTTP only."
//! edges = ["imports"]                     # default: every edge kind
//! from = "web/**"
//! to = "backend/**"
//! ```
//!
//! Anything wrong is one [`ConfigError`] naming the line: a TOML syntax error, an unknown key, a
//! rule kind, severity, edge kind or glob that does not exist, a duplicate id, or a field a rule
//! kind needs and lacks.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Range;

use cartograph_core::EdgeKind;
use cartograph_graph::policy::{CycleUnit, Policy, Rule, RuleKind, RuleSeverity, Selector, Target};
use serde::Deserialize;
use toml::Spanned;

/// The file name looked for at a repository's root.
pub const CONFIG_FILE: &str = "cartograph.toml";
/// The baseline's file name beside the rules file, when the rules file names none.
pub const DEFAULT_BASELINE: &str = "cartograph-baseline.json";

/// A rules file, read.
#[derive(Debug, Clone)]
pub struct Config {
    pub policy: Policy,
    /// The baseline file, relative to the rules file's folder.
    pub baseline: String,
}

/// Why a rules file was refused: the line (1-based) and one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ConfigError {}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    baseline: Option<Spanned<String>>,
    #[serde(default)]
    rule: Vec<Spanned<RawRule>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: Spanned<String>,
    kind: Spanned<String>,
    #[serde(default)]
    severity: Option<Spanned<String>>,
    reason: Spanned<String>,
    #[serde(default)]
    edges: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    from: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    to: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    transitive: Option<bool>,
    #[serde(default)]
    layers: Option<Spanned<Vec<OneOrMany>>>,
    #[serde(default)]
    members: Option<Spanned<Vec<OneOrMany>>>,
    #[serde(default)]
    scope: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    between: Option<Spanned<String>>,
    #[serde(default)]
    components: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    max: Option<Spanned<i64>>,
}

/// A pattern or a list of patterns.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn patterns(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(p) => vec![p.as_str()],
            OneOrMany::Many(ps) => ps.iter().map(String::as_str).collect(),
        }
    }
}

/// Reads a rules file's text.
pub fn parse_config(text: &str) -> Result<Config, ConfigError> {
    let at = |span: Option<Range<usize>>| line_of(text, span.map_or(0, |s| s.start));
    let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError {
        line: at(e.span()),
        message: e.message().trim().replace('\n', " "),
    })?;
    let baseline = match raw.baseline {
        Some(b)
            if b.get_ref().trim().is_empty()
                || b.get_ref().starts_with('/')
                || b.get_ref().contains("..") =>
        {
            return Err(ConfigError {
                line: at(Some(b.span())),
                message: "`baseline` must be a relative path inside the repository".into(),
            });
        }
        Some(b) => b.into_inner(),
        None => DEFAULT_BASELINE.to_owned(),
    };
    let mut ids = BTreeSet::new();
    let mut rules = Vec::new();
    for spanned in raw.rule {
        let line = at(Some(spanned.span()));
        let raw = spanned.into_inner();
        let rule = read_rule(&raw).map_err(|(span, message)| ConfigError {
            line: span.map_or(line, |s| line_of(text, s.start)),
            message,
        })?;
        if !ids.insert(rule.id.clone()) {
            return Err(ConfigError {
                line: at(Some(raw.id.span())),
                message: format!("rule id `{}` is used twice; ids must be unique", rule.id),
            });
        }
        rules.push(rule);
    }
    Ok(Config { policy: Policy { rules }, baseline })
}

type Refused = (Option<Range<usize>>, String);

fn read_rule(raw: &RawRule) -> Result<Rule, Refused> {
    let id = raw.id.get_ref().trim().to_owned();
    let valid_id = !id.is_empty()
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid_id {
        return Err((
            Some(raw.id.span()),
            format!("rule id `{id}` is not a name: use letters, digits, `-`, `_` and `.`"),
        ));
    }
    let named = |message: String| format!("rule `{id}`: {message}");
    let severity = match &raw.severity {
        None => RuleSeverity::Error,
        Some(s) => RuleSeverity::parse(s.get_ref()).ok_or_else(|| {
            (
                Some(s.span()),
                named(format!("severity `{}` is not one of error, warning, info", s.get_ref())),
            )
        })?,
    };
    let reason = raw.reason.get_ref().trim();
    if reason.is_empty() || reason.contains('\n') {
        return Err((Some(raw.reason.span()), named("`reason` must be one non-empty line".into())));
    }
    let kind_name = raw.kind.get_ref().as_str();
    let default_edges: &[EdgeKind] = match kind_name {
        "forbidden" => &EdgeKind::ALL,
        "no-cycles" => &[EdgeKind::Imports],
        _ => &[EdgeKind::Imports, EdgeKind::Calls],
    };
    let edges = match &raw.edges {
        None if kind_name == "allowed-only" => {
            return Err((
                None,
                named("an `allowed-only` rule needs `edges`, the kinds it limits".into()),
            ));
        }
        None => default_edges.to_vec(),
        Some(list) => {
            let mut kinds = Vec::new();
            for name in list.get_ref() {
                let kind = EdgeKind::parse(name).ok_or_else(|| {
                    let known: Vec<&str> = EdgeKind::ALL.iter().map(|k| k.as_str()).collect();
                    (
                        Some(list.span()),
                        named(format!("`{name}` is not an edge kind; use {}", known.join(", "))),
                    )
                })?;
                kinds.push(kind);
            }
            if kinds.is_empty() {
                return Err((Some(list.span()), named("`edges` is empty".into())));
            }
            kinds
        }
    };
    let selector = |field: &str, value: &Option<Spanned<OneOrMany>>, default: Target| {
        let value = value
            .as_ref()
            .ok_or_else(|| (None, named(format!("a `{kind_name}` rule needs `{field}`"))))?;
        let patterns = value.get_ref().patterns();
        if patterns.is_empty() {
            return Err((Some(value.span()), named(format!("`{field}` is empty"))));
        }
        Selector::parse(&patterns, default).map_err(|e| (Some(value.span()), named(e.to_string())))
    };
    let groups = |field: &str, value: &Option<Spanned<Vec<OneOrMany>>>| {
        let value = value
            .as_ref()
            .ok_or_else(|| (None, named(format!("a `{kind_name}` rule needs `{field}`"))))?;
        if value.get_ref().len() < 2 {
            return Err((
                Some(value.span()),
                named(format!("`{field}` needs at least two entries")),
            ));
        }
        value
            .get_ref()
            .iter()
            .map(|g| {
                Selector::parse(&g.patterns(), Target::Path)
                    .map_err(|e| (Some(value.span()), named(e.to_string())))
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let transitive = raw.transitive.unwrap_or(false);
    let max = || match &raw.max {
        None => Err((None, named(format!("a `{kind_name}` rule needs `max`, a number")))),
        Some(m) if *m.get_ref() < 0 => {
            Err((Some(m.span()), named("`max` cannot be negative".into())))
        }
        Some(m) => Ok(usize::try_from(*m.get_ref()).unwrap_or(usize::MAX)),
    };
    let kind = match kind_name {
        "forbidden" => RuleKind::Forbidden {
            from: selector("from", &raw.from, Target::Path)?,
            to: selector("to", &raw.to, Target::Path)?,
            edges,
            transitive,
        },
        "allowed-only" => RuleKind::AllowedOnly {
            from: selector("from", &raw.from, Target::Path)?,
            to: selector("to", &raw.to, Target::Path)?,
            edges,
        },
        "layers" => RuleKind::Layers { layers: groups("layers", &raw.layers)?, edges, transitive },
        "independent" => {
            RuleKind::Independent { members: groups("members", &raw.members)?, edges, transitive }
        }
        "no-cycles" => {
            let scope = match &raw.scope {
                None => Selector::default(),
                Some(_) => selector("scope", &raw.scope, Target::Path)?,
            };
            let between = match raw.between.as_ref().map(|b| (b.get_ref().as_str(), b.span())) {
                None | Some(("modules", _)) => CycleUnit::Modules,
                Some(("components", _)) => CycleUnit::Components,
                Some((other, span)) => {
                    return Err((
                        Some(span),
                        named(format!("`between = \"{other}\"` is not `modules` or `components`")),
                    ));
                }
            };
            RuleKind::NoCycles { scope, between, edges }
        }
        "max-fan-in" | "max-fan-out" => {
            let components = match &raw.components {
                None => Selector::default(),
                Some(_) => selector("components", &raw.components, Target::Component)?,
            };
            let max = max()?;
            if kind_name == "max-fan-in" {
                RuleKind::MaxFanIn { components, max, edges }
            } else {
                RuleKind::MaxFanOut { components, max, edges }
            }
        }
        other => {
            return Err((
                Some(raw.kind.span()),
                named(format!(
                    "kind `{other}` is not a rule kind; use {}",
                    RuleKind::NAMES.join(", ")
                )),
            ));
        }
    };
    let unused = unused_fields(raw, kind_name);
    if let Some(field) = unused.first() {
        return Err((None, named(format!("`{field}` means nothing to a `{kind_name}` rule"))));
    }
    Ok(Rule { id, severity, reason: reason.to_owned(), kind })
}

/// The fields set on a rule that its kind does not read (a typo of intent, refused).
fn unused_fields(raw: &RawRule, kind: &str) -> Vec<&'static str> {
    let uses = |field: &str| match kind {
        "forbidden" => matches!(field, "from" | "to" | "transitive"),
        "allowed-only" => matches!(field, "from" | "to"),
        "layers" => matches!(field, "layers" | "transitive"),
        "independent" => matches!(field, "members" | "transitive"),
        "no-cycles" => matches!(field, "scope" | "between"),
        _ => matches!(field, "components" | "max"),
    };
    let set = [
        ("from", raw.from.is_some()),
        ("to", raw.to.is_some()),
        ("transitive", raw.transitive.is_some()),
        ("layers", raw.layers.is_some()),
        ("members", raw.members.is_some()),
        ("scope", raw.scope.is_some()),
        ("between", raw.between.is_some()),
        ("components", raw.components.is_some()),
        ("max", raw.max.is_some()),
    ];
    set.into_iter().filter(|(f, present)| *present && !uses(f)).map(|(f, _)| f).collect()
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|b| **b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[[rule]]
id = "web-not-backend"
kind = "forbidden"
reason = "The web app reaches the backend over HTTP only."
edges = ["imports"]
from = "web/**"
to = ["backend/**"]

[[rule]]
id = "layers"
kind = "layers"
severity = "warning"
reason = "Handlers call services, services call models."
layers = ["backend/app/api/**", ["backend/app/services/**"], "backend/app/models.py"]
"#;

    #[test]
    fn a_rules_file_reads_into_a_policy() {
        let config = parse_config(GOOD).expect("config");
        assert_eq!(config.baseline, DEFAULT_BASELINE);
        let ids: Vec<&str> = config.policy.rules.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["web-not-backend", "layers"]);
        assert_eq!(config.policy.rules[1].severity, RuleSeverity::Warning);
        assert!(
            matches!(&config.policy.rules[1].kind, RuleKind::Layers { layers, .. } if layers.len() == 3)
        );
    }

    fn refused(text: &str) -> ConfigError {
        parse_config(text).expect_err("refused")
    }

    #[test]
    fn every_refusal_names_its_line() {
        let e = refused(
            "[[rule]]\nid = \"a\"\nkind = \"forbidden\"\nreason = \"r\"\nfrom = \"x/**\"\nto = \"y/[\"\n",
        );
        assert_eq!(e.line, 6, "{e}");
        assert!(e.message.contains("is not a glob"), "{e}");
        let e = refused("[[rule]]\nid = \"a\"\nkind = \"forbiden\"\nreason = \"r\"\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("`forbiden` is not a rule kind"), "{e}");
        let e =
            refused("[[rule]]\nid = \"a\"\nkind = \"forbidden\"\nreason = \"r\"\nform = \"x\"\n");
        assert_eq!(e.line, 5, "{e}");
        let e = refused("baseline = \"a.json\"\nx = [\n");
        assert_eq!(e.line, 2, "{e}");
        let e =
            refused("\n[[rule]]\nid = \"a\"\nkind = \"forbidden\"\nreason = \"r\"\nto = \"b\"\n");
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("needs `from`"), "{e}");
        let dup = "[[rule]]\nid = \"a\"\nkind = \"no-cycles\"\nreason = \"r\"\n[[rule]]\nid = \"a\"\nkind = \"no-cycles\"\nreason = \"r\"\n";
        let e = refused(dup);
        assert_eq!(e.line, 6, "{e}");
        let e = refused("[[rule]]\nid = \"a\"\nkind = \"no-cycles\"\nreason = \"r\"\nmax = 3\n");
        assert!(e.message.contains("`max` means nothing"), "{e}");
        let e = refused(
            "[[rule]]\nid = \"a\"\nkind = \"max-fan-out\"\nreason = \"r\"\nedges = [\"imports\", \"uses\"]\nmax = 1\n",
        );
        assert_eq!(e.line, 5, "{e}");
        let e = refused("baseline = \"/etc/x.json\"\n");
        assert_eq!(e.line, 1, "{e}");
    }
}
