//! A summary as terminal text: one line of headline counts, then one line per breakdown (files,
//! languages, nodes, edges, provenance, confidence, refusals), the import cycles, the largest
//! components and the most imported packages.

use std::collections::BTreeMap;

use super::page::{Page, Role};
use super::{TextOptions, more_note};
use crate::summary::SummaryDocument;
use crate::words::plural;

/// Entries of a list shown without evidence; the rest are counted.
const MAX_ENTRIES: usize = 15;

/// Renders a summary document as terminal text.
pub fn render_summary(doc: &SummaryDocument, options: &TextOptions) -> String {
    let mut page = Page::new(options.width);
    let s = &doc.stats;
    let count = |map: &BTreeMap<String, u64>, key: &str| map.get(key).copied().unwrap_or(0);
    let refusals: u64 = doc.refusals_by_kind.values().sum();
    page.para(0, 0, &[(Role::Strong, "Architecture summary")]);
    page.para(
        2,
        2,
        &[(
            Role::Plain,
            &format!(
                "{} modules, {} import edges, {} third-party packages, {} import cycle{}, {} \
                 refusal{}.",
                count(&doc.nodes_by_kind, "module"),
                count(&doc.edges_by_kind, "imports"),
                count(&doc.nodes_by_kind, "package"),
                doc.cycles.len(),
                plural(doc.cycles.len() as u64),
                refusals,
                plural(refusals),
            ),
        )],
    );
    if s.files_analysed == 0 {
        page.para(
            2,
            2,
            &[(
                Role::Medium,
                &format!(
                    "No analysable source files were found in this tree (Python, TypeScript or \
                     JavaScript); {} file{} seen, {} skipped with a refusal.",
                    s.files_seen,
                    plural(s.files_seen),
                    s.files_skipped
                ),
            )],
        );
    }
    page.blank();
    let files = format!(
        "{} seen · {} analysed · {} skipped (with a refusal) · {} with syntax-error regions",
        s.files_seen, s.files_analysed, s.files_skipped, s.files_with_error_regions
    );
    let rows: [(&str, String); 7] = [
        ("files", files),
        ("languages", counts(&s.files_by_language)),
        ("nodes", counts(&doc.nodes_by_kind)),
        ("edges", counts(&doc.edges_by_kind)),
        ("provenance", counts(&doc.edges_by_provenance)),
        ("confidence", counts(&doc.edges_by_confidence)),
        ("refusals", counts(&doc.refusals_by_kind)),
    ];
    for (label, value) in &rows {
        page.field(0, 10, label, value);
    }

    page.blank();
    page.para(0, 0, &[(Role::Strong, "Import cycles")]);
    if doc.cycles.is_empty() {
        page.para(2, 2, &[(Role::Plain, "none among runtime imports")]);
    }
    let cap = if options.evidence { usize::MAX } else { MAX_ENTRIES };
    for cycle in doc.cycles.iter().take(cap) {
        let names: Vec<&str> =
            cycle.modules.iter().map(|m| m.strip_prefix("module:").unwrap_or(m)).collect();
        page.para(2, 4, &[(Role::Plain, &format!("{} modules: {}", cycle.size, names.join(", ")))]);
    }
    left_out(&mut page, doc.cycles.len(), cap, "cycles");

    page.blank();
    page.para(0, 0, &[(Role::Strong, "Components")]);
    if doc.components.is_empty() {
        page.para(2, 2, &[(Role::Plain, "no modules")]);
    }
    let mut components: Vec<_> = doc.components.iter().collect();
    components.sort_by(|a, b| b.modules.cmp(&a.modules).then_with(|| a.name.cmp(&b.name)));
    for c in components.iter().take(cap) {
        let mut deps: Vec<_> = c.depends_on.iter().collect();
        deps.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let mut line = format!("{} module{}", c.modules, plural(c.modules));
        if c.packages > 0 {
            line.push_str(&format!(", {} package{}", c.packages, plural(c.packages)));
        }
        if !deps.is_empty() {
            let shown: Vec<String> =
                deps.iter().take(4).map(|(name, n)| format!("{name} ({n})")).collect();
            line.push_str(&format!("; depends on {}", shown.join(", ")));
            if deps.len() > 4 {
                line.push_str(&format!(" and {} more", deps.len() - 4));
            }
        }
        page.put(Role::Plain, "  ");
        page.put(Role::Strong, &c.name);
        page.put(Role::Plain, "  ");
        page.para(0, 6, &[(Role::Dim, &line)]);
    }
    left_out(&mut page, components.len(), cap, "components");

    page.blank();
    page.para(0, 0, &[(Role::Strong, "Third-party packages")]);
    if doc.packages.is_empty() {
        page.para(2, 2, &[(Role::Plain, "none")]);
    } else {
        let mut packages: Vec<_> = doc.packages.iter().collect();
        packages.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let shown: Vec<String> = packages
            .iter()
            .take(cap)
            .map(|(name, n)| format!("{} ({n})", name.strip_prefix("package:").unwrap_or(name)))
            .collect();
        page.para(2, 2, &[(Role::Plain, &shown.join(", "))]);
        left_out(&mut page, packages.len(), cap, "packages");
    }
    super::coverage(&mut page, &doc.coverage, "Coverage: what was not seen");
    page.finish(options.color)
}

/// `python 12 · typescript 3`: the entries that are not zero, or `none`.
fn counts(map: &BTreeMap<String, u64>) -> String {
    let parts: Vec<String> =
        map.iter().filter(|(_, n)| **n > 0).map(|(k, n)| format!("{k} {n}")).collect();
    if parts.is_empty() { String::from("none") } else { parts.join(" · ") }
}

fn left_out(page: &mut Page, total: usize, cap: usize, what: &str) {
    if total > cap {
        page.para(2, 4, &[(Role::Dim, &more_note(total - cap, what))]);
    }
}
