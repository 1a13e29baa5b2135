//! A rules check as terminal text: the verdict first (all rules hold, or how many violations of
//! how many rules), then the violations grouped by severity, one line each with the rule and where
//! it is, then the rules with their counts and the stale baseline entries. With evidence, each
//! violation lists the edges that break the rule.

use super::page::{Page, Role};
use super::{TextOptions, at, more_note};
use crate::diff::FindingDoc;
use crate::rules::CheckDocument;
use crate::words::plural;

/// Violations shown per severity without evidence; the rest are counted.
const PER_SEVERITY: usize = 20;

/// The rule severities and the finding severities they give (`RuleSeverity::finding_severity`).
const SEVERITIES: [(&str, &str); 3] = [("high", "Errors"), ("medium", "Warnings"), ("low", "Info")];

/// Renders a check document as terminal text.
pub fn render_check(doc: &CheckDocument, options: &TextOptions) -> String {
    let mut page = Page::new(options.width);
    let s = &doc.summary;
    let (mark, role, verdict) = if s.reported == 0 {
        ("✔", Role::Good, format!("All {} rule{} hold", s.rules, plural(s.rules as usize)))
    } else {
        let breaking = doc.rules.iter().filter(|r| r.violations > r.baselined).count();
        let errors = s.reported_by_severity.get("error").copied().unwrap_or(0);
        let role = if errors > 0 { Role::High } else { Role::Medium };
        let verdict = format!(
            "{} violation{} of {breaking} rule{}",
            s.reported,
            plural(s.reported as usize),
            plural(breaking)
        );
        ("✖", role, verdict)
    };
    let mut context = format!(" in {}", doc.tree.label);
    if let Some(baseline) = &doc.baseline {
        context.push_str(&format!(" (baseline {baseline})"));
    }
    if s.baselined > 0 {
        context.push_str(&format!("; {} accepted by the baseline", s.baselined));
    }
    if s.stale_baseline > 0 {
        context.push_str(&format!(
            "; {} stale baseline entr{} to remove",
            s.stale_baseline,
            if s.stale_baseline == 1 { "y" } else { "ies" }
        ));
    }
    page.para(
        0,
        2,
        &[(role, mark), (Role::Plain, " "), (Role::Strong, &verdict), (Role::Plain, &context)],
    );

    let violations: Vec<&FindingDoc> =
        doc.findings.iter().filter(|f| f.kind == "rule-violation").collect();
    let cap = if options.evidence { usize::MAX } else { PER_SEVERITY };
    for (severity, title) in SEVERITIES {
        let of: Vec<&&FindingDoc> = violations.iter().filter(|f| f.severity == severity).collect();
        if of.is_empty() {
            continue;
        }
        page.blank();
        let role = Role::of_severity(severity);
        page.para(0, 0, &[(role, title), (Role::Dim, &format!(" ({})", of.len()))]);
        for f in of.iter().take(cap) {
            let rule = f.rule.as_ref().map_or("", |r| r.id.as_str());
            page.para(
                2,
                4,
                &[
                    (role, "•"),
                    (Role::Plain, " "),
                    (Role::Strong, rule),
                    (Role::Plain, ": "),
                    (Role::Plain, &super::unquoted(&strip_rule(&f.message, rule))),
                ],
            );
            if options.evidence {
                for edge in &f.edges {
                    page.para(
                        4,
                        6,
                        &[
                            (Role::Dim, "-"),
                            (Role::Plain, " "),
                            (Role::Plain, &edge.evidence),
                            (Role::Dim, &format!(" ({})", at(&edge.location))),
                        ],
                    );
                }
            } else if let Some(first) = f.edges.first() {
                let more = f.edges.len() - 1;
                let mut line = format!("at {}", at(&first.location));
                if more > 0 {
                    line.push_str(&format!(" and {more} more edge{}", plural(more)));
                }
                page.para(4, 6, &[(Role::Dim, &line)]);
            }
        }
        if of.len() > cap {
            page.para(2, 4, &[(Role::Dim, &more_note(of.len() - cap, "violations"))]);
        }
    }

    page.blank();
    page.para(0, 0, &[(Role::Strong, "Rules"), (Role::Dim, &format!(" ({})", doc.rules.len()))]);
    let width = doc.rules.iter().map(|r| r.rule.id.chars().count()).max().unwrap_or(0).min(32);
    for r in &doc.rules {
        let mut detail = format!("{}, {}: ", r.rule.kind, r.rule.severity);
        detail.push_str(&match (r.violations, r.baselined) {
            (0, _) => String::from("holds"),
            (v, 0) => format!("{v} violation{}", plural(v as usize)),
            (v, b) => format!("{v} violation{} ({b} baselined)", plural(v as usize)),
        });
        page.field(2, width, &r.rule.id, &detail);
    }

    let stale: Vec<&FindingDoc> =
        doc.findings.iter().filter(|f| f.kind == "stale-baseline").collect();
    if !stale.is_empty() {
        page.blank();
        page.para(
            0,
            2,
            &[
                (Role::Strong, "Stale baseline entries"),
                (Role::Dim, " (no longer fire: cartograph baseline write removes them)"),
            ],
        );
        for finding in stale {
            if let Some(rule) = &finding.rule {
                page.para(
                    2,
                    4,
                    &[(Role::Plain, &rule.id), (Role::Plain, ": "), (Role::Dim, &rule.identity)],
                );
            }
        }
    }
    if !options.evidence && !violations.is_empty() {
        page.blank();
        page.para(
            0,
            2,
            &[(
                Role::Dim,
                "--evidence shows the edges that break each rule; --markdown writes the report, \
                 --json and --sarif everything.",
            )],
        );
    }
    page.finish(options.color)
}

/// A violation's message without its closing `(rule ID)`: the line names the rule first.
fn strip_rule(message: &str, rule: &str) -> String {
    let suffix = format!(" (rule `{rule}`)");
    message.strip_suffix(&suffix).unwrap_or(message).to_owned()
}
