//! Architecture rules: what a repository declares it wants (`cartograph.toml`, read by the query
//! layer into a [`Policy`]), and the [`Violation`]s of one analysed tree.
//!
//! Every rule speaks of edges of chosen kinds and names nodes with [`Selector`]s, so one rule can
//! span languages: a `calls` edge reaches a route, and through the route the module that serves
//! it; a `reads`/`writes` edge reaches a table, and through it the module that defines it. A rule
//! that names modules on its target side therefore catches a TypeScript page calling a Python
//! handler it may not depend on.
//!
//! | kind | broken by |
//! |---|---|
//! | `forbidden` | an edge (or, `transitive`, a path) from `from` to `to` |
//! | `allowed-only` | an edge from `from` whose target is not in `to` |
//! | `layers` | an edge (or path) from a layer to a layer above it (layers listed top first) |
//! | `independent` | an edge (or path) from one member to another |
//! | `no-cycles` | a cycle among the modules (or components) of a scope |
//! | `max-fan-in` / `max-fan-out` | a component with more dependent (or depended-on) components than allowed |
//!
//! A violation has a stable identity (rule, edge kind and endpoints, never a line number), so a
//! baseline can accept it and a diff can tell a new one from an old one.

mod eval;
mod select;

use cartograph_core::{Edge, EdgeKind};

use crate::diff::{Severity, Subject};

pub use eval::evaluate;
pub use select::{PatternError, Selector, Target};

/// The rules of a repository, in the order written.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub rules: Vec<Rule>,
}

/// One rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Unique within the policy: `[A-Za-z0-9._-]+`.
    pub id: String,
    pub severity: RuleSeverity,
    /// One line saying why the rule exists.
    pub reason: String,
    pub kind: RuleKind,
}

/// How serious breaking a rule is: `error` fails `cartograph check`, the others are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleSeverity {
    Error,
    Warning,
    Info,
}

impl RuleSeverity {
    pub const ALL: [RuleSeverity; 3] =
        [RuleSeverity::Error, RuleSeverity::Warning, RuleSeverity::Info];

    pub fn as_str(self) -> &'static str {
        match self {
            RuleSeverity::Error => "error",
            RuleSeverity::Warning => "warning",
            RuleSeverity::Info => "info",
        }
    }

    pub fn parse(name: &str) -> Option<RuleSeverity> {
        RuleSeverity::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The severity of the finding that reports a violation: error → high, warning → medium,
    /// info → low.
    pub fn finding_severity(self) -> Severity {
        match self {
            RuleSeverity::Error => Severity::High,
            RuleSeverity::Warning => Severity::Medium,
            RuleSeverity::Info => Severity::Low,
        }
    }
}

/// What a rule forbids.
#[derive(Debug, Clone)]
pub enum RuleKind {
    Forbidden {
        edges: Vec<EdgeKind>,
        from: Selector,
        to: Selector,
        transitive: bool,
    },
    AllowedOnly {
        edges: Vec<EdgeKind>,
        from: Selector,
        to: Selector,
    },
    /// Layers top first: each may depend only on the layers below it.
    Layers {
        edges: Vec<EdgeKind>,
        layers: Vec<Selector>,
        transitive: bool,
    },
    Independent {
        edges: Vec<EdgeKind>,
        members: Vec<Selector>,
        transitive: bool,
    },
    NoCycles {
        edges: Vec<EdgeKind>,
        scope: Selector,
        between: CycleUnit,
    },
    /// Components (selected by name) with more than `max` components depending on them.
    MaxFanIn {
        edges: Vec<EdgeKind>,
        components: Selector,
        max: usize,
    },
    /// Components (selected by name) depending on more than `max` components.
    MaxFanOut {
        edges: Vec<EdgeKind>,
        components: Selector,
        max: usize,
    },
}

impl RuleKind {
    /// The kind's name in the rules file.
    pub fn name(&self) -> &'static str {
        match self {
            RuleKind::Forbidden { .. } => "forbidden",
            RuleKind::AllowedOnly { .. } => "allowed-only",
            RuleKind::Layers { .. } => "layers",
            RuleKind::Independent { .. } => "independent",
            RuleKind::NoCycles { .. } => "no-cycles",
            RuleKind::MaxFanIn { .. } => "max-fan-in",
            RuleKind::MaxFanOut { .. } => "max-fan-out",
        }
    }

    /// Every kind's name, in documentation order.
    pub const NAMES: [&'static str; 7] = [
        "forbidden",
        "allowed-only",
        "layers",
        "independent",
        "no-cycles",
        "max-fan-in",
        "max-fan-out",
    ];
}

/// What a `no-cycles` rule looks for cycles among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CycleUnit {
    Modules,
    Components,
}

/// One way a tree breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule's index in the policy.
    pub rule: usize,
    /// Stable across edits: the rule's kind of breach and the endpoints, never a line. Unique
    /// within a rule.
    pub identity: String,
    /// What the violation is about: the module that depends, the component, or a cycle's first
    /// member.
    pub subject: Subject,
    /// One sentence naming identities only.
    pub message: String,
    /// The edges that break the rule, in path order for a transitive one; never empty.
    pub edges: Vec<Edge>,
}
