//! HTTP calls: `calls` edges from modules to the routes they match, or to `external` nodes.
//!
//! For every call the extractor recorded: a client instance imported from another module is
//! followed through the import binding to its declaration and base URL; the URL is joined with
//! the instance's base; then
//! - an absolute URL on another host is an edge to an `external` node (scheme and host; the path
//!   is in the evidence);
//! - an unreadable URL or method is a `computed-url` refusal;
//! - a path is normalised with [`RouteTemplate::parse`] and matched against the served routes. The
//!   method must be served ([`HttpMethod::serves`]): a method mismatch is not a match. Among the
//!   template matches an exact one beats a partial one (through a catch-all or a call parameter),
//!   which beats a literal segment meeting a route parameter, so `/orders/export` matches the route
//!   `/orders/export`, never `/orders/{id}`, when both exist; a fallback catch-all with no literal
//!   segment (`/{*rest}`) comes after all of them; then the more specific route wins (a
//!   catch-all `/api/v2/pools/{*name}` over a fallback `/{*rest}`); then a route of the call's own
//!   method over one that serves every method. When a base URL of unknown value was stripped and no route
//!   but a fallback matches the whole path, the base is taken to supply a literal prefix (`/api`) and routes
//!   ending in the path match (exactly or through a parameter of the call; a literal of the call
//!   meeting a parameter of the route is no tail match). One best route gives one edge; several equally good ones give an
//!   edge to each, `possible`, every candidate named. No match is an `unmatched-call` refusal —
//!   never a nearest guess.
//!
//! A base of unknown value with a written default (`import.meta.env.VITE_API_URL ?? "/api/v1"`,
//! `os.environ.get("API", "http://localhost:8000/api/v1")`) is taken to hold the default's path,
//! and only routes under it match.
//!
//! Several call sites of one module reaching the same target are one edge carrying the strongest
//! site's confidence and evidence (see `fold`).
//!
//! Confidence: `certain` for an exact match of a path read whole from the source; `likely` when a
//! base was stripped or the match is partial; `possible` when a literal meets a parameter or the
//! match is ambiguous.

use std::cmp::Reverse;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use crate::recognise::calls::{CallClient, CallFact, CallUrl, ClientInstance};

mod resolve;
use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, HttpMethod, Node, NodeKey, Provenance, Refusal,
    RefusalKind, RouteTemplate, Segment, SourceLocation, TemplateMatch,
};

use crate::recognise::link::{FileView, LinkInput, Linked, ServedRoute};

/// Links calls to `routes`.
pub fn link(input: &LinkInput<'_>, routes: &[ServedRoute], linked: &mut Linked) {
    let index = RouteIndex::new(routes);
    // Each file's calls are followed on their own (the heaviest linker: wrappers are followed
    // across files), in parallel; the parts are joined in file order, so the result is the one a
    // loop over the files gives.
    let parts = input.each_file(&|i| {
        let mut part = Linked::default();
        link_file(input, &input.files[i], &index, &mut part);
        part
    });
    let mut merged: BTreeMap<(NodeKey, NodeKey), Edge> = BTreeMap::new();
    for part in parts {
        linked.nodes.extend(part.nodes);
        linked.refusals.extend(part.refusals);
        for edge in part.edges {
            match merged.entry((edge.from.clone(), edge.to.clone())) {
                Entry::Vacant(slot) => {
                    slot.insert(edge);
                }
                Entry::Occupied(mut slot) => fold(slot.get_mut(), edge),
            }
        }
    }
    linked.edges.extend(merged.into_values());
}

/// Links the calls and wrapper invocations of one file.
fn link_file<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    index: &RouteIndex<'_>,
    found: &mut Linked,
) {
    for call in &file.facts.calls.calls {
        link_call(input, file, call, index, found);
    }
    // Read here, each file's in its turn: held until now in the facts' spill.
    let invocations = file.facts.calls.invocations.try_to_vec().unwrap_or_else(|_| {
        found.refusals.push(crate::Undecodable::refusal(file.path, "HTTP call"));
        Vec::new()
    });
    for inv in &invocations {
        if let Some(resolved) = resolve::invocation(input, file, inv) {
            let location = SourceLocation::new(file.path.clone(), inv.line, inv.column);
            let who = format!("{} via {}", resolved.who, resolved.via.join(", "));
            let requests = resolved
                .urls
                .into_iter()
                .map(|(own, url)| Request {
                    who: who.clone(),
                    instance: resolved.instance,
                    own_base: call_has_own_base(&own),
                    url,
                    method: resolved.method,
                    provenance: Provenance::Resolver,
                    notes: resolved.notes.clone(),
                    named_segment: resolved.named_segment,
                })
                .collect();
            emit_branches(file, &location, requests, index, found);
        }
    }
}

/// Folds another call site of the same module to the same target into `kept`. Unlike the
/// analysis-wide merge, which keeps the earliest occurrence's evidence, the evidence kept here is
/// the strongest occurrence's (the earliest among equals): a module that calls
/// `GET /items/{id}` properly and also has a stale `GET /items/export` meeting the same route
/// gets one `likely` edge whose evidence describes the proper call, never the stale one's.
fn fold(kept: &mut Edge, other: Edge) {
    kept.occurrences = kept.occurrences.saturating_add(other.occurrences);
    if (other.confidence, &other.location) < (kept.confidence, &kept.location) {
        kept.confidence = other.confidence;
        kept.provenance = other.provenance;
        kept.evidence = other.evidence;
        kept.location = other.location;
    }
}

/// Served routes grouped by segment count, so a call is compared only with routes it can match.
/// A route served twice under one method and template (the same app mounted twice, copies of a
/// service in a monorepo) is one entry: a call's candidates are named by method and template only,
/// so the copies would be compared and then dropped as the same candidate.
struct RouteIndex<'r> {
    by_len: BTreeMap<usize, Vec<&'r ServedRoute>>,
    /// Routes with a catch-all segment match calls of several lengths.
    catch_all: Vec<&'r ServedRoute>,
}

impl<'r> RouteIndex<'r> {
    fn new(routes: &'r [ServedRoute]) -> Self {
        let mut by_len: BTreeMap<usize, Vec<&'r ServedRoute>> = BTreeMap::new();
        let mut catch_all = Vec::new();
        let mut seen = BTreeSet::new();
        for route in routes {
            if !seen.insert(NodeKey::route(route.method, &route.template)) {
                continue;
            }
            if route.template.segments().iter().any(|s| matches!(s, Segment::CatchAll(_))) {
                catch_all.push(route);
            } else {
                by_len.entry(route.template.segments().len()).or_default().push(route);
            }
        }
        Self { by_len, catch_all }
    }

    /// Routes that may match a call of `len` segments whole.
    fn whole(&self, len: usize) -> impl Iterator<Item = &'r ServedRoute> + '_ {
        self.by_len.get(&len).into_iter().flatten().chain(self.catch_all.iter()).copied()
    }

    /// Routes longer than `len` segments, which may end in a call's path.
    fn longer(&self, len: usize) -> impl Iterator<Item = &'r ServedRoute> + '_ {
        self.by_len
            .range(len + 1..)
            .flat_map(|(_, r)| r.iter())
            .chain(self.catch_all.iter())
            .copied()
    }
}

/// Who made a call, resolved: for evidence and for the base URL.
struct Caller<'a> {
    /// `fetch`, `axios instance api`, `httpx instance client imported from app/http.py`.
    who: String,
    instance: Option<&'a ClientInstance>,
    /// True when the instance was found in another module.
    across_files: bool,
}

/// A request to link, however it was found.
struct Request<'a> {
    /// Who made it, for evidence.
    who: String,
    /// The client instance whose base URL was applied.
    instance: Option<&'a ClientInstance>,
    /// True when the call's own URL carried the stripped base (not its client's).
    own_base: bool,
    /// The URL, the client's base applied.
    url: CallUrl,
    method: Option<HttpMethod>,
    provenance: Provenance,
    /// How the URL was resolved, for evidence.
    notes: Vec<String>,
    /// A caller's literal filled a whole path segment of a wrapper's URL (see `resolve.rs`).
    named_segment: bool,
}

fn link_call(
    input: &LinkInput<'_>,
    file: &FileView<'_>,
    call: &CallFact,
    index: &RouteIndex<'_>,
    linked: &mut Linked,
) {
    let Some(caller) = caller(input, file, call) else { return };
    let location = SourceLocation::new(file.path.clone(), call.line, call.column);
    let base = caller.instance.and_then(|i| i.base.as_ref());
    let mut notes = Vec::new();
    let owns = resolve::own_urls(input, file, &call.url, &mut notes);
    let provenance = if caller.across_files { Provenance::Resolver } else { Provenance::Syntax };
    let requests = owns
        .into_iter()
        .map(|own| Request {
            who: caller.who.clone(),
            instance: caller.instance,
            own_base: call_has_own_base(&own),
            url: CallUrl::joined(base, &own),
            method: call.method,
            provenance,
            notes: notes.clone(),
            named_segment: false,
        })
        .collect();
    emit_branches(file, &location, requests, index, linked);
}

/// Links a call whose URL is one of several, one per branch of a conditional: each branch that
/// reaches a route or an external host is an edge that says which branch it is; the call is
/// refused (once per branch) only when no branch is linked. A branch that matches nothing next
/// to one that does is the other side of the condition (`url.startsWith("http") ? url : …`),
/// not a finding.
fn emit_branches(
    file: &FileView<'_>,
    location: &SourceLocation,
    requests: Vec<Request<'_>>,
    index: &RouteIndex<'_>,
    linked: &mut Linked,
) {
    let count = requests.len();
    if count == 1 {
        for request in requests {
            emit(file, location.clone(), request, index, linked);
        }
        return;
    }
    let mut branches = Linked::default();
    for (k, mut request) in requests.into_iter().enumerate() {
        request.notes.push(format!("branch {} of {count} of a conditional URL", k + 1));
        emit(file, location.clone(), request, index, &mut branches);
    }
    if branches.edges.is_empty() {
        linked.refusals.append(&mut branches.refusals);
    } else {
        linked.edges.append(&mut branches.edges);
        linked.nodes.append(&mut branches.nodes);
    }
}

/// Links one request: an external edge, a route edge, or a refusal.
fn emit(
    file: &FileView<'_>,
    location: SourceLocation,
    request: Request<'_>,
    index: &RouteIndex<'_>,
    linked: &mut Linked,
) {
    let Request { who, instance, own_base, url, method, provenance, notes, named_segment } =
        request;
    let from = NodeKey::module(file.path);
    let noted = if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) };
    let (path, stripped) = match &url {
        CallUrl::Computed { reason } => {
            linked.refusals.push(Refusal::new(
                RefusalKind::ComputedUrl,
                location,
                format!("{who} call: {reason}"),
            ));
            return;
        }
        CallUrl::Deferred { .. } => {
            linked.refusals.push(Refusal::new(
                RefusalKind::ComputedUrl,
                location,
                format!(
                    "{who} call: the URL is built from a parameter or an imported value that cannot be read"
                ),
            ));
            return;
        }
        CallUrl::External { scheme, host, path } => {
            let key = NodeKey::external(scheme, host, None);
            let method = method.map_or("request", HttpMethod::as_str);
            let template = RouteTemplate::parse(path).identity();
            let evidence = format!(
                "{who} {method} to external host {} (path \"{template}\"){noted}",
                key.name()
            );
            linked.edge(
                Edge {
                    kind: EdgeKind::Calls,
                    from,
                    to: key.clone(),
                    evidence: Evidence::new(evidence),
                    provenance,
                    confidence: Confidence::Certain,
                    location,
                    type_only: false,
                    occurrences: 1,
                },
                Node::new(key),
            );
            return;
        }
        CallUrl::Path { path, stripped } => (path, stripped),
    };
    // A base of unknown value with a written default (`VITE_API_URL ?? "/api/v1"`) is taken to
    // hold that default's path.
    let default = stripped.as_ref().and_then(|s| s.default_path.as_deref());
    let template = match default {
        Some(prefix) => RouteTemplate::parse(path).prefixed(&RouteTemplate::parse(prefix)),
        None => RouteTemplate::parse(path),
    };
    let Some(method) = method else {
        linked.refusals.push(Refusal::new(
            RefusalKind::ComputedUrl,
            location,
            format!(
                "{who} call to {}: its HTTP method cannot be read, so it cannot be matched to a route",
                template.identity()
            ),
        ));
        return;
    };
    // A relative URL of one segment (`items.json`) with no client base is not matched by its
    // tail: too many routes end in one segment.
    let unknown_base = stripped.as_ref().is_some_and(|s| {
        !s.known_value && default.is_none() && !(s.relative && template.segments().len() < 2)
    });
    let found = best_routes(index, method, &template, unknown_base);
    // A caller's literal in a segment that only meets a route parameter names no route of its
    // own: the wrapper's request is the call site, and already linked there.
    if named_segment
        && !found.is_empty()
        && found.iter().all(|c| c.quality == TemplateMatch::LiteralMeetsParam)
    {
        return;
    }
    if found.is_empty() {
        linked.refusals.push(Refusal::new(
            RefusalKind::UnmatchedCall,
            location,
            format!("call to {method} {} matches no served route", template.identity()),
        ));
        return;
    }
    // The base clause: what was stripped, and from where.
    let default_clause = default.map_or(String::new(), |d| format!("; its default {d} applied"));
    let clause = match (stripped, own_base) {
        (None, _) => String::new(),
        (Some(s), true) | (Some(s), false) if s.known_value => {
            format!(" (local host {} stripped)", s.description)
        }
        (Some(s), _) if s.relative => format!(" (relative to {})", s.description),
        (Some(s), true) => format!(" (base {} stripped{default_clause})", s.description),
        (Some(s), false) => {
            let key = instance.map_or("base URL", |i| base_key(i.library));
            format!(" ({key} from {}, stripped{default_clause})", s.description)
        }
    };
    let ambiguous = found.len() > 1;
    let all: Vec<String> = found.iter().map(|c| describe(c.route)).collect();
    for candidate in &found {
        let route = candidate.route;
        let mut evidence = format!(
            "{who}{clause} {method} \"{}\" matches route {}",
            template.identity(),
            describe(route)
        );
        if let Some(prefix) = &candidate.prefix {
            evidence.push_str(&format!(", the stripped base taken to supply the prefix {prefix}"));
        }
        match candidate.quality {
            TemplateMatch::Exact => {}
            TemplateMatch::Partial => {
                evidence.push_str(", only through a catch-all or a parameter of the call");
            }
            TemplateMatch::LiteralMeetsParam => {
                evidence.push_str("; a literal segment meets a route parameter");
            }
        }
        if ambiguous {
            evidence.push_str(&format!(
                "; one of {} equally good candidates: {}",
                all.len(),
                all.join(", ")
            ));
        }
        evidence.push_str(&noted);
        let confidence = if ambiguous || candidate.quality == TemplateMatch::LiteralMeetsParam {
            Confidence::Possible
        } else if candidate.quality == TemplateMatch::Partial
            || stripped.is_some()
            || candidate.prefix.is_some()
        {
            Confidence::Likely
        } else {
            Confidence::Certain
        };
        let key = NodeKey::route(route.method, &route.template);
        linked.edge(
            Edge {
                kind: EdgeKind::Calls,
                from: from.clone(),
                to: key.clone(),
                evidence: Evidence::new(evidence),
                provenance: Provenance::Resolver,
                confidence,
                location: location.clone(),
                type_only: false,
                occurrences: 1,
            },
            Node::new(key),
        );
    }
}

fn describe(route: &ServedRoute) -> String {
    format!("{} {}", route.method, route.template.display())
}

/// True when the call's own URL carried the stripped base (not its client's).
fn call_has_own_base(url: &CallUrl) -> bool {
    matches!(url, CallUrl::Path { stripped: Some(_), .. })
}

/// How each library names a client's base URL.
fn base_key(library: &str) -> &'static str {
    match library {
        "axios" => "baseURL",
        "ky" => "prefixUrl",
        "httpx" | "aiohttp" => "base_url",
        _ => "base URL",
    }
}

/// Resolves who made a call; `None` when an imported receiver is not a client instance.
fn caller<'a>(
    input: &'a LinkInput<'_>,
    file: &FileView<'_>,
    call: &'a CallFact,
) -> Option<Caller<'a>> {
    match &call.client {
        CallClient::Library(name) => Some(Caller {
            who: library_label(name).to_owned(),
            instance: None,
            across_files: false,
        }),
        CallClient::Instance(instance) => Some(Caller {
            who: format!("{} instance {}", instance.library, instance.name),
            instance: Some(instance),
            across_files: false,
        }),
        CallClient::Imported { receiver } => {
            let (instance, module) = resolve::imported_instance(input, file, receiver)?;
            let who = match receiver.strip_suffix("()") {
                Some(f) => {
                    format!("{} instance returned by {f}, imported from {module}", instance.library)
                }
                None => format!("{} instance {receiver} imported from {module}", instance.library),
            };
            Some(Caller { who, instance: Some(instance), across_files: true })
        }
    }
}

fn library_label(name: &str) -> &str {
    match name {
        "openapi" => "generated OpenAPI client",
        "angular" => "Angular HttpClient",
        other => other,
    }
}

/// One route a call may reach.
struct Candidate<'r> {
    route: &'r ServedRoute,
    quality: TemplateMatch,
    /// For a match of the path's tail: the literal prefix the stripped base is taken to supply.
    prefix: Option<String>,
    /// How specific the matched part of the route is ([`specificity`]).
    specificity: (usize, usize),
}

/// The best matching routes, one per route node.
fn best_routes<'r>(
    index: &RouteIndex<'r>,
    method: HttpMethod,
    call: &RouteTemplate,
    unknown_base: bool,
) -> Vec<Candidate<'r>> {
    let len = call.segments().len();
    let mut found: Vec<Candidate<'r>> = index
        .whole(len)
        .filter(|r| r.method.serves(method))
        .filter_map(|r| {
            call.matches_route(&r.template).map(|quality| Candidate {
                route: r,
                quality,
                prefix: None,
                specificity: specificity(&r.template),
            })
        })
        .collect();
    // A fallback matches every path: the tail of a route under the base is a better reading.
    // So is an exact tail next to a route met only through its catch-all (`/secret/{*}` for
    // `/secret/{}/exist`, where `/api/secret/{id}/exist` is served): a catch-all takes what
    // no route serves, and the base, whose value is unknown, may well be `/api`.
    let through_catch_all = |c: &Candidate<'_>| {
        is_fallback(&c.route.template)
            || (c.quality == TemplateMatch::Partial && has_catch_all(&c.route.template))
    };
    if found.iter().all(through_catch_all) && unknown_base && len > 0 {
        let tails: Vec<Candidate<'r>> = index
            .longer(len)
            .filter(|r| r.method.serves(method))
            .filter_map(|r| tail_match(call, r))
            .collect();
        let only_fallbacks = found.iter().all(|c| is_fallback(&c.route.template));
        if only_fallbacks && !tails.is_empty()
            || tails.iter().any(|c| c.quality == TemplateMatch::Exact)
        {
            found = tails;
        }
    }
    // Better match first, then the more specific route (a catch-all `/api/v2/pools/{*name}` beats
    // a fallback `/{*rest}`), then a route of the call's own method over one serving any. A
    // fallback, which every path reaches, ranks below even a literal meeting a parameter.
    let rank = |c: &Candidate<'_>| {
        (
            is_fallback(&c.route.template),
            c.quality,
            Reverse(c.specificity),
            c.route.method != method,
        )
    };
    let Some(best) = found.iter().map(rank).min() else { return Vec::new() };
    let mut seen = BTreeSet::new();
    let mut best_found: Vec<Candidate<'r>> = found
        .into_iter()
        .filter(|c| rank(c) == best)
        .filter(|c| seen.insert(NodeKey::route(c.route.method, &c.route.template)))
        .collect();
    best_found.sort_by_key(|c| NodeKey::route(c.route.method, &c.route.template));
    best_found
}

/// A route with a catch-all segment (`/secret/{*}`).
fn has_catch_all(template: &RouteTemplate) -> bool {
    template.segments().iter().any(|s| matches!(s, Segment::CatchAll(_)))
}

/// A catch-all route with no literal segment (`/{*rest}`): every path reaches it.
fn is_fallback(template: &RouteTemplate) -> bool {
    has_catch_all(template) && !template.segments().iter().any(|s| matches!(s, Segment::Literal(_)))
}

/// How specific a route is: its literal segments, then its segments before any catch-all.
fn specificity(template: &RouteTemplate) -> (usize, usize) {
    let segments = template.segments();
    let literals = segments.iter().filter(|s| matches!(s, Segment::Literal(_))).count();
    let fixed = segments.iter().take_while(|s| !matches!(s, Segment::CatchAll(_))).count();
    (literals, fixed)
}

/// A route whose literal head is taken as the stripped base's path and whose tail matches.
fn tail_match<'r>(call: &RouteTemplate, route: &'r ServedRoute) -> Option<Candidate<'r>> {
    let segments = route.template.segments();
    let len = call.segments().len();
    let split = segments.len().checked_sub(len).filter(|s| *s > 0)?;
    let (head, tail) = segments.split_at(split);
    if !head.iter().all(|s| matches!(s, Segment::Literal(_))) {
        return None;
    }
    let tail = RouteTemplate::from_segments(tail.to_vec());
    // The prefix is already the base's guess: a literal of the call meeting a parameter of the
    // route on top of it (`/pages/{id}` against `/anchor/{anchor}/pages`) is no match.
    let quality = call.matches_route(&tail).filter(|q| *q != TemplateMatch::LiteralMeetsParam)?;
    // Only the tail was matched; the head is whatever the base supplies.
    let specificity = specificity(&tail);
    let prefix = RouteTemplate::from_segments(head.to_vec()).display();
    Some(Candidate { route, quality, prefix: Some(prefix), specificity })
}
