//! What a user typed as the targets of a query — files, directories, routes, tables, environment
//! variables, packages or node ids — as node keys of one analysis: one resolution for the CLI's
//! arguments and the MCP server's.

use cartograph_core::NodeKey;
use cartograph_graph::{GraphView, TargetError, resolve_target};

/// The node keys every spec names, sorted and without repeats; the first spec that names nothing
/// is the error (its message names only what the user typed).
pub fn resolve_targets<S: AsRef<str>>(
    view: GraphView<'_>,
    specs: &[S],
) -> Result<Vec<NodeKey>, TargetError> {
    let mut keys = Vec::new();
    for spec in specs {
        keys.extend(resolve_target(view, spec.as_ref())?);
    }
    keys.sort();
    keys.dedup();
    Ok(keys)
}
