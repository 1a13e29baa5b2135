//! The `cache-stats` document: what the fact cache did in one run (`--cache-stats FILE`).

use serde::Serialize;

/// Counts of one run's cache lookups; see `schemas/cache-stats.schema.json`.
#[derive(Debug, Clone, Serialize)]
pub struct CacheStatsDocument {
    pub schema: &'static str,
    pub schema_version: &'static str,
    pub hits: u64,
    pub misses: u64,
    pub disk_hits: u64,
    pub writes: u64,
    pub corrupt: u64,
    pub evicted: u64,
}

impl CacheStatsDocument {
    /// The document for these counts: hits, misses, disk hits, writes, corrupt, evicted.
    pub fn new(
        hits: u64,
        misses: u64,
        disk_hits: u64,
        writes: u64,
        corrupt: u64,
        evicted: u64,
    ) -> Self {
        Self {
            schema: "cache-stats",
            schema_version: "1.0",
            hits,
            misses,
            disk_hits,
            writes,
            corrupt,
            evicted,
        }
    }
}
