//! Writer handles, in the [`Registry`] of live writers.

use std::cell::Cell;

use super::registry::Registry;
use crate::error::Result;
use crate::pipeline::PipelinedWriter;

static WRITERS: Registry<PipelinedWriter> = Registry::new("native writer");

thread_local! {
    /// Writers this thread opened and has not freed yet.
    static OPEN_HERE: Cell<usize> = const { Cell::new(0) };
}

/// Moves `writer` to the heap and returns its handle.
pub fn into_handle(writer: PipelinedWriter) -> i64 {
    let handle = WRITERS.insert(writer);
    OPEN_HERE.with(|open| open.set(open.get() + 1));
    handle
}

/// Runs `f` on the writer behind `handle`.
pub fn with_writer<T>(handle: i64, f: impl FnOnce(&mut PipelinedWriter) -> Result<T>) -> Result<T> {
    WRITERS.with(handle, f)
}

/// Drops the writer behind `handle`. A handle that is not live is ignored, so a second free
/// is a no-op.
pub fn free(handle: i64) {
    if WRITERS.remove(handle) {
        // The thread's last file is gone (a Flink task at a checkpoint, a finished job): what its
        // files freed goes back to the OS rather than stay with a thread that may write nothing
        // more (at most once per purge delay; see the allocator). A writer freed on another
        // thread than its own leaves both counts as they are.
        let last_here = OPEN_HERE.with(|open| {
            let was = open.get();
            open.set(was.saturating_sub(1));
            was == 1
        });
        if last_here {
            crate::allocator::return_freed_memory_if_due();
        }
    }
}

/// Number of writers opened and not yet freed.
pub fn live_count() -> usize {
    WRITERS.live_count()
}
