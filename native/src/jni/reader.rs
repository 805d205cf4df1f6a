//! JNI exports for `io.frazil.jni.NativeParquetReader`, one shim per Java `native` method.
//!
//! ```text
//!  Java (source task thread)                      Rust
//!  open(footer, fileLength, batchRows) ────────►  parse the footer → handle
//!  exportSchema(handle, leaves, schemaAddr) ───►  Arrow schema of the projected leaves (once a file)
//!  beginRange(handle, offset, length) ─────────►  a byte range of the next row group …
//!  appendRange(handle, byte[], n) ─────────────►  … copied straight from the Java array
//!  startRowGroup(handle, rowGroup, leaves) ────►  decoder over the fetched ranges
//!  nextBatch(handle, arrayAddr) ───────────────►  one batch exported (ownership moves to Java), or 0
//!  close(handle) ──────────────────────────────►  drop the reader (a second close is a no-op)
//! ```
//!
//! Decoding runs on the calling thread; exported batches own their buffers and are released by
//! Java (on any thread) through the C Data release callback.

use arrow::array::Array;
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use jni::objects::{JByteArray, JClass, JIntArray};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

use super::exception::ThrowJava;
use super::registry::Registry;
use crate::error::{NativeError, Result};
use crate::reader::{batch_type, NativeParquetReader};

static READERS: Registry<NativeParquetReader> = Registry::new("native reader");

thread_local! {
    /// Readers this thread opened and has not closed yet.
    static OPEN_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn leaves(env: &Env<'_>, array: &JIntArray<'_>) -> Result<Vec<usize>> {
    let mut raw = vec![0; array.len(env)?];
    array.get_region(env, 0, &mut raw)?;
    raw.into_iter()
        .map(|leaf| {
            usize::try_from(leaf).map_err(|_| {
                NativeError::InvalidArgument(format!("leaf column {leaf} is negative"))
            })
        })
        .collect()
}

/// `static native long open(byte[] footer, long fileLength, int batchRows)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetReader_open<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    footer: JByteArray<'local>,
    file_length: jlong,
    batch_rows: jint,
) -> jlong {
    env.with_env(|env| -> Result<_> {
        let footer = env.convert_byte_array(&footer)?;
        let file_length = u64::try_from(file_length)
            .map_err(|_| NativeError::InvalidArgument("negative file length".into()))?;
        let reader = NativeParquetReader::open(&footer, file_length, batch_rows.max(1) as usize)?;
        let handle = READERS.insert(reader);
        OPEN_HERE.with(|open| open.set(open.get() + 1));
        Ok(handle)
    })
    .resolve::<ThrowJava>()
}

/// `static native int rowGroups(long handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetReader_rowGroups<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jint {
    env.with_env(|_env| -> Result<_> {
        READERS.with(handle, |reader| Ok(reader.row_groups() as jint))
    })
    .resolve::<ThrowJava>()
}

/// `static native void exportSchema(long handle, int[] leaves, long schemaAddr)`: writes the
/// projected batches' schema (a struct) into the empty `ArrowSchema` at `schemaAddr`.
///
/// # Safety
/// `schema_addr` must be the address of an allocated, released (empty) `ArrowSchema`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeParquetReader_exportSchema<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    leaf_columns: JIntArray<'local>,
    schema_addr: jlong,
) {
    env.with_env(|env| -> Result<_> {
        let leaves = leaves(env, &leaf_columns)?;
        let schema = READERS.with(handle, |reader| reader.projected_schema(&leaves))?;
        let ffi = FFI_ArrowSchema::try_from(batch_type(&schema))
            .map_err(|e| NativeError::arrow("exporting the projected schema", e))?;
        if schema_addr == 0 {
            return Err(NativeError::InvalidArgument(
                "null ArrowSchema address".into(),
            ));
        }
        // SAFETY: the caller passes an empty ArrowSchema struct it owns; it now owns `ffi`.
        unsafe { std::ptr::write(schema_addr as *mut FFI_ArrowSchema, ffi) };
        Ok(())
    })
    .resolve::<ThrowJava>()
}

/// `static native void beginRange(long handle, long offset, int length)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetReader_beginRange<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    offset: jlong,
    length: jint,
) {
    env.with_env(|_env| -> Result<_> {
        let (Ok(offset), Ok(length)) = (u64::try_from(offset), usize::try_from(length)) else {
            return Err(NativeError::InvalidArgument(format!(
                "byte range at {offset} of {length} bytes"
            )));
        };
        READERS.with(handle, |reader| {
            reader
                .fetched_mut()
                .begin(offset, length)
                .map_err(NativeError::InvalidArgument)
        })
    })
    .resolve::<ThrowJava>()
}

/// `static native void appendRange(long handle, byte[] bytes, int n)`: the next `n` bytes of the
/// range begun last, copied from the start of `bytes`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetReader_appendRange<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    bytes: JByteArray<'local>,
    n: jint,
) {
    env.with_env(|env| -> Result<_> {
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| bytes.len(env).is_ok_and(|len| n <= len))
            .ok_or_else(|| NativeError::InvalidArgument(format!("{n} bytes to append")))?;
        READERS.with(handle, |reader| {
            reader
                .fetched_mut()
                .append_with(n, |dst| {
                    // SAFETY: u8 and i8 have the same size and alignment; only the bits move.
                    let signed: &mut [i8] = unsafe {
                        std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<i8>(), dst.len())
                    };
                    bytes
                        .get_region(env, 0, signed)
                        .map_err(|e| format!("copying fetched bytes: {e}"))
                })
                .map_err(NativeError::InvalidArgument)
        })
    })
    .resolve::<ThrowJava>()
}

/// `static native void startRowGroup(long handle, int rowGroup, int[] leaves)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetReader_startRowGroup<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    row_group: jint,
    leaf_columns: JIntArray<'local>,
) {
    env.with_env(|env| -> Result<_> {
        let leaves = leaves(env, &leaf_columns)?;
        let row_group = usize::try_from(row_group)
            .map_err(|_| NativeError::InvalidArgument(format!("row group {row_group}")))?;
        READERS.with(handle, |reader| reader.start_row_group(row_group, &leaves))
    })
    .resolve::<ThrowJava>()
}

/// `static native int nextBatch(long handle, long arrayAddr)`: exports the next batch of the
/// row group into the empty `ArrowArray` at `arrayAddr` and returns its rows; returns 0, writing
/// nothing, once the row group is done.
///
/// # Safety
/// `array_addr` must be the address of an allocated, released (empty) `ArrowArray`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeParquetReader_nextBatch<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
) -> jint {
    env.with_env(|_env| -> Result<_> {
        if array_addr == 0 {
            return Err(NativeError::InvalidArgument(
                "null ArrowArray address".into(),
            ));
        }
        let Some(batch) = READERS.with(handle, |reader| reader.next_batch())? else {
            return Ok(0);
        };
        let rows = jint::try_from(batch.len())
            .map_err(|_| NativeError::InvalidState("batch of more than 2^31 rows".into()))?;
        let ffi = FFI_ArrowArray::new(&batch.to_data());
        // SAFETY: the caller passes an empty ArrowArray struct it owns; it now owns `ffi`.
        unsafe { std::ptr::write(array_addr as *mut FFI_ArrowArray, ffi) };
        Ok(rows)
    })
    .resolve::<ThrowJava>()
}

/// `static native void close(long handle)`: drops the reader; a second call is a no-op.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetReader_close<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    env.with_env(|_env| -> Result<_> {
        if READERS.remove(handle) {
            // The thread's last open file is gone (a split done, a job finished): what its reads
            // freed goes back to the OS, as for writers (at most once per purge delay; see the
            // allocator). Batches decoded ahead were freed by pool threads, which return theirs
            // when idle.
            let last_here = OPEN_HERE.with(|open| {
                let was = open.get();
                open.set(was.saturating_sub(1));
                was == 1
            });
            if last_here {
                crate::allocator::return_freed_memory_if_due();
            }
        }
        Ok(())
    })
    .resolve::<ThrowJava>()
}

/// `static native long liveReaders()`: readers opened and not yet closed (leak checks).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetReader_liveReaders<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> jlong {
    env.with_env(|_env| -> Result<_> { Ok(READERS.live_count() as jlong) })
        .resolve::<ThrowJava>()
}
