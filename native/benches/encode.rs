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
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{
    Array, ArrayRef, Int64Array, RecordBatch, StringArray, StructArray, TimestampMicrosecondArray,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow::ffi::FFI_ArrowArray;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use frazil::options::WriterOptions;
use frazil::pipeline::PipelinedWriter;
use frazil::schema::FIELD_ID_KEY;
use frazil::writer::NativeParquetWriter;
use parquet::arrow::arrow_writer::{ArrowWriter, ArrowWriterOptions};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

const ROWS: usize = 1 << 20;
const BATCH_ROWS: usize = 8192;
const SEED: u64 = 0x5EED_1CEB_00DA_D00D;
/// JNI drain buffer size.
const DRAIN_CHUNK: usize = 1 << 20;

/// xorshift64*: tiny, deterministic, good enough for synthetic data.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn field(name: &str, data_type: DataType, id: i32) -> Field {
    Field::new(name, data_type, false)
        .with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
}

fn bid_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("auction", DataType::Int64, 1),
        field("bidder", DataType::Int64, 2),
        field("price", DataType::Int64, 3),
        field("channel", DataType::Utf8, 4),
        field("url", DataType::Utf8, 5),
        field(
            "date_time",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            6,
        ),
        field("extra", DataType::Utf8, 7),
    ]))
}

const CHANNELS: [&str; 4] = ["Google", "Facebook", "Baidu", "Apple"];
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn random_word(rng: &mut XorShift, len: usize) -> String {
    (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize] as char)
        .collect()
}

/// Nexmark's generator shape: hot auctions/bidders, a few well-known channels plus a long tail,
/// monotonically advancing event time, and a 50–100 byte `extra` payload.
fn bid_batches() -> (SchemaRef, Vec<RecordBatch>) {
    let schema = bid_schema();
    let mut rng = XorShift(SEED);
    let mut event_time: i64 = 1_700_000_000_000_000;
    let mut batches = Vec::with_capacity(ROWS / BATCH_ROWS);
    for b in 0..ROWS / BATCH_ROWS {
        let base = (b * BATCH_ROWS) as u64;
        let mut auction = Vec::with_capacity(BATCH_ROWS);
        let mut bidder = Vec::with_capacity(BATCH_ROWS);
        let mut price = Vec::with_capacity(BATCH_ROWS);
        let mut channel = Vec::with_capacity(BATCH_ROWS);
        let mut url = Vec::with_capacity(BATCH_ROWS);
        let mut date_time = Vec::with_capacity(BATCH_ROWS);
        let mut extra = Vec::with_capacity(BATCH_ROWS);
        for i in 0..BATCH_ROWS as u64 {
            let event = base + i;
            let hot = rng.below(100) < 90;
            auction.push(if hot {
                (event / 50) as i64 + 1000
            } else {
                rng.below(event / 50 + 1) as i64 + 1000
            });
            bidder.push(if hot {
                (event / 10) as i64 + 1000
            } else {
                rng.below(event / 10 + 1) as i64 + 1000
            });
            price.push((rng.below(10_000) as f64).powf(1.3) as i64 + 1);
            let c = rng.below(10_000);
            let (name, link) = if c < 9_000 {
                let name = CHANNELS[(c % 4) as usize];
                (
                    name.to_string(),
                    format!("https://www.nexmark.com/{name}/item.htm?query=1"),
                )
            } else {
                (
                    format!("channel-{c}"),
                    format!(
                        "https://www.nexmark.com/{}/{}/{}/item.htm?query=1&channel_id={c}",
                        random_word(&mut rng, 5),
                        random_word(&mut rng, 5),
                        random_word(&mut rng, 5),
                    ),
                )
            };
            channel.push(name);
            url.push(link);
            event_time += rng.below(20) as i64;
            date_time.push(event_time);
            let len = 50 + rng.below(51) as usize;
            extra.push(random_word(&mut rng, len));
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(auction)),
            Arc::new(Int64Array::from(bidder)),
            Arc::new(Int64Array::from(price)),
            Arc::new(StringArray::from(channel)),
            Arc::new(StringArray::from(url)),
            Arc::new(TimestampMicrosecondArray::from(date_time)),
            Arc::new(StringArray::from(extra)),
        ];
        batches.push(RecordBatch::try_new(schema.clone(), columns).expect("valid batch"));
    }
    (schema, batches)
}

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

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    targets = bench_encode, bench_cdata_import
}
criterion_main!(benches);
