//! Markdown rendering of documents, for a terminal, a job summary or a pull-request comment.
//!
//! Tables are bounded: long lists show their first rows and say how many were left out.

use std::fmt::Write as _;

use crate::summary::SummaryDocument;
use crate::words::plural;

/// Rows shown in a table before the rest is summarised.
const MAX_ROWS: usize = 25;

/// Renders a summary.
pub fn render_summary(doc: &SummaryDocument) -> String {
    let mut out = String::new();
    let s = &doc.stats;
    let count = |map: &std::collections::BTreeMap<String, u64>, key: &str| {
        map.get(key).copied().unwrap_or(0)
    };
    let refusals: u64 = doc.refusals_by_kind.values().sum();
    let _ = writeln!(out, "# Architecture summary\n");
    if s.files_analysed == 0 {
        let _ = writeln!(
            out,
            "No analysable source files were found in this tree (Python, TypeScript or \
             JavaScript); {} file{} seen, {} skipped with a refusal.\n",
            s.files_seen,
            plural(s.files_seen),
            s.files_skipped
        );
    }
    let _ = writeln!(
        out,
        "{} modules, {} import edges, {} third-party packages, {} import cycle{}, {} refusal{}.\n",
        count(&doc.nodes_by_kind, "module"),
        count(&doc.edges_by_kind, "imports"),
        count(&doc.nodes_by_kind, "package"),
        doc.cycles.len(),
        plural(doc.cycles.len() as u64),
        refusals,
        plural(refusals),
    );
    let _ = writeln!(out, "| files | count |\n|---|---:|");
    let _ = writeln!(out, "| seen | {} |", s.files_seen);
    let _ = writeln!(out, "| analysed | {} |", s.files_analysed);
    let _ = writeln!(out, "| skipped (with a refusal) | {} |", s.files_skipped);
    let _ = writeln!(out, "| with syntax-error regions | {} |", s.files_with_error_regions);
    for (language, n) in &s.files_by_language {
        let _ = writeln!(out, "| {language} | {n} |");
    }
    let _ = writeln!(out);

    section(&mut out, "Nodes by kind", &doc.nodes_by_kind);
    section(&mut out, "Edges by kind", &doc.edges_by_kind);
    section(&mut out, "Edges by provenance", &doc.edges_by_provenance);
    section(&mut out, "Edges by confidence", &doc.edges_by_confidence);
    let nonzero: std::collections::BTreeMap<String, u64> = doc
        .refusals_by_kind
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| (k.clone(), *n))
        .collect();
    if nonzero.is_empty() {
        let _ =
            writeln!(out, "## Refusals\n\nNone: no file was refused and every import resolved.\n");
    } else {
        section(&mut out, "Refusals", &nonzero);
    }

    out.push_str(&crate::coverage::render_markdown(&doc.coverage, "##", false));

    let _ = writeln!(out, "## Import cycles\n");
    if doc.cycles.is_empty() {
        let _ = writeln!(out, "None among runtime imports.\n");
    } else {
        for cycle in doc.cycles.iter().take(MAX_ROWS) {
            let names: Vec<String> = cycle
                .modules
                .iter()
                .map(|m| format!("`{}`", m.strip_prefix("module:").unwrap_or(m)))
                .collect();
            let _ = writeln!(out, "- {} modules: {}", cycle.size, names.join(", "));
        }
        more(&mut out, doc.cycles.len());
        let _ = writeln!(out);
    }

    let _ = writeln!(out, "## Components\n");
    if doc.components.is_empty() {
        let _ = writeln!(out, "No modules.\n");
    } else {
        let mut components: Vec<_> = doc.components.iter().collect();
        components.sort_by(|a, b| b.modules.cmp(&a.modules).then_with(|| a.name.cmp(&b.name)));
        let _ =
            writeln!(out, "| component | modules | depends on | packages |\n|---|---:|---|---:|");
        for c in components.iter().take(MAX_ROWS) {
            let mut deps: Vec<_> = c.depends_on.iter().collect();
            deps.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
            let shown: Vec<String> =
                deps.iter().take(4).map(|(name, n)| format!("`{name}` ({n})")).collect();
            let extra = deps.len().saturating_sub(4);
            let deps_text = match (shown.is_empty(), extra) {
                (true, _) => "—".to_owned(),
                (false, 0) => shown.join(", "),
                (false, n) => format!("{}, and {n} more", shown.join(", ")),
            };
            let _ =
                writeln!(out, "| `{}` | {} | {} | {} |", c.name, c.modules, deps_text, c.packages);
        }
        more(&mut out, components.len());
        let _ = writeln!(out);
    }

    let _ = writeln!(out, "## Third-party packages\n");
    if doc.packages.is_empty() {
        let _ = writeln!(out, "None.");
    } else {
        let mut packages: Vec<_> = doc.packages.iter().collect();
        packages.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let _ = writeln!(out, "| package | importing modules |\n|---|---:|");
        for (name, n) in packages.iter().take(MAX_ROWS) {
            let _ = writeln!(out, "| `{}` | {n} |", name.strip_prefix("package:").unwrap_or(name));
        }
        more(&mut out, packages.len());
    }
    out
}

fn section(out: &mut String, title: &str, counts: &std::collections::BTreeMap<String, u64>) {
    let _ = writeln!(out, "## {title}\n\n| | count |\n|---|---:|");
    for (name, n) in counts {
        let _ = writeln!(out, "| {name} | {n} |");
    }
    let _ = writeln!(out);
}

fn more(out: &mut String, total: usize) {
    if total > MAX_ROWS {
        let _ = writeln!(
            out,
            "\n…and {} more, left out of this view (the JSON lists all).",
            total - MAX_ROWS
        );
    }
}

/// The recogniser registry as a Markdown table.
pub fn render_recognisers() -> String {
    let recognisers = cartograph_extract::recognise::registry::all();
    let mut out = String::from("# Recognisers\n\n");
    if recognisers.is_empty() {
        out.push_str(
            "Only imports are recognised so far; no framework recogniser is registered.\n",
        );
        return out;
    }
    out.push_str("| recogniser | languages | edges | recognises | file |\n|---|---|---|---|---|\n");
    for r in recognisers {
        let languages: Vec<&str> = r.languages.iter().map(|l| l.as_str()).collect();
        let edges: Vec<&str> = r.edges.iter().map(|e| e.as_str()).collect();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | `recognise/{}` |",
            r.name,
            languages.join(", "),
            edges.join(", "),
            r.summary.replace('<', "&lt;").replace('>', "&gt;").replace('|', "\\|"),
            r.file
        );
    }
    out
}
