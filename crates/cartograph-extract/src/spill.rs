//! Bytes put aside until they are read again: a buffer in memory that, once it passes a limit,
//! moves to an anonymous temporary file.
//!
//! The held facts of a large tree are most of what an analysis keeps between extraction and
//! linking, and each family is read once, in its turn. Put in a [`Spill`], they leave the
//! process's memory for the operating system's page cache: a tree of 200,000 files holds a few
//! hundred megabytes fewer at its peak, and a small tree never reaches the limit and never
//! touches the disk. The file has no name (it is removed as it is created, where the system allows)
//! and is gone with the last [`Spill`] handle; nothing about it reaches an output.
//!
//! If the file cannot be created or written, the bytes stay in memory: a spill is never a reason
//! for an analysis to fail. A read that fails later is reported to the caller, which refuses the
//! file's facts rather than guessing them.

use std::fmt;
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::sync::Mutex;

/// Where [`HeldFacts`](crate::HeldFacts) keep their bytes once spilled; shared (in an `Arc`) by
/// every file of an analysis.
pub struct Spill {
    /// The most bytes the buffer holds before they are written to the file.
    limit: usize,
    state: Mutex<State>,
}

struct State {
    buffer: Vec<u8>,
    /// How many bytes the file holds: a place below this offset is in the file, any other in
    /// the buffer (the buffer is always written whole, so no place is split between them).
    flushed: u64,
    file: Option<File>,
    /// The file could not be created or written: everything stays in the buffer from now on.
    in_memory: bool,
}

/// Where one byte string went in a [`Spill`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    offset: u64,
    len: u32,
}

impl Spill {
    /// The buffer a [`Spill::new`] holds in memory before it writes to its file: more than the
    /// facts of most trees, a few per cent of the largest's.
    pub const DEFAULT_LIMIT: usize = 8 << 20;

    pub fn new() -> Self {
        Self::with_limit(Self::DEFAULT_LIMIT)
    }

    /// A spill that writes to its file whenever its buffer holds `limit` bytes or more (so 0
    /// writes every byte string as it comes, which tests use).
    pub fn with_limit(limit: usize) -> Self {
        let state = State { buffer: Vec::new(), flushed: 0, file: None, in_memory: false };
        Self { limit, state: Mutex::new(state) }
    }

    /// The most bytes its buffer holds before they are written to its file.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many bytes went to the file.
    pub fn bytes_on_disk(&self) -> u64 {
        self.state.lock().map_or(0, |state| state.flushed)
    }

    /// Puts `bytes` aside. `None` when they cannot be (a string over 4 GiB, or a lock poisoned
    /// by a panic elsewhere): the caller keeps them itself.
    pub(crate) fn put(&self, bytes: &[u8]) -> Option<Place> {
        let len = u32::try_from(bytes.len()).ok()?;
        let mut state = self.state.lock().ok()?;
        if !state.in_memory && bytes.len() >= self.limit {
            // A string the size of the whole buffer goes straight to the file, after what the
            // buffer holds, rather than through a copy of it.
            state.flush();
            if let Some(offset) = state.write_through(bytes) {
                return Some(Place { offset, len });
            }
        }
        let offset = state.flushed + state.buffer.len() as u64;
        if state.buffer.capacity() == 0 && !state.in_memory {
            // Once, at the size it is flushed at, so that it never grows past it by doubling.
            state.buffer.reserve_exact(self.limit.saturating_add(1 << 16));
        }
        state.buffer.extend_from_slice(bytes);
        if !state.in_memory && state.buffer.len() >= self.limit {
            state.flush();
        }
        Some(Place { offset, len })
    }

    /// Puts aside a byte string of any length (an analysis waiting for the next tree's): `None`
    /// when the spill cannot take it, which the caller keeps then. Read back with
    /// [`Spill::get_large`].
    pub fn put_large(&self, bytes: &[u8]) -> Option<LargePlace> {
        let mut places = Vec::new();
        for chunk in bytes.chunks(u32::MAX as usize) {
            places.push(self.put(chunk)?);
        }
        Some(LargePlace(places))
    }

    /// The bytes [`Spill::put_large`] put at `place`.
    pub fn get_large(&self, place: &LargePlace) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(place.0.iter().map(|p| p.len as usize).sum());
        for part in &place.0 {
            bytes.extend_from_slice(&self.get(*part)?);
        }
        Ok(bytes)
    }

    /// The bytes put at `place`.
    pub(crate) fn get(&self, place: Place) -> io::Result<Vec<u8>> {
        let state = self.state.lock().map_err(|_| io::Error::other("spill lock poisoned"))?;
        let len = place.len as usize;
        if place.offset >= state.flushed {
            let start = (place.offset - state.flushed) as usize;
            return state
                .buffer
                .get(start..start + len)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| io::Error::other("no such place in the spill"));
        }
        let file = state.file.as_ref().ok_or_else(|| io::Error::other("spill file missing"))?;
        let mut bytes = vec![0; len];
        read_at(file, &mut bytes, place.offset)?;
        Ok(bytes)
    }
}

/// Where [`Spill::put_large`] put a byte string.
#[derive(Debug)]
pub struct LargePlace(Vec<Place>);

impl State {
    /// Writes `bytes` at the end of the file, the buffer being empty; their offset, or `None`
    /// (and everything kept in memory from now on) when that fails.
    fn write_through(&mut self, bytes: &[u8]) -> Option<u64> {
        if !self.buffer.is_empty() || self.in_memory {
            return None;
        }
        let file = self.file.as_mut()?;
        let offset = self.flushed;
        let written = file.seek(SeekFrom::Start(offset)).and_then(|_| file.write_all(bytes));
        match written {
            Ok(()) => {
                self.flushed += bytes.len() as u64;
                Some(offset)
            }
            Err(_) => {
                self.in_memory = true;
                None
            }
        }
    }

    /// Writes the buffer at the end of the file (created on first use) and empties it; on any
    /// failure, keeps it and everything after it in memory.
    fn flush(&mut self) {
        if self.in_memory {
            return;
        }
        if self.file.is_none() {
            match tempfile::tempfile() {
                Ok(file) => self.file = Some(file),
                Err(_) => {
                    self.in_memory = true;
                    return;
                }
            }
        }
        let Some(file) = self.file.as_mut() else { return };
        let written =
            file.seek(SeekFrom::Start(self.flushed)).and_then(|_| file.write_all(&self.buffer));
        match written {
            Ok(()) => {
                self.flushed += self.buffer.len() as u64;
                self.buffer.clear();
            }
            // What may have reached the file lies past `flushed`, where nothing reads it.
            Err(_) => self.in_memory = true,
        }
    }
}

#[cfg(unix)]
fn read_at(file: &File, bytes: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, bytes, offset)
}

#[cfg(not(unix))]
fn read_at(mut file: &File, bytes: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::Read;
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(bytes)
}

impl Default for Spill {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Spill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spill")
            .field("limit", &self.limit)
            .field("bytes_on_disk", &self.bytes_on_disk())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_put_reads_back_from_the_buffer_and_from_the_file() {
        let spill = Spill::with_limit(10);
        let strings: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i; usize::from(i % 7)]).collect();
        let places: Vec<Place> = strings.iter().map(|s| spill.put(s).unwrap()).collect();
        assert!(spill.bytes_on_disk() > 0, "past the limit, the bytes went to the file");
        let buffered = spill.state.lock().unwrap().buffer.len();
        assert!(buffered < 10, "and the buffer was emptied ({buffered} left)");
        for (bytes, place) in strings.iter().zip(places) {
            assert_eq!(&spill.get(place).unwrap(), bytes);
        }
    }

    #[test]
    fn under_the_limit_nothing_reaches_the_disk() {
        let spill = Spill::new();
        let place = spill.put(b"facts").unwrap();
        assert_eq!(spill.bytes_on_disk(), 0);
        assert_eq!(spill.get(place).unwrap(), b"facts");
    }

    #[test]
    fn a_place_never_put_is_an_error() {
        let spill = Spill::with_limit(0);
        spill.put(b"abc").unwrap();
        assert!(spill.get(Place { offset: 1, len: 10 }).is_err());
        assert!(spill.get(Place { offset: 100, len: 1 }).is_err());
    }

    #[test]
    fn spills_are_shared_between_threads() {
        let spill = std::sync::Arc::new(Spill::with_limit(64));
        let workers: Vec<_> = (0..4u8)
            .map(|t| {
                let spill = std::sync::Arc::clone(&spill);
                std::thread::spawn(move || {
                    let put: Vec<_> = (0..200u8)
                        .map(|i| (vec![t ^ i; 5], spill.put(&[t ^ i; 5]).unwrap()))
                        .collect();
                    put.into_iter().all(|(bytes, place)| spill.get(place).unwrap() == bytes)
                })
            })
            .collect();
        assert!(workers.into_iter().all(|w| w.join().unwrap()));
    }

    #[test]
    fn a_large_string_goes_straight_to_the_file_and_reads_back() {
        let spill = Spill::with_limit(16);
        let small = spill.put(b"small").unwrap();
        let large: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let place = spill.put_large(&large).unwrap();
        assert_eq!(spill.bytes_on_disk(), 1005, "the buffer, then the string");
        assert_eq!(spill.get_large(&place).unwrap(), large);
        assert_eq!(spill.get(small).unwrap(), b"small");
        let after = spill.put(b"after").unwrap();
        assert_eq!(spill.get(after).unwrap(), b"after");
    }
}
