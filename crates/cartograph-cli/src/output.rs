//! Writing results to stdout or a file (a file named in an error only as
//! [`cartograph_query::shown`] names it: never by an absolute path).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use cartograph_query::shown;
use cartograph_report::snapshot::SnapshotStream;

/// Writes `text` to `target`: `-` is stdout, anything else a file path.
pub fn write_output(target: &str, text: &str) -> Result<()> {
    write_bytes(target, text.as_bytes())
}

/// Writes a snapshot document to `target` (`-` is stdout) as it is serialised, never holding the
/// whole text: what [`write_output`] of `to_json(document)` writes, byte for byte.
pub fn write_document(target: &str, document: &SnapshotStream<'_>) -> Result<()> {
    if target == "-" {
        let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        match cartograph_report::write_json(document, &mut stdout).and_then(|()| stdout.flush()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.context("cannot write to stdout"),
        }
    } else {
        let failed = |e: std::io::Error| {
            anyhow::anyhow!("cannot write {} ({})", shown(Path::new(target)), e.kind())
        };
        let file = std::fs::File::create(target).map_err(failed)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        cartograph_report::write_json(document, &mut out).and_then(|()| out.flush()).map_err(failed)
    }
}

/// Writes terminal text to `target` (`-` is stdout). Coloured text goes to stdout through
/// `anstream`, which on a Windows console that does not read ANSI codes turns them into console
/// calls.
pub fn write_text(target: &str, text: &str, color: bool) -> Result<()> {
    if target != "-" || !color {
        return write_output(target, text);
    }
    let mut stdout = anstream::AutoStream::always(std::io::stdout().lock());
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

/// Writes `bytes` to `target`: `-` is stdout, anything else a file path.
pub fn write_bytes(target: &str, bytes: &[u8]) -> Result<()> {
    if target == "-" {
        let mut stdout = std::io::stdout().lock();
        match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
            // A closed pipe (`cartograph ... | head`) is not an error of ours.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.context("cannot write to stdout"),
        }
    } else {
        std::fs::write(target, bytes).map_err(|e| {
            anyhow::anyhow!("cannot write {} ({})", shown(Path::new(target)), e.kind())
        })
    }
}
