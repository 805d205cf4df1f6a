//! Reading Iceberg Parquet data files: arrow-rs decodes the column chunks Java fetched.
//!
//! ```text
//!  Java: footer bytes ──────────► NativeParquetReader::open   (footer parsed once per file)
//!        column chunks of one ──► FileRanges                  (byte ranges, no file access here)
//!        row group, projected
//!        start_row_group ───────► arrow-rs ParquetRecordBatchReader (projection mask, one row group)
//!        next_batch ◄── C Data ── StructArray of the projected leaves
//! ```
//!
//! Which row groups to read (the split, Iceberg's row-group filters) and which columns (Iceberg's
//! projection by field id, name mapping) is decided in Java with Iceberg's own code; this module
//! only decodes what it is told to, so the table semantics stay Iceberg's and this side stays a
//! file-format reader. The Arrow types are arrow-rs's defaults for the Parquet schema; an
//! embedded `ARROW:schema` (pyarrow, arrow-rs writers) is ignored, so every file of one Parquet
//! schema decodes to the same Arrow types.

pub mod ahead;
pub mod ranges;

use std::sync::Arc;

use arrow::array::StructArray;
use arrow::datatypes::{DataType, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{parquet_to_arrow_schema_by_columns, ProjectionMask};
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaDataReader;

use crate::error::{NativeError, Result};
use ahead::DecodeAhead;
use ranges::FileRanges;

/// Runs arrow-rs's decoder: some corrupt inputs make it panic (slice bounds, `unwrap` on
/// mismatched child lengths; found by `tests/mutated_files.rs`), which become a `Decode` error
/// here, so a corrupt file is a `NativeReaderException`, never a panic.
fn guarded<T>(context: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let text = crate::error::panic_text(payload.as_ref());
        std::mem::forget(payload);
        Err(NativeError::decode(
            context.to_string(),
            ParquetError::General(format!("the decoder panicked on corrupt data: {text}")),
        ))
    })
}

/// One open Parquet file: its parsed footer, the byte ranges fetched for the next row group, and
/// the decoder of the current one.
pub struct NativeParquetReader {
    metadata: ArrowReaderMetadata,
    file_length: u64,
    fetched: FileRanges,
    current: Option<DecodeAhead>,
    batch_size: usize,
}

impl NativeParquetReader {
    /// Parses the footer: `footer` is the Thrift `FileMetaData` (the bytes before the 8-byte tail).
    pub fn open(footer: &[u8], file_length: u64, batch_size: usize) -> Result<Self> {
        guarded("parsing the Parquet footer", || {
            Self::open_unguarded(footer, file_length, batch_size)
        })
    }

    fn open_unguarded(footer: &[u8], file_length: u64, batch_size: usize) -> Result<Self> {
        // The purge delay that keeps freed pages for the next batch and file (see the allocator):
        // without it every batch's buffers are faulted in and zeroed afresh.
        crate::allocator::configure();
        let parquet = ParquetMetaDataReader::decode_metadata(footer)
            .map_err(|e| NativeError::decode("parsing the Parquet footer", e))?;
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let metadata = ArrowReaderMetadata::try_new(Arc::new(parquet), options)
            .map_err(|e| NativeError::decode("mapping the Parquet schema to Arrow", e))?;
        Ok(NativeParquetReader {
            metadata,
            file_length,
            fetched: FileRanges::new(file_length),
            current: None,
            batch_size: batch_size.max(1),
        })
    }

    /// Number of row groups in the file.
    pub fn row_groups(&self) -> usize {
        self.metadata.metadata().num_row_groups()
    }

    /// Number of leaf columns in the file's Parquet schema.
    pub fn leaf_columns(&self) -> usize {
        self.metadata.parquet_schema().num_columns()
    }

    fn mask(&self, leaves: &[usize]) -> Result<ProjectionMask> {
        let columns = self.leaf_columns();
        if let Some(bad) = leaves.iter().find(|&&leaf| leaf >= columns) {
            return Err(NativeError::InvalidArgument(format!(
                "leaf column {bad} requested, the file has {columns}"
            )));
        }
        Ok(ProjectionMask::leaves(
            self.metadata.parquet_schema(),
            leaves.iter().copied(),
        ))
    }

    /// The Arrow schema of the batches [`Self::next_batch`] returns for `leaves`.
    pub fn projected_schema(&self, leaves: &[usize]) -> Result<SchemaRef> {
        let schema: Schema = parquet_to_arrow_schema_by_columns(
            self.metadata.parquet_schema(),
            self.mask(leaves)?,
            None,
        )
        .map_err(|e| NativeError::decode("mapping the projected columns to Arrow", e))?;
        Ok(Arc::new(schema))
    }

    /// The byte ranges for the next row group are fetched into this, replacing the last ones.
    pub fn fetched_mut(&mut self) -> &mut FileRanges {
        &mut self.fetched
    }

    /// Starts decoding `row_group`'s `leaves` from the ranges fetched since the last call; the
    /// ranges are handed to the decoder and freed when the row group is done.
    pub fn start_row_group(&mut self, row_group: usize, leaves: &[usize]) -> Result<()> {
        self.current = None;
        if row_group >= self.row_groups() {
            return Err(NativeError::InvalidArgument(format!(
                "row group {row_group} requested, the file has {}",
                self.row_groups()
            )));
        }
        let mask = self.mask(leaves)?;
        let ranges = std::mem::replace(&mut self.fetched, FileRanges::new(self.file_length));
        let (metadata, batch_size) = (self.metadata.clone(), self.batch_size);
        let reader = guarded("opening a row group", || {
            ParquetRecordBatchReaderBuilder::new_with_metadata(ranges, metadata)
                .with_projection(mask)
                .with_row_groups(vec![row_group])
                .with_batch_size(batch_size)
                .build()
                .map_err(|e| NativeError::decode(format!("opening row group {row_group}"), e))
        })?;
        self.current = Some(DecodeAhead::start(reader));
        Ok(())
    }

    /// The next batch of the current row group as one struct array, or `None` once it is done
    /// (the row group's bytes are freed then). With decode-ahead on (see [`ahead`]), the batch
    /// after it is being decoded on a pool thread when this returns.
    pub fn next_batch(&mut self) -> Result<Option<StructArray>> {
        let Some(decoder) = self.current.as_mut() else {
            return Err(NativeError::InvalidState(
                "no row group is being read".into(),
            ));
        };
        match decoder.next_batch() {
            Ok(Some(batch)) => Ok(Some(batch)),
            done_or_failed => {
                // Done, or failed mid-batch (the decoder's state is then unknown): drop it.
                self.current = None;
                done_or_failed
            }
        }
    }
}

/// The struct type a projected schema's batches are exported as.
pub fn batch_type(schema: &Schema) -> DataType {
    DataType::Struct(schema.fields().clone())
}
