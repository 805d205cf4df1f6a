//! Wall and CPU time of whole-file writes of the `bid` batches (1 Mi rows), with the text pages
//! compressed by Frazil (reused contexts, text pages on the encoder threads: `pool`) or by their
//! arrow-rs column writers (`writer`):
//!
//! `FRAZIL_ENCODER_THREADS=2 cargo run --release -p frazil-native --example bid_write -- pool 5`
//!
//! CPU is the whole process's user + system time over the writes only (from `/proc/self/stat`),
//! so the batches' generation is not in it.

use std::time::Instant;

#[path = "../benches/common/mod.rs"]
mod common;

fn main() {
    let mut args = std::env::args().skip(1);
    let own_compression = match args.next().as_deref() {
        Some("pool") => true,
        Some("writer") => false,
        _ => panic!("usage: bid_write pool|writer [repetitions]"),
    };
    let repetitions: usize = args.next().map_or(5, |r| r.parse().expect("repetitions"));
    let (schema, batches) = common::bid_batches();
    // One warm-up write: starts the encoder threads and warms the allocator.
    let length = common::encode_with_encoder(&schema, &batches, own_compression);
    let cpu = common::process_cpu_seconds();
    let wall = Instant::now();
    for _ in 0..repetitions {
        common::encode_with_encoder(&schema, &batches, own_compression);
    }
    let wall = wall.elapsed().as_secs_f64() / repetitions as f64;
    let cpu = (common::process_cpu_seconds() - cpu) / repetitions as f64;
    println!(
        "mode={} threads={} file_bytes={length} wall_s={wall:.3} cpu_s={cpu:.3} cpu_per_wall={:.2}",
        if own_compression { "pool" } else { "writer" },
        frazil::pool::threads(),
        cpu / wall
    );
}
