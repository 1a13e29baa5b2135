//! The `--fail-on` gate of a diff: which finding kinds fail a CI run (exit code 1), and which
//! findings of a diff met it. A policy over the diff's findings, so it lives here rather than in
//! a front end; the front end only words the flag.

use std::collections::BTreeSet;
use std::fmt;

use cartograph_graph::FindingKind;
use cartograph_report::diff::{DiffDocument, FindingDoc};
use cartograph_report::words::plural;

/// The finding kinds a diff fails on: `any`, or a set of kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FailOn {
    any: bool,
    kinds: BTreeSet<String>,
    /// `rule:ID`: rule violations of these rules.
    rules: BTreeSet<String>,
}

/// Why the values of a gate name nothing it can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownFindingKind {
    /// A value that is neither `any`, `rule:ID` nor a finding kind.
    #[error("`{value}` is not a finding kind; use `any`, `rule:ID` or one of: {}", known_kinds())]
    Unknown { value: String },
    /// Values were given, and every one is blank (`--fail-on ''`): a gate that could never be
    /// met, which a CI run would otherwise pass silently.
    #[error("is empty; name what fails the run: `any`, `rule:ID` or one of: {}", known_kinds())]
    Empty,
}

fn known_kinds() -> String {
    let known: Vec<&str> = FindingKind::ALL.iter().map(|k| k.as_str()).collect();
    known.join(", ")
}

impl FailOn {
    /// Reads the values given, each `any` or a finding kind (trimmed; a blank value beside others
    /// is ignored, as a trailing comma is). No values is a gate nothing meets; values that are all
    /// blank are an error.
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Self, UnknownFindingKind> {
        if !values.is_empty() && values.iter().all(|v| v.as_ref().trim().is_empty()) {
            return Err(UnknownFindingKind::Empty);
        }
        let mut gate = Self::default();
        for value in values.iter().map(|v| v.as_ref().trim()).filter(|v| !v.is_empty()) {
            if value == "any" {
                gate.any = true;
            } else if let Some(id) = value.strip_prefix("rule:").filter(|id| !id.is_empty()) {
                gate.rules.insert(id.to_owned());
            } else if FindingKind::parse(value).is_some() {
                gate.kinds.insert(value.to_owned());
            } else {
                return Err(UnknownFindingKind::Unknown { value: value.to_owned() });
            }
        }
        Ok(gate)
    }

    /// Whether a finding of `kind` meets the gate.
    pub fn matches(&self, kind: &str) -> bool {
        self.any || self.kinds.contains(kind)
    }

    /// Whether nothing can meet the gate (no value was given).
    pub fn is_empty(&self) -> bool {
        !self.any && self.kinds.is_empty() && self.rules.is_empty()
    }

    /// The rule ids named with `rule:ID`, in name order.
    pub fn rule_ids(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(String::as_str)
    }

    /// Whether a finding meets the gate: by its kind, or as a violation of a rule named.
    pub fn meets(&self, finding: &FindingDoc) -> bool {
        self.matches(&finding.kind)
            || (finding.kind == FindingKind::RuleViolation.as_str()
                && finding.rule.as_ref().is_some_and(|r| self.rules.contains(&r.id)))
    }

    /// The findings of `doc` that meet the gate, or `None` when none does.
    pub fn met(&self, doc: &DiffDocument) -> Option<GateMet> {
        self.met_by(&doc.findings)
    }

    /// The findings that meet the gate, or `None` when none does.
    pub fn met_by(&self, findings: &[FindingDoc]) -> Option<GateMet> {
        let met: Vec<&str> =
            findings.iter().filter(|f| self.meets(f)).map(|f| f.kind.as_str()).collect();
        if met.is_empty() {
            return None;
        }
        let kinds: BTreeSet<&str> = met.iter().copied().collect();
        Some(GateMet { findings: met.len(), kinds: kinds.into_iter().map(str::to_owned).collect() })
    }
}

/// The findings that met a gate: `2 findings of kind route-removed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateMet {
    pub findings: usize,
    /// Their kinds, each once, in name order.
    pub kinds: Vec<String>,
}

impl fmt::Display for GateMet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} finding{} of kind {}",
            self.findings,
            plural(self.findings),
            self.kinds.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_any_or_finding_kinds() {
        let gate = FailOn::parse(&[" route-removed ", "", "new-cycle"]).expect("kinds");
        assert!(gate.matches("route-removed") && gate.matches("new-cycle"));
        assert!(!gate.matches("new-table"));
        assert!(FailOn::parse(&["any"]).expect("any").matches("new-table"));
        assert!(!FailOn::parse::<&str>(&[]).expect("none").matches("new-table"));
        let gate = FailOn::parse(&["rule:web-not-backend"]).expect("rule");
        assert_eq!(gate.rule_ids().collect::<Vec<_>>(), ["web-not-backend"]);
        assert!(!gate.matches("rule-violation") && !gate.is_empty());
        assert!(FailOn::parse(&["rule:"]).is_err());
        assert_eq!(FailOn::parse(&[""]), Err(UnknownFindingKind::Empty));
        assert_eq!(FailOn::parse(&[" ", ""]), Err(UnknownFindingKind::Empty));
        let error = FailOn::parse(&["route-gone"]).expect_err("unknown");
        let message = error.to_string();
        assert!(
            message.starts_with(
                "`route-gone` is not a finding kind; use `any`, `rule:ID` or one of: "
            )
        );
        assert!(message.contains("route-removed"), "{message}");
    }

    #[test]
    fn what_met_the_gate_is_counted_with_its_kinds_once() {
        let met = GateMet { findings: 1, kinds: vec!["new-cycle".to_owned()] };
        assert_eq!(met.to_string(), "1 finding of kind new-cycle");
        let met = GateMet {
            findings: 3,
            kinds: vec!["new-cycle".to_owned(), "route-removed".to_owned()],
        };
        assert_eq!(met.to_string(), "3 findings of kind new-cycle, route-removed");
    }
}
