//! One round trip per type and shape: a column goes through `NativeParquetWriter`, the drained
//! bytes are read back with arrow-rs's reader, and the values, the Parquet physical and logical
//! types and the column's `FileSummary` metrics are checked against what Iceberg Java writes.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Decimal128Array, Float32Array, Float64Array, Int32Array};
use arrow::datatypes::DataType;
use parquet::basic::{
    DecimalType, LogicalType, Repetition, TimeType, TimeUnit as ParquetTimeUnit,
    Type as PhysicalType,
};

use common::columns::*;
use common::files::*;
use common::{field, schema_of};

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
