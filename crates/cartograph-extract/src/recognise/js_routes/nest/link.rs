//! NestJS: controller routes under the global prefix of the app they belong to.
//!
//! A Nest app is a file that calls `NestFactory.create`; its literal `setGlobalPrefix` applies to
//! every controller but those its literal `exclude` list names (a path, a trailing wildcard, a
//! method). With one app the prefix is certain (likely when `setGlobalPrefix` also got options
//! that are not read: a computed exclude entry, another option); with several, a controller is given to the app whose file shares
//! the longest folder prefix with it, at confidence `likely`; with none seen, routes carry no
//! global prefix at confidence `likely`. A `setGlobalPrefix` in a file that does not create the
//! app (a bootstrap split across files) applies at confidence `likely` when it is the only one
//! and there is at most one app; several such calls are refused.
//!
//! With URI versioning (`enableVersioning({ type: VersioningType.URI })`) each route is served
//! under `/v{version}` after the global prefix for each version its method, its controller or the
//! app's default gives (`VERSION_NEUTRAL`: no segment); no version at all gives no segment. A
//! computed version keeps the route under an unknown `{version}` segment at `possible`, with one
//! refusal per controller that counts them. A versioning prefix made of a computed leading name
//! and a literal rest (`` `${CONTEXT_PATH}v` ``) takes the name as the deployment root: the
//! literal rest is the prefix, at `likely`, and the evidence says so. Versioning whose type or
//! prefix is otherwise computed, or a
//! tree that declares `RouterModule` paths, lowers the confidence to `likely` and the evidence
//! says why: neither is composed.
//!
//! `RouterModule.register` paths: a controller listed in a module's `@Module({ controllers })`,
//! the module placed under a path by `RouterModule.register` (children composed), is served
//! under that path, after the global prefix and the version. Names are followed through the
//! import bindings of the module and routes files; a name the bindings do not settle (a barrel
//! file in between) counts only when one class of the tree bears it. A module placed under
//! several paths serves its controllers under each. A computed module path keeps the routes
//! under an unknown `{prefix}` segment, at most `possible`, with one refusal per controller that
//! counts them.
//!
//! Refusals: a computed controller path, route path or global prefix, or a global prefix that
//! cannot be tied to one app (`computed-route`).

use crate::recognise::js_routes::{
    NestApp, NestController, NestExclude, NestPrefix, NestRoute, NestVersion, NestVersioning,
    PathValue,
};
use cartograph_core::{
    Confidence, Provenance, Refusal, RefusalKind, RepoPath, RouteTemplate, Segment, SourceLocation,
};

use crate::recognise::link::{BindingTarget, LinkInput, Linked, ServedRoute};

/// The routes of every Nest controller in the tree.
pub(super) fn link(input: &LinkInput<'_>, linked: &mut Linked) -> Vec<ServedRoute> {
    let apps: Vec<(&RepoPath, &NestApp)> = input
        .files
        .iter()
        .flat_map(|f| f.facts.js_routes.nest_apps.iter().map(move |a| (f.path, a)))
        .collect();
    let loose: Vec<(&RepoPath, &NestPrefix)> = input
        .files
        .iter()
        .flat_map(|f| f.facts.js_routes.nest_loose_prefixes.iter().map(move |p| (f.path, p)))
        .collect();
    let router_module = input.files.iter().any(|f| f.facts.js_routes.nest_router_module);
    let mut out = Vec::new();
    for view in &input.files {
        for controller in &view.facts.js_routes.nest_controllers {
            let here = |line, column| SourceLocation::new(view.path.clone(), line, column);
            let global = match global_prefix(view.path, &apps, &loose) {
                Ok(global) => global,
                Err(why) => {
                    linked.refusals.push(Refusal::new(
                        RefusalKind::ComputedRoute,
                        here(controller.line, controller.column),
                        format!("{why}; the routes of {} are not reported", controller.class),
                    ));
                    continue;
                }
            };
            let GlobalPrefix { template: global, mut confidence, mut note, from, excludes } =
                global;
            // Paths the linker does not compose: be less sure, and say why.
            if router_module {
                confidence = Confidence::Likely;
                note.push_str(", though RouterModule paths declared in the tree may add a prefix");
            }
            let versioning =
                choose_app(view.path, &apps).and_then(|(_, app)| app.versioning.as_ref());
            if versioning == Some(&NestVersioning::Computed) {
                confidence = Confidence::Likely;
                note.push_str(", though the app enables API versioning, which may add a version");
            }
            let placements = module_placements(input, view.path, &controller.class);
            let PathValue::Literal(prefix) = &controller.prefix else {
                linked.refusals.push(Refusal::new(
                    RefusalKind::ComputedRoute,
                    here(controller.line, controller.column),
                    format!(
                        "the path of controller {} is computed at run time; its routes are not reported",
                        controller.class
                    ),
                ));
                continue;
            };
            let mut unknown_version = 0usize;
            let mut unknown_module = 0usize;
            for route in &controller.routes {
                let PathValue::Literal(path) = &route.path else {
                    linked.refusals.push(Refusal::new(
                        RefusalKind::ComputedRoute,
                        here(route.line, route.column),
                        format!(
                            "the path of {}.{} is computed at run time; the route is not reported",
                            controller.class, route.handler
                        ),
                    ));
                    continue;
                };
                let from_other_file = from.is_some_and(|p| p != view.path);
                // `setGlobalPrefix(…, { exclude })`: an excluded route is served without it.
                let below_global =
                    RouteTemplate::parse(path).prefixed(&RouteTemplate::parse(prefix));
                let excluded = excludes.iter().any(|e| {
                    e.method.is_none_or(|m| m == route.method)
                        && excludes_path(&e.path, &below_global)
                });
                let (global, note) = if excluded {
                    (
                        RouteTemplate::parse("/"),
                        format!(
                            ", without the global prefix {}, whose exclude list names it",
                            global.display()
                        ),
                    )
                } else {
                    (global.clone(), note.clone())
                };
                for (segment, version_note, version_confidence) in
                    version_segments(versioning, controller, route)
                {
                    if version_confidence == Confidence::Possible {
                        unknown_version += 1;
                    }
                    let versioned = RouteTemplate::from_segments(segment).prefixed(&global);
                    for placement in &placements {
                        if placement.confidence == Confidence::Possible {
                            unknown_module += 1;
                        }
                        let placed = placement.template.prefixed(&versioned);
                        let base = RouteTemplate::parse(prefix).prefixed(&placed);
                        let template = RouteTemplate::parse(path).prefixed(&base);
                        out.push(ServedRoute {
                            method: route.method,
                            evidence: format!(
                                "NestJS route {} {} from {}.{} in {}{note}{version_note}{}",
                                route.method,
                                template.display(),
                                controller.class,
                                route.handler,
                                view.path,
                                placement.note
                            ),
                            template,
                            module: view.path.clone(),
                            handler: Some(route.handler.clone()),
                            location: here(route.line, route.column),
                            framework: "nestjs",
                            provenance: if from_other_file || placement.from.is_some() {
                                Provenance::Resolver
                            } else {
                                Provenance::Syntax
                            },
                            confidence: confidence
                                .max(version_confidence)
                                .max(placement.confidence),
                        });
                    }
                }
            }
            if unknown_module > 0 {
                linked.refusals.push(Refusal::new(
                    RefusalKind::ComputedRoute,
                    here(controller.line, controller.column),
                    format!(
                        "a RouterModule path of the module declaring controller {} is computed at \
                         run time; {unknown_module} of its routes {} kept with an unknown prefix \
                         segment, at most possible",
                        controller.class,
                        if unknown_module == 1 { "is" } else { "are" }
                    ),
                ));
            }
            if unknown_version > 0 {
                linked.refusals.push(Refusal::new(
                    RefusalKind::ComputedRoute,
                    here(controller.line, controller.column),
                    format!(
                        "a version of controller {} is computed at run time; {unknown_version} of \
                         its routes {} kept with an unknown version segment, at most possible",
                        controller.class,
                        if unknown_version == 1 { "is" } else { "are" }
                    ),
                ));
            }
        }
    }
    out
}

/// Where `RouterModule` places a controller's routes: one path per placement of a module that
/// declares it.
struct Placement<'a> {
    template: RouteTemplate,
    /// `possible` when the path is partly computed (an unknown `{prefix}` segment stands in).
    confidence: Confidence,
    note: String,
    /// The file of the `RouterModule.register` call; `None` when the module is not placed.
    from: Option<&'a RepoPath>,
}

/// The paths `RouterModule.register` gives the controller `class` of `file`, through the modules
/// that declare it; one placement at the root when none does.
fn module_placements<'a>(
    input: &LinkInput<'a>,
    file: &RepoPath,
    class: &str,
) -> Vec<Placement<'a>> {
    let mut out: Vec<Placement<'a>> = Vec::new();
    let files = || input.files.iter().map(|f| &f.facts.js_routes);
    let controllers_named = |name: &str| {
        files().flat_map(|js| &js.nest_controllers).filter(|c| c.class == name).count()
    };
    let modules_named =
        |name: &str| files().flat_map(|js| &js.nest_modules).filter(|m| m.class == name).count();
    let unique_controller = controllers_named(class) == 1;
    for module_file in &input.files {
        for module in &module_file.facts.js_routes.nest_modules {
            if !module.controllers.iter().any(|c| c == class)
                || !refers_to(input, module_file.path, class, file, unique_controller)
            {
                continue;
            }
            let unique_module = modules_named(&module.class) == 1;
            for routes_file in &input.files {
                for placed in &routes_file.facts.js_routes.nest_module_paths {
                    if placed.module != module.class
                        || !refers_to(
                            input,
                            routes_file.path,
                            &placed.module,
                            module_file.path,
                            unique_module,
                        )
                    {
                        continue;
                    }
                    let mut segments = Vec::new();
                    let mut computed = false;
                    for part in &placed.path {
                        match part {
                            PathValue::Literal(p) => {
                                segments.extend(RouteTemplate::parse(p).segments().iter().cloned());
                            }
                            _ => {
                                computed = true;
                                segments.push(Segment::Param("prefix".to_owned()));
                            }
                        }
                    }
                    let template = RouteTemplate::from_segments(segments);
                    let note = format!(
                        ", under the RouterModule path {} given to {} in {}{}",
                        template.display(),
                        module.class,
                        routes_file.path,
                        if computed { " (partly computed at run time)" } else { "" }
                    );
                    out.push(Placement {
                        template,
                        confidence: if computed {
                            Confidence::Possible
                        } else {
                            Confidence::Certain
                        },
                        note,
                        from: Some(routes_file.path),
                    });
                }
            }
        }
    }
    out.sort_by_key(|a| a.template.display());
    out.dedup_by(|a, b| a.template == b.template);
    if out.is_empty() {
        out.push(Placement {
            template: RouteTemplate::parse("/"),
            confidence: Confidence::Certain,
            note: String::new(),
            from: None,
        });
    }
    out
}

/// True when the class `name` as `from` sees it is the one `target` declares: bound by an import
/// of `target`, or declared in `from` itself; a name bound elsewhere (a barrel file) or not bound
/// counts when the class is the only one of its name.
fn refers_to(
    input: &LinkInput<'_>,
    from: &RepoPath,
    name: &str,
    target: &RepoPath,
    unique: bool,
) -> bool {
    match input.binding(from, name).map(|b| &b.target) {
        Some(BindingTarget::Module(path)) => path == target || unique,
        Some(BindingTarget::Package(_)) => false,
        None => from == target || unique,
    }
}

/// The version segments a route is served under with URI versioning (none, one per version, or
/// an unknown one), each with its evidence clause and the confidence it allows.
fn version_segments(
    versioning: Option<&NestVersioning>,
    controller: &NestController,
    route: &NestRoute,
) -> Vec<(Vec<Segment>, String, Confidence)> {
    let unversioned = vec![(Vec::new(), String::new(), Confidence::Certain)];
    let Some(NestVersioning::Uri { prefix, default, root }) = versioning else {
        return unversioned;
    };
    // A computed leading part of the versioning prefix is a deployment path, taken as the root.
    let (rooted, root_confidence) = match root {
        Some(name) => (
            format!(
                "; the versioning prefix starts with {name}, computed at run time and taken as \
                 the deployment root"
            ),
            Confidence::Likely,
        ),
        None => (String::new(), Confidence::Certain),
    };
    let (version, whose) = match (&route.version, &controller.version, default) {
        (Some(v), _, _) => (v, "its @Version"),
        (None, Some(v), _) => (v, "its controller's version"),
        (None, None, Some(v)) => (v, "the app's default version"),
        (None, None, None) => return unversioned,
    };
    let NestVersion::Listed(items) = version else {
        let note = format!(", under an unknown version segment: {whose} is computed at run time");
        return vec![(vec![Segment::Param("version".to_owned())], note, Confidence::Possible)];
    };
    let prefix = prefix.as_deref().unwrap_or("");
    let mut out = Vec::new();
    for item in items {
        match item {
            None => out.push((
                Vec::new(),
                format!(", without a version segment ({whose} is VERSION_NEUTRAL)"),
                Confidence::Certain,
            )),
            Some(v) => out.push((
                vec![Segment::Literal(format!("{prefix}{v}"))],
                format!(", under version {prefix}{v} from {whose} (URI versioning){rooted}"),
                root_confidence,
            )),
        }
    }
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The global prefix that applies to a controller, with how sure that is.
struct GlobalPrefix<'a> {
    template: RouteTemplate,
    confidence: Confidence,
    /// The evidence clause that names the prefix and where it was set.
    note: String,
    /// The file that set the prefix, if any.
    from: Option<&'a RepoPath>,
    /// The routes the prefix's `exclude` option keeps out of it.
    excludes: &'a [NestExclude],
}

/// Decides the global prefix for a controller, or why it cannot be decided.
fn global_prefix<'a>(
    controller: &RepoPath,
    apps: &[(&'a RepoPath, &'a NestApp)],
    loose: &[(&'a RepoPath, &'a NestPrefix)],
) -> Result<GlobalPrefix<'a>, String> {
    let several = apps.len() > 1;
    let chosen = choose_app(controller, apps);
    let (path, prefix, options, excludes, away) = match (chosen, loose) {
        (Some((path, app)), _) if app.prefix.is_some() => {
            (path, app.prefix.as_ref(), app.prefix_options, app.prefix_excludes.as_slice(), false)
        }
        (_, [(path, p)]) if !several => {
            (*path, Some(&p.prefix), p.options, p.excludes.as_slice(), true)
        }
        (_, [_, _, ..]) => {
            return Err("several setGlobalPrefix calls lie away from the application bootstrap \
                        and which one applies cannot be decided"
                .to_owned());
        }
        (None, _) => {
            return Ok(GlobalPrefix {
                template: RouteTemplate::parse("/"),
                confidence: Confidence::Likely,
                note: ", no Nest application bootstrap was found so no global prefix is applied"
                    .to_owned(),
                from: None,
                excludes: &[],
            });
        }
        (Some(_), _) => {
            return Ok(GlobalPrefix {
                template: RouteTemplate::parse("/"),
                confidence: if several { Confidence::Likely } else { Confidence::Certain },
                note: String::new(),
                from: None,
                excludes: &[],
            });
        }
    };
    let Some(PathValue::Literal(literal)) = prefix else {
        return Err(format!("the global prefix set in {path} is computed at run time"));
    };
    let template = RouteTemplate::parse(literal);
    let why = if several {
        format!(" (the nearest of {} Nest applications in the tree)", apps.len())
    } else if away {
        " (away from the application bootstrap)".to_owned()
    } else if options {
        " (given with options that may exclude some routes)".to_owned()
    } else {
        String::new()
    };
    let certain = !several && !away && !options;
    Ok(GlobalPrefix {
        note: format!(", under the global prefix {} set in {path}{why}", template.display()),
        template,
        confidence: if certain { Confidence::Certain } else { Confidence::Likely },
        from: Some(path),
        excludes,
    })
}

/// True when an `exclude` entry names `route` (its path below the global prefix): the same
/// template, or one below a trailing wildcard (`auth/*`, `auth/(.*)`, `auth/*path`,
/// `auth/{*splat}`).
fn excludes_path(entry: &str, route: &RouteTemplate) -> bool {
    let trimmed = entry.trim_end_matches('/');
    let wildcard = ["/(.*)", "/*"].iter().find_map(|w| trimmed.strip_suffix(w)).or_else(|| {
        let (head, last) = trimmed.rsplit_once('/').unwrap_or(("", trimmed));
        (last.starts_with('*') || last.starts_with("{*")).then_some(head)
    });
    let Some(head) = wildcard else {
        return RouteTemplate::parse(entry).identity() == route.identity();
    };
    let head = RouteTemplate::parse(head);
    route.segments().len() > head.segments().len()
        && RouteTemplate::from_segments(route.segments()[..head.segments().len()].to_vec())
            .identity()
            == head.identity()
}

/// The app a controller belongs to: the only one, or the one sharing the longest folder prefix
/// (ties broken towards the configured `main` bootstrap).
fn choose_app<'a>(
    controller: &RepoPath,
    apps: &[(&'a RepoPath, &'a NestApp)],
) -> Option<(&'a RepoPath, &'a NestApp)> {
    apps.iter().copied().max_by_key(|(path, app)| {
        let shared = path
            .as_str()
            .split('/')
            .zip(controller.as_str().split('/'))
            .take_while(|(a, b)| a == b)
            .count();
        // Prefer the longest shared prefix; among equally near apps, one that is configured to
        // serve (a global prefix or versioning: a script that builds an app to emit a schema
        // sets neither), then a `main` bootstrap, then the first in path order.
        let configured = app.prefix.is_some() || app.versioning.is_some();
        let file = path.as_str().rsplit('/').next().unwrap_or("");
        let main = file.starts_with("main.");
        (shared, configured, main, std::cmp::Reverse(path.as_str().to_owned()))
    })
}
