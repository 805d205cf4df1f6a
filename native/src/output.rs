//! Where a file's encoded bytes wait for the caller to drain them.
//!
//! Bytes sit in a list of segments that never grow once full. A row group's column chunks are
//! spliced in page by page; pages the encoder produced are not copied but *handed over*: the
//! column writers keep their finished pages in a [`HandOverPageStore`], which remembers the page
//! it gave back last, and when the [`OutputBuffer`] is asked to write exactly those bytes it keeps
//! the page itself. Closing a row group of a hundred megabytes then moves pointers instead of
//! copying into, and first touching, as much fresh memory again (which doubled the file's peak
//! memory at close and made up most of the close's time).
//!
//! ```text
//!  encoder threads: page ─ put ─► HandOverPageStore (one per column chunk)
//!  row-group close: take ─► arrow-rs writes the page ─► OutputBuffer::write
//!                    └──────── last taken ───────────────┘  same bytes? keep the page : copy
//! ```
//!
//! A column chunk Frazil splices itself (one with a dictionary page, see
//! [`crate::page_compression`]) reaches the buffer through arrow-rs's `Read`-based splice, in
//! pieces of at most 8 KiB. Its large pages are announced first ([`Sink::expect_pages`]); a write
//! that starts one of them, and the writes that continue it, are compared with the page and, when
//! they are its bytes, the page itself is kept. Only bytes equal to those written are ever kept,
//! so a piece that does not match is simply copied.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use parquet::arrow::arrow_writer::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};
use parquet::errors::ParquetError;

use crate::encoder::Sink;

/// The largest drained segment an open file keeps for its next bytes; larger ones are freed (a
/// thousand open files each keeping more would add up, and the memory budget could not shed it).
pub const RETAINED_OUTPUT_CAPACITY: usize = 8 << 10;

/// The smallest segment allocated for small writes (page headers, the footer).
const MIN_SEGMENT: usize = 8 << 10;

/// Announced pages smaller than this are copied: the writer's 8 KiB buffer joins them with their
/// neighbours, and copying them costs little.
const EXPECTED_PAGE_MIN: usize = 8 << 10;

/// A write starts matching an announced page only from this size (arrow-rs's splice writes a
/// large page's first 8 KiB on their own).
const MATCH_START_MIN: usize = 4 << 10;

/// The page a store handed back last, shared by a file's stores and its output buffer.
type LastTaken = Arc<Mutex<Option<Bytes>>>;

fn lock(last: &LastTaken) -> std::sync::MutexGuard<'_, Option<Bytes>> {
    // A panic while holding the lock leaves a valid Option: carry on with it.
    last.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One run of pending bytes.
#[derive(Debug)]
enum Segment {
    /// Bytes copied in; may still have room at the end.
    Owned(Vec<u8>),
    /// A page handed over by the encoder, kept as it is.
    Page(Bytes),
}

impl Segment {
    fn bytes(&self) -> &[u8] {
        match self {
            Segment::Owned(v) => v,
            Segment::Page(b) => b,
        }
    }

    fn held(&self) -> usize {
        match self {
            Segment::Owned(v) => v.capacity(),
            Segment::Page(b) => b.len(),
        }
    }
}

/// In-memory sink for encoded bytes, drained by the caller between calls.
#[derive(Debug, Default)]
pub struct OutputBuffer {
    segments: VecDeque<Segment>,
    /// Bytes of the front segment already drained.
    read: usize,
    /// Set once [`Self::hand_over_page_stores`] was asked for: pages of its stores are kept, not
    /// copied.
    last_taken: Option<LastTaken>,
    /// Announced pages (see [`Sink::expect_pages`]) in the order they will be written.
    expected: VecDeque<Bytes>,
    /// Bytes of the first announced page already written (and not yet kept).
    matched: usize,
}

impl OutputBuffer {
    /// A factory for the column writers' page stores whose pages this buffer takes over instead
    /// of copying them when they are written.
    pub fn hand_over_page_stores(&mut self) -> Arc<dyn PageStoreFactory> {
        let last = Arc::clone(self.last_taken.get_or_insert_with(LastTaken::default));
        Arc::new(HandOverPageStoreFactory { last })
    }

    /// Bytes written but not yet drained.
    pub fn pending(&self) -> usize {
        self.segments.iter().map(|s| s.bytes().len()).sum::<usize>() - self.read
    }

    /// Copies up to `dst.len()` pending bytes into `dst`, returning how many were copied.
    pub fn drain_into(&mut self, dst: &mut [u8]) -> usize {
        let mut copied = 0;
        while copied < dst.len() {
            let chunk = self.peek(dst.len() - copied);
            let n = chunk.len();
            if n == 0 {
                break;
            }
            dst[copied..copied + n].copy_from_slice(chunk);
            self.consume(n);
            copied += n;
        }
        copied
    }

    /// Up to `max` pending bytes (from one segment: call again for more).
    pub fn peek(&self, max: usize) -> &[u8] {
        match self.segments.front() {
            Some(front) => {
                let bytes = front.bytes();
                let n = (bytes.len() - self.read).min(max);
                &bytes[self.read..self.read + n]
            }
            None => &[],
        }
    }

    /// Drops the first `n` pending bytes (at most the length [`Self::peek`] returned).
    pub fn consume(&mut self, n: usize) {
        let Some(front) = self.segments.front() else {
            return;
        };
        let len = front.bytes().len();
        self.read = (self.read + n).min(len);
        if self.read < len {
            return;
        }
        self.read = 0;
        let drained = self.segments.pop_front().expect("front segment");
        // Keep one small segment for the next bytes; a large one would stay with the file until
        // it closes, which a thousand open files cannot afford.
        if let Segment::Owned(mut vec) = drained {
            if self.segments.is_empty() && vec.capacity() <= RETAINED_OUTPUT_CAPACITY {
                vec.clear();
                self.segments.push_back(Segment::Owned(vec));
            }
        }
    }

    /// Bytes this buffer holds (its allocations and the pages it kept).
    pub fn capacity(&self) -> usize {
        self.segments.iter().map(Segment::held).sum()
    }

    /// Bytes of the pending segments that are pages kept as they were handed over.
    #[cfg(test)]
    pub(crate) fn kept_page_bytes(&self) -> usize {
        self.segments
            .iter()
            .map(|s| match s {
                Segment::Page(p) => p.len(),
                Segment::Owned(_) => 0,
            })
            .sum()
    }

    /// An owned segment with room for `additional` more bytes at the back.
    fn room_for(&mut self, additional: usize) -> &mut Vec<u8> {
        let fits = matches!(
            self.segments.back(),
            Some(Segment::Owned(last)) if last.capacity() - last.len() >= additional
        );
        if !fits {
            // The only empty segment there can be is the one kept after a drain, alone: replace
            // it, so no empty segment ever sits in front of pending bytes.
            if matches!(self.segments.back(), Some(Segment::Owned(v)) if v.is_empty()) {
                self.segments.pop_back();
            }
            self.segments.push_back(Segment::Owned(Vec::with_capacity(
                additional.max(MIN_SEGMENT),
            )));
        }
        match self.segments.back_mut() {
            Some(Segment::Owned(v)) => v,
            _ => unreachable!("an owned segment was pushed above"),
        }
    }

    /// The page last taken from this buffer's stores, if `data` is exactly its bytes.
    fn handed_over(&self, data: &[u8]) -> Option<Bytes> {
        let last = self.last_taken.as_ref()?;
        let mut last = lock(last);
        let same = last
            .as_ref()
            .is_some_and(|page| page.as_ptr() == data.as_ptr() && page.len() == data.len());
        if same {
            last.take()
        } else {
            None
        }
    }

    /// Keeps `page` as the next pending bytes.
    fn push_page(&mut self, page: Bytes) {
        if matches!(self.segments.back(), Some(Segment::Owned(v)) if v.is_empty()) {
            self.segments.pop_back();
        }
        self.segments.push_back(Segment::Page(page));
    }

    /// Keeps the part of the first announced page already written, and stops expecting it.
    fn end_match(&mut self) {
        if self.matched > 0 {
            let page = self.expected.pop_front().expect("a page being matched");
            let written = page.slice(..self.matched);
            self.matched = 0;
            self.push_page(written);
        }
    }

    /// Once the first announced page is matched whole, keeps the page itself as the next pending
    /// bytes (the written copy is never stored) and stops expecting it.
    fn keep_if_whole(&mut self) {
        if self.matched > 0
            && self
                .expected
                .front()
                .is_some_and(|page| page.len() == self.matched)
        {
            self.matched = 0;
            let page = self.expected.pop_front().expect("the page matched");
            self.push_page(page);
        }
    }

    /// Continues matching the first announced page with `data`; returns the bytes of `data`
    /// that are left (all of them when they do not continue the page).
    fn continue_match<'a>(&mut self, data: &'a [u8]) -> &'a [u8] {
        if self.matched == 0 {
            return data;
        }
        let front = self.expected.front().expect("a page being matched");
        let n = data.len().min(front.len() - self.matched);
        if data[..n] != front[self.matched..self.matched + n] {
            self.end_match();
            return data;
        }
        self.matched += n;
        self.keep_if_whole();
        &data[n..]
    }

    /// True when `data` starts the first announced page (and is now matched).
    fn start_match(&mut self, data: &[u8]) -> bool {
        let Some(front) = self.expected.front() else {
            return false;
        };
        if data.len() < MATCH_START_MIN.min(front.len())
            || data.len() > front.len()
            || front[..data.len()] != *data
        {
            return false;
        }
        self.matched = data.len();
        self.keep_if_whole();
        true
    }
}

impl Sink for OutputBuffer {
    fn page_store_factory(&mut self) -> Option<Arc<dyn PageStoreFactory>> {
        Some(self.hand_over_page_stores())
    }

    fn expect_pages(&mut self, pages: &mut dyn Iterator<Item = &Bytes>) {
        self.expected.extend(
            pages
                .filter(|page| page.len() >= EXPECTED_PAGE_MIN)
                .cloned(),
        );
    }

    fn forget_expected_pages(&mut self) {
        self.end_match();
        self.expected.clear();
    }
}

impl Write for OutputBuffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let rest = self.continue_match(data);
        if rest.is_empty() {
            return Ok(data.len());
        }
        if let Some(page) = self.handed_over(rest) {
            self.push_page(page);
            return Ok(data.len());
        }
        if self.start_match(rest) {
            return Ok(data.len());
        }
        // A write that does not fit the last segment starts a new one (never a reallocation).
        self.room_for(rest.len()).extend_from_slice(rest);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Creates a [`HandOverPageStore`] per column chunk.
#[derive(Debug)]
struct HandOverPageStoreFactory {
    last: LastTaken,
}

impl PageStoreFactory for HandOverPageStoreFactory {
    fn create(&self, _args: &PageStoreArgs<'_>) -> parquet::errors::Result<Box<dyn PageStore>> {
        Ok(Box::new(HandOverPageStore {
            pages: Vec::new(),
            resident: 0,
            last: Arc::clone(&self.last),
        }))
    }
}

/// A column chunk's finished pages, held in memory until the row group is written; remembers
/// the page it handed back last so the output buffer can keep it instead of copying it.
struct HandOverPageStore {
    pages: Vec<Bytes>,
    /// Bytes of the pages still held (the row group's size as the encoder cuts it).
    resident: usize,
    last: LastTaken,
}

impl PageStore for HandOverPageStore {
    fn put(&mut self, value: Bytes) -> parquet::errors::Result<PageKey> {
        let key = PageKey::new(self.pages.len() as u64);
        self.resident += value.len();
        self.pages.push(value);
        Ok(key)
    }

    fn take(&mut self, key: PageKey) -> parquet::errors::Result<Bytes> {
        let page = usize::try_from(key.get())
            .ok()
            .and_then(|i| self.pages.get_mut(i))
            .map(std::mem::take)
            .ok_or_else(|| ParquetError::General(format!("invalid page key {}", key.get())))?;
        self.resident -= page.len();
        // Only pages worth keeping whole: small ones are copied (arrow-rs buffers them anyway).
        *lock(&self.last) = (page.len() >= MIN_SEGMENT).then(|| page.clone());
        Ok(page)
    }

    fn memory_size(&self) -> usize {
        self.resident
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_buffer_hands_out_every_byte_in_order_and_keeps_little() {
        let mut out = OutputBuffer::default();
        let mut expected = Vec::new();
        let mut drained = Vec::new();
        let mut chunk = [0u8; 1000];
        for round in 0..3usize {
            out.write_all(b"PAR1").unwrap();
            expected.extend_from_slice(b"PAR1");
            // Pieces of a row group, then small writes after it.
            for piece in 0..300 {
                let bytes = vec![(round * 7 + piece) as u8; 1000];
                out.write_all(&bytes).unwrap();
                expected.extend_from_slice(&bytes);
            }
            let tail = vec![round as u8; 70_000 + round];
            out.write_all(&tail).unwrap();
            expected.extend_from_slice(&tail);
            assert_eq!(out.pending(), expected.len() - drained.len());
            loop {
                let n = out.drain_into(&mut chunk[..997]);
                if n == 0 {
                    break;
                }
                drained.extend_from_slice(&chunk[..n]);
            }
            assert_eq!(out.pending(), 0);
            assert!(out.capacity() <= RETAINED_OUTPUT_CAPACITY);
        }
        assert_eq!(drained, expected);
    }

    #[test]
    fn pages_taken_from_its_stores_are_kept_not_copied() {
        let mut out = OutputBuffer::default();
        drop(out.hand_over_page_stores());
        let mut store = HandOverPageStore {
            pages: Vec::new(),
            resident: 0,
            last: Arc::clone(out.last_taken.as_ref().expect("set by the factory")),
        };
        let big = Bytes::from(vec![7u8; 100_000]);
        let small = Bytes::from(vec![9u8; 100]);
        let big_key = store.put(big.clone()).unwrap();
        let small_key = store.put(small.clone()).unwrap();
        assert_eq!(store.memory_size(), 100_100);

        out.write_all(b"header").unwrap();
        let taken = store.take(big_key).unwrap();
        out.write_all(&taken).unwrap();
        drop(taken);
        // Kept: the output holds the store's very allocation, not a copy.
        assert!(out
            .segments
            .iter()
            .any(|s| matches!(s, Segment::Page(p) if p.as_ptr() == big.as_ptr())));
        // The same bytes from elsewhere are copied.
        let copy = vec![7u8; 100_000];
        out.write_all(&copy).unwrap();
        let taken = store.take(small_key).unwrap();
        out.write_all(&taken).unwrap();
        assert_eq!(store.memory_size(), 0);

        let mut drained = vec![0u8; out.pending()];
        assert_eq!(out.drain_into(&mut drained), drained.len());
        let mut expected = b"header".to_vec();
        expected.extend_from_slice(&big);
        expected.extend_from_slice(&copy);
        expected.extend_from_slice(&small);
        assert_eq!(drained, expected);
        assert!(out.capacity() <= RETAINED_OUTPUT_CAPACITY);
    }

    #[test]
    fn announced_pages_written_in_pieces_are_kept_and_every_byte_comes_out_in_order() {
        let page = |seed: u8, len: usize| {
            Bytes::from(
                (0..len)
                    .map(|i| (i as u8).wrapping_mul(seed))
                    .collect::<Vec<u8>>(),
            )
        };
        let (a, b, c) = (page(3, 20_000), page(5, 30_000), page(7, 12_000));
        let small = page(11, 100);
        let mut out = OutputBuffer::default();
        out.expect_pages(&mut [&a, &small, &b, &c].into_iter());
        let mut written = Vec::new();
        let mut write = |out: &mut OutputBuffer, bytes: &[u8]| {
            out.write_all(bytes).unwrap();
            written.extend_from_slice(bytes);
        };
        write(&mut out, b"before");
        // `a` in 8 KiB pieces, its tail joined with the small page's bytes and a header.
        write(&mut out, &a[..8192]);
        write(&mut out, &a[8192..16384]);
        let mut joined = a[16384..].to_vec();
        joined.extend_from_slice(&small);
        joined.extend_from_slice(b"head");
        write(&mut out, &joined);
        // `b` starts, then something else is written: its written part is kept, the rest copied.
        write(&mut out, &b[..8192]);
        write(&mut out, &vec![1u8; 8192]);
        // `c` was announced after `b`, which is no longer expected: `c` matches whole.
        write(&mut out, &c);
        out.forget_expected_pages();
        write(&mut out, b"footer");

        let kept = |page: &Bytes| {
            out.segments
                .iter()
                .any(|s| matches!(s, Segment::Page(p) if p.as_ptr() == page.as_ptr()))
        };
        assert!(kept(&a), "a is kept whole");
        assert!(kept(&b), "b's written part is kept (a slice of b)");
        assert!(kept(&c), "c is kept whole");
        let mut drained = vec![0u8; out.pending()];
        assert_eq!(out.drain_into(&mut drained), drained.len());
        assert_eq!(drained, written);
        assert!(out.expected.is_empty());
    }
}
