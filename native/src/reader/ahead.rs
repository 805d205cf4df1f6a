//! Decode-ahead: the next batch of a row group is decoded on a pool thread while Java consumes
//! the current one.
//!
//! ```text
//!  Java thread:  next() ─ wait ─► batch n ── copy into heap vectors, rows to Flink ── next() ─►
//!  pool thread:         decode n ┘└─ decode n+1 (runs while Java works on n) ─────────┘
//! ```
//!
//! The decoder itself moves: a job takes it, decodes one batch and hands both back over a
//! one-shot channel, and the next job is only started once the consumer took that batch. So at
//! most one batch is decoded ahead, one decoder exists at a time, and no lock is needed. A
//! decoder error or panic is handed back like a batch and surfaces on the consuming thread (Java
//! names the file). Dropping a [`DecodeAhead`] (close, cancel, failure) waits for the job in
//! flight, so the row group's bytes and the batch decoded ahead are freed before close returns.
//!
//! Jobs run on the shared pool ([`crate::pool`]). Off unless `FRAZIL_DECODE_AHEAD=1`: measured on
//! bid 2M scans it takes the decode off the reading thread but costs a quarter more process CPU
//! (hand-offs, batches read from another core's cache, pool threads faulting memory in again),
//! and a Flink source already overlaps reading with the task through its split fetcher thread.
//! Its gain is wall time on idle cores only, so it stays a switch.

use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::OnceLock;

use arrow::array::StructArray;
use parquet::arrow::arrow_reader::ParquetRecordBatchReader;
use parquet::errors::ParquetError;

use crate::error::{NativeError, Result};

/// What one decode step gives back: the decoder (unless the step failed or it is done) and the
/// batch, `None` once the row group is done.
type Step = (
    Option<ParquetRecordBatchReader>,
    Result<Option<StructArray>>,
);

/// Whether batches are decoded ahead on the pool: only with `FRAZIL_DECODE_AHEAD=1` (or `true`);
/// read once per process.
pub fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        matches!(
            std::env::var("FRAZIL_DECODE_AHEAD")
                .ok()
                .as_deref()
                .map(str::trim),
            Some("1") | Some("true")
        )
    })
}

/// Decodes one batch; a panic of arrow-rs's decoder on corrupt data becomes an error and the
/// decoder, whose state is then unknown, is dropped.
fn step(mut reader: ParquetRecordBatchReader) -> Step {
    let next = super::guarded("decoding a batch", || {
        Ok(reader.next().map(|batch| batch.map(StructArray::from)))
    });
    match next {
        Ok(Some(Ok(batch))) => (Some(reader), Ok(Some(batch))),
        Ok(Some(Err(e))) => (
            None,
            Err(NativeError::decode(
                "decoding a batch",
                ParquetError::ArrowError(e.to_string()),
            )),
        ),
        Ok(None) => (None, Ok(None)),
        Err(e) => (None, Err(e)),
    }
}

/// The decoder of one row group, with the decoding of its next batch possibly in flight.
pub struct DecodeAhead {
    /// Decoding on the calling thread: the decoder waits here between batches.
    inline: Option<ParquetRecordBatchReader>,
    /// Decoding ahead: the job decoding the next batch hands it back here.
    in_flight: Option<Receiver<Step>>,
}

impl DecodeAhead {
    /// Starts decoding `reader`'s first batch (on the pool when decode-ahead is on).
    pub fn start(reader: ParquetRecordBatchReader) -> Self {
        Self::start_with(reader, enabled())
    }

    /// [`Self::start`] with decode-ahead chosen by the caller (tests of both ways); the choice
    /// holds for the whole row group.
    pub fn start_with(reader: ParquetRecordBatchReader, ahead: bool) -> Self {
        if ahead {
            DecodeAhead {
                inline: None,
                in_flight: Some(spawn(reader)),
            }
        } else {
            DecodeAhead {
                inline: Some(reader),
                in_flight: None,
            }
        }
    }

    /// The next batch, `None` once the row group is done; after `None` or an error the decoder is
    /// gone and every later call returns `None`. Decoding ahead, the batch after it is started
    /// before this one is returned.
    pub fn next_batch(&mut self) -> Result<Option<StructArray>> {
        if let Some(reader) = self.inline.take() {
            let (reader, batch) = step(reader);
            self.inline = reader;
            return batch;
        }
        let Some(job) = self.in_flight.take() else {
            return Ok(None);
        };
        let (reader, batch) = job.recv().unwrap_or_else(|_| {
            (
                None,
                Err(NativeError::InvalidState(
                    "the decode-ahead job ended without a batch".into(),
                )),
            )
        });
        self.in_flight = reader.map(spawn);
        batch
    }

    /// Whether the decoding of a batch is in flight on the pool (tests).
    pub fn in_flight(&self) -> bool {
        self.in_flight.is_some()
    }
}

fn spawn(reader: ParquetRecordBatchReader) -> Receiver<Step> {
    let (done, result) = sync_channel(1);
    crate::pool::spawn(move || {
        // The receiver may be gone (the reader was dropped meanwhile): the batch is dropped.
        let _ = done.send(step(reader));
    });
    result
}

impl Drop for DecodeAhead {
    fn drop(&mut self) {
        // Wait for the job in flight so its batch and the decoder's buffers are freed now, on
        // close, not later on a pool thread.
        if let Some(job) = self.in_flight.take() {
            drop(job.recv());
        }
    }
}
