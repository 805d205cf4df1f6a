//! Encoding behind the caller, with a bounded number of its batches in flight.
//!
//! ```text
//!  JNI thread:  fill batch n (Java) ─ write(n, keep 2) ─ fill n+1 ─ write(n+1, keep 2) ─ ...
//!                                      │  n-1 may still be encoding; n-2 is waited for and
//!                                      │  dropped (released to Java) on this thread
//!                                      └─► column lanes on the encoder threads (crate::encoder)
//! ```
//!
//! The caller converts its next rows while the encoder threads work on the batches it handed
//! in, so it owns `keep + 1` batches and refills one only after the `write` that released it.
//!
//! Ownership rule: an encoder thread never drops the last reference to Java memory. Lanes drop
//! their slices of a batch before reporting it done; the imported batch itself stays here and is
//! dropped on the JNI thread once its completion is done. Encoder threads never call JNI.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow::array::RecordBatch;

use crate::encoder::BatchDone;
use crate::error::Result;
use crate::stats::FileSummary;
use crate::writer::NativeParquetWriter;

/// A [`NativeParquetWriter`] that keeps the caller's batches until they are encoded.
pub struct PipelinedWriter {
    writer: NativeParquetWriter,
    in_flight: VecDeque<(RecordBatch, Arc<BatchDone>)>,
}

impl PipelinedWriter {
    pub fn new(writer: NativeParquetWriter) -> Self {
        Self {
            writer,
            in_flight: VecDeque::new(),
        }
    }

    /// The writer's Arrow schema.
    pub fn schema(&self) -> arrow::datatypes::SchemaRef {
        Arc::clone(self.writer.schema())
    }

    /// Hands `batch` to the encoder and returns the file's estimated length before it. Returns
    /// once at most `keep` of the caller's batches (this one included) are still referenced;
    /// with `keep == 0`, once this one is encoded and released, and the estimate includes it.
    pub fn write(&mut self, batch: RecordBatch, keep: usize) -> Result<u64> {
        let estimated = self.writer.estimated_length();
        let outcome = self.writer.write_pipelined(&batch);
        match &outcome {
            Ok(Some(done)) => self.in_flight.push_back((batch, Arc::clone(done))),
            // Not referenced (copied or empty): release it now.
            Ok(None) => drop(batch),
            // Lanes may still hold slices of it: release it only once they are idle.
            Err(_) => {
                self.writer.wait_idle();
                drop(batch);
            }
        }
        self.release_beyond(keep);
        outcome?;
        if keep == 0 {
            return Ok(self.writer.estimated_length());
        }
        Ok(estimated)
    }

    /// Waits for the oldest batches until at most `keep` are in flight, releasing them here.
    fn release_beyond(&mut self, keep: usize) {
        while self.in_flight.len() > keep {
            let (batch, done) = self.in_flight.pop_front().expect("in flight");
            done.wait();
            drop(batch);
        }
    }

    /// Releases the caller's batches that are already encoded, oldest first, without waiting,
    /// and returns how many are still in use: the caller may refill all but that many of its
    /// most recent batches instead of allocating another.
    pub fn release_encoded(&mut self) -> usize {
        while self
            .in_flight
            .front()
            .is_some_and(|(_, done)| done.is_done())
        {
            let (batch, _) = self.in_flight.pop_front().expect("in flight");
            drop(batch);
        }
        self.in_flight.len()
    }

    /// Closes the open row group early (see [`NativeParquetWriter::flush_row_group`]) and
    /// releases every batch in flight: afterwards the caller's batches are all free to reuse or
    /// release, and the encoded bytes are pending output.
    pub fn flush_row_group(&mut self) -> Result<()> {
        let flushed = self.writer.flush_row_group();
        if flushed.is_err() {
            self.writer.wait_idle();
        }
        self.release_beyond(0);
        flushed
    }

    /// Bytes of memory the file holds now (see [`NativeParquetWriter::held_bytes`]).
    pub fn held_bytes(&mut self) -> u64 {
        self.writer.held_bytes()
    }

    /// Estimated file length as of the batches encoded so far (does not wait).
    pub fn estimated_length(&self) -> u64 {
        self.writer.estimated_length()
    }

    /// Copies encoded bytes to `sink` (up to `max`). Encoded bytes reach the output only when a
    /// row group closes, on this thread, so nothing needs to be waited for.
    pub fn drain_with(
        &mut self,
        max: usize,
        sink: impl FnOnce(&[u8]) -> Result<()>,
    ) -> Result<usize> {
        let chunk = self.writer.peek_output(max);
        let n = chunk.len();
        if n > 0 {
            sink(chunk)?;
            self.writer.consume_output(n);
        }
        Ok(n)
    }

    /// Waits for every batch, then finishes the file.
    pub fn close(&mut self) -> Result<FileSummary> {
        let summary = self.writer.close().cloned();
        self.release_beyond(0);
        summary
    }
}

impl Drop for PipelinedWriter {
    fn drop(&mut self) {
        // Never leave a lane holding Java memory behind: wait for it, release here.
        self.release_beyond(0);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::ptr::NonNull;
    use std::sync::Mutex;
    use std::thread::{self, ThreadId};

    use arrow::array::{ArrayRef, Int64Array, StringArray};
    use arrow::buffer::{Buffer, ScalarBuffer};
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;
    use crate::options::WriterOptions;
    use crate::schema::FIELD_ID_KEY;

    /// Memory standing in for Java's: records the thread that frees it.
    struct Tracked {
        values: Vec<i64>,
        frees: Arc<Mutex<Vec<ThreadId>>>,
    }

    impl Drop for Tracked {
        fn drop(&mut self) {
            self.frees.lock().unwrap().push(thread::current().id());
        }
    }

    fn tracked_column(values: Vec<i64>, frees: &Arc<Mutex<Vec<ThreadId>>>) -> ArrayRef {
        let owner = Arc::new(Tracked {
            values,
            frees: Arc::clone(frees),
        });
        let len = owner.values.len() * std::mem::size_of::<i64>();
        let ptr = NonNull::new(owner.values.as_ptr() as *mut u8).unwrap();
        // SAFETY: `owner` keeps the vector alive and unmodified as long as the buffer exists.
        let buffer = unsafe { Buffer::from_custom_allocation(ptr, len, owner) };
        let count = len / std::mem::size_of::<i64>();
        Arc::new(Int64Array::new(ScalarBuffer::new(buffer, 0, count), None))
    }

    fn field(name: &str, data_type: DataType, id: i32) -> Field {
        Field::new(name, data_type, false)
            .with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
    }

    #[test]
    fn the_callers_thread_frees_every_batch() {
        let schema = Arc::new(Schema::new(vec![
            field("id", DataType::Int64, 1),
            field("note", DataType::Utf8, 2),
        ]));
        let frees = Arc::new(Mutex::new(Vec::new()));
        // Small row groups, so some close while batches are in flight.
        let options = WriterOptions::from_properties(HashMap::from([(
            "write.parquet.row-group-size-bytes".to_string(),
            "300000".to_string(),
        )]));
        let writer = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        let mut pipelined = PipelinedWriter::new(writer);
        let batches = 60;
        for b in 0..batches {
            let ids: Vec<i64> = (b * 5000..(b + 1) * 5000).collect();
            let notes = StringArray::from_iter_values(ids.iter().map(|i| format!("note {i}")));
            let columns = vec![tracked_column(ids, &frees), Arc::new(notes) as ArrayRef];
            let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
            pipelined.write(batch, 2).unwrap();
            assert!(pipelined.in_flight.len() <= 2);
            if b % 7 == 0 {
                // Once the encoder is idle, every batch is released without waiting.
                pipelined.writer.wait_idle();
                assert_eq!(
                    pipelined.release_encoded(),
                    0,
                    "an idle encoder holds no batch"
                );
                assert_eq!(frees.lock().unwrap().len(), b as usize + 1);
            }
        }
        let summary = pipelined.close().unwrap();
        assert_eq!(summary.record_count, batches * 5000);
        assert!(summary.split_offsets.len() > 3);
        drop(pipelined);
        let frees = frees.lock().unwrap();
        assert_eq!(frees.len(), batches as usize);
        assert!(frees.iter().all(|id| *id == thread::current().id()));
    }
}
