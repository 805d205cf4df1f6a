//! JNI export for `io.frazil.jni.NativePartitionSplit`: an Arrow batch regrouped by partition
//! tuple.
//!
//! ```text
//!  Java (task thread)                                   Rust
//!  splitBatch(schema, array, spec, out, keysSchema, keys) ─► import both (moved) → transforms
//!      → rows regrouped (copied) → exported into `out`; key tuples into `keysSchema`/`keys`;
//!      returns the group offsets
//! ```
//!
//! Stateless: nothing outlives a call but the two exported batches, which Java owns. The input
//! is released before the call returns (on this thread), on success and on failure.

use arrow::array::{Array, StructArray};
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use jni::objects::{JClass, JIntArray};
use jni::sys::jlong;
use jni::EnvUnowned;

use super::exception::ThrowJava;
use super::{int_array, java_offsets, take_exported_batch};
use crate::error::{NativeError, Result};
use crate::partition::{split, SplitSpec};

/// `static native int[] splitBatch(long schemaAddr, long arrayAddr, int[] spec, long outArrayAddr,
/// long keysSchemaAddr, long keysArrayAddr)`: returns the group offsets (groups + 1 values).
///
/// # Safety
/// `schema_addr` and `array_addr` must be the addresses of an exported `ArrowSchema` and of an
/// `ArrowArray` of that schema; both are consumed (moved), also when this fails. The three
/// output addresses must be allocated, released (empty) structs; they are written only on
/// success.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativePartitionSplit_splitBatch<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    array_addr: jlong,
    spec: JIntArray<'local>,
    out_array_addr: jlong,
    keys_schema_addr: jlong,
    keys_array_addr: jlong,
) -> JIntArray<'local> {
    env.with_env(|env| -> Result<_> {
        // SAFETY: as the function's contract; the input is moved before anything can fail.
        let batch = unsafe { take_exported_batch(schema_addr, array_addr) }?;
        if out_array_addr == 0 || keys_schema_addr == 0 || keys_array_addr == 0 {
            return Err(NativeError::InvalidArgument(
                "an output ArrowArray/ArrowSchema address is 0".into(),
            ));
        }
        let spec = SplitSpec::decode(&int_array(env, &spec)?)?;
        let split = split(&batch, &spec)?;
        // The caller's buffers go back now, on this thread: nothing below refers to them.
        drop(batch);

        let java_offsets = java_offsets(env, &split.offsets)?;

        let keys_schema = FFI_ArrowSchema::try_from(split.keys.schema().as_ref())
            .map_err(|e| NativeError::arrow("exporting the partition keys' schema", e))?;
        let keys = FFI_ArrowArray::new(&StructArray::from(split.keys).to_data());
        let rows = FFI_ArrowArray::new(&StructArray::from(split.batch).to_data());
        // SAFETY: the caller passes empty structs it owns; from here Java owns these values.
        unsafe {
            std::ptr::write(out_array_addr as *mut FFI_ArrowArray, rows);
            std::ptr::write(keys_schema_addr as *mut FFI_ArrowSchema, keys_schema);
            std::ptr::write(keys_array_addr as *mut FFI_ArrowArray, keys);
        }
        Ok(java_offsets)
    })
    .resolve::<ThrowJava>()
}
