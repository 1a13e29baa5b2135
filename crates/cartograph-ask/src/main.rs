//! The `cartograph-ask` binary: argument parsing, files and the terminal around the library.
//!
//! ```text
//! cartograph-ask attach REPORT.json [-o OUT.json] [--markdown OUT.md] [--max-edges 25]
//!     [--api-key-stdin | --api-key-env NAME] [--provider groq|openai|custom] [--base-url URL]
//!     [--model M] [--cache DIR] [--timeout-secs N] [--concurrency N] [--proxy URL]
//!     [--base-snapshot FILE] [--head-snapshot FILE] [--max-bundle-bytes N]
//! cartograph-ask key set|delete|status [--provider NAME]
//! ```
//!
//! Exit codes: 0 when the report was written (degraded or not: a missing key, a provider error or a
//! refused answer is reported in the document, not as a failure); 2 on a usage error or when the
//! input cannot be read or the output written.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use cartograph_ask::attach::{self, Asker, AttachOptions, KeyState, Snapshots};
use cartograph_ask::bundle::DEFAULT_MAX_BUNDLE_BYTES;
use cartograph_ask::cache::AnswerCache;
use cartograph_ask::credential::{self, KeyOutcome, KeySource};
use cartograph_ask::endpoint::{Endpoint, ProviderName, loopback_only};
use cartograph_ask::keychain::Keychain;
use cartograph_ask::keycmd::{KeyCommand, TerminalOrStdin, run_key_command};
use cartograph_ask::provider::ChatProvider;
use cartograph_ask::select::DEFAULT_MAX_EDGES;
use cartograph_ask::transport::{TransportConfig, UreqTransport};
use cartograph_report::diff::DiffDocument;
use cartograph_report::diff_markdown::{DiffMarkdownOptions, render_diff};
use cartograph_report::snapshot::SnapshotDocument;
use clap::{Args, Parser, Subcommand};

const ABOUT: &str = "Attach verified, cited AI explanations to the changed edges of a Cartograph \
diff report. Every citation is checked against the evidence that was sent; an answer that fails \
any check is refused. Without an API key nothing is sent and every edge is marked unavailable.";

#[derive(Parser)]
#[command(name = "cartograph-ask", version, about = ABOUT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explain the changed edges of a diff report (from `cartograph diff --json`) and write it
    /// back with an `explanations` section. Writes the JSON to standard output unless -o is given.
    Attach(Box<AttachArgs>),
    /// Store, delete or check the API key in the OS keychain (service `cartograph-ask`, account
    /// the provider name).
    Key {
        #[command(subcommand)]
        action: KeyAction,
    },
}

#[derive(Args)]
struct AttachArgs {
    /// The diff report to explain (JSON written by `cartograph diff --json`).
    report: PathBuf,
    /// Write the report with explanations here (default: standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT.json")]
    output: Option<PathBuf>,
    /// Also write the Markdown report, explanations included, here.
    #[arg(long, value_name = "OUT.md")]
    markdown: Option<PathBuf>,
    /// The most changed edges to explain (edges of the most severe findings first); the rest are
    /// counted as skipped.
    #[arg(long, default_value_t = DEFAULT_MAX_EDGES, value_name = "N")]
    max_edges: usize,
    /// The byte cap of each evidence bundle; neighbouring edges past it are left out and counted.
    #[arg(long, default_value_t = DEFAULT_MAX_BUNDLE_BYTES, value_name = "BYTES")]
    max_bundle_bytes: usize,
    /// Read the API key from standard input.
    #[arg(long, conflicts_with = "api_key_env")]
    api_key_stdin: bool,
    /// Read the API key from this environment variable (for CI secrets). Without this and
    /// --api-key-stdin the key is read from the OS keychain.
    #[arg(long, value_name = "NAME")]
    api_key_env: Option<String>,
    /// groq (default), openai, or custom (with --base-url and --model).
    #[arg(long, default_value = "groq", value_parser = ["groq", "openai", "custom"])]
    provider: String,
    /// An OpenAI-compatible base URL, such as http://127.0.0.1:8080/v1 for a local server.
    /// Must be https, except for a loopback host.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model (default: openai/gpt-oss-120b for groq, gpt-4.1-mini for openai).
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
    /// Cache validated explanations here, keyed by bundle, model and provider, so a re-run asks
    /// only about new or changed edges.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// The time limit of one request, in seconds.
    #[arg(long, default_value_t = 60, value_name = "N")]
    timeout_secs: u64,
    /// The most requests in flight at once.
    #[arg(long, default_value_t = attach::DEFAULT_CONCURRENCY, value_name = "N")]
    concurrency: usize,
    /// Send requests through this proxy. Without it no proxy is used, whatever the environment
    /// says.
    #[arg(long, value_name = "URL")]
    proxy: Option<String>,
    /// A snapshot of the base tree (`cartograph snapshot`, or `cartograph diff --write-snapshots
    /// DIR`), whose unchanged edges widen the evidence of removed edges.
    #[arg(long, value_name = "FILE")]
    base_snapshot: Option<PathBuf>,
    /// A snapshot of the head tree, whose unchanged edges widen the evidence of added and changed
    /// edges.
    #[arg(long, value_name = "FILE")]
    head_snapshot: Option<PathBuf>,
}

#[derive(Subcommand)]
enum KeyAction {
    /// Store the key: typed without echo at a terminal, or read from standard input.
    Set(KeyArgs),
    /// Delete the stored key.
    Delete(KeyArgs),
    /// Say whether a key is stored (never prints it).
    Status(KeyArgs),
}

#[derive(Args)]
struct KeyArgs {
    /// groq (default), openai or custom.
    #[arg(long, default_value = "groq", value_parser = ["groq", "openai", "custom"])]
    provider: String,
}

fn main() -> ExitCode {
    let redactor = cartograph_diagnostics::init_from_env();
    let cli = cartograph_diagnostics::parse_args::<Cli>();
    let result = match cli.command {
        Command::Attach(args) => run_attach(&args, &redactor),
        Command::Key { action } => run_key(&action),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            cartograph_diagnostics::stderr_line(&format!("cartograph-ask: {error:#}"));
            ExitCode::from(2)
        }
    }
}

/// A path as shown in a message: its last component only, never a machine path.
fn shown(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "(file)".into())
}

fn read_text(path: &Path, what: &str) -> Result<String> {
    fs::read_to_string(path)
        .map_err(|e| anyhow!("cannot read the {what} {}: {}", shown(path), e.kind()))
}

fn provider_name(name: &str) -> ProviderName {
    ProviderName::parse(name).unwrap_or(ProviderName::Groq)
}

fn run_attach(args: &AttachArgs, redactor: &cartograph_diagnostics::Redactor) -> Result<()> {
    let doc = DiffDocument::from_json(&read_text(&args.report, "report")?)
        .map_err(|e| anyhow!("the report {} {e}", shown(&args.report)))?;
    let snapshot = |path: &Option<PathBuf>, side: &str| -> Result<Option<SnapshotDocument>> {
        let Some(path) = path else { return Ok(None) };
        let text = read_text(path, &format!("{side} snapshot"))?;
        SnapshotDocument::from_json(&text)
            .map(Some)
            .map_err(|e| anyhow!("the {side} snapshot {} {e}", shown(path)))
    };
    let base = snapshot(&args.base_snapshot, "base")?;
    let head = snapshot(&args.head_snapshot, "head")?;
    let provider = provider_name(&args.provider);
    let confined = loopback_only(&|name| std::env::var(name).ok());
    let endpoint = Endpoint::resolve(provider, args.base_url.as_deref(), args.model.as_deref())?
        .confined_to_loopback(confined)?;
    let options = AttachOptions {
        max_edges: args.max_edges,
        max_bundle_bytes: args.max_bundle_bytes,
        concurrency: args.concurrency.max(1),
    };
    let snapshots = Snapshots { base: base.as_ref(), head: head.as_ref() };

    let source = if args.api_key_stdin {
        KeySource::Stdin
    } else if let Some(name) = &args.api_key_env {
        KeySource::Env(name.clone())
    } else {
        KeySource::Keychain
    };
    let outcome = credential::resolve_key(
        &source,
        provider,
        &mut std::io::stdin().lock(),
        &|name| std::env::var(name).ok(),
        &|| Keychain::platform_unless_confined(confined),
    );
    let key_state = match &outcome {
        KeyOutcome::Missing { note } => {
            // The one line saying how to enable ASK; nothing will be sent.
            cartograph_diagnostics::stderr_line(&format!("cartograph-ask: {note}"));
            KeyState::Missing { note: note.clone() }
        }
        KeyOutcome::Found { key, source } => {
            // Redaction is in place before the first request can be made.
            redactor.register_secret(key);
            tracing::info!(source, "API key found");
            KeyState::Present(key)
        }
    };
    let config = TransportConfig {
        timeout: Duration::from_secs(args.timeout_secs.max(1)),
        allow_plain_http: endpoint.is_loopback_http(),
        proxy: args.proxy.clone(),
        ..TransportConfig::default()
    };
    // Building the agent connects to nothing; it is used only when the key is present.
    let provider = ChatProvider::new(endpoint.clone(), UreqTransport::new(&config)?);
    let cache = match (&args.cache, &key_state) {
        (Some(dir), KeyState::Present(_)) => match AnswerCache::open(dir) {
            Ok(cache) => Some(cache),
            Err(error) => {
                cartograph_diagnostics::stderr_line(&format!(
                    "cartograph-ask: {error}; continuing without the cache"
                ));
                None
            }
        },
        _ => None,
    };
    let asker =
        Asker { provider: &provider, endpoint: &endpoint, key: key_state, cache: cache.as_ref() };
    let out = attach::attach(&doc, snapshots, &asker, &options);

    let json = out.to_json();
    match &args.output {
        Some(path) => fs::write(path, &json)
            .map_err(|e| anyhow!("cannot write {}: {}", shown(path), e.kind()))?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(json.as_bytes())
                .and_then(|()| stdout.flush())
                .context("cannot write the report to standard output")?;
        }
    }
    if let Some(path) = &args.markdown {
        let markdown = render_diff(&out, &DiffMarkdownOptions::default());
        fs::write(path, markdown)
            .map_err(|e| anyhow!("cannot write {}: {}", shown(path), e.kind()))?;
    }
    Ok(())
}

fn run_key(action: &KeyAction) -> Result<()> {
    let (command, args) = match action {
        KeyAction::Set(args) => (KeyCommand::Set, args),
        KeyAction::Delete(args) => (KeyCommand::Delete, args),
        KeyAction::Status(args) => (KeyCommand::Status, args),
    };
    run_key_command(
        command,
        provider_name(&args.provider),
        Keychain::platform_unless_confined(loopback_only(&|name| std::env::var(name).ok())),
        &mut TerminalOrStdin,
        &mut std::io::stdout().lock(),
    )?;
    Ok(())
}
