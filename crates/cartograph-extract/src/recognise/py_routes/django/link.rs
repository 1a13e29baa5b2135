//! Django URL confs and Django REST Framework routers.
//!
//! Roots are the modules named by a literal `ROOT_URLCONF` setting, or else every module with
//! `urlpatterns` that no other module includes. From each root the `urlpatterns` list is walked
//! with an explicit stack; `include("dotted.module")` continues in the module with that Python
//! name, `include(name)` in a list of the same or an imported module, `include([...])` in the
//! inline list, `include(router.urls)` expands the router's registrations. Route strings are
//! concatenated the way Django does; simple `re_path` regexes are converted (`^items/(?P<id>\d+)/$`
//! → `items/{id}`), others refused. Views serve `ANY` unless a decorator restricts a function view.

use std::collections::HashSet;

use crate::recognise::py_routes::{UrlEntry, UrlFunction, UrlTarget};
use cartograph_core::{
    Confidence, HttpMethod, Provenance, RefusalKind, RouteTemplate, SourceLocation,
};

use super::drf::{Registrations, drf_registrations, drf_router, drf_routes};
use super::{Def, FileIdx, FrameworkClass, Names, Output, UNKNOWN_PREFIX};
use crate::recognise::link::ServedRoute;

/// The most include levels followed from one root.
const MAX_DEPTH: usize = 24;

/// Which list a frame walks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum List<'a> {
    Named(&'a str),
    /// The entries of an inline `include([...])`: children of this entry index.
    Inline(usize),
}

/// One list to walk, with the path and chain that lead to it.
#[derive(Clone)]
pub(super) struct Frame<'a> {
    file: FileIdx,
    list: List<'a>,
    pub(super) prefix: String,
    /// Evidence steps, outermost first.
    pub(super) chain: Vec<String>,
    other_files: bool,
    pub(super) confidence: Confidence,
    /// (file, list) pairs on the way here: an include cycle stops.
    visited: Vec<(FileIdx, List<'a>)>,
    /// Includes on the way here whose route is computed (where, and what), each an unknown
    /// segment of the path.
    unknown: Vec<(SourceLocation, String)>,
}

pub(super) fn link(names: &Names<'_>, out: &mut Output) {
    let mut url_files = Vec::new();
    let mut included: HashSet<FileIdx> = HashSet::new();
    let mut root_conf: Vec<FileIdx> = Vec::new();
    for file in names.python_files() {
        let Some(facts) = names.facts(file) else { continue };
        if facts.url_entries.iter().any(|e| e.list == "urlpatterns") {
            url_files.push(file);
        }
        // A test URL conf's includes do not make a module a non-root (see `chains`).
        for entry in facts.url_entries.iter().filter(|_| !names.is_test_file(file)) {
            let target = match &entry.target {
                UrlTarget::IncludeModule(m) => names.by_module.get(m.as_str()).copied(),
                // `include(shop_urls)` after `from shop import urls as shop_urls`.
                UrlTarget::IncludeList(name) | UrlTarget::IncludeObject(name) => {
                    // `[*cycle_urls]` after `from .cycle import urlpatterns as cycle_urls`.
                    match names.resolve(file, name) {
                        Some((Def::Module(m) | Def::UrlList(m, _), rest)) if rest.is_empty() => {
                            Some(m)
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(target) = target.filter(|t| *t != file) {
                included.insert(target);
            }
        }
        for c in facts.constants.iter().filter(|c| c.name == "ROOT_URLCONF") {
            let target =
                c.value.as_literal().and_then(|m| names.by_module.get(m.as_str()).copied());
            root_conf.extend(target);
        }
    }
    let unincluded: Vec<FileIdx> =
        url_files.iter().copied().filter(|f| !included.contains(f)).collect();
    let mut roots: Vec<(FileIdx, Confidence, String)> = Vec::new();
    for &file in &unincluded {
        let shown = names.path_str(file);
        let root = if names.is_test_file(file) && !root_conf.contains(&file) {
            (file, Confidence::Possible, format!("URL conf {shown} of the tests"))
        } else if root_conf.contains(&file) {
            (file, Confidence::Certain, format!("root URL conf {shown} (ROOT_URLCONF)"))
        } else if !root_conf.is_empty() {
            (
                file,
                Confidence::Possible,
                format!("URL conf {shown}, which neither ROOT_URLCONF nor any include reaches"),
            )
        } else if unincluded.len() == 1 {
            (file, Confidence::Certain, format!("root URL conf {shown}"))
        } else {
            (
                file,
                Confidence::Likely,
                format!("URL conf {shown}, one of several that no other conf includes"),
            )
        };
        roots.push(root);
    }
    // DRF routers: registrations grouped by the router object they resolve to.
    let registrations = drf_registrations(names);
    let mut reached: HashSet<(FileIdx, usize)> = HashSet::new();
    for (file, confidence, step) in roots {
        walk(
            names,
            Frame {
                file,
                list: List::Named("urlpatterns"),
                prefix: String::new(),
                chain: vec![step],
                other_files: false,
                confidence,
                visited: Vec::new(),
                unknown: Vec::new(),
            },
            &registrations,
            &mut reached,
            out,
        );
    }
    // Ninja APIs that no URL conf includes still serve their paths, relative to the site root.
    let unplaced: Vec<(FileIdx, usize)> =
        out.ninja.keys().copied().filter(|k| !reached.contains(k)).collect();
    for (file, index) in unplaced {
        let Some(instance) = names.facts(file).and_then(|f| f.instances.get(index)) else {
            continue;
        };
        let frame = unincluded_frame(names, file, &instance.name);
        ninja_routes(&frame, (file, index), out);
    }
    // Routers whose `urls` no URL conf includes still serve their registrations' paths.
    let mut unreached: Vec<&(FileIdx, usize)> =
        registrations.keys().filter(|k| !reached.contains(k)).collect();
    unreached.sort_unstable();
    for &(file, index) in unreached {
        let Some(instance) = names.facts(file).and_then(|f| f.instances.get(index)) else {
            continue;
        };
        let frame = unincluded_frame(names, file, &instance.name);
        drf_routes(names, &frame, (file, index), instance, &registrations, out);
    }
}

/// The frame of an object whose `urls` no URL conf includes: its paths relative to the root,
/// `possible`.
fn unincluded_frame<'a>(names: &Names<'a>, file: FileIdx, name: &str) -> Frame<'a> {
    Frame {
        file,
        list: List::Named(""),
        prefix: String::new(),
        chain: vec![format!(
            "{name} in {} is not included in any URL conf found, so the path may lack prefixes",
            names.path_str(file)
        )],
        other_files: false,
        confidence: Confidence::Possible,
        visited: Vec::new(),
        unknown: Vec::new(),
    }
}

/// The Django Ninja API a name (`api` of `api.urls`) in `file` refers to.
fn ninja_api(names: &Names<'_>, file: FileIdx, name: &str) -> Option<(FileIdx, usize)> {
    let (def, rest) = names.resolve(file, name)?;
    let Def::Instance(f, instance) = def else { return None };
    if !rest.is_empty() || names.instance_class(f, instance) != Some(FrameworkClass::NinjaApi) {
        return None;
    }
    let index = names.facts(f)?.instances.iter().position(|i| std::ptr::eq(i, instance))?;
    Some((f, index))
}

/// The Django Ninja API whose `urls` a plain name stands for: `urls = api.urls` in `file` or in
/// the module the name is imported from.
fn ninja_urls_alias(names: &Names<'_>, file: FileIdx, name: &str) -> Option<(FileIdx, usize)> {
    if name.contains('.') {
        return None;
    }
    let (mut file, mut name) = (file, name.to_owned());
    for _ in 0..super::MAX_HOPS {
        let facts = names.facts(file)?;
        if let Some(alias) = facts.aliases.iter().find(|a| a.name == name && !a.call) {
            return ninja_api(names, file, alias.target.strip_suffix(".urls")?);
        }
        let binding = names.input.binding(names.path(file)?, &name)?;
        file = names.file_of(&binding.target)?;
        binding.member.as_deref()?.clone_into(&mut name);
    }
    None
}

/// The routes of a Django Ninja API placed under a frame (a URL conf's prefix and chain).
fn ninja_routes(frame: &Frame<'_>, api: (FileIdx, usize), out: &mut Output) {
    let prefix = RouteTemplate::parse(&frame.prefix);
    let placed: Vec<(ServedRoute, Vec<(SourceLocation, String)>)> = out
        .ninja
        .get(&api)
        .map(|routes| routes.iter().map(|r| (r.route.clone(), r.unknown.clone())).collect())
        .unwrap_or_default();
    for (mut route, unknown) in placed {
        route.template = route.template.prefixed(&prefix);
        let mut evidence = format!(
            "Django Ninja route {} {}{}",
            route.method,
            route.template.display(),
            route.evidence
        );
        for step in frame.chain.iter().rev() {
            evidence.push_str(", ");
            evidence.push_str(step);
        }
        route.evidence = evidence;
        route.confidence = route.confidence.max(frame.confidence);
        if frame.other_files {
            route.provenance = Provenance::Resolver;
        }
        for key in unknown.iter().chain(&frame.unknown) {
            *out.unknown_prefixes.entry(key.clone()).or_default() += 1;
        }
        out.routes.push(route);
    }
}

fn walk<'a>(
    names: &Names<'a>,
    root: Frame<'a>,
    registrations: &Registrations<'a>,
    reached: &mut HashSet<(FileIdx, usize)>,
    out: &mut Output,
) {
    let mut stack = vec![root];
    while let Some(frame) = stack.pop() {
        let Some(facts) = names.facts(frame.file) else { continue };
        let entries = facts.url_entries.iter().enumerate().filter(|(_, e)| match frame.list {
            List::Named(name) => e.parent.is_none() && e.list == name,
            List::Inline(parent) => e.parent == Some(parent),
        });
        let mut children = Vec::new();
        for (index, entry) in entries {
            if let Some(next) = step(names, &frame, index, entry, registrations, reached, out) {
                children.push(next);
            }
        }
        stack.extend(children.into_iter().rev());
    }
}

/// One entry: a route, or the frame of what it includes.
fn step<'a>(
    names: &Names<'a>,
    frame: &Frame<'a>,
    index: usize,
    entry: &'a UrlEntry,
    registrations: &Registrations<'a>,
    reached: &mut HashSet<(FileIdx, usize)>,
    out: &mut Output,
) -> Option<Frame<'a>> {
    let location = names.location(frame.file, entry.line, entry.column)?;
    let is_include = !matches!(entry.target, UrlTarget::View { .. });
    // A root conf's first include under a computed route is a deployment base path (NetBox's
    // `path(settings.BASE_PATH, include(_patterns))`): what it includes is placed relative to
    // it, `likely`, and the evidence says so.
    let mut base_path = None;
    // An include under a computed route elsewhere keeps what it includes under an unknown
    // segment, at most `possible`; one refusal per such entry counts the routes below it.
    let mut unknown_here = None;
    let written = match names.resolve_path(frame.file, &entry.route) {
        Ok(p) => p.value,
        Err(why) if is_include && frame.visited.is_empty() && frame.prefix.is_empty() => {
            base_path = Some(format!(
                "relative to a deployment base path built from {why}, taken as the root"
            ));
            String::new()
        }
        Err(why) if is_include => {
            let key = (location.clone(), format!("Django include whose route is built from {why}"));
            out.unknown_prefixes.entry(key.clone()).or_default();
            unknown_here = Some(key);
            format!("{UNKNOWN_PREFIX}/")
        }
        Err(why) => {
            out.refuse(
                RefusalKind::ComputedRoute,
                location,
                format!(
                    "Django URL entry built from {why}; it and what it includes are not placed"
                ),
            );
            return None;
        }
    };
    let piece = match entry.function {
        _ if unknown_here.is_some() => written,
        UrlFunction::Path => written,
        UrlFunction::RePath => match regex_to_path(&written, is_include) {
            Some(p) => p,
            None => {
                out.refuse(
                    RefusalKind::ComputedRoute,
                    location,
                    "Django re_path regex is not a plain sequence of literal segments and named \
                     groups; it and what it includes are not placed"
                        .to_owned(),
                );
                return None;
            }
        },
    };
    let prefix = format!("{}{piece}", frame.prefix);
    let shown_piece = if piece.is_empty() { "an empty route".to_owned() } else { piece };
    let here = names.path_str(frame.file);
    let next_frame = |file: FileIdx, list: List<'a>, what: String| -> Option<Frame<'a>> {
        if frame.visited.contains(&(file, list)) || frame.visited.len() >= MAX_DEPTH {
            return None;
        }
        let mut chain = frame.chain.clone();
        match &base_path {
            Some(base) => chain.push(format!("{what} in {here} {base}")),
            None if unknown_here.is_some() => chain.push(format!(
                "{what} in {here} under a computed route, kept as an unknown segment so the \
                 route is at most possible"
            )),
            None => chain.push(format!("{what} under {shown_piece} in {here}")),
        }
        let mut visited = frame.visited.clone();
        visited.push((frame.file, frame.list));
        let mut unknown = frame.unknown.clone();
        unknown.extend(unknown_here.clone());
        Some(Frame {
            file,
            list,
            prefix: prefix.clone(),
            chain,
            other_files: frame.other_files || file != frame.file,
            confidence: if !unknown.is_empty() {
                Confidence::Possible
            } else if base_path.is_some() {
                frame.confidence.max(Confidence::Likely)
            } else {
                frame.confidence
            },
            visited,
            unknown,
        })
    };
    match &entry.target {
        UrlTarget::View { handler, class_based } => {
            // `path("v1/", v1_urls)` after `urls = api.urls` and `import urls as v1_urls`.
            if let Some(api) = ninja_urls_alias(names, frame.file, handler) {
                let api_frame =
                    next_frame(api.0, List::Named(""), format!("{handler} (its urls) included"))?;
                reached.insert(api);
                ninja_routes(&api_frame, api, out);
                return None;
            }
            let before = out.routes.len();
            view_routes(names, frame, entry, &prefix, handler, *class_based, out);
            count_unknown(frame, out.routes.len() - before, out);
            None
        }
        UrlTarget::IncludeModule(module) => match names.by_module.get(module.as_str()) {
            Some(&target) => {
                let shown = names.path_str(target);
                next_frame(target, List::Named("urlpatterns"), format!("{shown} included"))
            }
            None => {
                out.refuse(
                    RefusalKind::UnresolvedMount,
                    location,
                    format!("Django include of {module}, which is not a module of the tree"),
                );
                None
            }
        },
        UrlTarget::Inline => next_frame(frame.file, List::Inline(index), "inline list".to_owned()),
        UrlTarget::IncludeList(name) | UrlTarget::IncludeObject(name) => {
            let object = name.strip_suffix(".urls");
            if let Some(api) = object.and_then(|o| ninja_api(names, frame.file, o)) {
                let api_frame = next_frame(api.0, List::Named(""), format!("{name} included"))?;
                reached.insert(api);
                ninja_routes(&api_frame, api, out);
                return None;
            }
            if let Some(router) = object.and_then(|o| drf_router(names, frame.file, o)) {
                let instance = names.facts(router.0)?.instances.get(router.1)?;
                let mut router_frame =
                    next_frame(router.0, List::Named(""), format!("{name} included"))?;
                router_frame.other_files |= router.0 != frame.file;
                reached.insert(router);
                let before = out.routes.len();
                drf_routes(names, &router_frame, router, instance, registrations, out);
                count_unknown(&router_frame, out.routes.len() - before, out);
                return None;
            }
            match names.resolve(frame.file, name) {
                Some((Def::UrlList(f, list), rest)) if rest.is_empty() => {
                    next_frame(f, List::Named(list), format!("list {name} included"))
                }
                Some((Def::Module(f), rest)) if rest.is_empty() => next_frame(
                    f,
                    List::Named("urlpatterns"),
                    format!("{} included", names.path_str(f)),
                ),
                _ => {
                    out.refuse(
                        RefusalKind::UnresolvedMount,
                        location,
                        format!(
                            "Django include of {name}, which is not a URL list, URL module or \
                             router found in the tree"
                        ),
                    );
                    None
                }
            }
        }
        UrlTarget::Computed => {
            out.refuse(
                RefusalKind::ComputedRoute,
                location,
                "Django URL entry whose view or include is computed".to_owned(),
            );
            None
        }
    }
}

/// Adds routes placed below a frame to the count of each computed include on its way.
fn count_unknown(frame: &Frame<'_>, routes: usize, out: &mut Output) {
    for key in &frame.unknown {
        *out.unknown_prefixes.entry(key.clone()).or_default() += routes;
    }
}

fn view_routes(
    names: &Names<'_>,
    frame: &Frame<'_>,
    entry: &UrlEntry,
    path: &str,
    handler: &str,
    class_based: bool,
    out: &mut Output,
) {
    let Some(location) = names.location(frame.file, entry.line, entry.column) else { return };
    let (handler_file, function) = names.function(frame.file, handler);
    let Some(module) = names.path(handler_file).cloned() else { return };
    let (methods, why) = if !entry.as_view_methods.is_empty() {
        (entry.as_view_methods.clone(), "the methods of its as_view mapping")
    } else if class_based {
        match class_view_methods(names, frame.file, handler) {
            Some(m) => (m, "the methods its class defines"),
            None => (vec![HttpMethod::Any], "a class-based view whose methods are not known"),
        }
    } else {
        let restricted = names
            .facts(handler_file)
            .and_then(|f| f.views.iter().find(|v| v.function == function))
            .map(|v| v.methods.clone());
        match restricted {
            Some(m) => (m, "restricted by its decorator"),
            None => (vec![HttpMethod::Any], "a function view with no method restriction"),
        }
    };
    let template = RouteTemplate::parse(path);
    let function_name = if class_based { "path() with as_view" } else { "path()" };
    for method in methods {
        let mut evidence = format!(
            "Django route {method} {} from {function_name} to {handler} ({why}) in {}",
            template.display(),
            names.path_str(frame.file)
        );
        for step in frame.chain.iter().rev() {
            evidence.push_str(", ");
            evidence.push_str(step);
        }
        out.routes.push(ServedRoute {
            method,
            template: template.clone(),
            module: module.clone(),
            handler: Some(function.clone()),
            location: location.clone(),
            framework: "django",
            provenance: if frame.other_files { Provenance::Resolver } else { Provenance::Syntax },
            confidence: frame.confidence,
            evidence,
        });
    }
}

/// The methods a class-based view serves: handler methods its in-tree classes define plus those
/// of the well-known generic bases; `None` when a base is not known (it may define more).
fn class_view_methods(names: &Names<'_>, file: FileIdx, class: &str) -> Option<Vec<HttpMethod>> {
    use HttpMethod::{Delete, Get, Patch, Post, Put};
    let lineage = names.lineage(file, class);
    if lineage.classes.is_empty() {
        return None;
    }
    let mut methods: Vec<HttpMethod> = Vec::new();
    for base in &lineage.external_bases {
        let provided: &[HttpMethod] = match *base {
            "View"
            | "APIView"
            | "GenericAPIView"
            | "MethodView"
            | "object"
            | "LoginRequiredMixin"
            | "PermissionRequiredMixin" => &[],
            "TemplateView" | "ListView" | "DetailView" | "ListAPIView" | "RetrieveAPIView" => {
                &[Get]
            }
            "FormView" | "CreateView" | "UpdateView" => &[Get, Post],
            "DeleteView" => &[Get, Post, Delete],
            // DRF's token endpoint (`rest_framework.authtoken.views`).
            "CreateAPIView" | "ObtainAuthToken" => &[Post],
            "DestroyAPIView" => &[Delete],
            "UpdateAPIView" => &[Put, Patch],
            "ListCreateAPIView" => &[Get, Post],
            "RetrieveUpdateAPIView" => &[Get, Put, Patch],
            "RetrieveDestroyAPIView" => &[Get, Delete],
            "RetrieveUpdateDestroyAPIView" => &[Get, Put, Patch, Delete],
            _ => return None,
        };
        methods.extend(provided);
    }
    for (_, c) in &lineage.classes {
        methods.extend(c.methods.iter().filter_map(|m| match m.as_str() {
            "get" | "post" | "put" | "patch" | "delete" | "head" | "options" => {
                HttpMethod::parse(m)
            }
            _ => None,
        }));
    }
    methods.sort();
    methods.dedup();
    (!methods.is_empty()).then_some(methods)
}

/// Converts a simple `re_path` regex to a Django-style path string: `^items/(?P<id>\d+)/$` →
/// `items/{id}/`. `None` for alternation, quantifiers on literals, unnamed groups, classes
/// outside a named group, and anything else that is not a fixed sequence of segments.
pub(super) fn regex_to_path(regex: &str, is_include: bool) -> Option<String> {
    let mut rest = regex.strip_prefix('^').unwrap_or(regex);
    if let Some(r) = rest.strip_suffix('$') {
        rest = r;
    } else if !is_include && !rest.is_empty() {
        // Without `$` a view's regex matches any longer path too.
        return None;
    }
    let rest = rest.strip_suffix("/?").map_or_else(|| rest.to_owned(), |r| format!("{r}/"));
    let mut out = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' => {
                // Only `(?P<name>...)` with a body free of groups and slashes.
                if chars.next()? != '?' || chars.next()? != 'P' || chars.next()? != '<' {
                    return None;
                }
                let mut name = String::new();
                for n in chars.by_ref() {
                    if n == '>' {
                        break;
                    }
                    name.push(n);
                }
                if name.is_empty() || !name.chars().all(|n| n.is_alphanumeric() || n == '_') {
                    return None;
                }
                let mut depth = 0u32;
                loop {
                    match chars.next()? {
                        '\\' => {
                            chars.next()?;
                        }
                        '[' => depth += 1,
                        ']' => depth = depth.checked_sub(1)?,
                        '(' | '/' if depth == 0 => return None,
                        ')' if depth == 0 => break,
                        _ => {}
                    }
                }
                out.push('{');
                out.push_str(&name);
                out.push('}');
            }
            '\\' => match chars.next()? {
                e @ ('.' | '-' | '/' | '_') => out.push(e),
                _ => return None,
            },
            c if c.is_alphanumeric() || matches!(c, '/' | '-' | '_' | '~' | '@' | ':' | ',') => {
                out.push(c);
            }
            // `.` unescaped matches any character; quantifiers, classes and alternation make
            // the path a pattern, not a template.
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::regex_to_path;

    #[test]
    fn simple_regexes_convert_and_others_are_refused() {
        let cases: &[(&str, bool, Option<&str>)] = &[
            (r"^items/(?P<id>\d+)/$", false, Some("items/{id}/")),
            (r"^items/(?P<slug>[-\w]+)/?$", false, Some("items/{slug}/")),
            (r"^api/", true, Some("api/")),
            (r"^$", false, Some("")),
            (r"^feed\.xml$", false, Some("feed.xml")),
            (r"^items/", false, None),
            (r"^(a|b)/$", false, None),
            (r"^items/\d+/$", false, None),
            (r"^x.y$", false, None),
            (r"^items/(?P<rest>.*/.*)$", false, None),
        ];
        for (regex, include, expected) in cases {
            assert_eq!(regex_to_path(regex, *include).as_deref(), *expected, "{regex}");
        }
    }
}
