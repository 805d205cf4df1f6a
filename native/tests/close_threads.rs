//! Closing many files at once, as a checkpoint does with a fan-out writer's open files, runs on
//! the process's encoder threads only: the number of threads stays bounded however many files
//! close together. Its own test binary, because it counts the process's threads.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use arrow::array::{ArrayRef, Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Schema};
use frazil::options::WriterOptions;
use frazil::writer::NativeParquetWriter;

use common::{field, schema_of};

const ENCODER_THREADS: usize = 8;
const CALLERS: usize = 16;
const FILES_PER_CALLER: usize = 64;
const COLUMNS: i32 = 8;

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| tasks.count())
        .unwrap_or(0)
}

fn schema() -> Arc<Schema> {
    schema_of(
        (1..=COLUMNS)
            .map(|id| field(&format!("c{id}"), DataType::Int64, true, id))
            .collect(),
    )
}

#[test]
fn closing_a_thousand_files_at_once_keeps_the_thread_count_bounded() {
    // SAFETY: the first statement of the only test in this binary; no other thread reads the
    // environment yet (the encoder pool reads it once, on first use below).
    unsafe { std::env::set_var("FRAZIL_ENCODER_THREADS", ENCODER_THREADS.to_string()) };
    let schema = schema();
    let columns: Vec<ArrayRef> = (0..COLUMNS)
        .map(|c| {
            Arc::new(Int64Array::from_iter_values(
                (0..2_000).map(|v| v * (c as i64 + 1)),
            )) as ArrayRef
        })
        .collect();
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let options = WriterOptions::from_properties(HashMap::new());

    // Warm the pool up, so its threads are part of the baseline.
    let mut warm = NativeParquetWriter::try_new(schema.clone(), &options).unwrap();
    warm.write(&batch).unwrap();
    warm.close().unwrap();

    let opened = Arc::new(Barrier::new(CALLERS + 1));
    let closed = Arc::new(Barrier::new(CALLERS + 1));
    let callers: Vec<_> = (0..CALLERS)
        .map(|_| {
            let (schema, batch, options) = (schema.clone(), batch.clone(), options.clone());
            let (opened, closed) = (opened.clone(), closed.clone());
            thread::spawn(move || {
                let mut writers: Vec<NativeParquetWriter> = (0..FILES_PER_CALLER)
                    .map(|_| {
                        let mut writer =
                            NativeParquetWriter::try_new(schema.clone(), &options).unwrap();
                        writer.write(&batch).unwrap();
                        writer
                    })
                    .collect();
                opened.wait();
                for writer in &mut writers {
                    let summary = writer.close().unwrap();
                    assert_eq!(summary.record_count, 2_000);
                }
                closed.wait();
            })
        })
        .collect();
    opened.wait();
    // Callers, pool, this thread and the harness: everything that should exist while closing.
    let baseline = thread_count();
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicUsize::new(baseline));
    let monitor = {
        let (stop, peak) = (stop.clone(), peak.clone());
        thread::spawn(move || {
            // Bounded: at most 60 s of sampling.
            for _ in 0..60_000 {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                peak.fetch_max(thread_count(), Ordering::SeqCst);
                thread::sleep(Duration::from_millis(1));
            }
        })
    };
    closed.wait();
    stop.store(true, Ordering::SeqCst);
    monitor.join().unwrap();
    for caller in callers {
        caller.join().unwrap();
    }
    let extra = peak.load(Ordering::SeqCst).saturating_sub(baseline);
    // The monitor itself is the one expected extra thread. Threads per close would add up to
    // CALLERS * (ENCODER_THREADS - 1) = 112.
    assert!(
        extra <= 2,
        "{} files closing at once started {extra} threads beyond the {baseline} already running",
        CALLERS * FILES_PER_CALLER
    );
}
