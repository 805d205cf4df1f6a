//! The footer of a file holding every type: schema names, field ids and repetitions, physical
//! and logical types, key-value metadata and `created_by`, and what the `write.parquet.*`
//! properties change in it (codecs, statistics, bloom filters).

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, SchemaRef};
use bytes::Bytes;
use frazil::options::WriterOptions;
use frazil::schema::FIELD_ID_KEY;
use frazil::writer::NativeParquetWriter;
use parquet::basic::{
    Compression, DecimalType, LogicalType, Repetition, TimeType, TimeUnit as ParquetTimeUnit,
    Type as PhysicalType,
};
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::schema::types::Type as ParquetType;

use common::columns::*;
use common::files::*;
use common::{field, schema_of};

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
