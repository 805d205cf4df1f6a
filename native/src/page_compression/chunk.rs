//! One column chunk's pages as they are compressed, shared by its page store, the compression
//! jobs and the encoder; and, at the row-group close, the chunk's metadata as arrow-rs records it
//! when it compresses the pages itself.
//!
//! A page is *compressing* from the moment it is put until its job records it *compressed*
//! (or *failed*). Sizes read right after a batch count every page put, uncompressed
//! ([`CompressedChunk::uncompressed_resident`]); the exact compressed sizes are waited for
//! ([`CompressedChunk::wait_file_size`]) on the caller's thread only, never on an encoder
//! thread, since they wait for jobs on the pool.

use std::collections::VecDeque;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
#[cfg(test)]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use bytes::Bytes;
use parquet::basic::CompressionCodec;
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::ParquetError;
use parquet::file::reader::Length;

use super::page_bytes::compress_page;
use super::splice::ChunkPages;
use crate::error::{NativeError, Result};
use crate::pool;

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
    pub(super) fn new(level: i32, inline: bool) -> Self {
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
        let pages = ChunkPages::new(blobs);
        if pages.len() != compressed_total as u64 {
            return Err(NativeError::InvalidState(format!(
                "a column chunk's pages hold {} bytes, its metadata says {compressed_total}",
                pages.len()
            )));
        }
        Ok(Some(pages))
    }

    /// Records a page arrow-rs put (header and data, uncompressed) and starts compressing it;
    /// returns its index.
    pub(super) fn put(
        self: &Arc<Self>,
        header: Bytes,
        data: Bytes,
        is_dictionary: bool,
    ) -> parquet::errors::Result<usize> {
        let index = {
            let mut state = self.lock();
            state.uncompressed_resident += header.len() + data.len();
            state.pages.push(Page::Compressing {
                uncompressed: header.len() + data.len(),
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
        self.compress(index, header, data);
        Ok(index)
    }

    /// Page `index`'s compressed data (`data`) or header, once it is compressed; `None` when
    /// taken already or failed. Waits for the pages up to it: the caller's thread only.
    pub(super) fn take_blob(&self, index: usize, data: bool) -> Option<Bytes> {
        self.wait_file_size(index + 1);
        match self.lock().pages.get_mut(index)? {
            Page::Compressed { data: blob, .. } if data => blob.take(),
            Page::Compressed { header, .. } => header.take(),
            _ => None,
        }
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
