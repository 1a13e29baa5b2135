//! A trace as terminal text: where the paths start and end and how many there are, what bounded
//! them, then each path as its hops, one a line: `a —calls→ b (likely, web/src/api.ts:12)`. With
//! evidence, each hop's sentence follows it.

use super::page::{Page, Role};
use super::{TextOptions, name};
use crate::trace::{TraceDocument, truncation_sentence};
use crate::words::plural;

/// Renders a trace document as terminal text.
pub fn render_trace(doc: &TraceDocument, options: &TextOptions) -> String {
    let mut page = Page::new(options.width);
    let from: Vec<&str> = doc.from.iter().map(|id| name(id)).collect();
    let mut head = format!("Trace from {}", from.join(", "));
    if let Some(to) = &doc.to {
        let to: Vec<&str> = to.iter().map(|id| name(id)).collect();
        head.push_str(&format!(" to {}", to.join(", ")));
    }
    let n = doc.paths.len();
    page.para(0, 2, &[(Role::Strong, &head), (Role::Plain, &format!(": {n} path{}", plural(n)))]);
    if let Some(sentence) = truncation_sentence(doc) {
        page.para(2, 2, &[(Role::Medium, &sentence)]);
    }
    for note in &doc.notes {
        page.para(2, 2, &[(Role::Medium, &note.replace('`', ""))]);
    }
    if doc.paths.iter().any(|p| p.direction == "backward") {
        page.para(
            2,
            2,
            &[(
                Role::Dim,
                "Paths from a table, env var, external or package are walked backward, against \
                 the data flow: from where the data ends up to where it comes from.",
            )],
        );
    }
    for (i, path) in doc.paths.iter().enumerate() {
        page.blank();
        let hops = path.hops.len();
        let cut = if path.cut_by_depth { ", cut by the depth bound" } else { "" };
        page.para(
            0,
            2,
            &[
                (Role::Strong, &format!("{}.", i + 1)),
                (Role::Plain, &format!(" {} → {}", name(&path.from), name(&path.to))),
                (Role::Dim, &format!(" ({hops} hop{}{cut})", plural(hops))),
            ],
        );
        for hop in &path.hops {
            let step = if hop.walked == "forward" {
                format!("{} —{}→ {}", name(&hop.from), hop.kind, name(&hop.to))
            } else {
                format!("{} ←{}— {}", name(&hop.to), hop.kind, name(&hop.from))
            };
            let place = format!("({}, {})", hop.confidence, super::place(&hop.location, &hop.from));
            page.para(2, 6, &[(Role::Plain, &step), (Role::Plain, " "), (Role::Dim, &place)]);
            if options.evidence {
                page.para(6, 6, &[(Role::Dim, &hop.evidence)]);
            }
        }
    }
    if !options.evidence && !doc.paths.is_empty() {
        page.blank();
        page.para(
            0,
            2,
            &[(Role::Dim, "--evidence shows the evidence of every hop; --json has everything.")],
        );
    }
    page.finish(options.color)
}
