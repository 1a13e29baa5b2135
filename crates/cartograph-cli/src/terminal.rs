//! Which form a report takes on stdout, and how terminal text is written: its colour and width.
//!
//! On a terminal a person reads, so a command prints plain text; anywhere else (a pipe, a file,
//! the GitHub Action) it prints Markdown as it always has, so scripts and goldens are unchanged.
//! Colour follows `--color`: `auto` colours only a terminal, and not when `NO_COLOR` is set to
//! anything but the empty string (no-color.org), `CLICOLOR=0`, or `TERM` is `dumb` or unset
//! (`anstream`'s reading of those conventions, which clap already links).

use std::io::IsTerminal;

use anstream::ColorChoice;
use cartograph_report::text::{DEFAULT_WIDTH, TextOptions};

use crate::args::ColorWhen;

/// Whether stdout is a terminal: the default form there is text, elsewhere Markdown.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// How text written to `target` (`-` is stdout) looks.
pub fn text_options(target: &str, color: ColorWhen, evidence: bool) -> TextOptions {
    let to_stdout = target == "-";
    let color = match color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            to_stdout && anstream::AutoStream::choice(&std::io::stdout()) != ColorChoice::Never
        }
    };
    TextOptions { width: width(to_stdout), color, evidence }
}

/// `COLUMNS` when it is a number, else the terminal's width when writing to one, else 80.
fn width(to_stdout: bool) -> usize {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    if let Some(columns) = columns.filter(|c| *c > 0) {
        return columns;
    }
    if to_stdout && let Some((w, _)) = terminal_size::terminal_size_of(std::io::stdout()) {
        return usize::from(w.0);
    }
    DEFAULT_WIDTH
}
