//! A whole analysis encoded in parts, for the two places a large one waits outside the heap: put
//! aside in the spill while the next tree of a diff is analysed (`analyse::Aside`), and kept in
//! the cache directory as a tree's entry (`cache::write_tree`). The parts, each a postcard
//! encoding: the analysis without its edges, the number of edges, then the edges in blocks of
//! [`BLOCK`] — so neither writing nor reading holds the whole encoding (~300 MiB at 130,000
//! files). Read back, the texts of its paths and keys are shared again ([`TextPool`]): decoded,
//! each edge would hold its own copy of every path, more memory than the edges themselves.

use std::collections::BTreeMap;
use std::io;

use cartograph_core::{Edge, Node, Refusal, RepoPath, TextPool};
use cartograph_graph::{Analysis, AnalysisStats};
use serde::{Deserialize, Serialize};

/// Edges encoded together.
pub(crate) const BLOCK: usize = 1 << 14;

/// An analysis without its edges: the fields of [`Analysis`] but its edges, in its order.
#[derive(Serialize)]
struct Rest<'a> {
    nodes: &'a [Node],
    refusals: &'a [Refusal],
    stats: &'a AnalysisStats,
    package_roots: &'a [String],
    file_versions: &'a BTreeMap<RepoPath, u32>,
}

/// [`Rest`] read back.
#[derive(Deserialize)]
struct OwnedRest {
    nodes: Vec<Node>,
    refusals: Vec<Refusal>,
    stats: AnalysisStats,
    package_roots: Vec<String>,
    file_versions: BTreeMap<RepoPath, u32>,
}

/// Hands the encoding of each part of `analysis`, in order, to `put`; stops at its first error.
pub(crate) fn encode(
    analysis: &Analysis,
    mut put: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    fn part<T: Serialize + ?Sized>(
        value: &T,
        put: &mut impl FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        put(&postcard::to_stdvec(value).map_err(io::Error::other)?)
    }
    let rest = Rest {
        nodes: &analysis.nodes,
        refusals: &analysis.refusals,
        stats: &analysis.stats,
        package_roots: &analysis.package_roots,
        file_versions: &analysis.file_versions,
    };
    part(&rest, &mut put)?;
    part(&(analysis.edges.len() as u64), &mut put)?;
    for block in analysis.edges.chunks(BLOCK) {
        part(block, &mut put)?;
    }
    Ok(())
}

/// The analysis whose parts `next` gives in order (`None` when it has no more, or cannot read
/// one), its texts shared; `None` for anything but what [`encode`] made: a part that does not
/// decode, too few or too many edges, or a count over `max_edges` (a bound a damaged source
/// cannot make us allocate past).
pub(crate) fn decode(
    mut next: impl FnMut() -> Option<Vec<u8>>,
    max_edges: usize,
) -> Option<Analysis> {
    let rest: OwnedRest = postcard::from_bytes(&next()?).ok()?;
    let count: u64 = postcard::from_bytes(&next()?).ok()?;
    let count = usize::try_from(count).ok().filter(|count| *count <= max_edges)?;
    let mut analysis = Analysis {
        nodes: rest.nodes,
        edges: Vec::with_capacity(count),
        refusals: rest.refusals,
        stats: rest.stats,
        package_roots: rest.package_roots,
        file_versions: rest.file_versions,
    };
    let mut pool = TextPool::new();
    analysis.share_texts(&mut pool);
    while analysis.edges.len() < count {
        let mut block: Vec<Edge> = postcard::from_bytes(&next()?).ok()?;
        if block.is_empty() || analysis.edges.len() + block.len() > count {
            return None;
        }
        for edge in &mut block {
            edge.share(&mut pool);
        }
        analysis.edges.append(&mut block);
    }
    Some(analysis)
}
