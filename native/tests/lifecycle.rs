//! The writer's lifecycle (estimated length, close, write after close) and the input it
//! refuses: batches of another schema, fields without ids, unsupported types, bad properties.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int32Array, Int64Array};
use arrow::datatypes::{DataType, Field, Fields, TimeUnit};
use frazil::options::WriterOptions;
use frazil::schema::{FIELD_ID_KEY, ICEBERG_TYPE_KEY};
use frazil::writer::NativeParquetWriter;

use common::columns::*;
use common::files::*;
use common::{field, id_meta, schema_of};

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
