//! Architecture rules in documents: the findings that report violations, the `baseline` document
//! that accepts today's violations by identity, and the `check` document of one tree.
//!
//! A baseline is a committed, reviewed file, so it is written for review: entries sorted by rule
//! and identity, each with the sentence that says what it accepts, and no tool version (which
//! would change the file on every release).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use cartograph_graph::FindingKind;
use cartograph_graph::diff::Side;
use cartograph_graph::policy::{Policy, Rule, Violation};
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;
use crate::diff::{DiffDocument, EdgeRefDoc, FindingDoc, FindingRuleDoc, TreeDoc};
use crate::diff_markdown::escape::{code, text, text_with_code};
use crate::words::plural;

pub const BASELINE_SCHEMA: &str = "baseline";
pub const BASELINE_VERSION: &str = "1.0";
pub const CHECK_SCHEMA: &str = "check";
pub const CHECK_VERSION: &str = "1.1";

/// A rule as documents describe it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RuleDoc {
    pub id: String,
    /// `forbidden`, `allowed-only`, `layers`, `independent`, `no-cycles`, `max-fan-in`,
    /// `max-fan-out`.
    pub kind: String,
    /// `error`, `warning` or `info`.
    pub severity: String,
    pub reason: String,
}

impl RuleDoc {
    pub fn from_rule(rule: &Rule) -> Self {
        Self {
            id: rule.id.clone(),
            kind: rule.kind.name().to_owned(),
            severity: rule.severity.as_str().to_owned(),
            reason: rule.reason.clone(),
        }
    }

    /// Every rule of a policy, in the order written.
    pub fn all(policy: &Policy) -> Vec<RuleDoc> {
        policy.rules.iter().map(RuleDoc::from_rule).collect()
    }
}

/// The finding that reports `violation` of `rule`: a `rule-violation` with the rule's severity,
/// or (`fixed`) a `rule-violation-fixed` of the base tree at `info`.
pub fn violation_finding(
    violation: &Violation,
    rule: &Rule,
    side: Side,
    fixed: bool,
) -> FindingDoc {
    let (kind, severity, message) = if fixed {
        (FindingKind::RuleViolationFixed, "info", format!("fixed: {}", violation.message))
    } else {
        let severity = rule.severity.finding_severity().as_str();
        (FindingKind::RuleViolation, severity, violation.message.clone())
    };
    FindingDoc {
        kind: kind.as_str().to_owned(),
        severity: severity.to_owned(),
        subject: violation.subject.id(),
        message,
        edges: violation
            .edges
            .iter()
            .map(|edge| {
                EdgeRefDoc::from_ref(&cartograph_graph::diff::EdgeRef { side, edge: edge.clone() })
            })
            .collect(),
        covered_by: None,
        rule: Some(FindingRuleDoc { id: rule.id.clone(), identity: violation.identity.clone() }),
    }
}

/// The finding that reports a baseline entry that no longer fires; `rule_known` says whether the
/// rules file still has its rule.
pub fn stale_finding(entry: &BaselineEntryDoc, rule_known: bool) -> FindingDoc {
    let why =
        if rule_known { "no longer fires" } else { "names a rule the rules file no longer has" };
    FindingDoc {
        kind: FindingKind::StaleBaseline.as_str().to_owned(),
        severity: FindingKind::StaleBaseline.severity().as_str().to_owned(),
        subject: format!("rule:{}", entry.rule),
        message: format!("baseline entry of rule `{}` {why}: {}", entry.rule, entry.identity),
        edges: Vec::new(),
        covered_by: None,
        rule: Some(FindingRuleDoc { id: entry.rule.clone(), identity: entry.identity.clone() }),
    }
}

/// Orders findings by severity, then kind order, with a stable sort: among equals, findings keep
/// the order they came in (a diff's own ranking; rule findings by rule, then identity).
pub fn rank_findings(findings: &mut [FindingDoc]) {
    let kind_rank =
        |k: &str| FindingKind::ALL.iter().position(|x| x.as_str() == k).unwrap_or(usize::MAX);
    let severity_rank = |s: &str| ["high", "medium", "low", "info"].iter().position(|x| *x == s);
    findings.sort_by(|a, b| {
        (severity_rank(&a.severity), kind_rank(&a.kind))
            .cmp(&(severity_rank(&b.severity), kind_rank(&b.kind)))
    });
}

/// The accepted violations of a repository.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BaselineDocument {
    pub schema: String,
    pub schema_version: String,
    /// Sorted by rule, then identity; each pair once.
    pub entries: Vec<BaselineEntryDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BaselineEntryDoc {
    pub rule: String,
    pub identity: String,
    /// What the entry accepts, for the reviewer of the baseline; not compared.
    pub message: String,
}

/// Why a file is not a baseline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaselineError {
    #[error("is not a baseline: it is not valid JSON (line {line}, column {column})")]
    NotJson { line: usize, column: usize },
    #[error("is not a baseline document (write one with `cartograph baseline write`)")]
    NotBaseline,
    #[error("was written with baseline schema {0}, which this Cartograph does not read")]
    Version(String),
}

impl BaselineDocument {
    /// A baseline accepting every violation given.
    pub fn from_violations(policy: &Policy, violations: &[Violation]) -> Self {
        let mut entries: Vec<BaselineEntryDoc> = violations
            .iter()
            .map(|v| BaselineEntryDoc {
                rule: policy.rules[v.rule].id.clone(),
                identity: v.identity.clone(),
                message: v.message.clone(),
            })
            .collect();
        entries.sort_by(|a, b| (&a.rule, &a.identity).cmp(&(&b.rule, &b.identity)));
        entries.dedup_by(|a, b| a.rule == b.rule && a.identity == b.identity);
        Self {
            schema: BASELINE_SCHEMA.to_owned(),
            schema_version: BASELINE_VERSION.to_owned(),
            entries,
        }
    }

    pub fn from_json(text: &str) -> Result<Self, BaselineError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| BaselineError::NotJson { line: e.line(), column: e.column() })?;
        if value.get("schema").and_then(serde_json::Value::as_str) != Some(BASELINE_SCHEMA) {
            return Err(BaselineError::NotBaseline);
        }
        let version = value.get("schema_version").and_then(serde_json::Value::as_str).unwrap_or("");
        if !version.starts_with("1.") {
            return Err(BaselineError::Version(version.chars().take(16).collect()));
        }
        serde_json::from_value(value).map_err(|_| BaselineError::NotBaseline)
    }

    /// The `(rule, identity)` pairs accepted.
    pub fn accepted(&self) -> BTreeSet<(&str, &str)> {
        self.entries.iter().map(|e| (e.rule.as_str(), e.identity.as_str())).collect()
    }
}

/// The violations of one tree, judged against a baseline: what is reported, what the baseline
/// accepts, and which of its entries no longer fire.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    /// Findings: new violations first (`rule-violation`), then `stale-baseline`, ranked.
    pub findings: Vec<FindingDoc>,
    /// Per rule id: (violations in the tree, of which the baseline accepts).
    pub counts: BTreeMap<String, (u64, u64)>,
    pub stale: u64,
}

/// Judges a tree's violations against a baseline (or none).
pub fn judge(
    policy: &Policy,
    violations: &[Violation],
    baseline: Option<&BaselineDocument>,
) -> Judged {
    let accepted = baseline.map(BaselineDocument::accepted).unwrap_or_default();
    let mut judged = Judged::default();
    for rule in &policy.rules {
        judged.counts.insert(rule.id.clone(), (0, 0));
    }
    for violation in violations {
        let rule = &policy.rules[violation.rule];
        let count = judged.counts.entry(rule.id.clone()).or_default();
        count.0 += 1;
        if accepted.contains(&pair(policy, violation)) {
            count.1 += 1;
        } else {
            judged.findings.push(violation_finding(violation, rule, Side::Head, false));
        }
    }
    let stale = stale_findings(policy, &firing(policy, violations), baseline);
    judged.stale = stale.len() as u64;
    judged.findings.extend(stale);
    rank_findings(&mut judged.findings);
    judged
}

/// The `(rule id, identity)` pairs that `violations` fire.
fn firing<'a>(policy: &'a Policy, violations: &'a [Violation]) -> BTreeSet<(&'a str, &'a str)> {
    violations.iter().map(|v| pair(policy, v)).collect()
}

/// A violation as a baseline names it: `(rule id, identity)`.
fn pair<'a>(policy: &'a Policy, violation: &'a Violation) -> (&'a str, &'a str) {
    (policy.rules[violation.rule].id.as_str(), violation.identity.as_str())
}

/// A `stale-baseline` finding for every baseline entry not among the pairs `firing`.
fn stale_findings(
    policy: &Policy,
    firing: &BTreeSet<(&str, &str)>,
    baseline: Option<&BaselineDocument>,
) -> Vec<FindingDoc> {
    let Some(baseline) = baseline else { return Vec::new() };
    baseline
        .entries
        .iter()
        .filter(|e| !firing.contains(&(e.rule.as_str(), e.identity.as_str())))
        .map(|e| stale_finding(e, policy.rules.iter().any(|r| r.id == e.rule)))
        .collect()
}

/// The `check` document: every violation of a tree's rules not accepted by its baseline, and
/// the baseline entries that no longer fire.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CheckDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    pub tree: TreeDoc,
    /// The baseline file read, as named beside the rules file; absent when there is none.
    pub baseline: Option<String>,
    pub rules: Vec<RuleCheckDoc>,
    pub summary: CheckSummaryDoc,
    /// Ranked: severity, then kind, then identity.
    pub findings: Vec<FindingDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RuleCheckDoc {
    #[serde(flatten)]
    pub rule: RuleDoc,
    /// Violations in the tree, baselined ones included.
    pub violations: u64,
    /// Of those, accepted by the baseline.
    pub baselined: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CheckSummaryDoc {
    pub rules: u64,
    pub violations: u64,
    pub baselined: u64,
    /// Violations reported: not accepted by the baseline.
    pub reported: u64,
    pub stale_baseline: u64,
    /// Reported violations by the rule severity: `error`, `warning`, `info`, every one present.
    pub reported_by_severity: BTreeMap<String, u64>,
}

impl CheckDocument {
    pub fn new(tree: TreeDoc, policy: &Policy, judged: Judged, baseline: Option<String>) -> Self {
        let mut by_severity: BTreeMap<String, u64> =
            ["error", "warning", "info"].iter().map(|s| ((*s).to_owned(), 0)).collect();
        let rules: Vec<RuleCheckDoc> = policy
            .rules
            .iter()
            .map(|rule| {
                let (violations, baselined) =
                    judged.counts.get(&rule.id).copied().unwrap_or_default();
                *by_severity.entry(rule.severity.as_str().to_owned()).or_default() +=
                    violations - baselined;
                RuleCheckDoc { rule: RuleDoc::from_rule(rule), violations, baselined }
            })
            .collect();
        let violations = rules.iter().map(|r| r.violations).sum();
        let baselined = rules.iter().map(|r| r.baselined).sum();
        Self {
            schema: CHECK_SCHEMA.to_owned(),
            schema_version: CHECK_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            tree,
            baseline,
            summary: CheckSummaryDoc {
                rules: rules.len() as u64,
                violations,
                baselined,
                reported: violations - baselined,
                stale_baseline: judged.stale,
                reported_by_severity: by_severity,
            },
            rules,
            findings: judged.findings,
        }
    }
}

/// The most findings the check report lists per rule (the JSON has them all).
pub const CHECK_MARKDOWN_PER_RULE: usize = 25;

/// The check report: a verdict, a table of rules, and each rule's violations with the edges that
/// break it.
pub fn render_check(doc: &CheckDocument) -> String {
    let s = &doc.summary;
    let mut out = String::from("## Cartograph architecture check\n\n");
    let verdict = if s.reported == 0 {
        format!("✅ All {} rule{} hold", s.rules, plural(s.rules as usize))
    } else {
        let breaking = doc.rules.iter().filter(|r| r.violations > r.baselined).count();
        format!(
            "❌ {} violation{} of {breaking} rule{}",
            s.reported,
            plural(s.reported as usize),
            plural(breaking)
        )
    };
    let _ = write!(out, "**{verdict}** in {}", code(&doc.tree.label));
    if let Some(baseline) = &doc.baseline {
        let _ = write!(out, " (baseline {})", code(baseline));
    }
    if s.baselined > 0 {
        let _ = write!(out, "; {} accepted by the baseline", s.baselined);
    }
    if s.stale_baseline > 0 {
        let _ = write!(
            out,
            "; {} stale baseline entr{} to remove",
            s.stale_baseline,
            if s.stale_baseline == 1 { "y" } else { "ies" }
        );
    }
    out.push_str(".\n\n| rule | kind | severity | violations | baselined | reason |\n|---|---|---|---:|---:|---|\n");
    for r in &doc.rules {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            code(&r.rule.id),
            r.rule.kind,
            r.rule.severity,
            r.violations,
            r.baselined,
            text(&r.rule.reason)
        );
    }
    for r in &doc.rules {
        let findings: Vec<&FindingDoc> = doc
            .findings
            .iter()
            .filter(|f| {
                f.kind == "rule-violation" && f.rule.as_ref().is_some_and(|x| x.id == r.rule.id)
            })
            .collect();
        if findings.is_empty() {
            continue;
        }
        let _ = write!(out, "\n### {} — {}\n\n", code(&r.rule.id), text(&r.rule.reason));
        for finding in findings.iter().take(CHECK_MARKDOWN_PER_RULE) {
            let _ = writeln!(out, "- {}", text_with_code(&finding.message));
            for edge in &finding.edges {
                let _ = writeln!(
                    out,
                    "  - {} ({})",
                    text(&edge.evidence),
                    code(&format!("{}:{}", edge.location.path, edge.location.line))
                );
            }
        }
        if findings.len() > CHECK_MARKDOWN_PER_RULE {
            let _ = writeln!(
                out,
                "- … and {} more (the JSON report has them all)",
                findings.len() - CHECK_MARKDOWN_PER_RULE
            );
        }
    }
    let stale: Vec<&FindingDoc> =
        doc.findings.iter().filter(|f| f.kind == "stale-baseline").collect();
    if !stale.is_empty() {
        out.push_str("\n### Stale baseline entries\n\nThese no longer fire: remove them (`cartograph baseline write` rewrites the file).\n\n");
        for finding in stale {
            if let Some(rule) = &finding.rule {
                let _ = writeln!(out, "- {}: {}", code(&rule.id), code(&rule.identity));
            }
        }
    }
    out
}

/// What a rule kind (by its name in the rules file) forbids, for rule metadata (SARIF).
pub fn rule_kind_help(kind: &str) -> &'static str {
    match kind {
        "forbidden" => "No edge of the rule's kinds may go from `from` to `to`.",
        "allowed-only" => "Edges of the rule's kinds from `from` may reach only `to`.",
        "layers" => "Each layer may depend only on the layers below it.",
        "independent" => "The members may not depend on one another.",
        "no-cycles" => "No dependency cycle within the scope.",
        "max-fan-in" => "No component may have more dependents than `max`.",
        _ => "No component may depend on more components than `max`.",
    }
}

/// Adds to a diff document the rule findings of a change: violations head has and base has not
/// (less those the baseline accepts), violations base had and head has not, and the baseline
/// entries head no longer fires; and the rules, and a verdict that names the rules broken first.
pub fn attach_to_diff(
    doc: &mut DiffDocument,
    policy: &Policy,
    base: &[Violation],
    head: &[Violation],
    baseline: Option<&BaselineDocument>,
) {
    let before = firing(policy, base);
    let after = firing(policy, head);
    let accepted = baseline.map(BaselineDocument::accepted).unwrap_or_default();
    let mut added = Vec::new();
    for v in head
        .iter()
        .filter(|v| !before.contains(&pair(policy, v)) && !accepted.contains(&pair(policy, v)))
    {
        added.push(violation_finding(v, &policy.rules[v.rule], Side::Head, false));
    }
    let introduced = added.len();
    for v in base.iter().filter(|v| !after.contains(&pair(policy, v))) {
        added.push(violation_finding(v, &policy.rules[v.rule], Side::Base, true));
    }
    let fixed = added.len() - introduced;
    let stale_found = stale_findings(policy, &after, baseline);
    let stale = stale_found.len();
    added.extend(stale_found);
    for finding in &added {
        *doc.summary.findings_by_severity.entry(finding.severity.clone()).or_default() += 1;
        *doc.summary.findings_by_kind.entry(finding.kind.clone()).or_default() += 1;
    }
    doc.findings.extend(added);
    rank_findings(&mut doc.findings);
    doc.rules = Some(RuleDoc::all(policy));
    let mut told = Vec::new();
    if introduced > 0 {
        let broken: BTreeSet<&str> = doc
            .findings
            .iter()
            .filter(|f| f.kind == "rule-violation")
            .filter_map(|f| f.rule.as_ref().map(|r| r.id.as_str()))
            .collect();
        let rules = if broken.len() <= 3 {
            let names: Vec<String> = broken.iter().map(|id| format!("`{id}`")).collect();
            format!("architecture rule{} {}", plural(broken.len()), names.join(", "))
        } else {
            format!("{} architecture rules", broken.len())
        };
        told.push(format!("Breaks {rules} ({introduced} new violation{})", plural(introduced)));
    }
    if fixed > 0 {
        told.push(format!("fixes {fixed} rule violation{}", plural(fixed)));
    }
    if stale > 0 {
        told.push(format!(
            "{stale} baseline entr{} no longer fire{}",
            if stale == 1 { "y" } else { "ies" },
            if stale == 1 { "s" } else { "" }
        ));
    }
    if !told.is_empty() {
        let mut first = told.join("; ");
        if let Some(c) = first.get(..1) {
            first = c.to_uppercase() + &first[1..];
        }
        doc.verdict = format!("{first}. {}", doc.verdict);
    }
}
