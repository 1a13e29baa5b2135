//! Which findings share a row of the findings table. Findings of one kind and severity with a
//! shared cause become one row, so that twenty new routes of one API read as one change:
//!
//! - routes added or removed, and new routes newly called: the same API root (`/api/v2`, the
//!   first path segment and any version segments after it, see [`api_root`]);
//! - calls to existing routes and to removed routes, new external services: the same calling
//!   modules;
//! - new tables: the same defining modules; table writes: the same writing modules; new
//!   environment variables: the same reading modules;
//! - new packages: the same ecosystem (`npm`, `pypi`);
//! - new component dependencies: the same depending component;
//! - import cycles are never grouped: each is its own problem.
//!
//! Removed routes that look moved to another prefix (see [`super::route_moves`]) share one row
//! with the added routes they pair with, before any of this. A group sits where its first member
//! would, so the table keeps its order, most severe first. Fewer than [`MIN_GROUP`] findings stay
//! rows of their own: two rows read as fast as one row and a click.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use super::node_name;
use super::route_moves::{RouteMove, find_moves, is_literal};
use crate::diff::FindingDoc;

/// The fewest findings that share a row.
const MIN_GROUP: usize = 3;

/// A finding the table shows, with the kinds of the findings it covers (`route-added` for a
/// new call to a new route).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShownFinding<'a> {
    pub(crate) finding: &'a FindingDoc,
    pub(crate) covers: &'a [&'a str],
}

impl ShownFinding<'_> {
    /// A new call to a route that is itself new: the row tells of a new route.
    pub(super) fn is_new_route_call(&self) -> bool {
        is_call_kind(&self.finding.kind) && self.covers.contains(&"route-added")
    }

    /// The route the finding is about, without its kind: `GET /api/items`.
    pub(super) fn route(&self) -> Option<&str> {
        self.finding.subject.strip_prefix("route:")
    }

    /// A row that tells of a route added: a `route-added` finding or a new call to a new route.
    fn is_new_route(&self) -> bool {
        self.finding.kind == "route-added" || self.is_new_route_call()
    }
}

/// The kinds that tell of a new call to a route.
pub(super) fn is_call_kind(kind: &str) -> bool {
    kind == "new-call" || kind == "new-cross-language-call"
}

/// The modules on the `from` side of a finding's edges of one kind, sorted, each once.
pub(super) fn modules_of(f: &FindingDoc, edge_kind: &str) -> Vec<String> {
    let mut out: Vec<String> = f
        .edges
        .iter()
        .filter(|e| e.kind == edge_kind)
        .filter_map(|e| e.from.strip_prefix("module:"))
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The edge kind whose `from` modules are the cause of a finding of `kind`.
pub(super) fn cause_edge_kind(kind: &str) -> Option<&'static str> {
    match kind {
        "new-call"
        | "new-cross-language-call"
        | "call-to-removed-route"
        | "new-external-service" => Some("calls"),
        "new-table" => Some("defines"),
        "new-table-write" => Some("writes"),
        "new-env-var" => Some("reads_env"),
        _ => None,
    }
}

/// One row of the table: the shown findings it stands for, by index, in document order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RowGroup {
    pub(super) members: Vec<usize>,
    /// Set for the removed and added routes of a move; `members` then holds both sides.
    pub(super) moved: Option<RouteMove>,
}

/// The shared cause of a group, beside its kind, the kinds it covers and its severity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Cause {
    ApiRoot(String),
    Modules(Vec<String>),
    Ecosystem(String),
    Component(String),
}

fn cause(shown: &ShownFinding<'_>) -> Option<Cause> {
    let f = shown.finding;
    let cause = match f.kind.as_str() {
        "route-added" | "route-removed" => Cause::ApiRoot(api_root(shown.route()?)),
        _ if shown.is_new_route_call() => Cause::ApiRoot(api_root(shown.route()?)),
        "new-package" => {
            let (ecosystem, _) = node_name(&f.subject).split_once(':')?;
            Cause::Ecosystem(ecosystem.to_owned())
        }
        "new-component-dependency" => Cause::Component(f.subject.clone()),
        kind => Cause::Modules(modules_of(f, cause_edge_kind(kind)?)),
    };
    match &cause {
        Cause::Modules(m) if m.is_empty() => None,
        _ => Some(cause),
    }
}

/// The API a route belongs to: its first path segment, with the version segments that follow
/// it. `GET /api/v2/dags/{}` → `/api/v2`, `POST /execution/store/ti` → `/execution`, `GET /` →
/// `/`.
pub(super) fn api_root(route: &str) -> String {
    let path = route.split_once(' ').map_or(route, |(_, p)| p);
    let mut segments = path.trim_start_matches('/').split('/');
    let mut root = String::from("/");
    match segments.next() {
        Some(first) if is_literal(first) => root.push_str(first),
        _ => return root,
    }
    for segment in segments.take_while(|s| is_version(s)) {
        root.push('/');
        root.push_str(segment);
    }
    root
}

/// `v2`, `v1.1`, `2`: a segment that names an API version.
fn is_version(segment: &str) -> bool {
    let digits = segment.strip_prefix(['v', 'V']).unwrap_or(segment);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// The rows of the table, in order: moves first found, then each finding joined to the group
/// of its kind, covered kinds, severity and cause. A finding without a cause stands alone.
pub(super) fn group_rows(shown: &[ShownFinding<'_>]) -> Vec<RowGroup> {
    let removed: Vec<(usize, &str)> = shown
        .iter()
        .enumerate()
        .filter(|(_, s)| s.finding.kind == "route-removed")
        .filter_map(|(i, s)| Some((i, s.route()?)))
        .collect();
    let added: Vec<(usize, &str)> = shown
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_new_route())
        .filter_map(|(i, s)| Some((i, s.route()?)))
        .collect();
    let mut groups: Vec<RowGroup> = Vec::new();
    let mut in_move = vec![false; shown.len()];
    for m in find_moves(&removed, &added) {
        let mut members: Vec<usize> = m.pairs.iter().flat_map(|(r, a)| [*r, *a]).collect();
        members.sort_unstable();
        for &i in &members {
            in_move[i] = true;
        }
        groups.push(RowGroup { members, moved: Some(m) });
    }

    type Key<'a> = (&'a str, &'a [&'a str], &'a str, Cause);
    let mut by_key: BTreeMap<Key<'_>, usize> = BTreeMap::new();
    for (i, s) in shown.iter().enumerate() {
        if in_move[i] {
            continue;
        }
        let Some(cause) = cause(s) else {
            groups.push(RowGroup { members: vec![i], moved: None });
            continue;
        };
        let key = (s.finding.kind.as_str(), s.covers, s.finding.severity.as_str(), cause);
        match by_key.entry(key) {
            Entry::Occupied(g) => groups[*g.get()].members.push(i),
            Entry::Vacant(slot) => {
                slot.insert(groups.len());
                groups.push(RowGroup { members: vec![i], moved: None });
            }
        }
    }
    let mut rows: Vec<RowGroup> = Vec::with_capacity(groups.len());
    for group in groups {
        if group.moved.is_none() && group.members.len() < MIN_GROUP {
            rows.extend(
                group.members.into_iter().map(|i| RowGroup { members: vec![i], moved: None }),
            );
        } else {
            rows.push(group);
        }
    }
    rows.sort_by_key(|g| g.members[0]);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::EdgeRefDoc;
    use crate::snapshot::LocationDoc;

    fn finding(kind: &str, severity: &str, subject: &str, callers: &[&str]) -> FindingDoc {
        let edge_kind = cause_edge_kind(kind).unwrap_or("calls");
        FindingDoc {
            kind: kind.into(),
            severity: severity.into(),
            subject: subject.into(),
            message: format!("{subject} changed."),
            edges: callers
                .iter()
                .map(|c| EdgeRefDoc {
                    side: "head".into(),
                    kind: edge_kind.into(),
                    from: format!("module:{c}"),
                    to: subject.into(),
                    evidence: "e".into(),
                    confidence: "certain".into(),
                    location: LocationDoc { path: (*c).into(), line: 1, column: 1 },
                })
                .collect(),
            covered_by: None,
            rule: None,
        }
    }

    fn rows(findings: &[FindingDoc], covers: &[&'static [&'static str]]) -> Vec<Vec<usize>> {
        let shown: Vec<ShownFinding<'_>> = findings
            .iter()
            .enumerate()
            .map(|(i, f)| ShownFinding {
                finding: f,
                covers: covers.get(i).copied().unwrap_or(&[]),
            })
            .collect();
        group_rows(&shown).into_iter().map(|g| g.members).collect()
    }

    #[test]
    fn api_roots_keep_version_segments() {
        assert_eq!(api_root("GET /api/v2/dags/{}"), "/api/v2");
        assert_eq!(api_root("POST /execution/store/ti"), "/execution");
        assert_eq!(api_root("GET /v1.1/items"), "/v1.1");
        assert_eq!(api_root("GET /{}/x"), "/");
        assert_eq!(api_root("GET /"), "/");
    }

    #[test]
    fn findings_of_one_kind_severity_and_cause_share_a_row_where_the_first_was() {
        let findings = [
            finding("route-added", "low", "route:GET /api/v2/a", &[]),
            finding("new-env-var", "low", "env_var:A", &["src/config.py"]),
            finding("route-added", "low", "route:GET /api/v2/b", &[]),
            finding("route-added", "low", "route:GET /ui/c", &[]),
            finding("new-env-var", "low", "env_var:B", &["src/config.py"]),
            finding("new-env-var", "low", "env_var:C", &["src/other.py"]),
            finding("route-added", "low", "route:GET /api/v2/e", &[]),
            finding("new-env-var", "low", "env_var:D", &["src/config.py"]),
            finding("new-cycle", "medium", "module:src/a.py", &[]),
            finding("new-cycle", "medium", "module:src/b.py", &[]),
            finding("new-package", "info", "package:npm:left-pad", &["web/a.ts"]),
            finding("new-package", "info", "package:pypi:requests", &["src/a.py"]),
            finding("new-package", "info", "package:npm:react", &["web/b.ts"]),
            finding("new-package", "info", "package:npm:vue", &[]),
            finding("route-added", "info", "route:GET /api/v2/d", &[]),
        ];
        // Two findings of one cause (`pypi`, and `/ui` with `/api/v2/d` of another severity)
        // stay apart: a group takes three.
        assert_eq!(
            rows(&findings, &[]),
            vec![
                vec![0, 2, 6],
                vec![1, 4, 7],
                vec![3],
                vec![5],
                vec![8],
                vec![9],
                vec![10, 12, 13],
                vec![11],
                vec![14],
            ]
        );
    }

    #[test]
    fn new_routes_group_by_api_and_calls_to_existing_routes_by_caller() {
        let client = "ui/openapi-client/requests/services.gen.ts";
        let findings = [
            finding(
                "new-cross-language-call",
                "medium",
                "route:GET /api/v2/a",
                &[client, "ui/A.tsx"],
            ),
            finding("new-cross-language-call", "medium", "route:GET /api/v2/b", &[client]),
            finding("new-cross-language-call", "medium", "route:GET /api/v2/old", &["ui/A.tsx"]),
            finding("new-cross-language-call", "medium", "route:GET /api/v2/c", &["ui/B.tsx"]),
            finding("new-cross-language-call", "medium", "route:GET /api/v2/old2", &["ui/A.tsx"]),
            finding("new-cross-language-call", "medium", "route:GET /api/v2/old3", &["ui/C.tsx"]),
            finding("new-cross-language-call", "medium", "route:GET /ui/old4", &["ui/A.tsx"]),
        ];
        let new: &'static [&'static str] = &["route-added"];
        let covers = [new, new, &[], new, &[], &[], &[]];
        assert_eq!(rows(&findings, &covers), vec![vec![0, 1, 3], vec![2, 4, 6], vec![5]]);
    }

    #[test]
    fn a_move_takes_its_routes_and_leaves_the_rest_to_their_groups() {
        let mut findings = Vec::new();
        for p in ["a", "b", "c", "d"] {
            findings.push(finding(
                "route-removed",
                "high",
                &format!("route:GET /api/groups/{p}"),
                &[],
            ));
        }
        findings.push(finding("route-removed", "high", "route:GET /api/gone", &[]));
        for p in ["a", "b", "c"] {
            findings.push(finding(
                "route-added",
                "low",
                &format!("route:GET /api/households/{p}"),
                &[],
            ));
        }
        findings.push(finding("route-added", "low", "route:GET /api/new", &[]));
        let shown: Vec<ShownFinding<'_>> =
            findings.iter().map(|f| ShownFinding { finding: f, covers: &[] }).collect();
        let groups = group_rows(&shown);
        let members: Vec<Vec<usize>> = groups.iter().map(|g| g.members.clone()).collect();
        // The move (3 of the 4 `/api/groups` routes, 75 %) sits where its first removed route
        // was; the unpaired ones stay rows.
        assert_eq!(members, vec![vec![0, 1, 2, 5, 6, 7], vec![3], vec![4], vec![8]]);
        let moved = groups[0].moved.as_ref().map(|m| (m.from.as_str(), m.to.as_str()));
        assert_eq!(moved, Some(("/api/groups", "/api/households")));
    }
}
