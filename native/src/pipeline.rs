//! Encoding off the caller's thread, one batch in flight per writer.
//!
//! ```text
//!  JNI thread:  fill batch n (Java) ─ write(n) ─ fill batch n+1 ─ write(n+1) ─ ...
//!                                      │  wait for n-1, drop n-1 (Java release, this thread)
//!                                      └─► encoder pool: encode n ──────────►
//! ```
//!
//! While the encoder pool encodes batch *n*, the caller converts the next rows into its other
//! Arrow batch, so Java's row conversion and Rust's encoding run on two cores at once. The
//! caller's buffers are referenced by the in-flight batch, so the caller alternates between two
//! batches and reuses one only after the next `write` returned (which released it).
//!
//! Ownership rule: a pool thread never drops the last reference to Java memory. The job works on
//! a clone of the batch and drops it before reporting completion; the original stays here and
//! is dropped on the JNI thread once the job is known to be done. Pool threads never call JNI.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread;

use arrow::array::RecordBatch;
use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TryRecvError};

use crate::error::{NativeError, Result};
use crate::stats::FileSummary;
use crate::writer::NativeParquetWriter;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// The process-wide encoder threads (one per core, started on first use).
fn pool() -> &'static Sender<Job> {
    static POOL: OnceLock<Sender<Job>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (sender, receiver) = unbounded::<Job>();
        let threads = thread::available_parallelism()
            .map_or(2, |n| n.get())
            .max(2);
        for i in 0..threads {
            let jobs = receiver.clone();
            thread::Builder::new()
                .name(format!("frazil-encoder-{i}"))
                .spawn(move || {
                    for job in jobs {
                        job();
                    }
                })
                .expect("spawning a Frazil encoder thread");
        }
        sender
    })
}

/// A [`NativeParquetWriter`] whose batches are encoded on the encoder pool.
pub struct PipelinedWriter {
    writer: Arc<Mutex<NativeParquetWriter>>,
    in_flight: Option<(RecordBatch, Receiver<Result<()>>)>,
    /// A failure of a batch encoded in the background, reported by the next call.
    failure: Option<NativeError>,
    /// The last estimate taken while no batch was in flight.
    last_estimate: u64,
}

impl PipelinedWriter {
    pub fn new(writer: NativeParquetWriter) -> Self {
        Self {
            writer: Arc::new(Mutex::new(writer)),
            in_flight: None,
            failure: None,
            last_estimate: 0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, NativeParquetWriter> {
        // A panic in a job is reported through its channel; the writer is not used afterwards.
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The writer's Arrow schema.
    pub fn schema(&self) -> arrow::datatypes::SchemaRef {
        Arc::clone(self.lock().schema())
    }

    /// Hands `batch` to the encoder pool and returns the file's estimated length before it. With
    /// `wait`, returns only once the batch is encoded and released (callers that reuse their
    /// buffers right away).
    pub fn write(&mut self, batch: RecordBatch, wait: bool) -> Result<u64> {
        self.finish_in_flight()?;
        let estimated = self.estimated_length();
        let (done, result) = bounded(1);
        let writer = Arc::clone(&self.writer);
        let job_batch = batch.clone();
        let job: Job = Box::new(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let mut writer = writer.lock().unwrap_or_else(|p| p.into_inner());
                writer.write(&job_batch)
            }));
            // Drop this clone before reporting: the JNI thread must hold the last reference.
            drop(job_batch);
            let outcome = outcome.unwrap_or_else(|payload| {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic payload".into());
                Err(NativeError::InvalidState(format!(
                    "native panic while encoding a batch: {message}"
                )))
            });
            let _ = done.send(outcome);
        });
        self.in_flight = Some((batch, result));
        if pool().send(job).is_err() {
            return Err(NativeError::InvalidState("the encoder pool is gone".into()));
        }
        if wait {
            self.finish_in_flight()?;
            return Ok(self.estimated_length());
        }
        Ok(estimated)
    }

    /// Waits for the batch in flight, releases it here, and reports any background failure.
    fn finish_in_flight(&mut self) -> Result<()> {
        if let Some((batch, result)) = self.in_flight.take() {
            let outcome = result.recv().unwrap_or_else(|_| {
                Err(NativeError::InvalidState(
                    "an encoder thread stopped before finishing a batch".into(),
                ))
            });
            drop(batch);
            if let Err(e) = outcome {
                self.failure = Some(e);
            }
        }
        match self.failure.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// True when a batch is still being encoded (non-blocking; collects a finished one).
    fn busy(&mut self) -> bool {
        let finished = match &self.in_flight {
            None => return false,
            Some((_, result)) => match result.try_recv() {
                Ok(outcome) => Some(outcome),
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Disconnected) => Some(Err(NativeError::InvalidState(
                    "an encoder thread stopped before finishing a batch".into(),
                ))),
            },
        };
        if let Some(outcome) = finished {
            self.in_flight = None;
            if let Err(e) = outcome {
                self.failure = Some(e);
            }
        }
        false
    }

    /// Estimated file length, without waiting for a batch in flight (then it is the estimate
    /// from before that batch).
    pub fn estimated_length(&mut self) -> u64 {
        if !self.busy() {
            let estimate = self.lock().estimated_length();
            self.last_estimate = estimate;
        }
        self.last_estimate
    }

    /// Copies encoded bytes to `sink` (up to `max`), without waiting for a batch in flight.
    pub fn drain_with(
        &mut self,
        max: usize,
        sink: impl FnOnce(&[u8]) -> Result<()>,
    ) -> Result<usize> {
        if self.busy() {
            return Ok(0);
        }
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        let mut writer = self.lock();
        let chunk = writer.peek_output(max);
        let n = chunk.len();
        if n > 0 {
            sink(chunk)?;
            writer.consume_output(n);
        }
        Ok(n)
    }

    /// Waits for the last batch, then finishes the file.
    pub fn close(&mut self) -> Result<FileSummary> {
        self.finish_in_flight()?;
        Ok(self.lock().close()?.clone())
    }
}

impl Drop for PipelinedWriter {
    fn drop(&mut self) {
        // Never leave a job holding Java memory behind: wait for it, release here.
        let _ = self.finish_in_flight();
    }
}
