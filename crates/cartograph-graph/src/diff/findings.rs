//! Findings: the parts of a diff a reviewer should look at, each naming the edges that justify
//! it. This file says what a finding is and, on [`FindingKind`], when each kind fires and how
//! severe it is; `rules.rs` derives them.

use std::collections::BTreeSet;

use cartograph_core::{Edge, NodeKey};

use super::EdgeId;

/// How much a finding deserves a reviewer's attention. Orders from most to least severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    High,
    Medium,
    Low,
    Info,
}

impl Severity {
    pub const ALL: [Severity; 4] =
        [Severity::High, Severity::Medium, Severity::Low, Severity::Info];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
            Severity::Info => "info",
        }
    }

    pub fn parse(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// One level less severe; `info` stays `info`.
    pub fn lowered(self) -> Severity {
        match self {
            Severity::High => Severity::Medium,
            Severity::Medium => Severity::Low,
            Severity::Low | Severity::Info => Severity::Info,
        }
    }
}

/// The kinds of finding, in ranking order within a severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingKind {
    /// A violation of an architecture rule of the repository's `cartograph.toml` (see
    /// [`crate::policy`]) that the change introduces (in `cartograph diff`) or that the tree has
    /// (in `cartograph check`), not accepted by the baseline. Its severity is the rule's: error →
    /// high, warning → medium, info → low. Built by the query layer, not by the diff's rules.
    RuleViolation,
    /// Info. A rule violation of base that head no longer has: debt paid.
    RuleViolationFixed,
    /// Low. A baseline entry that no longer fires (its violation is gone, or its rule is): the
    /// baseline should shrink by it.
    StaleBaseline,
    /// High. A route served in base is served by no route in head — not even by a head route of
    /// the same template whose method serves it (`ANY`, or `GET` for `HEAD`). Subject: the route;
    /// edges: its base `serves` edges. A possible breaking API change.
    RouteRemoved,
    /// High. A removed route (as above) was called in base by a module that still exists in head
    /// and whose call is evidently still there: in head the module has an `unmatched-call`
    /// refusal for the same method and template (the call reaches nothing), or a `possible` call
    /// to a route the removed path meets only by a literal segment meeting a parameter (the call
    /// `GET /orders/export` now lands on `GET /orders/{}` by accident) — that edge new in head,
    /// or its evidence naming the removed path. One finding per route and calling module. Also,
    /// defensively, a head `calls` edge to a route that no head module serves. Subject: the
    /// route; edges: the base call, and the head call that lands by accident.
    CallToRemovedRoute,
    /// Low. A route served in head and not in base. New API surface (authentication, input
    /// validation, clients) deserves a look, but it breaks nothing by itself. Subject: the route;
    /// edges: its head `serves` edges. When a `new-cross-language-call` or `new-call` finding
    /// names the same route, that finding reports the route too and this one is
    /// [covered](Finding::covered_by) (severity `info`, by the cross-language one when both
    /// name it): it stays so that `--fail-on route-added` still trips.
    RouteAdded,
    /// Medium. `calls` edges new in head from modules to a route whose every serving module is
    /// written in another language family (Python, or JavaScript/TypeScript — one family, since
    /// a TypeScript app calling its own JavaScript handlers does not cross a stack boundary).
    /// Calls to externals are not this kind, nor is a stale call already reported as
    /// `call-to-removed-route`. One finding per route, naming every new caller; when the route
    /// itself is new the message says so (and covers its `route-added` finding). Subject: the
    /// route; edges: the calls and the head `serves` edges that give the server's language.
    NewCrossLanguageCall,
    /// Low. `calls` edges new in head from modules to a served route that are not
    /// `new-cross-language-call`: the caller and a serving module are of one language family
    /// (a Next.js page calling its own API route, an Angular service calling NestJS), or the
    /// caller's or a server's language is unknown. Same rules otherwise: never for a stale call,
    /// one finding per route naming every such caller, the message says when the route is new
    /// (and covers its `route-added` finding). An edge makes one call finding, never both kinds.
    /// Subject: the route; edges: the calls and the head `serves` edges.
    NewCall,
    /// Medium. A table node new in head. Subject: the table; edges: its head `defines`, `reads`
    /// and `writes` edges.
    NewTable,
    /// Medium. A `writes` edge new in head, to a table old or new. Subject: the table; edges: the
    /// write. A write to a table that is itself new is [covered](Finding::covered_by) by the
    /// `new-table` finding, which names the table's writers (severity `info`).
    NewTableWrite,
    /// Low. An environment variable new in head. Subject: the variable; edges: its head
    /// `reads_env` edges.
    NewEnvVar,
    /// Medium. An external scheme and host that no base external node has. Several paths on one
    /// new host are one finding. Subject: `external:scheme://host`; edges: the head calls to it.
    NewExternalService,
    /// Low. A third-party package (`pypi:` or `npm:`; built-in modules are not third-party) new
    /// in head with an `imports` edge to it. Subject: the package; edges: the head imports.
    NewPackage,
    /// Medium. A runtime import cycle in head that no base cycle equals or contains: a cycle that
    /// only shrank, or is part of one that existed, adds no new mutual dependency. A head cycle
    /// that shares modules with base cycles grew (or merged them): its message says from how
    /// many modules to how many, and how many joined and left, rather than calling it new.
    /// Subject: the cycle's first module; edges: the head runtime imports among its modules, new
    /// ones first, at most [`MAX_CYCLE_EDGES`].
    NewCycle,
    /// Low. A runtime module-to-module import in head between two components, for a (from, to)
    /// component pair that no base runtime import joins. Subject: the importing component; edges:
    /// the first [`MAX_COMPONENT_EDGES`] such imports (production code before tests and
    /// examples, then by identity), the total in the message.
    NewComponentDependency,
}

/// The most import edges a `new-cycle` finding names.
pub const MAX_CYCLE_EDGES: usize = 20;
/// The most import edges a `new-component-dependency` finding names.
pub const MAX_COMPONENT_EDGES: usize = 5;

impl FindingKind {
    pub const ALL: [FindingKind; 15] = [
        FindingKind::RuleViolation,
        FindingKind::RuleViolationFixed,
        FindingKind::StaleBaseline,
        FindingKind::RouteRemoved,
        FindingKind::CallToRemovedRoute,
        FindingKind::RouteAdded,
        FindingKind::NewCrossLanguageCall,
        FindingKind::NewCall,
        FindingKind::NewTable,
        FindingKind::NewTableWrite,
        FindingKind::NewEnvVar,
        FindingKind::NewExternalService,
        FindingKind::NewPackage,
        FindingKind::NewCycle,
        FindingKind::NewComponentDependency,
    ];

    /// The stable name used in documents and in `--fail-on`.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::RuleViolation => "rule-violation",
            FindingKind::RuleViolationFixed => "rule-violation-fixed",
            FindingKind::StaleBaseline => "stale-baseline",
            FindingKind::RouteRemoved => "route-removed",
            FindingKind::CallToRemovedRoute => "call-to-removed-route",
            FindingKind::RouteAdded => "route-added",
            FindingKind::NewCrossLanguageCall => "new-cross-language-call",
            FindingKind::NewCall => "new-call",
            FindingKind::NewTable => "new-table",
            FindingKind::NewTableWrite => "new-table-write",
            FindingKind::NewEnvVar => "new-env-var",
            FindingKind::NewExternalService => "new-external-service",
            FindingKind::NewPackage => "new-package",
            FindingKind::NewCycle => "new-cycle",
            FindingKind::NewComponentDependency => "new-component-dependency",
        }
    }

    pub fn parse(name: &str) -> Option<FindingKind> {
        FindingKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether findings of this kind come from a repository's rules (`rule-violation`,
    /// `rule-violation-fixed`, `stale-baseline`) rather than from the diff of two graphs.
    pub fn from_rules(self) -> bool {
        matches!(
            self,
            FindingKind::RuleViolation
                | FindingKind::RuleViolationFixed
                | FindingKind::StaleBaseline
        )
    }

    /// A short phrase for prose: `route removed`, `new table write`.
    pub fn label(self) -> &'static str {
        match self {
            FindingKind::RuleViolation => "rule violation",
            FindingKind::RuleViolationFixed => "rule violation fixed",
            FindingKind::StaleBaseline => "stale baseline entry",
            FindingKind::RouteRemoved => "route removed",
            FindingKind::CallToRemovedRoute => "call to removed route",
            FindingKind::RouteAdded => "route added",
            FindingKind::NewCrossLanguageCall => "new cross-language call",
            FindingKind::NewCall => "new call to a route",
            FindingKind::NewTable => "new table",
            FindingKind::NewTableWrite => "new table write",
            FindingKind::NewEnvVar => "new env var",
            FindingKind::NewExternalService => "new external service",
            FindingKind::NewPackage => "new package",
            FindingKind::NewCycle => "new import cycle",
            FindingKind::NewComponentDependency => "new component dependency",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            FindingKind::RuleViolation
            | FindingKind::RouteRemoved
            | FindingKind::CallToRemovedRoute => Severity::High,
            FindingKind::RuleViolationFixed => Severity::Info,
            FindingKind::NewCrossLanguageCall
            | FindingKind::NewTable
            | FindingKind::NewTableWrite
            | FindingKind::NewExternalService
            | FindingKind::NewCycle => Severity::Medium,
            FindingKind::RouteAdded
            | FindingKind::NewCall
            | FindingKind::NewEnvVar
            | FindingKind::NewPackage
            | FindingKind::NewComponentDependency
            | FindingKind::StaleBaseline => Severity::Low,
        }
    }
}

/// The side of the diff an edge was found on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    Base,
    Head,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Base => "base",
            Side::Head => "head",
        }
    }
}

/// An edge that justifies a finding, with the side it exists on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRef {
    pub side: Side,
    pub edge: Edge,
}

impl EdgeRef {
    pub(super) fn rank(&self) -> (Side, EdgeId<'_>) {
        (self.side, self.edge.identity())
    }
}

/// What a finding is about: a node, or a component (which is not a node).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    Node(NodeKey),
    Component(String),
}

impl Subject {
    /// The document form: a node id (`route:GET /items/{}`) or `component:NAME`.
    pub fn id(&self) -> String {
        match self {
            Subject::Node(key) => key.id(),
            Subject::Component(name) => format!("component:{name}"),
        }
    }

    /// The name without its kind, for prose.
    pub fn name(&self) -> &str {
        match self {
            Subject::Node(key) => key.name(),
            Subject::Component(name) => name,
        }
    }
}

/// Another finding that reports the same change in full, so that a reader (and a count by
/// severity) meets the change once: a new route that is also the target of a new call (across
/// languages or not) is covered by that call's finding; a new write to a table that is itself new is covered
/// by the `new-table` finding, which names its writers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoveredBy {
    pub kind: FindingKind,
    pub subject: Subject,
}

/// One thing a reviewer should look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    /// `kind.severity()`, one level lower when only test or example code (or a reserved example
    /// host) justifies the finding, and `info` when another finding covers it. The message says
    /// why whenever it is not `kind.severity()`.
    pub severity: Severity,
    pub subject: Subject,
    /// One sentence naming identities only.
    pub message: String,
    /// The edges that justify the finding, never empty, the most telling first: the call before
    /// the `serves` edges that place its target, a table's `defines` before its uses, a cycle's
    /// new imports before its old ones; identity order otherwise.
    pub edges: Vec<EdgeRef>,
    /// Set when another finding reports the same change in full. The finding stays, with its
    /// kind, so that `--fail-on` on its kind still trips; its severity is `info`.
    pub covered_by: Option<CoveredBy>,
}

impl Finding {
    /// A finding of `kind`; `edges` in the order given (each rule builds it deterministically),
    /// duplicates dropped.
    pub(super) fn new(
        kind: FindingKind,
        subject: Subject,
        message: String,
        edges: Vec<EdgeRef>,
    ) -> Self {
        let mut seen = BTreeSet::new();
        let edges = edges
            .into_iter()
            .filter(|e| seen.insert((e.side, e.edge.kind, e.edge.from.clone(), e.edge.to.clone())))
            .collect();
        Self { kind, severity: kind.severity(), subject, message, edges, covered_by: None }
    }
}
