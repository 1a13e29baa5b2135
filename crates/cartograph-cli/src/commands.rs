//! One function per subcommand.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use cartograph_pipeline::discover::DiscoverError;
use cartograph_pipeline::{AnalysisOptions, DiscoveryOptions, analyse::AnalyseError};
use cartograph_report::snapshot::SnapshotDocument;
use cartograph_report::summary::SummaryDocument;
use cartograph_report::{markdown, schema, to_json};

use crate::args::{AnalysisArgs, Cli, Command};
use crate::output::{shown, write_output};

pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Snapshot { path, output, analysis } => {
            let analysis = analyse(&path, &analysis)?;
            write_output(&output, &to_json(&SnapshotDocument::from_analysis(&analysis)))?;
        }
        Command::Summary { path, json, markdown: _, output, analysis } => {
            let analysis = analyse(&path, &analysis)?;
            let doc = SummaryDocument::from_analysis(&analysis);
            let text = if json { to_json(&doc) } else { markdown::render_summary(&doc) };
            write_output(&output, &text)?;
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

fn options(args: &AnalysisArgs) -> Result<AnalysisOptions> {
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

fn component_rule(spec: &str) -> Result<cartograph_pipeline::ComponentRule> {
    cartograph_pipeline::ComponentRule::parse(spec).ok_or_else(|| {
        anyhow!("--components `{spec}` is not a rule; use `roots`, `roots:N` or `depth:N`")
    })
}

fn analyse(path: &Path, args: &AnalysisArgs) -> Result<cartograph_pipeline::Analysis> {
    let options = options(args)?;
    let spinner = progress_spinner();
    let result = cartograph_pipeline::analyse_tree(path, &options);
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let analysis = result.map_err(|error| match error {
        AnalyseError::Discover(DiscoverError::NotADirectory) => {
            anyhow!("PATH {} is not a directory", shown(path))
        }
        AnalyseError::Discover(DiscoverError::Unreadable(std::io::ErrorKind::NotFound)) => {
            anyhow!("PATH {} does not exist", shown(path))
        }
        AnalyseError::Discover(DiscoverError::Unreadable(kind)) => {
            anyhow!("PATH {} cannot be read ({kind})", shown(path))
        }
        other => anyhow!("{other}"),
    })?;
    if analysis.stats.files_analysed == 0 {
        eprintln!("note: no analysable source files were found in {}", shown(path));
    }
    Ok(analysis)
}

/// A spinner on stderr while a tree is analysed, only when stderr is a terminal.
fn progress_spinner() -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.set_message("analysing…");
    spinner.enable_steady_tick(Duration::from_millis(100));
    Some(spinner)
}
