//! The `cache-stats` document: what the fact cache did in one run (`--cache-stats FILE`).

use serde::Serialize;

/// Counts of one run's cache lookups; see `schemas/cache-stats.schema.json`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CacheStatsDocument {
    pub schema: &'static str,
    pub schema_version: &'static str,
    pub hits: u64,
    pub misses: u64,
    pub disk_hits: u64,
    pub writes: u64,
    pub corrupt: u64,
    pub evicted: u64,
    /// Whole trees whose analysis came from the cache (nothing resolved or linked).
    pub trees_hit: u64,
    /// Whole trees' analyses written to the cache.
    pub trees_written: u64,
}

impl CacheStatsDocument {
    /// A document with every count zero, for the caller to fill in.
    pub fn zero() -> Self {
        Self { schema: "cache-stats", schema_version: "1.1", ..Self::default() }
    }
}
