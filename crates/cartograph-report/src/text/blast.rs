//! A blast radius as terminal text: the headline (how many nodes the targets reach, what the
//! bounds left out), the targets, the affected nodes by component, then the nodes nearest first.
//! With evidence, every node is listed with the chain of edges that explains it.

use super::page::{Page, Role};
use super::{TextOptions, more_note, name};
use crate::blast::{BlastDocument, headline, walked_chain};
use crate::words::plural;

/// Affected nodes listed without evidence; the rest are counted.
const MAX_AFFECTED: usize = 40;

/// Renders a blast document as terminal text.
pub fn render_blast(doc: &BlastDocument, options: &TextOptions) -> String {
    let mut page = Page::new(options.width);
    let role = if doc.affected.is_empty() { Role::Good } else { Role::Strong };
    page.para(0, 2, &[(role, "Blast radius"), (Role::Plain, ": "), (Role::Plain, &headline(doc))]);
    let targets: Vec<&str> = doc.targets.iter().map(|id| name(id)).collect();
    page.field(
        2,
        8,
        "targets",
        &if targets.is_empty() { "none".into() } else { targets.join(", ") },
    );
    if !doc.unknown_targets.is_empty() {
        let unknown: Vec<&str> = doc.unknown_targets.iter().map(|id| name(id)).collect();
        page.field(2, 8, "unknown", &unknown.join(", "));
    }
    if doc.affected.is_empty() {
        page.blank();
        page.para(0, 2, &[(Role::Good, "Nothing depends on the targets.")]);
        return page.finish(options.color);
    }

    page.blank();
    page.para(0, 0, &[(Role::Strong, "By component")]);
    let width = doc
        .components
        .iter()
        .map(|c| c.component.as_deref().unwrap_or("(none)").chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    for c in &doc.components {
        let label = c.component.as_deref().unwrap_or("(none)");
        let mut detail = format!("{} affected", c.affected);
        let kinds: Vec<String> = [(c.modules, "module"), (c.routes, "route")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}{}", plural(*n)))
            .collect();
        if !kinds.is_empty() {
            detail.push_str(&format!(" ({})", kinds.join(", ")));
        }
        detail.push_str(&format!(", nearest at depth {}", c.nearest_depth));
        page.field(2, width, label, &detail);
    }

    page.blank();
    page.para(0, 0, &[(Role::Strong, "Affected"), (Role::Dim, " (depth · node · component)")]);
    let cap = if options.evidence { usize::MAX } else { MAX_AFFECTED };
    for a in doc.affected.iter().take(cap) {
        let mut detail = a.component.clone().unwrap_or_else(|| String::from("no component"));
        if a.type_only {
            detail.push_str(", through a type-only import");
        }
        page.put(Role::Dim, &format!("  {:>2}", a.depth));
        page.put(Role::Plain, "  ");
        page.put(Role::Plain, name(&a.id));
        page.put(Role::Plain, "  ");
        page.para(0, 8, &[(Role::Dim, &detail)]);
        if options.evidence {
            let chain = walked_chain(&a.path, |id| name(id).to_owned(), str::to_owned)
                .unwrap_or_else(|| String::from("(target)"));
            page.para(6, 8, &[(Role::Dim, &chain)]);
        }
    }
    if doc.affected.len() > cap {
        page.para(2, 4, &[(Role::Dim, &more_note(doc.affected.len() - cap, "nodes"))]);
    }
    if !options.evidence {
        page.blank();
        page.para(
            0,
            2,
            &[(Role::Dim, "--evidence shows why each node is affected; --json has everything.")],
        );
    }
    page.finish(options.color)
}
