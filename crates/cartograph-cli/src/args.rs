//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

const EXAMPLES: &str = "\
Examples:
  cartograph diff main HEAD                What this branch did to the architecture
  cartograph diff ./old ./new --json d.json --markdown d.md --fail-on route-removed
  cartograph render d.json --markdown d.md Render a diff JSON (with its explanations) as Markdown
  cartograph blast backend/app/models.py   What depends on a file, across languages
  cartograph trace web/src/api.ts          Where a client's calls go: routes, handlers, tables
  cartograph map                           Components, routes, tables, env vars, externals
  cartograph check                         Check the tree against the rules of cartograph.toml
  cartograph baseline write                Accept today's rule violations (only new ones fail)
  cartograph snapshot                      Snapshot the current directory to stdout
  cartograph snapshot ./repo -o graph.json Write the full graph of ./repo to graph.json
  cartograph summary ./repo                Counts, cycles and components
  cartograph summary ./repo --json         The same as a JSON document
  cartograph schema snapshot               Print the JSON Schema of the snapshot document
  cartograph recognisers                   What Cartograph recognises, per framework

A TREE is a directory, a git revision of the repository at hand (`main`, `HEAD~3`, a tag, a SHA;
read from the object store, no checkout) or a snapshot file written by `cartograph snapshot`. When a
word names both a directory and a revision, write `./main` for the directory or `rev:main` for the
revision (`dir:` and `snapshot:` prefixes also force a reading).

Output: on a terminal, a command prints plain text (the verdict first, findings by severity;
--evidence adds the edges behind them; colour per --color and NO_COLOR; wrapped to the terminal's
width or COLUMNS). Anywhere else (a pipe, a file, CI) it prints Markdown, as before. --text,
--markdown and --json choose a form whatever stdout is, and each may write to a FILE instead.

Exit codes: 0 success, 1 a --fail-on condition met, 2 bad usage or bad input.";

/// Cartograph reads a repository without running it and derives its architecture.
#[derive(Debug, Parser)]
#[command(name = "cartograph", version, about, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// When text has colour: `auto` (when stdout is a terminal, NO_COLOR is unset or empty and
    /// TERM is not `dumb`), `always` or `never`. Markdown and JSON never have colour.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
}

/// When text is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the full graph of a tree (nodes, edges with evidence, refusals) as JSON.
    #[command(after_help = "Examples:
  cartograph snapshot ./repo -o graph.json
  cartograph snapshot . --shard 2/4 -o shard-2.facts     one slice of a giant tree's files
  cartograph merge shard-*.facts -o graph.json           the same graph as one unsharded run

With --shard K/N, the files are cut into N slices by a hash of their paths; only slice K is parsed,
and what it yields is written to a fact file (binary; it holds the tree's configuration files and
text from the sources, so keep it where the checkout is kept). `cartograph merge` of all N fact
files writes the snapshot, byte-identical to the unsharded run with the same options.")]
    Snapshot {
        /// The tree to analyse: a directory, a git revision or a snapshot file.
        #[arg(default_value = ".", value_name = "TREE")]
        tree: String,
        /// Where to write the JSON (or, with --shard, the fact file); `-` is stdout.
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: String,
        /// Parse only slice K of N (1 <= K <= N) and write its facts for `cartograph merge`.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        #[command(flatten)]
        cache: CacheArgs,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Merge the fact files of every shard of one tree (`cartograph snapshot --shard K/N`) into
    /// its snapshot: resolution and linking across all files, byte-identical to an unsharded
    /// `cartograph snapshot` with the same options.
    #[command(
        after_help = "Example:\n  cartograph merge shard-1.facts shard-2.facts -o graph.json"
    )]
    Merge {
        /// The fact files, one per shard, in any order.
        #[arg(required = true, value_name = "FACTS")]
        facts: Vec<PathBuf>,
        /// Where to write the snapshot JSON; `-` is stdout.
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: String,
        /// Worker threads (default: RAYON_NUM_THREADS or the number of cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Summarise a tree: counts by kind, provenance, confidence and language; refusals; cycles;
    /// components.
    #[command(
        after_help = "Examples:\n  cartograph summary ./repo\n  cartograph summary ./repo --json -o summary.json"
    )]
    Summary {
        /// The tree to analyse: a directory, a git revision or a snapshot file.
        #[arg(default_value = ".", value_name = "TREE")]
        tree: String,
        /// Write the summary as a JSON document.
        #[arg(long, conflicts_with_all = ["markdown", "text"])]
        json: bool,
        /// Write the summary as Markdown (the default when stdout is not a terminal).
        #[arg(long, conflicts_with = "text")]
        markdown: bool,
        /// Write the summary as plain text (the default when stdout is a terminal).
        #[arg(long)]
        text: bool,
        /// In text, list every cycle, component and package.
        #[arg(long)]
        evidence: bool,
        /// Where to write; `-` is stdout.
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: String,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// What a change did to the architecture: nodes and edges added, removed and changed, and the
    /// findings a reviewer should look at, ranked by severity.
    #[command(after_help = "Examples:
  cartograph diff main HEAD
  cartograph diff v2.0.0 HEAD --markdown report.md --json report.json
  cartograph diff ./old ./new --fail-on route-removed,call-to-removed-route
  cartograph diff base.snapshot.json . --cache ~/.cache/cartograph
  cartograph diff main HEAD --json d.json --write-snapshots snapshots/
  cartograph diff main HEAD --evidence                 on a terminal: the edges behind each finding

On a terminal the diff prints as text: the verdict, the findings by severity, what changed. Piped
or redirected it prints the Markdown pull-request report; --text and --markdown choose either.

Finding kinds for --fail-on: route-removed, call-to-removed-route, route-added,
new-cross-language-call, new-call, new-table, new-table-write, new-env-var,
new-external-service, new-package, new-cycle, new-component-dependency, rule-violation,
rule-violation-fixed, stale-baseline, `rule:ID` (violations of one rule), or `any`.

With a rules file (cartograph.toml in HEAD when it is a directory, else in the working directory,
or --config), the violations the change introduces and fixes are findings too, and the baseline's
entries HEAD no longer fires are stale-baseline findings.")]
    Diff {
        /// The tree before the change.
        #[arg(value_name = "BASE")]
        base: String,
        /// The tree after the change.
        #[arg(value_name = "HEAD")]
        head: String,
        #[command(flatten)]
        outputs: OutputArgs,
        /// Also write the findings as SARIF 2.1.0 to FILE (`-` is stdout), for code scanning.
        #[arg(long, value_name = "FILE")]
        sarif: Option<String>,
        /// Exit 1 (after writing the reports) when a finding of one of these kinds is present;
        /// comma-separated, `rule:ID`, or `any`.
        #[arg(long, value_name = "KIND[,KIND...]", value_delimiter = ',')]
        fail_on: Vec<String>,
        #[command(flatten)]
        rules: RulesArgs,
        /// How many import/call hops the blast radius of the changed files follows.
        #[arg(long, value_name = "N", default_value_t = 3)]
        blast_depth: usize,
        /// Also write the snapshot documents of both trees to DIR/base.snapshot.json and
        /// DIR/head.snapshot.json (what `cartograph snapshot` writes), for tools that need the
        /// full graphs, such as cartograph-ask. DIR is created when missing.
        #[arg(long, value_name = "DIR")]
        write_snapshots: Option<PathBuf>,
        #[command(flatten)]
        cache: CacheArgs,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Render a diff report written by `cartograph diff --json` (or by cartograph-ask, with its
    /// explanations) as the Markdown pull-request report, without analysing anything.
    #[command(after_help = "Examples:
  cartograph render report.json
  cartograph render report.json --markdown report.md
  cartograph-ask attach report.json -o explained.json && cartograph render explained.json

Reads diff documents of schema 1.x. The blast radius of the changed files needs the trees, so a
report rendered from JSON has none.")]
    Render {
        /// The diff JSON document.
        #[arg(value_name = "REPORT.json")]
        report: PathBuf,
        #[command(flatten)]
        outputs: OutputArgs,
    },
    /// What depends on files, modules, routes or tables: reverse reachability over imports and
    /// calls, grouped by component, each with the path that explains why.
    #[command(after_help = "Examples:
  cartograph blast backend/app/models.py
  cartograph blast 'GET /api/items/{id}' --in main
  cartograph blast table:orders airflow.models.dag --json blast.json")]
    Blast {
        /// Files, directories, Python modules, routes (`METHOD /path`), tables, env vars or node
        /// ids (`kind:name`).
        #[arg(required = true, value_name = "TARGET")]
        targets: Vec<String>,
        /// The tree to read.
        #[arg(long = "in", value_name = "TREE", default_value = ".")]
        tree: String,
        /// How many hops to follow.
        #[arg(long, value_name = "N", default_value_t = 6)]
        depth: usize,
        /// At most this many affected nodes are listed (the rest are counted).
        #[arg(long, value_name = "N", default_value_t = 500)]
        limit: usize,
        #[command(flatten)]
        outputs: OutputArgs,
        #[command(flatten)]
        cache: CacheArgs,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Where a flow goes: from a client module through the routes it calls, their handlers, and
    /// the tables they read and write.
    #[command(after_help = "Examples:
  cartograph trace web/src/api.ts
  cartograph trace web/src/api.ts --to table:orders
  cartograph trace 'POST /api/v1/items' --in HEAD~1 --json trace.json")]
    Trace {
        /// Where paths start: a file, module, route, table or node id.
        #[arg(value_name = "FROM")]
        from: String,
        /// Keep only paths that end here.
        #[arg(long, value_name = "TO")]
        to: Option<String>,
        /// The tree to read.
        #[arg(long = "in", value_name = "TREE", default_value = ".")]
        tree: String,
        /// The longest path, in edges.
        #[arg(long, value_name = "N", default_value_t = 8)]
        depth: usize,
        /// At most this many paths (the rest are counted).
        #[arg(long, value_name = "N", default_value_t = 50)]
        max_paths: usize,
        #[command(flatten)]
        outputs: OutputArgs,
        #[command(flatten)]
        cache: CacheArgs,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// The aggregated view of a system: components and the weighted dependencies between them,
    /// routes, tables, environment variables, external services and packages.
    #[command(after_help = "Examples:\n  cartograph map\n  cartograph map HEAD --json map.json")]
    Map {
        /// The tree to read.
        #[arg(default_value = ".", value_name = "TREE")]
        tree: String,
        #[command(flatten)]
        outputs: OutputArgs,
        #[command(flatten)]
        cache: CacheArgs,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Check a tree against the architecture rules of its rules file: every violation the
    /// baseline does not accept, and every baseline entry that no longer fires.
    #[command(after_help = "Examples:
  cartograph check
  cartograph check ./repo --config rules/cartograph.toml --json check.json
  cartograph check HEAD --sarif check.sarif --fail-on rule-violation,stale-baseline

The rules file is --config, else cartograph.toml in TREE when it is a directory, else in the working
directory. Without --fail-on, check exits 1 when a violation of an `error` rule is reported; with it,
when a finding it names is (rule-violation, stale-baseline, rule:ID, any).")]
    Check {
        /// The tree to check: a directory, a git revision or a snapshot file.
        #[arg(default_value = ".", value_name = "TREE")]
        tree: String,
        #[command(flatten)]
        outputs: OutputArgs,
        /// Also write the findings as SARIF 2.1.0 to FILE (`-` is stdout).
        #[arg(long, value_name = "FILE")]
        sarif: Option<String>,
        /// Exit 1 when a finding of these kinds is present: rule-violation, stale-baseline,
        /// rule:ID, any. Default: a violation of a rule of severity error.
        #[arg(long, value_name = "KIND[,KIND...]", value_delimiter = ',')]
        fail_on: Vec<String>,
        #[command(flatten)]
        rules: RulesArgs,
        #[command(flatten)]
        cache: CacheArgs,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// The baseline of accepted rule violations.
    #[command(subcommand)]
    Baseline(BaselineCommand),
    /// Serve map, trace, blast, diff and evidence to a coding agent over MCP (JSON-RPC on stdio),
    /// for the trees granted here and no others.
    #[command(after_help = "Examples:
  cartograph mcp --grant my-session --tree .
  cartograph mcp --grant review-42 --tree ./service --tree ../client

A query names a granted tree by the path given here, or `rev:REV` for a revision of a granted
repository. Anything else is refused before a file is read. See docs/mcp.md.")]
    Mcp {
        /// An opaque identity for this session, fixed for its life.
        #[arg(long, value_name = "ID")]
        grant: String,
        /// A tree the session may read (repeatable): a directory or a git repository root.
        #[arg(long = "tree", value_name = "PATH", required = true)]
        trees: Vec<String>,
        /// Worker threads for analyses (default: RAYON_NUM_THREADS or the number of cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// List the recognisers: what each finds (routes, calls, tables, environment variables), in
    /// which languages, and which edges it yields.
    Recognisers {
        /// Print a Markdown table (the default when stdout is not a terminal).
        #[arg(long, conflicts_with = "text")]
        markdown: bool,
        /// Print plain text (the default when stdout is a terminal).
        #[arg(long)]
        text: bool,
    },
    /// Print the JSON Schema of a document, or list the documents that have one.
    #[command(after_help = "Examples:\n  cartograph schema\n  cartograph schema summary")]
    Schema {
        /// A document name (`snapshot`, `summary`).
        name: Option<String>,
    },
}

/// What to do with the baseline.
#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Record every rule violation of a tree as accepted, by identity (rule, edge kind and
    /// endpoints; never a line number), so that `check` and `diff` report only new ones.
    #[command(after_help = "Examples:
  cartograph baseline write
  cartograph baseline write HEAD --output cartograph-baseline.json

Writes where the rules file says (`baseline = ...`, default cartograph-baseline.json beside it)
unless --output is given. Entries that no longer fire are reported as stale-baseline until the
file is written again: it only shrinks.")]
    Write {
        /// The tree whose violations to accept.
        #[arg(default_value = ".", value_name = "TREE")]
        tree: String,
        /// Where to write (`-` is stdout); default: the baseline the rules file names.
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
        /// The rules file (default: cartograph.toml in TREE when a directory, else here).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        #[command(flatten)]
        cache: CacheArgs,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
}

/// The rules file and baseline a run checks against.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// The rules file (default: cartograph.toml in the tree when it is a directory, else in the
    /// working directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The baseline of accepted violations (default: the one the rules file names).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

/// Where a report goes. With no flag, plain text goes to stdout when it is a terminal and
/// Markdown otherwise; any of them may be given at once, and at most one writes to stdout.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Write the JSON document to FILE (`-` is stdout).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<String>,
    /// Write the Markdown report to FILE (`-`, or no value, is stdout). The default on stdout
    /// when it is not a terminal.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub markdown: Option<String>,
    /// Write plain text to FILE (`-`, or no value, is stdout). The default on stdout when it is
    /// a terminal.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub text: Option<String>,
    /// In text, show the evidence: the edges behind each finding with their sentences (each
    /// hop's, each affected node's chain) and every entry of a long list.
    #[arg(long)]
    pub evidence: bool,
}

/// The persistent extraction cache.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Keep extraction results in DIR, keyed by file content and tool version, so a later run
    /// re-parses only what changed. Safe to share between concurrent runs.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// The most the cache directory may hold, in MiB; least recently used entries go first.
    /// Without it: 512, or twice what the run used, whichever is larger (a large tree's cache
    /// keeps what its next run needs).
    #[arg(long, value_name = "MIB")]
    pub cache_max_mib: Option<u64>,
    /// Write what the cache did (hits, misses, entries read from DIR, written, evicted) as JSON
    /// to FILE (`-` is stdout); schema `cache-stats`.
    #[arg(long, value_name = "FILE", requires = "cache")]
    pub cache_stats: Option<String>,
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
