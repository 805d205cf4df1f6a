//! Single-thread cost of each `bid` column alone (1 Mi rows), with Zstd 3 and uncompressed:
//! the per-column costs behind the scaling projection (issue 16).
//!
//! `FRAZIL_ENCODER_THREADS=1 cargo run --release -p frazil-native --example column_costs -- 3`

use std::collections::HashMap;
use std::time::Instant;

#[path = "../benches/common/mod.rs"]
mod common;

fn process_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let after_name = &stat[stat.rfind(')').expect("stat format") + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| fields[i - 3].parse::<f64>().expect("ticks");
    (ticks(14) + ticks(15)) / 100.0
}

fn encode(
    schema: &arrow::datatypes::SchemaRef,
    batches: &[arrow::array::RecordBatch],
    codec: &str,
) -> usize {
    use frazil::encoder::ColumnParallelEncoder;
    use frazil::options::WriterOptions;
    use frazil::output::OutputBuffer;
    let options = WriterOptions::from_properties(HashMap::from([(
        "write.parquet.compression-codec".to_string(),
        codec.to_string(),
    )]));
    let descriptor = frazil::schema::parquet_schema(schema).expect("schema");
    let no_dictionary = frazil::dictionary::columns_without_dictionary_benefit(&batches[0]);
    let properties = options
        .to_writer_properties(&descriptor, &no_dictionary)
        .expect("properties");
    let mut encoder = ColumnParallelEncoder::try_new_with_own_compression(
        OutputBuffer::default(),
        schema.clone(),
        &descriptor,
        properties,
        options.row_group_bytes().expect("row group size"),
        false,
    )
    .expect("encoder")
    .with_threads(1);
    let mut chunk = vec![0u8; 1 << 20];
    let mut length = 0;
    for batch in batches {
        encoder.write(batch).expect("write");
        length += encoder.inner_mut().drain_into(&mut chunk);
    }
    encoder.finish().expect("finish");
    while encoder.inner_mut().pending() > 0 {
        length += encoder.inner_mut().drain_into(&mut chunk);
    }
    length
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .map_or(3, |r| r.parse().expect("reps"));
    let (schema, batches) = common::bid_batches();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let columns: Vec<Option<usize>> = (0..schema.fields().len()).map(Some).chain([None]).collect();
    for column in columns {
        let (schema, batches) = match column {
            Some(c) => (
                std::sync::Arc::new(schema.project(&[c]).expect("project")),
                batches
                    .iter()
                    .map(|b| b.project(&[c]).expect("project"))
                    .collect::<Vec<_>>(),
            ),
            None => (schema.clone(), batches.clone()),
        };
        let name = column.map_or("(all)".to_string(), |_| schema.field(0).name().clone());
        for codec in ["zstd", "uncompressed"] {
            encode(&schema, &batches, codec);
            let (cpu, wall) = (process_cpu_seconds(), Instant::now());
            let mut bytes = 0;
            for _ in 0..reps {
                bytes = encode(&schema, &batches, codec);
            }
            let wall = wall.elapsed().as_secs_f64() / reps as f64;
            let cpu = (process_cpu_seconds() - cpu) / reps as f64;
            println!(
                "column={name} codec={codec} rows={rows} bytes={bytes} wall_s={wall:.3} cpu_s={cpu:.3}"
            );
        }
    }
}
