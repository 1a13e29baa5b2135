//! The blast radius as a section of the pull-request report: short, ranked and informative
//! rather than a list of every reached node.
//!
//! It holds, each on its own lines so that a host cutting by lines keeps valid Markdown:
//! - a headline: how many nodes the targets reach, of which kinds, in how many components, and
//!   what the bounds left uncounted;
//! - the components reached most (at most [`MAX_COMPONENTS`]), each with how many of its nodes
//!   are reached and the chain of edges to its nearest node (a route when one is that near);
//! - one line naming the other components with their counts, and one naming the nearest routes
//!   reached;
//! - how to get the full list.
//!
//! Paths are shortened as in the findings table (see [`crate::short_path`]), and a note says how.
//! When the fragment is longer than its budget, rows go from the bottom, then the two naming lines
//! shrink; the counts stay.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{AffectedDoc, BlastComponentDoc, BlastDocument};
use crate::diff_markdown::escape::{code, code_wrapping, thousands};
use crate::diff_markdown::node_name;
use crate::short_path::{PathShortener, Shortened};
use crate::words::plural;

/// The most components the table ranks.
const MAX_COMPONENTS: usize = 10;
/// The most other components named on the line after the table.
const MAX_OTHER_COMPONENTS: usize = 12;
/// The most routes named.
const MAX_ROUTES: usize = 8;
/// The longest path shown, in characters.
const MAX_PATH_CHARS: usize = 36;

pub(super) fn render(doc: &BlastDocument, max_chars: usize) -> String {
    let section = Section::new(doc);
    let rows = section.ranked.len().min(MAX_COMPONENTS);
    for rows in (0..=rows).rev() {
        for (others, routes) in [(MAX_OTHER_COMPONENTS, MAX_ROUTES), (4, 3), (0, 0)] {
            let out = section.render(rows, others, routes, true);
            if out.len() <= max_chars {
                return out;
            }
        }
    }
    // The counts without a name or a path need no note.
    let out = section.render(0, 0, 0, false);
    if out.len() <= max_chars {
        return out;
    }
    let out = section.headline();
    if out.len() <= max_chars { out } else { String::new() }
}

struct Section<'a> {
    doc: &'a BlastDocument,
    /// Components by nodes reached (most first), then nearest depth, then name.
    ranked: Vec<&'a BlastComponentDoc>,
    by_id: BTreeMap<&'a str, &'a AffectedDoc>,
    shortener: PathShortener,
}

impl<'a> Section<'a> {
    fn new(doc: &'a BlastDocument) -> Self {
        let mut ranked: Vec<&BlastComponentDoc> = doc.components.iter().collect();
        ranked.sort_by(|a, b| {
            (b.affected, a.nearest_depth, a.component.is_none(), &a.component).cmp(&(
                a.affected,
                b.nearest_depth,
                b.component.is_none(),
                &b.component,
            ))
        });
        let by_id = doc.affected.iter().map(|a| (a.id.as_str(), a)).collect();
        let mut section =
            Self { doc, ranked, by_id, shortener: PathShortener::new([], [], MAX_PATH_CHARS) };
        // The paths the table shows: its components and the modules of its chains.
        let mut shown: Vec<&str> = Vec::new();
        for c in section.ranked.iter().take(MAX_COMPONENTS) {
            shown.extend(c.component.as_deref());
            if let Some(a) = section.example(c) {
                for e in &a.path {
                    shown.extend([&e.from, &e.to].into_iter().filter_map(|id| module_path(id)));
                }
            }
        }
        let mut known: Vec<&str> = doc.targets.iter().filter_map(|id| module_path(id)).collect();
        known.extend(doc.affected.iter().filter_map(|a| module_path(&a.id)));
        known.extend(doc.components.iter().filter_map(|c| c.component.as_deref()));
        section.shortener = PathShortener::new(shown, known, MAX_PATH_CHARS);
        section
    }

    /// The node a component's row explains: its nearest route if one is as near as its nearest
    /// node, else its first node in rank order.
    fn example(&self, c: &BlastComponentDoc) -> Option<&'a AffectedDoc> {
        let nodes = c.nodes.iter().filter_map(|id| self.by_id.get(id.as_str()).copied());
        let nearest: Vec<&AffectedDoc> = nodes.filter(|a| a.depth == c.nearest_depth).collect();
        nearest.iter().find(|a| a.kind == "route").or(nearest.first()).copied()
    }

    fn render(&self, rows: usize, others: usize, routes: usize, note: bool) -> String {
        let mut out = self.headline();
        if self.doc.affected.is_empty() {
            return out;
        }
        let mut shortened = Shortened::default();
        if rows > 0 {
            out.push_str("\n| component | reached | nearest, and why |\n|---|---:|---|\n");
            for c in &self.ranked[..rows] {
                let name = self.component(c.component.as_deref(), &mut shortened);
                let why =
                    self.example(c).map_or_else(String::new, |a| self.chain(a, &mut shortened));
                let _ = writeln!(out, "| {name} | {} | {why} |", reached(c));
            }
        }
        let rest = &self.ranked[rows..];
        if !rest.is_empty() {
            let nodes: u64 = rest.iter().map(|c| c.affected).sum();
            let mut named: Vec<String> = rest
                .iter()
                .take(others)
                .map(|c| {
                    format!(
                        "{} {}",
                        self.component(c.component.as_deref(), &mut shortened),
                        c.affected
                    )
                })
                .collect();
            if rest.len() > others && others > 0 {
                named.push(format!("and {} more", thousands(rest.len() - others)));
            }
            let list =
                if named.is_empty() { String::new() } else { format!(": {}", named.join(", ")) };
            let _ = writeln!(
                out,
                "\n{}{} component{} reached too ({} node{}){list}.",
                if rows > 0 { "… " } else { "" },
                thousands(rest.len()),
                plural(rest.len()),
                thousands(nodes as usize),
                plural(nodes as usize),
            );
        }
        let all_routes: Vec<&AffectedDoc> =
            self.doc.affected.iter().filter(|a| a.kind == "route").collect();
        if !all_routes.is_empty() && routes > 0 {
            let mut named: Vec<String> =
                all_routes.iter().take(routes).map(|a| code(node_name(&a.id))).collect();
            if all_routes.len() > routes {
                named.push(format!("and {} more", thousands(all_routes.len() - routes)));
            }
            let _ = writeln!(
                out,
                "\n**Routes reached** ({}), nearest first: {}.",
                thousands(all_routes.len()),
                named.join(", ")
            );
        }
        if !note {
            return out;
        }
        let how = self.shortener.how(shortened);
        let paths = if how.is_empty() {
            String::new()
        } else {
            format!("Paths are shortened: {}. ", how.join("; "))
        };
        let _ = writeln!(
            out,
            "\n<sub>{paths}A chain starts at a changed node: <code>x ←imports— y</code> means \
             y imports x. <code>cartograph blast</code> on the changed files lists every node \
             reached, with its chain.</sub>"
        );
        out
    }

    fn headline(&self) -> String {
        let doc = self.doc;
        let t = &doc.truncation;
        let targets = doc.targets.len();
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for a in &doc.affected {
            *kinds.entry(a.kind.as_str()).or_default() += 1;
        }
        let mut by_kind: Vec<(usize, &str)> = kinds.iter().map(|(k, n)| (*n, *k)).collect();
        by_kind.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let by_kind: Vec<String> = by_kind
            .iter()
            .map(|(n, k)| format!("{} {}", thousands(*n), kind_noun(k, *n)))
            .collect();
        let components = doc.components.len();
        let mut line = format!(
            "{} target{} reach{} **{} node{}**",
            thousands(targets),
            plural(targets),
            if targets == 1 { "es" } else { "" },
            thousands(t.reachable as usize),
            plural(t.reachable as usize),
        );
        if doc.affected.is_empty() {
            line.push('.');
        } else {
            let which = if t.truncated {
                format!("; the {} nearest are", thousands(t.shown as usize))
            } else {
                ":".to_owned()
            };
            let _ = write!(
                line,
                "{which} {} in {} component{}.",
                join_and(&by_kind),
                thousands(components),
                plural(components)
            );
        }
        let mut left = Vec::new();
        if t.beyond_depth > 0 {
            left.push(format!(
                "{} deeper than {} edge{}",
                thousands(t.beyond_depth as usize),
                doc.bounds.max_depth,
                plural(doc.bounds.max_depth as usize)
            ));
        }
        if t.beyond_node_limit > 0 {
            left.push(format!(
                "{} past the limit of {}",
                thousands(t.beyond_node_limit as usize),
                thousands(doc.bounds.max_nodes as usize)
            ));
        }
        if !left.is_empty() {
            let _ = write!(line, " Counted but not ranked: {}.", left.join(", "));
        }
        if !doc.unknown_targets.is_empty() {
            let n = doc.unknown_targets.len();
            let _ = write!(line, " {} target{} not in the graph.", thousands(n), plural(n));
        }
        line.push('\n');
        line
    }

    fn component(&self, name: Option<&str>, shortened: &mut Shortened) -> String {
        match name {
            Some(c) => code_wrapping(&self.short(c, shortened)),
            None => "(no component)".to_owned(),
        }
    }

    fn short(&self, path: &str, shortened: &mut Shortened) -> String {
        self.shortener.shorten_noting(path, shortened)
    }

    fn node(&self, id: &str, shortened: &mut Shortened) -> String {
        match module_path(id) {
            Some(path) => code_wrapping(&self.short(path, shortened)),
            None => code_wrapping(node_name(id)),
        }
    }

    /// From the changed node to `a`, as [`super::walked_chain`] walks it.
    fn chain(&self, a: &AffectedDoc, shortened: &mut Shortened) -> String {
        let Some(mut out) = super::walked_chain(
            &a.path,
            |id| self.node(id, shortened),
            |kind| kind.replace('_', " "),
        ) else {
            return "(a target)".to_owned();
        };
        if a.type_only {
            out.push_str(" (type-only)");
        }
        out
    }
}

fn module_path(id: &str) -> Option<&str> {
    id.strip_prefix("module:")
}

/// `171 (115 routes)`, `4 routes` when every node is one, or the count alone when none is.
fn reached(c: &BlastComponentDoc) -> String {
    if c.routes > 0 && c.routes == c.affected {
        format!("{} route{}", thousands(c.routes as usize), plural(c.routes as usize))
    } else if c.routes > 0 {
        format!(
            "{} ({} route{})",
            thousands(c.affected as usize),
            thousands(c.routes as usize),
            plural(c.routes as usize)
        )
    } else {
        thousands(c.affected as usize)
    }
}

fn kind_noun(kind: &str, n: usize) -> String {
    let one = match kind {
        "env_var" => "environment variable",
        "external" => "external service",
        other => other,
    };
    format!("{one}{}", plural(n))
}

fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blast::{BlastBoundsDoc, BlastTruncationDoc, PathEdgeDoc};

    /// `n` components under `src/app/`, component `i` reaching `i + 1` modules at depth 1, each
    /// importing the one target.
    fn document(n: usize) -> BlastDocument {
        let target = "module:src/app/core/models.py".to_owned();
        let mut affected = Vec::new();
        let mut components = Vec::new();
        for i in 0..n {
            let component = format!("src/app/part{i:02}");
            let ids: Vec<String> = (0..=i).map(|j| format!("module:{component}/m{j}.py")).collect();
            for id in &ids {
                affected.push(AffectedDoc {
                    id: id.clone(),
                    kind: "module".into(),
                    depth: 1,
                    component: Some(component.clone()),
                    type_only: false,
                    path: vec![PathEdgeDoc {
                        kind: "imports".into(),
                        from: id.clone(),
                        to: target.clone(),
                        evidence: "import".into(),
                        confidence: "certain".into(),
                        type_only: false,
                    }],
                });
            }
            components.push(BlastComponentDoc {
                component: Some(component),
                affected: ids.len() as u64,
                modules: ids.len() as u64,
                routes: 0,
                nearest_depth: 1,
                nodes: ids,
            });
        }
        let shown = affected.len() as u64;
        BlastDocument {
            schema: "blast".into(),
            schema_version: "1.0".into(),
            tool_version: "0".into(),
            targets: vec![target],
            unknown_targets: Vec::new(),
            bounds: BlastBoundsDoc { max_depth: 3, max_nodes: 500 },
            truncation: BlastTruncationDoc {
                reachable: shown + 7,
                shown,
                beyond_depth: 7,
                beyond_node_limit: 0,
                truncated: true,
            },
            components,
            affected,
        }
    }

    #[test]
    fn the_components_reached_most_are_ranked_and_the_rest_counted() {
        let out = render(&document(15), 100_000);
        assert!(out.starts_with(
            "1 target reaches **127 nodes**; the 120 nearest are 120 modules in 15 components. \
             Counted but not ranked: 7 deeper than 3 edges.\n"
        ));
        let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| <code>")).collect();
        assert_eq!(rows.len(), MAX_COMPONENTS);
        assert_eq!(
            rows[0],
            "| <code>part14</code> | 15 | <code>core/models.py</code> ←imports— \
             <code>part14/m0.py</code> |"
        );
        assert!(rows[9].starts_with("| <code>part05</code> | 6 |"));
        assert!(out.contains(
            "\n… 5 components reached too (15 nodes): <code>part04</code> 5, <code>part03</code> 4, \
             <code>part02</code> 3, <code>part01</code> 2, <code>part00</code> 1.\n"
        ));
        assert!(out.contains("Paths are shortened: <code>src/app/</code> is left off."));
        assert!(!out.contains("Routes reached"));
    }

    #[test]
    fn it_fits_any_budget_keeping_the_counts() {
        let doc = document(15);
        for max in [0, 100, 300, 600, 1_000, 2_000] {
            let out = render(&doc, max);
            assert!(out.len() <= max, "{max}: {}", out.len());
            if !out.is_empty() {
                assert!(out.starts_with("1 target reaches **127 nodes**"), "{out}");
                assert!(out.contains("components reached too"), "{out}");
            }
        }
        assert!(render(&doc, 300).contains("15 components reached too (120 nodes)"));
    }
}
