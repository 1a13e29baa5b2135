//! NestJS: controller routes under the global prefix of the app they belong to.
//!
//! A Nest app is a file that calls `NestFactory.create`; its literal `setGlobalPrefix` applies to
//! every controller. With one app the prefix is certain (likely when `setGlobalPrefix` also got
//! options such as `exclude`); with several, a controller is given to the app whose file shares
//! the longest folder prefix with it, at confidence `likely`; with none seen, routes carry no
//! global prefix at confidence `likely`. A `setGlobalPrefix` in a file that does not create the
//! app (a bootstrap split across files) applies at confidence `likely` when it is the only one
//! and there is at most one app; several such calls are refused.
//!
//! An app that calls `enableVersioning`, or a tree that declares `RouterModule` paths, lowers
//! the confidence to `likely` and the evidence says why: neither is composed.
//!
//! Refusals: a computed controller path, route path or global prefix, or a global prefix that
//! cannot be tied to one app (`computed-route`).

use crate::recognise::js_routes::{NestApp, NestPrefix, PathValue};
use cartograph_core::{
    Confidence, Provenance, Refusal, RefusalKind, RepoPath, RouteTemplate, SourceLocation,
};

use crate::recognise::link::{LinkInput, Linked, ServedRoute};

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
            let GlobalPrefix { template: global, mut confidence, mut note, from } = global;
            // Paths the linker does not compose: be less sure, and say why.
            if router_module {
                confidence = Confidence::Likely;
                note.push_str(", though RouterModule paths declared in the tree may add a prefix");
            }
            if choose_app(view.path, &apps).is_some_and(|(_, app)| app.versioning) {
                confidence = Confidence::Likely;
                note.push_str(", though the app enables API versioning, which may add a version");
            }
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
            let base = RouteTemplate::parse(prefix).prefixed(&global);
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
                let template = RouteTemplate::parse(path).prefixed(&base);
                let from_other_file = from.is_some_and(|p| p != view.path);
                out.push(ServedRoute {
                    method: route.method,
                    evidence: format!(
                        "NestJS route {} {} from {}.{} in {}{note}",
                        route.method,
                        template.display(),
                        controller.class,
                        route.handler,
                        view.path
                    ),
                    template,
                    module: view.path.clone(),
                    handler: Some(route.handler.clone()),
                    location: here(route.line, route.column),
                    framework: "nestjs",
                    provenance: if from_other_file {
                        Provenance::Resolver
                    } else {
                        Provenance::Syntax
                    },
                    confidence,
                });
            }
        }
    }
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
}

/// Decides the global prefix for a controller, or why it cannot be decided.
fn global_prefix<'a>(
    controller: &RepoPath,
    apps: &[(&'a RepoPath, &'a NestApp)],
    loose: &[(&'a RepoPath, &'a NestPrefix)],
) -> Result<GlobalPrefix<'a>, String> {
    let several = apps.len() > 1;
    let chosen = choose_app(controller, apps);
    let (path, prefix, options, away) = match (chosen, loose) {
        (Some((path, app)), _) if app.prefix.is_some() => {
            (path, app.prefix.as_ref(), app.prefix_options, false)
        }
        (_, [(path, p)]) if !several => (*path, Some(&p.prefix), p.options, true),
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
            });
        }
        (Some(_), _) => {
            return Ok(GlobalPrefix {
                template: RouteTemplate::parse("/"),
                confidence: if several { Confidence::Likely } else { Confidence::Certain },
                note: String::new(),
                from: None,
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
    })
}

/// The app a controller belongs to: the only one, or the one sharing the longest folder prefix.
fn choose_app<'a>(
    controller: &RepoPath,
    apps: &[(&'a RepoPath, &'a NestApp)],
) -> Option<(&'a RepoPath, &'a NestApp)> {
    apps.iter().copied().max_by_key(|(path, _)| {
        let shared = path
            .as_str()
            .split('/')
            .zip(controller.as_str().split('/'))
            .take_while(|(a, b)| a == b)
            .count();
        // Prefer the longest shared prefix, then the first app in path order.
        (shared, std::cmp::Reverse(path.as_str().to_owned()))
    })
}
