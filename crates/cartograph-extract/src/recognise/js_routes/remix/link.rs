//! React Router 7 / Remix file routes: resource routes under a project's `routes` folder.
//!
//! A project is recognised by its route config, `<app>/routes.{ts,tsx,js,mjs,mts}`, importing
//! `remix-flat-routes` or `@react-router/fs-routes` (the flat-routes conventions); its routes
//! folder is `<app>/routes`. A route module there that exports a `loader` and/or an `action` and
//! no default export (no component: a *resource route*, the kind a page fetches) serves `GET` for
//! its loader and `POST`, `PUT`, `PATCH` and `DELETE` for its action (React Router sends every
//! non-GET request to the action; the methods beside `POST` are `likely`). Modules with a default
//! export are pages: navigation, not API routes, as in the Next.js linker.
//!
//! The path comes from the file's name under the routes folder, by the flat-routes rules:
//! `.` separates segments (`api.locale.tsx` → `/api/locale`), a folder ending in `+` is a
//! prefix of the names inside it (`api+/locale.tsx` → `/api/locale`), any other folder is one
//! route whose module is its `route.*` file (`users.$id/route.tsx`), `$name` is a parameter and a
//! lone `$` a catch-all, `_index` / `index` add nothing, a segment starting with `_` is a pathless
//! layout, a trailing `_` only opts out of nesting, and `[…]` escapes its characters. A file
//! with an optional segment (`($lang)`) or any other name these rules do not cover is not routed.
//!
//! Example: `export const action` in `app/routes/api+/locale.tsx`, beside an `app/routes.ts`
//! that imports `remix-flat-routes`, serves `POST /api/locale`.

use cartograph_core::{
    Confidence, HttpMethod, Provenance, RepoPath, RouteTemplate, SourceLocation,
};

use super::nextjs::SOURCE_EXTENSIONS;
use crate::recognise::link::{FileView, LinkInput, ServedRoute};

const CONFIG_NAMES: &[&str] = &["routes.ts", "routes.tsx", "routes.js", "routes.mjs", "routes.mts"];

/// The routes of every resource route module.
pub(super) fn link(input: &LinkInput<'_>) -> Vec<ServedRoute> {
    let mut out = Vec::new();
    for view in &input.files {
        let js = &view.facts.js_routes;
        if js.remix_exports.is_empty() || js.default_export.is_some() {
            continue;
        }
        let Some((config, relative)) = project(input, view) else { continue };
        let Some(path) = route_path(&relative) else { continue };
        let template = RouteTemplate::parse(&path);
        for export in &js.remix_exports {
            let methods: &[HttpMethod] = match export.method {
                HttpMethod::Get => &[HttpMethod::Get],
                _ => &[HttpMethod::Post, HttpMethod::Put, HttpMethod::Patch, HttpMethod::Delete],
            };
            let function = if export.method == HttpMethod::Get { "loader" } else { "action" };
            for &method in methods {
                let confidence = if matches!(method, HttpMethod::Get | HttpMethod::Post) {
                    Confidence::Certain
                } else {
                    Confidence::Likely
                };
                out.push(ServedRoute {
                    method,
                    evidence: format!(
                        "React Router resource route {method} {} from the exported {function} in \
                         {}, a route module by the flat-routes convention of {config}",
                        template.display(),
                        view.path,
                    ),
                    template: template.clone(),
                    module: view.path.clone(),
                    handler: Some(export.handler.clone()),
                    location: SourceLocation::new(view.path.clone(), export.line, export.column),
                    framework: "react-router",
                    provenance: Provenance::Convention,
                    confidence,
                });
            }
        }
    }
    out
}

/// The route config that makes the file a route module, and the file's path under the routes
/// folder beside it: the nearest `routes` folder whose sibling config imports flat routes.
fn project(input: &LinkInput<'_>, view: &FileView<'_>) -> Option<(String, String)> {
    let path = view.path.as_str();
    let segments: Vec<&str> = path.split('/').collect();
    let (_, folders) = segments.split_last()?;
    for i in (0..folders.len()).rev() {
        if folders[i] != "routes" {
            continue;
        }
        let app = folders[..i].join("/");
        for name in CONFIG_NAMES {
            let config = if app.is_empty() { (*name).to_owned() } else { format!("{app}/{name}") };
            let Some(facts) = RepoPath::new(&config).ok().and_then(|p| input.file(&p)) else {
                continue;
            };
            if facts.facts.js_routes.imports_flat_routes {
                let relative = segments[i + 1..].join("/");
                return Some((config, relative));
            }
        }
    }
    None
}

/// The URL path of a module at `relative` under the routes folder; `None` when it is not routed.
fn route_path(relative: &str) -> Option<String> {
    let (folders, file) = match relative.rsplit_once('/') {
        Some((folders, file)) => (folders, file),
        None => ("", relative),
    };
    let (stem, extension) = file.rsplit_once('.')?;
    if !SOURCE_EXTENSIONS.contains(&extension) || stem.ends_with(".d") {
        return None;
    }
    // Folders ending in `+` are flat prefixes; the one folder after them, if any, is a route
    // whose module is its `route` file.
    let mut names: Vec<&str> = Vec::new();
    let mut route_folder: Option<&str> = None;
    for folder in folders.split('/').filter(|f| !f.is_empty()) {
        if route_folder.is_some() {
            return None;
        }
        match folder.strip_suffix('+') {
            Some(prefix) => names.push(prefix),
            None => route_folder = Some(folder),
        }
    }
    match route_folder {
        Some(folder) if stem == "route" => names.push(folder),
        Some(_) => return None,
        None => names.push(stem),
    }
    let mut path = Vec::new();
    for name in names {
        for raw in split_name(name)? {
            if let Some(part) = segment(&raw)? {
                path.push(part);
            }
        }
    }
    Some(format!("/{}", path.join("/")))
}

/// A route name split at its unescaped dots (`[.]` and other `[…]` text is literal).
fn split_name(name: &str) -> Option<Vec<String>> {
    let mut out = vec![String::new()];
    let mut escaped = false;
    for c in name.chars() {
        match c {
            '[' if !escaped => escaped = true,
            ']' if escaped => escaped = false,
            '.' if !escaped => out.push(String::new()),
            _ => out.last_mut()?.push(c),
        }
    }
    (!escaped).then_some(out)
}

/// One segment of a route name as a URL segment: `None` inside for one that adds nothing
/// (`_index`, a pathless `_layout`), an outer `None` for one the rules here do not cover.
fn segment(raw: &str) -> Option<Option<String>> {
    if raw.is_empty() || raw.starts_with('(') {
        return None;
    }
    if matches!(raw, "_index" | "index" | "route") || raw.starts_with('_') {
        return Some(None);
    }
    let raw = raw.strip_suffix('_').unwrap_or(raw);
    if raw == "$" {
        return Some(Some("*".to_owned()));
    }
    if let Some(name) = raw.strip_prefix('$') {
        return Some(Some(format!("{{{name}}}")));
    }
    Some(Some(raw.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::route_path;

    #[test]
    fn flat_route_names_become_paths() {
        let cases = [
            ("api+/locale.tsx", Some("/api/locale")),
            ("api.locale.tsx", Some("/api/locale")),
            ("api+/avatar.$id.tsx", Some("/api/avatar/{id}")),
            ("api+/branding.logo.team.$teamId.ts", Some("/api/branding/logo/team/{teamId}")),
            ("_authenticated+/t.$teamUrl+/settings._index.tsx", Some("/t/{teamUrl}/settings")),
            ("users.$id/route.tsx", Some("/users/{id}")),
            ("users.$id/form.tsx", None),
            ("files.$.ts", Some("/files/*")),
            ("robots[.]txt.ts", Some("/robots.txt")),
            ("users_.$id.edit.tsx", Some("/users/{id}/edit")),
            ("($lang).about.tsx", None),
            ("_index.tsx", Some("/")),
            ("api+/types.d.ts", None),
        ];
        for (relative, expected) in cases {
            assert_eq!(route_path(relative).as_deref(), expected, "{relative}");
        }
    }
}
