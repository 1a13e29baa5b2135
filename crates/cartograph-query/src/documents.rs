//! The map, trace and blast documents, built one way for both front ends: resolve the targets,
//! ask the graph, convert the answer into its report document. Bounds come from the caller (the
//! CLI's flags, the MCP server's capped arguments).

use cartograph_graph::{BlastOptions, GraphView, MapOptions, TargetError, TraceOptions};
use cartograph_report::blast::BlastDocument;
use cartograph_report::map::MapDocument;
use cartograph_report::trace::TraceDocument;

use crate::targets::resolve_targets;

/// The map of one analysed tree.
pub fn map_document(view: GraphView<'_>, options: &MapOptions) -> MapDocument {
    MapDocument::from_map(&cartograph_graph::map(view, options))
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
    Ok(TraceDocument::from_trace(&result))
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
