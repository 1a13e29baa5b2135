//! The `map` document: the architecture at a glance — components with counts, weighted
//! dependencies between them, routes, tables, env vars, externals and packages with who uses
//! them — and its Markdown. Every list is bounded and says how many entries it had in all.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use cartograph_core::NodeKey;
use cartograph_graph::Map;
use cartograph_graph::map::Bounded;
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;
use crate::blast::{code, details_close, details_open};
use crate::coverage::CoverageDoc;
use crate::snapshot::HandlerDoc;
use crate::words::plural;

pub const SCHEMA_NAME: &str = "map";
pub const SCHEMA_VERSION: &str = "1.2";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct MapDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    /// True when any section below left entries out.
    pub truncated: bool,
    pub components: SectionDoc<ComponentDoc>,
    pub component_edges: SectionDoc<ComponentEdgeDoc>,
    pub routes: SectionDoc<RouteDoc>,
    pub tables: SectionDoc<TableDoc>,
    pub env_vars: SectionDoc<EnvVarDoc>,
    pub externals: SectionDoc<ExternalDoc>,
    pub packages: SectionDoc<PackageDoc>,
    /// What the analysis did not see (since 1.2).
    pub coverage: CoverageDoc,
}

/// One bounded list: the entries kept (the most significant, written in identity order), how
/// many there were, and the bound.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SectionDoc<T> {
    pub total: u64,
    pub shown: u64,
    pub limit: u64,
    pub truncated: bool,
    pub items: Vec<T>,
}

impl<T> SectionDoc<T> {
    fn from_bounded<S>(bounded: &Bounded<S>, limit: usize, convert: impl Fn(&S) -> T) -> Self {
        Self {
            total: bounded.total as u64,
            shown: bounded.shown.len() as u64,
            limit: limit as u64,
            truncated: bounded.is_truncated(),
            items: bounded.shown.iter().map(convert).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ComponentDoc {
    pub name: String,
    pub modules: u64,
    pub modules_by_language: BTreeMap<String, u64>,
    /// Routes whose handler (else serving) module is in the component.
    pub routes: u64,
    /// Tables whose first defining module is in the component.
    pub tables: u64,
    /// Distinct env vars the component's modules read.
    pub env_vars: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ComponentEdgeDoc {
    pub from: String,
    pub to: String,
    pub imports: u64,
    pub calls: u64,
    pub weight: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RouteDoc {
    pub id: String,
    pub method: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub handler: Option<HandlerDoc>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub component: Option<String>,
    pub callers: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TableDoc {
    pub id: String,
    pub definers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub component: Option<String>,
    pub readers: u64,
    pub writers: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EnvVarDoc {
    pub id: String,
    pub readers: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ExternalDoc {
    pub id: String,
    pub callers: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PackageDoc {
    pub id: String,
    pub importers: u64,
}

impl MapDocument {
    pub fn from_map(map: &Map, coverage: CoverageDoc) -> Self {
        let o = &map.options;
        Self {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            truncated: map.is_truncated(),
            components: SectionDoc::from_bounded(&map.components, o.max_components, |c| {
                ComponentDoc {
                    name: c.name.clone(),
                    modules: c.modules,
                    modules_by_language: c.modules_by_language.clone(),
                    routes: c.routes,
                    tables: c.tables,
                    env_vars: c.env_vars,
                }
            }),
            component_edges: SectionDoc::from_bounded(
                &map.component_edges,
                o.max_component_edges,
                |e| ComponentEdgeDoc {
                    from: e.from.clone(),
                    to: e.to.clone(),
                    imports: e.imports,
                    calls: e.calls,
                    weight: e.weight(),
                },
            ),
            routes: SectionDoc::from_bounded(&map.routes, o.max_routes, |r| RouteDoc {
                id: r.key.id(),
                method: r.method.clone(),
                path: r.path.clone(),
                handler: r.handler.as_ref().map(|h| HandlerDoc {
                    module: h.module.as_str().to_owned(),
                    function: h.function.clone(),
                }),
                component: r.component.clone(),
                callers: r.callers,
            }),
            tables: SectionDoc::from_bounded(&map.tables, o.max_tables, |t| TableDoc {
                id: t.key.id(),
                definers: t.definers.iter().map(NodeKey::id).collect(),
                component: t.component.clone(),
                readers: t.readers,
                writers: t.writers,
            }),
            env_vars: SectionDoc::from_bounded(&map.env_vars, o.max_env_vars, |u| EnvVarDoc {
                id: u.key.id(),
                readers: u.users,
            }),
            externals: SectionDoc::from_bounded(&map.externals, o.max_externals, |u| ExternalDoc {
                id: u.key.id(),
                callers: u.users,
            }),
            packages: SectionDoc::from_bounded(&map.packages, o.max_packages, |u| PackageDoc {
                id: u.key.id(),
                importers: u.users,
            }),
            coverage,
        }
    }
}

/// Rows past which a section is folded into a collapsible block.
const FOLD_ROWS: usize = 15;

fn section<T>(
    out: &mut String,
    title: &str,
    doc: &SectionDoc<T>,
    header: &str,
    row: impl Fn(&T) -> String,
) {
    let _ = writeln!(out, "## {title}\n");
    if doc.items.is_empty() {
        out.push_str("None.\n\n");
        return;
    }
    let fold = doc.items.len() > FOLD_ROWS;
    if fold {
        out.push_str(&details_open(&format!("{} {}", doc.items.len(), title.to_lowercase())));
    }
    out.push_str(header);
    for item in &doc.items {
        out.push_str(&row(item));
        out.push('\n');
    }
    if fold {
        out.push_str(&details_close());
    }
    if doc.truncated {
        let _ = writeln!(
            out,
            "\nShowing {} of {} (limit {}); the rest are left out.",
            doc.shown, doc.total, doc.limit
        );
    }
    out.push('\n');
}

fn optional(value: Option<&str>) -> String {
    value.map_or_else(|| String::from("—"), code)
}

/// Renders a map document as a GitHub-flavoured Markdown report.
pub fn render_map(doc: &MapDocument) -> String {
    let mut out = String::from("# Architecture map\n\n");
    let _ = writeln!(
        out,
        "{} component{}, {} route{}, {} table{}, {} env var{}, {} external{}, {} package{}.{}\n",
        doc.components.total,
        plural(doc.components.total),
        doc.routes.total,
        plural(doc.routes.total),
        doc.tables.total,
        plural(doc.tables.total),
        doc.env_vars.total,
        plural(doc.env_vars.total),
        doc.externals.total,
        plural(doc.externals.total),
        doc.packages.total,
        plural(doc.packages.total),
        if doc.truncated { " Some lists are truncated; each says so." } else { "" }
    );
    section(
        &mut out,
        "Components",
        &doc.components,
        "| component | modules | languages | routes | tables | env vars |\n|---|---:|---|---:|---:|---:|\n",
        |c| {
            let languages: Vec<String> =
                c.modules_by_language.iter().map(|(l, n)| format!("{l} {n}")).collect();
            format!(
                "| {} | {} | {} | {} | {} | {} |",
                code(&c.name),
                c.modules,
                if languages.is_empty() { String::from("—") } else { languages.join(", ") },
                c.routes,
                c.tables,
                c.env_vars
            )
        },
    );
    section(
        &mut out,
        "Dependencies between components",
        &doc.component_edges,
        "| from | to | imports | calls | weight |\n|---|---|---:|---:|---:|\n",
        |e| {
            format!(
                "| {} | {} | {} | {} | {} |",
                code(&e.from),
                code(&e.to),
                e.imports,
                e.calls,
                e.weight
            )
        },
    );
    section(
        &mut out,
        "Routes",
        &doc.routes,
        "| method | path | handler | component | callers |\n|---|---|---|---|---:|\n",
        |r| {
            let handler = r.handler.as_ref().map(|h| match &h.function {
                Some(f) => format!("{}:{f}", h.module),
                None => h.module.clone(),
            });
            format!(
                "| {} | {} | {} | {} | {} |",
                r.method,
                code(&r.path),
                optional(handler.as_deref()),
                optional(r.component.as_deref()),
                r.callers
            )
        },
    );
    section(
        &mut out,
        "Tables",
        &doc.tables,
        "| table | defined by | component | readers | writers |\n|---|---|---|---:|---:|\n",
        |t| {
            let definers: Vec<String> = t.definers.iter().map(|d| code(d)).collect();
            format!(
                "| {} | {} | {} | {} | {} |",
                code(&t.id),
                if definers.is_empty() { String::from("—") } else { definers.join(", ") },
                optional(t.component.as_deref()),
                t.readers,
                t.writers
            )
        },
    );
    section(&mut out, "Env vars", &doc.env_vars, "| env var | readers |\n|---|---:|\n", |u| {
        format!("| {} | {} |", code(&u.id), u.readers)
    });
    section(&mut out, "Externals", &doc.externals, "| external | callers |\n|---|---:|\n", |u| {
        format!("| {} | {} |", code(&u.id), u.callers)
    });
    section(&mut out, "Packages", &doc.packages, "| package | importers |\n|---|---:|\n", |u| {
        format!("| {} | {} |", code(&u.id), u.importers)
    });
    out.push_str(&crate::coverage::render_markdown(&doc.coverage, "##", true));
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
