//! The global allocator, its one tuning, and a count of the bytes it holds for the library.
//!
//! mimalloc is built with `local_dynamic_tls`: this library is `dlopen`ed by the JVM, where the
//! initial-exec TLS model can fail with "cannot allocate memory in static TLS block". It is
//! mimalloc v2: v3 (the crate's default) crashed in `mi_thread_init` when several JVM threads
//! made their first allocation at once in the `dlopen`ed library (a SIGSEGV seen under Iceberg's
//! TestFlinkIcebergSinkV2 with four writer subtasks).
//!
//! Each data file allocates and frees megabytes of page and row-group buffers. With mimalloc's
//! default 10 ms purge delay that memory goes back to the OS between files and the next file
//! faults it in again, zeroing fresh (often huge) pages: measured at about a third of encode
//! time. A 10 s delay keeps it for reuse while files are being written and still returns it to
//! the OS when the writer goes idle.
//!
//! [`allocated_bytes`] is the library's live heap (what Rust code allocated and has not freed),
//! for the TaskManager's `nativeMemoryBytes` metric. The JVM's own allocations never come here:
//! this allocator serves only the library. It counts with one relaxed atomic add per allocation
//! and one per free (see the module tests and the bench numbers in the commit that added it).

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Once;

use mimalloc::MiMalloc;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Bytes allocated and not yet freed (may dip below zero transiently: a free on one thread can
/// be counted before the allocation on another thread that handed the memory over).
static ALLOCATED: AtomicI64 = AtomicI64::new(0);

/// mimalloc, counting the bytes it hands out into [`ALLOCATED`].
pub struct CountingAllocator;

// SAFETY: every call is forwarded unchanged to mimalloc; the counter only observes sizes.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { MiMalloc.alloc(layout) };
        if !ptr.is_null() {
            ALLOCATED.fetch_add(layout.size() as i64, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { MiMalloc.alloc_zeroed(layout) };
        if !ptr.is_null() {
            ALLOCATED.fetch_add(layout.size() as i64, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { MiMalloc.dealloc(ptr, layout) };
        ALLOCATED.fetch_sub(layout.size() as i64, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let new = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            ALLOCATED.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        }
        new
    }
}

/// Bytes the library has allocated and not freed, now (0 if the count is transiently negative).
pub fn allocated_bytes() -> u64 {
    ALLOCATED.load(Ordering::Relaxed).max(0) as u64
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (the same index in v2 and v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Milliseconds freed memory stays with mimalloc before it is returned to the OS.
pub const PURGE_DELAY_MS: i64 = 10_000;

/// Applies the allocator settings once per process.
pub fn configure() {
    static CONFIGURE: Once = Once::new();
    CONFIGURE.call_once(|| {
        // SAFETY: a plain option store; `Once` runs it on one thread, before writers start.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS as _) };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_delay_is_set() {
        configure();
        // SAFETY: reads an option.
        let value = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(value, PURGE_DELAY_MS as _);
    }

    #[test]
    fn allocations_are_counted_until_freed() {
        // Far larger than anything the other tests (running at the same time) allocate or free,
        // and never touched, so it costs address space only.
        const SIZE: usize = 1 << 30;
        let layout = Layout::from_size_align(SIZE, 64).unwrap();
        let before = allocated_bytes();
        // SAFETY: a non-zero size; freed below with the same layout.
        // (black_box: the compiler may otherwise drop an allocation nothing reads.)
        let ptr = std::hint::black_box(unsafe { std::alloc::alloc(layout) });
        assert!(!ptr.is_null());
        let held = allocated_bytes();
        assert!(held >= before + SIZE as u64 / 2, "{before} -> {held}");
        // SAFETY: allocated above with this layout.
        let ptr = std::hint::black_box(unsafe { std::alloc::realloc(ptr, layout, SIZE / 2) });
        assert!(!ptr.is_null());
        let shrunk = allocated_bytes();
        assert!(shrunk + SIZE as u64 / 4 <= held, "{held} -> {shrunk}");
        // SAFETY: reallocated above to this size, same alignment.
        unsafe { std::alloc::dealloc(ptr, Layout::from_size_align(SIZE / 2, 64).unwrap()) };
        let after = allocated_bytes();
        assert!(after + SIZE as u64 / 4 <= shrunk, "{shrunk} -> {after}");
        assert!(after < before + SIZE as u64 / 4, "{before} -> {after}");
    }
}
