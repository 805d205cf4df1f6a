//! JNI exports for `io.frazil.jni.NativeArrowIpc`: Arrow batches to and from IPC stream bytes.
//!
//! ```text
//!  Java (any task thread)                          Rust
//!  encodeStream(schema, array, codec, dst, at) ─►  import both (moved) → one IPC stream written
//!                                              straight into dst from `at` (its length), or
//!                                              -(length) if it does not fit there
//!  decodeStream(schema, bytes, n, array) ─►  import the schema (moved) → checked decode →
//!                                                   batch exported into the empty ArrowArray
//! ```
//!
//! Stateless: nothing outlives a call but the exported batch, which Java owns and releases (on
//! any thread) through the C Data release callback.

use std::sync::Arc;

use arrow::array::{Array, StructArray};
use arrow::buffer::MutableBuffer;
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use jni::elements::ReleaseMode;
use jni::objects::{JByteArray, JClass};
use jni::sys::{jint, jlong};
use jni::EnvUnowned;

use super::exception::ThrowJava;
use crate::error::{NativeError, Result};
use crate::ffi::import_schema;
use crate::ipc::{self, Compression};

/// `static native int encodeStream(long schemaAddr, long arrayAddr, int compression, byte[] dst,
/// int offset)`: encodes the batch straight into `dst` from `offset` (the array pinned meanwhile:
/// no copy through a native buffer); returns the stream's length, or minus its length when it does
/// not fit (the bytes after `offset` are then undefined: the caller retries with more room).
///
/// # Safety
/// `schema_addr` and `array_addr` must be the addresses of an exported `ArrowSchema` and of an
/// `ArrowArray` of that schema; both are consumed (moved), also when this fails.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeArrowIpc_encodeStream<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    array_addr: jlong,
    compression: jint,
    dst: JByteArray<'local>,
    offset: jint,
) -> jint {
    env.with_env(|env| -> Result<_> {
        // SAFETY: as the function's contract; the input is moved before anything can fail.
        let batch = unsafe { super::take_exported_batch(schema_addr, array_addr) }?;
        let compression = Compression::from_code(compression)?;
        let capacity = dst.len(env)?;
        let start = usize::try_from(offset)
            .ok()
            .filter(|&at| at <= capacity)
            .ok_or_else(|| {
                NativeError::InvalidArgument(format!(
                    "offset {offset} in an array of {capacity} bytes"
                ))
            })?;
        let written = {
            // SAFETY: a critical region: no JNI call until `elements` is dropped at the end of this
            // block (encoding calls none), and no other view of `dst` exists meanwhile.
            let mut elements = unsafe { dst.get_elements_critical(env, ReleaseMode::CopyBack) }?;
            let signed: &mut [i8] = &mut elements[start..];
            // SAFETY: u8 and i8 have the same size and alignment; only the bits move.
            let out: &mut [u8] = unsafe {
                std::slice::from_raw_parts_mut(signed.as_mut_ptr().cast::<u8>(), signed.len())
            };
            ipc::encode_into(&batch, compression, out)?
        };
        let length = match written {
            Some(length) => length,
            None => ipc::encode(&batch, compression)?.len(),
        };
        let signed_length = jint::try_from(length).map_err(|_| {
            NativeError::InvalidArgument(format!(
                "an Arrow IPC batch of {length} bytes does not fit a Java array"
            ))
        })?;
        Ok(if written.is_some() {
            signed_length
        } else {
            -signed_length
        })
    })
    .resolve::<ThrowJava>()
}

/// `static native int decodeStream(long schemaAddr, byte[] bytes, int length, long arrayAddr)`: decodes
/// the IPC stream in the first `length` bytes of `bytes` into the empty `ArrowArray` at
/// `arrayAddr` and returns its rows.
///
/// # Safety
/// `schema_addr` must be the address of an exported `ArrowSchema` (consumed); `array_addr` that of
/// an allocated, released (empty) `ArrowArray`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeArrowIpc_decodeStream<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    bytes: JByteArray<'local>,
    length: jint,
    array_addr: jlong,
) -> jint {
    env.with_env(|env| -> Result<_> {
        // SAFETY: the caller passes an exported ArrowSchema it no longer owns.
        let schema = Arc::new(unsafe { import_schema(schema_addr as *mut FFI_ArrowSchema) }?);
        if array_addr == 0 {
            return Err(NativeError::InvalidArgument(
                "null ArrowArray address".into(),
            ));
        }
        let length = usize::try_from(length)
            .ok()
            .filter(|&n| bytes.len(env).is_ok_and(|len| n <= len))
            .ok_or_else(|| NativeError::InvalidArgument(format!("{length} bytes to decode")))?;
        // Copied into 64-byte-aligned memory: the decoded buffers are zero-copy slices of it. Not
        // zeroed first: the copy writes every byte.
        let mut copy = MutableBuffer::with_capacity(length);
        {
            // SAFETY: u8 and i8 have the same size and alignment; only the bits move, and the
            // capacity holds `length` bytes.
            let signed: &mut [i8] =
                unsafe { std::slice::from_raw_parts_mut(copy.as_mut_ptr().cast::<i8>(), length) };
            bytes.get_region(env, 0, signed)?;
            // SAFETY: get_region succeeded, so all `length` bytes are written.
            unsafe { copy.set_len(length) };
        }
        let batch = ipc::decode(copy.into(), &schema)?;
        let rows = jint::try_from(batch.num_rows())
            .map_err(|_| NativeError::InvalidState("batch of more than 2^31 rows".into()))?;
        let ffi = FFI_ArrowArray::new(&StructArray::from(batch).to_data());
        // SAFETY: the caller passes an empty ArrowArray struct it owns; it now owns `ffi`.
        unsafe { std::ptr::write(array_addr as *mut FFI_ArrowArray, ffi) };
        Ok(rows)
    })
    .resolve::<ThrowJava>()
}
