//! The encoder as a whole: its bytes against arrow-rs compressing its own pages, the same bytes
//! whatever the thread count, and panics on encoder threads or in compression jobs reported as
//! failures, never hangs.

use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::file::properties::WriterProperties;

use super::*;
use crate::schema::{parquet_schema, FIELD_ID_KEY};

fn field(name: &str, data_type: DataType, id: &str) -> Field {
    Field::new(name, data_type, false).with_metadata(std::collections::HashMap::from([(
        FIELD_ID_KEY.to_string(),
        id.to_string(),
    )]))
}

fn encoder(
    schema: &SchemaRef,
    row_group_bytes: usize,
    threads: usize,
) -> ColumnParallelEncoder<Vec<u8>> {
    encoder_with(
        schema,
        row_group_bytes,
        threads,
        WriterProperties::default(),
        true,
    )
}

fn encoder_with(
    schema: &SchemaRef,
    row_group_bytes: usize,
    threads: usize,
    properties: WriterProperties,
    own_compression: bool,
) -> ColumnParallelEncoder<Vec<u8>> {
    let descriptor = parquet_schema(schema).unwrap();
    ColumnParallelEncoder::try_new_with_own_compression(
        Vec::new(),
        Arc::clone(schema),
        &descriptor,
        properties,
        row_group_bytes,
        own_compression,
    )
    .unwrap()
    .with_threads(threads)
}

fn text_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("a", DataType::Int64, "1"),
        field("b", DataType::Utf8, "2"),
        Field::new("d", DataType::Utf8, true).with_metadata(std::collections::HashMap::from([(
            FIELD_ID_KEY.to_string(),
            "4".to_string(),
        )])),
        field("c", DataType::Utf8, "3"),
        Field::new("e", DataType::Utf8, true).with_metadata(std::collections::HashMap::from([(
            FIELD_ID_KEY.to_string(),
            "5".to_string(),
        )])),
    ]))
}

/// Zstd 3 with page statistics; `b` and `d` (text) without a dictionary, so their pages are
/// compressed on the pool when `own_compression`; `c` and `e` (all nulls) keep their
/// dictionary, and `a`'s dictionary falls back to plain pages within each row group.
fn text_properties() -> WriterProperties {
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::EnabledStatistics;
    use parquet::schema::types::ColumnPath;
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_data_page_size_limit(16 * 1024)
        .set_column_dictionary_enabled(ColumnPath::from("b"), false)
        .set_column_dictionary_enabled(ColumnPath::from("d"), false)
        .set_column_dictionary_page_size_limit(ColumnPath::from("a"), 4 * 1024)
        .build()
}

fn text_batch(schema: &SchemaRef, b: i64) -> RecordBatch {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(b * 5000..(b + 1) * 5000)),
        Arc::new(StringArray::from_iter_values((0..5000).map(|i| {
            format!(
                "payload {}-{} {}",
                i * 7919 % 10007,
                b,
                "xyzw".repeat((i % 23) as usize)
            )
        }))),
        Arc::new(StringArray::from_iter((0..5000).map(|i| {
            (i % 5 != 0).then(|| format!("note {}", (i * b) % 3001))
        }))),
        Arc::new(StringArray::from_iter_values(
            (0..5000).map(|i| format!("v{}", i % 37)),
        )),
        Arc::new(StringArray::from_iter((0..5000).map(|_| None::<&str>))),
    ];
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

/// A file of text columns; checks whether the pool compressed its text pages.
fn encode_text(threads: usize, row_group_bytes: usize, own_compression: bool) -> Vec<u8> {
    let schema = text_schema();
    let mut encoder = encoder_with(
        &schema,
        row_group_bytes,
        threads,
        text_properties(),
        own_compression,
    );
    assert_eq!(encoder.page_compression.is_some(), own_compression);
    for b in 0..12i64 {
        encoder.write(&text_batch(&schema, b)).unwrap();
        if b == 1 {
            encoder.flush().unwrap();
        }
    }
    encoder.finish().unwrap();
    std::mem::take(encoder.inner_mut())
}

fn encode(threads: usize, row_group_bytes: usize) -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![
        field("a", DataType::Int64, "1"),
        field("b", DataType::Utf8, "2"),
        field("c", DataType::Int64, "3"),
    ]));
    let mut encoder = encoder(&schema, row_group_bytes, threads);
    let mut completions = Vec::new();
    for b in 0..12i64 {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(b * 5000..(b + 1) * 5000)),
            Arc::new(StringArray::from_iter_values(
                (0..5000).map(|i| format!("v{}-{}", i % 37, (i * b) % 1009)),
            )),
            Arc::new(Int64Array::from_iter_values((0..5000).map(|i| i % 11))),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        completions.extend(encoder.write(&batch).unwrap());
        if b == 1 {
            encoder.flush().unwrap();
        }
    }
    encoder.finish().unwrap();
    assert!(completions.iter().all(|done| done.is_done()));
    assert!(encoder.encode_nanos() > 0, "encode time is measured");
    std::mem::take(encoder.inner_mut())
}

fn row_groups(bytes: Vec<u8>) -> usize {
    parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(bytes))
        .map(|r| parquet::file::reader::FileReader::metadata(&r).num_row_groups())
        .unwrap()
}

#[test]
fn a_panic_on_an_encoder_thread_is_reported_not_hung() {
    let schema = Arc::new(Schema::new(vec![field("a", DataType::Int64, "1")]));
    let mut encoder = encoder(&schema, usize::MAX, 2);
    let batch = |b: i64| {
        let column: ArrayRef = Arc::new(Int64Array::from_iter_values(b * 10..(b + 1) * 10));
        RecordBatch::try_new(schema.clone(), vec![column]).unwrap()
    };
    encoder.write(&batch(0)).unwrap();
    encoder.sync().unwrap();
    encoder.lanes.as_ref().unwrap()[0]
        .panic_next
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let done = encoder.write(&batch(1)).unwrap().unwrap();
    done.wait();
    let error = encoder.sync().unwrap_err();
    // A panic is an encoder failure (Java: NativeWriterException), not a misuse of the writer.
    assert!(matches!(error, NativeError::Panicked(_)), "{error:?}");
    let error = error.to_string();
    assert!(
        error.contains("native panic while encoding a column: injected encoder panic"),
        "{error}"
    );
    // The file cannot be finished any more, and says so.
    let later = encoder.write(&batch(2)).unwrap_err().to_string();
    assert!(
        later.contains("earlier batch")
            && later.contains("native panic while encoding a column: injected encoder panic"),
        "the later error names the first: {later}"
    );
    assert!(encoder.finish().is_err());
}

#[test]
fn own_compression_writes_the_bytes_arrow_rs_writes() {
    for row_group_bytes in [usize::MAX, 96 * 1024] {
        let arrow_rs = encode_text(2, row_group_bytes, false);
        assert_eq!(arrow_rs, encode_text(2, row_group_bytes, true));
        assert_eq!(arrow_rs, encode_text(1, row_group_bytes, true));
    }
    // The text columns are written compressed, with several pages and row groups.
    let file = encode_text(2, 96 * 1024, true);
    let reader =
        parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
    let metadata = parquet::file::reader::FileReader::metadata(&reader);
    assert!(metadata.num_row_groups() > 3);
    let column = metadata.row_group(2).column(1);
    assert_eq!(
        column.compression(),
        parquet::basic::Compression::ZSTD(Default::default())
    );
    assert!(column.compressed_size() < column.uncompressed_size() / 2);
    // The dictionary columns, and `a`, whose dictionary falls back to plain pages.
    for (i, name) in [(0, "a"), (3, "c"), (4, "e")] {
        let column = metadata.row_group(2).column(i);
        assert_eq!(column.column_path().string(), name);
        let dictionary = column.dictionary_page_offset().expect("a dictionary page");
        assert!(column.data_page_offset() > dictionary);
    }
    let encodings = |i| {
        metadata
            .row_group(2)
            .column(i)
            .encodings()
            .collect::<Vec<_>>()
    };
    assert!(encodings(0).contains(&parquet::basic::Encoding::PLAIN));
    assert!(encodings(0).contains(&parquet::basic::Encoding::RLE_DICTIONARY));
    // Every row reads back.
    let mut rows = 0;
    for row in parquet::file::reader::FileReader::get_row_iter(&reader, None).unwrap() {
        row.unwrap();
        rows += 1;
    }
    assert_eq!(rows, 12 * 5000);
}

#[test]
fn a_panic_in_a_compression_job_is_reported_not_hung() {
    let schema = text_schema();
    let mut encoder = encoder_with(&schema, usize::MAX, 2, text_properties(), true);
    encoder.write(&text_batch(&schema, 0)).unwrap();
    encoder.sync().unwrap();
    encoder.lanes.as_ref().unwrap()[1]
        .compressed()
        .expect("column b is compressed on the pool")
        .panic_next
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let mut error = None;
    for b in 1..6 {
        if let Err(e) = encoder.write(&text_batch(&schema, b)) {
            error = Some(e);
            break;
        }
    }
    let error = match error {
        Some(e) => e,
        None => encoder.finish().unwrap_err(),
    };
    assert!(matches!(error, NativeError::Panicked(_)), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("native panic while compressing a page: injected compression panic"),
        "{error}"
    );
    assert!(encoder.finish().is_err());
}

#[test]
fn threads_do_not_change_the_bytes() {
    assert_eq!(encode(1, usize::MAX), encode(3, usize::MAX));
    // Cut by size: the decision reads exact sizes, so the same row groups either way.
    let small = 64 * 1024;
    let inline = encode(1, small);
    assert!(row_groups(inline.clone()) > 3);
    for _ in 0..5 {
        assert_eq!(inline, encode(2, small));
    }
    // Pages compressed on the pool: their sizes are waited for, never guessed.
    let inline = encode_text(1, small, true);
    assert!(row_groups(inline.clone()) > 3);
    for threads in [2, 3, 2] {
        assert_eq!(inline, encode_text(threads, small, true));
    }
}

/// Text that Zstd cannot shrink much: pages of it stay large once compressed.
fn noise(seed: u64, len: usize) -> String {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'a' + (x % 26) as u8)
        })
        .collect()
}

/// Whole files encoded into an [`crate::output::OutputBuffer`] and into a `Vec`: the same bytes,
/// and the output buffer holds most of them as the encoder's own pages, not copies. `dictionary`
/// columns are spliced by Frazil's own compression (`own_compression`); the others reach the
/// buffer from its page stores, one page per write.
fn kept_share(own_compression: bool, dictionary: bool) -> f64 {
    use parquet::basic::{Compression, ZstdLevel};
    let schema = Arc::new(Schema::new(vec![
        field("id", DataType::Int64, "1"),
        field("text", DataType::Utf8, "2"),
    ]));
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
        .set_data_page_size_limit(64 * 1024)
        .set_dictionary_enabled(dictionary)
        .build();
    let batch = |b: u64| {
        let text = (0..4096u64).map(|i| {
            if dictionary {
                // 2,000 distinct values: a dictionary page of about 80 KB.
                noise((i * 7919 + b) % 2000, 40)
            } else {
                noise(b * 4096 + i, 40)
            }
        });
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values((0..4096).map(|i| {
                (b as i64 * 4096 + i).wrapping_mul(0x5851_f42d_4c95_7f2d)
            }))),
            Arc::new(StringArray::from_iter_values(text)),
        ];
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    };
    let descriptor = parquet_schema(&schema).unwrap();
    let mut into_vec = encoder_with(&schema, 4 << 20, 2, properties.clone(), own_compression);
    let mut into_buffer = ColumnParallelEncoder::try_new_with_own_compression(
        crate::output::OutputBuffer::default(),
        Arc::clone(&schema),
        &descriptor,
        properties,
        4 << 20,
        own_compression,
    )
    .unwrap()
    .with_threads(2);
    for b in 0..24 {
        into_vec.write(&batch(b)).unwrap();
        into_buffer.write(&batch(b)).unwrap();
    }
    into_vec.finish().unwrap();
    into_buffer.finish().unwrap();
    let expected = std::mem::take(into_vec.inner_mut());
    let buffer = into_buffer.inner_mut();
    let kept = buffer.kept_page_bytes();
    let mut written = vec![0u8; buffer.pending()];
    assert_eq!(buffer.drain_into(&mut written), written.len());
    assert_eq!(buffer.pending(), 0);
    assert!(
        written == expected,
        "the output buffer changed the file's bytes"
    );
    kept as f64 / expected.len() as f64
}

#[test]
fn an_output_buffer_writes_the_same_file_and_keeps_its_large_pages() {
    // Pages arrow-rs compressed and takes from the buffer's page stores; pages Frazil compressed,
    // taken from the same stores (no dictionary); chunks with a dictionary page, which Frazil
    // splices in 8 KiB pieces.
    let stored = kept_share(false, false);
    let own = kept_share(true, false);
    let spliced = kept_share(true, true);
    eprintln!("kept of the file: stored {stored:.3}, own {own:.3}, spliced {spliced:.3}");
    assert!(stored > 0.8, "stored pages: {stored:.3} of the file kept");
    assert!(own > 0.8, "own-compressed pages: {own:.3} of the file kept");
    assert!(
        spliced > 0.8,
        "spliced chunks: {spliced:.3} of the file kept"
    );
}
