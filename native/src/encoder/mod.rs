//! Row groups encoded column by column on the encoder threads, with no barrier between batches:
//! [`ColumnParallelEncoder`] hands each batch's columns to their lanes and decides, from exact
//! sizes only, when the open row group is full.
//!
//! * [`lane`] — one column's queue of batch slices, drained in order on the pool; a batch's
//!   completion across the lanes ([`BatchDone`]).
//! * [`row_group_close`] — a full row group's column writers closed on the pool and spliced into
//!   the file.
//! * [`encode_time`] — the encode time a file reports, summed over threads.
//!
//! Each leaf column of the open row group is a lane: its arrow-rs column writer plus a queue of
//! that column's slices of the batches handed in. Lanes encode on the shared encoder threads
//! ([`crate::pool`]), so a column's pages are exactly those of a single-threaded write, while
//! different columns, and different batches of different columns, are encoded at once. That
//! matters because one column usually dominates (a free-text field can be three quarters of the
//! work): with a barrier per batch, the other columns, the caller's conversion of the next rows
//! and the big column took turns; without it the big column keeps a core busy and everything
//! else shares the other.
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

mod encode_time;
mod lane;
mod row_group_close;

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;

use arrow::array::{Array, RecordBatch};
use arrow::datatypes::SchemaRef;
use bytes::Bytes;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowLeafColumn, ArrowRowGroupWriterFactory, InMemoryPageStoreFactory,
    PageStoreFactory,
};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;

use self::encode_time::EncodeTime;
pub use self::lane::BatchDone;
use self::lane::{ColumnLane, Work};
use crate::error::{NativeError, Result};
use crate::page_compression::{self, OwnCompressionPageStoreFactory};
use crate::pool;

/// Batches the lanes may hold at once, per file: the slowest column may lag the caller by one
/// batch while the caller fills the next.
pub const MAX_PENDING: usize = 2;

/// Where an encoder's bytes go.
pub trait Sink: Write + Send {
    /// Where the column writers should keep their finished pages, when the sink can take them
    /// over without copying (see [`crate::output`]); arrow-rs's in-memory store otherwise.
    fn page_store_factory(&mut self) -> Option<Arc<dyn PageStoreFactory>> {
        None
    }

    /// Where to announce pages about to be written through a splice that copies them in small
    /// pieces, when the sink can keep those pages instead of copying them (see [`crate::output`]).
    fn page_announcer(&mut self) -> Option<Box<dyn PageAnnouncer>> {
        None
    }

    /// The pages announced to [`Self::page_announcer`] are written, or will not be.
    fn forget_expected_pages(&mut self) {}
}

/// Tells a [`Sink`] which pages are written to it next.
pub trait PageAnnouncer {
    /// `pages` are written next, in this order.
    fn expect(&self, pages: &mut dyn Iterator<Item = &Bytes>);
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
        let failure = self
            .lanes
            .iter()
            .flatten()
            .find_map(|lane| lane.take_failure());
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
                .map(|lane| lane.estimated_bytes())
                .sum::<usize>()
    }

    /// Bytes the open row group's column writers hold (encoded pages, open page buffers,
    /// dictionaries), as of the batches encoded so far (does not wait for the others).
    pub fn row_group_memory(&self) -> usize {
        self.lanes.iter().flatten().map(|lane| lane.memory()).sum()
    }

    /// Closes the open row group (if any) and appends it to the file.
    pub fn flush(&mut self) -> Result<()> {
        self.sync()?;
        let Some(lanes) = self.lanes.take() else {
            return Ok(());
        };
        self.last_memory = None;
        self.max_growth = 0;
        let flushed = row_group_close::close_row_group(
            &mut self.file,
            lanes,
            self.threads,
            &self.encode_time,
        );
        // Written or lost, the announced pages are done with.
        self.file.inner_mut().forget_expected_pages();
        if let Err(e) = &flushed {
            // The row group is lost, and with it the file: every later call says so.
            self.failed = Some(e.to_string());
        }
        flushed
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
mod tests;
