//! Where a file's encoded bytes wait for the caller to drain them.
//!
//! Bytes sit in a list of segments that never grow once full. Large pages the encoder produced
//! are not copied but *kept*: before a page is written, it is announced to the buffer
//! ([`ExpectedPages`], a [`PageAnnouncer`]), and when the bytes written are that page's bytes
//! the buffer keeps the page itself. Closing a row group of a hundred megabytes then moves
//! pointers instead of copying into, and first touching, as much fresh memory again (which
//! doubled the file's peak memory at close and made up most of the close's time).
//!
//! Pages are announced in the order they are written, from two places:
//! - the column writers' page stores ([`HandOverPageStore`]), as arrow-rs takes a page back to
//!   write it: arrow-rs then writes exactly that allocation, in one write;
//! - the row-group close, before it splices a column chunk Frazil compressed itself (one with a
//!   dictionary page, see [`crate::page_compression`]): arrow-rs's `Read`-based splice writes it
//!   in pieces of at most 8 KiB, which continue the page they started.
//!
//! ```text
//!  encoder threads: page ─ put ─► HandOverPageStore (one per column chunk)
//!  row-group close: take ─ announce ─► arrow-rs writes the page ─► OutputBuffer::write
//!                   splice ─ announce the chunk's pages ─► written in 8 KiB pieces ─┘
//!                   the bytes written start (and continue) the first announced page? keep it : copy
//! ```
//!
//! Only bytes equal to those written are ever kept (the same allocation, or compared), so a
//! piece that does not match is simply copied. A page announced and never begun is dropped at
//! the next announcement: every page announced before it was handed to arrow-rs whole.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use parquet::arrow::arrow_writer::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};
use parquet::errors::ParquetError;

use crate::encoder::{PageAnnouncer, Sink};

/// The largest drained segment an open file keeps for its next bytes; larger ones are freed (a
/// thousand open files each keeping more would add up, and the memory budget could not shed it).
pub const RETAINED_OUTPUT_CAPACITY: usize = 8 << 10;

/// The smallest segment allocated for small writes (page headers, the footer).
const MIN_SEGMENT: usize = 8 << 10;

/// Announced pages smaller than this are copied: arrow-rs's 8 KiB write buffer joins them with
/// their neighbours, and copying them costs little.
const EXPECTED_PAGE_MIN: usize = 8 << 10;

/// A write starts matching an announced page's bytes only from this size (arrow-rs's splice
/// writes a large page's first 8 KiB on their own).
const MATCH_START_MIN: usize = 4 << 10;

/// The pages about to be written, in order, and how much of the first is written already.
#[derive(Debug, Default)]
struct Expected {
    pages: VecDeque<Bytes>,
    /// Bytes of the first page already written (and not yet kept).
    matched: usize,
}

/// Where pages about to be written are announced to a file's [`OutputBuffer`], which keeps them
/// instead of copying their bytes; shared by the buffer, its page stores and the row-group close.
#[derive(Debug, Default, Clone)]
pub struct ExpectedPages(Arc<Mutex<Expected>>);

impl PageAnnouncer for ExpectedPages {
    /// A page announced earlier and not begun is not going to be written: it is dropped (the
    /// page being written, if any, stays first).
    fn expect(&self, pages: &mut dyn Iterator<Item = &Bytes>) {
        let mut expected = self.lock();
        let begun = usize::from(expected.matched > 0);
        expected.pages.truncate(begun);
        expected.pages.extend(
            pages
                .filter(|page| page.len() >= EXPECTED_PAGE_MIN)
                .cloned(),
        );
    }
}

impl ExpectedPages {
    fn lock(&self) -> MutexGuard<'_, Expected> {
        // A panic while holding the lock leaves a valid state: carry on with it.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One run of pending bytes.
#[derive(Debug)]
enum Segment {
    /// Bytes copied in; may still have room at the end.
    Owned(Vec<u8>),
    /// A page announced and written, kept as it is.
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
    /// Pages announced to be written next: kept, not copied, when they are.
    expected: ExpectedPages,
}

impl OutputBuffer {
    /// A factory for the column writers' page stores, which announce each page as arrow-rs takes
    /// it back to write it.
    pub fn hand_over_page_stores(&mut self) -> Arc<dyn PageStoreFactory> {
        Arc::new(HandOverPageStoreFactory {
            expected: self.expected.clone(),
        })
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

    /// Keeps `page` as the next pending bytes.
    fn push_page(&mut self, page: Bytes) {
        if matches!(self.segments.back(), Some(Segment::Owned(v)) if v.is_empty()) {
            self.segments.pop_back();
        }
        self.segments.push_back(Segment::Page(page));
    }

    /// Keeps the part of the first announced page already written, and stops expecting it.
    fn end_match(&mut self, expected: &mut Expected) {
        if expected.matched > 0 {
            let page = expected.pages.pop_front().expect("a page being matched");
            let written = page.slice(..expected.matched);
            expected.matched = 0;
            self.push_page(written);
        }
    }

    /// Once the first announced page is matched whole, keeps the page itself as the next pending
    /// bytes (the written copy is never stored) and stops expecting it.
    fn keep_if_whole(&mut self, expected: &mut Expected) {
        if expected.matched > 0
            && expected
                .pages
                .front()
                .is_some_and(|page| page.len() == expected.matched)
        {
            expected.matched = 0;
            let page = expected.pages.pop_front().expect("the page matched");
            self.push_page(page);
        }
    }

    /// Continues matching the first announced page with `data`; returns the bytes of `data`
    /// that are left (all of them when they do not continue the page).
    fn continue_match<'a>(&mut self, expected: &mut Expected, data: &'a [u8]) -> &'a [u8] {
        if expected.matched == 0 {
            return data;
        }
        let front = expected.pages.front().expect("a page being matched");
        let n = data.len().min(front.len() - expected.matched);
        if data[..n] != front[expected.matched..expected.matched + n] {
            self.end_match(expected);
            return data;
        }
        expected.matched += n;
        self.keep_if_whole(expected);
        &data[n..]
    }

    /// True when `data` starts the first announced page (and is now matched). The page itself,
    /// written whole (as arrow-rs writes a page it took from a store), is kept without comparing.
    fn start_match(&mut self, expected: &mut Expected, data: &[u8]) -> bool {
        let Some(front) = expected.pages.front() else {
            return false;
        };
        let itself = front.as_ptr() == data.as_ptr() && front.len() == data.len();
        if !itself
            && (data.len() < MATCH_START_MIN.min(front.len())
                || data.len() > front.len()
                || front[..data.len()] != *data)
        {
            return false;
        }
        expected.matched = data.len();
        self.keep_if_whole(expected);
        true
    }
}

impl Sink for OutputBuffer {
    fn page_store_factory(&mut self) -> Option<Arc<dyn PageStoreFactory>> {
        Some(self.hand_over_page_stores())
    }

    fn page_announcer(&mut self) -> Option<Box<dyn PageAnnouncer>> {
        Some(Box::new(self.expected.clone()))
    }

    fn forget_expected_pages(&mut self) {
        let shared = self.expected.clone();
        let mut expected = shared.lock();
        self.end_match(&mut expected);
        expected.pages.clear();
    }
}

impl Write for OutputBuffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let shared = self.expected.clone();
        let mut expected = shared.lock();
        let rest = self.continue_match(&mut expected, data);
        if rest.is_empty() || self.start_match(&mut expected, rest) {
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
    expected: ExpectedPages,
}

impl PageStoreFactory for HandOverPageStoreFactory {
    fn create(&self, _args: &PageStoreArgs<'_>) -> parquet::errors::Result<Box<dyn PageStore>> {
        Ok(Box::new(HandOverPageStore {
            pages: Vec::new(),
            resident: 0,
            expected: self.expected.clone(),
        }))
    }
}

/// A column chunk's finished pages, held in memory until the row group is written; announces
/// each page it hands back (arrow-rs writes it next) so the output buffer can keep it.
struct HandOverPageStore {
    pages: Vec<Bytes>,
    /// Bytes of the pages still held (the row group's size as the encoder cuts it).
    resident: usize,
    expected: ExpectedPages,
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
        self.expected.expect(&mut std::iter::once(&page));
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
            expected: out.expected.clone(),
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
        out.expected.expect(&mut [&a, &small, &b, &c].into_iter());
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
        assert!(out.expected.lock().pages.is_empty());
    }

    #[test]
    fn a_page_announced_and_never_begun_does_not_stop_the_next_from_being_kept() {
        let mut out = OutputBuffer::default();
        let stale = Bytes::from(vec![3u8; 20_000]);
        let page = Bytes::from(vec![4u8; 20_000]);
        out.expected.expect(&mut std::iter::once(&stale));
        // Something else is written where `stale` was expected: copied.
        out.write_all(&[5u8; 20_000]).unwrap();
        // A store hands `page` back: announced, written whole, kept without comparing.
        let mut store = HandOverPageStore {
            pages: Vec::new(),
            resident: 0,
            expected: out.expected.clone(),
        };
        let key = store.put(page.clone()).unwrap();
        let taken = store.take(key).unwrap();
        out.write_all(&taken).unwrap();
        assert!(out
            .segments
            .iter()
            .any(|s| matches!(s, Segment::Page(p) if p.as_ptr() == page.as_ptr())));
        assert!(out.expected.lock().pages.is_empty());
        let mut drained = vec![0u8; out.pending()];
        assert_eq!(out.drain_into(&mut drained), drained.len());
        assert_eq!(drained, [vec![5u8; 20_000], vec![4u8; 20_000]].concat());
    }
}
