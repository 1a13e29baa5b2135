//! The `MakeWriter` wrapper that puts every formatted event through a [`Redactor`].
//!
//! A `tracing` layer cannot change an event, so redaction happens at the writer: the fmt layer
//! formats one event into a buffer and makes one `write_all` on a fresh writer from
//! `make_writer_for`. [`RedactingWriter`] keeps those bytes, and on `flush` (or drop) writes the
//! redacted text to the inner writer. Span fields are part of the formatted line, so they are
//! redacted too.

use std::io::{self, Write};

use tracing::Metadata;
use tracing_subscriber::fmt::MakeWriter;

use crate::Redactor;

/// Wraps a `MakeWriter` (such as `std::io::stderr`) so that everything written is redacted.
#[derive(Clone)]
pub struct RedactingMakeWriter<M> {
    inner: M,
    redactor: Redactor,
}

impl<M> RedactingMakeWriter<M> {
    pub fn new(inner: M, redactor: Redactor) -> Self {
        Self { inner, redactor }
    }
}

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for RedactingMakeWriter<M> {
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter::new(self.inner.make_writer(), self.redactor.clone())
    }

    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> Self::Writer {
        RedactingWriter::new(self.inner.make_writer_for(meta), self.redactor.clone())
    }
}

/// Holds one event's bytes and writes them, redacted, on `flush` or drop.
pub struct RedactingWriter<W: Write> {
    inner: W,
    redactor: Redactor,
    buf: Vec<u8>,
}

impl<W: Write> RedactingWriter<W> {
    pub fn new(inner: W, redactor: Redactor) -> Self {
        Self { inner, redactor, buf: Vec::new() }
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let text = String::from_utf8_lossy(&self.buf);
            let redacted = self.redactor.redact(&text);
            self.buf.clear();
            self.inner.write_all(redacted.as_bytes())?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}
