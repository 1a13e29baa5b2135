//! Next.js file routes: App Router `route.ts` handlers and Pages Router `pages/api` files.
//!
//! A file is a route only inside a Next.js project. The project is recognised by a
//! `next.config.{js,mjs,cjs,ts,mts}` beside the `app`/`pages` folder or beside its `src` parent
//! (the nearest such folder wins) — confidence `certain`. Without one, a route file that itself
//! imports `next` or `next/…` is taken at the outermost `app`/`pages` folder of its path, with
//! confidence `likely`. The linker cannot read `package.json` contents, so a `next` dependency
//! alone is not a signal.
//!
//! App Router: `app/**/route.{ts,js,…}` exported `GET`/`POST`/… → the folder path, route groups
//! `(group)` and parallel-route slots `@slot` dropped, `[id]` a parameter, `[...slug]` a
//! catch-all; a file under a `_private` folder or an intercepting `(.)x` folder is not a route.
//! Pages Router: a `pages/api/**` file with a default export → `ANY /api/…`, `index` at its
//! folder's path; where the handler checks `req.method` (or, checking nothing itself, its default
//! export is imported or re-exported — `export { default } from "…"` — from a module that does),
//! one route per method it checks, at most `likely`; `ANY` where the handler checks nothing, at
//! most `likely` when it is re-exported from a module that cannot be followed. App Router
//! handlers re-exported by name (`export { GET, POST } from "…"`) are routes of the route file. A literal `basePath` in the project's `next.config.*` goes in front of every
//! route; a computed one is refused (`computed-route`).

use crate::recognise::js_routes::PathValue;
use cartograph_core::{
    Confidence, HttpMethod, Provenance, Refusal, RefusalKind, RepoPath, RouteTemplate,
    SourceLocation,
};

use crate::recognise::link::{BindingTarget, FileView, LinkInput, Linked, ServedRoute};
use crate::tree::{dir_of, join_normalised};

const CONFIG_EXTENSIONS: &[&str] = &["js", "mjs", "cjs", "ts", "mts"];
/// The extensions of a route module (also React Router's, see `remix::link`).
pub(super) const SOURCE_EXTENSIONS: &[&str] =
    &["ts", "js", "tsx", "jsx", "mjs", "cjs", "mts", "cts"];

/// The routes of every Next.js route file.
pub(super) fn link(input: &LinkInput<'_>, linked: &mut Linked) -> Vec<ServedRoute> {
    let mut out = Vec::new();
    for view in &input.files {
        let js = &view.facts.js_routes;
        if js.next_handlers.is_empty() && js.default_export.is_none() {
            continue;
        }
        let segments: Vec<&str> = view.path.as_str().split('/').collect();
        let Some((file, folders)) = segments.split_last() else {
            continue;
        };
        let Some((stem, extension)) = file.rsplit_once('.') else {
            continue;
        };
        if !SOURCE_EXTENSIONS.contains(&extension) || stem.ends_with(".d") {
            continue;
        }
        let (marker, is_app) = if stem == "route" && !js.next_handlers.is_empty() {
            ("app", true)
        } else if js.default_export.is_some() {
            ("pages", false)
        } else {
            continue;
        };
        let Some(project) = project(input, view, folders, marker) else {
            continue;
        };
        let Some(path) = route_path(&project, folders, stem, is_app) else {
            continue;
        };
        let template = match &project.base_path {
            None => RouteTemplate::parse(&path),
            Some(PathValue::Literal(base)) => {
                RouteTemplate::parse(&path).prefixed(&RouteTemplate::parse(base))
            }
            Some(_) => {
                linked.refusals.push(Refusal::new(
                    RefusalKind::ComputedRoute,
                    SourceLocation::file(view.path.clone()),
                    format!(
                        "the basePath in {} is computed at run time; this file route is not reported",
                        project.signal_file
                    ),
                ));
                continue;
            }
        };
        if is_app {
            app_routes(view, &template, &project, &mut out);
        } else {
            pages_route(input, view, &template, &project, &mut out);
        }
    }
    out
}

/// The Next.js project a route file belongs to.
struct Project {
    /// Index of the `app`/`pages` folder in the file's folders.
    marker: usize,
    confidence: Confidence,
    /// What showed it is a Next.js project, for evidence.
    signal: String,
    /// The config file, or the route file itself when the signal is its import of `next`.
    signal_file: String,
    base_path: Option<PathValue>,
}

/// The project a route file belongs to, by its `next.config.*` (the nearest wins) or, failing
/// that, its own import of `next`.
fn project(
    input: &LinkInput<'_>,
    view: &FileView<'_>,
    folders: &[&str],
    marker: &str,
) -> Option<Project> {
    let candidates: Vec<usize> =
        folders.iter().enumerate().filter(|(_, f)| **f == marker).map(|(i, _)| i).collect();
    for &i in candidates.iter().rev() {
        let mut roots = vec![folders.get(..i)?.join("/")];
        if i > 0 && folders.get(i - 1) == Some(&"src") {
            roots.push(folders.get(..i - 1)?.join("/"));
        }
        for root in roots {
            for ext in CONFIG_EXTENSIONS {
                let config = if root.is_empty() {
                    format!("next.config.{ext}")
                } else {
                    format!("{root}/next.config.{ext}")
                };
                if !input.index.is_file(&config) {
                    continue;
                }
                let base_path = RepoPath::new(&config)
                    .ok()
                    .and_then(|p| input.file(&p))
                    .and_then(|f| f.facts.js_routes.next_base_path.clone());
                return Some(Project {
                    marker: i,
                    confidence: Confidence::Certain,
                    signal: format!("the project's {config}"),
                    signal_file: config,
                    base_path,
                });
            }
        }
    }
    if view.facts.js_routes.imports_next {
        return Some(Project {
            marker: *candidates.first()?,
            confidence: Confidence::Likely,
            signal: "an import of next in the file, no next.config being found".to_owned(),
            signal_file: view.path.as_str().to_owned(),
            base_path: None,
        });
    }
    None
}

/// The URL path of a route file inside its project, `None` when the file is not routed.
fn route_path(project: &Project, folders: &[&str], stem: &str, is_app: bool) -> Option<String> {
    let rest = folders.get(project.marker + 1..).unwrap_or_default();
    if !is_app {
        if rest.first() != Some(&"api") {
            return None;
        }
        let mut path: Vec<&str> = rest.to_vec();
        if stem != "index" {
            path.push(stem);
        }
        return Some(path.join("/"));
    }
    let mut path = Vec::new();
    for folder in rest {
        // Private folders and intercepting routes are not routed.
        if folder.starts_with('_') || folder.starts_with("(.") {
            return None;
        }
        // Route groups and parallel-route slots take no part in the URL.
        if (folder.starts_with('(') && folder.ends_with(')')) || folder.starts_with('@') {
            continue;
        }
        path.push(*folder);
    }
    Some(path.join("/"))
}

fn base_note(project: &Project) -> String {
    match &project.base_path {
        Some(PathValue::Literal(base)) => {
            format!(" under its basePath {}", RouteTemplate::parse(base).display())
        }
        _ => String::new(),
    }
}

fn app_routes(
    view: &FileView<'_>,
    template: &RouteTemplate,
    project: &Project,
    out: &mut Vec<ServedRoute>,
) {
    for handler in &view.facts.js_routes.next_handlers {
        out.push(ServedRoute {
            method: handler.method,
            evidence: format!(
                "Next.js App Router route {} {} from the exported {} handler in {}, a route file by convention ({}){}",
                handler.method,
                template.display(),
                handler.method,
                view.path,
                project.signal,
                base_note(project)
            ),
            template: template.clone(),
            module: view.path.clone(),
            handler: Some(handler.handler.clone()),
            location: SourceLocation::new(view.path.clone(), handler.line, handler.column),
            framework: "nextjs",
            provenance: Provenance::Convention,
            confidence: project.confidence,
        });
    }
}

/// The analysed module a re-export's specifier leads to: a relative specifier resolved against
/// the tree, otherwise (an alias such as `@/lib/x`) the file's one re-export binding when it has
/// one re-exported module only.
fn reexport_target(
    input: &LinkInput<'_>,
    view: &FileView<'_>,
    specifier: &str,
) -> Option<RepoPath> {
    if specifier.starts_with("./") || specifier.starts_with("../") {
        let base = join_normalised(&dir_of(view.path), specifier)?;
        return ["", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.js"]
            .iter()
            .map(|suffix| format!("{base}{suffix}"))
            .filter(|candidate| input.index.is_file(candidate))
            .find_map(|candidate| RepoPath::new(&candidate).ok())
            .filter(|path| input.file(path).is_some());
    }
    let js = &view.facts.js_routes;
    if js.reexports.iter().any(|r| r.specifier != specifier) {
        return None;
    }
    let mut stars = view.bindings.iter().filter(|b| &*b.local == "*");
    match (stars.next(), stars.next()) {
        (Some(binding), None) => match &binding.target {
            BindingTarget::Module(path) => Some(path.clone()),
            BindingTarget::Package(_) => None,
        },
        _ => None,
    }
}

fn pages_route(
    input: &LinkInput<'_>,
    view: &FileView<'_>,
    template: &RouteTemplate,
    project: &Project,
    out: &mut Vec<ServedRoute>,
) {
    let Some(default) = &view.facts.js_routes.default_export else {
        return;
    };
    // The methods the handler checks `req.method` against; failing any, those of the module
    // its default export is imported from (`import handler from "@/lib/x"; export default
    // handler`).
    let mut checked = &view.facts.js_routes.checked_methods;
    let mut delegate = None;
    // `export { default } from "…"`: the handler is the other module's default export.
    let reexported = match &default.name {
        None => view
            .facts
            .js_routes
            .reexports
            .iter()
            .find(|r| r.exported.as_deref() == Some("default"))
            .map(|r| reexport_target(input, view, &r.specifier)),
        Some(_) => None,
    };
    let imported = match (&reexported, &default.name) {
        (Some(target), _) => target.as_ref(),
        (None, Some(name)) => match input.binding(view.path, name).map(|b| &b.target) {
            Some(BindingTarget::Module(target)) => Some(target),
            _ => None,
        },
        (None, None) => None,
    };
    if checked.is_empty()
        && let Some(target) = imported
        && let Some(other) = input.file(target)
        && !other.facts.js_routes.checked_methods.is_empty()
    {
        checked = &other.facts.js_routes.checked_methods;
        delegate = Some(target);
    }
    // A re-exported handler that cannot be followed may check methods the linker does not see.
    let unfollowed = matches!(reexported, Some(None));
    let base = base_note(project);
    let location = SourceLocation::new(view.path.clone(), default.line, default.column);
    let whose = match delegate {
        Some(target) => format!("the handler it imports from {target}"),
        None => "its handler".to_owned(),
    };
    let route = |method: HttpMethod, evidence: String, confidence: Confidence| ServedRoute {
        method,
        evidence,
        template: template.clone(),
        module: view.path.clone(),
        handler: default.name.clone(),
        location: location.clone(),
        framework: "nextjs",
        provenance: Provenance::Convention,
        confidence,
    };
    let head = |method: &str| {
        format!(
            "Next.js Pages Router API route {method} {} from the default export of {}, an API route by convention ({}){base}",
            template.display(),
            view.path,
            project.signal,
        )
    };
    if checked.is_empty() {
        if unfollowed {
            let evidence = format!(
                "{}; its handler is re-exported from a module that cannot be followed, so \
                 the methods it checks are not known",
                head("ANY")
            );
            out.push(route(HttpMethod::Any, evidence, project.confidence.max(Confidence::Likely)));
        } else {
            out.push(route(HttpMethod::Any, head("ANY"), project.confidence));
        }
        return;
    }
    for method in checked {
        let evidence = format!(
            "{}; {method} is a method {whose} checks the request's method against",
            head(&method.to_string())
        );
        // Which checks answer which method is read from the comparisons, not followed through
        // the handler's control flow.
        out.push(route(*method, evidence, project.confidence.max(Confidence::Likely)));
    }
}
