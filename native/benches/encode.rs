//! Encoding throughput on a Nexmark-like `bid` stream: Frazil's `NativeParquetWriter` (Iceberg
//! schema, footer summary, output drained like the JNI layer does) against a bare arrow-rs
//! `ArrowWriter` with the same `WriterProperties` writing into memory. Two more Frazil variants:
//! the writer with no compression (what remains without Zstd 3) and the pipelined writer with two
//! batches in flight, as the JNI layer drives it for RowData input.
//!
//! `cargo bench -p frazil-native --bench encode` (all cores), and with `FRAZIL_ENCODER_THREADS=1`
//! for the per-core comparison.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

mod common;

use common::{bid_batches, encode_with_encoder, ROWS};

use arrow::array::{Array, RecordBatch, StructArray};
use arrow::datatypes::SchemaRef;
use arrow::ffi::FFI_ArrowArray;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use frazil::options::WriterOptions;
use frazil::pipeline::PipelinedWriter;
use frazil::writer::NativeParquetWriter;
use parquet::arrow::arrow_writer::{ArrowWriter, ArrowWriterOptions};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

/// JNI drain buffer size.
const DRAIN_CHUNK: usize = 1 << 20;

/// The settings Frazil applies by default (`options.rs`), for the bare arrow-rs baseline:
/// Zstd 3, page statistics, untruncated chunk statistics.
fn baseline_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).expect("level 3")))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_statistics_truncate_length(None)
        .set_column_index_truncate_length(Some(64))
        .set_max_row_group_bytes(Some(128 * 1024 * 1024))
        .set_max_row_group_row_count(None)
        .set_data_page_size_limit(1024 * 1024)
        .set_data_page_row_count_limit(20_000)
        .set_dictionary_page_size_limit(2 * 1024 * 1024)
        .build()
}

/// Moves pending output into `out` the way the JNI `drain` does (peek, copy, consume).
fn drain(writer: &mut NativeParquetWriter, out: &mut Vec<u8>) {
    loop {
        let n = {
            let chunk = writer.peek_output(DRAIN_CHUNK);
            out.extend_from_slice(chunk);
            chunk.len()
        };
        if n == 0 {
            break;
        }
        writer.consume_output(n);
    }
}

fn encode_frazil(schema: &SchemaRef, batches: &[RecordBatch], options: &WriterOptions) -> usize {
    let mut writer = NativeParquetWriter::try_new(schema.clone(), options).expect("writer");
    let mut out = Vec::new();
    for batch in batches {
        writer.write(batch).expect("write");
        drain(&mut writer, &mut out);
    }
    black_box(writer.close().expect("close"));
    drain(&mut writer, &mut out);
    out.len()
}

/// As the JNI layer runs it for RowData input: up to two of the caller's batches in flight, so
/// the columns are encoded with no barrier between batches.
fn encode_pipelined(schema: &SchemaRef, batches: &[RecordBatch], options: &WriterOptions) -> usize {
    let writer = NativeParquetWriter::try_new(schema.clone(), options).expect("writer");
    let mut writer = PipelinedWriter::new(writer);
    let mut out = Vec::new();
    let mut sink = |chunk: &[u8]| {
        out.extend_from_slice(chunk);
        Ok(())
    };
    for batch in batches {
        writer.write(batch.clone(), 2).expect("write");
        while writer.drain_with(DRAIN_CHUNK, &mut sink).expect("drain") > 0 {}
    }
    black_box(writer.close().expect("close"));
    while writer.drain_with(DRAIN_CHUNK, &mut sink).expect("drain") > 0 {}
    out.len()
}

fn encode_arrow_rs(schema: &SchemaRef, batches: &[RecordBatch]) -> usize {
    let options = ArrowWriterOptions::new()
        .with_properties(baseline_properties())
        .with_skip_arrow_metadata(true);
    let mut writer = ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options)
        .expect("arrow writer");
    for batch in batches {
        writer.write(batch).expect("write");
    }
    black_box(writer.finish().expect("finish"));
    writer.inner().len()
}

/// The fixed cost of taking a batch over the C Data Interface, as the JNI `write` does first:
/// move the exported struct out, rebuild and validate the arrays. The Java-side export and the
/// JNI call itself are not in it (the JVM harness in `bench/` measures whole writes).
fn bench_cdata_import(c: &mut Criterion) {
    let (schema, batches) = bid_batches();
    let all = arrow::compute::concat_batches(&schema, &batches).expect("concat");
    let mut group = c.benchmark_group("cdata_import_per_batch");
    for rows in [1024usize, 8192, 65536] {
        let batch = all.slice(0, rows);
        group.throughput(Throughput::Elements(rows as u64));
        group.bench_function(format!("{rows}_rows"), |b| {
            b.iter_batched(
                || {
                    let data = StructArray::from(batch.clone()).into_data();
                    Box::new(FFI_ArrowArray::new(&data))
                },
                |mut exported| {
                    // SAFETY: a freshly exported struct of `schema`'s columns, released once.
                    let imported =
                        unsafe { frazil::ffi::import_batch(&mut *exported as *mut _, &schema) }
                            .expect("import");
                    black_box(imported.num_rows())
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn bench_encode(c: &mut Criterion) {
    let (schema, batches) = bid_batches();
    let options = WriterOptions::from_properties(HashMap::new());
    let mut group = c.benchmark_group("encode_bid_1Mi_rows");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("frazil_native_writer", |b| {
        b.iter(|| encode_frazil(&schema, black_box(&batches), &options))
    });
    // The same encoder with no compression: the difference to the first is what Zstd 3 costs,
    // a floor no encoder avoids (the stock writer pays it through zstd-jni too).
    let uncompressed = WriterOptions::from_properties(HashMap::from([(
        "write.parquet.compression-codec".to_string(),
        "uncompressed".to_string(),
    )]));
    group.bench_function("frazil_native_writer_uncompressed", |b| {
        b.iter(|| encode_frazil(&schema, black_box(&batches), &uncompressed))
    });
    group.bench_function("frazil_pipelined_writer", |b| {
        b.iter(|| encode_pipelined(&schema, black_box(&batches), &options))
    });
    group.bench_function("arrow_rs_arrow_writer", |b| {
        b.iter(|| encode_arrow_rs(&schema, black_box(&batches)))
    });
    group.finish();
}

/// The dominant-column case: the `bid` file's `extra` text is most of its bytes, so its Zstd work
/// bounds a file's wall time when one column writer compresses its pages itself. The same
/// encoder with the pages of the text columns without a dictionary compressed on the encoder
/// threads (`native/src/page_compression.rs`) and without; the files are byte for byte the same.
fn bench_dominant_column(c: &mut Criterion) {
    let (schema, batches) = bid_batches();
    let mut group = c.benchmark_group("encode_bid_dominant_text_1Mi_rows");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("pages_compressed_on_pool", |b| {
        b.iter(|| encode_with_encoder(&schema, black_box(&batches), true))
    });
    group.bench_function("pages_compressed_by_column_writer", |b| {
        b.iter(|| encode_with_encoder(&schema, black_box(&batches), false))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    targets = bench_encode, bench_dominant_column, bench_cdata_import
}
criterion_main!(benches);
