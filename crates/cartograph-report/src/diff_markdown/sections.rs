//! The collapsible sections of the report, one per concern (routes, calls, tables, environment
//! variables, packages, cycles, modules and imports, refusals): which change goes where, and how a
//! section is written when its lists are cut.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Omitted;
use super::escape::{code, text_with_code, thousands};
use super::rows::{
    changed_edge_row, cycle_change_row, cycle_row, diff_edge_row, node_change_row, node_row,
    refusal_row,
};
use crate::diff::DiffDocument;
use crate::words::plural;

pub(crate) struct Section {
    pub(crate) title: &'static str,
    /// 0 is kept longest.
    pub(super) priority: u8,
    /// Shown after the diagram (the refusals).
    pub(super) trailing: bool,
    /// Written in the summary before the group counts (the refusal totals).
    pub(super) lead: String,
    /// Shown whole whatever the plan (the refusal counts table).
    pub(super) preamble: String,
    pub(super) groups: Vec<Group>,
}

pub(super) struct Group {
    pub(super) label: String,
    pub(super) rows: Vec<String>,
}

impl Section {
    /// What the section holds, counted: its lead (refusal totals, mounts not followed), then
    /// each list (`1 new route`, `3 edges added`). Plain text.
    pub(crate) fn summary(&self) -> Vec<String> {
        let mut summary: Vec<String> = Vec::new();
        if !self.lead.is_empty() {
            summary.push(self.lead.clone());
        }
        for g in &self.groups {
            summary.push(counted(g.rows.len(), &g.label));
        }
        summary
    }
}

/// Which section an edge kind belongs to, given its target.
fn section_of_edge(kind: &str, to: &str) -> SectionKey {
    match kind {
        "serves" => SectionKey::Routes,
        "calls" => SectionKey::Calls,
        "reads" | "writes" | "defines" => SectionKey::Tables,
        "reads_env" => SectionKey::EnvVars,
        "imports" if to.starts_with("package:") => SectionKey::Packages,
        _ => SectionKey::Modules,
    }
}

/// The section and group label of an added or removed node.
fn node_group(kind: &str, change: &str) -> (SectionKey, &'static str) {
    let added = change == "added";
    let label = match (kind, added) {
        ("module", true) => "files added",
        ("module", false) => "files removed",
        ("package", true) => "new packages",
        ("package", false) => "packages no longer imported",
        ("route", true) => "new routes",
        ("route", false) => "routes gone",
        ("table", true) => "new tables",
        ("table", false) => "tables gone",
        ("env_var", true) => "new variables",
        ("env_var", false) => "variables no longer read",
        ("external", true) => "new external endpoints",
        ("external", false) => "external endpoints no longer called",
        (_, true) => "added",
        (_, false) => "removed",
    };
    (section_of_node(kind), label)
}

fn section_of_node(kind: &str) -> SectionKey {
    match kind {
        "route" => SectionKey::Routes,
        "external" => SectionKey::Calls,
        "table" => SectionKey::Tables,
        "env_var" => SectionKey::EnvVars,
        "package" => SectionKey::Packages,
        _ => SectionKey::Modules,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum SectionKey {
    Routes,
    Calls,
    Tables,
    EnvVars,
    Packages,
    Cycles,
    Modules,
    Refusals,
}

/// Every section, in document order; its priority is its position.
pub(crate) fn sections(doc: &DiffDocument) -> Vec<Section> {
    let keys = [
        (SectionKey::Routes, "Routes"),
        (SectionKey::Calls, "Calls"),
        (SectionKey::Tables, "Tables"),
        (SectionKey::EnvVars, "Environment variables"),
        (SectionKey::Packages, "Third-party packages"),
        (SectionKey::Cycles, "Import cycles"),
        (SectionKey::Modules, "Modules and imports"),
        (SectionKey::Refusals, "Refusals"),
    ];
    let mut rows: BTreeMap<(SectionKey, u8), (String, Vec<String>)> = BTreeMap::new();
    let mut add = |key: SectionKey, order: u8, label: &str, row: String| {
        rows.entry((key, order)).or_insert_with(|| (label.to_owned(), Vec::new())).1.push(row);
    };

    // Every added or removed node is listed and counted as the thing it is (a new table, a
    // package no longer imported), beside the edges: a section's summary then counts things,
    // not only edges.
    for n in &doc.nodes.added {
        let (key, label) = node_group(&n.kind, "added");
        add(key, 0, label, node_row(n));
    }
    for n in &doc.nodes.removed {
        let (key, label) = node_group(&n.kind, "removed");
        add(key, 1, label, node_row(n));
    }
    for e in &doc.edges.added {
        let key = section_of_edge(&e.claim.kind, &e.claim.to);
        let label = match key {
            SectionKey::Modules | SectionKey::Packages => "imports added",
            _ => "edges added",
        };
        add(key, 2, label, diff_edge_row(e));
    }
    for e in &doc.edges.removed {
        let key = section_of_edge(&e.claim.kind, &e.claim.to);
        let label = match key {
            SectionKey::Modules | SectionKey::Packages => "imports removed",
            _ => "edges removed",
        };
        add(key, 3, label, diff_edge_row(e));
    }
    for c in &doc.nodes.changed {
        if c.moved {
            add(SectionKey::Routes, 4, "moved", node_change_row(c));
        } else {
            add(section_of_node(&c.kind), 5, "changed", node_change_row(c));
        }
    }
    for c in &doc.edges.changed {
        let key = section_of_edge(&c.kind, &c.to);
        let label = if key == SectionKey::Modules { "imports changed" } else { "changed" };
        add(key, 6, label, changed_edge_row(c));
    }
    // Cycles are matched by overlap, not identity: a base cycle that shares modules with a head
    // cycle grew, shrank, split or merged into it; it did not go away, and the head one is not new.
    let overlaps = |a: &[String], b: &[String]| a.iter().any(|m| b.binary_search(m).is_ok());
    for c in &doc.cycles.added {
        let before: Vec<&Vec<String>> =
            doc.cycles.removed.iter().filter(|b| overlaps(c, b)).collect();
        if before.is_empty() {
            add(SectionKey::Cycles, 0, "new", cycle_row(c));
        } else {
            // Of the head cycles a base cycle overlaps, the one sharing most modules with it
            // continues it (grew or shrank); the others split out of it.
            let shared = |a: &[String], b: &[String]| {
                a.iter().filter(|m| b.binary_search(m).is_ok()).count()
            };
            let split = before.len() == 1
                && doc
                    .cycles
                    .added
                    .iter()
                    .any(|a| a != c && (shared(a, before[0]), a) > (shared(c, before[0]), c));
            add(SectionKey::Cycles, 1, "changed", cycle_change_row(c, &before, split));
        }
    }
    for c in &doc.cycles.removed {
        if !doc.cycles.added.iter().any(|a| overlaps(c, a)) {
            add(SectionKey::Cycles, 2, "gone", cycle_row(c));
        }
    }
    for r in &doc.refusals.added {
        add(SectionKey::Refusals, 0, "new", refusal_row(r));
    }
    for r in &doc.refusals.removed {
        add(SectionKey::Refusals, 1, "gone", refusal_row(r));
    }

    let mut out = Vec::new();
    for (priority, (key, title)) in keys.into_iter().enumerate() {
        let mut groups: Vec<Group> = Vec::new();
        // Rows of one label from different orders (node rows and edge rows) join one list.
        for ((k, _), (label, list)) in rows.range((key, 0)..=(key, u8::MAX)) {
            debug_assert_eq!(*k, key);
            match groups.iter_mut().find(|g| &g.label == label) {
                Some(g) => g.rows.extend(list.iter().cloned()),
                None => groups.push(Group { label: label.clone(), rows: list.clone() }),
            }
        }
        let (lead, preamble) = match key {
            SectionKey::Refusals => refusal_counts(doc),
            SectionKey::Routes => unplaced_routes(doc),
            _ => Default::default(),
        };
        if groups.is_empty() && preamble.is_empty() {
            continue;
        }
        out.push(Section {
            title,
            priority: u8::try_from(priority).unwrap_or(u8::MAX),
            trailing: key == SectionKey::Refusals,
            lead,
            preamble,
            groups,
        });
    }
    if let Some(section) = coverage_section(doc) {
        out.push(section);
    }
    out
}

/// What the head's analysis did not see: languages not analysed, skipped files, frontend
/// modules with no recognised call, refusal kinds and what they leave unknown. Last, after the
/// refusals, and the first section a tight budget cuts to its summary line.
fn coverage_section(doc: &DiffDocument) -> Option<Section> {
    let coverage = doc.head.coverage.as_ref()?;
    let mut lines = coverage.lines().into_iter();
    let first = lines.next()?;
    let mut lead: Vec<String> = Vec::new();
    if !coverage.languages_not_analysed.is_empty() {
        let n = coverage.languages_not_analysed.len();
        lead.push(format!("{n} language{} not analysed", plural(n)));
    }
    let skipped = coverage.files_skipped;
    if skipped > 0 {
        lead.push(format!("{} file{} skipped", thousands(skipped as usize), plural(skipped)));
    }
    let unknown: u64 = coverage.frontends.iter().map(|f| f.without_calls).sum();
    if unknown > 0 {
        lead.push(format!(
            "{} frontend module{} with no call recognised",
            thousands(unknown as usize),
            plural(unknown)
        ));
    }
    let rows: Vec<String> = lines.map(|line| format!("- {}\n", text_with_code(&line))).collect();
    let groups = if rows.is_empty() {
        Vec::new()
    } else {
        vec![Group { label: "unknowns in head".to_owned(), rows }]
    };
    Some(Section {
        title: "What was not seen",
        priority: u8::MAX,
        trailing: true,
        lead: if lead.is_empty() { "nothing left unseen".to_owned() } else { lead.join(" · ") },
        preamble: text_with_code(&format!("Head: {first}")) + "\n",
        groups,
    })
}

/// Routes the head may serve that no list shows: each new `unresolved-mount` refusal is a router
/// (or a single route) whose mount could not be followed, so the full path, and with it the
/// route's identity, is unknown. One plain line beside the routes, for the summary and the body.
fn unplaced_routes(doc: &DiffDocument) -> (String, String) {
    let n = doc.refusals.added.iter().filter(|r| r.kind == "unresolved-mount").count();
    if n == 0 {
        return Default::default();
    }
    let lead = format!("{} new mount{} not followed", thousands(n), plural(n));
    let line = if n == 1 {
        format!(
            "⚠️ Cartograph could not tell where 1 new router or route is mounted, so its full \
             path is unknown and it is not listed here. It is the {} refusal under **Refusals**.\n",
            code("unresolved-mount")
        )
    } else {
        format!(
            "⚠️ Cartograph could not tell where {} new routers or routes are mounted, so their \
             full paths are unknown and they are not listed here. They are the {} refusals \
             under **Refusals**.\n",
            thousands(n),
            code("unresolved-mount")
        )
    };
    (lead, line)
}

/// Refusals per kind on both sides, with the change: the totals for the summary, and the table.
fn refusal_counts(doc: &DiffDocument) -> (String, String) {
    let kinds = &doc.refusals.by_kind;
    if kinds.iter().all(|k| k.base == 0 && k.head == 0) {
        return Default::default();
    }
    let mut table = String::from("| refusal kind | base | head | change |\n|---|---:|---:|---:|\n");
    let (mut base, mut head) = (0u64, 0u64);
    for k in kinds {
        base += k.base;
        head += k.head;
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} |",
            code(&k.kind),
            k.base,
            k.head,
            delta(k.base, k.head)
        );
    }
    let _ = writeln!(table, "| **all** | **{base}** | **{head}** | **{}** |", delta(base, head));
    let lead = if base == head {
        format!("{base} in base and head")
    } else {
        format!("{base} → {head} ({})", delta(base, head))
    };
    (lead, table)
}

fn delta(base: u64, head: u64) -> String {
    match head.cmp(&base) {
        std::cmp::Ordering::Greater => format!("+{}", head - base),
        std::cmp::Ordering::Less => format!("−{}", base - head),
        std::cmp::Ordering::Equal => "0".to_owned(),
    }
}

pub(super) fn render_section(
    section: &Section,
    cap: usize,
    out: &mut String,
    omitted: &mut Omitted,
) {
    let _ = writeln!(
        out,
        "<details><summary><b>{}</b> · {}</summary>\n",
        section.title,
        section.summary().join(" · ")
    );
    if !section.preamble.is_empty() {
        out.push_str(&section.preamble);
        out.push('\n');
    }
    let rows: usize = section.groups.iter().map(|g| g.rows.len()).sum();
    if cap == 0 && rows > 0 {
        let _ = writeln!(
            out,
            "{}; the JSON report lists every one.\n",
            if rows == 1 {
                "This change is left out to fit one GitHub comment".to_owned()
            } else {
                format!("These {} changes are left out to fit one GitHub comment", thousands(rows))
            }
        );
        omitted.rows += rows;
    } else {
        for g in &section.groups {
            let take = cap.min(g.rows.len());
            let left = g.rows.len() - take;
            let _ = writeln!(out, "**{}** ({})\n", capitalise(&g.label), thousands(g.rows.len()));
            for row in &g.rows[..take] {
                out.push_str(row);
            }
            if left > 0 {
                let _ = writeln!(
                    out,
                    "\n… {} more left out to fit one GitHub comment; the JSON report lists every one.",
                    thousands(left)
                );
                omitted.rows += left;
            }
            out.push('\n');
        }
    }
    out.push_str("</details>\n\n");
}

/// `3 files added`, `1 file added`, `1 new table`, `2 new`: for one, the label's first plural
/// noun is made singular.
fn counted(n: usize, label: &str) -> String {
    if n != 1 {
        return format!("{} {label}", thousands(n));
    }
    let mut done = false;
    let words: Vec<&str> = label
        .split(' ')
        .map(|w| match w.strip_suffix('s') {
            Some(one) if !done && one.len() > 1 => {
                done = true;
                one
            }
            _ => w,
        })
        .collect();
    format!("1 {}", words.join(" "))
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
