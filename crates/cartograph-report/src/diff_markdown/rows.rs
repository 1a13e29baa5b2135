//! One line of the report per edge, node, refusal or cycle: identities as code, the edge's kind
//! as a verb between its endpoints, then its evidence, confidence and place.

use super::escape::{code, text};
use super::node_name;
use crate::diff::{BundleEdgeDoc, DiffEdgeDoc, EdgeChangeDoc, EdgeRefDoc, NodeChangeDoc};
use crate::snapshot::{EdgeClaimDoc, HandlerDoc, LocationDoc, NodeDoc, RefusalDoc};

/// An edge kind as a verb between its endpoints.
fn verb(kind: &str) -> String {
    match kind {
        "reads_env" => "reads".to_owned(),
        "imports" | "serves" | "calls" | "reads" | "writes" | "defines" => kind.to_owned(),
        other => text(other),
    }
}

/// Where an edge was found: its line when it is in the `from` module's own file, else the path.
pub(super) fn place(location: &LocationDoc, from: &str) -> String {
    let same_file = from.strip_prefix("module:") == Some(location.path.as_str());
    match (same_file, location.line) {
        (true, 0) => "whole file".to_owned(),
        (true, line) => format!("line {line}"),
        (false, 0) => code(&location.path),
        (false, line) => code(&format!("{}:{line}", location.path)),
    }
}

struct EdgeLine<'a> {
    kind: &'a str,
    from: &'a str,
    to: &'a str,
    evidence: &'a str,
    confidence: &'a str,
    location: &'a LocationDoc,
}

impl<'a> EdgeLine<'a> {
    /// The line of an edge document's claim (snapshot, diff and bundle edges share it).
    fn of(claim: &'a EdgeClaimDoc) -> Self {
        Self {
            kind: &claim.kind,
            from: &claim.from,
            to: &claim.to,
            evidence: &claim.evidence,
            confidence: &claim.confidence,
            location: &claim.location,
        }
    }
}

fn edge_line(e: &EdgeLine<'_>, extra: &[String]) -> String {
    let mut notes = vec![text(e.confidence), place(e.location, e.from)];
    notes.extend(extra.iter().cloned());
    format!(
        "- {} — {} <sub>({})</sub>\n",
        edge_phrase(e.kind, e.from, e.to),
        text(e.evidence),
        notes.join(" · ")
    )
}

/// An edge as `from` **verb** `to`, the way every row names one.
pub(super) fn edge_phrase(kind: &str, from: &str, to: &str) -> String {
    format!("{} <b>{}</b> {}", code(node_name(from)), verb(kind), code(node_name(to)))
}

/// One edge of an evidence bundle, as a row like every other edge's.
pub(super) fn bundle_edge_row(e: &BundleEdgeDoc) -> String {
    edge_line(&EdgeLine::of(&e.claim), &[])
}

pub(super) fn evidence_row(e: &EdgeRefDoc) -> String {
    let side = if e.side == "base" { vec!["in base".to_owned()] } else { Vec::new() };
    edge_line(
        &EdgeLine {
            kind: &e.kind,
            from: &e.from,
            to: &e.to,
            evidence: &e.evidence,
            confidence: &e.confidence,
            location: &e.location,
        },
        &side,
    )
}

pub(super) fn diff_edge_row(e: &DiffEdgeDoc) -> String {
    let mut extra = Vec::new();
    if e.type_only {
        extra.push("type-only".to_owned());
    }
    if e.occurrences > 1 {
        extra.push(format!("{} occurrences", e.occurrences));
    }
    edge_line(&EdgeLine::of(&e.claim), &extra)
}

pub(super) fn changed_edge_row(c: &EdgeChangeDoc) -> String {
    let (b, a) = (&c.before, &c.after);
    let yes_no = |v: bool| if v { "yes" } else { "no" };
    let mut extra = Vec::new();
    for field in &c.changed {
        let what = match field.as_str() {
            "confidence" => format!("confidence was {}", text(&b.claim.confidence)),
            "provenance" => {
                format!("provenance {} → {}", text(&b.claim.provenance), text(&a.claim.provenance))
            }
            "type_only" => format!("type-only {} → {}", yes_no(b.type_only), yes_no(a.type_only)),
            other => format!("{} changed", text(other)),
        };
        extra.push(what);
    }
    edge_line(&EdgeLine::of(&a.claim), &extra)
}

pub(super) fn node_row(n: &NodeDoc) -> String {
    let mut notes = Vec::new();
    if let Some(c) = &n.component {
        notes.push(format!("component {}", code(c)));
    }
    if let Some(h) = &n.handler {
        notes.push(format!("handler {}", handler(h)));
    }
    if notes.is_empty() {
        format!("- {}\n", code(node_name(&n.id)))
    } else {
        format!("- {} <sub>({})</sub>\n", code(node_name(&n.id)), notes.join(" · "))
    }
}

fn handler(h: &HandlerDoc) -> String {
    match &h.function {
        Some(f) => format!("{} in {}", code(f), code(&h.module)),
        None => code(&h.module),
    }
}

pub(super) fn node_change_row(c: &NodeChangeDoc) -> String {
    let (b, a) = (&c.before, &c.after);
    let mut bits = Vec::new();
    let opt = |v: &Option<String>| v.as_deref().map_or("none".to_owned(), code);
    let handler_text = |h: &Option<HandlerDoc>| h.as_ref().map_or("none".to_owned(), handler);
    if b.handler != a.handler {
        bits.push(format!("handler {} → {}", handler_text(&b.handler), handler_text(&a.handler)));
    }
    for (what, before, after) in [
        ("component", &b.component, &a.component),
        ("language", &b.language, &a.language),
        ("Python module", &b.python_module, &a.python_module),
        ("path", &b.display_path, &a.display_path),
        ("framework", &b.framework, &a.framework),
    ] {
        if before != after {
            bits.push(format!("{what} {} → {}", opt(before), opt(after)));
        }
    }
    if bits.is_empty() {
        bits.push("attributes changed".to_owned());
    }
    format!("- {}: {}\n", code(node_name(&c.id)), bits.join("; "))
}

pub(super) fn refusal_row(r: &RefusalDoc) -> String {
    let at = if r.location.line > 0 {
        format!("{}:{}", r.location.path, r.location.line)
    } else {
        r.location.path.clone()
    };
    format!("- {} {} — {}\n", code(&r.kind), code(&at), text(&r.reason))
}

pub(super) fn cycle_row(cycle: &[String]) -> String {
    const SHOWN: usize = 8;
    let names: Vec<String> = cycle.iter().take(SHOWN).map(|m| code(node_name(m))).collect();
    let more = cycle.len().saturating_sub(SHOWN);
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("- {} modules: {}{tail}\n", cycle.len(), names.join(", "))
}

/// A head cycle that shares modules with base cycles (`before`, each sorted): how it changed,
/// with counts, and the modules that joined it. `split` says its one base cycle also overlaps
/// a head cycle that shares more of its modules.
pub(super) fn cycle_change_row(cycle: &[String], before: &[&Vec<String>], split: bool) -> String {
    const SHOWN: usize = 8;
    let had: std::collections::BTreeSet<&String> = before.iter().flat_map(|b| b.iter()).collect();
    let joined: Vec<&String> = cycle.iter().filter(|m| !had.contains(m)).collect();
    let left = had.iter().filter(|m| cycle.binary_search(m).is_err()).count();
    let (was, now) = (had.len(), cycle.len());
    if split && before.len() == 1 && joined.is_empty() {
        // Its modules all came from the base cycle, which goes on as another head cycle.
        let names: Vec<String> = cycle.iter().take(SHOWN).map(|m| code(node_name(m))).collect();
        let more = cycle.len().saturating_sub(SHOWN);
        let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
        return format!(
            "- {now} modules split out of a base cycle of {was} modules: {}{tail}\n",
            names.join(", ")
        );
    }
    let how = match before {
        [_] if now > was => format!("grew from {was} to {now} modules"),
        [_] if now < was => format!("shrank from {was} to {now} modules"),
        [_] => format!("changed members, {now} modules"),
        many => {
            let sizes: Vec<String> = many.iter().map(|b| b.len().to_string()).collect();
            format!("merged base cycles of {} modules into {now}", sizes.join(" + "))
        }
    };
    let mut counts = vec![format!("{} joined", joined.len())];
    if left > 0 {
        counts.push(format!("{left} left"));
    }
    let names: Vec<String> = joined.iter().take(SHOWN).map(|m| code(node_name(m))).collect();
    let more = joined.len().saturating_sub(SHOWN);
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    let list =
        if names.is_empty() { String::new() } else { format!(": {}{tail}", names.join(", ")) };
    format!("- {how} ({}){list}\n", counts.join(", "))
}
