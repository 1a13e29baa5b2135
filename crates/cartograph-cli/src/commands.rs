//! One function per subcommand.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use cartograph_graph::{Analysis, BlastOptions, MapOptions, TraceOptions};
use cartograph_pipeline::{AnalysisOptions, ComponentRule, DiscoveryOptions, FactCache};
use cartograph_query::{FailOn, shown};
use cartograph_report::diff::DiffDocument;
use cartograph_report::diff_markdown::{self, DiffMarkdownOptions};
use cartograph_report::snapshot::SnapshotDocument;
use cartograph_report::summary::SummaryDocument;
use cartograph_report::{blast, map, markdown, schema, to_json, trace};

use crate::args::{AnalysisArgs, CacheArgs, Cli, Command, OutputArgs};
use crate::output::write_output;
use crate::trees::{load_pair, load_tree};

pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Snapshot { tree, output, analysis } => {
            let tree = load_tree(&tree, &analysis, None)?;
            write_output(&output, &to_json(&SnapshotDocument::from_analysis(&tree.analysis)))?;
        }
        Command::Summary { tree, json, markdown: _, output, analysis } => {
            let tree = load_tree(&tree, &analysis, None)?;
            let doc = SummaryDocument::from_analysis(&tree.analysis);
            let text = if json { to_json(&doc) } else { markdown::render_summary(&doc) };
            write_output(&output, &text)?;
        }
        Command::Diff {
            base,
            head,
            outputs,
            fail_on,
            blast_depth,
            write_snapshots,
            cache,
            analysis,
        } => {
            let reports = DiffReports {
                outputs: &outputs,
                fail_on: &fail_on,
                blast_depth,
                snapshots: write_snapshots.as_deref(),
            };
            return diff(&base, &head, &reports, &cache, &analysis);
        }
        Command::Render { report, outputs } => render(&report, &outputs)?,
        Command::Blast { targets, tree, depth, limit, outputs, cache, analysis } => {
            let cache = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, cache.as_ref())?;
            finish_cache(cache);
            let options = BlastOptions { max_depth: depth, max_nodes: limit };
            let doc = cartograph_query::blast_document(tree.analysis.view(), &targets, &options)
                .map_err(|e| anyhow!("{e}"))?;
            write_reports(&outputs, &to_json(&doc), || blast::render_blast(&doc))?;
        }
        Command::Trace { from, to, tree, depth, max_paths, outputs, cache, analysis } => {
            let cache = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, cache.as_ref())?;
            finish_cache(cache);
            let options = TraceOptions { max_depth: depth, max_paths, ..TraceOptions::default() };
            let view = tree.analysis.view();
            let doc = cartograph_query::trace_document(view, &from, to.as_deref(), &options)
                .map_err(|e| anyhow!("{e}"))?;
            write_reports(&outputs, &to_json(&doc), || trace::render_trace(&doc))?;
        }
        Command::Map { tree, outputs, cache, analysis } => {
            let cache = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, cache.as_ref())?;
            finish_cache(cache);
            let doc = cartograph_query::map_document(tree.analysis.view(), &MapOptions::default());
            write_reports(&outputs, &to_json(&doc), || map::render_map(&doc))?;
        }
        Command::Mcp { grant, trees, threads } => {
            if threads == Some(0) {
                bail!("--threads must be at least 1");
            }
            let cwd = std::env::current_dir()
                .map_err(|e| anyhow!("cannot read the current directory ({})", e.kind()))?;
            let grant = cartograph_mcp::grant::Grant::new(&grant, &trees, &cwd)
                .map_err(|e| anyhow!("{e}"))?;
            let options = AnalysisOptions { threads, ..AnalysisOptions::default() };
            if let Err(message) = cartograph_mcp::serve_stdio(grant, options) {
                eprintln!("error: {message}");
                return Ok(ExitCode::from(1));
            }
        }
        Command::Recognisers => write_output("-", &markdown::render_recognisers())?,
        Command::Schema { name: None } => {
            let names: Vec<&str> = schema::schema_names().collect();
            write_output("-", &format!("{}\n", names.join("\n")))?;
        }
        Command::Schema { name: Some(name) } => match schema::schema_text(&name) {
            Some(text) => write_output("-", text)?,
            None => {
                let names: Vec<&str> = schema::schema_names().collect();
                bail!("there is no schema named `{name}`; the documents are: {}", names.join(", "));
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// What `cartograph diff` writes, and when it fails.
struct DiffReports<'a> {
    outputs: &'a OutputArgs,
    fail_on: &'a [String],
    blast_depth: usize,
    /// Where the two trees' snapshot documents go, if anywhere.
    snapshots: Option<&'a Path>,
}

fn diff(
    base: &str,
    head: &str,
    reports: &DiffReports<'_>,
    cache: &CacheArgs,
    analysis: &AnalysisArgs,
) -> Result<ExitCode> {
    let DiffReports { outputs, fail_on, blast_depth, snapshots } = *reports;
    let gate = FailOn::parse(fail_on).map_err(|e| anyhow!("--fail-on {e}"))?;
    // Whatever the cache, a file unchanged between the trees is extracted once.
    let cache = open_cache(cache)?;
    let started = std::time::Instant::now();
    let (base, head) = load_pair(base, head, analysis, cache.as_ref())?;
    tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "trees analysed");
    finish_cache(cache);
    tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "cache finished");
    let doc = cartograph_query::diff_document(&base, &head);
    tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "diffed");
    // The blast radius of the changed files appears in the Markdown report only.
    let render =
        || cartograph_query::diff_markdown(&doc, &base.analysis, &head.analysis, blast_depth);
    write_reports(outputs, &doc.to_json(), render)?;
    if let Some(dir) = snapshots {
        write_snapshots(dir, &base.analysis, &head.analysis)?;
    }
    tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "reports written");
    if let Some(met) = gate.met(&doc) {
        eprintln!("cartograph: --fail-on met: {met}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `base.snapshot.json` and `head.snapshot.json` into `dir`, creating it when missing:
/// the very documents `cartograph snapshot` writes for each tree.
fn write_snapshots(dir: &Path, base: &Analysis, head: &Analysis) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        anyhow!("cannot create the snapshot directory {} ({})", shown(dir), e.kind())
    })?;
    for (name, analysis) in [("base.snapshot.json", base), ("head.snapshot.json", head)] {
        let path = dir.join(name);
        let text = to_json(&SnapshotDocument::from_analysis(analysis));
        std::fs::write(&path, text)
            .map_err(|e| anyhow!("cannot write {} ({})", shown(&path), e.kind()))?;
    }
    Ok(())
}

/// `cartograph render`: a diff JSON document as the Markdown report (or back as JSON).
fn render(report: &Path, outputs: &OutputArgs) -> Result<()> {
    let named = shown(report);
    let text =
        std::fs::read(report).map_err(|e| anyhow!("{named} cannot be read ({})", e.kind()))?;
    let text = String::from_utf8(text)
        .map_err(|_| anyhow!("{named} is not a diff document: it is not UTF-8 text"))?;
    let doc = DiffDocument::from_json(&text).map_err(|e| anyhow!("{named} {e}"))?;
    write_reports(outputs, &doc.to_json(), || {
        diff_markdown::render_diff(&doc, &DiffMarkdownOptions::default())
    })
}

/// Writes the JSON and Markdown reports where asked; Markdown to stdout when neither is asked.
fn write_reports(
    outputs: &OutputArgs,
    json: &str,
    markdown: impl FnOnce() -> String,
) -> Result<()> {
    if let (Some(a), Some(b)) = (&outputs.json, &outputs.markdown)
        && a == "-"
        && b == "-"
    {
        bail!("--json and --markdown cannot both write to stdout; give one of them a FILE");
    }
    if let Some(target) = &outputs.json {
        write_output(target, json)?;
    }
    match &outputs.markdown {
        Some(target) => write_output(target, &markdown())?,
        None if outputs.json.is_none() => write_output("-", &markdown())?,
        None => {}
    }
    Ok(())
}

fn open_cache(args: &CacheArgs) -> Result<Option<FactCache>> {
    let Some(dir) = &args.cache else { return Ok(None) };
    let bytes = args.cache_max_mib.saturating_mul(1024 * 1024);
    FactCache::with_dir(dir, bytes)
        .map(Some)
        .map_err(|e| anyhow!("cache directory {} {e}", shown(dir)))
}

fn finish_cache(cache: Option<FactCache>) {
    if let Some(cache) = cache {
        cache.finish();
    }
}

pub(crate) fn options(args: &AnalysisArgs) -> Result<AnalysisOptions> {
    let components = component_rule(&args.components)?;
    let mut discovery =
        DiscoveryOptions { max_file_size: args.max_file_size, ..Default::default() };
    if args.no_default_excludes {
        discovery.excluded_dirs = vec![".git".to_owned()];
    }
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    Ok(AnalysisOptions {
        discovery,
        include_builtins: args.include_builtins,
        threads: args.threads,
        components,
        imports_only: args.imports_only,
    })
}

fn component_rule(spec: &str) -> Result<ComponentRule> {
    ComponentRule::parse(spec).ok_or_else(|| {
        anyhow!("--components `{spec}` is not a rule; use `roots`, `roots:N` or `depth:N`")
    })
}

/// A spinner on stderr while a tree is analysed, only when stderr is a terminal.
pub(crate) fn progress_spinner() -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.set_message("analysing…");
    spinner.enable_steady_tick(Duration::from_millis(100));
    Some(spinner)
}
