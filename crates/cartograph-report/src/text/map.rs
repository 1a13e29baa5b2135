//! A map as terminal text: the headline counts, then one line per component, dependency, route and
//! table, and the env vars, externals and packages as wrapped lists, each with its count of users.
//! Every list the map document bounded says so.

use super::page::{Page, Role};
use super::{TextOptions, more_note};
use crate::map::{MapDocument, SectionDoc};
use crate::words::plural;

/// Entries of a list shown without evidence; the rest are counted.
const MAX_ENTRIES: usize = 25;

/// Renders a map document as terminal text.
pub fn render_map(doc: &MapDocument, options: &TextOptions) -> String {
    let mut page = Page::new(options.width);
    let cap = if options.evidence { usize::MAX } else { MAX_ENTRIES };
    page.para(0, 0, &[(Role::Strong, "Architecture map")]);
    let counted = |n: u64, what: &str| format!("{n} {what}{}", plural(n));
    let headline = [
        counted(doc.components.total, "component"),
        counted(doc.routes.total, "route"),
        counted(doc.tables.total, "table"),
        counted(doc.env_vars.total, "env var"),
        counted(doc.externals.total, "external"),
        counted(doc.packages.total, "package"),
    ];
    page.para(2, 2, &[(Role::Plain, &headline.join(" · "))]);

    section(&mut page, "Components", &doc.components, cap, |c| {
        let languages: Vec<String> =
            c.modules_by_language.iter().map(|(l, n)| format!("{l} {n}")).collect();
        let mut detail = counted(c.modules, "module");
        if !languages.is_empty() {
            detail.push_str(&format!(" ({})", languages.join(", ")));
        }
        for (n, what) in [(c.routes, "route"), (c.tables, "table"), (c.env_vars, "env var")] {
            if n > 0 {
                detail.push_str(&format!(", {}", counted(n, what)));
            }
        }
        (c.name.clone(), detail)
    });
    section(&mut page, "Dependencies between components", &doc.component_edges, cap, |e| {
        let mut detail = Vec::new();
        if e.imports > 0 {
            detail.push(counted(e.imports, "import"));
        }
        if e.calls > 0 {
            detail.push(counted(e.calls, "call"));
        }
        (format!("{} → {}", e.from, e.to), detail.join(", "))
    });
    section(&mut page, "Routes", &doc.routes, cap, |r| {
        let mut detail = Vec::new();
        if let Some(h) = &r.handler {
            detail.push(match &h.function {
                Some(f) => format!("{}:{f}", h.module),
                None => h.module.clone(),
            });
        }
        detail.push(match r.callers {
            0 => String::from("no caller seen"),
            n => counted(n, "caller"),
        });
        (format!("{} {}", r.method, r.path), detail.join(" · "))
    });
    section(&mut page, "Tables", &doc.tables, cap, |t| {
        let mut detail = Vec::new();
        if !t.definers.is_empty() {
            let names: Vec<&str> =
                t.definers.iter().map(|d| d.strip_prefix("module:").unwrap_or(d)).collect();
            detail.push(format!("defined in {}", names.join(", ")));
        }
        detail.push(format!("{} · {}", counted(t.readers, "reader"), counted(t.writers, "writer")));
        (super::name(&t.id).to_owned(), detail.join(" · "))
    });
    list(&mut page, "Env vars", &doc.env_vars, cap, |u| (u.id.as_str(), u.readers));
    list(&mut page, "Externals", &doc.externals, cap, |u| (u.id.as_str(), u.callers));
    list(&mut page, "Packages", &doc.packages, cap, |u| (u.id.as_str(), u.importers));
    super::coverage(&mut page, &doc.coverage, "Coverage: what was not seen");
    page.finish(options.color)
}

/// A section of one entry a line: its name, then its detail, dimmed, wrapped under the name.
fn section<T>(
    page: &mut Page,
    title: &str,
    doc: &SectionDoc<T>,
    cap: usize,
    line: impl Fn(&T) -> (String, String),
) {
    page.blank();
    heading(page, title, doc);
    if doc.items.is_empty() {
        page.para(2, 2, &[(Role::Plain, "none")]);
        return;
    }
    for item in doc.items.iter().take(cap) {
        let (name, detail) = line(item);
        page.put(Role::Plain, "  ");
        page.put(Role::Plain, &name);
        page.put(Role::Plain, "  ");
        page.para(0, 6, &[(Role::Dim, &detail)]);
    }
    tail(page, doc, cap);
}

/// A section written as one wrapped list: `name (users), …`.
fn list<T>(
    page: &mut Page,
    title: &str,
    doc: &SectionDoc<T>,
    cap: usize,
    entry: impl Fn(&T) -> (&str, u64),
) {
    page.blank();
    heading(page, title, doc);
    if doc.items.is_empty() {
        page.para(2, 2, &[(Role::Plain, "none")]);
        return;
    }
    let entries: Vec<String> = doc
        .items
        .iter()
        .take(cap)
        .map(|item| {
            let (id, users) = entry(item);
            format!("{} ({users})", super::name(id))
        })
        .collect();
    page.para(2, 2, &[(Role::Plain, &entries.join(", "))]);
    tail(page, doc, cap);
}

fn heading<T>(page: &mut Page, title: &str, doc: &SectionDoc<T>) {
    page.para(0, 0, &[(Role::Strong, title), (Role::Dim, &format!(" ({})", doc.total))]);
}

/// What the map's bound and the text's cap left out of a section.
fn tail<T>(page: &mut Page, doc: &SectionDoc<T>, cap: usize) {
    if doc.items.len() > cap {
        page.para(2, 4, &[(Role::Dim, &more_note(doc.items.len() - cap, "entries"))]);
    }
    if doc.truncated {
        page.para(
            2,
            4,
            &[(
                Role::Dim,
                &format!(
                    "The map keeps {} of {} (limit {}); the rest are left out.",
                    doc.shown, doc.total, doc.limit
                ),
            )],
        );
    }
}
