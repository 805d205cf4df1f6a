//! Single-thread cost of each `bid` column alone (1 Mi rows), with Zstd 3 and uncompressed:
//! the per-column costs behind the scaling projection (issue 16).
//!
//! `FRAZIL_ENCODER_THREADS=1 cargo run --release -p frazil-native --example column_costs -- 3`

use std::time::Instant;

#[path = "../benches/common/mod.rs"]
mod common;

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
            common::encode_with(&schema, &batches, codec, false, Some(1));
            let (cpu, wall) = (common::process_cpu_seconds(), Instant::now());
            let mut bytes = 0;
            for _ in 0..reps {
                bytes = common::encode_with(&schema, &batches, codec, false, Some(1));
            }
            let wall = wall.elapsed().as_secs_f64() / reps as f64;
            let cpu = (common::process_cpu_seconds() - cpu) / reps as f64;
            println!(
                "column={name} codec={codec} rows={rows} bytes={bytes} wall_s={wall:.3} cpu_s={cpu:.3}"
            );
        }
    }
}
