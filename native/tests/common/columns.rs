//! Sample columns: each generator returns a field (with its Iceberg field id) and `N` values
//! covering nulls, extremes and the orderings Iceberg's metrics care about.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, FixedSizeBinaryArray,
    Float32Array, Float64Array, Int32Array, Int64Array, ListArray, MapArray, RecordBatch,
    StringArray, StructArray, Time64MicrosecondArray, TimestampMicrosecondArray,
    TimestampNanosecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, SchemaRef, TimeUnit};
use frazil::schema::ICEBERG_TYPE_KEY;

use super::{field, id_meta};

/// Rows produced by every column generator below, so any of them can share a batch.
pub const N: usize = 6;

pub fn uuid_field(name: &str, id: i32) -> Field {
    let mut meta = id_meta(id);
    meta.insert(ICEBERG_TYPE_KEY.to_string(), "uuid".to_string());
    Field::new(name, DataType::FixedSizeBinary(16), true).with_metadata(meta)
}

pub fn bool_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values = vec![Some(true), None, Some(false), Some(true), None, Some(true)];
    (
        field(name, DataType::Boolean, true, id),
        Arc::new(BooleanArray::from(values)),
    )
}

pub fn int32_col(name: &str, id: i32) -> (Field, ArrayRef) {
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

pub fn int64_col(name: &str, id: i32) -> (Field, ArrayRef) {
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

pub fn required_int64_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let values: Vec<i64> = vec![10, -20, 30, 0, 7, 42];
    (
        field(name, DataType::Int64, false, id),
        Arc::new(Int64Array::from(values)),
    )
}

pub fn float32_col(name: &str, id: i32) -> (Field, ArrayRef) {
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

pub fn float64_col(name: &str, id: i32) -> (Field, ArrayRef) {
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

pub fn decimal_max(precision: u8) -> i128 {
    10i128.pow(u32::from(precision)) - 1
}

pub fn decimal_col(name: &str, id: i32, precision: u8, scale: i8) -> (Field, ArrayRef) {
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

pub const DATE_MIN: i32 = -719_162; // 0001-01-01
pub const DATE_MAX: i32 = 2_932_896; // 9999-12-31

pub fn date32_col(name: &str, id: i32) -> (Field, ArrayRef) {
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

pub fn time64_col(name: &str, id: i32) -> (Field, ArrayRef) {
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

pub const TS_MICROS: [Option<i64>; N] = [
    Some(0),
    Some(-1),
    Some(1_700_000_000_123_456),
    None,
    Some(-62_135_596_800_000_000),
    Some(253_402_300_799_999_999),
];

pub fn timestamp_micros_col(name: &str, id: i32, tz: Option<&str>) -> (Field, ArrayRef) {
    let array = TimestampMicrosecondArray::from(TS_MICROS.to_vec()).with_timezone_opt(tz);
    (
        field(name, array.data_type().clone(), true, id),
        Arc::new(array),
    )
}

pub const TS_NANOS: [Option<i64>; N] = [
    Some(1_700_000_000_123_456_789),
    Some(-1),
    Some(0),
    None,
    Some(i64::MAX),
    Some(i64::MIN + 1),
];

pub fn timestamp_nanos_col(name: &str, id: i32, tz: Option<&str>) -> (Field, ArrayRef) {
    let array = TimestampNanosecondArray::from(TS_NANOS.to_vec()).with_timezone_opt(tz);
    (
        field(name, array.data_type().clone(), true, id),
        Arc::new(array),
    )
}

pub const STRINGS: [Option<&str>; N] = [
    Some("héllo"),
    Some(""),
    Some("日本語"),
    None,
    Some("abc"),
    Some("é"),
];

pub fn utf8_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (
        field(name, DataType::Utf8, true, id),
        Arc::new(StringArray::from(STRINGS.to_vec())),
    )
}

pub const BINARIES: [Option<&[u8]>; N] = [
    Some(b"\x00"),
    Some(b"\xff\x01"),
    Some(b""),
    None,
    Some(b"abc"),
    Some(b"\x7f"),
];

pub fn binary_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (
        field(name, DataType::Binary, true, id),
        Arc::new(BinaryArray::from_opt_vec(BINARIES.to_vec())),
    )
}

pub const FIXED5: [Option<&[u8; 5]>; N] = [
    Some(b"abcde"),
    Some(b"\x00\x00\x00\x00\x00"),
    Some(b"\xff\xff\xff\xff\xfe"),
    None,
    Some(b"hello"),
    Some(b"\x80\x00\x00\x00\x01"),
];

pub fn fixed5_col(name: &str, id: i32) -> (Field, ArrayRef) {
    let array = FixedSizeBinaryArray::try_from_sparse_iter_with_size(FIXED5.iter().copied(), 5)
        .expect("valid fixed");
    (
        field(name, DataType::FixedSizeBinary(5), true, id),
        Arc::new(array),
    )
}

pub fn uuid_bytes(msb: u64, lsb: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&msb.to_be_bytes());
    b[8..].copy_from_slice(&lsb.to_be_bytes());
    b
}

/// UUIDs whose most significant bit is clear, so signed and unsigned orders agree.
pub fn uuid_values() -> Vec<Option<[u8; 16]>> {
    vec![
        Some(uuid_bytes(0x1234_5678_9abc_4def, 0x8123_4567_89ab_cdef)),
        Some(uuid_bytes(0, 0)),
        Some(uuid_bytes(0x7fff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff)),
        None,
        Some(uuid_bytes(0x1234_5678_9abc_4def, 0x0000_0000_0000_0001)),
        Some(uuid_bytes(0x0f00_0000_0000_4000, 0x8000_0000_0000_0000)),
    ]
}

pub fn uuid_array(values: &[Option<[u8; 16]>]) -> ArrayRef {
    Arc::new(
        FixedSizeBinaryArray::try_from_sparse_iter_with_size(values.iter().map(|v| v.as_ref()), 16)
            .expect("valid uuids"),
    )
}

pub fn uuid_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (uuid_field(name, id), uuid_array(&uuid_values()))
}

/// `s struct<a int, b string, f double>` (ids base, base+1..base+3); rows 1 and 4 are null
/// structs whose children hold values that must not show up in the metrics.
pub fn struct_col(name: &str, base: i32) -> (Field, ArrayRef) {
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

pub fn list_field(name: &str, element: Field, id: i32) -> Field {
    field(name, DataType::List(Arc::new(element)), true, id)
}

/// `l list<int>` (ids base, base+1): `[1, 2], [], null, [null, 3], [-7], [10, 20, 30]`.
pub fn list_int_col(name: &str, base: i32) -> (Field, ArrayRef) {
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
pub fn list_struct_col(name: &str, base: i32) -> (Field, ArrayRef) {
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

pub fn map_entries_field(key: Field, value: Field) -> FieldRef {
    Arc::new(Field::new(
        "key_value",
        DataType::Struct(Fields::from(vec![key, value])),
        false,
    ))
}

/// `m map<string, long>` (ids base, key base+1, value base+2):
/// `{a: 1, b: null}, {}, null, {é: -5}, {k: 7}, {x: 1, y: 2}`.
pub fn map_col(name: &str, base: i32) -> (Field, ArrayRef) {
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

pub fn all_null_col(name: &str, id: i32) -> (Field, ArrayRef) {
    (
        field(name, DataType::Utf8, true, id),
        Arc::new(StringArray::from(vec![None::<&str>; N])),
    )
}

pub fn batch_of(schema: &SchemaRef, columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_new(schema.clone(), columns).expect("valid batch")
}
