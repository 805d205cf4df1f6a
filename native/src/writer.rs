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

use std::sync::atomic::{AtomicBool, Ordering};
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

/// Rows held past the first page go to the encoder once they take this many pages' bytes (see
/// [`NativeParquetWriter::write_pipelined`]).
const HOLD_PAGES: usize = 2;

/// Set while the process's memory budget is under pressure (see [`set_memory_pressure`]).
static MEMORY_PRESSURE: AtomicBool = AtomicBool::new(false);

/// Tells every writer whether memory is short, process-wide (on the JVM: the memory budget, when
/// its files hold more than half of it). While it is, a file whose first page is complete keeps
/// its rows held, compact, up to a page's row limit instead of starting its encoder (see
/// [`NativeParquetWriter::write_pipelined`]); when it ends, such files start their encoders at
/// their next batch. The bytes of a file never depend on it.
pub fn set_memory_pressure(on: bool) {
    MEMORY_PRESSURE.store(on, Ordering::Relaxed);
}

/// True while [`set_memory_pressure`] says memory is short.
pub fn memory_pressure() -> bool {
    MEMORY_PRESSURE.load(Ordering::Relaxed)
}

/// Encodes one Iceberg Parquet data file from Arrow batches.
pub struct NativeParquetWriter {
    schema: SchemaRef,
    descriptor: SchemaDescriptor,
    options: WriterOptions,
    /// Created once the rows held reach `decision_rows` or `hold_bytes` (or at a flush or the
    /// close), with the dictionary columns the first page chose (see [`crate::dictionary`]).
    writer: Option<ColumnParallelEncoder<OutputBuffer>>,
    /// The rows seen before the writer exists: the first page, and after it the rows up to the
    /// row limit of a page.
    first_page: FirstPage,
    /// Columns without a dictionary, chosen when the first page was complete.
    no_dictionary: Option<Vec<ColumnPath>>,
    /// The first page ends at this many rows or when one column holds `decision_bytes`.
    decision_rows: usize,
    decision_bytes: usize,
    /// Rows held past the first page go to the encoder at `decision_rows` rows or once they hold
    /// this many bytes.
    hold_bytes: usize,
    /// Whether rows are held past the first page: `None` follows [`memory_pressure`] (tests fix
    /// it).
    hold_past_first_page: Option<bool>,
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
            no_dictionary: None,
            decision_rows: options.page_row_limit()?,
            decision_bytes: options.page_size_bytes()?,
            hold_bytes: options.page_size_bytes()?.saturating_mul(HOLD_PAGES),
            hold_past_first_page: None,
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
        // one column.
        self.first_page.take(batch)?;
        if self.no_dictionary.is_none()
            && (self.first_page.rows() >= self.decision_rows
                || self.first_page.widest_leaf_bytes() >= self.decision_bytes)
        {
            self.no_dictionary = Some(self.first_page.columns_without_dictionary_benefit());
        }
        // Under memory pressure the rows stay held, compact, up to a page's row limit. In the
        // encoder an open page costs 10 bytes a value of a dictionary column (arrow-rs keeps a
        // 64-bit index and a 16-bit level for each), and a file of a few thousand rows (many open
        // partitions) keeps its page open until it closes; held, a repeating value costs 2
        // bytes. Wide rows still go to the encoder at `hold_bytes`: held for a page or two, not
        // for thousands of rows. The price is time at close, where the held rows are encoded:
        // so only under pressure, where the alternative is cutting row groups early. The bytes
        // are the same either way: the encoder gets the same batches in the same order.
        let holding = self.hold_past_first_page.unwrap_or_else(memory_pressure);
        if self.first_page.rows() >= self.decision_rows
            || (self.no_dictionary.is_some()
                && (!holding || self.first_page.memory_size() >= self.hold_bytes))
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
    /// it. Without a complete first page (a flush or a close), the rows there are decide.
    fn flush_first_rows(&mut self) -> Result<()> {
        let first_page = std::mem::take(&mut self.first_page);
        let no_dictionary = match self.no_dictionary.take() {
            Some(decided) => decided,
            None => first_page.columns_without_dictionary_benefit(),
        };
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
        // tenth batch brings the note column to the page size and decides. Without memory
        // pressure the encoder starts there.
        let mut eager = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        eager.hold_past_first_page = Some(false);
        for b in 0..10 {
            assert!(eager.writer.is_none(), "{} notes are held", b * 10);
            eager.write(&wide(b * 10)).unwrap();
        }
        assert!(eager.writer.is_some(), "100 wide rows ended the first page");
        assert!(eager.first_page.is_empty());
        // Under pressure the rows stay held until they take two pages' bytes of memory (by the
        // 20th batch), not until 20,000 rows.
        let mut writer = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        writer.hold_past_first_page = Some(true);
        for b in 0..10 {
            assert!(writer.no_dictionary.is_none(), "{} notes are held", b * 10);
            writer.write(&wide(b * 10)).unwrap();
        }
        assert!(
            writer.no_dictionary.is_some(),
            "100 wide rows ended the first page"
        );
        let mut batches = 10;
        let mut held_before = 0;
        while writer.writer.is_none() {
            held_before = writer.held_bytes();
            writer.write(&wide(batches * 10)).unwrap();
            batches += 1;
        }
        assert!(
            (11..=20).contains(&batches) && held_before < 800_000,
            "wide rows went to the encoder after {batches} batches, {held_before} bytes held"
        );
        assert!(writer.first_page.is_empty());
        writer.write(&wide(batches * 10)).unwrap();
        let rows = (batches + 1) * 10;
        let summary = writer.close().unwrap().clone();
        let mut file = Vec::new();
        drain_all(&mut writer, &mut file);
        assert_eq!(summary.record_count, rows);
        let (_, _, ids) = read_back(file);
        assert_eq!(ids, (0..rows).collect::<Vec<i64>>());
    }

    #[test]
    fn rows_held_past_the_first_page_under_pressure_take_less_memory_and_encode_to_the_same_bytes()
    {
        let schema = schema();
        // 200-byte notes, 50 distinct: the note column reaches the page size at 2,000 rows.
        let options = WriterOptions::from_properties(HashMap::from([(
            "write.parquet.page-size-bytes".to_string(),
            "400000".to_string(),
        )]));
        let repeating = |from: i64| {
            let ids: Vec<i64> = (from..from + 1_000).collect();
            let notes =
                StringArray::from_iter_values(ids.iter().map(|i| format!("{:>200}", i % 50)));
            let columns = vec![
                Arc::new(Int64Array::from(ids)) as ArrayRef,
                Arc::new(notes) as ArrayRef,
            ];
            RecordBatch::try_new(Arc::clone(&schema), columns).unwrap()
        };
        let mut held = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        held.hold_past_first_page = Some(true);
        // Without memory pressure the encoder starts with the first page's decision.
        let mut eager = NativeParquetWriter::try_new(Arc::clone(&schema), &options).unwrap();
        eager.hold_past_first_page = Some(false);
        for b in 0..12 {
            held.write(&repeating(b * 1_000)).unwrap();
            eager.write(&repeating(b * 1_000)).unwrap();
        }
        assert!(
            held.no_dictionary.is_some(),
            "the first page ended at 2,000 rows"
        );
        assert!(
            held.writer.is_none(),
            "12,000 rows of repeating notes are held"
        );
        assert!(eager.writer.is_some());
        let (held_bytes, eager_bytes) = (held.held_bytes(), eager.held_bytes());
        assert!(
            held_bytes < eager_bytes,
            "held rows take {held_bytes} bytes, the encoder {eager_bytes}"
        );
        let mut files = Vec::new();
        for writer in [&mut held, &mut eager] {
            writer.close().unwrap();
            let mut file = Vec::new();
            drain_all(writer, &mut file);
            files.push(file);
        }
        assert_eq!(files[0], files[1], "holding the rows changed the file");
        let (_, _, ids) = read_back(files.pop().unwrap());
        assert_eq!(ids, (0..12_000).collect::<Vec<i64>>());
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
