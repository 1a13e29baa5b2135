//! The map, trace and blast documents, built one way for both front ends: resolve the targets,
//! ask the graph, convert the answer into its report document. Bounds come from the caller (the
//! CLI's flags, the MCP server's capped arguments).

use cartograph_core::{EdgeKind, NodeKey, NodeKind, RefusalKind};
use cartograph_graph::{Analysis, BlastOptions, GraphView, MapOptions, TargetError, TraceOptions};
use cartograph_report::blast::BlastDocument;
use cartograph_report::coverage::CoverageDoc;
use cartograph_report::map::MapDocument;
use cartograph_report::trace::TraceDocument;

use crate::targets::resolve_targets;

/// The map of one analysed tree, with what the analysis did not see.
pub fn map_document(analysis: &Analysis, options: &MapOptions) -> MapDocument {
    MapDocument::from_map(
        &cartograph_graph::map(analysis.view(), options),
        CoverageDoc::from_analysis(analysis),
    )
}

/// The paths from the nodes `from` names (to those `to` names, when given).
pub fn trace_document(
    view: GraphView<'_>,
    from: &str,
    to: Option<&str>,
    options: &TraceOptions,
) -> Result<TraceDocument, TargetError> {
    let from = resolve_targets(view, &[from])?;
    let to = match to {
        Some(to) => Some(resolve_targets(view, &[to])?),
        None => None,
    };
    let result = cartograph_graph::trace(view, &from, to.as_deref(), options);
    Ok(TraceDocument::from_trace(&result).with_notes(unknown_calls(view, &from)))
}

/// For each start module of an analysed language in which no HTTP call was recognised and none
/// was refused, a note that its calls are unknown: a trace that lists only imports must not
/// read as "this module calls nothing".
fn unknown_calls(view: GraphView<'_>, from: &[NodeKey]) -> Vec<String> {
    from.iter()
        .filter(|key| key.kind() == NodeKind::Module)
        .filter(|key| {
            view.nodes
                .binary_search_by(|n| n.key.cmp(key))
                .ok()
                .is_some_and(|i| view.nodes[i].attrs.language.is_some())
        })
        .filter(|key| {
            let path = key.name();
            !view.edges.iter().any(|e| {
                e.kind == EdgeKind::Calls && (&e.from == *key || e.location.path.as_str() == path)
            }) && !view.refusals.iter().any(|r| {
                matches!(r.kind, RefusalKind::ComputedUrl | RefusalKind::UnmatchedCall)
                    && r.location.path.as_str() == path
            })
        })
        .map(|key| {
            format!(
                "No HTTP call was recognised in `{}`, and none was refused: whether it calls a service is unknown, not \"no\".",
                key.name()
            )
        })
        .collect()
}

/// What a change to the `targets` can affect.
pub fn blast_document<S: AsRef<str>>(
    view: GraphView<'_>,
    targets: &[S],
    options: &BlastOptions,
) -> Result<BlastDocument, TargetError> {
    let keys = resolve_targets(view, targets)?;
    Ok(BlastDocument::from_blast(&cartograph_graph::blast(view, &keys, options)))
}
