//! Public-API round trips: batches go through `NativeParquetWriter`, the drained bytes are read
//! back with arrow-rs's reader, and the values, the footer (schema, field ids, physical and
//! logical types, codecs, statistics, bloom filters, row groups) and the `FileSummary` handed to
//! Java are checked against what Iceberg Java writes.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, FixedSizeBinaryArray,
    Float32Array, Float64Array, Int32Array, Int64Array, ListArray, MapArray, RecordBatch,
    StringArray, StructArray, Time64MicrosecondArray, TimestampMicrosecondArray,
    TimestampNanosecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::compute::{cast, concat};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use bytes::Bytes;
use frazil::options::WriterOptions;
use frazil::schema::{FIELD_ID_KEY, ICEBERG_TYPE_KEY};
use frazil::stats::{ColumnSummary, FileSummary};
use frazil::writer::NativeParquetWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{
    Compression, DecimalType, LogicalType, Repetition, TimeType, TimeUnit as ParquetTimeUnit,
    TimestampType, Type as PhysicalType,
};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::schema::types::{ColumnDescriptor, Type as ParquetType};

// ---------------------------------------------------------------------------------------------
// Fields and columns
// ---------------------------------------------------------------------------------------------

/// Rows produced by every column generator below, so any of them can share a batch.
const N: usize = 6;

fn id_meta(id: i32) -> HashMap<String, String> {
    HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())])
}

fn field(name: &str, data_type: DataType, nullable: bool, id: i32) -> Field {
    Field::new(name, data_type, nullable).with_metadata(id_meta(id))
}

fn uuid_field(name: &str, id: i32) -> Field {
    let mut meta = id_meta(id);
    meta.insert(ICEBERG_TYPE_KEY.to_string(), "uuid".to_string());
    Field::new(name, DataType::FixedSizeBinary(16), true).with_metadata(meta)
}

fn props(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn bool_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![Some(true), None, Some(false), Some(true), None, Some(true)];
    (
        field(name, DataType::Boolean, true, id),
        Arc::new(BooleanArray::from(values)),
    )
}

fn int32_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![
        Some(5),
        None,
        Some(-3),
        Some(i32::MAX),
        Some(i32::MIN),
        Some(0),
    ];
    (
        field(name, DataType::Int32, true, id),
        Arc::new(Int32Array::from(values)),
    )
}

fn int64_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![
        Some(5),
        None,
        Some(-3),
        Some(i64::MAX),
        Some(i64::MIN),
        Some(0),
    ];
    (
        field(name, DataType::Int64, true, id),
        Arc::new(Int64Array::from(values)),
    )
}

fn required_int64_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values: Vec<i64> = vec![10, -20, 30, 0, 7, 42];
    (
        field(name, DataType::Int64, false, id),
        Arc::new(Int64Array::from(values)),
    )
}

fn float32_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![
        Some(1.5f32),
        Some(f32::NAN),
        Some(-0.0),
        Some(0.0),
        None,
        Some(-2.5),
    ];
    (
        field(name, DataType::Float32, true, id),
        Arc::new(Float32Array::from(values)),
    )
}

fn float64_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![
        Some(0.0f64),
        Some(-0.0),
        Some(f64::NAN),
        None,
        Some(3.25),
        Some(-1e300),
    ];
    (
        field(name, DataType::Float64, true, id),
        Arc::new(Float64Array::from(values)),
    )
}

fn decimal_max(precision: u8) -> i128 {
    10i128.pow(u32::from(precision)) - 1
}

fn decimal_col(name: &str, id: i32, precision: u8, scale: i8) -> (Field, ArrayRef) {
    let max = decimal_max(precision);
    let values = vec![Some(0), Some(-max), Some(max), None, Some(-1), Some(1)];
    let array = Decimal128Array::from(values)
        .with_precision_and_scale(precision, scale)
        .expect("valid decimal");
    (
        field(name, DataType::Decimal128(precision, scale), true, id),
        Arc::new(array),
    )
}

const DATE_MIN: i32 = -719_162; // 0001-01-01
const DATE_MAX: i32 = 2_932_896; // 9999-12-31

fn date32_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![
        Some(0),
        Some(-1),
        Some(19_000),
        None,
        Some(DATE_MAX),
        Some(DATE_MIN),
    ];
    (
        field(name, DataType::Date32, true, id),
        Arc::new(Date32Array::from(values)),
    )
}

fn time64_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![
        Some(3_600_000_000),
        Some(0),
        Some(86_399_999_999),
        None,
        Some(1),
        Some(43_200_000_000),
    ];
    (
        field(name, DataType::Time64(TimeUnit::Microsecond), true, id),
        Arc::new(Time64MicrosecondArray::from(values)),
    )
}

const TS_MICROS: [Option<i64>; N] = [
    Some(0),
    Some(-1),
    Some(1_700_000_000_123_456),
    None,
    Some(-62_135_596_800_000_000),
    Some(253_402_300_799_999_999),
];

fn timestamp_micros_col(name: &str, id: i32, tz: Option<&str>) -> (Field, ArrayRef) {
    let array = TimestampMicrosecondArray::from(TS_MICROS.to_vec()).with_timezone_opt(tz);
    (
        field(name, array.data_type().clone(), true, id),
        Arc::new(array),
    )
}

const TS_NANOS: [Option<i64>; N] = [
    Some(1_700_000_000_123_456_789),
    Some(-1),
    Some(0),
    None,
    Some(i64::MAX),
    Some(i64::MIN + 1),
];

fn timestamp_nanos_col(name: &str, id: i32, tz: Option<&str>) -> (Field, ArrayRef) {
    let array = TimestampNanosecondArray::from(TS_NANOS.to_vec()).with_timezone_opt(tz);
    (
        field(name, array.data_type().clone(), true, id),
        Arc::new(array),
    )
}

const STRINGS: [Option<&str>; N] = [
    Some("héllo"),
    Some(""),
    Some("日本語"),
    None,
    Some("abc"),
    Some("é"),
];

fn utf8_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (
        field(name, DataType::Utf8, true, id),
        Arc::new(StringArray::from(STRINGS.to_vec())),
    )
}

const BINARIES: [Option<&[u8]>; N] = [
    Some(b"\x00"),
    Some(b"\xff\x01"),
    Some(b""),
    None,
    Some(b"abc"),
    Some(b"\x7f"),
];

fn binary_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (
        field(name, DataType::Binary, true, id),
        Arc::new(BinaryArray::from_opt_vec(BINARIES.to_vec())),
    )
}

const FIXED5: [Option<&[u8; 5]>; N] = [
    Some(b"abcde"),
    Some(b"\x00\x00\x00\x00\x00"),
    Some(b"\xff\xff\xff\xff\xfe"),
    None,
    Some(b"hello"),
    Some(b"\x80\x00\x00\x00\x01"),
];

fn fixed5_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let array = FixedSizeBinaryArray::try_from_sparse_iter_with_size(FIXED5.iter().copied(), 5)
        .expect("valid fixed");
    (
        field(name, DataType::FixedSizeBinary(5), true, id),
        Arc::new(array),
    )
}

fn uuid_bytes(msb: u64, lsb: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&msb.to_be_bytes());
    b[8..].copy_from_slice(&lsb.to_be_bytes());
    b
}

/// UUIDs whose most significant bit is clear, so signed and unsigned orders agree.
fn uuid_values() -> Vec<Option<[u8; 16]>> {
    vec![
        Some(uuid_bytes(0x1234_5678_9abc_4def, 0x8123_4567_89ab_cdef)),
        Some(uuid_bytes(0, 0)),
        Some(uuid_bytes(0x7fff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff)),
        None,
        Some(uuid_bytes(0x1234_5678_9abc_4def, 0x0000_0000_0000_0001)),
        Some(uuid_bytes(0x0f00_0000_0000_4000, 0x8000_0000_0000_0000)),
    ]
}

fn uuid_array(values: &[Option<[u8; 16]>]) -> ArrayRef {
    Arc::new(
        FixedSizeBinaryArray::try_from_sparse_iter_with_size(values.iter().map(|v| v.as_ref()), 16)
            .expect("valid uuids"),
    )
}

fn uuid_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (uuid_field(name, id), uuid_array(&uuid_values()))
}

/// `s struct<a int, b string, f double>` (ids base, base+1..base+3); rows 1 and 4 are null
/// structs whose children hold values that must not show up in the metrics.
fn struct_col(name: &str, base: i32) -> (Field, ArrayRef) {
    let children = Fields::from(vec![
        field("a", DataType::Int32, true, base + 1),
        field("b", DataType::Utf8, true, base + 2),
        field("f", DataType::Float64, true, base + 3),
    ]);
    let a = Int32Array::from(vec![Some(1), Some(99), None, Some(4), Some(5), Some(-6)]);
    let b = StringArray::from(vec![
        Some("x"),
        Some("masked"),
        Some("y"),
        None,
        Some("m"),
        Some("z"),
    ]);
    let f = Float64Array::from(vec![
        Some(1.0),
        Some(100.0),
        Some(f64::NAN),
        Some(-0.5),
        Some(-7.0),
        None,
    ]);
    let nulls = NullBuffer::from(vec![true, false, true, true, false, true]);
    let array = StructArray::new(
        children.clone(),
        vec![Arc::new(a), Arc::new(b), Arc::new(f)],
        Some(nulls),
    );
    (
        field(name, DataType::Struct(children), true, base),
        Arc::new(array),
    )
}

fn list_field(name: &str, element: Field, id: i32) -> Field {
    field(name, DataType::List(Arc::new(element)), true, id)
}

/// `l list<int>` (ids base, base+1): `[1, 2], [], null, [null, 3], [-7], [10, 20, 30]`.
fn list_int_col(name: &str, base: i32) -> (Field, ArrayRef) {
    let element = Arc::new(field("element", DataType::Int32, true, base + 1));
    let values = Int32Array::from(vec![
        Some(1),
        Some(2),
        None,
        Some(3),
        Some(-7),
        Some(10),
        Some(20),
        Some(30),
    ]);
    let offsets = OffsetBuffer::from_lengths([2, 0, 0, 2, 1, 3]);
    let nulls = NullBuffer::from(vec![true, true, false, true, true, true]);
    let array = ListArray::new(element.clone(), offsets, Arc::new(values), Some(nulls));
    (
        list_field(name, element.as_ref().clone(), base),
        Arc::new(array),
    )
}

/// `ls list<struct<x long, y double>>` (ids base, element base+1, x base+2, y base+3).
fn list_struct_col(name: &str, base: i32) -> (Field, ArrayRef) {
    let children = Fields::from(vec![
        field("x", DataType::Int64, true, base + 2),
        field("y", DataType::Float64, true, base + 3),
    ]);
    let element = Arc::new(field(
        "element",
        DataType::Struct(children.clone()),
        true,
        base + 1,
    ));
    let xs = Int64Array::from(vec![Some(1), None, Some(3), Some(4), Some(5)]);
    let ys = Float64Array::from(vec![Some(0.5), Some(1.5), None, Some(f64::NAN), Some(-2.0)]);
    let structs = StructArray::new(
        children,
        vec![Arc::new(xs), Arc::new(ys)],
        Some(NullBuffer::from(vec![true, true, true, false, true])),
    );
    let offsets = OffsetBuffer::from_lengths([1, 2, 0, 0, 2, 0]);
    let nulls = NullBuffer::from(vec![true, true, true, false, true, true]);
    let array = ListArray::new(element.clone(), offsets, Arc::new(structs), Some(nulls));
    (
        list_field(name, element.as_ref().clone(), base),
        Arc::new(array),
    )
}

fn map_entries_field(key: Field, value: Field) -> FieldRef {
    Arc::new(Field::new(
        "key_value",
        DataType::Struct(Fields::from(vec![key, value])),
        false,
    ))
}

/// `m map<string, long>` (ids base, key base+1, value base+2):
/// `{a: 1, b: null}, {}, null, {é: -5}, {k: 7}, {x: 1, y: 2}`.
fn map_col(name: &str, base: i32) -> (Field, ArrayRef) {
    let key = field("key", DataType::Utf8, false, base + 1);
    let value = field("value", DataType::Int64, true, base + 2);
    let entries_field = map_entries_field(key.clone(), value.clone());
    let keys = StringArray::from(vec!["a", "b", "é", "k", "x", "y"]);
    let values = Int64Array::from(vec![Some(1), None, Some(-5), Some(7), Some(1), Some(2)]);
    let entries = StructArray::new(
        Fields::from(vec![key, value]),
        vec![Arc::new(keys), Arc::new(values)],
        None,
    );
    let offsets = OffsetBuffer::from_lengths([2, 0, 0, 1, 1, 2]);
    let nulls = NullBuffer::from(vec![true, true, false, true, true, true]);
    let array = MapArray::new(entries_field.clone(), offsets, entries, Some(nulls), false);
    (
        field(name, DataType::Map(entries_field, false), true, base),
        Arc::new(array),
    )
}

fn all_null_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (
        field(name, DataType::Utf8, true, id),
        Arc::new(StringArray::from(vec![None::<&str>; N])),
    )
}

// ---------------------------------------------------------------------------------------------
// Writing and reading back
// ---------------------------------------------------------------------------------------------

fn schema_of(fields: Vec<Field>) -> SchemaRef {
    Arc::new(Schema::new(fields))
}

fn batch_of(schema: &SchemaRef, columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_new(schema.clone(), columns).expect("valid batch")
}

/// Drains everything pending through a small, odd-sized buffer.
fn drain_all(writer: &mut NativeParquetWriter, out: &mut Vec<u8>) {
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
fn write_file(
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

fn read_back(file: &[u8]) -> (Vec<RecordBatch>, Arc<ParquetMetaData>) {
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

fn metadata_of(file: &[u8]) -> Arc<ParquetMetaData> {
    ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .expect("the footer parses")
        .metadata()
        .clone()
}

/// Asserts that `actual` (as read back) holds the same values as `expected`. Arrow types the
/// reader picks differently (decimal width, timestamp zone spelling, nested metadata) are cast
/// to the written type first; floats compare bit for bit (NaN, ±0.0).
fn assert_same_values(name: &str, expected: &ArrayRef, actual: &ArrayRef) {
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

fn concat_column(batches: &[RecordBatch], i: usize) -> ArrayRef {
    let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(i).as_ref()).collect();
    concat(&arrays).expect("concat")
}

/// Writes, reads back, and checks values plus the summary facts every file must satisfy.
fn roundtrip(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    properties: HashMap<String, String>,
) -> (Vec<u8>, FileSummary) {
    roundtrip_with(schema, batches, WriterOptions::from_properties(properties))
}

fn roundtrip_with(
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

fn leaf_id(descr: &ColumnDescriptor) -> Option<i32> {
    let info = descr.self_type().get_basic_info();
    info.has_id().then(|| info.id())
}

fn leaf_index(metadata: &ParquetMetaData, id: i32) -> usize {
    metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|c| leaf_id(c) == Some(id))
        .unwrap_or_else(|| panic!("no leaf with field id {id}"))
}

fn leaf(metadata: &ParquetMetaData, id: i32) -> Arc<ColumnDescriptor> {
    metadata
        .file_metadata()
        .schema_descr()
        .column(leaf_index(metadata, id))
}

fn split_offset_of(metadata: &ParquetMetaData, rg: usize) -> i64 {
    let first = metadata.row_group(rg).column(0);
    let data = first.data_page_offset();
    match first.dictionary_page_offset() {
        Some(dict) if dict < data => dict,
        _ => data,
    }
}

fn check_summary_against_footer(
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

fn column(summary: &FileSummary, id: i32) -> &ColumnSummary {
    summary
        .columns
        .iter()
        .find(|c| c.field_id == id)
        .unwrap_or_else(|| panic!("no summary for field id {id}"))
}

/// One column, written as two batches (the second a slice with a non-zero offset).
fn single(f: Field, array: ArrayRef) -> (Vec<u8>, FileSummary, Arc<ParquetMetaData>) {
    single_with(f, array, HashMap::new())
}

fn single_with(
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
fn assert_metrics(
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

fn assert_leaf_type(
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
fn min_be(v: i128) -> Vec<u8> {
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

// ---------------------------------------------------------------------------------------------
// One test per type / shape
// ---------------------------------------------------------------------------------------------

#[test]
fn boolean_single_column() {
    let (f, a) = bool_col("b", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::BOOLEAN, None);
    assert_metrics(column(&summary, 1), (6, 2), Some(&[0]), Some(&[1]));
}

#[test]
fn int32_single_column() {
    let (f, a) = int32_col("i", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::INT32, None);
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&i32::MIN.to_le_bytes()),
        Some(&i32::MAX.to_le_bytes()),
    );
}

#[test]
fn int64_single_column() {
    let (f, a) = int64_col("l", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::INT64, None);
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&i64::MIN.to_le_bytes()),
        Some(&i64::MAX.to_le_bytes()),
    );
}

#[test]
fn float32_single_column() {
    let (f, a) = float32_col("f", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::FLOAT, None);
    let c = column(&summary, 1);
    assert!(c.float_metrics);
    assert_eq!(c.nan_count, 1);
    assert_metrics(
        c,
        (6, 1),
        Some(&(-2.5f32).to_le_bytes()),
        Some(&1.5f32.to_le_bytes()),
    );
}

#[test]
fn float64_single_column() {
    let (f, a) = float64_col("d", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::DOUBLE, None);
    let c = column(&summary, 1);
    assert!(c.float_metrics);
    assert_eq!(c.nan_count, 1);
    assert_metrics(
        c,
        (6, 1),
        Some(&(-1e300f64).to_le_bytes()),
        Some(&3.25f64.to_le_bytes()),
    );
}

#[test]
fn float_signed_zero_bounds() {
    let f32_values = Float32Array::from(vec![Some(0.0f32), Some(-0.0), Some(f32::NAN), None]);
    let f64_values = Float64Array::from(vec![Some(-0.0f64), Some(f64::NAN), Some(0.0), None]);
    let schema = schema_of(vec![
        field("f", DataType::Float32, true, 1),
        field("d", DataType::Float64, true, 2),
    ]);
    let batch = batch_of(&schema, vec![Arc::new(f32_values), Arc::new(f64_values)]);
    let (_, summary) = roundtrip(&schema, &[batch], HashMap::new());
    let f = column(&summary, 1);
    assert_eq!(f.nan_count, 1);
    assert_metrics(
        f,
        (4, 1),
        Some(&(-0.0f32).to_le_bytes()),
        Some(&0.0f32.to_le_bytes()),
    );
    let d = column(&summary, 2);
    assert_eq!(d.nan_count, 1);
    assert_metrics(
        d,
        (4, 1),
        Some(&(-0.0f64).to_le_bytes()),
        Some(&0.0f64.to_le_bytes()),
    );
}

#[test]
fn float_all_nan_has_no_bounds() {
    let schema = schema_of(vec![field("d", DataType::Float64, true, 1)]);
    let values = Float64Array::from(vec![Some(f64::NAN), None, Some(-f64::NAN)]);
    let batch = batch_of(&schema, vec![Arc::new(values)]);
    let (_, summary) = roundtrip(&schema, &[batch], HashMap::new());
    let d = column(&summary, 1);
    assert_eq!(d.nan_count, 2);
    assert_metrics(d, (3, 1), None, None);
}

fn check_decimal(precision: u8, scale: i8, physical: PhysicalType, flba_len: Option<i32>) {
    let (f, a) = decimal_col("dec", 1, precision, scale);
    let (_, summary, md) = single(f, a);
    let logical = LogicalType::Decimal(DecimalType {
        scale: i32::from(scale),
        precision: i32::from(precision),
    });
    assert_leaf_type(&md, 1, physical, Some(logical));
    let descr = leaf(&md, 1);
    assert_eq!(descr.type_precision(), i32::from(precision));
    assert_eq!(descr.type_scale(), i32::from(scale));
    if let Some(len) = flba_len {
        assert_eq!(
            descr.type_length(),
            len,
            "FLBA length of decimal({precision})"
        );
    }
    let max = decimal_max(precision);
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&min_be(-max)),
        Some(&min_be(max)),
    );
}

#[test]
fn decimal_p1_single_column() {
    check_decimal(1, 0, PhysicalType::INT32, None);
    // -9 and 9 as minimal two's complement.
    assert_eq!(min_be(-9), vec![0xF7]);
    assert_eq!(min_be(9), vec![0x09]);
}

#[test]
fn decimal_p9_single_column() {
    check_decimal(9, 2, PhysicalType::INT32, None);
}

#[test]
fn decimal_p10_single_column() {
    check_decimal(10, 3, PhysicalType::INT64, None);
}

#[test]
fn decimal_p18_single_column() {
    check_decimal(18, 0, PhysicalType::INT64, None);
}

#[test]
fn decimal_p19_single_column() {
    check_decimal(19, 4, PhysicalType::FIXED_LEN_BYTE_ARRAY, Some(9));
}

#[test]
fn decimal_p38_single_column() {
    check_decimal(38, 10, PhysicalType::FIXED_LEN_BYTE_ARRAY, Some(16));
}

/// (precision, values, expected lower, expected upper)
type DecimalCase = (u8, &'static [i128], &'static [u8], &'static [u8]);

#[test]
fn decimal_bounds_are_minimal_twos_complement() {
    let cases: [DecimalCase; 6] = [
        (9, &[0], &[0x00], &[0x00]),
        (9, &[128, 5], &[0x05], &[0x00, 0x80]),
        (9, &[-129, 3], &[0xFF, 0x7F], &[0x03]),
        (18, &[-129, 128], &[0xFF, 0x7F], &[0x00, 0x80]),
        (20, &[-129, 128, 0], &[0xFF, 0x7F], &[0x00, 0x80]),
        (38, &[-1, -128], &[0x80], &[0xFF]),
    ];
    for (precision, values, lower, upper) in cases {
        let array = Decimal128Array::from(values.to_vec())
            .with_precision_and_scale(precision, 2)
            .unwrap();
        let schema = schema_of(vec![field(
            "dec",
            DataType::Decimal128(precision, 2),
            true,
            7,
        )]);
        let batch = batch_of(&schema, vec![Arc::new(array)]);
        let (_, summary) = roundtrip(&schema, &[batch], HashMap::new());
        let c = column(&summary, 7);
        assert_eq!(
            c.lower.as_deref(),
            Some(lower),
            "lower of {values:?} p={precision}"
        );
        assert_eq!(
            c.upper.as_deref(),
            Some(upper),
            "upper of {values:?} p={precision}"
        );
    }
}

#[test]
fn date32_single_column() {
    let (f, a) = date32_col("dt", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::INT32, Some(LogicalType::Date));
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&DATE_MIN.to_le_bytes()),
        Some(&DATE_MAX.to_le_bytes()),
    );
}

#[test]
fn time64_single_column() {
    let (f, a) = time64_col("t", 1);
    let (_, summary, md) = single(f, a);
    let logical = LogicalType::Time(TimeType {
        is_adjusted_to_u_t_c: false,
        unit: ParquetTimeUnit::MICROS,
    });
    assert_leaf_type(&md, 1, PhysicalType::INT64, Some(logical));
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&0i64.to_le_bytes()),
        Some(&86_399_999_999i64.to_le_bytes()),
    );
}

fn timestamp_logical(adjusted: bool, unit: ParquetTimeUnit) -> LogicalType {
    LogicalType::Timestamp(TimestampType {
        is_adjusted_to_u_t_c: adjusted,
        unit,
    })
}

#[test]
fn timestamp_micros_single_column() {
    let (f, a) = timestamp_micros_col("ts", 1, None);
    let (_, summary, md) = single(f, a);
    let logical = timestamp_logical(false, ParquetTimeUnit::MICROS);
    assert_leaf_type(&md, 1, PhysicalType::INT64, Some(logical));
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&(-62_135_596_800_000_000i64).to_le_bytes()),
        Some(&253_402_300_799_999_999i64.to_le_bytes()),
    );
}

#[test]
fn timestamp_micros_utc_single_column() {
    let (f, a) = timestamp_micros_col("tstz", 1, Some("UTC"));
    let (_, summary, md) = single(f, a);
    let logical = timestamp_logical(true, ParquetTimeUnit::MICROS);
    assert_leaf_type(&md, 1, PhysicalType::INT64, Some(logical));
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&(-62_135_596_800_000_000i64).to_le_bytes()),
        Some(&253_402_300_799_999_999i64.to_le_bytes()),
    );
}

#[test]
fn timestamp_nanos_single_column() {
    let (f, a) = timestamp_nanos_col("ts_ns", 1, None);
    let (_, summary, md) = single(f, a);
    let logical = timestamp_logical(false, ParquetTimeUnit::NANOS);
    assert_leaf_type(&md, 1, PhysicalType::INT64, Some(logical));
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&(i64::MIN + 1).to_le_bytes()),
        Some(&i64::MAX.to_le_bytes()),
    );
}

#[test]
fn timestamp_nanos_utc_single_column() {
    let (f, a) = timestamp_nanos_col("tstz_ns", 1, Some("UTC"));
    let (_, _, md) = single(f, a);
    let logical = timestamp_logical(true, ParquetTimeUnit::NANOS);
    assert_leaf_type(&md, 1, PhysicalType::INT64, Some(logical));
}

#[test]
fn utf8_single_column() {
    let (f, a) = utf8_col("s", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::BYTE_ARRAY, Some(LogicalType::String));
    // Unsigned byte order (= code-point order): "" < "abc" < "héllo" < "é" < "日本語".
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(b""),
        Some("日本語".as_bytes()),
    );
}

#[test]
fn binary_single_column() {
    let (f, a) = binary_col("bin", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::BYTE_ARRAY, None);
    assert_metrics(column(&summary, 1), (6, 1), Some(b""), Some(b"\xff\x01"));
}

#[test]
fn fixed_size_binary_single_column() {
    let (f, a) = fixed5_col("fixed", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 1, PhysicalType::FIXED_LEN_BYTE_ARRAY, None);
    assert_eq!(leaf(&md, 1).type_length(), 5);
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(b"\x00\x00\x00\x00\x00"),
        Some(b"\xff\xff\xff\xff\xfe"),
    );
}

#[test]
fn uuid_single_column() {
    let (f, a) = uuid_col("u", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(
        &md,
        1,
        PhysicalType::FIXED_LEN_BYTE_ARRAY,
        Some(LogicalType::Uuid),
    );
    assert_eq!(leaf(&md, 1).type_length(), 16);
    assert_metrics(
        column(&summary, 1),
        (6, 1),
        Some(&uuid_bytes(0, 0)),
        Some(&uuid_bytes(0x7fff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff)),
    );
}

#[test]
fn struct_single_column() {
    let (f, a) = struct_col("s", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 2, PhysicalType::INT32, None);
    // Values under null struct rows (99, 5, "masked", "m", 100.0, -7.0) are nulls, not bounds.
    assert_metrics(
        column(&summary, 2),
        (6, 3),
        Some(&(-6i32).to_le_bytes()),
        Some(&4i32.to_le_bytes()),
    );
    assert_metrics(column(&summary, 3), (6, 3), Some(b"x"), Some(b"z"));
    let f = column(&summary, 4);
    assert!(f.float_metrics);
    assert_eq!(f.nan_count, 1);
    assert_metrics(
        f,
        (6, 3),
        Some(&(-0.5f64).to_le_bytes()),
        Some(&1.0f64.to_le_bytes()),
    );
    // The struct itself is a group: no summary of its own.
    assert!(summary.columns.iter().all(|c| c.field_id != 1));
}

#[test]
fn list_int_single_column() {
    let (f, a) = list_int_col("l", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 2, PhysicalType::INT32, None);
    assert_eq!(summary.columns.len(), 1);
    let c = column(&summary, 2);
    assert!(c.repeated);
    assert!(c.column_size > 0);
    assert_eq!(leaf(&md, 2).path().string(), "l.list.element");
}

#[test]
fn list_struct_single_column() {
    let (f, a) = list_struct_col("ls", 1);
    let (_, summary, md) = single(f, a);
    assert_eq!(leaf(&md, 3).path().string(), "ls.list.element.x");
    assert_eq!(leaf(&md, 4).path().string(), "ls.list.element.y");
    let ids: Vec<i32> = summary.columns.iter().map(|c| c.field_id).collect();
    assert_eq!(ids, vec![3, 4]);
    for c in &summary.columns {
        assert!(c.repeated, "field {} is under a list", c.field_id);
        assert!(!c.float_metrics, "no float metrics under a list");
    }
}

#[test]
fn map_single_column() {
    let (f, a) = map_col("m", 1);
    let (_, summary, md) = single(f, a);
    assert_leaf_type(&md, 2, PhysicalType::BYTE_ARRAY, Some(LogicalType::String));
    assert_leaf_type(&md, 3, PhysicalType::INT64, None);
    assert_eq!(leaf(&md, 2).path().string(), "m.key_value.key");
    assert_eq!(leaf(&md, 3).path().string(), "m.key_value.value");
    let ids: Vec<i32> = summary.columns.iter().map(|c| c.field_id).collect();
    assert_eq!(ids, vec![2, 3]);
    assert!(summary.columns.iter().all(|c| c.repeated));
}

#[test]
fn all_null_single_column() {
    let (f, a) = all_null_col("nothing", 1);
    let (_, summary, _) = single(f, a);
    assert_metrics(column(&summary, 1), (6, 6), None, None);

    let schema = schema_of(vec![
        field("i", DataType::Int32, true, 2),
        field("d", DataType::Float64, true, 3),
    ]);
    let batch = batch_of(
        &schema,
        vec![
            Arc::new(Int32Array::from(vec![None; 4])),
            Arc::new(Float64Array::from(vec![None; 4])),
        ],
    );
    let (_, summary) = roundtrip(&schema, &[batch], HashMap::new());
    assert_metrics(column(&summary, 2), (4, 4), None, None);
    assert_metrics(column(&summary, 3), (4, 4), None, None);
    assert_eq!(column(&summary, 3).nan_count, 0);
}

#[test]
fn required_single_column() {
    let (f, a) = required_int64_col("id", 1);
    let (_, summary, md) = single(f, a);
    let descr = leaf(&md, 1);
    assert_eq!(
        descr.self_type().get_basic_info().repetition(),
        Repetition::REQUIRED
    );
    assert_eq!(descr.max_def_level(), 0);
    assert_metrics(
        column(&summary, 1),
        (6, 0),
        Some(&(-20i64).to_le_bytes()),
        Some(&42i64.to_le_bytes()),
    );
}

#[test]
fn empty_file_has_schema_and_no_row_groups() {
    let (f, _) = int64_col("l", 1);
    let schema = schema_of(vec![f]);
    let (file, summary) = roundtrip(&schema, &[], HashMap::new());
    let md = metadata_of(&file);
    assert_eq!(md.num_row_groups(), 0);
    assert_eq!(summary.record_count, 0);
    assert!(summary.split_offsets.is_empty());
    assert_eq!(column(&summary, 1).column_size, 0);
}

// ---------------------------------------------------------------------------------------------
// Footer: schema, field ids, types, metadata, codecs
// ---------------------------------------------------------------------------------------------

/// Every type in one file. Ids: see the generators; nested ones take consecutive ids.
fn wide_schema_and_batch() -> (SchemaRef, RecordBatch) {
    let columns = vec![
        bool_col("b", 1),
        int32_col("i", 2),
        required_int64_col("l", 3),
        float32_col("f", 4),
        float64_col("d", 5),
        decimal_col("dec1", 6, 1, 0),
        decimal_col("dec9", 7, 9, 2),
        decimal_col("dec10", 8, 10, 2),
        decimal_col("dec18", 9, 18, 3),
        decimal_col("dec19", 10, 19, 4),
        decimal_col("dec38", 11, 38, 10),
        date32_col("date", 12),
        time64_col("time", 13),
        timestamp_micros_col("ts", 14, None),
        timestamp_micros_col("tstz", 15, Some("UTC")),
        timestamp_nanos_col("ts_ns", 16, None),
        timestamp_nanos_col("tstz_ns", 17, Some("UTC")),
        utf8_col("s", 18),
        binary_col("bin", 19),
        fixed5_col("fixed", 20),
        uuid_col("u", 21),
        struct_col("st", 22),      // 22..=25
        list_int_col("tags", 26),  // 26, 27
        map_col("m", 28),          // 28..=30
        list_struct_col("ls", 31), // 31..=34
        all_null_col("nothing", 35),
    ];
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = schema_of(fields);
    let batch = batch_of(&schema, arrays);
    (schema, batch)
}

const WIDE_LEAVES: usize = 30;

/// Walks an Arrow field and its Parquet node together, checking names and field ids.
fn check_node(arrow: &Field, node: &ParquetType, path: &str) {
    let info = node.get_basic_info();
    assert_eq!(info.name(), arrow.name(), "name at {path}");
    let want_id: i32 = arrow.metadata()[FIELD_ID_KEY].parse().unwrap();
    assert!(info.has_id(), "{path} has a field id");
    assert_eq!(info.id(), want_id, "field id of {path}");
    let want_rep = if arrow.is_nullable() {
        Repetition::OPTIONAL
    } else {
        Repetition::REQUIRED
    };
    assert_eq!(info.repetition(), want_rep, "repetition of {path}");

    let synthetic = |node: &ParquetType, name: &str, children: usize| {
        assert!(node.is_group(), "{path}.{name} is a group");
        let info = node.get_basic_info();
        assert_eq!(info.name(), name, "synthetic group under {path}");
        assert_eq!(info.repetition(), Repetition::REPEATED);
        assert!(!info.has_id(), "{path}.{name} has no field id");
        assert_eq!(node.get_fields().len(), children);
    };
    match arrow.data_type() {
        DataType::Struct(children) => {
            assert!(node.is_group());
            assert_eq!(node.get_fields().len(), children.len());
            for (c, n) in children.iter().zip(node.get_fields()) {
                check_node(c, n, &format!("{path}.{}", c.name()));
            }
        }
        DataType::List(element) => {
            assert_eq!(info.logical_type_ref(), Some(&LogicalType::List));
            let list = &node.get_fields()[0];
            synthetic(list, "list", 1);
            check_node(
                element,
                &list.get_fields()[0],
                &format!("{path}.list.element"),
            );
        }
        DataType::Map(entries, _) => {
            assert_eq!(info.logical_type_ref(), Some(&LogicalType::Map));
            let key_value = &node.get_fields()[0];
            synthetic(key_value, "key_value", 2);
            let DataType::Struct(kv) = entries.data_type() else {
                unreachable!()
            };
            for (c, n) in kv.iter().zip(key_value.get_fields()) {
                check_node(c, n, &format!("{path}.key_value.{}", c.name()));
            }
        }
        _ => assert!(node.is_primitive(), "{path} is a leaf"),
    }
}

#[test]
fn footer_schema_names_and_field_ids() {
    let (schema, batch) = wide_schema_and_batch();
    let (file, summary) = roundtrip(&schema, &[batch], HashMap::new());
    let md = metadata_of(&file);
    let descr = md.file_metadata().schema_descr();
    let root = descr.root_schema();
    assert_eq!(root.name(), "table");
    assert_eq!(root.get_fields().len(), schema.fields().len());
    for (f, node) in schema.fields().iter().zip(root.get_fields()) {
        check_node(f, node, f.name());
    }
    assert_eq!(descr.num_columns(), WIDE_LEAVES);
    assert_eq!(summary.columns.len(), WIDE_LEAVES);
}

#[test]
fn footer_physical_and_logical_types() {
    let (schema, batch) = wide_schema_and_batch();
    let (file, _) = roundtrip(&schema, &[batch], HashMap::new());
    let md = metadata_of(&file);
    use PhysicalType as P;
    let decimal = |precision, scale| Some(LogicalType::Decimal(DecimalType { scale, precision }));
    let expected: Vec<(i32, PhysicalType, Option<LogicalType>, Option<i32>)> = vec![
        (1, P::BOOLEAN, None, None),
        (2, P::INT32, None, None),
        (3, P::INT64, None, None),
        (4, P::FLOAT, None, None),
        (5, P::DOUBLE, None, None),
        (6, P::INT32, decimal(1, 0), None),
        (7, P::INT32, decimal(9, 2), None),
        (8, P::INT64, decimal(10, 2), None),
        (9, P::INT64, decimal(18, 3), None),
        (10, P::FIXED_LEN_BYTE_ARRAY, decimal(19, 4), Some(9)),
        (11, P::FIXED_LEN_BYTE_ARRAY, decimal(38, 10), Some(16)),
        (12, P::INT32, Some(LogicalType::Date), None),
        (
            13,
            P::INT64,
            Some(LogicalType::Time(TimeType {
                is_adjusted_to_u_t_c: false,
                unit: ParquetTimeUnit::MICROS,
            })),
            None,
        ),
        (
            14,
            P::INT64,
            Some(timestamp_logical(false, ParquetTimeUnit::MICROS)),
            None,
        ),
        (
            15,
            P::INT64,
            Some(timestamp_logical(true, ParquetTimeUnit::MICROS)),
            None,
        ),
        (
            16,
            P::INT64,
            Some(timestamp_logical(false, ParquetTimeUnit::NANOS)),
            None,
        ),
        (
            17,
            P::INT64,
            Some(timestamp_logical(true, ParquetTimeUnit::NANOS)),
            None,
        ),
        (18, P::BYTE_ARRAY, Some(LogicalType::String), None),
        (19, P::BYTE_ARRAY, None, None),
        (20, P::FIXED_LEN_BYTE_ARRAY, None, Some(5)),
        (
            21,
            P::FIXED_LEN_BYTE_ARRAY,
            Some(LogicalType::Uuid),
            Some(16),
        ),
        (23, P::INT32, None, None),
        (24, P::BYTE_ARRAY, Some(LogicalType::String), None),
        (25, P::DOUBLE, None, None),
        (27, P::INT32, None, None),
        (29, P::BYTE_ARRAY, Some(LogicalType::String), None),
        (30, P::INT64, None, None),
        (33, P::INT64, None, None),
        (34, P::DOUBLE, None, None),
        (35, P::BYTE_ARRAY, Some(LogicalType::String), None),
    ];
    for (id, physical, logical, length) in expected {
        assert_leaf_type(&md, id, physical, logical);
        if let Some(len) = length {
            assert_eq!(leaf(&md, id).type_length(), len, "length of {id}");
        }
    }
    // The map key is required, as Iceberg writes it.
    assert_eq!(leaf(&md, 29).max_def_level(), 2);
}

#[test]
fn footer_key_value_metadata_and_created_by() {
    let (schema, batch) = wide_schema_and_batch();
    let json = r#"{"type":"struct","schema-id":0,"fields":[]}"#;
    let options = WriterOptions::from_properties(HashMap::new()).with_iceberg_schema_json(json);
    let (file, _) = roundtrip_with(&schema, std::slice::from_ref(&batch), options);
    let md = metadata_of(&file);
    let fm = md.file_metadata();
    let kv = fm.key_value_metadata().expect("key-value metadata");
    assert_eq!(kv.len(), 1, "exactly one entry: {kv:?}");
    assert_eq!(kv[0].key, "iceberg.schema");
    assert_eq!(kv[0].value.as_deref(), Some(json));
    let created_by = fm.created_by().expect("created_by");
    assert!(created_by.starts_with("frazil version "), "{created_by}");

    // Without the schema JSON: nothing at all, in particular no ARROW:schema.
    let (file, _) = roundtrip(&schema, &[batch], HashMap::new());
    let md = metadata_of(&file);
    let kv = md.file_metadata().key_value_metadata();
    assert!(
        kv.is_none_or(|kv| kv.iter().all(|e| e.key != "ARROW:schema")),
        "{kv:?}"
    );
    assert!(kv.is_none_or(Vec::is_empty), "{kv:?}");
}

#[test]
fn default_codec_is_zstd() {
    let (schema, batch) = wide_schema_and_batch();
    let (file, _) = roundtrip(&schema, &[batch], HashMap::new());
    let md = metadata_of(&file);
    for rg in md.row_groups() {
        for chunk in rg.columns() {
            assert!(
                matches!(chunk.compression(), Compression::ZSTD(_)),
                "{}: {:?}",
                chunk.column_path(),
                chunk.compression()
            );
        }
    }
}

#[test]
fn uncompressed_codec_property() {
    let (schema, batch) = wide_schema_and_batch();
    let properties = props(&[("write.parquet.compression-codec", "uncompressed")]);
    let (file, _) = roundtrip(&schema, &[batch], properties);
    let md = metadata_of(&file);
    for rg in md.row_groups() {
        for chunk in rg.columns() {
            assert_eq!(chunk.compression(), Compression::UNCOMPRESSED);
        }
    }
}

#[test]
fn snappy_codec_property() {
    let (f, a) = utf8_col("s", 1);
    let properties = props(&[("write.parquet.compression-codec", "snappy")]);
    let (_, _, md) = single_with(f, a, properties);
    for rg in md.row_groups() {
        assert_eq!(rg.column(0).compression(), Compression::SNAPPY);
    }
}

#[test]
fn stats_disabled_for_one_column() {
    let schema = schema_of(vec![
        field("a", DataType::Int64, true, 1),
        field("b", DataType::Utf8, true, 2),
        field("c", DataType::Float64, true, 3),
    ]);
    let batch = batch_of(
        &schema,
        vec![
            Arc::new(Int64Array::from(vec![Some(3), None, Some(1)])),
            Arc::new(StringArray::from(vec![Some("q"), Some("r"), None])),
            Arc::new(Float64Array::from(vec![Some(2.0), None, Some(1.0)])),
        ],
    );
    let properties = props(&[("write.parquet.stats-enabled.column.b", "false")]);
    let (file, summary) = roundtrip(&schema, &[batch], properties);
    let md = metadata_of(&file);
    for rg in md.row_groups() {
        assert!(rg.column(0).statistics().is_some(), "a keeps statistics");
        assert!(rg.column(1).statistics().is_none(), "b has no statistics");
        assert!(rg.column(2).statistics().is_some(), "c keeps statistics");
    }
    let b = column(&summary, 2);
    assert!(!b.has_counts);
    assert_eq!((b.lower.as_ref(), b.upper.as_ref()), (None, None));
    assert_metrics(
        column(&summary, 1),
        (3, 1),
        Some(&1i64.to_le_bytes()),
        Some(&3i64.to_le_bytes()),
    );
}

#[test]
fn stats_disabled_for_nested_column_uses_iceberg_name() {
    let (f, a) = struct_col("s", 1);
    let properties = props(&[("write.parquet.stats-enabled.column.s.b", "false")]);
    let (_, summary, md) = single_with(f, a, properties);
    let b = leaf_index(&md, 3);
    for rg in md.row_groups() {
        assert!(rg.column(b).statistics().is_none());
        assert!(rg.column(leaf_index(&md, 2)).statistics().is_some());
    }
    assert!(!column(&summary, 3).has_counts);
    assert!(column(&summary, 2).has_counts);
}

fn bloom_reader(file: &[u8]) -> SerializedFileReader<Bytes> {
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    SerializedFileReader::new_with_options(Bytes::copy_from_slice(file), options)
        .expect("serialized reader")
}

#[test]
fn bloom_filter_for_one_column() {
    let rows = 500;
    let ids: Vec<i64> = (0..rows).map(|i| i * 7919 - 100_000).collect();
    let names: Vec<String> = (0..rows).map(|i| format!("name-{i}-é")).collect();
    let schema = schema_of(vec![
        field("id", DataType::Int64, false, 1),
        field("name", DataType::Utf8, true, 2),
        field("other", DataType::Int32, true, 3),
    ]);
    let batch = batch_of(
        &schema,
        vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(StringArray::from(names.clone())),
            Arc::new(Int32Array::from((0..rows as i32).collect::<Vec<_>>())),
        ],
    );
    for (column_name, bloom_index) in [("name", 1), ("id", 0)] {
        let key = format!("write.parquet.bloom-filter-enabled.column.{column_name}");
        let properties = props(&[(key.as_str(), "true")]);
        let (file, _) = roundtrip(&schema, std::slice::from_ref(&batch), properties);
        let reader = bloom_reader(&file);
        for rg in 0..reader.num_row_groups() {
            let row_group = reader.get_row_group(rg).unwrap();
            for c in 0..3 {
                let has = row_group
                    .metadata()
                    .column(c)
                    .bloom_filter_offset()
                    .is_some();
                assert_eq!(has, c == bloom_index, "bloom filter offset of column {c}");
                assert_eq!(
                    row_group.get_column_bloom_filter(c).is_some(),
                    c == bloom_index,
                    "bloom filter of column {c}"
                );
            }
            let sbbf = row_group.get_column_bloom_filter(bloom_index).unwrap();
            if bloom_index == 1 {
                for name in &names {
                    assert!(sbbf.check(name.as_str()), "{name} might be present");
                }
            } else {
                for id in &ids {
                    assert!(sbbf.check(id), "{id} might be present");
                }
            }
        }
    }
}

#[test]
fn bloom_filter_for_list_element_uses_iceberg_name() {
    let (f, a) = list_int_col("tags", 1);
    let properties = props(&[(
        "write.parquet.bloom-filter-enabled.column.tags.element",
        "true",
    )]);
    let (file, _, _) = single_with(f, a, properties);
    let reader = bloom_reader(&file);
    for rg in 0..reader.num_row_groups() {
        let row_group = reader.get_row_group(rg).unwrap();
        let sbbf = row_group
            .get_column_bloom_filter(0)
            .expect("element bloom filter");
        for v in [1i32, 2, 3, -7, 10, 20, 30] {
            assert!(sbbf.check(&v));
        }
    }
}

#[test]
fn unknown_column_in_column_property_is_skipped() {
    // Iceberg Java logs and skips per-column settings for columns not in the write schema
    // (e.g. left over after a rename); failing the writer would break such tables.
    let (f, _) = int64_col("l", 1);
    let schema = schema_of(vec![f]);
    let options =
        WriterOptions::from_properties(props(&[("write.parquet.stats-enabled.column.x", "false")]));
    assert!(NativeParquetWriter::try_new(schema, &options).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Row groups, split offsets, merged bounds
// ---------------------------------------------------------------------------------------------

/// Deterministic values (xorshift) so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[test]
fn small_row_groups_split_offsets_and_merged_bounds() {
    let schema = schema_of(vec![
        field("id", DataType::Int64, false, 1),
        field("name", DataType::Utf8, true, 2),
        field("amount", DataType::Decimal128(20, 2), true, 3),
        field("score", DataType::Float64, true, 4),
        field("day", DataType::Date32, true, 5),
        field("flag", DataType::Boolean, true, 6),
    ]);
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut batches = Vec::new();
    let (mut ids, mut names, mut amounts, mut scores, mut days) =
        (vec![], vec![], vec![], vec![], vec![]);
    for b in 0..24 {
        let rows = 300;
        let id: Vec<i64> = (0..rows).map(|i| (b * rows + i) as i64 - 3000).collect();
        let name: Vec<Option<String>> = (0..rows)
            .map(|_| {
                let r = rng.next();
                (!r.is_multiple_of(11))
                    .then(|| format!("n{:x}-{}", r >> 40, "ü".repeat((r % 4) as usize)))
            })
            .collect();
        let amount: Vec<Option<i128>> = (0..rows)
            .map(|_| {
                // Within decimal(20, 2): |v| < 10^19.
                let r = (rng.next() as i64 as i128) % 10i128.pow(19);
                (r % 13 != 0).then_some(r)
            })
            .collect();
        let score: Vec<Option<f64>> = (0..rows)
            .map(|_| {
                let r = rng.next();
                match r % 17 {
                    0 => None,
                    1 => Some(f64::NAN),
                    _ => Some((r >> 11) as f64 / (1u64 << 53) as f64 * 2000.0 - 1000.0),
                }
            })
            .collect();
        let day: Vec<Option<i32>> = (0..rows)
            .map(|_| Some((rng.next() % 40_000) as i32 - 20_000))
            .collect();
        let flag: Vec<Option<bool>> = (0..rows).map(|i| Some(b > 0 || i > 0)).collect();
        batches.push(batch_of(
            &schema,
            vec![
                Arc::new(Int64Array::from(id.clone())),
                Arc::new(StringArray::from(name.clone())),
                Arc::new(
                    Decimal128Array::from(amount.clone())
                        .with_precision_and_scale(20, 2)
                        .unwrap(),
                ),
                Arc::new(Float64Array::from(score.clone())),
                Arc::new(Date32Array::from(day.clone())),
                Arc::new(BooleanArray::from(flag)),
            ],
        ));
        ids.extend(id);
        names.extend(name.into_iter().flatten());
        amounts.extend(amount.into_iter().flatten());
        scores.extend(score);
        days.extend(day.into_iter().flatten());
    }
    let properties = props(&[("write.parquet.row-group-size-bytes", "1024")]);
    let (file, summary) = roundtrip(&schema, &batches, properties);
    let md = metadata_of(&file);
    assert!(
        md.num_row_groups() > 3,
        "{} row groups",
        md.num_row_groups()
    );
    assert_eq!(summary.split_offsets.len(), md.num_row_groups());
    assert_eq!(summary.record_count, ids.len() as i64);
    let rows_in_groups: i64 = md.row_groups().iter().map(|rg| rg.num_rows()).sum();
    assert_eq!(rows_in_groups, ids.len() as i64);

    let id_bounds = (ids.iter().min().unwrap(), ids.iter().max().unwrap());
    assert_metrics(
        column(&summary, 1),
        (ids.len() as i64, 0),
        Some(&id_bounds.0.to_le_bytes()),
        Some(&id_bounds.1.to_le_bytes()),
    );
    let name_lo = names.iter().map(String::as_bytes).min().unwrap();
    let name_hi = names.iter().map(String::as_bytes).max().unwrap();
    let name_nulls = ids.len() - names.len();
    assert_metrics(
        column(&summary, 2),
        (ids.len() as i64, name_nulls as i64),
        Some(name_lo),
        Some(name_hi),
    );
    let amount_nulls = ids.len() - amounts.len();
    assert_metrics(
        column(&summary, 3),
        (ids.len() as i64, amount_nulls as i64),
        Some(&min_be(*amounts.iter().min().unwrap())),
        Some(&min_be(*amounts.iter().max().unwrap())),
    );
    let finite: Vec<f64> = scores
        .iter()
        .flatten()
        .copied()
        .filter(|v| !v.is_nan())
        .collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s = column(&summary, 4);
    assert_eq!(
        s.nan_count,
        scores.iter().flatten().filter(|v| v.is_nan()).count() as i64
    );
    assert_metrics(
        s,
        (
            ids.len() as i64,
            scores.iter().filter(|v| v.is_none()).count() as i64,
        ),
        Some(&lo.to_le_bytes()),
        Some(&hi.to_le_bytes()),
    );
    assert_metrics(
        column(&summary, 5),
        (ids.len() as i64, 0),
        Some(&days.iter().min().unwrap().to_le_bytes()),
        Some(&days.iter().max().unwrap().to_le_bytes()),
    );
    // Only the very first row holds `false`.
    assert_metrics(
        column(&summary, 6),
        (ids.len() as i64, 0),
        Some(&[0]),
        Some(&[1]),
    );
}

#[test]
fn split_offsets_use_dictionary_page_when_first() {
    // A low-cardinality first column is dictionary-encoded: its chunks start with the
    // dictionary page, and that is where each split begins.
    let schema = schema_of(vec![
        field("c", DataType::Utf8, false, 1),
        field("v", DataType::Int64, false, 2),
    ]);
    let batches: Vec<RecordBatch> = (0..8)
        .map(|b| {
            let c: Vec<&str> = (0..400).map(|i| ["x", "y", "z"][(i + b) % 3]).collect();
            let v: Vec<i64> = (0..400).map(|i| (b * 400 + i) as i64).collect();
            batch_of(
                &schema,
                vec![
                    Arc::new(StringArray::from(c)),
                    Arc::new(Int64Array::from(v)),
                ],
            )
        })
        .collect();
    let properties = props(&[("write.parquet.row-group-size-bytes", "1024")]);
    let (file, summary) = roundtrip(&schema, &batches, properties);
    let md = metadata_of(&file);
    assert!(md.num_row_groups() > 1);
    for (rg, split) in md.row_groups().iter().zip(&summary.split_offsets) {
        let first = rg.column(0);
        let dict = first.dictionary_page_offset().expect("dictionary page");
        assert!(dict < first.data_page_offset());
        assert_eq!(*split, dict);
    }
}

fn uuid_file(batches_of_uuids: &[Vec<Option<[u8; 16]>>]) -> (FileSummary, Arc<ParquetMetaData>) {
    let schema = schema_of(vec![uuid_field("u", 1)]);
    let batches: Vec<RecordBatch> = batches_of_uuids
        .iter()
        .map(|v| batch_of(&schema, vec![uuid_array(v)]))
        .collect();
    // Plain encoding, so 200 equal uuids (3200 bytes) overflow a 1 KiB row group.
    let properties = props(&[
        ("write.parquet.row-group-size-bytes", "1024"),
        ("parquet.enable.dictionary", "false"),
    ]);
    let (file, summary) = roundtrip(&schema, &batches, properties);
    (summary, metadata_of(&file))
}

#[test]
fn uuid_bounds_merge_signed_across_row_groups() {
    // Each batch holds one distinct uuid and is large enough to become its own row group, so
    // every chunk's min == max and only the cross-row-group merge decides the bounds.
    let high_bit = uuid_bytes(0x8000_0000_0000_0001, 5); // negative msb: the signed minimum
    let small = uuid_bytes(0x1000_0000_0000_0000, 0);
    let large = uuid_bytes(0x7000_0000_0000_0000, 0x8000_0000_0000_0000);
    let batches: Vec<Vec<Option<[u8; 16]>>> = [small, high_bit, large]
        .iter()
        .map(|u| vec![Some(*u); 200])
        .collect();
    let (summary, md) = uuid_file(&batches);
    assert_eq!(md.num_row_groups(), 3);
    let c = column(&summary, 1);
    assert_eq!(
        c.lower.as_deref(),
        Some(&high_bit[..]),
        "signed msb: 0x80.. is smallest"
    );
    assert_eq!(c.upper.as_deref(), Some(&large[..]));

    // lsb is compared signed too.
    let a = uuid_bytes(0x10, 0x8000_0000_0000_0000); // negative lsb
    let b = uuid_bytes(0x10, 0x0000_0000_0000_0001);
    let batches: Vec<Vec<Option<[u8; 16]>>> = [b, a].iter().map(|u| vec![Some(*u); 200]).collect();
    let (summary, md) = uuid_file(&batches);
    assert_eq!(md.num_row_groups(), 2);
    let c = column(&summary, 1);
    assert_eq!(c.lower.as_deref(), Some(&a[..]));
    assert_eq!(c.upper.as_deref(), Some(&b[..]));
}

// ---------------------------------------------------------------------------------------------
// Writer lifecycle and bad input
// ---------------------------------------------------------------------------------------------

#[test]
fn estimated_length_grows_and_is_exact_after_close_with_encode_time() {
    let (f, a) = utf8_col("s", 1);
    let schema = schema_of(vec![f]);
    let batch = batch_of(&schema, vec![a]);
    let options = WriterOptions::from_properties(HashMap::new());
    let mut writer = NativeParquetWriter::try_new(schema, &options).unwrap();
    let empty = writer.estimated_length();
    writer.write(&batch).unwrap();
    assert!(writer.estimated_length() > empty);
    let summary = writer.close().unwrap().clone();
    let size = summary.file_size;
    assert!(
        summary.encode_nanos > 0,
        "the summary reports the encode time"
    );
    // It crosses to Java right after the file size.
    let bytes = summary.to_bytes();
    assert_eq!(bytes[20..28], summary.encode_nanos.to_le_bytes());
    assert_eq!(writer.estimated_length(), size as u64);
    let mut file = Vec::new();
    drain_all(&mut writer, &mut file);
    assert_eq!(file.len() as i64, size);
    assert_eq!(&file[..4], b"PAR1");
    assert_eq!(&file[file.len() - 4..], b"PAR1");
}

#[test]
fn batch_with_different_schema_is_rejected() {
    let schema = schema_of(vec![field("a", DataType::Int64, true, 1)]);
    let options = WriterOptions::from_properties(HashMap::new());
    let mut writer = NativeParquetWriter::try_new(schema, &options).unwrap();
    for other in [
        field("a", DataType::Int64, true, 2),
        field("b", DataType::Int64, true, 1),
        field("a", DataType::Int32, true, 1),
    ] {
        let array: ArrayRef = match other.data_type() {
            DataType::Int32 => Arc::new(Int32Array::from(vec![1])),
            _ => Arc::new(Int64Array::from(vec![1])),
        };
        let batch = batch_of(&schema_of(vec![other]), vec![array]);
        let err = writer.write(&batch).expect_err("mismatched batch rejected");
        assert!(err.to_string().contains("schema"), "{err}");
    }
    // The writer is still usable afterwards.
    let ok = batch_of(writer.schema(), vec![Arc::new(Int64Array::from(vec![7]))]);
    writer.write(&ok).unwrap();
    assert_eq!(writer.close().unwrap().record_count, 1);
}

#[test]
fn field_without_field_id_is_rejected() {
    let options = WriterOptions::from_properties(HashMap::new());
    let top = schema_of(vec![Field::new("no_id", DataType::Int64, true)]);
    let err = NativeParquetWriter::try_new(top, &options)
        .err()
        .expect("missing id rejected");
    assert!(err.to_string().contains("no_id"), "{err}");
    assert!(err.to_string().contains(FIELD_ID_KEY), "{err}");

    let nested = schema_of(vec![field(
        "s",
        DataType::Struct(Fields::from(vec![Field::new(
            "inner",
            DataType::Int32,
            true,
        )])),
        true,
        1,
    )]);
    let err = NativeParquetWriter::try_new(nested, &options)
        .err()
        .expect("missing nested id rejected");
    assert!(err.to_string().contains("inner"), "{err}");

    let list = schema_of(vec![list_field(
        "l",
        Field::new("element", DataType::Int32, true),
        1,
    )]);
    assert!(NativeParquetWriter::try_new(list, &options).is_err());
}

#[test]
fn unsupported_arrow_types_are_rejected() {
    let options = WriterOptions::from_properties(HashMap::new());
    for data_type in [
        DataType::Int8,
        DataType::Int16,
        DataType::UInt32,
        DataType::Float16,
        DataType::LargeUtf8,
        DataType::LargeBinary,
        DataType::Utf8View,
        DataType::Timestamp(TimeUnit::Second, None),
        DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        DataType::Time32(TimeUnit::Millisecond),
        DataType::Time64(TimeUnit::Nanosecond),
        DataType::Date64,
        DataType::Decimal256(40, 2),
    ] {
        let schema = schema_of(vec![field("bad", data_type.clone(), true, 1)]);
        let err = NativeParquetWriter::try_new(schema, &options)
            .err()
            .unwrap_or_else(|| panic!("{data_type} must be rejected"));
        assert!(err.to_string().contains("bad"), "{data_type}: {err}");
    }
    // uuid must be 16 bytes.
    let mut meta = id_meta(1);
    meta.insert(ICEBERG_TYPE_KEY.to_string(), "uuid".to_string());
    let schema = schema_of(vec![
        Field::new("u", DataType::FixedSizeBinary(8), true).with_metadata(meta)
    ]);
    assert!(NativeParquetWriter::try_new(schema, &options).is_err());
}

#[test]
fn write_after_close_is_rejected() {
    let (f, a) = int64_col("l", 1);
    let schema = schema_of(vec![f]);
    let batch = batch_of(&schema, vec![a]);
    let options = WriterOptions::from_properties(HashMap::new());
    let mut writer = NativeParquetWriter::try_new(schema, &options).unwrap();
    writer.write(&batch).unwrap();
    let first = writer.close().unwrap().clone();
    assert!(writer.is_closed());
    let err = writer.write(&batch).expect_err("write after close");
    assert!(err.to_string().contains("closed"), "{err}");
    // close is idempotent.
    assert_eq!(writer.close().unwrap(), &first);
}

#[test]
fn bad_property_values_are_rejected() {
    let (f, _) = int64_col("l", 1);
    let schema = schema_of(vec![f]);
    for (key, value) in [
        ("write.parquet.compression-codec", "brotli"),
        ("write.parquet.row-group-size-bytes", "0"),
        ("write.parquet.row-group-size-bytes", "lots"),
        ("write.parquet.page-version", "v3"),
    ] {
        let options = WriterOptions::from_properties(props(&[(key, value)]));
        let err = NativeParquetWriter::try_new(schema.clone(), &options)
            .err()
            .unwrap_or_else(|| panic!("{key}={value} must be rejected"));
        assert!(!err.to_string().is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Dictionary decision (parquet-java's first-page rule)
// ---------------------------------------------------------------------------------------------

#[test]
fn distinct_values_skip_the_dictionary_repeated_values_keep_it() {
    let (distinct, _) = int64_col("distinct", 1);
    let (repeated, _) = int64_col("repeated", 2);
    let schema = schema_of(vec![distinct, repeated]);
    // Several batches smaller than a page: the decision waits for a page's worth of rows.
    let batches: Vec<RecordBatch> = (0..5)
        .map(|b| {
            let start = b * 8192;
            batch_of(
                &schema,
                vec![
                    Arc::new(Int64Array::from_iter_values(start..start + 8192)),
                    Arc::new(Int64Array::from_iter_values(
                        (start..start + 8192).map(|i| i % 100),
                    )),
                ],
            )
        })
        .collect();
    let (file, summary) = roundtrip(&schema, &batches, props(&[]));
    assert_eq!(summary.record_count, 5 * 8192);
    let md = metadata_of(&file);
    for rg in md.row_groups() {
        assert!(
            rg.column(0).dictionary_page_offset().is_none(),
            "distinct longs are written plain"
        );
        assert!(
            rg.column(1).dictionary_page_offset().is_some(),
            "repeated longs keep their dictionary"
        );
    }
}
