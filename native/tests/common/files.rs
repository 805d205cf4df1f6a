//! Writing a file through `NativeParquetWriter`, reading it back with arrow-rs's reader, and
//! checking values, footer and `FileSummary` against each other.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::compute::{cast, concat};
use arrow::datatypes::{Field, SchemaRef};
use bytes::Bytes;
use frazil::options::WriterOptions;
use frazil::stats::{ColumnSummary, FileSummary};
use frazil::writer::NativeParquetWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{
    LogicalType, TimeUnit as ParquetTimeUnit, TimestampType, Type as PhysicalType,
};
use parquet::file::metadata::ParquetMetaData;
use parquet::schema::types::ColumnDescriptor;

use super::columns::batch_of;
use super::schema_of;

/// Drains everything pending through a small, odd-sized buffer.
pub fn drain_all(writer: &mut NativeParquetWriter, out: &mut Vec<u8>) {
    let mut chunk = [0u8; 777];
    loop {
        let n = writer.drain(&mut chunk);
        if n == 0 {
            break;
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// Writes `batches` (draining between them, like the JVM side does), closes and drains.
pub fn write_file(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: &WriterOptions,
) -> (Vec<u8>, FileSummary) {
    let mut writer = NativeParquetWriter::try_new(schema.clone(), options).expect("writer");
    let mut file = Vec::new();
    for batch in batches {
        writer.write(batch).expect("write");
        drain_all(&mut writer, &mut file);
    }
    let summary = writer.close().expect("close").clone();
    drain_all(&mut writer, &mut file);
    assert_eq!(writer.estimated_length(), file.len() as u64);
    (file, summary)
}

pub fn read_back(file: &[u8]) -> (Vec<RecordBatch>, Arc<ParquetMetaData>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .expect("the footer parses");
    let metadata = builder.metadata().clone();
    let batches = builder
        .with_batch_size(4096)
        .build()
        .expect("reader")
        .collect::<Result<Vec<_>, _>>()
        .expect("the data decodes");
    (batches, metadata)
}

pub fn metadata_of(file: &[u8]) -> Arc<ParquetMetaData> {
    ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .expect("the footer parses")
        .metadata()
        .clone()
}

/// Asserts that `actual` (as read back) holds the same values as `expected`. Arrow types the
/// reader picks differently (decimal width, timestamp zone spelling, nested metadata) are cast
/// to the written type first; floats compare bit for bit (NaN, ±0.0).
pub fn assert_same_values(name: &str, expected: &ArrayRef, actual: &ArrayRef) {
    let actual = if actual.data_type() == expected.data_type() {
        actual.clone()
    } else {
        cast(actual, expected.data_type()).unwrap_or_else(|e| {
            panic!(
                "column {name}: cannot cast read-back {} to {}: {e}",
                actual.data_type(),
                expected.data_type()
            )
        })
    };
    assert_eq!(actual.len(), expected.len(), "column {name}: row count");
    assert_eq!(
        actual.to_data(),
        expected.to_data(),
        "column {name}: values differ\nexpected: {expected:?}\nactual:   {actual:?}"
    );
}

pub fn concat_column(batches: &[RecordBatch], i: usize) -> ArrayRef {
    let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(i).as_ref()).collect();
    concat(&arrays).expect("concat")
}

/// Writes, reads back, and checks values plus the summary facts every file must satisfy.
pub fn roundtrip(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    properties: HashMap<String, String>,
) -> (Vec<u8>, FileSummary) {
    roundtrip_with(schema, batches, WriterOptions::from_properties(properties))
}

pub fn roundtrip_with(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: WriterOptions,
) -> (Vec<u8>, FileSummary) {
    let (file, summary) = write_file(schema, batches, &options);
    let (read, metadata) = read_back(&file);
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(read.iter().map(RecordBatch::num_rows).sum::<usize>(), rows);
    if rows > 0 {
        for (i, f) in schema.fields().iter().enumerate() {
            let expected = concat_column(batches, i);
            let actual = concat_column(&read, i);
            assert_same_values(f.name(), &expected, &actual);
        }
    }
    check_summary_against_footer(&summary, &metadata, file.len(), rows);
    (file, summary)
}

pub fn leaf_id(descr: &ColumnDescriptor) -> Option<i32> {
    let info = descr.self_type().get_basic_info();
    info.has_id().then(|| info.id())
}

pub fn leaf_index(metadata: &ParquetMetaData, id: i32) -> usize {
    metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|c| leaf_id(c) == Some(id))
        .unwrap_or_else(|| panic!("no leaf with field id {id}"))
}

pub fn leaf(metadata: &ParquetMetaData, id: i32) -> Arc<ColumnDescriptor> {
    metadata
        .file_metadata()
        .schema_descr()
        .column(leaf_index(metadata, id))
}

pub fn split_offset_of(metadata: &ParquetMetaData, rg: usize) -> i64 {
    let first = metadata.row_group(rg).column(0);
    let data = first.data_page_offset();
    match first.dictionary_page_offset() {
        Some(dict) if dict < data => dict,
        _ => data,
    }
}

pub fn check_summary_against_footer(
    summary: &FileSummary,
    metadata: &ParquetMetaData,
    file_len: usize,
    rows: usize,
) {
    assert_eq!(
        summary.file_size, file_len as i64,
        "file_size == drained bytes"
    );
    assert_eq!(summary.record_count, rows as i64, "record_count");
    assert_eq!(metadata.file_metadata().num_rows(), rows as i64);

    let expected_splits: Vec<i64> = (0..metadata.num_row_groups())
        .map(|rg| split_offset_of(metadata, rg))
        .collect();
    assert_eq!(summary.split_offsets, expected_splits, "split offsets");
    if let Some(first) = summary.split_offsets.first() {
        assert_eq!(*first, 4, "the first row group starts after the magic");
    }
    assert!(
        summary.split_offsets.is_sorted(),
        "split offsets are sorted"
    );

    let schema = metadata.file_metadata().schema_descr();
    let leaves: Vec<(usize, i32)> = schema
        .columns()
        .iter()
        .enumerate()
        .filter_map(|(i, c)| leaf_id(c).map(|id| (i, id)))
        .collect();
    let summary_ids: Vec<i32> = summary.columns.iter().map(|c| c.field_id).collect();
    let leaf_ids: Vec<i32> = leaves.iter().map(|(_, id)| *id).collect();
    assert_eq!(
        summary_ids, leaf_ids,
        "one summary per leaf with a field id"
    );

    for ((i, _), column) in leaves.iter().zip(&summary.columns) {
        let descr = schema.column(*i);
        let chunks = metadata.row_groups().iter().map(|rg| rg.column(*i));
        let size: i64 = chunks.clone().map(|c| c.compressed_size()).sum();
        let values: i64 = chunks.map(|c| c.num_values()).sum();
        assert_eq!(
            column.column_size, size,
            "column_size of {}",
            column.field_id
        );
        assert_eq!(
            column.repeated,
            descr.max_rep_level() > 0,
            "repeated of {}",
            column.field_id
        );
        if !column.repeated {
            assert_eq!(
                column.value_count, values,
                "value_count of {}",
                column.field_id
            );
        }
    }
}

pub fn column(summary: &FileSummary, id: i32) -> &ColumnSummary {
    summary
        .columns
        .iter()
        .find(|c| c.field_id == id)
        .unwrap_or_else(|| panic!("no summary for field id {id}"))
}

/// One column, written as two batches (the second a slice with a non-zero offset).
pub fn single(f: Field, array: ArrayRef) -> (Vec<u8>, FileSummary, Arc<ParquetMetaData>) {
    single_with(f, array, HashMap::new())
}

pub fn single_with(
    f: Field,
    array: ArrayRef,
    properties: HashMap<String, String>,
) -> (Vec<u8>, FileSummary, Arc<ParquetMetaData>) {
    let schema = schema_of(vec![f]);
    let batch = batch_of(&schema, vec![array]);
    let half = batch.num_rows() / 2;
    let batches = [
        batch.slice(0, half),
        batch.slice(half, batch.num_rows() - half),
    ];
    let (file, summary) = roundtrip(&schema, &batches, properties);
    let metadata = metadata_of(&file);
    (file, summary, metadata)
}

/// Asserts value/null counts and the encoded bounds of a non-repeated leaf.
pub fn assert_metrics(
    c: &ColumnSummary,
    (values, nulls): (i64, i64),
    lower: Option<&[u8]>,
    upper: Option<&[u8]>,
) {
    assert!(c.has_counts, "field {} has counts", c.field_id);
    assert!(!c.repeated, "field {} is not repeated", c.field_id);
    assert_eq!(c.value_count, values, "value_count of {}", c.field_id);
    assert_eq!(c.null_count, nulls, "null_count of {}", c.field_id);
    assert_eq!(c.lower.as_deref(), lower, "lower bound of {}", c.field_id);
    assert_eq!(c.upper.as_deref(), upper, "upper bound of {}", c.field_id);
}

pub fn assert_leaf_type(
    metadata: &ParquetMetaData,
    id: i32,
    physical: PhysicalType,
    logical: Option<LogicalType>,
) {
    let descr = leaf(metadata, id);
    assert_eq!(descr.physical_type(), physical, "physical type of {id}");
    assert_eq!(
        descr.logical_type_ref(),
        logical.as_ref(),
        "logical type of {id}"
    );
}

/// Iceberg's minimal big-endian two's complement (`BigInteger.toByteArray`).
pub fn min_be(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        let redundant = (b == 0x00 && next < 0x80) || (b == 0xFF && next >= 0x80);
        if !redundant {
            break;
        }
        start += 1;
    }
    bytes[start..].to_vec()
}

pub fn props(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub fn timestamp_logical(adjusted: bool, unit: ParquetTimeUnit) -> LogicalType {
    LogicalType::Timestamp(TimestampType {
        is_adjusted_to_u_t_c: adjusted,
        unit,
    })
}
