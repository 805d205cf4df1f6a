//! Writer handles: a boxed writer's address, passed to Java as a `jlong`.
//!
//! Every live handle is also recorded in a registry, so a stale or forged handle (use after
//! free, a handle of 0) is reported as `IllegalStateException` instead of touching freed
//! memory, and the registry's size is the live-writer count tests check for leaks. Each
//! writer is confined to one Java thread; the registry lock is held only for the lookup.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};

use crate::error::{NativeError, Result};
use crate::pipeline::PipelinedWriter;

static LIVE: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn live() -> MutexGuard<'static, Option<HashSet<usize>>> {
    // A panic while holding this lock cannot leave the set inconsistent (single insert/remove).
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

thread_local! {
    /// Writers this thread opened and has not freed yet.
    static OPEN_HERE: Cell<usize> = const { Cell::new(0) };
}

/// Moves `writer` to the heap and returns its handle.
pub fn into_handle(writer: PipelinedWriter) -> i64 {
    let ptr = Box::into_raw(Box::new(writer)) as usize;
    live().get_or_insert_with(HashSet::new).insert(ptr);
    OPEN_HERE.with(|open| open.set(open.get() + 1));
    ptr as i64
}

/// Runs `f` on the writer behind `handle`.
pub fn with_writer<T>(handle: i64, f: impl FnOnce(&mut PipelinedWriter) -> Result<T>) -> Result<T> {
    let ptr = handle as usize;
    if !live().as_ref().is_some_and(|set| set.contains(&ptr)) {
        return Err(NativeError::InvalidState(format!(
            "native writer handle {handle:#x} is not live (never opened, or already freed)"
        )));
    }
    // SAFETY: the address came from Box::into_raw in into_handle and is still registered, so
    // the box is alive; Java confines each writer to one thread, so this is the only borrow.
    let writer = unsafe { &mut *(ptr as *mut PipelinedWriter) };
    f(writer)
}

/// Drops the writer behind `handle`. A handle that is not live is ignored, so a second free
/// is a no-op.
pub fn free(handle: i64) {
    let ptr = handle as usize;
    let removed = live().as_mut().is_some_and(|set| set.remove(&ptr));
    if removed {
        // SAFETY: removed from the registry exactly once, so this is the single owner.
        drop(unsafe { Box::from_raw(ptr as *mut PipelinedWriter) });
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
    live().as_ref().map_or(0, HashSet::len)
}
