//! The process-wide encoder threads.
//!
//! One thread per core, started on first use and shared by every open writer, so a TaskManager
//! with many open files still runs a bounded number of encoder threads. Jobs never block on
//! each other (see [`crate::encoder`]); callers wait for their own work through
//! [`crate::encoder::BatchDone`]. Pool threads never call into the JVM.

use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver, RecvTimeoutError, Sender};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Runs `job` on an encoder thread. A job must catch its own panics (a panicking job ends its
/// thread); the pool starts at least two threads so one stuck job cannot stall everything.
pub fn spawn(job: impl FnOnce() + Send + 'static) {
    if pool().send(Box::new(job)).is_err() {
        // Receivers live as long as the threads, which never exit: unreachable in practice.
        panic!("the Frazil encoder pool is gone");
    }
}

fn pool() -> &'static Sender<Job> {
    static POOL: OnceLock<Sender<Job>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (sender, receiver) = unbounded::<Job>();
        for i in 0..pool_threads() {
            let jobs = receiver.clone();
            thread::Builder::new()
                .name(format!("frazil-encoder-{i}"))
                .spawn(move || run_jobs(&jobs))
                .expect("spawning a Frazil encoder thread");
        }
        sender
    })
}

/// An encoder thread with no job for this long returns the memory it freed to the OS (see
/// [`crate::allocator::return_freed_memory`]): the files it encoded are closed or paused.
const IDLE_RETURN_AFTER: Duration = Duration::from_secs(1);

/// An encoder thread's loop: runs jobs until the pool is gone, returning freed memory once per
/// idle spell.
fn run_jobs(jobs: &Receiver<Job>) {
    let mut returned = true;
    loop {
        let job = if returned {
            // Nothing left to return: wait for as long as it takes.
            match jobs.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        } else {
            match jobs.recv_timeout(IDLE_RETURN_AFTER) {
                Ok(job) => job,
                Err(RecvTimeoutError::Timeout) => {
                    crate::allocator::return_freed_memory();
                    returned = true;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        };
        job();
        returned = false;
    }
}

/// Encoder threads: `FRAZIL_ENCODER_THREADS` when set to a positive number, else one per core,
/// at least two.
pub fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::env::var("FRAZIL_ENCODER_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| thread::available_parallelism().map_or(2, |n| n.get()))
    })
}

fn pool_threads() -> usize {
    threads().max(2)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    #[test]
    fn jobs_run_on_named_encoder_threads() {
        let (tx, rx) = mpsc::channel();
        for _ in 0..pool_threads() * 2 {
            let tx = tx.clone();
            spawn(move || {
                let name = thread::current().name().map(str::to_string);
                tx.send(name).unwrap();
            });
        }
        for _ in 0..pool_threads() * 2 {
            let name = rx.recv().unwrap().unwrap();
            assert!(name.starts_with("frazil-encoder-"), "{name}");
        }
    }

    #[test]
    fn threads_idle_past_the_return_keep_taking_jobs() {
        let (tx, rx) = mpsc::channel();
        let send = |tx: &mpsc::Sender<u32>, n| {
            let tx = tx.clone();
            spawn(move || tx.send(n).unwrap());
        };
        send(&tx, 1);
        assert_eq!(rx.recv().unwrap(), 1);
        // Every thread passes its idle return (the pool is shared with other tests, so some may
        // be busy instead; the jobs below must run either way).
        thread::sleep(IDLE_RETURN_AFTER + Duration::from_millis(300));
        for n in 0..pool_threads() as u32 * 2 {
            send(&tx, n);
        }
        let mut got: Vec<u32> = (0..pool_threads() * 2)
            .map(|_| rx.recv().unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, (0..pool_threads() as u32 * 2).collect::<Vec<_>>());
    }
}
