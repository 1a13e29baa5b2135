//! The architecture-rules section of the pull-request report: first after the counts, one row per
//! rule the change breaks, each violation with the file and line that breaks it; then the
//! violations it fixes and the baseline entries that no longer fire. The rule findings stay in the
//! JSON one by one; in Markdown they are told here and not again in the findings table.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::escape::{code, text, text_with_code};
use crate::diff::{DiffDocument, FindingDoc};
use crate::words::plural;

/// The most violations listed per rule, and in the whole section; the rest are counted.
pub(crate) const PER_RULE: usize = 5;
pub(crate) const IN_ALL: usize = 30;

/// Whether a finding is told by this section rather than the findings table.
pub(crate) fn is_rule_finding(finding: &FindingDoc) -> bool {
    matches!(finding.kind.as_str(), "rule-violation" | "rule-violation-fixed" | "stale-baseline")
}

/// The section, or an empty string when the diff has no rule finding.
pub(crate) fn render(doc: &DiffDocument) -> String {
    let rule_findings: Vec<&FindingDoc> =
        doc.findings.iter().filter(|f| is_rule_finding(f)).collect();
    if rule_findings.is_empty() {
        return String::new();
    }
    let of_kind =
        |kind: &'static str| rule_findings.iter().copied().filter(move |f| f.kind == kind);
    // New violations by rule, rules in the rules file's order (then by id for a rule not listed).
    let order: BTreeMap<&str, usize> =
        doc.rules.iter().flatten().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
    let mut by_rule: BTreeMap<(usize, &str), Vec<&FindingDoc>> = BTreeMap::new();
    for finding in of_kind("rule-violation") {
        let Some(rule) = &finding.rule else { continue };
        let rank = order.get(rule.id.as_str()).copied().unwrap_or(usize::MAX);
        by_rule.entry((rank, rule.id.as_str())).or_default().push(finding);
    }
    let new: usize = by_rule.values().map(Vec::len).sum();
    let fixed = of_kind("rule-violation-fixed").count();
    let stale: Vec<&FindingDoc> = of_kind("stale-baseline").collect();
    let mut parts = Vec::new();
    if new > 0 {
        parts.push(format!(
            "**{new} new violation{} of {} rule{}**",
            plural(new),
            by_rule.len(),
            plural(by_rule.len())
        ));
    }
    if fixed > 0 {
        parts.push(format!("{fixed} fixed"));
    }
    if !stale.is_empty() {
        parts.push(format!(
            "{} stale baseline entr{}",
            stale.len(),
            if stale.len() == 1 { "y" } else { "ies" }
        ));
    }
    let mut out = format!("#### 📏 Architecture rules: {}\n\n", parts.join(" · "));
    if new > 0 {
        out.push_str("| rule | severity | violation | where |\n|---|---|---|---|\n");
        let mut listed = 0usize;
        for ((rank, id), findings) in &by_rule {
            let reason = doc
                .rules
                .iter()
                .flatten()
                .nth(*rank)
                .map(|r| format!("<br>{}", text(&r.reason)))
                .unwrap_or_default();
            for (i, finding) in findings.iter().enumerate() {
                if i == PER_RULE || listed == IN_ALL {
                    let rest = findings.len() - i;
                    let _ = writeln!(out, "| {} | | … and {rest} more | |", code(id));
                    break;
                }
                listed += 1;
                let rule_cell =
                    if i == 0 { format!("{}{reason}", code(id)) } else { String::new() };
                let severity = if i == 0 { severity_word(&finding.severity) } else { "" };
                let _ = writeln!(
                    out,
                    "| {rule_cell} | {severity} | {} | {} |",
                    text_with_code(&without_rule_suffix(&finding.message)),
                    where_(finding)
                );
            }
        }
        out.push('\n');
    }
    if !stale.is_empty() {
        out.push_str("Stale baseline entries (the baseline should shrink by them; `cartograph baseline write` rewrites it): ");
        let names: Vec<String> = stale
            .iter()
            .filter_map(|f| f.rule.as_ref())
            .take(IN_ALL)
            .map(|r| format!("{} {}", code(&r.id), code(&r.identity)))
            .collect();
        out.push_str(&names.join("; "));
        if stale.len() > IN_ALL {
            let _ = write!(out, "; and {} more", stale.len() - IN_ALL);
        }
        out.push_str(".\n\n");
    }
    out
}

/// `high` → `error`: the rule's own word for the severity it gave.
fn severity_word(severity: &str) -> &'static str {
    match severity {
        "high" => "🔴&nbsp;error",
        "medium" => "🟠&nbsp;warning",
        _ => "🟡&nbsp;info",
    }
}

/// A violation's message without its trailing ` (rule `id`)`, which the row's rule cell says.
fn without_rule_suffix(message: &str) -> String {
    match message.rfind(" (rule `") {
        Some(i) if message.ends_with("`)") => message[..i].to_owned(),
        _ => message.to_owned(),
    }
}

/// The file and line of the first edge that breaks the rule.
fn where_(finding: &FindingDoc) -> String {
    match finding.edges.first() {
        Some(edge) if edge.location.line > 0 => {
            code(&format!("{}:{}", edge.location.path, edge.location.line))
        }
        Some(edge) => code(&edge.location.path),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_drops_the_rule_suffix_its_cell_says() {
        assert_eq!(without_rule_suffix("a.ts imports b.ts (rule `x`)"), "a.ts imports b.ts");
        assert_eq!(without_rule_suffix("a (rule `x`) b"), "a (rule `x`) b");
        assert_eq!(severity_word("medium"), "🟠&nbsp;warning");
    }
}
