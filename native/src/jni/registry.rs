//! Handles: a boxed value's address, passed to Java as a `jlong`.
//!
//! Every live handle is also recorded in a registry, so a stale or forged handle (use after
//! free, a handle of 0) is reported as `IllegalStateException` instead of touching freed
//! memory, and a registry's size is the live count tests check for leaks. Each value is
//! confined to one Java thread; the registry lock is held only for the lookup.

use std::collections::HashSet;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard};

use crate::error::{NativeError, Result};

/// The live handles of one kind of native object (`what` names it in errors).
pub struct Registry<T> {
    what: &'static str,
    live: Mutex<Option<HashSet<usize>>>,
    _values: PhantomData<fn() -> T>,
}

impl<T> Registry<T> {
    /// An empty registry for objects called `what` in error messages.
    pub const fn new(what: &'static str) -> Self {
        Registry {
            what,
            live: Mutex::new(None),
            _values: PhantomData,
        }
    }

    fn live(&self) -> MutexGuard<'_, Option<HashSet<usize>>> {
        // A panic while holding this lock cannot leave the set inconsistent (single insert/remove).
        self.live
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Moves `value` to the heap and returns its handle.
    pub fn insert(&self, value: T) -> i64 {
        let ptr = Box::into_raw(Box::new(value)) as usize;
        self.live().get_or_insert_with(HashSet::new).insert(ptr);
        ptr as i64
    }

    /// Runs `f` on the value behind `handle`.
    pub fn with<R>(&self, handle: i64, f: impl FnOnce(&mut T) -> Result<R>) -> Result<R> {
        let ptr = handle as usize;
        if !self.live().as_ref().is_some_and(|set| set.contains(&ptr)) {
            return Err(NativeError::InvalidState(format!(
                "{} handle {handle:#x} is not live (never opened, or already freed)",
                self.what
            )));
        }
        // SAFETY: the address came from Box::into_raw in insert and is still registered, so the
        // box is alive; Java confines each value to one thread, so this is the only borrow.
        let value = unsafe { &mut *(ptr as *mut T) };
        f(value)
    }

    /// Drops the value behind `handle` and returns whether it was live; a handle that is not
    /// live is ignored, so a second free is a no-op.
    pub fn remove(&self, handle: i64) -> bool {
        let ptr = handle as usize;
        let removed = self.live().as_mut().is_some_and(|set| set.remove(&ptr));
        if removed {
            // SAFETY: removed from the registry exactly once, so this is the single owner.
            drop(unsafe { Box::from_raw(ptr as *mut T) });
        }
        removed
    }

    /// Number of values inserted and not yet removed.
    pub fn live_count(&self) -> usize {
        self.live().as_ref().map_or(0, HashSet::len)
    }
}
