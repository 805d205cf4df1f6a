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
//! time. A 10 s delay keeps it for reuse while files are being written. That memory did not come
//! back on its own once a thread went idle: in the fan-out trials, purge delays of 250 ms, 1 s and
//! 10 s left about the same RSS, and only a delay of 0 returned it (at about 14% more CPU for one
//! file). Our reading, not a documented rule: mimalloc v2 runs a due purge inside the owning
//! thread's later allocations and frees. So [`return_freed_memory`] hands the memory back when a
//! thread's work ends (its last open file freed, an encoder thread idle; see [`crate::jni`] and
//! [`crate::pool`]). Measured before the fan-out cohort's write at N = 16, after its warm-up
//! write: 706–707 MB of RSS instead of 783 MB.
//!
//! [`allocated_bytes`] is the library's live heap (what Rust code allocated and has not freed),
//! for the TaskManager's `nativeMemoryBytes` metric. The JVM's own allocations never come here:
//! this allocator serves only the library. Each thread adds up its own allocations and frees in
//! a thread-local count and moves it to the shared total only once it reaches [`FLUSH_BYTES`]
//! either way, and when the thread exits: a plain add on the thread's own cache line instead of
//! an atomic add on one line shared by every encoder thread, per allocation and per free. The
//! total is therefore exact to within [`FLUSH_BYTES`] per live thread.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Once;

use mimalloc::MiMalloc;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Bytes allocated and not yet freed, as far as the threads have flushed their counts (may dip
/// below zero transiently: a free on one thread can be counted before the allocation on another
/// thread that handed the memory over).
static ALLOCATED: AtomicI64 = AtomicI64::new(0);

/// How far (either way) a thread's count may drift before it is added to [`ALLOCATED`]: the
/// granularity of [`allocated_bytes`], per live thread.
pub const FLUSH_BYTES: isize = 64 * 1024;

/// A thread's bytes allocated minus freed that [`ALLOCATED`] does not hold yet; added to it when
/// the thread exits.
struct Pending(Cell<isize>);

impl Drop for Pending {
    fn drop(&mut self) {
        ALLOCATED.fetch_add(self.0.get() as i64, Ordering::Relaxed);
    }
}

thread_local! {
    // `const` and a `Cell`: no lazy initialisation and no allocation on access. The destructor is
    // registered on a thread's first access; on Linux and macOS the C runtime's registration
    // does not allocate through this allocator.
    static PENDING: Pending = const { Pending(Cell::new(0)) };
}

/// Counts `delta` bytes (negative for a free) in the thread's count, flushing it to
/// [`ALLOCATED`] once it reaches [`FLUSH_BYTES`] either way. Once the thread's count is gone
/// (frees from other thread-local destructors after it ran), straight into [`ALLOCATED`].
#[inline]
fn count(delta: isize) {
    let flush = PENDING
        .try_with(|pending| {
            let total = pending.0.get().wrapping_add(delta);
            if total.unsigned_abs() < FLUSH_BYTES.unsigned_abs() {
                pending.0.set(total);
                0
            } else {
                pending.0.set(0);
                total
            }
        })
        .unwrap_or(delta);
    if flush != 0 {
        ALLOCATED.fetch_add(flush as i64, Ordering::Relaxed);
    }
}

/// mimalloc, counting the bytes it hands out (see [`count`]).
pub struct CountingAllocator;

// SAFETY: every call is forwarded unchanged to mimalloc; the counter only observes sizes, and
// counting neither allocates nor unwinds.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { MiMalloc.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { MiMalloc.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { MiMalloc.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let new = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // Both sizes are at most isize::MAX (Layout's and realloc's contracts).
            count(new_size as isize - layout.size() as isize);
        }
        new
    }
}

/// Bytes the library has allocated and not freed, now (0 if the count is transiently negative).
/// Exact for the calling thread, whose count is flushed first; every other live thread may hold
/// up to [`FLUSH_BYTES`] either way that is not in it yet.
pub fn allocated_bytes() -> u64 {
    let mine = PENDING
        .try_with(|pending| pending.0.replace(0))
        .unwrap_or(0);
    if mine != 0 {
        ALLOCATED.fetch_add(mine as i64, Ordering::Relaxed);
    }
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

/// Returns the memory this thread freed (and mimalloc still keeps for reuse) to the OS now,
/// without waiting for the purge delay. Costs a walk over the thread's pages: call it when a
/// thread's work ends, not per file.
pub fn return_freed_memory() {
    // SAFETY: no arguments beyond the flag; collects the calling thread's heap.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

thread_local! {
    static LAST_RETURN: Cell<Option<std::time::Instant>> = const { Cell::new(None) };
}

/// [`return_freed_memory`], unless this thread already did so within the purge delay: a thread
/// that closes its only file and opens the next at once (a rolling file, a benchmark loop) would
/// otherwise fault the same memory in again for every file, the cost the delay exists to avoid.
pub fn return_freed_memory_if_due() {
    let due = LAST_RETURN
        .try_with(|last| {
            let now = std::time::Instant::now();
            let due = last
                .get()
                .is_none_or(|at| now.duration_since(at).as_millis() >= PURGE_DELAY_MS as u128);
            if due {
                last.set(Some(now));
            }
            due
        })
        .unwrap_or(false);
    if due {
        return_freed_memory();
    }
}

/// A byte buffer taken straight from mimalloc, outside [`allocated_bytes`]: a thread's working
/// memory that lives as long as the thread, as its Zstd context does (which Zstd allocates in C,
/// uncounted too). The memory budget reads [`allocated_bytes`] to decide when files must flush;
/// it can shed what files hold but not a thread's working buffer, so counting one there only
/// makes files flush early (a 2 MiB scratch per encoder thread cut row groups short under
/// pressure). Its contents are scratch: zeroed when it grows, whatever was written since.
pub struct UncountedBuffer {
    ptr: std::ptr::NonNull<u8>,
    capacity: usize,
}

impl UncountedBuffer {
    pub const fn new() -> Self {
        Self {
            ptr: std::ptr::NonNull::dangling(),
            capacity: 0,
        }
    }

    /// Bytes held now.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// At least `len` bytes to write into, growing the buffer when it is smaller (its old
    /// contents are dropped). `None` when mimalloc has no memory for it.
    pub fn with_room(&mut self, len: usize) -> Option<&mut [u8]> {
        if len > self.capacity {
            self.release();
            let layout = Layout::from_size_align(len, 1).ok()?;
            // SAFETY: `len > capacity >= 0`, so the layout is not zero-sized.
            let ptr = unsafe { MiMalloc.alloc_zeroed(layout) };
            self.ptr = std::ptr::NonNull::new(ptr)?;
            self.capacity = len;
        }
        // SAFETY: `ptr` points at `capacity` initialised bytes owned by this buffer (or is
        // dangling with a capacity of 0, a valid empty slice).
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.capacity) })
    }

    /// Frees the buffer (it grows again on the next [`Self::with_room`]).
    pub fn release(&mut self) {
        if self.capacity > 0 {
            // SAFETY: allocated in `with_room` with exactly this layout and not freed since.
            unsafe {
                MiMalloc.dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.capacity, 1),
                )
            };
            self.ptr = std::ptr::NonNull::dangling();
            self.capacity = 0;
        }
    }
}

impl Default for UncountedBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for UncountedBuffer {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// The tests that read the process-wide total run one at a time: each moves it by far more
    /// than the other's margin.
    static TOTAL: Mutex<()> = Mutex::new(());

    #[test]
    fn purge_delay_is_set() {
        configure();
        // SAFETY: reads an option.
        let value = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(value, PURGE_DELAY_MS as _);
    }

    /// The process's resident bytes: `VmRSS` of `/proc/self/status`, which the kernel gives in
    /// kB whatever the page size.
    #[cfg(target_os = "linux")]
    fn resident_bytes() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib * 1024
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn freed_memory_stays_for_reuse_until_the_thread_returns_it() {
        configure();
        const MIB: u64 = 1 << 20;
        const BLOCKS: usize = 256;
        // A thread of its own: its heap holds nothing but these blocks.
        std::thread::spawn(|| {
            // Written, so resident: 256 MiB, far more than the other tests move meanwhile.
            let blocks: Vec<Vec<u8>> = (0..BLOCKS).map(|_| vec![1u8; MIB as usize]).collect();
            let held = resident_bytes();
            drop(std::hint::black_box(blocks));
            let kept = resident_bytes();
            assert!(
                kept + 128 * MIB > held,
                "freed memory kept: {held} -> {kept}"
            );
            return_freed_memory();
            let returned = resident_bytes();
            assert!(
                returned + 128 * MIB <= held,
                "returned: {held} -> {returned}"
            );
        })
        .join()
        .unwrap();
    }

    #[test]
    fn allocations_are_counted_until_freed() {
        let _total = TOTAL.lock().unwrap_or_else(|e| e.into_inner());
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

    #[test]
    fn an_uncounted_buffer_is_left_out_of_the_count() {
        let _total = TOTAL.lock().unwrap_or_else(|e| e.into_inner());
        // As large as the counted allocation above, so a count of it could not hide among what
        // the other tests allocate meanwhile.
        const SIZE: usize = 1 << 30;
        let before = allocated_bytes();
        let mut buffer = UncountedBuffer::new();
        let room = buffer.with_room(SIZE).expect("memory for the buffer");
        assert!(room.len() >= SIZE);
        room[SIZE - 1] = 7;
        let held = allocated_bytes();
        assert!(held < before + SIZE as u64 / 4, "{before} -> {held}");
        // A smaller request keeps the buffer (and what was written in it).
        assert_eq!(buffer.with_room(16).map(|room| room[SIZE - 1]), Some(7));
        assert_eq!(buffer.capacity(), SIZE);
        buffer.release();
        assert_eq!(buffer.capacity(), 0);
        assert_eq!(buffer.with_room(0).map(|room| room.len()), Some(0));
        let after = allocated_bytes();
        assert!(after < before + SIZE as u64 / 4, "{before} -> {after}");
    }

    #[test]
    fn small_counts_stay_with_the_thread_until_they_reach_the_threshold() {
        // Counts only (no allocation in between), so nothing else moves this thread's count.
        let pending = || PENDING.with(|p| p.0.get());
        let start = pending();
        assert!(start.unsigned_abs() < FLUSH_BYTES.unsigned_abs(), "{start}");
        // Away from the threshold on whichever side `start` is.
        let step = if start < 0 { 1000 } else { -1000 };
        count(step);
        assert_eq!(pending(), start + step, "kept by the thread");
        count(-step);
        assert_eq!(pending(), start, "kept by the thread");
        // Reaching the threshold either way flushes everything, and the thread starts again
        // from zero.
        count(FLUSH_BYTES - start);
        assert_eq!(pending(), 0, "flushed at {FLUSH_BYTES}");
        count(-FLUSH_BYTES);
        assert_eq!(pending(), 0, "flushed at -{FLUSH_BYTES}");
        // Net zero: the counts above add up to nothing, and the thread holds `start` again.
        count(start);
        assert_eq!(pending(), start);
    }

    #[test]
    fn an_exiting_thread_flushes_its_count() {
        let _total = TOTAL.lock().unwrap_or_else(|e| e.into_inner());
        // Each block is held below the threshold by the thread that allocated it, so only the
        // flush at thread exit can bring it into the total; together they are far more than the
        // other tests (running at the same time) allocate or free.
        const THREADS: usize = 1024;
        const BLOCK: usize = FLUSH_BYTES as usize - 4096;
        let before = allocated_bytes();
        let blocks: Vec<Vec<u8>> = (0..THREADS)
            .map(|_| {
                std::thread::spawn(|| std::hint::black_box(Vec::<u8>::with_capacity(BLOCK)))
                    .join()
                    .unwrap()
            })
            .collect();
        let held = allocated_bytes();
        let total = (THREADS * BLOCK) as u64;
        assert!(held >= before + total / 2, "{before} -> {held}");
        // Freed here: this thread's frees pass the threshold again and again.
        drop(blocks);
        let after = allocated_bytes();
        assert!(after + total / 2 <= held, "{held} -> {after}");
    }
}
