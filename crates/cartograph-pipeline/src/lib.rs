//! Turns a source tree into an architecture analysis: discovery, parallel extraction and resolution.
//!
//! The flow is [`discover`] (walk the tree, read every candidate file once, record what is skipped)
//! → parallel extraction (one `cartograph_extract::Extractor` per rayon worker) → resolution of
//! imports across files ([`resolve`]) → an [`Analysis`]: nodes, edges and refusals in identity
//! order, ready for the graph and report layers.

pub mod analyse;
pub mod cache;
pub mod discover;
pub mod git;
mod parts;
pub mod resolve;
pub mod shard;
pub mod source;

/// The linkers moved next to their recogniser families in `cartograph-extract`; the pipeline runs
/// them after resolution.
pub use cartograph_extract::recognise::link;
/// The tree index lives beside the linkers that probe it.
pub use cartograph_extract::tree::{self, TreeIndex};

pub use analyse::{AnalysisOptions, analyse_source, analyse_sources, analyse_tree};
pub use cache::{CacheError, CacheStats, FactCache, FactKey};
pub use cartograph_graph::{Analysis, AnalysisStats, ComponentRule};
pub use discover::{DiscoveryOptions, Inventory, SourceText};
pub use git::GitRevisionSource;
pub use shard::{MergeError, ShardSpec, merge_shards, write_shard};
pub use source::{
    DirectorySource, FileSource, NearestNames, SourceError, TreeSpec, parse_tree_arg,
};
