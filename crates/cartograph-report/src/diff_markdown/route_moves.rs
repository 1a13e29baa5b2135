//! Routes that look moved rather than removed and added: when most removed routes under one
//! path prefix come back, with the same method and the same rest of the path, under another
//! prefix, the findings table says "80 routes moved from `/api/groups/…` to `/api/households/…`?"
//! in one row instead of 80 "route removed" rows and 80 "route added" ones.
//!
//! It is an inference from names alone (the handlers may differ), so the row ends with a
//! question mark and the pairs are listed for a reviewer to check. A move needs at least
//! [`MIN_PAIRS`] pairs and [`MIN_SHARE_PERCENT`] of the removed routes under its old prefix.
//! Prefixes are whole literal path segments (never a parameter). Removed and added routes that
//! pair with nothing stay rows of their own.
//!
//! `DELETE /api/groups/{}/members/{}`, removed, and `DELETE /api/households/{}/members/{}`, added,
//! pair under the prefixes `/api/groups` and `/api/households` (rest `{}/members/{}`).

use std::collections::{BTreeMap, BTreeSet};

/// The fewest pairs that make a move.
const MIN_PAIRS: usize = 3;
/// The smallest share of the removed routes under the old prefix that must pair, in percent.
const MIN_SHARE_PERCENT: usize = 60;

/// Removed routes under one prefix paired with added routes under another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RouteMove {
    /// The old prefix, `/api/groups`.
    pub(super) from: String,
    /// The new prefix, `/api/households`.
    pub(super) to: String,
    /// (removed, added) pairs by the callers' indexes, in the order of the removed ones.
    pub(super) pairs: Vec<(usize, usize)>,
}

/// A route as method and path segments: `GET /api/items/{}` is `GET`, `[api, items, {}]`.
#[derive(Debug)]
struct Route<'a> {
    method: &'a str,
    segments: Vec<&'a str>,
}

impl<'a> Route<'a> {
    fn parse(route: &'a str) -> Self {
        let (method, path) = route.split_once(' ').unwrap_or(("", route));
        let path = path.trim_start_matches('/');
        let segments = if path.is_empty() { Vec::new() } else { path.split('/').collect() };
        Self { method, segments }
    }

    /// How many leading segments are literal: a move's prefix never ends inside a parameter.
    fn literal_len(&self) -> usize {
        self.segments.iter().take_while(|s| is_literal(s)).count()
    }
}

/// A path segment that is not a parameter (`{}`, `{*}`, `:id`, `<id>`, `*`).
pub(super) fn is_literal(segment: &str) -> bool {
    !segment.is_empty() && !segment.starts_with(['{', ':', '<', '*'])
}

/// The moves among `removed` and `added` routes (`(index, "METHOD /path")`), largest first.
/// Each route is in at most one pair.
pub(super) fn find_moves(removed: &[(usize, &str)], added: &[(usize, &str)]) -> Vec<RouteMove> {
    let removed: Vec<(usize, Route<'_>)> =
        removed.iter().map(|(i, r)| (*i, Route::parse(r))).collect();
    let added: Vec<(usize, Route<'_>)> = added.iter().map(|(i, r)| (*i, Route::parse(r))).collect();
    let mut paired_removed: BTreeSet<usize> = BTreeSet::new();
    let mut paired_added: BTreeSet<usize> = BTreeSet::new();
    let mut moves = Vec::new();
    while let Some(best) = best_move(&removed, &added, &paired_removed, &paired_added) {
        paired_removed.extend(best.pairs.iter().map(|(r, _)| *r));
        paired_added.extend(best.pairs.iter().map(|(_, a)| *a));
        moves.push(best);
    }
    moves
}

/// The move with the most pairs among the routes not yet paired; ties go to the larger share of
/// the old prefix's routes, then the shorter prefixes (the move said most simply).
fn best_move(
    removed: &[(usize, Route<'_>)],
    added: &[(usize, Route<'_>)],
    paired_removed: &BTreeSet<usize>,
    paired_added: &BTreeSet<usize>,
) -> Option<RouteMove> {
    type Segments<'s> = &'s [&'s str];
    // Every way to cut an added route into a prefix and the rest, by method and rest.
    let mut added_by_rest: BTreeMap<(&str, Segments<'_>), Vec<(Segments<'_>, usize)>> =
        BTreeMap::new();
    for (i, route) in added.iter().filter(|(i, _)| !paired_added.contains(i)) {
        for cut in 1..=route.literal_len() {
            let (prefix, rest) = route.segments.split_at(cut);
            added_by_rest.entry((route.method, rest)).or_default().push((prefix, *i));
        }
    }
    let mut removed_by_prefix: BTreeMap<Segments<'_>, Vec<(&str, Segments<'_>, usize)>> =
        BTreeMap::new();
    for (i, route) in removed.iter().filter(|(i, _)| !paired_removed.contains(i)) {
        for cut in 1..=route.literal_len() {
            let (prefix, rest) = route.segments.split_at(cut);
            removed_by_prefix.entry(prefix).or_default().push((route.method, rest, *i));
        }
    }

    let mut best: Option<Candidate<'_>> = None;
    for (from, under) in &removed_by_prefix {
        let mut by_target: BTreeMap<Segments<'_>, Vec<(usize, usize)>> = BTreeMap::new();
        for (method, rest, r) in under {
            for (to, a) in added_by_rest.get(&(*method, *rest)).into_iter().flatten() {
                if to != from {
                    by_target.entry(to).or_default().push((*r, *a));
                }
            }
        }
        for (to, pairs) in by_target {
            let enough =
                pairs.len() >= MIN_PAIRS && pairs.len() * 100 >= under.len() * MIN_SHARE_PERCENT;
            if !enough {
                continue;
            }
            let candidate = Candidate { pairs, under: under.len(), from, to };
            if best.as_ref().is_none_or(|b| candidate.beats(b)) {
                best = Some(candidate);
            }
        }
    }
    best.map(|Candidate { mut pairs, from, to, .. }| {
        pairs.sort_unstable();
        RouteMove { from: format!("/{}", from.join("/")), to: format!("/{}", to.join("/")), pairs }
    })
}

/// A possible move: its pairs, how many removed routes are under its old prefix, and both
/// prefixes.
struct Candidate<'a> {
    pairs: Vec<(usize, usize)>,
    under: usize,
    from: &'a [&'a str],
    to: &'a [&'a str],
}

impl Candidate<'_> {
    /// More pairs; then a larger share of the old prefix's routes; then shorter prefixes.
    fn beats(&self, other: &Self) -> bool {
        let (n, m) = (self.pairs.len(), other.pairs.len());
        let (share, other_share) = (n * other.under, m * self.under);
        let length = self.from.len() + self.to.len();
        (n, share, std::cmp::Reverse(length))
            > (m, other_share, std::cmp::Reverse(other.from.len() + other.to.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed<'a>(routes: &[&'a str], first: usize) -> Vec<(usize, &'a str)> {
        routes.iter().enumerate().map(|(i, r)| (first + i, *r)).collect()
    }

    #[test]
    fn a_renamed_prefix_pairs_its_routes() {
        let removed = indexed(
            &[
                "GET /api/groups",
                "GET /api/groups/{}",
                "DELETE /api/groups/{}/members/{}",
                "POST /api/groups/{}/members",
                "GET /api/groups/{}/stats",
            ],
            0,
        );
        let added = indexed(
            &[
                "GET /api/households",
                "GET /api/households/{}",
                "DELETE /api/households/{}/members/{}",
                "POST /api/households/{}/members",
                "GET /api/recipes/{}",
            ],
            10,
        );
        let moves = find_moves(&removed, &added);
        assert_eq!(
            moves,
            vec![RouteMove {
                from: "/api/groups".into(),
                to: "/api/households".into(),
                pairs: vec![(0, 10), (1, 11), (2, 12), (3, 13)],
            }]
        );
    }

    #[test]
    fn prefixes_sharing_too_few_suffixes_are_not_a_move() {
        // 2 of 5 removed routes come back under /v2: 40 %, under the 60 % a move needs.
        let removed =
            indexed(&["GET /v1/a", "GET /v1/b", "GET /v1/c", "GET /v1/d", "GET /v1/e"], 0);
        let added = indexed(&["GET /v2/a", "GET /v2/b", "GET /v2/x", "GET /v2/y"], 10);
        assert!(find_moves(&removed, &added).is_empty());
    }

    #[test]
    fn fewer_than_three_pairs_are_not_a_move() {
        let removed = indexed(&["GET /old/a", "GET /old/b"], 0);
        let added = indexed(&["GET /new/a", "GET /new/b"], 10);
        assert!(find_moves(&removed, &added).is_empty());
    }

    #[test]
    fn the_method_must_match_and_parameters_never_end_a_prefix() {
        let removed = indexed(&["GET /old/a", "GET /old/b", "GET /old/c"], 0);
        let added = indexed(&["POST /new/a", "POST /new/b", "POST /new/c"], 10);
        assert!(find_moves(&removed, &added).is_empty());
        // The parameter is part of the rest, never of a prefix: `/{}/x` moved to `/{}/y`
        // is not a move of `/{}`.
        let removed = indexed(&["GET /{}/x/a", "GET /{}/x/b", "GET /{}/x/c"], 0);
        let added = indexed(&["GET /{}/y/a", "GET /{}/y/b", "GET /{}/y/c"], 10);
        assert!(find_moves(&removed, &added).is_empty());
    }

    #[test]
    fn leftovers_stay_unpaired_and_the_simplest_prefixes_win() {
        let removed = indexed(
            &["GET /api/v1/items", "GET /api/v1/items/{}", "PUT /api/v1/items/{}", "GET /api/v1/x"],
            0,
        );
        let added =
            indexed(&["GET /api/v2/items", "GET /api/v2/items/{}", "PUT /api/v2/items/{}"], 10);
        let moves = find_moves(&removed, &added);
        assert_eq!(moves.len(), 1);
        // `/api/v1/items` → `/api/v2/items` pairs as many, but a larger share of its routes:
        // the share decides before the length.
        assert_eq!(
            (moves[0].from.as_str(), moves[0].to.as_str()),
            ("/api/v1/items", "/api/v2/items")
        );
        assert_eq!(moves[0].pairs, vec![(0, 10), (1, 11), (2, 12)]);
    }
}
