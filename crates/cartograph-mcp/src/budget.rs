//! Fitting an answer to its byte budget, and saying exactly what was left out.
//!
//! A document that can be cut says which lists it reports on ([`Fit::lists`]: entries shown and in
//! all) and which it may give up, tier by tier ([`Fit::knobs`]: the first tier is given up
//! first — for a diff, the raw node and edge lists before the findings, and the high-severity
//! findings last). [`fit`] keeps the whole document when its answer fits; otherwise it empties
//! tiers in order until the answer fits, then gives the last tier it touched the largest per-list
//! cap that still fits (a binary search over the cap: the same entries are kept whatever the order
//! of attempts, so the answer is deterministic).
//!
//! Every attempt is measured as the client receives it ([`crate::answer::Reply::bytes`]), with its
//! own summary and truncation notes, so what is promised is what is measured. When even the
//! answer with every list empty is larger than the budget, the query is an error that names the
//! smallest budget that would do.

use serde::Serialize;

use crate::answer::Reply;

/// One list an answer does not show whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Truncation {
    /// The list, as a path into the document: `routes`, `edges.added`, `findings[].edges`.
    pub list: String,
    /// Entries shown in the answer.
    pub shown: usize,
    /// Entries left out: `total - shown`.
    pub omitted: usize,
    /// Entries in all. When `exact` is false, the search that found them stopped early: at least
    /// this many exist (and at least `omitted` were left out).
    pub total: usize,
    pub exact: bool,
    /// What cut it: `limit` (the query's count bound, or the tool's fixed bound) and/or
    /// `max_bytes` (the byte budget).
    pub cut_by: Vec<&'static str>,
}

/// A list of a document: entries shown, and entries in all (`None` when the search that found
/// them stopped early, so the total is not known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListCount {
    pub name: String,
    pub shown: usize,
    pub total: Option<usize>,
    /// A list inside the entries of another (`findings[].edges`): its count follows the entries
    /// kept, so only its own bound cuts it.
    pub nested: bool,
}

impl ListCount {
    pub fn new(name: impl Into<String>, shown: usize, total: Option<usize>) -> Self {
        Self { name: name.into(), shown, total, nested: false }
    }

    pub fn nested(name: impl Into<String>, shown: usize, total: usize) -> Self {
        Self { name: name.into(), shown, total: Some(total), nested: true }
    }
}

/// A document an answer can cut to fit its budget.
pub trait Fit: Clone {
    /// Every list the answer reports on, as the document holds it now.
    fn lists(&self) -> Vec<ListCount>;
    /// What may be cut, tier by tier (the first tier given up first): the entries each knob of
    /// the tier holds now.
    fn knobs(&self) -> Vec<Vec<usize>>;
    /// Keeps at most `caps[t][k]` entries under knob `k` of tier `t`, and brings the document's
    /// own counts (`shown`, `truncated`) in line.
    fn cut(&mut self, caps: &[Vec<usize>]);
}

/// The largest answer within `max_bytes` that `build` makes from `full` cut by [`Fit::cut`].
/// `build` gets the cut document, the notes on every list not shown whole, and the budget the
/// answer states.
pub fn fit<D: Fit>(
    full: &D,
    max_bytes: usize,
    build: impl Fn(&D, Vec<Truncation>, usize) -> Result<Reply, String>,
) -> Result<Reply, String> {
    let before = full.lists();
    let knobs = full.knobs();
    let attempt_within = |caps: &[Vec<usize>], budget: usize| -> Result<Reply, String> {
        let mut doc = full.clone();
        doc.cut(caps);
        let notes = notes(&before, &doc.lists());
        build(&doc, notes, budget)
    };
    let attempt = |caps: &[Vec<usize>]| attempt_within(caps, max_bytes);
    let whole = attempt(&knobs)?;
    if whole.bytes <= max_bytes {
        return Ok(whole);
    }
    let mut caps = knobs.clone();
    let capped =
        |tier: &[usize], cap: usize| -> Vec<usize> { tier.iter().map(|&n| n.min(cap)).collect() };
    let mut smallest = whole.bytes;
    for (t, tier) in knobs.iter().enumerate() {
        caps[t] = capped(tier, 0);
        let empty = attempt(&caps)?;
        smallest = empty.bytes;
        if empty.bytes > max_bytes {
            continue;
        }
        // `lo` fits, `hi` does not (the whole tier did not fit with every later tier whole).
        let (mut lo, mut hi, mut best) = (0, tier.iter().copied().max().unwrap_or(0), empty);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            caps[t] = capped(tier, mid);
            let reply = attempt(&caps)?;
            if reply.bytes <= max_bytes {
                (lo, best) = (mid, reply);
            } else {
                hi = mid;
            }
        }
        return Ok(best);
    }
    // The answer states its budget, so the smallest that would do is found by stating it (a
    // budget with more digits takes a few bytes more).
    let mut needed = smallest;
    for _ in 0..4 {
        let bytes = attempt_within(&caps, needed)?.bytes;
        if bytes <= needed {
            break;
        }
        needed = bytes;
    }
    Err(format!(
        "`max_bytes` {max_bytes} is too small for this answer: with every list empty it takes {smallest} bytes; ask with `max_bytes` of at least {needed}"
    ))
}

/// The notes on every list of `after` not shown whole, against the same lists `before` the
/// budget cut them.
fn notes(before: &[ListCount], after: &[ListCount]) -> Vec<Truncation> {
    after
        .iter()
        .filter_map(|list| {
            let found = before.iter().find(|b| b.name == list.name).map_or(list.shown, |b| b.shown);
            // An unknown total: the search found `found` and stopped, so at least one more exists.
            let (total, exact) = match list.total {
                Some(total) => (total.max(list.shown), true),
                None => (found.max(list.shown) + 1, false),
            };
            if list.shown >= total {
                return None;
            }
            let mut cut_by = Vec::new();
            if list.nested || found < total {
                cut_by.push("limit");
            }
            if !list.nested && list.shown < found {
                cut_by.push("max_bytes");
            }
            Some(Truncation {
                list: list.name.clone(),
                shown: list.shown,
                omitted: total - list.shown,
                total,
                exact,
                cut_by,
            })
        })
        .collect()
}

/// What a summary says about the notes: `` `; not shown whole: routes 20 of 45, packages 0 of
/// 300 (cut to fit max_bytes 40000)` ``, or nothing when every list is whole.
pub fn notes_phrase(notes: &[Truncation], max_bytes: usize) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let lists: Vec<String> = notes
        .iter()
        .map(|n| {
            let at_least = if n.exact { "" } else { "at least " };
            format!("{} {} of {at_least}{}", n.list, n.shown, n.total)
        })
        .collect();
    let by_budget = notes.iter().any(|n| n.cut_by.contains(&"max_bytes"));
    let budget =
        if by_budget { format!(" (cut to fit max_bytes {max_bytes})") } else { String::new() };
    format!("; not shown whole: {}{budget}", lists.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_say_what_cut_each_list() {
        let before = vec![
            ListCount::new("routes", 20, Some(45)),
            ListCount::new("tables", 3, Some(3)),
            ListCount::new("paths", 10, None),
            ListCount::nested("findings[].edges", 6, 9),
        ];
        let after = vec![
            ListCount::new("routes", 5, Some(45)),
            ListCount::new("tables", 3, Some(3)),
            ListCount::new("paths", 4, None),
            ListCount::nested("findings[].edges", 3, 4),
        ];
        let notes = notes(&before, &after);
        assert_eq!(notes.len(), 3);
        assert_eq!((notes[0].shown, notes[0].omitted, notes[0].total), (5, 40, 45));
        assert_eq!(notes[0].cut_by, ["limit", "max_bytes"]);
        assert!(notes[0].exact);
        assert_eq!((notes[1].shown, notes[1].omitted, notes[1].total), (4, 7, 11));
        assert!(!notes[1].exact);
        assert_eq!(notes[2].cut_by, ["limit"]);
        assert_eq!((notes[2].shown, notes[2].total), (3, 4));
        let phrase = notes_phrase(&notes, 9000);
        assert_eq!(
            phrase,
            "; not shown whole: routes 5 of 45, paths 4 of at least 11, findings[].edges 3 of 4 (cut to fit max_bytes 9000)"
        );
    }
}
