//! JNI exports for `io.frazil.jni.NativeParquetWriter`, one shim per Java `native` method.
//!
//! ```text
//!  Java (task thread)                         Rust
//!  open(schemaAddr, json, props) ──────────►  import schema (moved) → NativeParquetWriter → handle
//!  write(handle, arrayAddr, keep) ─────────►  import batch (moved) → column lanes; batches beyond
//!                                             the last `keep` are awaited and released here
//!  releaseEncoded(handle) ─────────────────►  release the batches already encoded (no wait);
//!                                             returns how many are still in use
//!  flushRowGroup(handle) ──────────────────►  close the row group early (memory budget), release
//!                                             every batch in flight
//!  drain(handle, byte[]) ──────────────────►  copy ready encoded bytes into the Java array
//!  close(handle) ──────────────────────────►  footer → summary bytes (footer then drained)
//!  free(handle) ───────────────────────────►  drop the writer (exactly once)
//! ```
//!
//! Each shim converts arguments, calls the writer API and returns a primitive or array; all
//! error handling goes through [`exception::ThrowJava`]. No Rust thread ever calls into the JVM,
//! and Java-owned buffers are only ever released on the JNI calling thread.

pub mod equality;
pub mod exception;
pub mod handle;
pub mod ipc;
pub mod reader;
pub mod registry;
pub mod split;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use jni::objects::{JByteArray, JClass, JIntArray, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};

use crate::error::{NativeError, Result};
use crate::ffi::{import_batch, import_schema};
use crate::options::WriterOptions;
use crate::pipeline::PipelinedWriter;
use crate::writer::NativeParquetWriter;
use exception::{install_panic_hook, ThrowJava};

/// `static native String nativeVersion()`: the crate version, checked by the Java loader.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_nativeVersion<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    install_panic_hook();
    env.with_env(|env| -> Result<_> { Ok(env.new_string(env!("CARGO_PKG_VERSION"))?) })
        .resolve::<ThrowJava>()
}

/// `static native long open(long schemaAddr, byte[] icebergSchemaJson, byte[] properties)`.
///
/// # Safety
/// `schema_addr` must be the address of an exported `ArrowSchema`; it is consumed.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeParquetWriter_open<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    iceberg_schema_json: JByteArray<'local>,
    properties: JByteArray<'local>,
) -> jlong {
    env.with_env(|env| -> Result<_> {
        // Take the schema first so it is released even if an argument below is bad.
        // SAFETY: the caller passes an exported ArrowSchema it no longer owns.
        let schema = unsafe { import_schema(schema_addr as *mut FFI_ArrowSchema) }?;
        let json = String::from_utf8(env.convert_byte_array(&iceberg_schema_json)?)
            .map_err(|_| NativeError::InvalidArgument("iceberg schema JSON is not UTF-8".into()))?;
        let props = decode_properties(&env.convert_byte_array(&properties)?)?;
        let options = WriterOptions::from_properties(props).with_iceberg_schema_json(json);
        let writer = NativeParquetWriter::try_new(schema.into(), &options)?;
        Ok(handle::into_handle(PipelinedWriter::new(writer)))
    })
    .resolve::<ThrowJava>()
}

/// `static native long write(long handle, long arrayAddr, int keep)`: hands one batch to the
/// encoder and returns the file's estimated length before it. Returns once at most `keep` of
/// the caller's batches (this one included) are still in use; the others were released on the
/// calling thread. With `keep == 0` this one is encoded and released before this returns.
///
/// # Safety
/// `array_addr` must be the address of an exported `ArrowArray` of the writer's schema; it is
/// consumed (moved) before anything else happens, so it is released even on error.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeParquetWriter_write<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
    keep: jint,
) -> jlong {
    env.with_env(|_env| -> Result<_> {
        let result = handle::with_writer(handle, |writer| {
            // SAFETY: the caller passes an exported ArrowArray it no longer owns.
            let schema = writer.schema();
            let batch = unsafe { import_batch(array_addr as *mut FFI_ArrowArray, &schema) }?;
            Ok(writer.write(batch, keep.max(0) as usize)? as jlong)
        });
        if result.is_err() && array_addr != 0 {
            // The handle may have been rejected before the batch was imported: release it now.
            // Moving an already-imported (released) struct again is a no-op.
            // SAFETY: same struct as above, still a valid ArrowArray (possibly released).
            drop(unsafe { FFI_ArrowArray::from_raw(array_addr as *mut FFI_ArrowArray) });
        }
        result
    })
    .resolve::<ThrowJava>()
}

/// `static native long estimatedLength(long handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_estimatedLength<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    env.with_env(|_env| -> Result<_> {
        handle::with_writer(handle, |writer| Ok(writer.estimated_length() as jlong))
    })
    .resolve::<ThrowJava>()
}

/// `static native long flushRowGroup(long handle)`: closes the open row group early and releases
/// every batch in flight; returns the bytes the file still holds (its encoded bytes are pending
/// output until drained).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_flushRowGroup<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    env.with_env(|_env| -> Result<_> {
        handle::with_writer(handle, |writer| {
            writer.flush_row_group()?;
            Ok(writer.held_bytes() as jlong)
        })
    })
    .resolve::<ThrowJava>()
}

/// `static native int releaseEncoded(long handle)`: releases the caller's batches that are
/// already encoded, without waiting; returns how many are still in use.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_releaseEncoded<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jint {
    env.with_env(|_env| -> Result<_> {
        handle::with_writer(handle, |writer| {
            Ok(jint::try_from(writer.release_encoded()).unwrap_or(jint::MAX))
        })
    })
    .resolve::<ThrowJava>()
}

/// `static native long heldBytes(long handle)`: bytes of memory the file holds now.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_heldBytes<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    env.with_env(|_env| -> Result<_> {
        handle::with_writer(handle, |writer| Ok(writer.held_bytes() as jlong))
    })
    .resolve::<ThrowJava>()
}

/// `static native int drain(long handle, byte[] dst)`: copies pending encoded bytes into `dst`
/// and returns how many (0 when nothing is pending).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_drain<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    dst: JByteArray<'local>,
) -> jint {
    env.with_env(|env| -> Result<_> {
        let capacity = dst.len(env)?;
        handle::with_writer(handle, |writer| {
            let n = writer.drain_with(capacity, |chunk| {
                // SAFETY: u8 and i8 have the same size and alignment; only the bits move.
                let signed: &[i8] =
                    unsafe { std::slice::from_raw_parts(chunk.as_ptr().cast::<i8>(), chunk.len()) };
                Ok(dst.set_region(env, 0, signed)?)
            })?;
            Ok(n as jint)
        })
    })
    .resolve::<ThrowJava>()
}

/// `static native byte[] close(long handle)`: finishes the file and returns its summary
/// (see `stats::FileSummary::to_bytes`). The footer is pending output afterwards.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_close<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> JByteArray<'local> {
    env.with_env(|env| -> Result<_> {
        let summary = handle::with_writer(handle, |writer| Ok(writer.close()?.to_bytes()))?;
        Ok(env.byte_array_from_slice(&summary)?)
    })
    .resolve::<ThrowJava>()
}

/// `static native void free(long handle)`: releases the writer; a second call is a no-op.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_free<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    env.with_env(|_env| -> Result<_> {
        handle::free(handle);
        Ok(())
    })
    .resolve::<ThrowJava>()
}

/// `static native long liveWriters()`: writers opened and not yet freed (leak checks).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_liveWriters<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> jlong {
    env.with_env(|_env| -> Result<_> { Ok(handle::live_count() as jlong) })
        .resolve::<ThrowJava>()
}

/// `static native long nativeAllocatedBytes()`: bytes the library's allocator holds for Rust
/// code now, process-wide, to within 64 KiB per thread (see [`crate::allocator::allocated_bytes`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_nativeAllocatedBytes<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> jlong {
    env.with_env(|_env| -> Result<_> {
        Ok(i64::try_from(crate::allocator::allocated_bytes()).unwrap_or(i64::MAX))
    })
    .resolve::<ThrowJava>()
}

/// `static native void setMemoryPressure(boolean on)`: whether memory is short, process-wide
/// (see [`crate::writer::set_memory_pressure`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_setMemoryPressure<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    on: jboolean,
) {
    env.with_env(|_env| -> Result<_> {
        crate::writer::set_memory_pressure(on);
        Ok(())
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean memoryPressure()`: what [`crate::writer::memory_pressure`] says.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeParquetWriter_memoryPressure<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> jboolean {
    env.with_env(|_env| -> Result<_> { Ok(crate::writer::memory_pressure()) })
        .resolve::<ThrowJava>()
}

/// Decodes Java's `NativeParquetWriter.encodeProperties`: `i32 count`, then per entry
/// `i32 len, key UTF-8, i32 len, value UTF-8`, all little-endian.
fn decode_properties(bytes: &[u8]) -> Result<HashMap<String, String>> {
    fn bad() -> NativeError {
        NativeError::InvalidArgument("malformed writer property block".into())
    }
    let mut pos = 0usize;
    let read_i32 = |pos: &mut usize| -> Result<usize> {
        let raw = bytes.get(*pos..*pos + 4).ok_or_else(bad)?;
        *pos += 4;
        usize::try_from(i32::from_le_bytes(raw.try_into().map_err(|_| bad())?)).map_err(|_| bad())
    };
    let count = read_i32(&mut pos)?;
    let mut props = HashMap::with_capacity(count);
    for _ in 0..count {
        let text = |pos: &mut usize| -> Result<String> {
            let len = read_i32(pos)?;
            let raw = bytes.get(*pos..*pos + len).ok_or_else(bad)?;
            *pos += len;
            String::from_utf8(raw.to_vec()).map_err(|_| bad())
        };
        let key = text(&mut pos)?;
        let value = text(&mut pos)?;
        props.insert(key, value);
    }
    Ok(props)
}

/// Imports (moves) an exported batch. The array is taken first, so that it is released on every
/// path, also when the schema fails to import.
///
/// # Safety
/// As the exports' input contract.
pub(crate) unsafe fn take_exported_batch(
    schema_addr: jlong,
    array_addr: jlong,
) -> Result<RecordBatch> {
    let array = (array_addr != 0).then(|| {
        // SAFETY: the caller passes an exported ArrowArray it no longer owns.
        unsafe { FFI_ArrowArray::from_raw(array_addr as *mut FFI_ArrowArray) }
    });
    // SAFETY: the caller passes an exported ArrowSchema it no longer owns.
    let schema = Arc::new(unsafe { import_schema(schema_addr as *mut FFI_ArrowSchema) }?);
    let mut array =
        array.ok_or_else(|| NativeError::InvalidArgument("ArrowArray address is 0".into()))?;
    // SAFETY: a valid ArrowArray moved above; import_batch moves it again and validates it.
    unsafe { import_batch(&mut array, &schema) }
}

pub(crate) fn int_array(env: &mut Env<'_>, array: &JIntArray<'_>) -> Result<Vec<i32>> {
    let length = array.len(env)?;
    let mut values = vec![0i32; length];
    array.get_region(env, 0, &mut values)?;
    Ok(values)
}

/// `values` as a new Java `int[]`.
pub(crate) fn java_ints<'local>(
    env: &mut Env<'local>,
    values: &[i32],
) -> Result<JIntArray<'local>> {
    let array = env.new_int_array(values.len())?;
    array.set_region(env, 0, values)?;
    Ok(array)
}

/// Group offsets as a Java `int[]` (a batch has fewer than 2^31 rows).
pub(crate) fn java_offsets<'local>(
    env: &mut Env<'local>,
    offsets: &[u32],
) -> Result<JIntArray<'local>> {
    let offsets = offsets
        .iter()
        .map(|&o| i32::try_from(o))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| NativeError::InvalidState("a batch of more than 2^31 rows".into()))?;
    java_ints(env, &offsets)
}
