//! Mutated real files through `NativeParquetReader`: every call returns `Ok` or `Err`, never a
//! panic (a panic would still be caught at the JNI boundary, but the reader's own contract is
//! `Err`) and never an abort. Files written by Frazil's writer and by arrow-rs's `ArrowWriter`
//! (dictionary and plain pages, v1 and v2 pages, several codecs and row groups, nested columns) are
//! mutated from a seed: bit flips, overwritten bytes, zeroed ranges, page-header and footer bytes,
//! a cut-out range, the footer length field. Each mutant is read as Java reads it: the footer the
//! tail names, then per row group the column chunks the mutant's footer states, then every batch.
//!
//! `FRAZIL_FUZZ_MUTANTS` (default 3000) and `FRAZIL_FUZZ_SEED` (default 20251201) set the run.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};

use arrow::array::{Array, RecordBatch};
use arrow::datatypes::SchemaRef;
use frazil::options::WriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::{WriterProperties, WriterVersion};

use common::columns::*;
use common::files::write_file;
use common::native_read::{footer_range, read_natively};
use common::schema_of;

fn sample() -> (SchemaRef, RecordBatch) {
    let columns = vec![
        required_int64_col("id", 1),
        int32_col("i", 2),
        float64_col("d", 3),
        decimal_col("dec", 4, 20, 2),
        utf8_col("s", 5),
        binary_col("b", 6),
        timestamp_micros_col("ts", 7, Some("+00:00")),
        struct_col("st", 10),
        list_int_col("li", 20),
        map_col("m", 30),
    ];
    let schema = schema_of(columns.iter().map(|(f, _)| f.clone()).collect());
    let batch = batch_of(&schema, columns.into_iter().map(|(_, a)| a).collect());
    (schema, batch)
}

/// Real files: the sample batch repeated (so dictionaries pay), written several ways.
fn files() -> Vec<(String, Vec<u8>)> {
    let (schema, batch) = sample();
    let batches = vec![batch.clone(); 120];
    let mut out = Vec::new();
    let arrow_rs = |props: WriterProperties| {
        let mut bytes = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut bytes, schema.clone(), Some(props)).unwrap();
        for b in &batches {
            writer.write(b).unwrap();
        }
        writer.close().unwrap();
        bytes
    };
    out.push((
        "arrow-rs dictionary snappy".to_string(),
        arrow_rs(
            WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build(),
        ),
    ));
    out.push((
        "arrow-rs plain uncompressed small pages v2".to_string(),
        arrow_rs(
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .set_data_page_row_count_limit(50)
                .set_write_batch_size(50)
                .build(),
        ),
    ));
    out.push((
        "arrow-rs zstd row groups".to_string(),
        arrow_rs(
            WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
                .set_max_row_group_row_count(Some(200))
                .build(),
        ),
    ));
    out.push((
        "arrow-rs gzip plain".to_string(),
        arrow_rs(
            WriterProperties::builder()
                .set_compression(Compression::GZIP(GzipLevel::default()))
                .set_dictionary_enabled(false)
                .build(),
        ),
    ));
    for (name, props) in [
        ("frazil default", HashMap::new()),
        (
            "frazil plain uncompressed v2",
            HashMap::from([
                ("parquet.enable.dictionary".to_string(), "false".to_string()),
                (
                    "write.parquet.compression-codec".to_string(),
                    "uncompressed".to_string(),
                ),
                ("write.parquet.page-version".to_string(), "v2".to_string()),
                ("write.parquet.page-row-limit".to_string(), "40".to_string()),
            ]),
        ),
    ] {
        let (bytes, _) = write_file(&schema, &batches, &WriterOptions::from_properties(props));
        out.push((name.to_string(), bytes));
    }
    out
}

/// xorshift64*: enough randomness for mutations, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(original: &[u8], rng: &mut Rng) -> (&'static str, Vec<u8>) {
    let mut bytes = original.to_vec();
    let n = bytes.len();
    let (footer_start, footer_end) = footer_range(original).expect("a real file");
    let kind = match rng.below(8) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(n);
                bytes[at] ^= 1 << rng.below(8);
            }
            "bit flips"
        }
        1 => {
            let at = rng.below(n);
            for b in bytes.iter_mut().skip(at).take(1 + rng.below(16)) {
                *b = rng.next() as u8;
            }
            "overwrite"
        }
        2 => {
            let at = rng.below(n);
            let max = if rng.below(2) == 0 { 64 } else { 4096 };
            let len = 1 + rng.below(max);
            let end = (at + len).min(n);
            bytes[at..end].fill(0);
            "zeroed"
        }
        3 => {
            // Just after a column chunk starts: page headers (the first, often a dictionary's).
            let meta = ParquetMetaDataReader::decode_metadata(&original[footer_start..footer_end])
                .unwrap();
            let rg = meta.row_group(rng.below(meta.num_row_groups()));
            let (start, _) = rg.column(rng.below(rg.num_columns())).byte_range();
            for _ in 0..1 + rng.below(3) {
                let at = (start as usize + rng.below(24)).min(n - 1);
                bytes[at] = rng.next() as u8;
            }
            "page header"
        }
        4 => {
            for _ in 0..1 + rng.below(4) {
                let at = footer_start + rng.below(footer_end - footer_start);
                bytes[at] ^= 1 << rng.below(8);
            }
            "footer bits"
        }
        5 => {
            let at = 4 + rng.below(footer_start - 4);
            let len = 1 + rng.below((footer_start - at).min(4096));
            bytes.drain(at..at + len);
            "cut data"
        }
        6 => {
            let footer_len = (footer_end - footer_start) as u32;
            let value = match rng.below(4) {
                0 => footer_len.wrapping_add(1 + rng.below(16) as u32),
                1 => footer_len.wrapping_sub(1 + rng.below(16) as u32),
                2 => rng.next() as u32,
                _ => rng.below(n) as u32,
            };
            bytes[n - 8..n - 4].copy_from_slice(&value.to_le_bytes());
            "footer length"
        }
        _ => {
            bytes.truncate(rng.below(n));
            "truncate"
        }
    };
    (kind, bytes)
}

/// Reads `bytes` as the Java side does; `Err` carries the first error.
fn read_all(bytes: &[u8]) -> Result<usize, String> {
    read_natively(bytes, 97).map(|batches| batches.iter().map(|b| b.len()).sum())
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutated_files_return_errors_not_panics() {
    let mutants: usize = env_or("FRAZIL_FUZZ_MUTANTS", 3000);
    // `make fuzz` draws signed seeds, as Java's are.
    let seed = env_or::<i64>("FRAZIL_FUZZ_SEED", 20251201) as u64;
    let files = files();
    for (name, bytes) in &files {
        assert!(
            read_all(bytes).is_ok_and(|rows| rows == 720),
            "{name} reads"
        );
    }
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut panics = Vec::new();
    for i in 0..mutants {
        let mutant_seed = seed.wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1;
        let mut rng = Rng(mutant_seed);
        let (name, original) = &files[rng.below(files.len())];
        let (kind, bytes) = mutate(original, &mut rng);
        let outcome = match catch_unwind(AssertUnwindSafe(|| read_all(&bytes))) {
            Ok(Ok(_)) => format!("{kind}: rows"),
            Ok(Err(_)) => format!("{kind}: error"),
            Err(payload) => {
                let text = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panics.push(format!("seed {mutant_seed} ({kind} of {name}): {text}"));
                format!("{kind}: PANIC")
            }
        };
        *outcomes.entry(outcome).or_default() += 1;
    }
    println!("{mutants} mutants from seed {seed}: {outcomes:#?}");
    assert!(
        panics.is_empty(),
        "{} mutants panicked in the reader:\n{}",
        panics.len(),
        panics.join("\n")
    );
}
