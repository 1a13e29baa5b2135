//! What a grouped row of the findings table says: one line naming the count and the shared cause
//! ("18 new routes under `/api/v2`, all newly called across languages by `services.gen.ts`"),
//! and its members, one entry each, for the collapsible list in the same cell. A route is
//! named by itself; any other member by its finding's own cell.

use std::collections::BTreeSet;

use super::escape::{code, code_wrapping, thousands};
use super::grouping::{RowGroup, ShownFinding, cause_edge_kind, is_call_kind, modules_of};
use super::node_name;
use super::route_moves::RouteMove;
use crate::words::plural;

/// The most modules a row's summary names; the others are counted.
const NAMED_MODULES: usize = 2;

/// A grouped row's last cell, before its member list is cut.
pub(super) struct GroupText {
    pub(super) summary: String,
    pub(super) members: Vec<String>,
}

/// How the caller writes what the group text names: a member's own cell, a module path.
pub(super) struct Writers<'a> {
    pub(super) cell: &'a mut dyn FnMut(usize) -> String,
    pub(super) path: &'a mut dyn FnMut(&str) -> String,
}

/// The module paths a group's summary names, for the caller to shorten them with the table's.
pub(super) fn named_paths(group: &RowGroup, shown: &[ShownFinding<'_>]) -> Vec<String> {
    let first = shown[group.members[0]];
    let kind = first.finding.kind.as_str();
    if group.members.len() < 2 {
        return Vec::new();
    }
    if group.moved.is_some() || first.is_new_route_call() {
        let mut all: BTreeSet<String> = BTreeSet::new();
        for &i in &group.members {
            all.extend(modules_of(shown[i].finding, "calls"));
        }
        return all.into_iter().collect();
    }
    if kind == "new-component-dependency" {
        return first
            .finding
            .subject
            .strip_prefix("component:")
            .map(str::to_owned)
            .into_iter()
            .collect();
    }
    cause_edge_kind(kind).map(|k| modules_of(first.finding, k)).unwrap_or_default()
}

/// The summary and members of a group of two or more findings.
pub(super) fn group_text(
    group: &RowGroup,
    shown: &[ShownFinding<'_>],
    writers: &mut Writers<'_>,
) -> GroupText {
    if let Some(m) = &group.moved {
        return moved_text(m, shown, writers);
    }
    let members: Vec<ShownFinding<'_>> = group.members.iter().map(|&i| shown[i]).collect();
    let first = members[0];
    let f = first.finding;
    let n = thousands(members.len());
    let routes: Vec<&str> = members.iter().filter_map(ShownFinding::route).collect();
    let under = common_path(&routes).map_or(String::new(), |p| format!(" under {}", code(&p)));
    let across = if f.kind == "new-cross-language-call" { " across languages" } else { "" };
    let route_list = || routes.iter().map(|r| code_wrapping(r)).collect::<Vec<String>>();
    let mut cells = || group.members.iter().map(|&i| (writers.cell)(i)).collect::<Vec<String>>();
    let modules = cause_edge_kind(&f.kind).map(|k| modules_of(f, k)).unwrap_or_default();

    let (summary, members) = match f.kind.as_str() {
        "route-added" => (format!("{n} new routes{under}"), route_list()),
        "route-removed" => (format!("{n} routes{under} no longer served"), route_list()),
        _ if first.is_new_route_call() => {
            let callers: Vec<Vec<String>> =
                members.iter().map(|m| modules_of(m.finding, "calls")).collect();
            let common = common_modules(&callers);
            let how = if common.is_empty() {
                let all: BTreeSet<&String> = callers.iter().flatten().collect();
                format!(", newly called{across} by {} client modules", thousands(all.len()))
            } else {
                format!(", all newly called{across} by {}", names(&common, writers.path))
            };
            let list = routes
                .iter()
                .zip(&callers)
                .map(|(route, by)| {
                    let extra: Vec<String> =
                        by.iter().filter(|m| !common.contains(m)).cloned().collect();
                    let also = if common.is_empty() { "by" } else { "also by" };
                    if extra.is_empty() {
                        code_wrapping(route)
                    } else {
                        format!("{} ({also} {})", code_wrapping(route), names(&extra, writers.path))
                    }
                })
                .collect();
            (format!("{n} new routes{under}{how}"), list)
        }
        kind if is_call_kind(kind) => (
            format!(
                "{} newly {}{across} {n} existing routes{under}",
                names(&modules, writers.path),
                verb("call", modules.len())
            ),
            route_list(),
        ),
        "call-to-removed-route" => (
            format!(
                "{} still {} {n} removed routes",
                names(&modules, writers.path),
                verb("call", modules.len())
            ),
            cells(),
        ),
        "new-external-service" => (
            format!("{n} new external services called by {}", names(&modules, writers.path)),
            cells(),
        ),
        "new-table" => {
            (format!("{n} new tables defined in {}", names(&modules, writers.path)), cells())
        }
        "new-table-write" => (
            format!(
                "{} newly {} {n} tables",
                names(&modules, writers.path),
                verb("write", modules.len())
            ),
            cells(),
        ),
        "new-env-var" => {
            (format!("{n} new env vars read by {}", names(&modules, writers.path)), cells())
        }
        "new-package" => {
            let ecosystem = node_name(&f.subject).split_once(':').map_or("", |(e, _)| e);
            (format!("{n} new {} packages", code(ecosystem)), cells())
        }
        "new-component-dependency" => {
            let component = f.subject.strip_prefix("component:").unwrap_or(&f.subject);
            (
                format!("Component {} newly depends on {n} components", (writers.path)(component)),
                cells(),
            )
        }
        _ => (format!("{n} findings"), cells()),
    };
    GroupText { summary, members }
}

/// "80 routes moved from `/api/groups/…` to `/api/households/…`?", with the pairs as members.
fn moved_text(m: &RouteMove, shown: &[ShownFinding<'_>], writers: &mut Writers<'_>) -> GroupText {
    let n = m.pairs.len();
    let mut summary = format!(
        "{} route{} moved from {} to {}?",
        thousands(n),
        plural(n),
        code(&format!("{}/…", m.from)),
        code(&format!("{}/…", m.to))
    );
    let called: Vec<ShownFinding<'_>> =
        m.pairs.iter().map(|(_, a)| shown[*a]).filter(ShownFinding::is_new_route_call).collect();
    if !called.is_empty() {
        let across = if called.iter().all(|c| c.finding.kind == "new-cross-language-call") {
            " across languages"
        } else {
            ""
        };
        let callers: Vec<Vec<String>> =
            called.iter().map(|c| modules_of(c.finding, "calls")).collect();
        let common = common_modules(&callers);
        let who = if common.is_empty() {
            String::new()
        } else {
            format!(" by {}", names(&common, writers.path))
        };
        if called.len() == n {
            summary.push_str(&format!(" The new ones are all newly called{across}{who}."));
        } else {
            summary.push_str(&format!(
                " {} of the new ones are newly called{across}{who}.",
                thousands(called.len())
            ));
        }
    }
    let members = m
        .pairs
        .iter()
        .map(|(r, a)| {
            let old = shown[*r].route().unwrap_or_default();
            let new = shown[*a].route().unwrap_or_default();
            let new_path = new.split_once(' ').map_or(new, |(_, p)| p);
            format!("{} → {}", code_wrapping(old), code_wrapping(new_path))
        })
        .collect();
    GroupText { summary, members }
}

/// The path segments every route shares, as a path: `/api/v2/dags`; `None` when they share
/// none. Methods are left out.
fn common_path(routes: &[&str]) -> Option<String> {
    let paths: Vec<Vec<&str>> = routes
        .iter()
        .map(|r| {
            let path = r.split_once(' ').map_or(*r, |(_, p)| p);
            path.trim_start_matches('/').split('/').collect()
        })
        .collect();
    let (first, rest) = paths.split_first()?;
    let shared = first
        .iter()
        .enumerate()
        .take_while(|(i, s)| !s.is_empty() && rest.iter().all(|p| p.get(*i) == Some(s)))
        .count();
    (shared > 0).then(|| format!("/{}", first[..shared].join("/")))
}

/// The modules every list names.
fn common_modules(lists: &[Vec<String>]) -> Vec<String> {
    let Some((first, rest)) = lists.split_first() else {
        return Vec::new();
    };
    first.iter().filter(|m| rest.iter().all(|l| l.contains(m))).cloned().collect()
}

/// `a`, `a and b`, `a, b and 3 more`: the first modules by name, the others counted.
fn names(modules: &[String], path: &mut dyn FnMut(&str) -> String) -> String {
    let shown: Vec<String> = modules.iter().take(NAMED_MODULES).map(|m| path(m)).collect();
    let more = modules.len() - shown.len();
    match (shown.as_slice(), more) {
        ([], _) => "unknown modules".to_owned(),
        ([one], 0) => one.clone(),
        ([a, b], 0) => format!("{a} and {b}"),
        (named, more) => format!("{} and {} more", named.join(", "), thousands(more)),
    }
}

/// `calls` for one subject, `call` for several.
fn verb(stem: &str, subjects: usize) -> String {
    if subjects == 1 { format!("{stem}s") } else { stem.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_share_whole_segments_only() {
        assert_eq!(
            common_path(&["GET /api/v2/dags/{}", "POST /api/v2/dagRuns"]).as_deref(),
            Some("/api/v2")
        );
        assert_eq!(common_path(&["GET /a/b", "GET /c/b"]), None);
        assert_eq!(common_path(&["GET /", "GET /x"]), None);
    }

    #[test]
    fn module_lists_name_two_and_count_the_rest() {
        let mut path = |p: &str| format!("`{p}`");
        let list = |n: usize| (0..n).map(|i| format!("m{i}")).collect::<Vec<_>>();
        assert_eq!(names(&list(1), &mut path), "`m0`");
        assert_eq!(names(&list(2), &mut path), "`m0` and `m1`");
        assert_eq!(names(&list(5), &mut path), "`m0`, `m1` and 3 more");
        let common = common_modules(&[list(3), list(2), vec!["m1".into(), "x".into()]]);
        assert_eq!(common, vec!["m1".to_owned()]);
    }
}
