//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

const EXAMPLES: &str = "\
Examples:
  cartograph snapshot                      Snapshot the current directory to stdout
  cartograph snapshot ./repo -o graph.json Write the full graph of ./repo to graph.json
  cartograph summary ./repo                Counts, cycles and components as Markdown
  cartograph summary ./repo --json         The same as a JSON document
  cartograph schema snapshot               Print the JSON Schema of the snapshot document
  cartograph recognisers                   What Cartograph recognises, per framework

Exit codes: 0 success, 1 a --fail-on condition met, 2 bad usage or bad input.";

/// Cartograph reads a repository without running it and derives its architecture.
#[derive(Debug, Parser)]
#[command(name = "cartograph", version, about, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the full graph of a tree (nodes, edges with evidence, refusals) as JSON.
    #[command(after_help = "Example:\n  cartograph snapshot ./repo -o graph.json")]
    Snapshot {
        /// The tree to analyse.
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Where to write the JSON; `-` is stdout.
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: String,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Summarise a tree: counts by kind, provenance, confidence and language; refusals; cycles;
    /// components.
    #[command(
        after_help = "Examples:\n  cartograph summary ./repo\n  cartograph summary ./repo --json -o summary.json"
    )]
    Summary {
        /// The tree to analyse.
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Write the summary as a JSON document.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Write the summary as Markdown (the default).
        #[arg(long)]
        markdown: bool,
        /// Where to write; `-` is stdout.
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: String,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// List the recognisers: what each finds (routes, calls, tables, environment variables), in
    /// which languages, and which edges it yields.
    Recognisers,
    /// Print the JSON Schema of a document, or list the documents that have one.
    #[command(after_help = "Examples:\n  cartograph schema\n  cartograph schema summary")]
    Schema {
        /// A document name (`snapshot`, `summary`).
        name: Option<String>,
    },
}

/// Options shared by every command that analyses a tree.
#[derive(Debug, Args)]
pub struct AnalysisArgs {
    /// Files larger than this many bytes are skipped and recorded as refusals.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    pub max_file_size: u64,
    /// How modules are grouped into components: `roots[:N]` (package roots plus N folder levels,
    /// default `roots:2`) or `depth:N` (the first N folders).
    #[arg(long, value_name = "RULE", default_value = "roots:2")]
    pub components: String,
    /// Keep imports of the Python standard library and Node built-ins in the graph.
    #[arg(long)]
    pub include_builtins: bool,
    /// Also analyse folders skipped by default (node_modules, .venv, dist, build, ...).
    #[arg(long)]
    pub no_default_excludes: bool,
    /// Extract the import graph only: skip the route, call, table and environment recognisers.
    #[arg(long)]
    pub imports_only: bool,
    /// Worker threads (default: RAYON_NUM_THREADS or the number of cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}
