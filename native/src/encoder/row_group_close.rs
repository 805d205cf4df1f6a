//! A row group's close: its column writers closed into chunks on the encoder threads, then
//! spliced into the file in column order on the caller's thread.
//!
//! Closing a column writer flushes its last page and, with a dictionary, writes the dictionary
//! page (Zstd work on large chunks): the writers are closed in groups, one per encoder thread,
//! the caller closing one group itself. Then, on the caller's thread only (it waits for pool
//! jobs), the chunks whose pages Frazil compressed get their final metadata
//! ([`crate::page_compression`]) and every chunk is appended to the row group in column order.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter};
use parquet::file::writer::SerializedFileWriter;

use super::encode_time::EncodeTime;
use super::lane::ColumnLane;
use super::Sink;
use crate::error::{NativeError, Result};
use crate::page_compression::CompressedChunk;
use crate::pool;

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

/// Closes the lanes' column writers, on up to `threads` threads, and appends their chunks to
/// `file` as its next row group.
pub(super) fn close_row_group<W: Sink>(
    file: &mut SerializedFileWriter<W>,
    lanes: Vec<Arc<ColumnLane>>,
    threads: usize,
    encode_time: &Arc<EncodeTime>,
) -> Result<()> {
    let compressed: Vec<Option<Arc<CompressedChunk>>> = lanes
        .iter()
        .map(|lane| lane.compressed().cloned())
        .collect();
    let columns = lanes
        .iter()
        .map(|lane| {
            lane.take_writer().ok_or_else(|| {
                NativeError::InvalidState("a column writer was lost to a failure".into())
            })
        })
        .collect::<Result<Vec<ArrowColumnWriter>>>()?;
    let threads = threads.min(columns.len()).max(1);
    let mut indexed: Vec<(usize, ArrowColumnWriter)> = columns.into_iter().enumerate().collect();
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
        let encode_time = Arc::clone(encode_time);
        pool::spawn(move || {
            let closed = catch_unwind(AssertUnwindSafe(|| close_column_group(group, &encode_time)))
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
    let mut chunks = close_column_group(first, encode_time)?;
    for _ in 0..others {
        let closed = receiver.recv().map_err(|_| {
            NativeError::Panicked("an encoder thread stopped while closing a column chunk".into())
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
    let announcer = file.inner_mut().page_announcer();
    let mut row_group = file
        .next_row_group()
        .map_err(|e| NativeError::parquet("starting a row group", e))?;
    for ((_, chunk), pages) in chunks.into_iter().zip(own_pages) {
        match pages {
            // Compressed here with a dictionary page: spliced from here, dictionary first, its
            // pages announced to the sink just before (a page store announces its own pages).
            Some(pages) => {
                if let Some(announcer) = &announcer {
                    announcer.expect(&mut pages.blobs());
                }
                row_group.append_column(&pages, chunk.close().clone())
            }
            None => chunk.append_to_row_group(&mut row_group),
        }
        .map_err(|e| NativeError::parquet("appending a column chunk", e))?;
    }
    row_group
        .close()
        .map_err(|e| NativeError::parquet("closing a row group", e))?;
    Ok(())
}
