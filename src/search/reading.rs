//! The reader a file is searched through: the call's cancel flag and
//! deadline checked at every read, so a huge file does not outlast
//! `timeoutMs`, and, for a file with a line longer than the searcher's
//! buffer, that line cut into pieces of `LINE_PIECE_BYTES` (each repeating
//! the last `PIECE_OVERLAP_BYTES` of the one before, so a match shorter than
//! that is found across a cut), with where each cut is recorded for the
//! sink to count a line's pieces once.

use crate::cancel::Cancel;
use crate::limits::{LINE_PIECE_BYTES, PIECE_OVERLAP_BYTES};
use std::cell::{Cell, RefCell};
use std::io::{self, Read};
use std::rc::Rc;

/// A file read for the searcher: the cancel checked at every read, and
/// with a `Cutter`, over-long lines cut into pieces.
pub(super) struct Checked<'a> {
    pub(super) file: &'a mut dyn Read,
    pub(super) cancel: &'a Cancel,
    pub(super) cutter: Option<Cutter>,
    /// Bytes given so far.
    pub(super) read: &'a Cell<u64>,
}

/// The error a read gives once the search is cancelled.
#[derive(Debug)]
pub(super) struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the search was cancelled")
    }
}

impl std::error::Error for Cancelled {}

impl Read for Checked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.cancel.check().is_err() {
            return Err(io::Error::other(Cancelled));
        }
        let n = match &mut self.cutter {
            None => self.file.read(out)?,
            Some(cutter) => cutter.read(&mut *self.file, out)?,
        };
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// Cuts lines longer than `LINE_PIECE_BYTES` with a newline of its own,
/// repeating the last `PIECE_OVERLAP_BYTES` after it, and records where
/// each cut is (as an offset in what it gives) in `breaks`.
pub(super) struct Cutter {
    breaks: Rc<RefCell<Vec<u64>>>,
    input: Box<[u8]>,
    start: usize,
    end: usize,
    /// A cut's newline and overlap, still to give, from `sent` on.
    pending: Vec<u8>,
    sent: usize,
    /// Bytes of the current piece given so far.
    run: usize,
    /// The last `PIECE_OVERLAP_BYTES` of the current line given.
    tail: Vec<u8>,
    given: u64,
}

impl Cutter {
    pub(super) fn new(breaks: Rc<RefCell<Vec<u64>>>) -> Cutter {
        const _: () = assert!(CUTTER_INPUT_BYTES < LINE_PIECE_BYTES);
        Cutter {
            breaks,
            input: vec![0; CUTTER_INPUT_BYTES].into_boxed_slice(),
            start: 0,
            end: 0,
            pending: Vec::with_capacity(PIECE_OVERLAP_BYTES + 1),
            sent: 0,
            run: 0,
            tail: Vec::with_capacity(2 * PIECE_OVERLAP_BYTES),
            given: 0,
        }
    }

    fn read(&mut self, file: &mut dyn Read, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if self.sent < self.pending.len() {
            let n = out.len().min(self.pending.len() - self.sent);
            out[..n].copy_from_slice(&self.pending[self.sent..self.sent + n]);
            self.sent += n;
            self.given += n as u64;
            return Ok(n);
        }
        if self.start == self.end {
            let n = file.read(&mut self.input)?;
            if n == 0 {
                return Ok(0);
            }
            (self.start, self.end) = (0, n);
        }
        let avail = &self.input[self.start..self.end];
        let room = avail.len().min(out.len());
        // Whole lines at once, up to the last newline: only the line going
        // on from before can reach a piece's length (the input buffer is
        // smaller than a piece); else up to where the piece is full.
        let first = avail[..room].iter().position(|&b| b == b'\n');
        let (take, ended) = match first {
            Some(at) if self.run + at < LINE_PIECE_BYTES => {
                let last = avail[..room].iter().rposition(|&b| b == b'\n').unwrap_or(at);
                (last + 1, true)
            }
            _ => (room.min(LINE_PIECE_BYTES - self.run), false),
        };
        out[..take].copy_from_slice(&avail[..take]);
        self.start += take;
        self.given += take as u64;
        if ended {
            self.run = 0;
            self.tail.clear();
            return Ok(take);
        }
        self.run += take;
        self.tail.extend_from_slice(&out[take.saturating_sub(PIECE_OVERLAP_BYTES)..take]);
        if self.tail.len() > PIECE_OVERLAP_BYTES {
            self.tail.drain(..self.tail.len() - PIECE_OVERLAP_BYTES);
        }
        if self.run >= LINE_PIECE_BYTES {
            self.breaks.borrow_mut().push(self.given);
            self.pending.clear();
            self.pending.push(b'\n');
            self.pending.extend_from_slice(&self.tail);
            self.sent = 0;
            self.run = self.tail.len();
        }
        Ok(take)
    }
}

/// What `Cutter` reads at once: smaller than a piece, so a line that ends
/// inside one read (all but the first of that read) is shorter than a piece.
const CUTTER_INPUT_BYTES: usize = 64 * 1024;
