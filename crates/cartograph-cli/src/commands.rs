//! One function per subcommand.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use cartograph_graph::{Analysis, BlastOptions, MapOptions, TraceOptions};
use cartograph_pipeline::{AnalysisOptions, ComponentRule, DiscoveryOptions, FactCache, ShardSpec};
use cartograph_query::config::CONFIG_FILE;
use cartograph_query::rules::{Rules, find_config, read_rules};
use cartograph_query::{FailOn, shown};
use cartograph_report::cache_stats::CacheStatsDocument;
use cartograph_report::diff::DiffDocument;
use cartograph_report::diff::FindingDoc;
use cartograph_report::diff_markdown::{self, DiffMarkdownOptions};
use cartograph_report::sarif::{self, BaselineFile};
use cartograph_report::snapshot::{SnapshotDocument, SnapshotStream};
use cartograph_report::summary::SummaryDocument;
use cartograph_report::text::{self, DiffTextOptions, Gate, TextOptions};
use cartograph_report::words::plural;
use cartograph_report::{blast, map, markdown, rules, schema, to_json, trace};

use crate::args::{
    AnalysisArgs, BaselineCommand, CacheArgs, Cli, ColorWhen, Command, OutputArgs, RulesArgs,
};
use crate::output::{write_bytes, write_document, write_output, write_text};
use crate::trees::{load_pair, load_tree};

pub fn run(cli: Cli) -> Result<ExitCode> {
    let color = cli.color;
    match cli.command {
        Command::Snapshot { tree, output, shard: Some(shard), cache, analysis } => {
            let shard = ShardSpec::parse(&shard).map_err(|e| anyhow!("--shard {e}"))?;
            if output == "-" && std::io::stdout().is_terminal() {
                bail!("a fact file is binary: write it to a file with -o FILE");
            }
            let opened = open_cache(&cache)?;
            let facts = crate::trees::write_shard(&tree, &analysis, shard, opened.as_ref())?;
            finish_cache(opened, &cache)?;
            write_bytes(&output, &facts)?;
        }
        Command::Snapshot { tree, output, shard: None, cache, analysis } => {
            let opened = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, opened.as_ref())?;
            finish_cache(opened, &cache)?;
            // Streamed from the analysis: the whole document is never held.
            write_document(&output, &SnapshotStream::new(&tree.analysis))?;
            tracing::debug!(
                rss_mib = cartograph_pipeline::analyse::resident_mib(),
                "snapshot document written"
            );
        }
        Command::Merge { facts, output, threads } => {
            if threads == Some(0) {
                bail!("--threads must be at least 1");
            }
            let mut read = Vec::with_capacity(facts.len());
            for path in &facts {
                read.push(std::fs::read(path).map_err(|e| {
                    anyhow!("cannot read fact file {} ({})", shown(path), e.kind())
                })?);
            }
            let analysis =
                cartograph_pipeline::merge_shards(&read, threads).map_err(|e| anyhow!("{e}"))?;
            drop(read);
            write_document(&output, &SnapshotStream::new(&analysis))?;
        }
        Command::Summary {
            tree,
            json,
            markdown: as_markdown,
            text: as_text,
            evidence,
            output,
            analysis,
        } => {
            let tree = load_tree(&tree, &analysis, None)?;
            let doc = SummaryDocument::from_analysis(&tree.analysis);
            if json {
                write_output(&output, &to_json(&doc))?;
            } else if as_text
                || (!as_markdown && output == "-" && crate::terminal::stdout_is_terminal())
            {
                let options = crate::terminal::text_options(&output, color, evidence);
                write_text(&output, &text::render_summary(&doc, &options), options.color)?;
            } else {
                write_output(&output, &markdown::render_summary(&doc))?;
            }
        }
        Command::Diff {
            base,
            head,
            outputs,
            sarif,
            fail_on,
            rules,
            blast_depth,
            write_snapshots,
            cache,
            analysis,
        } => {
            let reports = DiffReports {
                outputs: &outputs,
                color,
                sarif: sarif.as_deref(),
                fail_on: &fail_on,
                rules: &rules,
                blast_depth,
                snapshots: write_snapshots.as_deref(),
            };
            return diff(&base, &head, &reports, &cache, &analysis);
        }
        Command::Check { tree, outputs, sarif, fail_on, rules, cache, analysis } => {
            let gate = FailOn::parse(&fail_on).map_err(|e| anyhow!("--fail-on {e}"))?;
            let found = rules_for(&tree, &rules, true)?.ok_or_else(|| anyhow!("no rules file"))?;
            check_gate_rules(&gate, &found)?;
            let opened = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, opened.as_ref())?;
            finish_cache(opened, &cache)?;
            let doc = cartograph_query::rules::check_document(&tree, &found);
            let json = to_json(&doc);
            let forms = Forms {
                json: &json,
                markdown: &|| rules::render_check(&doc),
                text: &|o| text::render_check(&doc, o),
            };
            write_reports_beside(&outputs, color, sarif.as_deref(), forms)?;
            if let Some(target) = &sarif {
                write_output(target, &sarif_of(&doc.findings, &doc_rules(&found), &found))?;
            }
            let met = if gate.is_empty() {
                let errors = doc
                    .findings
                    .iter()
                    .filter(|f| f.kind == "rule-violation" && f.severity == "high")
                    .count();
                (errors > 0).then(|| {
                    format!("{errors} violation{} of rules of severity error", plural(errors))
                })
            } else {
                gate.met_by(&doc.findings).map(|m| m.to_string())
            };
            if let Some(met) = met {
                cartograph_diagnostics::stderr_line(&format!("cartograph: check failed: {met}"));
                return Ok(ExitCode::from(1));
            }
        }
        Command::Baseline(BaselineCommand::Write { tree, output, config, cache, analysis }) => {
            let args = RulesArgs { config, baseline: None };
            let found = rules_for(&tree, &args, true)?.ok_or_else(|| anyhow!("no rules file"))?;
            let opened = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, opened.as_ref())?;
            finish_cache(opened, &cache)?;
            let doc = cartograph_query::rules::baseline_document(&tree, &found);
            match output {
                Some(target) => write_output(&target, &to_json(&doc))?,
                None => {
                    std::fs::write(&found.baseline_path, to_json(&doc)).map_err(|e| {
                        anyhow!(
                            "cannot write the baseline {} ({})",
                            shown(&found.baseline_path),
                            e.kind()
                        )
                    })?;
                    cartograph_diagnostics::stderr_line(&format!(
                        "cartograph: wrote {} with {} accepted violation{}",
                        found.baseline_name,
                        doc.entries.len(),
                        plural(doc.entries.len())
                    ));
                }
            }
        }
        Command::Render { report, outputs } => render(&report, &outputs, color)?,
        Command::Blast { targets, tree, depth, limit, outputs, cache, analysis } => {
            let opened = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, opened.as_ref())?;
            finish_cache(opened, &cache)?;
            let options = BlastOptions { max_depth: depth, max_nodes: limit };
            let doc = cartograph_query::blast_document(tree.analysis.view(), &targets, &options)
                .map_err(|e| anyhow!("{e}"))?;
            let json = to_json(&doc);
            let forms = Forms {
                json: &json,
                markdown: &|| blast::render_blast(&doc),
                text: &|o| text::render_blast(&doc, o),
            };
            write_reports(&outputs, color, forms)?;
        }
        Command::Trace { from, to, tree, depth, max_paths, outputs, cache, analysis } => {
            let opened = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, opened.as_ref())?;
            finish_cache(opened, &cache)?;
            let options = TraceOptions { max_depth: depth, max_paths, ..TraceOptions::default() };
            let view = tree.analysis.view();
            let doc = cartograph_query::trace_document(view, &from, to.as_deref(), &options)
                .map_err(|e| anyhow!("{e}"))?;
            let json = to_json(&doc);
            let forms = Forms {
                json: &json,
                markdown: &|| trace::render_trace(&doc),
                text: &|o| text::render_trace(&doc, o),
            };
            write_reports(&outputs, color, forms)?;
        }
        Command::Map { tree, outputs, cache, analysis } => {
            let opened = open_cache(&cache)?;
            let tree = load_tree(&tree, &analysis, opened.as_ref())?;
            finish_cache(opened, &cache)?;
            let doc = cartograph_query::map_document(&tree.analysis, &MapOptions::default());
            let json = to_json(&doc);
            let forms = Forms {
                json: &json,
                markdown: &|| map::render_map(&doc),
                text: &|o| text::render_map(&doc, o),
            };
            write_reports(&outputs, color, forms)?;
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
                cartograph_diagnostics::stderr_line(&format!("error: {message}"));
                return Ok(ExitCode::from(1));
            }
        }
        Command::Recognisers { markdown: as_markdown, text: as_text } => {
            if as_text || (!as_markdown && crate::terminal::stdout_is_terminal()) {
                let options = crate::terminal::text_options("-", color, false);
                write_text("-", &text::render_recognisers(&options), options.color)?;
            } else {
                write_output("-", &markdown::render_recognisers())?;
            }
        }
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

/// The rules that apply to a run over `tree` (see `cartograph_query::rules`); `required` makes a
/// missing rules file an error rather than no rules.
fn rules_for(tree: &str, args: &RulesArgs, required: bool) -> Result<Option<Rules>> {
    let cwd = std::env::current_dir()
        .map_err(|e| anyhow!("cannot read the current directory ({})", e.kind()))?;
    let as_dir = Path::new(tree.strip_prefix("dir:").unwrap_or(tree));
    let tree_dir = (!tree.starts_with("rev:") && as_dir.is_dir()).then_some(as_dir);
    let Some(path) = find_config(args.config.as_deref(), tree_dir, &cwd) else {
        if required {
            bail!(
                "no rules file: write {CONFIG_FILE} at the repository root (see `cartograph schema config`) or give --config FILE"
            );
        }
        return Ok(None);
    };
    Ok(Some(read_rules(&path, args.baseline.as_deref()).map_err(|e| anyhow!("{e}"))?))
}

/// Refuses a `--fail-on rule:ID` that names no rule of the rules file.
fn check_gate_rules(gate: &FailOn, rules: &Rules) -> Result<()> {
    for id in gate.rule_ids() {
        if !rules.policy.rules.iter().any(|r| r.id == id) {
            bail!("--fail-on rule:{id} names no rule of the rules file");
        }
    }
    Ok(())
}

fn doc_rules(rules: &Rules) -> Vec<rules::RuleDoc> {
    rules::RuleDoc::all(&rules.policy)
}

/// The SARIF log of findings; a stale baseline entry points into the baseline file.
fn sarif_of(findings: &[FindingDoc], docs: &[rules::RuleDoc], rules: &Rules) -> String {
    let baseline = rules
        .baseline_text
        .as_deref()
        .map(|text| BaselineFile { path: rules.baseline_name.as_str(), text });
    sarif::sarif_log(findings, docs, baseline)
}

/// What `cartograph diff` writes, and when it fails.
struct DiffReports<'a> {
    outputs: &'a OutputArgs,
    color: ColorWhen,
    sarif: Option<&'a str>,
    rules: &'a RulesArgs,
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
    let DiffReports { outputs, color, sarif: sarif_target, rules, fail_on, blast_depth, snapshots } =
        *reports;
    let gate = FailOn::parse(fail_on).map_err(|e| anyhow!("--fail-on {e}"))?;
    let rules = rules_for(head, rules, false)?;
    match &rules {
        Some(rules) => check_gate_rules(&gate, rules)?,
        None if gate.rule_ids().next().is_some() => {
            bail!("--fail-on rule:ID needs a rules file ({CONFIG_FILE} or --config)")
        }
        None => {}
    }
    // Whatever the cache, a file unchanged between the trees is extracted once.
    let opened = open_cache(cache)?;
    let started = std::time::Instant::now();
    let (base, head) = load_pair(base, head, analysis, opened.as_ref())?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = cartograph_pipeline::analyse::resident_mib(),
        "trees analysed"
    );
    finish_cache(opened, cache)?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = cartograph_pipeline::analyse::resident_mib(),
        "cache finished"
    );
    let mut doc = cartograph_query::diff_document(&base, &head);
    if let Some(rules) = &rules {
        cartograph_query::rules::attach_rules(&mut doc, &base, &head, rules);
    }
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = cartograph_pipeline::analyse::resident_mib(),
        "diffed"
    );
    let met = gate.met(&doc);
    let text_gate = match &met {
        Some(met) => Some(Gate::Met(met.to_string())),
        None if !gate.is_empty() => Some(Gate::Passed),
        None => None,
    };
    let json = doc.to_json();
    // The blast radius of the changed files appears in the Markdown report only.
    let forms = Forms {
        json: &json,
        markdown: &|| {
            cartograph_query::diff_markdown(&doc, &base.analysis, &head.analysis, blast_depth)
        },
        text: &|o| {
            let options = DiffTextOptions { text: o.clone(), gate: text_gate.clone() };
            text::render_diff(&doc, &options)
        },
    };
    write_reports_beside(outputs, color, sarif_target, forms)?;
    if let Some(target) = sarif_target {
        let text = match &rules {
            Some(rules) => sarif_of(&doc.findings, &doc_rules(rules), rules),
            None => sarif::sarif_log(&doc.findings, &[], None),
        };
        write_output(target, &text)?;
    }
    if let Some(dir) = snapshots {
        write_snapshots(dir, &base.analysis, &head.analysis)?;
    }
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        rss_mib = cartograph_pipeline::analyse::resident_mib(),
        "reports written"
    );
    if let Some(met) = met {
        cartograph_diagnostics::stderr_line(&format!("cartograph: --fail-on met: {met}"));
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
fn render(report: &Path, outputs: &OutputArgs, color: ColorWhen) -> Result<()> {
    let named = shown(report);
    let text =
        std::fs::read(report).map_err(|e| anyhow!("{named} cannot be read ({})", e.kind()))?;
    let text = String::from_utf8(text)
        .map_err(|_| anyhow!("{named} is not a diff document: it is not UTF-8 text"))?;
    let doc = DiffDocument::from_json(&text).map_err(|e| anyhow!("{named} {e}"))?;
    let json = doc.to_json();
    let forms = Forms {
        json: &json,
        markdown: &|| diff_markdown::render_diff(&doc, &DiffMarkdownOptions::default()),
        text: &|o| text::render_diff(&doc, &DiffTextOptions { text: o.clone(), gate: None }),
    };
    write_reports(outputs, color, forms)
}

/// What a command can write: its JSON document, and its Markdown and text renderings (each made
/// only when it is written).
struct Forms<'a> {
    json: &'a str,
    markdown: &'a dyn Fn() -> String,
    text: &'a dyn Fn(&TextOptions) -> String,
}

/// Writes the reports where `--json`, `--markdown` and `--text` ask; with none of them, text to
/// stdout when it is a terminal and Markdown otherwise.
fn write_reports(outputs: &OutputArgs, color: ColorWhen, forms: Forms<'_>) -> Result<()> {
    write_reports_beside(outputs, color, None, forms)
}

/// [`write_reports`] for a command that also writes SARIF: when the SARIF goes to stdout, nothing
/// else goes there by default, and no other report may.
fn write_reports_beside(
    outputs: &OutputArgs,
    color: ColorWhen,
    sarif: Option<&str>,
    forms: Forms<'_>,
) -> Result<()> {
    let asked = [outputs.json.as_deref(), outputs.markdown.as_deref(), outputs.text.as_deref()];
    let on_stdout = asked.iter().filter(|t| **t == Some("-")).count();
    if sarif == Some("-") && on_stdout > 0 {
        bail!("--sarif - writes to stdout; give the other reports a FILE");
    }
    if on_stdout > 1 {
        bail!(
            "only one of --json, --markdown and --text can write to stdout; give the others a FILE"
        );
    }
    if let Some(target) = &outputs.json {
        write_output(target, forms.json)?;
    }
    if let Some(target) = &outputs.markdown {
        write_output(target, &(forms.markdown)())?;
    }
    if let Some(target) = &outputs.text {
        write_text_to(target, color, outputs.evidence, forms.text)?;
    }
    if asked.iter().all(Option::is_none) && sarif != Some("-") {
        if crate::terminal::stdout_is_terminal() {
            write_text_to("-", color, outputs.evidence, forms.text)?;
        } else {
            write_output("-", &(forms.markdown)())?;
        }
    }
    Ok(())
}

/// Writes text to `target` (`-` is stdout), coloured and wrapped for where it goes.
fn write_text_to(
    target: &str,
    color: ColorWhen,
    evidence: bool,
    text: &dyn Fn(&TextOptions) -> String,
) -> Result<()> {
    let options = crate::terminal::text_options(target, color, evidence);
    write_text(target, &text(&options), options.color)
}

fn open_cache(args: &CacheArgs) -> Result<Option<FactCache>> {
    let Some(dir) = &args.cache else { return Ok(None) };
    let opened = match args.cache_max_mib {
        Some(mib) => FactCache::with_dir(dir, mib.saturating_mul(1024 * 1024)),
        None => FactCache::with_dir_fitting(dir, cartograph_pipeline::cache::DEFAULT_MAX_BYTES),
    };
    opened.map(Some).map_err(|e| anyhow!("cache directory {} {e}", shown(dir)))
}

/// Ends the cache's run (eviction) and writes its statistics where `--cache-stats` asked.
fn finish_cache(cache: Option<FactCache>, args: &CacheArgs) -> Result<()> {
    let Some(cache) = cache else { return Ok(()) };
    let stats = cache.finish();
    tracing::info!(
        hits = stats.hits,
        misses = stats.misses,
        disk_hits = stats.disk_hits,
        writes = stats.writes,
        evicted = stats.evicted,
        trees_hit = stats.trees_hit,
        trees_written = stats.trees_written,
        "cache"
    );
    if let Some(target) = &args.cache_stats {
        let document = CacheStatsDocument {
            hits: stats.hits,
            misses: stats.misses,
            disk_hits: stats.disk_hits,
            writes: stats.writes,
            corrupt: stats.corrupt,
            evicted: stats.evicted,
            trees_hit: stats.trees_hit,
            trees_written: stats.trees_written,
            ..CacheStatsDocument::zero()
        };
        write_output(target, &to_json(&document))?;
    }
    Ok(())
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
        spill_limit: None,
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
