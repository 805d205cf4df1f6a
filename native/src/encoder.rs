//! Row groups encoded column by column on the encoder threads, with no barrier between batches.
//!
//! Each leaf column of the open row group is a [`ColumnLane`]: its arrow-rs column writer plus a
//! queue of that column's slices of the batches handed in. A lane drains its queue in order on
//! the shared encoder threads ([`crate::pool`]), so a column's pages are exactly those of a
//! single-threaded write, while different columns, and different batches of different columns,
//! are encoded at once. That matters because one column usually dominates (a free-text field
//! can be three quarters of the work): with a barrier per batch, the other columns, the caller's
//! conversion of the next rows and the big column took turns; without it the big column keeps a
//! core busy and everything else shares the other.
//!
//! ```text
//!  caller:  write(n) ── write(n+1) ── write(n+2): waits for n, decides the row group ── ...
//!  lane a:  [n.a]─[n+1.a]─[n+2.a]───────────      (each lane: one column, in batch order)
//!  lane b:  [n.b]──────────[n+1.b]─[n+2.b]──
//! ```
//!
//! Row groups are cut by the bytes the column writers hold, as parquet-java cuts them (encoded
//! pages plus open page buffers, not arrow-rs's compressed-size estimate, which lags until pages
//! close). Every lane adds its column's size after batch *n* to that batch's [`BatchDone`], so
//! the size after each batch is exact whatever the timing. Before batch *n* goes in, the encoder
//! asks whether batch *n − 1* may have filled the row group: it waits for *n − 1* and decides
//! exactly when the last exact size plus twice the largest growth per batch seen in this row
//! group reaches the limit (always for the first batches of a row group); otherwise it lets
//! *n − 1* run on. If such a prediction was wrong, the row group closes one batch late, when
//! *n − 1*'s size is read. Every choice depends on exact sizes only, so the bytes of a file
//! depend on its rows, never on thread timing or thread count (test
//! `threads_do_not_change_the_bytes`).
//!
//! Memory rule: a lane drops its slice of a batch before reporting that part done, so whoever
//! waits on [`BatchDone`] holds the last reference (the JNI thread, for Java memory).

use std::collections::VecDeque;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use arrow::array::{Array, RecordBatch};
use arrow::datatypes::SchemaRef;
use bytes::Bytes;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn,
    ArrowRowGroupWriterFactory, InMemoryPageStoreFactory, PageStoreFactory,
};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;

use crate::error::{NativeError, Result};
use crate::page_compression::{self, ChunkPages, CompressedChunk, OwnCompressionPageStoreFactory};
use crate::pool;

/// Batches the lanes may hold at once, per file: the slowest column may lag the caller by one
/// batch while the caller fills the next.
pub const MAX_PENDING: usize = 2;

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
    fn new(parts: usize) -> Self {
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
struct Work {
    leaf: ArrowLeafColumn,
    done: Arc<BatchDone>,
}

/// One leaf column of the open row group and its queue of work.
struct ColumnLane {
    state: Mutex<LaneState>,
    /// The column chunk's pages when Frazil compresses them (see [`crate::page_compression`]).
    compressed: Option<Arc<CompressedChunk>>,
    /// The file's encode time, shared by its lanes (see [`EncodeTime`]).
    encode_time: Arc<EncodeTime>,
    /// Tests: panic while encoding the next piece of work.
    #[cfg(test)]
    panic_next: std::sync::atomic::AtomicBool,
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
    fn new(
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

    /// Queues `work`; encodes it on the calling thread when `inline`, else on the pool.
    fn push(self: &Arc<Self>, work: Work, inline: bool) {
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

/// Nanoseconds spent encoding one file's columns (writing batches into the column writers and
/// closing them into chunks), summed over the threads that did it.
#[derive(Debug, Default)]
pub struct EncodeTime(AtomicU64);

impl EncodeTime {
    /// Adds the time until the returned guard drops.
    fn measure(&self) -> EncodeTimer<'_> {
        EncodeTimer {
            total: self,
            start: Instant::now(),
        }
    }

    /// The sum so far.
    pub fn nanos(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Adds its lifetime to an [`EncodeTime`] when dropped (also when unwinding).
struct EncodeTimer<'a> {
    total: &'a EncodeTime,
    start: Instant,
}

impl Drop for EncodeTimer<'_> {
    fn drop(&mut self) {
        let nanos = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.total.0.fetch_add(nanos, Ordering::Relaxed);
    }
}

/// Closes the column writers of one group into their chunks, keeping each column's index.
fn close_column_group(
    group: Vec<(usize, ArrowColumnWriter)>,
    encode_time: &EncodeTime,
) -> Result<Vec<(usize, ArrowColumnChunk)>> {
    let _timed = encode_time.measure();
    group
        .into_iter()
        .map(|(i, writer)| {
            writer
                .close()
                .map(|chunk| (i, chunk))
                .map_err(|e| NativeError::parquet("closing a column chunk", e))
        })
        .collect()
}

/// Where an encoder's bytes go.
pub trait Sink: Write + Send {
    /// Where the column writers should keep their finished pages, when the sink can take them
    /// over without copying (see [`crate::output`]); arrow-rs's in-memory store otherwise.
    fn page_store_factory(&mut self) -> Option<Arc<dyn PageStoreFactory>> {
        None
    }

    /// Pages about to be written, in order, through a splice that copies them in small pieces:
    /// a sink that can keep pages may keep these instead of copying them.
    fn expect_pages(&mut self, _pages: &mut dyn Iterator<Item = &Bytes>) {}

    /// The pages announced with [`Self::expect_pages`] are written, or will not be.
    fn forget_expected_pages(&mut self) {}
}

impl Sink for Vec<u8> {}

/// Writes row groups of one Parquet file into `W`.
pub struct ColumnParallelEncoder<W: Sink> {
    schema: SchemaRef,
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    /// Makes the page stores of the columns whose pages Frazil compresses.
    page_compression: Option<Arc<OwnCompressionPageStoreFactory>>,
    /// The open row group's columns, `None` between row groups.
    lanes: Option<Vec<Arc<ColumnLane>>>,
    /// Batches of the open row group not yet waited for, oldest first.
    pending: VecDeque<Arc<BatchDone>>,
    row_group_bytes: usize,
    /// Exact row-group memory after the last batch waited for, in this row group.
    last_memory: Option<usize>,
    /// Largest growth of that memory from one batch to the next, in this row group.
    max_growth: usize,
    threads: usize,
    encode_time: Arc<EncodeTime>,
    /// The first failure reported, as text: the file cannot be finished correctly, and every
    /// later call says why (a fresh error each time; the Java side holds the first one).
    failed: Option<String>,
}

impl<W: Sink> ColumnParallelEncoder<W> {
    /// An encoder cutting row groups at `row_group_bytes` held by the column writers, with Zstd
    /// pages compressed by Frazil (reused contexts; large text pages on the pool, see
    /// [`crate::page_compression`]).
    pub fn try_new(
        sink: W,
        schema: SchemaRef,
        descriptor: &SchemaDescriptor,
        properties: WriterProperties,
        row_group_bytes: usize,
    ) -> Result<Self> {
        Self::try_new_with_own_compression(
            sink,
            schema,
            descriptor,
            properties,
            row_group_bytes,
            true,
        )
    }

    /// [`Self::try_new`]; with `own_compression` false, every arrow-rs column writer compresses
    /// its own pages (the same bytes, with a context per column chunk, on fewer threads).
    pub fn try_new_with_own_compression(
        mut sink: W,
        schema: SchemaRef,
        descriptor: &SchemaDescriptor,
        properties: WriterProperties,
        row_group_bytes: usize,
        own_compression: bool,
    ) -> Result<Self> {
        let mut page_stores = sink.page_store_factory();
        let (properties, plans) = if own_compression {
            page_compression::plan(descriptor, properties)
        } else {
            (properties, Vec::new())
        };
        let mut page_compression = None;
        if plans.iter().any(Option::is_some) {
            let inner = page_stores
                .take()
                .unwrap_or_else(|| Arc::new(InMemoryPageStoreFactory));
            let compressing = Arc::new(OwnCompressionPageStoreFactory::new(inner, plans));
            page_stores = Some(Arc::clone(&compressing) as Arc<dyn PageStoreFactory>);
            page_compression = Some(compressing);
        }
        let file = SerializedFileWriter::new(sink, descriptor.root_schema_ptr(), properties.into())
            .map_err(|e| NativeError::parquet("creating the Parquet writer", e))?;
        let mut factory = ArrowRowGroupWriterFactory::new(&file, schema.clone());
        if let Some(page_stores) = page_stores {
            factory = factory.with_page_store_factory(page_stores);
        }
        let threads = pool::threads();
        if let Some(compressing) = &page_compression {
            compressing.set_inline(threads == 1);
        }
        Ok(Self {
            schema,
            file,
            factory,
            page_compression,
            lanes: None,
            pending: VecDeque::new(),
            row_group_bytes,
            last_memory: None,
            max_growth: 0,
            threads,
            encode_time: Arc::default(),
            failed: None,
        })
    }

    /// With one thread every column is encoded on the calling thread, before `write` returns;
    /// otherwise (the default: one per core) on the shared encoder threads.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        if let Some(compressing) = &self.page_compression {
            compressing.set_inline(self.threads == 1);
        }
        self
    }

    /// Hands `batch` to the column lanes and returns its completion; `None` for an empty batch.
    /// The batch's buffers stay referenced until the completion is done. First closes the row
    /// group if the batches before filled it (see the module docs). A failure of an earlier
    /// batch is reported here or by a later call.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<Option<Arc<BatchDone>>> {
        self.check_failures()?;
        if batch.num_rows() == 0 {
            return Ok(None);
        }
        self.settle_row_group()?;
        // (leaf, cost): the column's bytes shared by its leaves, to start the biggest first.
        let mut leaves: Vec<(ArrowLeafColumn, usize)> = Vec::new();
        for (field, array) in self.schema.fields().iter().zip(batch.columns()) {
            let column_leaves = compute_leaves(field, array).map_err(|e| {
                NativeError::parquet(format!("splitting column '{}'", field.name()), e)
            })?;
            let cost = array.get_array_memory_size() / column_leaves.len().max(1);
            leaves.extend(column_leaves.into_iter().map(|leaf| (leaf, cost)));
        }
        let inline = self.threads == 1;
        let lanes = self.open_lanes()?;
        let done = Arc::new(BatchDone::new(leaves.len()));
        let mut order: Vec<(&Arc<ColumnLane>, (ArrowLeafColumn, usize))> =
            lanes.iter().zip(leaves).collect();
        // Lanes start in the pool's queue order: the most expensive column first keeps it off
        // the critical path's tail (order between lanes never changes the bytes).
        order.sort_by_key(|(_, (_, cost))| std::cmp::Reverse(*cost));
        for (lane, (leaf, _)) in order {
            let work = Work {
                leaf,
                done: Arc::clone(&done),
            };
            lane.push(work, inline);
        }
        self.pending.push_back(Arc::clone(&done));
        Ok(Some(done))
    }

    /// Before another batch goes in: waits for what must be waited for, and closes the row
    /// group if the batches in it filled it.
    fn settle_row_group(&mut self) -> Result<()> {
        while self.pending.len() >= MAX_PENDING {
            if self.wait_oldest()? {
                return self.flush();
            }
        }
        let risky = match self.last_memory {
            None => true,
            Some(memory) => memory + 2 * self.max_growth >= self.row_group_bytes,
        };
        while risky && !self.pending.is_empty() {
            if self.wait_oldest()? {
                return self.flush();
            }
        }
        Ok(())
    }

    /// Waits for the oldest pending batch; true when the row group is full after it.
    fn wait_oldest(&mut self) -> Result<bool> {
        let done = self.pending.pop_front().expect("a pending batch");
        let memory = done.wait_compressed();
        self.check_failures()?;
        if let Some(before) = self.last_memory {
            self.max_growth = self.max_growth.max(memory.saturating_sub(before));
        }
        self.last_memory = Some(memory);
        Ok(memory >= self.row_group_bytes)
    }

    fn open_lanes(&mut self) -> Result<&Vec<Arc<ColumnLane>>> {
        if self.lanes.is_none() {
            let index = self.file.flushed_row_groups().len();
            let writers = self
                .factory
                .create_column_writers(index)
                .map_err(|e| NativeError::parquet("opening a row group", e))?;
            let mut compressed = self
                .page_compression
                .as_ref()
                .map(|factory| factory.take_created())
                .unwrap_or_default();
            self.lanes = Some(
                writers
                    .into_iter()
                    .enumerate()
                    .map(|(i, writer)| {
                        ColumnLane::new(
                            writer,
                            Arc::clone(&self.encode_time),
                            compressed.remove(&i),
                        )
                    })
                    .collect(),
            );
        }
        Ok(self.lanes.as_ref().expect("lanes opened above"))
    }

    /// Reports a lane's failure once; afterwards every call fails.
    fn check_failures(&mut self) -> Result<()> {
        if let Some(first) = &self.failed {
            return Err(NativeError::InvalidState(format!(
                "an earlier batch of this file failed to encode: {first}"
            )));
        }
        let failure = self.lanes.iter().flatten().find_map(|lane| {
            lane.lock()
                .failure
                .take()
                .or_else(|| lane.compressed.as_ref()?.take_failure())
        });
        match failure {
            Some(e) => {
                self.failed = Some(e.to_string());
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// Waits until every batch handed in is encoded.
    pub fn sync(&mut self) -> Result<()> {
        self.wait_idle();
        self.check_failures()
    }

    /// Waits until no lane holds a batch, reporting nothing (cleanup after a failure).
    pub fn wait_idle(&mut self) {
        while let Some(done) = self.pending.pop_front() {
            done.wait();
        }
    }

    /// Bytes written plus the estimated encoded size of the open row group, as of the batches
    /// encoded so far (does not wait for the others).
    pub fn estimated_length(&self) -> usize {
        self.file.bytes_written()
            + self
                .lanes
                .iter()
                .flatten()
                .map(|lane| lane.lock().estimated_bytes)
                .sum::<usize>()
    }

    /// Bytes the open row group's column writers hold (encoded pages, open page buffers,
    /// dictionaries), as of the batches encoded so far (does not wait for the others).
    pub fn row_group_memory(&self) -> usize {
        self.lanes
            .iter()
            .flatten()
            .map(|lane| lane.lock().memory)
            .sum()
    }

    /// Closes the open row group (if any) and appends it to the file.
    pub fn flush(&mut self) -> Result<()> {
        self.sync()?;
        let Some(lanes) = self.lanes.take() else {
            return Ok(());
        };
        let flushed = self.close_row_group(lanes);
        // Written or lost, the announced pages are done with.
        self.file.inner_mut().forget_expected_pages();
        if let Err(e) = &flushed {
            // The row group is lost, and with it the file: every later call says so.
            self.failed = Some(e.to_string());
        }
        flushed
    }

    /// Closes the lanes' column writers and appends their chunks as the next row group.
    fn close_row_group(&mut self, lanes: Vec<Arc<ColumnLane>>) -> Result<()> {
        self.last_memory = None;
        self.max_growth = 0;
        let compressed: Vec<Option<Arc<CompressedChunk>>> =
            lanes.iter().map(|lane| lane.compressed.clone()).collect();
        let columns = lanes
            .iter()
            .map(|lane| {
                lane.lock().writer.take().ok_or_else(|| {
                    NativeError::InvalidState("a column writer was lost to a failure".into())
                })
            })
            .collect::<Result<Vec<ArrowColumnWriter>>>()?;
        let threads = self.threads.min(columns.len()).max(1);
        let mut indexed: Vec<(usize, ArrowColumnWriter)> =
            columns.into_iter().enumerate().collect();
        let mut groups: Vec<Vec<(usize, ArrowColumnWriter)>> =
            (0..threads).map(|_| Vec::new()).collect();
        for (i, entry) in indexed.drain(..).enumerate() {
            groups[i % threads].push(entry);
        }
        // The caller closes one group; the others go to the shared encoder threads, never to
        // threads of their own: a checkpoint that closes a thousand files at once still runs a
        // bounded number of threads.
        let first = groups.remove(0);
        let (sender, receiver) = crossbeam_channel::bounded(groups.len());
        let others = groups.len();
        for group in groups {
            let sender = sender.clone();
            let encode_time = Arc::clone(&self.encode_time);
            pool::spawn(move || {
                let closed =
                    catch_unwind(AssertUnwindSafe(|| close_column_group(group, &encode_time)))
                        .unwrap_or_else(|payload| {
                            Err(NativeError::panicked(
                                "closing a column chunk",
                                payload.as_ref(),
                            ))
                        });
                // The caller may have returned on an earlier failure: nobody waits then.
                let _ = sender.send(closed);
            });
        }
        drop(sender);
        let mut chunks = close_column_group(first, &self.encode_time)?;
        for _ in 0..others {
            let closed = receiver.recv().map_err(|_| {
                NativeError::Panicked(
                    "an encoder thread stopped while closing a column chunk".into(),
                )
            })??;
            chunks.extend(closed);
        }
        chunks.sort_by_key(|(i, _)| *i);
        // Here, on the caller's thread, not in the closing groups: it waits for pool jobs.
        let mut own_pages = Vec::with_capacity(chunks.len());
        for (i, chunk) in &mut chunks {
            let finished = match &compressed[*i] {
                Some(pages) => pages.finish(chunk.close_mut()),
                None => Ok(None),
            };
            own_pages.push(finished?);
        }
        self.file
            .inner_mut()
            .expect_pages(&mut own_pages.iter().flatten().flat_map(ChunkPages::blobs));
        let mut row_group = self
            .file
            .next_row_group()
            .map_err(|e| NativeError::parquet("starting a row group", e))?;
        for ((_, chunk), pages) in chunks.into_iter().zip(own_pages) {
            match pages {
                // Compressed here with a dictionary page: spliced from here, dictionary first.
                Some(pages) => row_group.append_column(&pages, chunk.close().clone()),
                None => chunk.append_to_row_group(&mut row_group),
            }
            .map_err(|e| NativeError::parquet("appending a column chunk", e))?;
        }
        row_group
            .close()
            .map_err(|e| NativeError::parquet("closing a row group", e))?;
        Ok(())
    }

    /// Flushes the last row group and writes the footer.
    pub fn finish(&mut self) -> Result<ParquetMetaData> {
        self.flush()?;
        self.file
            .finish()
            .map_err(|e| NativeError::parquet("finishing the Parquet file", e))
    }

    /// Nanoseconds spent encoding this file's columns so far, summed over threads (complete once
    /// [`Self::finish`] returned: every lane and chunk close has finished by then).
    pub fn encode_nanos(&self) -> u64 {
        self.encode_time.nanos()
    }

    /// Bytes written to the sink so far (exact after [`Self::finish`]).
    pub fn bytes_written(&self) -> usize {
        self.file.bytes_written()
    }

    /// The sink, for draining encoded bytes.
    pub fn inner_mut(&mut self) -> &mut W {
        self.file.inner_mut()
    }
}

impl<W: Sink> Drop for ColumnParallelEncoder<W> {
    fn drop(&mut self) {
        // Lanes always finish their queues; wait, so no batch outlives its writer.
        self.wait_idle();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{ArrayRef, Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use parquet::file::properties::WriterProperties;

    use super::*;
    use crate::schema::{parquet_schema, FIELD_ID_KEY};

    fn field(name: &str, data_type: DataType, id: &str) -> Field {
        Field::new(name, data_type, false).with_metadata(std::collections::HashMap::from([(
            FIELD_ID_KEY.to_string(),
            id.to_string(),
        )]))
    }

    fn encoder(
        schema: &SchemaRef,
        row_group_bytes: usize,
        threads: usize,
    ) -> ColumnParallelEncoder<Vec<u8>> {
        encoder_with(
            schema,
            row_group_bytes,
            threads,
            WriterProperties::default(),
            true,
        )
    }

    fn encoder_with(
        schema: &SchemaRef,
        row_group_bytes: usize,
        threads: usize,
        properties: WriterProperties,
        own_compression: bool,
    ) -> ColumnParallelEncoder<Vec<u8>> {
        let descriptor = parquet_schema(schema).unwrap();
        ColumnParallelEncoder::try_new_with_own_compression(
            Vec::new(),
            Arc::clone(schema),
            &descriptor,
            properties,
            row_group_bytes,
            own_compression,
        )
        .unwrap()
        .with_threads(threads)
    }

    fn text_schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            field("a", DataType::Int64, "1"),
            field("b", DataType::Utf8, "2"),
            Field::new("d", DataType::Utf8, true).with_metadata(std::collections::HashMap::from([
                (FIELD_ID_KEY.to_string(), "4".to_string()),
            ])),
            field("c", DataType::Utf8, "3"),
            Field::new("e", DataType::Utf8, true).with_metadata(std::collections::HashMap::from([
                (FIELD_ID_KEY.to_string(), "5".to_string()),
            ])),
        ]))
    }

    /// Zstd 3 with page statistics; `b` and `d` (text) without a dictionary, so their pages are
    /// compressed on the pool when `own_compression`; `c` and `e` (all nulls) keep their
    /// dictionary, and `a`'s dictionary falls back to plain pages within each row group.
    fn text_properties() -> WriterProperties {
        use parquet::basic::{Compression, ZstdLevel};
        use parquet::file::properties::EnabledStatistics;
        use parquet::schema::types::ColumnPath;
        WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_data_page_size_limit(16 * 1024)
            .set_column_dictionary_enabled(ColumnPath::from("b"), false)
            .set_column_dictionary_enabled(ColumnPath::from("d"), false)
            .set_column_dictionary_page_size_limit(ColumnPath::from("a"), 4 * 1024)
            .build()
    }

    fn text_batch(schema: &SchemaRef, b: i64) -> RecordBatch {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(b * 5000..(b + 1) * 5000)),
            Arc::new(StringArray::from_iter_values((0..5000).map(|i| {
                format!(
                    "payload {}-{} {}",
                    i * 7919 % 10007,
                    b,
                    "xyzw".repeat((i % 23) as usize)
                )
            }))),
            Arc::new(StringArray::from_iter((0..5000).map(|i| {
                (i % 5 != 0).then(|| format!("note {}", (i * b) % 3001))
            }))),
            Arc::new(StringArray::from_iter_values(
                (0..5000).map(|i| format!("v{}", i % 37)),
            )),
            Arc::new(StringArray::from_iter((0..5000).map(|_| None::<&str>))),
        ];
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    }

    /// A file of text columns; checks whether the pool compressed its text pages.
    fn encode_text(threads: usize, row_group_bytes: usize, own_compression: bool) -> Vec<u8> {
        let schema = text_schema();
        let mut encoder = encoder_with(
            &schema,
            row_group_bytes,
            threads,
            text_properties(),
            own_compression,
        );
        assert_eq!(encoder.page_compression.is_some(), own_compression);
        for b in 0..12i64 {
            encoder.write(&text_batch(&schema, b)).unwrap();
            if b == 1 {
                encoder.flush().unwrap();
            }
        }
        encoder.finish().unwrap();
        std::mem::take(encoder.inner_mut())
    }

    fn encode(threads: usize, row_group_bytes: usize) -> Vec<u8> {
        let schema = Arc::new(Schema::new(vec![
            field("a", DataType::Int64, "1"),
            field("b", DataType::Utf8, "2"),
            field("c", DataType::Int64, "3"),
        ]));
        let mut encoder = encoder(&schema, row_group_bytes, threads);
        let mut completions = Vec::new();
        for b in 0..12i64 {
            let columns: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from_iter_values(b * 5000..(b + 1) * 5000)),
                Arc::new(StringArray::from_iter_values(
                    (0..5000).map(|i| format!("v{}-{}", i % 37, (i * b) % 1009)),
                )),
                Arc::new(Int64Array::from_iter_values((0..5000).map(|i| i % 11))),
            ];
            let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
            completions.extend(encoder.write(&batch).unwrap());
            if b == 1 {
                encoder.flush().unwrap();
            }
        }
        encoder.finish().unwrap();
        assert!(completions.iter().all(|done| done.is_done()));
        assert!(encoder.encode_nanos() > 0, "encode time is measured");
        std::mem::take(encoder.inner_mut())
    }

    fn row_groups(bytes: Vec<u8>) -> usize {
        parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(bytes))
            .map(|r| parquet::file::reader::FileReader::metadata(&r).num_row_groups())
            .unwrap()
    }

    #[test]
    fn a_panic_on_an_encoder_thread_is_reported_not_hung() {
        let schema = Arc::new(Schema::new(vec![field("a", DataType::Int64, "1")]));
        let mut encoder = encoder(&schema, usize::MAX, 2);
        let batch = |b: i64| {
            let column: ArrayRef = Arc::new(Int64Array::from_iter_values(b * 10..(b + 1) * 10));
            RecordBatch::try_new(schema.clone(), vec![column]).unwrap()
        };
        encoder.write(&batch(0)).unwrap();
        encoder.sync().unwrap();
        encoder.lanes.as_ref().unwrap()[0]
            .panic_next
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let done = encoder.write(&batch(1)).unwrap().unwrap();
        done.wait();
        let error = encoder.sync().unwrap_err();
        // A panic is an encoder failure (Java: NativeWriterException), not a misuse of the writer.
        assert!(matches!(error, NativeError::Panicked(_)), "{error:?}");
        let error = error.to_string();
        assert!(
            error.contains("native panic while encoding a column: injected encoder panic"),
            "{error}"
        );
        // The file cannot be finished any more, and says so.
        let later = encoder.write(&batch(2)).unwrap_err().to_string();
        assert!(
            later.contains("earlier batch")
                && later.contains("native panic while encoding a column: injected encoder panic"),
            "the later error names the first: {later}"
        );
        assert!(encoder.finish().is_err());
    }

    #[test]
    fn own_compression_writes_the_bytes_arrow_rs_writes() {
        for row_group_bytes in [usize::MAX, 96 * 1024] {
            let arrow_rs = encode_text(2, row_group_bytes, false);
            assert_eq!(arrow_rs, encode_text(2, row_group_bytes, true));
            assert_eq!(arrow_rs, encode_text(1, row_group_bytes, true));
        }
        // The text columns are written compressed, with several pages and row groups.
        let file = encode_text(2, 96 * 1024, true);
        let reader =
            parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
        let metadata = parquet::file::reader::FileReader::metadata(&reader);
        assert!(metadata.num_row_groups() > 3);
        let column = metadata.row_group(2).column(1);
        assert_eq!(
            column.compression(),
            parquet::basic::Compression::ZSTD(Default::default())
        );
        assert!(column.compressed_size() < column.uncompressed_size() / 2);
        // The dictionary columns, and `a`, whose dictionary falls back to plain pages.
        for (i, name) in [(0, "a"), (3, "c"), (4, "e")] {
            let column = metadata.row_group(2).column(i);
            assert_eq!(column.column_path().string(), name);
            let dictionary = column.dictionary_page_offset().expect("a dictionary page");
            assert!(column.data_page_offset() > dictionary);
        }
        let encodings = |i| {
            metadata
                .row_group(2)
                .column(i)
                .encodings()
                .collect::<Vec<_>>()
        };
        assert!(encodings(0).contains(&parquet::basic::Encoding::PLAIN));
        assert!(encodings(0).contains(&parquet::basic::Encoding::RLE_DICTIONARY));
        // Every row reads back.
        let mut rows = 0;
        for row in parquet::file::reader::FileReader::get_row_iter(&reader, None).unwrap() {
            row.unwrap();
            rows += 1;
        }
        assert_eq!(rows, 12 * 5000);
    }

    #[test]
    fn a_panic_in_a_compression_job_is_reported_not_hung() {
        let schema = text_schema();
        let mut encoder = encoder_with(&schema, usize::MAX, 2, text_properties(), true);
        encoder.write(&text_batch(&schema, 0)).unwrap();
        encoder.sync().unwrap();
        encoder.lanes.as_ref().unwrap()[1]
            .compressed
            .as_ref()
            .expect("column b is compressed on the pool")
            .panic_next
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let mut error = None;
        for b in 1..6 {
            if let Err(e) = encoder.write(&text_batch(&schema, b)) {
                error = Some(e);
                break;
            }
        }
        let error = match error {
            Some(e) => e,
            None => encoder.finish().unwrap_err(),
        };
        assert!(matches!(error, NativeError::Panicked(_)), "{error:?}");
        assert!(
            error
                .to_string()
                .contains("native panic while compressing a page: injected compression panic"),
            "{error}"
        );
        assert!(encoder.finish().is_err());
    }

    #[test]
    fn threads_do_not_change_the_bytes() {
        assert_eq!(encode(1, usize::MAX), encode(3, usize::MAX));
        // Cut by size: the decision reads exact sizes, so the same row groups either way.
        let small = 64 * 1024;
        let inline = encode(1, small);
        assert!(row_groups(inline.clone()) > 3);
        for _ in 0..5 {
            assert_eq!(inline, encode(2, small));
        }
        // Pages compressed on the pool: their sizes are waited for, never guessed.
        let inline = encode_text(1, small, true);
        assert!(row_groups(inline.clone()) > 3);
        for threads in [2, 3, 2] {
            assert_eq!(inline, encode_text(threads, small, true));
        }
    }
}
