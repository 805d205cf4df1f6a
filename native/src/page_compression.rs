//! Zstd pages compressed by Frazil, with one reused context per thread, and the pages of large
//! text columns compressed in parallel on the encoder threads.
//!
//! An arrow-rs column writer compresses each page itself, with a Zstd compressor *and* a
//! decompressor it creates for every column chunk. Creating a Zstd context runs `CPUID`, which
//! exits to the hypervisor on a VM: with 1,024 small files closed at a checkpoint that was 16,384
//! contexts and about a third of the native close time. And on the `bid` schema one free-text
//! column holds most of the bytes, so its Zstd work alone bounded a file's wall time on its
//! lane's one thread. So every Zstd column of a v1 file (see [`plan`]) gets a column writer
//! created *uncompressed*, and its [`OwnCompressionPageStore`] compresses each page as it
//! arrives, with the calling thread's own context:
//! - inline, on the thread that encodes the column, for dictionary and fixed-width columns
//!   (small pages: a pool job would cost more than it saves);
//! - as a job on [`crate::pool`] for text columns without a dictionary: page *k* is compressed
//!   while the lane encodes page *k + 1* and the other columns.
//!
//! ```text
//!  lane (encoder thread):   encode p0 ─ put(h0, d0) ─ encode p1 ─ put(h1, d1) ─ ...
//!  pool:                                 └► zstd(d0), rewrite h0      └► zstd(d1), rewrite h1
//!  row-group close (caller):  wait for every page ─ fix the chunk's metadata ─ splice pages
//! ```
//!
//! The bytes are those arrow-rs writes when it compresses the page itself: the same
//! `zstd::bulk` one-shot compression at the same level (a fresh frame per page, content size
//! written), and the page header arrow-rs wrote with only its `compressed_page_size` re-encoded.
//! At close the chunk's metadata gets what arrow-rs would have recorded: the codec, the total
//! compressed and uncompressed sizes (headers change length with that field), the dictionary
//! and data page offsets, and the offset index's page offsets and sizes. A chunk with a
//! dictionary page is spliced from here ([`ChunkPages`]), dictionary first: arrow-rs would move
//! its dictionary page ahead using the page's uncompressed length, which it keeps private. Row
//! groups are cut on the same sizes as before: a batch's size counts its column's pages as
//! compressed, and [`crate::encoder`] waits for those pages' compression before it reads that
//! size (on the caller's thread, never on an encoder thread). So a file's bytes are the same as
//! with arrow-rs compressing, whatever the thread count or timing (tests
//! `own_compression_writes_the_bytes_arrow_rs_writes`, `threads_do_not_change_the_bytes`).
//!
//! Only v1 files qualify: a v2 data page's header carries an `is_compressed` flag and only its
//! values are compressed.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use bytes::{Buf, Bytes};
use parquet::basic::{Compression, CompressionCodec, Type as PhysicalType};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::ParquetError;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{ChunkReader, Length};
use parquet::schema::types::SchemaDescriptor;

use parquet::arrow::arrow_writer::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};

use crate::error::{NativeError, Result};
use crate::pool;

/// How one leaf column's pages are compressed here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnPlan {
    /// The Zstd level.
    pub level: i32,
    /// As pool jobs (large text pages), or inline on the thread that encodes the column.
    pub on_pool: bool,
}

/// Chooses the leaf columns whose pages are compressed here, from the schema and the properties
/// only (never from timing): every column written with Zstd in a v1 file; on the pool, the
/// byte-array columns without a dictionary (text that a dictionary does not pay for, the large
/// ones). Returns the properties to build the column writers with (those columns uncompressed)
/// and, per leaf, how its pages are compressed.
pub fn plan(
    descriptor: &SchemaDescriptor,
    properties: WriterProperties,
) -> (WriterProperties, Vec<Option<ColumnPlan>>) {
    if properties.writer_version() != WriterVersion::PARQUET_1_0 {
        return (properties, vec![None; descriptor.num_columns()]);
    }
    let plans: Vec<Option<ColumnPlan>> = descriptor
        .columns()
        .iter()
        .map(|column| {
            let path = column.path();
            match properties.compression(path) {
                Compression::ZSTD(level) => Some(ColumnPlan {
                    level: level.compression_level(),
                    on_pool: column.physical_type() == PhysicalType::BYTE_ARRAY
                        && !properties.dictionary_enabled(path),
                }),
                _ => None,
            }
        })
        .collect();
    if plans.iter().all(Option::is_none) {
        return (properties, plans);
    }
    let mut builder = properties.into_builder();
    for (column, plan) in descriptor.columns().iter().zip(&plans) {
        if plan.is_some() {
            builder =
                builder.set_column_compression(column.path().clone(), Compression::UNCOMPRESSED);
        }
    }
    (builder.build(), plans)
}

/// Creates an [`OwnCompressionPageStore`] for the planned columns (around the store `inner`
/// makes, so a sink's page hand-over keeps working) and `inner`'s own store for the others.
pub struct OwnCompressionPageStoreFactory {
    inner: Arc<dyn PageStoreFactory>,
    /// Per leaf column: how its pages are compressed, when here.
    plans: Vec<Option<ColumnPlan>>,
    /// Compress every page on the thread that puts it (a one-thread encoder), none on the pool.
    inline: AtomicBool,
    /// The chunks created since [`Self::take_created`], by leaf column.
    created: Mutex<HashMap<usize, Arc<CompressedChunk>>>,
}

impl fmt::Debug for OwnCompressionPageStoreFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnCompressionPageStoreFactory")
            .field("plans", &self.plans)
            .field("inline", &self.inline)
            .finish_non_exhaustive()
    }
}

impl OwnCompressionPageStoreFactory {
    pub fn new(inner: Arc<dyn PageStoreFactory>, plans: Vec<Option<ColumnPlan>>) -> Self {
        Self {
            inner,
            plans,
            inline: AtomicBool::new(false),
            created: Mutex::new(HashMap::new()),
        }
    }

    /// Whether the chunks created from now on compress on the thread that puts each page.
    pub fn set_inline(&self, inline: bool) {
        self.inline.store(inline, Ordering::Relaxed);
    }

    /// The compressed chunks of the column writers created since the last call, by leaf column.
    pub fn take_created(&self) -> HashMap<usize, Arc<CompressedChunk>> {
        std::mem::take(&mut *self.created.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl PageStoreFactory for OwnCompressionPageStoreFactory {
    fn create(&self, args: &PageStoreArgs<'_>) -> parquet::errors::Result<Box<dyn PageStore>> {
        let inner = self.inner.create(args)?;
        let Some(plan) = self.plans.get(args.column_index()).copied().flatten() else {
            return Ok(inner);
        };
        let chunk = Arc::new(CompressedChunk::new(
            plan.level,
            self.inline.load(Ordering::Relaxed) || !plan.on_pool,
        ));
        self.created
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(args.column_index(), Arc::clone(&chunk));
        Ok(Box::new(OwnCompressionPageStore {
            chunk,
            inner,
            header: None,
        }))
    }
}

/// One column chunk's pages as they are compressed, shared by its page store, the compression
/// jobs and the encoder.
pub struct CompressedChunk {
    level: i32,
    inline: bool,
    state: Mutex<ChunkState>,
    page_compressed: Condvar,
    /// Tests: the next compression job of this chunk panics.
    #[cfg(test)]
    pub(crate) panic_next: AtomicBool,
}

#[derive(Default)]
struct ChunkState {
    pages: Vec<Page>,
    /// Header and data bytes of the pages put, as arrow-rs handed them in (uncompressed).
    /// Changes only when the column writer puts a page, so reading it right after a batch is
    /// deterministic.
    uncompressed_resident: usize,
    /// Which of `pages` is the dictionary page (arrow-rs puts it after the data pages).
    dictionary: Option<usize>,
    /// The first failure of a compression job, reported once.
    failure: Option<NativeError>,
    failed: bool,
}

enum Page {
    /// On the pool; the lengths arrow-rs handed in.
    Compressing { uncompressed: usize },
    /// Header with the compressed size, and the compressed data (each `None` once taken).
    Compressed {
        header: Option<Bytes>,
        data: Option<Bytes>,
        /// Bytes of header and data in the file.
        file_size: usize,
        /// Length of the new header minus that of the header arrow-rs wrote.
        header_growth: isize,
    },
    /// The job failed (reported through [`ChunkState::failure`]).
    Failed,
}

impl Page {
    fn is_pending(&self) -> bool {
        matches!(self, Page::Compressing { .. })
    }

    /// Bytes of this page in the file (header and data), when compressed.
    fn file_size(&self) -> Option<usize> {
        match self {
            Page::Compressed { file_size, .. } => Some(*file_size),
            _ => None,
        }
    }
}

impl fmt::Debug for CompressedChunk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompressedChunk")
            .field("level", &self.level)
            .field("pages", &self.pages())
            .finish_non_exhaustive()
    }
}

impl CompressedChunk {
    fn new(level: i32, inline: bool) -> Self {
        Self {
            level,
            inline,
            state: Mutex::new(ChunkState::default()),
            page_compressed: Condvar::new(),
            #[cfg(test)]
            panic_next: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ChunkState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Pages put so far.
    pub fn pages(&self) -> usize {
        self.lock().pages.len()
    }

    /// Uncompressed bytes of the pages held (see [`ChunkState::uncompressed_resident`]).
    pub fn uncompressed_resident(&self) -> usize {
        self.lock().uncompressed_resident
    }

    /// Bytes the first `pages` pages take in the file; waits until they are compressed. Never
    /// call it on an encoder thread: it waits for jobs on the pool.
    pub fn wait_file_size(&self, pages: usize) -> usize {
        let mut state = self.lock();
        while state.pages[..pages].iter().any(Page::is_pending) {
            state = self
                .page_compressed
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
        state.pages[..pages]
            .iter()
            .filter_map(Page::file_size)
            .sum()
    }

    /// Bytes the pages held will take in the file, as far as known now: compressed pages at their
    /// size, the others uncompressed (for the file length estimate, which does not wait).
    pub fn estimated_file_size(&self) -> usize {
        let state = self.lock();
        state
            .pages
            .iter()
            .map(|page| match page {
                Page::Compressing { uncompressed } => *uncompressed,
                other => other.file_size().unwrap_or(0),
            })
            .sum()
    }

    /// A compression job's failure, once.
    pub fn take_failure(&self) -> Option<NativeError> {
        self.lock().failure.take()
    }

    /// Waits for every page, then gives the closed chunk's metadata the compressed sizes: what
    /// arrow-rs records when it compresses the pages itself. A chunk with a dictionary page comes
    /// back as its pages in file order, to splice with `SerializedRowGroupWriter::append_column`
    /// (see the module's docs); a chunk without one is spliced by arrow-rs from its page store.
    pub fn finish(&self, close: &mut ColumnCloseResult) -> Result<Option<ChunkPages>> {
        let pages = self.pages();
        let compressed_total = self.wait_file_size(pages);
        let mut state = self.lock();
        if let Some(failure) = state.failure.take() {
            return Err(failure);
        }
        if state.failed {
            return Err(NativeError::InvalidState(
                "a page of this column failed to compress".into(),
            ));
        }
        let dictionary = state.dictionary;
        let mut data_sizes = Vec::with_capacity(pages);
        let mut dictionary_size = 0;
        let mut header_growth = 0isize;
        for (index, page) in state.pages.iter().enumerate() {
            match page {
                Page::Compressed {
                    header_growth: growth,
                    file_size,
                    ..
                } => {
                    header_growth += growth;
                    if Some(index) == dictionary {
                        dictionary_size = *file_size;
                    } else {
                        data_sizes.push(*file_size);
                    }
                }
                _ => {
                    return Err(NativeError::InvalidState(
                        "a page was not compressed".into(),
                    ))
                }
            }
        }
        let metadata = close.metadata.clone();
        if metadata.dictionary_page_offset().is_some() != dictionary.is_some() {
            return Err(NativeError::InvalidState(format!(
                "the column chunk's metadata and its pages disagree on a dictionary page \
                 ({:?}, {:?})",
                metadata.dictionary_page_offset(),
                dictionary
            )));
        }
        let uncompressed_total = metadata.uncompressed_size() + header_growth as i64;
        close.metadata = metadata
            .into_builder()
            .set_compression_codec(CompressionCodec::ZSTD)
            .set_total_compressed_size(compressed_total as i64)
            .set_total_uncompressed_size(uncompressed_total)
            .set_dictionary_page_offset(dictionary.map(|_| 0))
            .set_data_page_offset(dictionary_size as i64)
            .build()
            .map_err(|e| NativeError::parquet("fixing a compressed column chunk's metadata", e))?;
        close.bytes_written = compressed_total as u64;
        if let Some(offset_index) = close.offset_index.as_mut() {
            if offset_index.page_locations.len() != data_sizes.len() {
                return Err(NativeError::InvalidState(format!(
                    "the offset index has {} pages, the column chunk {}",
                    offset_index.page_locations.len(),
                    data_sizes.len()
                )));
            }
            let mut offset = dictionary_size as i64;
            for (location, size) in offset_index.page_locations.iter_mut().zip(data_sizes) {
                location.offset = offset;
                location.compressed_page_size = size as i32;
                offset += size as i64;
            }
        }
        let Some(dictionary) = dictionary else {
            return Ok(None);
        };
        // Dictionary first, then the data pages in the order they were put.
        let order = std::iter::once(dictionary).chain((0..pages).filter(|&i| i != dictionary));
        let mut blobs = VecDeque::with_capacity(2 * pages);
        for index in order {
            let Page::Compressed { header, data, .. } = &mut state.pages[index] else {
                unreachable!("every page was checked to be compressed above");
            };
            blobs.extend(header.take());
            blobs.extend(data.take());
        }
        let pages = ChunkPages {
            len: blobs.iter().map(Bytes::len).sum::<usize>() as u64,
            blobs,
        };
        if pages.len != compressed_total as u64 {
            return Err(NativeError::InvalidState(format!(
                "a column chunk's pages hold {} bytes, its metadata says {compressed_total}",
                pages.len
            )));
        }
        Ok(Some(pages))
    }

    /// Compresses page `index` (on the pool, or here when inline) and records the result.
    fn compress(self: &Arc<Self>, index: usize, header: Bytes, data: Bytes) {
        let chunk = Arc::clone(self);
        let job = move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                #[cfg(test)]
                if chunk.panic_next.swap(false, Ordering::SeqCst) {
                    panic!("injected compression panic");
                }
                compress_page(chunk.level, &header, &data)
            }));
            let mut state = chunk.lock();
            state.pages[index] = match outcome {
                Ok(Ok((new_header, compressed))) => Page::Compressed {
                    header_growth: new_header.len() as isize - header.len() as isize,
                    file_size: new_header.len() + compressed.len(),
                    header: Some(new_header),
                    data: Some(compressed),
                },
                Ok(Err(e)) => {
                    state.failed = true;
                    state.failure.get_or_insert(e);
                    Page::Failed
                }
                Err(payload) => {
                    state.failed = true;
                    state.failure.get_or_insert(NativeError::panicked(
                        "compressing a page",
                        payload.as_ref(),
                    ));
                    Page::Failed
                }
            };
            drop(state);
            chunk.page_compressed.notify_all();
        };
        if self.inline {
            job();
        } else {
            pool::spawn(job);
        }
    }
}

/// Compresses one v1 data page's bytes as arrow-rs's Zstd codec does and returns its header
/// with the compressed size, and the compressed bytes.
fn compress_page(level: i32, header: &[u8], data: &[u8]) -> Result<(Bytes, Bytes)> {
    thread_local! {
        /// One Zstd context per encoder thread, reused like arrow-rs reuses one per column
        /// writer (a context costs more to create than a small page to compress).
        static COMPRESSOR: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
            const { RefCell::new(None) };
    }
    let compressed = COMPRESSOR.with(|cell| -> std::io::Result<Vec<u8>> {
        let mut cell = cell.borrow_mut();
        if cell.as_ref().is_none_or(|(l, _)| *l != level) {
            *cell = Some((level, zstd::bulk::Compressor::new(level)?));
        }
        let (_, compressor) = cell.as_mut().expect("set above");
        let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(data.len()));
        compressor.compress_to_buffer(data, &mut out)?;
        // arrow-rs shrinks its page buffer too: the page waits in memory until the row group
        // closes.
        out.shrink_to_fit();
        Ok(out)
    });
    let compressed = compressed.map_err(|e| {
        NativeError::parquet("compressing a page", ParquetError::External(Box::new(e)))
    })?;
    let header = with_compressed_size(header, compressed.len())?;
    Ok((Bytes::from(header), Bytes::from(compressed)))
}

/// `header`, a thrift compact `PageHeader`, with field 3 (`compressed_page_size`) set to `size`.
/// arrow-rs writes fields 1 (`type`), 2 (`uncompressed_page_size`) and 3 first, in order, each
/// an i32 (zigzag varint) with a one-byte field header; the rest is kept as it is.
fn with_compressed_size(header: &[u8], size: usize) -> Result<Vec<u8>> {
    const I32_FIELD_DELTA_1: u8 = 0x15;
    let malformed = || NativeError::InvalidState("unexpected page header layout".into());
    let mut at = 0;
    let mut field_3 = None;
    for field in 1..=3 {
        if header.get(at) != Some(&I32_FIELD_DELTA_1) {
            return Err(malformed());
        }
        let start = at + 1;
        let len = header
            .get(start..)
            .ok_or_else(malformed)?
            .iter()
            .position(|b| b & 0x80 == 0)
            .ok_or_else(malformed)?
            + 1;
        if field == 3 {
            field_3 = Some((start, start + len));
        }
        at = start + len;
    }
    let (start, end) = field_3.ok_or_else(malformed)?;
    let size = i32::try_from(size)
        .map_err(|_| NativeError::InvalidState("compressed page over 2 GiB".into()))?;
    let mut out = Vec::with_capacity(header.len() + 5);
    out.extend_from_slice(&header[..start]);
    let mut zigzag = ((size << 1) ^ (size >> 31)) as u32;
    while zigzag >= 0x80 {
        out.push((zigzag as u8) | 0x80);
        zigzag >>= 7;
    }
    out.push(zigzag as u8);
    out.extend_from_slice(&header[end..]);
    Ok(out)
}

/// `PageType::DATA_PAGE` in a page header: a v1 data page.
const DATA_PAGE: i32 = 0;
/// `PageType::DICTIONARY_PAGE` in a page header.
const DICTIONARY_PAGE: i32 = 2;

/// The page type in a thrift compact `PageHeader` (field 1).
fn page_type(header: &[u8]) -> Option<i32> {
    if header.first() != Some(&0x15) {
        return None;
    }
    let byte = *header.get(1)?;
    (byte & 0x80 == 0).then(|| i32::from(byte >> 1) ^ -i32::from(byte & 1))
}

/// A planned column's page store: compresses each page as it arrives (inline or as a pool job),
/// and hands back the compressed page (through the `inner` store, so the output can
/// take the page over without copying it).
struct OwnCompressionPageStore {
    chunk: Arc<CompressedChunk>,
    inner: Box<dyn PageStore>,
    /// The header of the page whose data comes next (arrow-rs puts header, then data), and
    /// whether it is the dictionary page's.
    header: Option<(Bytes, bool)>,
}

impl PageStore for OwnCompressionPageStore {
    fn put(&mut self, value: Bytes) -> parquet::errors::Result<PageKey> {
        let Some((header, is_dictionary)) = self.header.take() else {
            let is_dictionary = match page_type(&value) {
                Some(DATA_PAGE) => false,
                Some(DICTIONARY_PAGE) => true,
                _ => {
                    return Err(ParquetError::General(
                        "Frazil compresses v1 data and dictionary pages only".into(),
                    ))
                }
            };
            let index = self.chunk.pages();
            self.header = Some((value, is_dictionary));
            return Ok(PageKey::new(2 * index as u64));
        };
        let index = {
            let mut state = self.chunk.lock();
            state.uncompressed_resident += header.len() + value.len();
            state.pages.push(Page::Compressing {
                uncompressed: header.len() + value.len(),
            });
            let index = state.pages.len() - 1;
            if is_dictionary {
                if state.dictionary.is_some() {
                    return Err(ParquetError::General(
                        "a second dictionary page in one column chunk".into(),
                    ));
                }
                state.dictionary = Some(index);
            }
            index
        };
        self.chunk.compress(index, header, value);
        Ok(PageKey::new(2 * index as u64 + 1))
    }

    fn take(&mut self, key: PageKey) -> parquet::errors::Result<Bytes> {
        let index = usize::try_from(key.get() / 2)
            .map_err(|_| ParquetError::General(format!("invalid page key {}", key.get())))?;
        let is_data = key.get() % 2 == 1;
        let pages = index + 1;
        if self.chunk.pages() < pages {
            return Err(ParquetError::General(format!(
                "invalid page key {}",
                key.get()
            )));
        }
        self.chunk.wait_file_size(pages);
        let blob = match &mut self.chunk.lock().pages[index] {
            Page::Compressed { data, .. } if is_data => data.take(),
            Page::Compressed { header, .. } => header.take(),
            _ => None,
        }
        .ok_or_else(|| ParquetError::General(format!("page {index} is not available")))?;
        // Through the inner store, which may arrange for the output to keep this very page.
        let key = self.inner.put(blob)?;
        self.inner.take(key)
    }

    fn memory_size(&self) -> usize {
        // Pages count uncompressed until the row group closes, whatever the jobs did: the
        // encoder reads this right after a batch, and it must not depend on timing.
        self.chunk.uncompressed_resident()
    }
}

/// A column chunk's compressed pages in file order, read by
/// `SerializedRowGroupWriter::append_column` as if they were one buffer (without joining them).
#[derive(Debug)]
pub struct ChunkPages {
    blobs: VecDeque<Bytes>,
    len: u64,
}

impl ChunkPages {
    /// The pages' blobs (headers and data) in file order.
    pub fn blobs(&self) -> impl Iterator<Item = &Bytes> {
        self.blobs.iter()
    }
}

impl Length for ChunkPages {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for ChunkPages {
    type T = ChunkPagesRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<ChunkPagesRead> {
        let mut read = ChunkPagesRead {
            blobs: self.blobs.clone(),
        };
        let mut skip = usize::try_from(start)
            .map_err(|_| ParquetError::General(format!("offset {start} out of range")))?;
        while skip > 0 {
            let front = read.blobs.front_mut().ok_or_else(|| {
                ParquetError::General(format!("offset {start} past the column chunk"))
            })?;
            let n = skip.min(front.len());
            front.advance(n);
            skip -= n;
            if front.is_empty() {
                read.blobs.pop_front();
            }
        }
        Ok(read)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let mut out = Vec::with_capacity(length);
        self.get_read(start)?
            .take(length as u64)
            .read_to_end(&mut out)
            .map_err(|e| ParquetError::External(Box::new(e)))?;
        if out.len() != length {
            return Err(ParquetError::General(format!(
                "{length} bytes at {start} past the column chunk"
            )));
        }
        Ok(Bytes::from(out))
    }
}

/// Reads [`ChunkPages`]' blobs one after the other.
#[derive(Debug)]
pub struct ChunkPagesRead {
    blobs: VecDeque<Bytes>,
}

impl Read for ChunkPagesRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(front) = self.blobs.front_mut() {
            if front.is_empty() {
                self.blobs.pop_front();
                continue;
            }
            let n = buf.len().min(front.len());
            buf[..n].copy_from_slice(&front[..n]);
            front.advance(n);
            return Ok(n);
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compressed_size_is_re_encoded_and_the_rest_kept() {
        // type 0, uncompressed 300, compressed 300, then a data page header struct.
        let mut header = vec![0x15, 0x00, 0x15, 0xd8, 0x04, 0x15, 0xd8, 0x04];
        header.extend_from_slice(&[0x2c, 0x15, 0x02, 0x00]);
        let rewritten = with_compressed_size(&header, 5).unwrap();
        assert_eq!(
            rewritten,
            vec![0x15, 0x00, 0x15, 0xd8, 0x04, 0x15, 0x0a, 0x2c, 0x15, 0x02, 0x00]
        );
        assert_eq!(page_type(&header), Some(0));
        assert!(with_compressed_size(&[0x16, 0x00], 5).is_err());
    }

    #[test]
    fn chunk_pages_read_as_one_buffer_from_any_offset() {
        let blobs: VecDeque<Bytes> = [&b"abc"[..], b"", b"defgh"]
            .into_iter()
            .map(Bytes::from_static)
            .collect();
        let pages = ChunkPages { blobs, len: 8 };
        assert_eq!(pages.len(), 8);
        let mut read = String::new();
        pages
            .get_read(2)
            .unwrap()
            .read_to_string(&mut read)
            .unwrap();
        assert_eq!(read, "cdefgh");
        assert_eq!(&pages.get_bytes(1, 4).unwrap()[..], b"bcde");
        assert_eq!(&pages.get_bytes(0, 8).unwrap()[..], b"abcdefgh");
        assert!(pages.get_bytes(6, 5).is_err(), "past the end");
        assert!(pages.get_read(9).is_err(), "offset past the end");
    }
}
