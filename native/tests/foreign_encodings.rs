//! Files Frazil did not write: arrow-rs's `ArrowWriter` with every codec Parquet defines (but LZO)
//! and every encoding its types allow (PLAIN, RLE_DICTIONARY, RLE for booleans,
//! DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), in v1 and
//! v2 data pages, with and without statistics and page indexes, several pages and row groups.
//! Each is read through the native reader as Java reads it, and must hold exactly the values
//! written. (Parity with Iceberg's Java reader for parquet-java's files is
//! `TestForeignParquetReadParity` on the Java side.)

mod common;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::compute::concat;
use arrow::datatypes::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{
    BrotliLevel, Compression, Encoding, GzipLevel, Type as PhysicalType, ZstdLevel,
};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

use common::columns::*;
use common::files::{assert_same_values, metadata_of};
use common::native_read::read_natively;
use common::schema_of;

/// Times the sample rows are repeated: several pages and two row groups per file.
const REPEATS: usize = 200;

fn sample() -> (SchemaRef, Vec<RecordBatch>) {
    let columns = vec![
        bool_col("flag", 1),
        int32_col("i", 2),
        required_int64_col("id", 3),
        float32_col("f", 4),
        float64_col("d", 5),
        decimal_col("dec9", 6, 9, 2),
        decimal_col("dec18", 7, 18, 3),
        decimal_col("dec38", 8, 38, 4),
        date32_col("day", 9),
        timestamp_micros_col("ts", 10, Some("+00:00")),
        utf8_col("s", 11),
        binary_col("b", 12),
        fixed5_col("fx", 13),
        struct_col("st", 20),
        list_int_col("li", 30),
        list_struct_col("ls", 40),
        map_col("m", 50),
    ];
    let schema = schema_of(columns.iter().map(|(f, _)| f.clone()).collect());
    let batch = batch_of(&schema, columns.into_iter().map(|(_, a)| a).collect());
    (schema, vec![batch; REPEATS])
}

fn write(schema: &SchemaRef, batches: &[RecordBatch], props: WriterProperties) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, schema.clone(), Some(props)).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();
    bytes
}

/// Small pages and two row groups, so page boundaries and row-group changes are crossed.
fn base() -> parquet::file::properties::WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_data_page_row_count_limit(97)
        .set_write_batch_size(97)
        .set_max_row_group_row_count(Some(REPEATS * N / 2 + 11))
}

/// The encoding a family gives a leaf of `physical` type; `None` keeps PLAIN.
fn encoding_for(family: &str, physical: PhysicalType) -> Option<Encoding> {
    use PhysicalType::*;
    match (family, physical) {
        ("delta", INT32 | INT64) => Some(Encoding::DELTA_BINARY_PACKED),
        ("delta", BYTE_ARRAY) => Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
        ("delta", FIXED_LEN_BYTE_ARRAY) => Some(Encoding::DELTA_BYTE_ARRAY),
        ("delta", BOOLEAN) => Some(Encoding::RLE),
        ("prefix", BYTE_ARRAY | FIXED_LEN_BYTE_ARRAY) => Some(Encoding::DELTA_BYTE_ARRAY),
        ("split", FLOAT | DOUBLE | INT32 | INT64 | FIXED_LEN_BYTE_ARRAY) => {
            Some(Encoding::BYTE_STREAM_SPLIT)
        }
        _ => None,
    }
}

/// Dictionary off and each leaf encoded as `family` says, in `version` pages.
fn encoded(schema: &SchemaRef, family: &str, version: WriterVersion) -> WriterProperties {
    // The leaves' paths and physical types, from a plain file of the same schema.
    let plain = write(
        schema,
        &sample().1[..1],
        WriterProperties::builder().build(),
    );
    let metadata = metadata_of(&plain);
    let mut builder = base()
        .set_dictionary_enabled(false)
        .set_writer_version(version);
    for leaf in metadata.file_metadata().schema_descr().columns() {
        if let Some(encoding) = encoding_for(family, leaf.physical_type()) {
            builder = builder
                .set_column_encoding(ColumnPath::new(leaf.path().parts().to_vec()), encoding);
        }
    }
    builder.build()
}

fn files() -> Vec<(String, Vec<u8>)> {
    let (schema, batches) = sample();
    let mut files = Vec::new();
    let codecs = [
        ("uncompressed", Compression::UNCOMPRESSED),
        ("snappy", Compression::SNAPPY),
        ("gzip", Compression::GZIP(GzipLevel::default())),
        ("lz4 (hadoop)", Compression::LZ4),
        ("lz4_raw", Compression::LZ4_RAW),
        ("zstd", Compression::ZSTD(ZstdLevel::try_new(3).unwrap())),
        ("brotli", Compression::BROTLI(BrotliLevel::default())),
    ];
    for (name, codec) in codecs {
        for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
            let props = base()
                .set_compression(codec)
                .set_writer_version(version)
                .build();
            files.push((
                format!("{name}, dictionary, {version:?}"),
                write(&schema, &batches, props),
            ));
        }
    }
    for family in ["plain", "delta", "prefix", "split"] {
        for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
            let props = encoded(&schema, family, version);
            files.push((
                format!("{family} encodings, {version:?}"),
                write(&schema, &batches, props),
            ));
        }
    }
    for (name, statistics) in [
        ("no statistics, no page index", EnabledStatistics::None),
        ("chunk statistics only", EnabledStatistics::Chunk),
        ("page statistics and page index", EnabledStatistics::Page),
    ] {
        let props = base()
            .set_statistics_enabled(statistics)
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_compression(Compression::SNAPPY)
            .build();
        files.push((name.to_string(), write(&schema, &batches, props)));
    }
    files
}

#[test]
fn every_codec_and_encoding_reads_back_exactly() {
    let (schema, batches) = sample();
    let written: Vec<ArrayRef> = (0..schema.fields().len())
        .map(|i| {
            let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(i).as_ref()).collect();
            concat(&arrays).unwrap()
        })
        .collect();
    for (name, bytes) in files() {
        let read = read_natively(&bytes, 256).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(read.len() > 2, "{name}: several batches");
        for (i, field) in schema.fields().iter().enumerate() {
            let arrays: Vec<&dyn Array> = read.iter().map(|b| b.column(i).as_ref()).collect();
            let column = concat(&arrays).unwrap();
            assert_same_values(&format!("{name}: {}", field.name()), &written[i], &column);
        }
    }
}

#[test]
fn the_files_use_what_they_say() {
    // The matrix is only worth its name if arrow-rs wrote what was asked for.
    let files = files();
    let encodings_of = |name: &str| -> Vec<Encoding> {
        let bytes = &files.iter().find(|(n, _)| n == name).unwrap().1;
        let metadata = metadata_of(bytes);
        let mut all: Vec<Encoding> = metadata
            .row_groups()
            .iter()
            .flat_map(|rg| {
                rg.columns()
                    .iter()
                    .flat_map(|c| c.encodings().collect::<Vec<_>>())
            })
            .collect();
        all.sort_by_key(|e| *e as i32);
        all.dedup();
        all
    };
    for (name, expected) in [
        (
            "delta encodings, PARQUET_2_0",
            Encoding::DELTA_BINARY_PACKED,
        ),
        (
            "delta encodings, PARQUET_1_0",
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
        ),
        ("prefix encodings, PARQUET_2_0", Encoding::DELTA_BYTE_ARRAY),
        ("split encodings, PARQUET_1_0", Encoding::BYTE_STREAM_SPLIT),
        ("snappy, dictionary, PARQUET_1_0", Encoding::RLE_DICTIONARY),
    ] {
        assert!(
            encodings_of(name).contains(&expected),
            "{name} uses {expected:?}: {:?}",
            encodings_of(name)
        );
    }
    for (name, codec) in [
        ("brotli, dictionary, PARQUET_2_0", "BROTLI"),
        ("lz4_raw, dictionary, PARQUET_1_0", "LZ4_RAW"),
        ("lz4 (hadoop), dictionary, PARQUET_1_0", "LZ4"),
    ] {
        let bytes = &files.iter().find(|(n, _)| n == name).unwrap().1;
        let metadata = metadata_of(bytes);
        let column = metadata.row_group(0).column(1);
        assert!(
            format!("{:?}", column.compression()).starts_with(codec),
            "{name}: {:?}",
            column.compression()
        );
    }
}
