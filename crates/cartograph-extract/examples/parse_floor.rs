//! The parse-only floor: walk a tree with Cartograph's default exclusions, read every file whose
//! extension selects a grammar, and parse it with tree-sitter (one parser per grammar per rayon
//! worker). Nothing is extracted, resolved or written: this is the least work any tree-sitter based
//! analysis of the same files must do, and the benchmark compares `cartograph snapshot` against it.
//!
//! ```text
//! cargo build --release -p cartograph-extract --example parse_floor
//! parse_floor [--threads N] [--ext py[,ts,...]] [--list-errors] DIR
//! ```
//!
//! Prints one summary line: files, bytes, files with error regions, elapsed ms (walk + read +
//! parse), and the files skipped by the size cap, binary sniff and minified-bundle rules.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use cartograph_core::RepoPath;
use cartograph_extract::{GRAMMARS, Grammar, grammar_for};
use rayon::prelude::*;
use tree_sitter::Parser;

/// The same folders `cartograph-pipeline` skips by default (its `DEFAULT_EXCLUDED_DIRS`).
const EXCLUDED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "bower_components",
    ".next",
    ".nuxt",
    ".turbo",
];

/// Files over 1 MiB are not read (Cartograph's default cap).
const MAX_FILE_SIZE: u64 = 1024 * 1024;
/// Bytes sniffed for NUL to detect binary content.
const BINARY_SNIFF_LEN: usize = 8192;
/// A line longer than this in a JavaScript file marks a minified bundle.
const MINIFIED_LINE_LEN: usize = 5000;

struct Options {
    root: PathBuf,
    threads: usize,
    exts: Option<Vec<String>>,
    list_errors: bool,
}

fn usage() -> &'static str {
    "usage: parse_floor [--threads N] [--ext py[,ts,...]] [--list-errors] DIR"
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut root = None;
    let mut threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut exts: Option<Vec<String>> = None;
    let mut list_errors = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--threads" | "-j" => {
                let value = args.next().ok_or("--threads needs a value")?;
                threads = value.parse().map_err(|_| format!("bad --threads value: {value}"))?;
                if threads == 0 {
                    return Err("--threads must be at least 1".to_owned());
                }
            }
            "--ext" => {
                let value = args.next().ok_or("--ext needs a value")?;
                let list = exts.get_or_insert_with(Vec::new);
                list.extend(
                    value
                        .split(',')
                        .map(|e| e.trim().trim_start_matches('.').to_owned())
                        .filter(|e| !e.is_empty()),
                );
            }
            "--list-errors" => list_errors = true,
            "-h" | "--help" => return Err(usage().to_owned()),
            other if other.starts_with('-') => return Err(format!("unknown flag {other}")),
            other => {
                if root.replace(PathBuf::from(other)).is_some() {
                    return Err("more than one DIR given".to_owned());
                }
            }
        }
    }
    let root = root.ok_or_else(|| usage().to_owned())?;
    Ok(Options { root, threads, exts, list_errors })
}

/// A file the walk selected.
struct Candidate {
    full: PathBuf,
    relative: String,
    grammar: Grammar,
}

#[derive(Default)]
struct WalkTotals {
    candidates: Vec<Candidate>,
    too_large: u64,
    minified_names: u64,
}

fn walk(opts: &Options) -> WalkTotals {
    let mut totals = WalkTotals::default();
    // The same walker settings as cartograph-pipeline's discovery.
    let walker = ignore::WalkBuilder::new(&opts.root)
        .hidden(false)
        .parents(false)
        .git_global(false)
        .git_exclude(false)
        .git_ignore(true)
        .ignore(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(Ord::cmp)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && entry.depth() > 0
                && entry.file_name().to_str().is_some_and(|n| EXCLUDED_DIRS.contains(&n)))
        })
        .build();
    for entry in walker.flatten() {
        if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(relative) = relative_str(&opts.root, entry.path()) else { continue };
        let Ok(repo_path) = RepoPath::new(&relative) else { continue };
        let Some(grammar) = grammar_for(&repo_path) else { continue };
        if let Some(exts) = &opts.exts
            && !repo_path.extension().is_some_and(|e| exts.iter().any(|x| x == e))
        {
            continue;
        }
        if entry.metadata().map_or(0, |m| m.len()) > MAX_FILE_SIZE {
            totals.too_large += 1;
            continue;
        }
        let name = repo_path.file_name();
        if name.ends_with(".min.js") || name.ends_with(".min.mjs") || name.ends_with(".min.cjs") {
            totals.minified_names += 1;
            continue;
        }
        totals.candidates.push(Candidate { full: entry.path().to_path_buf(), relative, grammar });
    }
    totals
}

fn relative_str(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let text = rel.to_str()?;
    Some(text.replace('\\', "/"))
}

/// What parsing one file gave.
enum Outcome {
    Parsed { bytes: u64, has_error: bool },
    Skipped,
}

/// One parser per grammar, created lazily; one of these per worker thread.
#[derive(Default)]
struct Parsers([Option<Parser>; GRAMMARS.len()]);

impl Parsers {
    fn get(&mut self, grammar: Grammar) -> &mut Parser {
        self.0[grammar.slot()].get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser.set_language(&grammar.tree_sitter_language()).expect("bundled grammar loads");
            parser
        })
    }
}

fn parse_one(parsers: &mut Parsers, candidate: &Candidate) -> Outcome {
    let mut bytes = Vec::new();
    if fs::File::open(&candidate.full).and_then(|mut f| f.read_to_end(&mut bytes)).is_err() {
        return Outcome::Skipped;
    }
    if bytes[..bytes.len().min(BINARY_SNIFF_LEN)].contains(&0) {
        return Outcome::Skipped;
    }
    if candidate.grammar.spec().skips_minified
        && bytes.len() > MINIFIED_LINE_LEN
        && bytes.split(|b| *b == b'\n').any(|line| line.len() > MINIFIED_LINE_LEN)
    {
        return Outcome::Skipped;
    }
    // Cartograph decodes to a String (lossily if need be) before parsing; do the same.
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    };
    let Some(tree) = parsers.get(candidate.grammar).parse(&text, None) else {
        return Outcome::Skipped;
    };
    Outcome::Parsed { bytes: text.len() as u64, has_error: tree.root_node().has_error() }
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(opts) => opts,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    if !opts.root.is_dir() {
        eprintln!("not a directory: {}", opts.root.display());
        return ExitCode::from(2);
    }
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(opts.threads).build() {
        Ok(pool) => pool,
        Err(error) => {
            eprintln!("cannot start {} threads: {error}", opts.threads);
            return ExitCode::FAILURE;
        }
    };

    let start = Instant::now();
    let walked = walk(&opts);
    let outcomes: Vec<Outcome> = pool
        .install(|| walked.candidates.par_iter().map_init(Parsers::default, parse_one).collect());
    let elapsed = start.elapsed();

    let (mut files, mut bytes, mut errors, mut skipped) = (0u64, 0u64, 0u64, 0u64);
    for (candidate, outcome) in walked.candidates.iter().zip(&outcomes) {
        match outcome {
            Outcome::Parsed { bytes: b, has_error } => {
                files += 1;
                bytes += b;
                if *has_error {
                    errors += 1;
                    if opts.list_errors {
                        eprintln!("error region: {}", candidate.relative);
                    }
                }
            }
            Outcome::Skipped => skipped += 1,
        }
    }
    println!(
        "files={files} bytes={bytes} error_files={errors} elapsed_ms={:.1} threads={} \
         skipped_too_large={} skipped_min_name={} skipped_other={skipped}",
        elapsed.as_secs_f64() * 1000.0,
        opts.threads,
        walked.too_large,
        walked.minified_names,
    );
    ExitCode::SUCCESS
}
