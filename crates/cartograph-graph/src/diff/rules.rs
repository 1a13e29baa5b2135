//! The rules that derive findings from a diff, one function per [`FindingKind`], and their
//! ranking.
//!
//! Precision comes first: a reviewer must be able to trust every finding, so each rule fires only
//! on the exact condition its kind documents, a finding is kept only when at least one edge
//! justifies it, and messages name identities only (module paths, route, table, variable,
//! package and host names), never source text.

use std::collections::{BTreeMap, BTreeSet};

use cartograph_core::{
    Confidence, Edge, EdgeKind, HttpMethod, Language, Node, NodeKey, NodeKind, RefusalKind,
    RouteTemplate, TemplateMatch,
};

use super::findings::{
    EdgeRef, Finding, FindingKind, MAX_COMPONENT_EDGES, MAX_CYCLE_EDGES, Side, Subject,
};
use super::{CyclesDiff, EdgesDiff, Indexed, NodesDiff, adjust};
use crate::ImportCycle;

/// The most names a message lists before saying how many more there are.
const LISTED: usize = 3;

/// Derives the findings of a diff, ranked.
pub(super) fn derive(
    base: &Indexed<'_>,
    head: &Indexed<'_>,
    nodes: &NodesDiff,
    edges: &EdgesDiff,
    cycles: &CyclesDiff,
) -> Vec<Finding> {
    let served = ServedTemplates::new(head);
    let removed_routes: Vec<&Node> = nodes
        .removed
        .iter()
        .filter(|n| n.key.kind() == NodeKind::Route && !served.still_serves(&n.key))
        .collect();
    let mut findings = Vec::new();
    route_removed(base, &removed_routes, &mut findings);
    call_to_removed_route(base, head, &served, &removed_routes, &mut findings);
    // A stale call that now lands on another route by accident is reported once, as the stale
    // call it is, not again as a new call.
    let stale: BTreeSet<(EdgeKind, NodeKey, NodeKey)> = findings
        .iter()
        .filter(|f| f.kind == FindingKind::CallToRemovedRoute)
        .flat_map(|f| &f.edges)
        .filter(|e| e.side == Side::Head)
        .map(|e| (e.edge.kind, e.edge.from.clone(), e.edge.to.clone()))
        .collect();
    route_added(head, nodes, &mut findings);
    new_calls(head, nodes, edges, &stale, &mut findings);
    new_table(head, nodes, &mut findings);
    new_table_write(base, edges, &mut findings);
    new_env_var(head, nodes, &mut findings);
    new_external_service(base, head, nodes, &mut findings);
    new_package(head, nodes, &mut findings);
    new_cycle(base, head, cycles, &mut findings);
    new_component_dependency(base, head, &mut findings);
    findings.retain(|f| !f.edges.is_empty());
    adjust::lower_noise(&mut findings, &adjust::declaring_modules(base, head));
    adjust::mark_covered(&mut findings);
    findings.sort_by(|a, b| {
        (a.severity, a.kind, &a.subject)
            .cmp(&(b.severity, b.kind, &b.subject))
            .then_with(|| a.edges.iter().map(EdgeRef::rank).cmp(b.edges.iter().map(EdgeRef::rank)))
            .then_with(|| a.message.cmp(&b.message))
    });
    findings
}

/// The method and template identity of a route node: `GET /items/{}` → (`GET`, `/items/{}`).
fn route_parts(key: &NodeKey) -> Option<(HttpMethod, &str)> {
    let (method, template) = key.name().split_once(' ')?;
    Some((HttpMethod::parse(method)?, template))
}

/// The templates head serves, with the methods serving each.
struct ServedTemplates<'a> {
    methods: BTreeMap<&'a str, BTreeSet<HttpMethod>>,
}

impl<'a> ServedTemplates<'a> {
    fn new(head: &Indexed<'a>) -> Self {
        let mut methods: BTreeMap<&str, BTreeSet<HttpMethod>> = BTreeMap::new();
        for edge in head.edges.iter() {
            if edge.kind == EdgeKind::Serves
                && let Some((method, template)) = route_parts(&edge.to)
            {
                methods.entry(template).or_default().insert(method);
            }
        }
        Self { methods }
    }

    /// True when some head route with the same template serves this route's method.
    fn still_serves(&self, route: &NodeKey) -> bool {
        route_parts(route).is_some_and(|(method, template)| {
            self.methods.get(template).is_some_and(|ms| ms.iter().any(|m| m.serves(method)))
        })
    }

    fn serves_exactly(&self, route: &NodeKey) -> bool {
        route_parts(route).is_some_and(|(method, template)| {
            self.methods.get(template).is_some_and(|ms| ms.contains(&method))
        })
    }
}

fn refs<'e>(side: Side, edges: impl IntoIterator<Item = &'e Edge>) -> Vec<EdgeRef> {
    edges.into_iter().map(|edge| EdgeRef { side, edge: edge.clone() }).collect()
}

/// Up to [`LISTED`] distinct names in order, then how many more: `a, b, c and 2 more`.
fn list<'s>(names: impl IntoIterator<Item = &'s str>) -> String {
    let names: BTreeSet<&str> = names.into_iter().collect();
    let shown: Vec<&str> = names.iter().take(LISTED).copied().collect();
    let mut text = shown.join(", ");
    if names.len() > LISTED {
        text.push_str(&format!(" and {} more", names.len() - LISTED));
    }
    text
}

fn sources<'e>(edges: impl IntoIterator<Item = &'e Edge>) -> String {
    list(edges.into_iter().map(|e| e.from.name()))
}

fn route_removed(base: &Indexed<'_>, removed: &[&Node], findings: &mut Vec<Finding>) {
    for route in removed {
        let serves: Vec<&Edge> = base.edges_into(&route.key, EdgeKind::Serves).collect();
        let message = format!(
            "Route {} is no longer served (it was served by {}): a possible breaking API change.",
            route.key.name(),
            sources(serves.iter().copied())
        );
        findings.push(Finding::new(
            FindingKind::RouteRemoved,
            Subject::Node(route.key.clone()),
            message,
            refs(Side::Base, serves),
        ));
    }
}

/// The calls head could not match, by calling file: (method, template identity), read back
/// from the `unmatched-call` refusal's reason (`call to GET /items/{} matches no served route`).
fn unmatched_calls<'a>(head: &Indexed<'a>) -> BTreeMap<&'a str, Vec<(HttpMethod, &'a str)>> {
    let mut calls: BTreeMap<&str, Vec<(HttpMethod, &str)>> = BTreeMap::new();
    for refusal in head.refusals {
        if refusal.kind != RefusalKind::UnmatchedCall {
            continue;
        }
        let parsed = refusal
            .reason
            .strip_prefix("call to ")
            .and_then(|r| r.strip_suffix(" matches no served route"))
            .and_then(|r| r.split_once(' '))
            .and_then(|(method, template)| Some((HttpMethod::parse(method)?, template)));
        if let Some(call) = parsed {
            calls.entry(refusal.location.path.as_str()).or_default().push(call);
        }
    }
    calls
}

/// True when a head call edge (`possible`) is where a call to the removed route `method
/// template` lands now: the route it reaches serves the method, and the removed route's path
/// meets it only by a literal segment meeting a parameter (`/orders/export` → `/orders/{}`). The
/// edge must be new in head, or its evidence must name the removed route's path: an old edge
/// that names another path may be another call folded into the same edge.
fn reaches_by_accident(
    base: &Indexed<'_>,
    edge: &Edge,
    method: HttpMethod,
    template: &str,
) -> bool {
    let Some((near_method, near_template)) = route_parts(&edge.to) else { return false };
    near_method.serves(method)
        && RouteTemplate::parse(template).matches_route(&RouteTemplate::parse(near_template))
            == Some(TemplateMatch::LiteralMeetsParam)
        && (!base.has_edge(edge) || edge.evidence.as_str().contains(&format!("\"{template}\"")))
}

fn call_to_removed_route(
    base: &Indexed<'_>,
    head: &Indexed<'_>,
    served: &ServedTemplates<'_>,
    removed: &[&Node],
    findings: &mut Vec<Finding>,
) {
    let unmatched = unmatched_calls(head);
    // Head calls that reach a route only by accident, by calling module.
    let mut possible: BTreeMap<&NodeKey, Vec<&Edge>> = BTreeMap::new();
    for edge in head.edges.iter() {
        if edge.kind == EdgeKind::Calls
            && edge.to.kind() == NodeKind::Route
            && edge.confidence == Confidence::Possible
        {
            possible.entry(&edge.from).or_default().push(edge);
        }
    }
    for route in removed {
        let Some((method, template)) = route_parts(&route.key) else { continue };
        for call in base.edges_into(&route.key, EdgeKind::Calls) {
            if call.from.kind() != NodeKind::Module || head.node(&call.from).is_none() {
                continue;
            }
            let caller = call.from.name();
            let unmatched_now = unmatched.get(caller).is_some_and(|calls| {
                calls.iter().any(|(m, t)| *t == template && method.serves(*m))
            });
            let (clause, justified) = if unmatched_now {
                ("the call now matches no served route".to_owned(), refs(Side::Base, [call]))
            } else if let Some(near) = possible.get(&call.from).and_then(|edges| {
                edges.iter().find(|e| reaches_by_accident(base, e, method, template))
            }) {
                let clause = format!(
                    "the call now reaches route {} only by a literal segment meeting a route parameter",
                    near.to.name()
                );
                let mut justified = refs(Side::Base, [call]);
                justified.extend(refs(Side::Head, [*near]));
                (clause, justified)
            } else {
                continue;
            };
            let message = format!(
                "Route {} was removed but {caller} still calls it: {clause}.",
                route.key.name()
            );
            findings.push(Finding::new(
                FindingKind::CallToRemovedRoute,
                Subject::Node(route.key.clone()),
                message,
                justified,
            ));
        }
    }
    // Defensive: the analysis only links calls to served routes, but a snapshot may say otherwise.
    let mut unserved: BTreeMap<&NodeKey, Vec<&Edge>> = BTreeMap::new();
    for edge in head.edges.iter() {
        if edge.kind == EdgeKind::Calls
            && edge.to.kind() == NodeKind::Route
            && !served.serves_exactly(&edge.to)
        {
            unserved.entry(&edge.to).or_default().push(edge);
        }
    }
    for (route, calls) in unserved {
        let message = format!(
            "Route {} is called by {} but no module serves it.",
            route.name(),
            sources(calls.iter().copied())
        );
        findings.push(Finding::new(
            FindingKind::CallToRemovedRoute,
            Subject::Node(route.clone()),
            message,
            refs(Side::Head, calls),
        ));
    }
}

fn route_added(head: &Indexed<'_>, nodes: &NodesDiff, findings: &mut Vec<Finding>) {
    for route in nodes.added.iter().filter(|n| n.key.kind() == NodeKind::Route) {
        let serves: Vec<&Edge> = head.edges_into(&route.key, EdgeKind::Serves).collect();
        let message = format!(
            "Route {} is newly served by {}.",
            route.key.name(),
            sources(serves.iter().copied())
        );
        findings.push(Finding::new(
            FindingKind::RouteAdded,
            Subject::Node(route.key.clone()),
            message,
            refs(Side::Head, serves),
        ));
    }
}

/// Languages that meet only across a process boundary belong to different families.
fn family(language: Language) -> &'static str {
    match language {
        Language::Python => "python",
        Language::TypeScript | Language::JavaScript => "javascript",
        Language::Rust => "rust",
    }
}

/// Whether a new call crosses a language family, for the finding it makes.
fn call_finding_kind(caller: Option<Language>, servers: &[Option<Language>]) -> FindingKind {
    match caller {
        Some(caller)
            if servers.iter().all(|server| server.is_some_and(|l| family(l) != family(caller))) =>
        {
            FindingKind::NewCrossLanguageCall
        }
        _ => FindingKind::NewCall,
    }
}

/// `new-cross-language-call` and `new-call`: every new `calls` edge from a module to a served
/// route makes one of them, never both — across a language family when the caller's and every
/// server's language are known and none shares the caller's family, a `new-call` otherwise (one
/// family, or a language unknown). One finding per route and kind, naming every new caller.
fn new_calls(
    head: &Indexed<'_>,
    nodes: &NodesDiff,
    edges: &EdgesDiff,
    stale: &BTreeSet<(EdgeKind, NodeKey, NodeKey)>,
    findings: &mut Vec<Finding>,
) {
    let language = |key: &NodeKey| head.node(key).and_then(|n| n.attrs.language);
    // The new calls by kind and route (in identity order, as `edges.added`).
    let mut by_route: BTreeMap<(FindingKind, &NodeKey), Vec<&Edge>> = BTreeMap::new();
    for call in &edges.added {
        if call.kind != EdgeKind::Calls
            || call.from.kind() != NodeKind::Module
            || call.to.kind() != NodeKind::Route
            || stale.contains(&(call.kind, call.from.clone(), call.to.clone()))
        {
            continue;
        }
        let servers: Vec<Option<Language>> =
            head.edges_into(&call.to, EdgeKind::Serves).map(|s| language(&s.from)).collect();
        // A call to a route nothing serves is told by `call-to-removed-route`.
        if servers.is_empty() {
            continue;
        }
        let kind = call_finding_kind(language(&call.from), &servers);
        by_route.entry((kind, &call.to)).or_default().push(call);
    }
    let new_routes: BTreeSet<&NodeKey> = nodes.added.iter().map(|n| &n.key).collect();
    // `modules (languages)`, the languages left out when none is known.
    let described = |edges: &[&Edge]| {
        let languages: Vec<&str> =
            edges.iter().filter_map(|e| language(&e.from)).map(Language::as_str).collect();
        let names = sources(edges.iter().copied());
        if languages.is_empty() { names } else { format!("{names} ({})", list(languages)) }
    };
    for ((kind, route), calls) in by_route {
        let serves: Vec<&Edge> = head.edges_into(route, EdgeKind::Serves).collect();
        let servers = described(&serves);
        let callers = described(&calls);
        let across = match kind {
            FindingKind::NewCrossLanguageCall => " across languages",
            _ => "",
        };
        let message = if new_routes.contains(route) {
            format!(
                "Route {} is new, served by {servers}, and newly called{across} by {callers}.",
                route.name()
            )
        } else {
            let verb = if calls.len() == 1 { "calls" } else { "call" };
            format!("{callers} newly {verb} route {}, served by {servers}.", route.name())
        };
        let mut justified = refs(Side::Head, calls.iter().copied());
        justified.extend(refs(Side::Head, serves));
        findings.push(Finding::new(kind, Subject::Node(route.clone()), message, justified));
    }
}

fn new_table(head: &Indexed<'_>, nodes: &NodesDiff, findings: &mut Vec<Finding>) {
    for table in nodes.added.iter().filter(|n| n.key.kind() == NodeKind::Table) {
        let mut uses = Vec::new();
        let mut justified = Vec::new();
        for (kind, verb) in [
            (EdgeKind::Defines, "defined"),
            (EdgeKind::Writes, "written"),
            (EdgeKind::Reads, "read"),
        ] {
            let edges: Vec<&Edge> = head.edges_into(&table.key, kind).collect();
            if !edges.is_empty() {
                uses.push(format!("{verb} by {}", sources(edges.iter().copied())));
                justified.extend(refs(Side::Head, edges));
            }
        }
        let message = format!("Table {} is new: {}.", table.key.name(), uses.join("; "));
        findings.push(Finding::new(
            FindingKind::NewTable,
            Subject::Node(table.key.clone()),
            message,
            justified,
        ));
    }
}

fn new_table_write(base: &Indexed<'_>, edges: &EdgesDiff, findings: &mut Vec<Finding>) {
    for write in edges.added.iter().filter(|e| e.kind == EdgeKind::Writes) {
        let new = if base.node(&write.to).is_none() { " (a new table)" } else { "" };
        let message = format!("{} newly writes table {}{new}.", write.from.name(), write.to.name());
        findings.push(Finding::new(
            FindingKind::NewTableWrite,
            Subject::Node(write.to.clone()),
            message,
            refs(Side::Head, [write]),
        ));
    }
}

fn new_env_var(head: &Indexed<'_>, nodes: &NodesDiff, findings: &mut Vec<Finding>) {
    for var in nodes.added.iter().filter(|n| n.key.kind() == NodeKind::EnvVar) {
        let reads: Vec<&Edge> = head.edges_into(&var.key, EdgeKind::ReadsEnv).collect();
        let message = format!(
            "Environment variable {} is newly read by {}.",
            var.key.name(),
            sources(reads.iter().copied())
        );
        findings.push(Finding::new(
            FindingKind::NewEnvVar,
            Subject::Node(var.key.clone()),
            message,
            refs(Side::Head, reads),
        ));
    }
}

/// The scheme and host of an external node's name: `https://api.x.com/repos/{}` →
/// `https://api.x.com`.
fn service(name: &str) -> &str {
    let host_start = name.find("://").map_or(0, |i| i + 3);
    match name[host_start..].find('/') {
        Some(i) => &name[..host_start + i],
        None => name,
    }
}

fn new_external_service(
    base: &Indexed<'_>,
    head: &Indexed<'_>,
    nodes: &NodesDiff,
    findings: &mut Vec<Finding>,
) {
    let known: BTreeSet<&str> = base
        .nodes
        .iter()
        .map(|n| &n.key)
        .filter(|k| k.kind() == NodeKind::External)
        .map(|k| service(k.name()))
        .collect();
    let mut services: BTreeMap<&str, Vec<&Edge>> = BTreeMap::new();
    for external in nodes.added.iter().filter(|n| n.key.kind() == NodeKind::External) {
        let host = service(external.key.name());
        if !known.contains(host) {
            services
                .entry(host)
                .or_default()
                .extend(head.edges_into(&external.key, EdgeKind::Calls));
        }
    }
    for (host, calls) in services {
        let message =
            format!("New external service {host}, called by {}.", sources(calls.iter().copied()));
        findings.push(Finding::new(
            FindingKind::NewExternalService,
            Subject::Node(NodeKey::from_parts(NodeKind::External, host)),
            message,
            refs(Side::Head, calls),
        ));
    }
}

fn new_package(head: &Indexed<'_>, nodes: &NodesDiff, findings: &mut Vec<Finding>) {
    let third_party = |key: &NodeKey| {
        let name = key.name();
        !(name.starts_with("python:") || name.starts_with("node:"))
    };
    for package in
        nodes.added.iter().filter(|n| n.key.kind() == NodeKind::Package && third_party(&n.key))
    {
        let imports: Vec<&Edge> = head.edges_into(&package.key, EdgeKind::Imports).collect();
        let message = format!(
            "Package {} is newly imported by {}.",
            package.key.name(),
            sources(imports.iter().copied())
        );
        findings.push(Finding::new(
            FindingKind::NewPackage,
            Subject::Node(package.key.clone()),
            message,
            refs(Side::Head, imports),
        ));
    }
}

fn runtime_module_import(edge: &Edge) -> bool {
    edge.kind == EdgeKind::Imports
        && !edge.type_only
        && edge.from.kind() == NodeKind::Module
        && edge.to.kind() == NodeKind::Module
}

fn new_cycle(
    base: &Indexed<'_>,
    head: &Indexed<'_>,
    cycles: &CyclesDiff,
    findings: &mut Vec<Finding>,
) {
    for cycle in &cycles.added {
        let Some(first) = cycle.modules.first() else { continue };
        let contained = base
            .cycles
            .iter()
            .any(|b| cycle.modules.iter().all(|m| b.modules.binary_search(m).is_ok()));
        if contained {
            continue;
        }
        let members: BTreeSet<&NodeKey> = cycle.modules.iter().collect();
        let mut imports: Vec<&Edge> = cycle
            .modules
            .iter()
            .flat_map(|m| head.edges_into(m, EdgeKind::Imports))
            .filter(|e| runtime_module_import(e) && members.contains(&e.from))
            .collect();
        // The new imports are what closed the cycle: name them first, production code before
        // tests and examples, each group by identity.
        imports.sort_by_cached_key(|e| {
            let noise = adjust::noise_of_path(e.location.path.as_str()).is_some();
            (base.has_edge(e), noise, e.identity())
        });
        let total = imports.len();
        let new = imports.iter().filter(|e| !base.has_edge(e)).count();
        let verb = if new == 1 { "is" } else { "are" };
        let imports_clause = format!("{new} of its {total} runtime imports {verb} new");
        // Base cycles that share modules with this one: it grew out of them (or merged them),
        // which a reviewer reads differently from a cycle that did not exist at all.
        let overlapping: Vec<&ImportCycle> =
            base.cycles.iter().filter(|b| b.modules.iter().any(|m| members.contains(m))).collect();
        let message = if overlapping.is_empty() {
            format!(
                "New import cycle among {} modules: {}; {imports_clause}.",
                cycle.modules.len(),
                list(cycle.modules.iter().map(NodeKey::name))
            )
        } else {
            let before: BTreeSet<&NodeKey> = overlapping.iter().flat_map(|b| &b.modules).collect();
            let joined: Vec<&NodeKey> =
                cycle.modules.iter().filter(|m| !before.contains(m)).collect();
            let left = before.iter().filter(|m| !members.contains(*m)).count();
            let sizes: Vec<String> =
                overlapping.iter().map(|b| b.modules.len().to_string()).collect();
            let origin = match sizes.as_slice() {
                [_] => {
                    let (was, now) = (before.len(), cycle.modules.len());
                    match now.cmp(&was) {
                        std::cmp::Ordering::Greater => {
                            format!("An import cycle grew from {was} to {now} modules")
                        }
                        std::cmp::Ordering::Less => {
                            format!("An import cycle shrank from {was} to {now} modules")
                        }
                        std::cmp::Ordering::Equal => {
                            format!("An import cycle of {was} modules changed members")
                        }
                    }
                }
                _ => format!(
                    "Import cycles of {} modules merged into one of {} modules",
                    join_and(&sizes),
                    cycle.modules.len()
                ),
            };
            let left_clause = if left > 0 { format!(", {left} left it") } else { String::new() };
            format!(
                "{origin}: {} joined ({}){left_clause}; {imports_clause}.",
                joined.len(),
                list(joined.iter().map(|m| m.name()))
            )
        };
        findings.push(Finding::new(
            FindingKind::NewCycle,
            Subject::Node(first.clone()),
            message,
            refs(Side::Head, imports.into_iter().take(MAX_CYCLE_EDGES)),
        ));
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Runtime module-to-module imports that cross components, by (from, to) component, each list
/// in identity order. Modules without a component are left out.
fn component_imports<'a>(side: &Indexed<'a>) -> BTreeMap<(&'a str, &'a str), Vec<&'a Edge>> {
    let component = |key: &NodeKey| side.node(key).and_then(|n| n.attrs.component.as_deref());
    let mut pairs: BTreeMap<(&str, &str), Vec<&Edge>> = BTreeMap::new();
    for edge in side.edges.iter().copied().filter(|e| runtime_module_import(e)) {
        if let (Some(from), Some(to)) = (component(&edge.from), component(&edge.to))
            && from != to
        {
            pairs.entry((from, to)).or_default().push(edge);
        }
    }
    pairs
}

fn new_component_dependency(base: &Indexed<'_>, head: &Indexed<'_>, findings: &mut Vec<Finding>) {
    let known = component_imports(base);
    for ((from, to), imports) in component_imports(head) {
        if known.contains_key(&(from, to)) {
            continue;
        }
        let count = imports.len();
        let plural = if count == 1 { "" } else { "s" };
        // Production imports first, so that the edges named show one whenever there is one.
        let mut imports = imports;
        imports.sort_by_cached_key(|e| {
            (adjust::noise_of_path(e.location.path.as_str()).is_some(), e.identity())
        });
        let message = format!(
            "Component {from} newly depends on component {to} through {count} runtime import{plural}."
        );
        findings.push(Finding::new(
            FindingKind::NewComponentDependency,
            Subject::Component(from.to_owned()),
            message,
            refs(Side::Head, imports.into_iter().take(MAX_COMPONENT_EDGES)),
        ));
    }
}
