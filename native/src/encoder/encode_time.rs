//! The time a file's columns take to encode, summed over the threads that encode them: the
//! figure the writer reports to Java as the file's native encode time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Nanoseconds spent encoding one file's columns (writing batches into the column writers and
/// closing them into chunks), summed over the threads that did it.
#[derive(Debug, Default)]
pub struct EncodeTime(AtomicU64);

impl EncodeTime {
    /// Adds the time until the returned guard drops.
    pub(super) fn measure(&self) -> EncodeTimer<'_> {
        EncodeTimer {
            total: self,
            start: Instant::now(),
        }
    }

    /// The sum so far.
    pub fn nanos(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Adds its lifetime to an [`EncodeTime`] when dropped (also when unwinding).
pub(super) struct EncodeTimer<'a> {
    total: &'a EncodeTime,
    start: Instant,
}

impl Drop for EncodeTimer<'_> {
    fn drop(&mut self) {
        let nanos = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.total.0.fetch_add(nanos, Ordering::Relaxed);
    }
}
