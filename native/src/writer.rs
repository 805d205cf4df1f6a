//! [`NativeParquetWriter`]: one Iceberg Parquet data file, encoded into memory and handed to
//! the caller in chunks.
//!
//! The writer never opens the destination. Encoded bytes collect in an [`OutputBuffer`] that
//! the caller drains ([`NativeParquetWriter::drain`]) into whatever stream it owns; on the JVM
//! that is Iceberg's `OutputFile`, so every FileIO and stream encryption keep working.
//!
//! ```
//! # use std::sync::Arc;
//! # use std::collections::HashMap;
//! # use arrow::array::{Int64Array, RecordBatch};
//! # use arrow::datatypes::{DataType, Field, Schema};
//! # use frazil::options::WriterOptions;
//! # use frazil::writer::NativeParquetWriter;
//! let id = Field::new("id", DataType::Int64, false)
//!     .with_metadata(HashMap::from([("PARQUET:field_id".into(), "1".into())]));
//! let schema = Arc::new(Schema::new(vec![id]));
//! let mut writer = NativeParquetWriter::try_new(schema.clone(), &WriterOptions::from_properties(HashMap::new()))?;
//! let batch = RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![1, 2, 3]))])?;
//! writer.write(&batch)?;
//! let summary = writer.close()?.clone();
//! let mut file = Vec::new();
//! let mut chunk = [0u8; 4096];
//! loop {
//!     let n = writer.drain(&mut chunk);
//!     if n == 0 { break; }
//!     file.extend_from_slice(&chunk[..n]);
//! }
//! assert_eq!(summary.record_count, 3);
//! assert_eq!(summary.file_size as usize, file.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Decimal128Type, SchemaRef};

use parquet::schema::types::{ColumnPath, SchemaDescriptor};

use crate::encoder::{BatchDone, ColumnParallelEncoder};
use crate::error::{NativeError, Result};
use crate::first_page::FirstPage;
use crate::options::WriterOptions;
use crate::output::OutputBuffer;
use crate::schema::parquet_schema;
use crate::stats::{summarize, FileSummary, FloatTracker};

/// Rejects decimal values with more digits than their column's precision: the encoder would
/// otherwise cut them to the Parquet width and store a different number.
fn check_decimal_precision(name: &str, array: &dyn Array) -> Result<()> {
    match array.data_type() {
        DataType::Decimal128(precision, _) => array
            .as_primitive::<Decimal128Type>()
            .validate_decimal_precision(*precision)
            .map_err(|e| NativeError::InvalidArgument(format!("column '{name}': {e}"))),
        DataType::Struct(fields) => {
            let array = array.as_struct();
            for (field, child) in fields.iter().zip(array.columns()) {
                check_decimal_precision(&format!("{name}.{}", field.name()), child.as_ref())?;
            }
            Ok(())
        }
        DataType::List(_) => {
            check_decimal_precision(&format!("{name}.element"), array.as_list::<i32>().values())
        }
        DataType::Map(_, _) => {
            let entries = array.as_map().entries();
            check_decimal_precision(&format!("{name}.value"), entries.column(1).as_ref())
        }
        _ => Ok(()),
    }
}

/// Encodes one Iceberg Parquet data file from Arrow batches.
pub struct NativeParquetWriter {
    schema: SchemaRef,
    descriptor: SchemaDescriptor,
    options: WriterOptions,
    /// Created once the first page's worth of rows is known, which decides the dictionary
    /// columns (see [`crate::dictionary`]).
    writer: Option<ColumnParallelEncoder<OutputBuffer>>,
    /// The rows seen before the writer exists (at most one page of them).
    first_page: FirstPage,
    /// The first page ends at this many rows or when one column holds `decision_bytes`.
    decision_rows: usize,
    decision_bytes: usize,
    row_group_bytes: usize,
    floats: Option<FloatTracker>,
    summary: Option<FileSummary>,
}

impl NativeParquetWriter {
    /// Creates a writer for `schema`, whose fields carry Iceberg field ids (see
    /// [`crate::schema`]), with settings from `options`.
    pub fn try_new(schema: SchemaRef, options: &WriterOptions) -> Result<Self> {
        crate::allocator::configure();
        let descriptor = parquet_schema(&schema)?;
        // Validate every setting now, so a bad property fails at open, not at the first batch.
        options.to_writer_properties(&descriptor, &[])?;
        Ok(Self {
            floats: Some(FloatTracker::new(&schema)),
            schema,
            descriptor,
            options: options.clone(),
            writer: None,
            first_page: FirstPage::default(),
            decision_rows: options.page_row_limit()?,
            decision_bytes: options.page_size_bytes()?,
            row_group_bytes: options.row_group_bytes()?,
            summary: None,
        })
    }

    /// The arrow-rs writer, created on first use with the dictionary switched off for
    /// `no_dictionary` (decided from the first page).
    fn writer(
        &mut self,
        no_dictionary: &[ColumnPath],
    ) -> Result<&mut ColumnParallelEncoder<OutputBuffer>> {
        if self.writer.is_none() {
            let properties = self
                .options
                .to_writer_properties(&self.descriptor, no_dictionary)?;
            let writer = ColumnParallelEncoder::try_new(
                OutputBuffer::default(),
                Arc::clone(&self.schema),
                &self.descriptor,
                properties,
                self.row_group_bytes,
            )?;
            self.writer = Some(writer);
        }
        Ok(self.writer.as_mut().expect("writer created above"))
    }

    /// The Arrow schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Encodes `batch`; nothing of it is referenced after this returns, so the caller may reuse
    /// or release its buffers.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if let Some(done) = self.write_pipelined(batch)? {
            done.wait();
        }
        Ok(())
    }

    /// Hands `batch` to the encoder and returns while it may still be encoding: its buffers stay
    /// referenced until the returned completion is done (`None`: nothing of it is referenced).
    /// A failure while encoding it is reported by a later call.
    pub fn write_pipelined(&mut self, batch: &RecordBatch) -> Result<Option<Arc<BatchDone>>> {
        self.ensure_open("write")?;
        if batch.schema().fields() != self.schema.fields() {
            return Err(NativeError::InvalidArgument(format!(
                "batch schema does not match the writer's: expected {:?}, got {:?}",
                self.schema.fields(),
                batch.schema().fields()
            )));
        }
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            check_decimal_precision(field.name(), column.as_ref())?;
        }
        if let Some(floats) = self.floats.as_mut() {
            floats.observe(batch.columns());
        }
        if let Some(writer) = self.writer.as_mut() {
            return writer.write(batch);
        }
        // Until a page's worth of rows is in, hold them (the caller's buffers are released when
        // this returns), then choose the dictionary columns from all of them. Like
        // parquet-java's first page, that is page-row-limit rows or, sooner, page-size bytes in
        // one column: wide rows are then held for a page, not for thousands of rows, and most
        // files are encoded while rows arrive instead of at close.
        self.first_page.take(batch)?;
        if self.first_page.rows() >= self.decision_rows
            || self.first_page.widest_leaf_bytes() >= self.decision_bytes
        {
            self.flush_first_rows()?;
        }
        Ok(None)
    }

    /// Waits until the encoder holds no batch (after a failed call, before releasing the batch).
    pub fn wait_idle(&mut self) {
        if let Some(writer) = self.writer.as_mut() {
            writer.wait_idle();
        }
    }

    /// Creates the writer from the first rows and encodes them, in the batches they came in so
    /// row groups are still cut by size as usual. One batch at a time is rebuilt in plain form:
    /// a whole plain copy would double the first page's memory just as every open file reaches
    /// it.
    fn flush_first_rows(&mut self) -> Result<()> {
        let first_page = std::mem::take(&mut self.first_page);
        let no_dictionary = first_page.columns_without_dictionary_benefit();
        let writer = self.writer(&no_dictionary)?;
        for batch in first_page.into_batches() {
            writer.write(&batch?)?;
        }
        Ok(())
    }

    /// Bytes the file will have if closed now: written plus the estimated size of the open row
    /// group (before the writer exists, the plain size of the rows held). Exact once closed.
    pub fn estimated_length(&self) -> u64 {
        match self.writer.as_ref() {
            Some(w) => w.estimated_length() as u64,
            None => self.first_page.plain_bytes() as u64,
        }
    }

    /// Bytes of memory this file holds now: the first page's rows before the encoder exists,
    /// the open row group's column writers, and the output buffer. As of the batches encoded so
    /// far (batches still in flight are the caller's memory).
    pub fn held_bytes(&mut self) -> u64 {
        let first_rows = self.first_page.memory_size();
        let encoder = self
            .writer
            .as_mut()
            .map_or(0, |w| w.row_group_memory() + w.inner_mut().capacity());
        (first_rows + encoder) as u64
    }

    /// Closes the open row group now, smaller than its size limit, so the memory it holds can be
    /// returned once its bytes are drained: how a memory budget sheds a file's buffers without
    /// failing a write. Waits for the batches in flight. The file stays valid and its metrics
    /// exact (every row group carries its own statistics and offset); nothing happens when no
    /// row is buffered.
    pub fn flush_row_group(&mut self) -> Result<()> {
        self.ensure_open("flush a row group")?;
        if self.writer.is_none() {
            if self.first_page.is_empty() {
                return Ok(());
            }
            // The dictionary decision is taken from the rows there are.
            self.flush_first_rows()?;
        }
        self.writer(&[])?.flush()
    }

    /// Moves up to `dst.len()` encoded bytes into `dst`; 0 means nothing is pending.
    pub fn drain(&mut self, dst: &mut [u8]) -> usize {
        self.writer
            .as_mut()
            .map_or(0, |w| w.inner_mut().drain_into(dst))
    }

    /// Up to `max` pending encoded bytes, without consuming them (see [`Self::consume_output`]).
    pub fn peek_output(&mut self, max: usize) -> &[u8] {
        match self.writer.as_mut() {
            Some(w) => w.inner_mut().peek(max),
            None => &[],
        }
    }

    /// Marks `n` bytes returned by [`Self::peek_output`] as handed over.
    pub fn consume_output(&mut self, n: usize) {
        if let Some(w) = self.writer.as_mut() {
            w.inner_mut().consume(n);
        }
    }

    /// Finishes the file (last row group and footer) and returns its summary. The footer bytes
    /// are pending output afterwards. Calling it again returns the same summary.
    pub fn close(&mut self) -> Result<&FileSummary> {
        if self.summary.is_none() {
            if self.writer.is_none() {
                self.flush_first_rows()?;
            }
            let writer = self.writer(&[])?;
            let metadata = writer.finish()?;
            let size = writer.bytes_written() as i64;
            let encode_nanos = i64::try_from(writer.encode_nanos()).unwrap_or(i64::MAX);
            let floats = self
                .floats
                .take()
                .map(FloatTracker::into_map)
                .unwrap_or_default();
            self.summary = Some(summarize(&metadata, size, encode_nanos, &floats));
        }
        Ok(self.summary.as_ref().expect("summary set above"))
    }

    /// True once [`Self::close`] succeeded.
    pub fn is_closed(&self) -> bool {
        self.summary.is_some()
    }

    fn ensure_open(&self, op: &str) -> Result<()> {
        if self.is_closed() {
            Err(NativeError::InvalidState(format!(
                "cannot {op}: the Parquet writer is already closed"
            )))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use arrow::array::{ArrayRef, Int64Array, StringArray};
    use arrow::datatypes::{Field, Schema};
    use bytes::Bytes;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    use super::*;
    use crate::schema::FIELD_ID_KEY;

    fn schema() -> SchemaRef {
        let field = |name: &str, data_type: DataType, id: i32| {
            Field::new(name, data_type, false)
                .with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
        };
        Arc::new(Schema::new(vec![
            field("id", DataType::Int64, 1),
            field("note", DataType::Utf8, 2),
        ]))
    }

    fn batch(schema: &SchemaRef, from: i64, rows: i64) -> RecordBatch {
        let ids: Vec<i64> = (from..from + rows).collect();
        let notes = StringArray::from_iter_values(ids.iter().map(|i| format!("note {i}")));
        let columns = vec![
            Arc::new(Int64Array::from(ids)) as ArrayRef,
            Arc::new(notes) as ArrayRef,
        ];
        RecordBatch::try_new(Arc::clone(schema), columns).unwrap()
    }

    fn drain_all(writer: &mut NativeParquetWriter, file: &mut Vec<u8>) {
        let mut chunk = [0u8; 8192];
        loop {
            let n = writer.drain(&mut chunk);
            if n == 0 {
                break;
            }
            file.extend_from_slice(&chunk[..n]);
        }
    }

    /// (row group count, row group start offsets, ids in file order)
    fn read_back(file: Vec<u8>) -> (usize, Vec<i64>, Vec<i64>) {
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file)).unwrap();
        let metadata = builder.metadata().clone();
        let offsets = metadata
            .row_groups()
            .iter()
            .map(|rg| {
                let column = rg.column(0);
                column
                    .dictionary_page_offset()
                    .unwrap_or(column.data_page_offset())
            })
            .collect();
        let mut ids = Vec::new();
        for batch in builder.build().unwrap() {
            let batch = batch.unwrap();
            let column = batch
                .column(0)
                .as_primitive::<arrow::datatypes::Int64Type>();
            ids.extend(column.values().iter().copied());
        }
        (metadata.num_row_groups(), offsets, ids)
    }

    #[test]
    fn an_early_row_group_flush_keeps_every_row_and_exact_split_offsets() {
        let schema = schema();
        let options = WriterOptions::from_properties(HashMap::new());
        let mut writer = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        let mut file = Vec::new();
        // Before the encoder exists (fewer rows than a page), after it, and twice in a row.
        writer.write(&batch(&schema, 0, 100)).unwrap();
        assert!(writer.held_bytes() > 0);
        writer.flush_row_group().unwrap();
        drain_all(&mut writer, &mut file);
        for b in 0..4 {
            writer
                .write(&batch(&schema, 100 + b * 30_000, 30_000))
                .unwrap();
        }
        let before = writer.held_bytes();
        writer.flush_row_group().unwrap();
        writer.flush_row_group().unwrap();
        drain_all(&mut writer, &mut file);
        let after = writer.held_bytes();
        assert!(
            after < before / 4,
            "a flushed and drained file holds {after} bytes, {before} before"
        );
        writer.write(&batch(&schema, 120_100, 50)).unwrap();
        let summary = writer.close().unwrap().clone();
        drain_all(&mut writer, &mut file);

        assert_eq!(summary.file_size as usize, file.len());
        assert_eq!(summary.record_count, 120_150);
        let (row_groups, offsets, ids) = read_back(file);
        assert_eq!(
            row_groups, 3,
            "one row group per flush, none for the empty flush"
        );
        assert_eq!(summary.split_offsets, offsets);
        assert_eq!(ids, (0..120_150).collect::<Vec<i64>>());
    }

    #[test]
    fn the_first_page_ends_at_page_size_bytes_in_one_column_or_at_the_row_limit() {
        let schema = schema();
        let options = WriterOptions::from_properties(HashMap::from([(
            "write.parquet.page-size-bytes".to_string(),
            "400000".to_string(),
        )]));
        let wide = |from: i64| {
            let ids: Vec<i64> = (from..from + 10).collect();
            let notes = StringArray::from_iter_values(ids.iter().map(|i| format!("{i:>4000}")));
            let columns = vec![
                Arc::new(Int64Array::from(ids)) as ArrayRef,
                Arc::new(notes) as ArrayRef,
            ];
            RecordBatch::try_new(Arc::clone(&schema), columns).unwrap()
        };
        // Narrow rows: held until the row limit, however many batches.
        let mut narrow = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        for b in 0..19 {
            narrow.write(&batch(&schema, b * 1_000, 1_000)).unwrap();
        }
        assert!(narrow.writer.is_none(), "19,000 narrow rows are one page");
        narrow.write(&batch(&schema, 19_000, 1_000)).unwrap();
        assert!(narrow.writer.is_some(), "20,000 rows end the first page");
        // Wide rows: 10 rows of 4 KB notes per batch (40,044 bytes with their offsets), so the
        // tenth batch brings the note column to the page size.
        let mut writer = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        for b in 0..10 {
            assert!(writer.writer.is_none(), "{} notes are held", b * 10);
            writer.write(&wide(b * 10)).unwrap();
        }
        assert!(
            writer.writer.is_some(),
            "100 wide rows ended the first page"
        );
        assert!(writer.first_page.is_empty());
        writer.write(&wide(100)).unwrap();
        let summary = writer.close().unwrap().clone();
        let mut file = Vec::new();
        drain_all(&mut writer, &mut file);
        assert_eq!(summary.record_count, 110);
        let (_, _, ids) = read_back(file);
        assert_eq!(ids, (0..110).collect::<Vec<i64>>());
    }

    #[test]
    fn flushing_a_writer_without_rows_writes_nothing() {
        let schema = schema();
        let options = WriterOptions::from_properties(HashMap::new());
        let mut writer = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        writer.flush_row_group().unwrap();
        assert_eq!(writer.drain(&mut [0u8; 16]), 0);
        writer.write(&batch(&schema, 0, 10)).unwrap();
        let summary = writer.close().unwrap().clone();
        assert_eq!(summary.split_offsets.len(), 1);
        assert!(writer.flush_row_group().is_err(), "closed writers refuse");
    }
}
