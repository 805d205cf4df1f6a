//! A column lane: one leaf column of the open row group, its arrow-rs column writer and the
//! queue of that column's slices of the batches handed in, drained in order on the shared
//! encoder threads ([`crate::pool`]); and [`BatchDone`], the completion of one batch across the
//! lanes.
//!
//! A lane encodes its queue in batch order, so a column's pages are exactly those of a
//! single-threaded write, while different columns, and different batches of different columns,
//! are encoded at once (see [`crate::encoder`] for why that matters). Every lane adds its
//! column's writer memory after batch *n* to that batch's [`BatchDone`], so the row group's size
//! after each batch is exact whatever the timing: that is what the encoder cuts row groups on.
//!
//! Memory rule: a lane drops its slice of a batch before reporting that part done, so whoever
//! waits on [`BatchDone`] holds the last reference (the JNI thread, for Java memory).
//!
//! A panic while encoding is caught in the lane and becomes the lane's failure: a lane that
//! stopped without finishing its part would leave the caller waiting forever.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use parquet::arrow::arrow_writer::{ArrowColumnWriter, ArrowLeafColumn};

use super::encode_time::EncodeTime;
use crate::error::NativeError;
use crate::page_compression::CompressedChunk;
use crate::pool;

/// Completion of one batch across the lanes.
#[derive(Debug)]
pub struct BatchDone {
    state: Mutex<Progress>,
    finished: Condvar,
}

#[derive(Debug)]
struct Progress {
    parts_left: usize,
    /// Sum of the finished columns' writer memory right after this batch, without the pages of
    /// pool-compressed columns (see [`crate::page_compression`]).
    memory_after: usize,
    /// Pool-compressed columns and how many of their pages were put right after this batch:
    /// those pages count at their compressed size.
    compressed_pages: Vec<(Arc<CompressedChunk>, usize)>,
}

impl BatchDone {
    pub(super) fn new(parts: usize) -> Self {
        Self {
            state: Mutex::new(Progress {
                parts_left: parts,
                memory_after: 0,
                compressed_pages: Vec::new(),
            }),
            finished: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn part_done(
        &self,
        memory_after: usize,
        compressed_pages: Option<(Arc<CompressedChunk>, usize)>,
    ) {
        let mut progress = self.lock();
        progress.memory_after += memory_after;
        progress.compressed_pages.extend(compressed_pages);
        progress.parts_left -= 1;
        if progress.parts_left == 0 {
            self.finished.notify_all();
        }
    }

    /// Blocks until every column has encoded (and let go of) its part of the batch; returns the
    /// row group's memory right after it.
    pub fn wait(&self) -> usize {
        let mut progress = self.lock();
        while progress.parts_left > 0 {
            progress = self
                .finished
                .wait(progress)
                .unwrap_or_else(|p| p.into_inner());
        }
        progress.memory_after
    }

    /// Like [`Self::wait`], then also waits until the pages of pool-compressed columns put up to
    /// this batch are compressed, and counts them at their size in the file: the row group's
    /// exact size after this batch, the same as when arrow-rs compresses pages itself. Waits for
    /// pool jobs: call it on the caller's thread only.
    pub fn wait_compressed(&self) -> usize {
        let memory = self.wait();
        let compressed_pages = std::mem::take(&mut self.lock().compressed_pages);
        memory
            + compressed_pages
                .iter()
                .map(|(chunk, pages)| chunk.wait_file_size(*pages))
                .sum::<usize>()
    }

    /// True once [`Self::wait`] would not block.
    pub fn is_done(&self) -> bool {
        self.lock().parts_left == 0
    }
}

/// One column's slice of one batch.
pub(super) struct Work {
    pub(super) leaf: ArrowLeafColumn,
    pub(super) done: Arc<BatchDone>,
}

/// One leaf column of the open row group and its queue of work.
pub(super) struct ColumnLane {
    state: Mutex<LaneState>,
    /// The column chunk's pages when Frazil compresses them (see [`crate::page_compression`]).
    compressed: Option<Arc<CompressedChunk>>,
    /// The file's encode time, shared by its lanes (see [`EncodeTime`]).
    encode_time: Arc<EncodeTime>,
    /// Tests: panic while encoding the next piece of work.
    #[cfg(test)]
    pub(super) panic_next: std::sync::atomic::AtomicBool,
}

struct LaneState {
    /// Out of the lane while a batch is being encoded, and for good after a panic.
    writer: Option<ArrowColumnWriter>,
    queue: VecDeque<Work>,
    /// A drain of this lane is queued or running on the pool.
    scheduled: bool,
    failure: Option<NativeError>,
    /// [`ArrowColumnWriter::get_estimated_total_bytes`] after the last batch encoded.
    estimated_bytes: usize,
    /// [`ArrowColumnWriter::memory_size`] after the last batch encoded: what the column holds.
    memory: usize,
}

impl ColumnLane {
    pub(super) fn new(
        writer: ArrowColumnWriter,
        encode_time: Arc<EncodeTime>,
        compressed: Option<Arc<CompressedChunk>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            encode_time,
            compressed,
            state: Mutex::new(LaneState {
                writer: Some(writer),
                queue: VecDeque::new(),
                scheduled: false,
                failure: None,
                estimated_bytes: 0,
                memory: 0,
            }),
            #[cfg(test)]
            panic_next: std::sync::atomic::AtomicBool::new(false),
        })
    }

    fn lock(&self) -> MutexGuard<'_, LaneState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The column chunk's pages, when Frazil compresses them.
    pub(super) fn compressed(&self) -> Option<&Arc<CompressedChunk>> {
        self.compressed.as_ref()
    }

    /// The column writer, for closing the row group; `None` once lost to a failure.
    pub(super) fn take_writer(&self) -> Option<ArrowColumnWriter> {
        self.lock().writer.take()
    }

    /// The first failure of this lane or of its page compression, once.
    pub(super) fn take_failure(&self) -> Option<NativeError> {
        let failure = self.lock().failure.take();
        failure.or_else(|| self.compressed.as_ref()?.take_failure())
    }

    /// [`ArrowColumnWriter::get_estimated_total_bytes`] as of the batches encoded so far.
    pub(super) fn estimated_bytes(&self) -> usize {
        self.lock().estimated_bytes
    }

    /// [`ArrowColumnWriter::memory_size`] as of the batches encoded so far.
    pub(super) fn memory(&self) -> usize {
        self.lock().memory
    }

    /// Queues `work`; encodes it on the calling thread when `inline`, else on the pool.
    pub(super) fn push(self: &Arc<Self>, work: Work, inline: bool) {
        let mut state = self.lock();
        state.queue.push_back(work);
        if state.scheduled {
            return;
        }
        state.scheduled = true;
        drop(state);
        if inline {
            self.drain();
        } else {
            let lane = Arc::clone(self);
            pool::spawn(move || lane.drain());
        }
    }

    /// Encodes queued work in order until the queue is empty.
    fn drain(&self) {
        loop {
            let (Work { leaf, done }, writer) = {
                let mut state = self.lock();
                let Some(work) = state.queue.pop_front() else {
                    state.scheduled = false;
                    return;
                };
                // After a failure the rest of the queue is only released, not encoded.
                let writer = match state.failure {
                    None => state.writer.take(),
                    Some(_) => None,
                };
                (work, writer)
            };
            // Everything a panic could come from stays inside `catch_unwind`: a lane that stopped
            // without finishing its part would leave the caller waiting forever.
            let encoded = writer.map(|mut writer| {
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    #[cfg(test)]
                    if self
                        .panic_next
                        .swap(false, std::sync::atomic::Ordering::SeqCst)
                    {
                        panic!("injected encoder panic");
                    }
                    let _timed = self.encode_time.measure();
                    writer.write(&leaf)?;
                    let memory = writer.memory_size();
                    let estimate = writer.get_estimated_total_bytes();
                    Ok(match &self.compressed {
                        None => (memory, estimate, memory, None),
                        // The pages put so far count uncompressed in the writer's figures: take
                        // them out and count them compressed (exactly once the caller waits).
                        // What is held and estimated now counts the pages compressed so far at
                        // their size (neither is exact: both are read without waiting).
                        Some(chunk) => {
                            let uncompressed = chunk.uncompressed_resident();
                            let pages_now = chunk.estimated_file_size();
                            (
                                memory.saturating_sub(uncompressed) + pages_now,
                                estimate.saturating_sub(uncompressed) + pages_now,
                                memory.saturating_sub(uncompressed),
                                Some((Arc::clone(chunk), chunk.pages())),
                            )
                        }
                    })
                }));
                (writer, outcome)
            });
            drop(leaf);
            let mut state = self.lock();
            let mut memory_after = 0;
            let mut compressed_pages = None;
            match encoded {
                None => {}
                Some((writer, Ok(Ok((memory, estimate, uncompressed_memory, pages))))) => {
                    memory_after = uncompressed_memory;
                    compressed_pages = pages;
                    state.memory = memory;
                    state.estimated_bytes = estimate;
                    state.writer = Some(writer);
                }
                Some((writer, Ok(Err(e)))) => {
                    state.failure = Some(NativeError::parquet("encoding a column", e));
                    state.writer = Some(writer);
                }
                Some((_, Err(payload))) => {
                    // The writer may be half-updated: it is dropped, never used again.
                    state.failure =
                        Some(NativeError::panicked("encoding a column", payload.as_ref()));
                }
            }
            drop(state);
            done.part_done(memory_after, compressed_pages);
        }
    }
}
