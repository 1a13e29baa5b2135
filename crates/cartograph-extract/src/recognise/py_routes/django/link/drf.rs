//! Django REST Framework routers: `router.register(prefix, ViewSet)` expanded into the
//! conventional list (`/prefix`) and detail (`/prefix/{lookup}`) routes and the viewset's
//! `@action` routes, at the place where `router.urls` is included (`likely`, `convention`).
//!
//! The actions a viewset serves come from its in-tree classes (`list`, `create`, `retrieve`,
//! `update`, `partial_update`, `destroy` methods) and its well-known bases (`ModelViewSet`,
//! `ReadOnlyModelViewSet`, the model mixins); a viewset with a base that is not known, or not
//! found at all, is assumed to serve every standard action, with confidence `possible`. A
//! third-party mixin beside DRF's own bases (`AccessViewSetMixin` of `rest_access_policy`) is
//! taken to add no routed action, and the evidence says so. A standard action whose nearest
//! definition only raises `MethodNotAllowed` is not served. A literal `http_method_names` on the
//! viewset or a base it inherits limits every route to the methods it lists. The viewset is the
//! class the registration's name leads to through the URL conf's imports (star imports of a
//! package's `__init__` too), so two viewsets of one name in different packages stay apart.
//! A drf-nested-routers router's registrations sit below its parent registration's detail
//! route: `NestedSimpleRouter(router, r"tables", lookup="table")` puts them under
//! `tables/{table_pk}/` (the parent viewset's lookup field, `pk` by default).

use std::collections::HashMap;

use crate::recognise::py_routes::{ClassDecl, Instance};
use cartograph_core::{Confidence, HttpMethod, Provenance, RefusalKind, RouteTemplate};

use super::django::{Frame, regex_to_path};
use super::{Def, FileIdx, FrameworkClass, Names, Output};
use crate::recognise::link::ServedRoute;

pub(super) type Registrations<'a> = HashMap<(FileIdx, usize), Vec<(FileIdx, usize)>>;

/// Router object → (file, registration index) of every `router.register(...)` on it.
pub(super) fn drf_registrations<'a>(names: &Names<'a>) -> Registrations<'a> {
    let mut map: Registrations<'a> = HashMap::new();
    for file in names.python_files() {
        let Some(facts) = names.facts(file) else { continue };
        for (r, registration) in facts.registrations.iter().enumerate() {
            if let Some(router) = drf_router(names, file, &registration.router) {
                map.entry(router).or_default().push((file, r));
            }
        }
    }
    map
}

/// The DRF router a dotted name refers to.
pub(super) fn drf_router(
    names: &Names<'_>,
    file: FileIdx,
    dotted: &str,
) -> Option<(FileIdx, usize)> {
    let (def, rest) = names.resolve(file, dotted)?;
    let Def::Instance(f, instance) = def else { return None };
    if !rest.is_empty()
        || !matches!(names.instance_class(f, instance), Some(FrameworkClass::DrfRouter { .. }))
    {
        return None;
    }
    let index = names.facts(f)?.instances.iter().position(|i| std::ptr::eq(i, instance))?;
    Some((f, index))
}

/// The conventional routes of a DRF router's registrations, at the router's mount.
pub(super) fn drf_routes(
    names: &Names<'_>,
    frame: &Frame<'_>,
    router: (FileIdx, usize),
    instance: &Instance,
    registrations: &Registrations<'_>,
    out: &mut Output,
) {
    let root_view = matches!(
        names.instance_class(router.0, instance),
        Some(FrameworkClass::DrfRouter { root_view: true })
    );
    let chain: Vec<&str> = frame.chain.iter().rev().map(String::as_str).collect();
    let confidence = frame.confidence.max(Confidence::Likely);
    let router_module = names.path(router.0).cloned();
    if root_view
        && let (Some(module), Some(location)) =
            (router_module, names.location(router.0, instance.line, instance.column))
    {
        let template = RouteTemplate::parse(&frame.prefix);
        out.routes.push(ServedRoute {
            method: HttpMethod::Get,
            template: template.clone(),
            module,
            handler: None,
            location,
            framework: "django",
            provenance: Provenance::Convention,
            confidence,
            evidence: format!(
                "Django REST Framework convention: DefaultRouter {} serves its API root view \
                     GET {}, {}",
                instance.name,
                template.display(),
                chain.join(", ")
            ),
        });
    }
    let nest = match nested_base(names, router, &instance.name, registrations, 0) {
        Ok(nest) => nest,
        Err(why) => {
            if let Some(location) = names.location(router.0, instance.line, instance.column) {
                out.refuse(
                    RefusalKind::ComputedRoute,
                    location,
                    format!(
                        "nested router {} sits below {why}; its registrations are not placed",
                        instance.name
                    ),
                );
            }
            return;
        }
    };
    for &(file, r) in registrations.get(&router).map(Vec::as_slice).unwrap_or_default() {
        let Some(registration) = names.facts(file).and_then(|f| f.registrations.get(r)) else {
            continue;
        };
        let Some(location) = names.location(file, registration.line, registration.column) else {
            continue;
        };
        let prefix = names.resolve_path(file, &registration.prefix).ok().and_then(|p| {
            let plain = p.value.trim_start_matches('^').trim_end_matches('$').to_owned();
            regex_to_path(&format!("{plain}$"), false).filter(|_| !plain.contains('{'))
        });
        let Some(prefix) = prefix else {
            out.refuse(
                RefusalKind::ComputedRoute,
                location,
                "Django REST Framework registration whose prefix is computed or a regex pattern"
                    .to_owned(),
            );
            continue;
        };
        let viewset_name = registration.viewset.as_deref().unwrap_or("a computed viewset");
        let shape = registration
            .viewset
            .as_deref()
            .map(|v| viewset_shape(names, file, v))
            .unwrap_or_default();
        let (module, handler_prefix) = match shape.class {
            Some((f, c)) => (names.path(f).cloned(), c.name.clone()),
            None => (names.path(file).cloned(), viewset_name.to_owned()),
        };
        let Some(module) = module else { continue };
        let confidence = if shape.known { confidence } else { Confidence::Possible };
        let lookup = shape.lookup.clone().unwrap_or_else(|| "pk".to_owned());
        let base = format!("{}{nest}/{prefix}", frame.prefix);
        let mut routes: Vec<(HttpMethod, String, String)> = Vec::new();
        for (action, method, detail) in &shape.actions {
            let path = if *detail { format!("{base}/{{{lookup}}}") } else { base.clone() };
            routes.push((*method, path, (*action).to_owned()));
        }
        for extra in &shape.extra {
            // `url_path` is a regex fragment in DRF; only plain ones become templates.
            let Some(url_path) = regex_to_path(&format!("{}$", extra.2), false) else {
                out.refuse(
                    RefusalKind::ComputedRoute,
                    location.clone(),
                    format!(
                        "Django REST Framework action {} of {viewset_name} has a url_path that \
                         is a regex pattern; its route is not placed",
                        extra.0
                    ),
                );
                continue;
            };
            let path = if extra.1 {
                format!("{base}/{{{lookup}}}/{url_path}")
            } else {
                format!("{base}/{url_path}")
            };
            for method in &extra.3 {
                routes.push((*method, path.clone(), extra.0.clone()));
            }
        }
        let unknown = if !shape.known {
            "; the viewset's actions are not known, so every standard action is assumed".to_owned()
        } else if shape.inert.is_empty() {
            String::new()
        } else {
            format!(
                "; its third-party base {} is taken to add no routed action",
                shape.inert.join(", ")
            )
        };
        for (method, path, action) in routes {
            let template = RouteTemplate::parse(&path);
            out.routes.push(ServedRoute {
                method,
                template: template.clone(),
                module: module.clone(),
                handler: Some(format!("{handler_prefix}.{action}")),
                location: location.clone(),
                framework: "django",
                provenance: Provenance::Convention,
                confidence,
                evidence: format!(
                    "Django REST Framework convention: registration of {viewset_name} under \
                     {prefix} on {} gives {method} {} ({action}), {}{unknown}",
                    instance.name,
                    template.display(),
                    chain.join(", ")
                ),
            });
        }
    }
}

/// The path a drf-nested-routers router's registrations sit below (`/tables/{table_pk}`, its
/// parents' first); empty for a router that is not nested. `Err` says what is not known.
fn nested_base(
    names: &Names<'_>,
    router: (FileIdx, usize),
    name: &str,
    registrations: &Registrations<'_>,
    depth: usize,
) -> Result<String, String> {
    let Some(nested) =
        names.facts(router.0).and_then(|f| f.nested_routers.iter().find(|n| n.name == name))
    else {
        return Ok(String::new());
    };
    let what = || format!("a registration of {} that is not found", nested.parent);
    let parent = drf_router(names, router.0, &nested.parent).ok_or_else(what)?;
    if depth > 8 || parent == router {
        return Err(what());
    }
    let parent_prefix = names
        .resolve_path(router.0, &nested.parent_prefix)
        .map_err(|why| format!("a prefix built from {why}"))?
        .value;
    let registration = registrations
        .get(&parent)
        .into_iter()
        .flatten()
        .filter_map(|&(f, r)| Some((f, names.facts(f)?.registrations.get(r)?)))
        .find(|(f, reg)| {
            names.resolve_path(*f, &reg.prefix).is_ok_and(|p| p.value == parent_prefix)
        })
        .ok_or_else(what)?;
    let field = registration
        .1
        .viewset
        .as_deref()
        .and_then(|v| viewset_shape(names, registration.0, v).lookup)
        .unwrap_or_else(|| "pk".to_owned());
    let lookup = nested.lookup.clone().unwrap_or_else(|| format!("nested_{}", depth + 1));
    let parent_name = names
        .facts(parent.0)
        .and_then(|f| f.instances.get(parent.1))
        .map_or("", |i| i.name.as_str());
    let above = nested_base(names, parent, parent_name, registrations, depth + 1)?;
    Ok(format!("{above}/{parent_prefix}/{{{lookup}_{field}}}"))
}

/// What a viewset serves: standard actions, extra `@action`s and its lookup parameter.
#[derive(Default)]
struct ViewSetShape<'a> {
    class: Option<(FileIdx, &'a ClassDecl)>,
    /// (action, method, detail)
    actions: Vec<(&'static str, HttpMethod, bool)>,
    /// (name, detail, url_path, methods)
    extra: Vec<(String, bool, String, Vec<HttpMethod>)>,
    lookup: Option<String>,
    /// False when the actions had to be assumed.
    known: bool,
    /// Third-party mixins among the bases, taken to add no routed action.
    inert: Vec<&'a str>,
}

const STANDARD: [(&str, HttpMethod, bool); 6] = [
    ("list", HttpMethod::Get, false),
    ("create", HttpMethod::Post, false),
    ("retrieve", HttpMethod::Get, true),
    ("update", HttpMethod::Put, true),
    ("partial_update", HttpMethod::Patch, true),
    ("destroy", HttpMethod::Delete, true),
];

/// The standard actions a well-known DRF base provides; `None` for a base that is not known.
fn provided(base: &str) -> Option<&'static [&'static str]> {
    Some(match base {
        "ModelViewSet" => &["list", "create", "retrieve", "update", "partial_update", "destroy"],
        "ReadOnlyModelViewSet" => &["list", "retrieve"],
        "ListModelMixin" => &["list"],
        "CreateModelMixin" => &["create"],
        "RetrieveModelMixin" => &["retrieve"],
        "UpdateModelMixin" => &["update", "partial_update"],
        "DestroyModelMixin" => &["destroy"],
        "ViewSet" | "GenericViewSet" | "ViewSetMixin" | "object" => &[],
        _ => return None,
    })
}

fn viewset_shape<'a>(names: &Names<'a>, file: FileIdx, viewset: &'a str) -> ViewSetShape<'a> {
    let lineage = names.lineage(file, viewset);
    let mut shape = ViewSetShape { class: lineage.classes.first().copied(), ..Default::default() };
    let mut actions: Vec<&'static str> = Vec::new();
    let mut known_base = false;
    // Every base must be understood for the action set to be known, except a third-party
    // mixin beside DRF's own bases (`rest_access_policy`'s `AccessViewSetMixin`): the router
    // maps only the standard actions and `@action` methods, DRF's mixins that provide them are
    // all known, and such a mixin is taken to add none (the evidence says so).
    let mut unknown_base = false;
    for base in &lineage.external_bases {
        match provided(base) {
            Some(provided) => {
                known_base = true;
                actions.extend(provided);
            }
            None if base.ends_with("Mixin") && lineage.package_bases.contains(base) => {
                if !shape.inert.contains(base) {
                    shape.inert.push(base);
                }
            }
            None => unknown_base = true,
        }
    }
    for (_, class) in &lineage.classes {
        for method in &class.methods {
            if let Some((name, _, _)) = STANDARD.iter().find(|(n, _, _)| n == method) {
                actions.push(name);
            }
        }
        for action in &class.actions {
            if !shape.extra.iter().any(|e| e.0 == action.name) {
                shape.extra.push((
                    action.name.clone(),
                    action.detail,
                    action.url_path.clone(),
                    action.methods.clone(),
                ));
            }
        }
        if shape.lookup.is_none() {
            shape.lookup = class
                .attrs
                .iter()
                .find(|a| a.name == "lookup_url_kwarg" || a.name == "lookup_field")
                .and_then(|a| a.value.as_literal());
        }
    }
    shape.known = shape.class.is_some() && known_base && !unknown_base;
    if !shape.known {
        actions = STANDARD.iter().map(|(n, _, _)| *n).collect();
        shape.inert.clear();
    }
    // A standard action whose nearest definition only raises `MethodNotAllowed` answers 405.
    let refused = |action: &str| {
        lineage
            .classes
            .iter()
            .find(|(_, c)| c.methods.iter().any(|m| m == action))
            .is_some_and(|(_, c)| c.not_allowed.iter().any(|m| m == action))
    };
    actions.retain(|a| !refused(a));
    shape.actions = STANDARD.iter().filter(|(n, _, _)| actions.contains(n)).copied().collect();
    // `http_method_names` (the nearest class that sets it) is every method the view
    // dispatches: DRF answers any other with 405, whatever the router maps.
    let allowed = lineage.classes.iter().find_map(|(_, c)| c.http_method_names.as_ref());
    if let Some(allowed) = allowed {
        shape.actions.retain(|(_, method, _)| allowed.contains(method));
        for extra in &mut shape.extra {
            extra.3.retain(|method| allowed.contains(method));
        }
        shape.extra.retain(|extra| !extra.3.is_empty());
    }
    shape
}
