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

use std::sync::Arc;

use arrow::array::{Array, StructArray};
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use jni::objects::{JClass, JIntArray};
use jni::sys::jlong;
use jni::EnvUnowned;

use super::exception::ThrowJava;
use crate::error::{NativeError, Result};
use crate::ffi::{import_batch, import_schema};
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
        // Move the array out before anything can fail, so it is released on every path.
        let array = (array_addr != 0).then(|| {
            // SAFETY: the caller passes an exported ArrowArray it no longer owns.
            unsafe { FFI_ArrowArray::from_raw(array_addr as *mut FFI_ArrowArray) }
        });
        // SAFETY: the caller passes an exported ArrowSchema it no longer owns.
        let schema = Arc::new(unsafe { import_schema(schema_addr as *mut FFI_ArrowSchema) }?);
        let mut array =
            array.ok_or_else(|| NativeError::InvalidArgument("ArrowArray address is 0".into()))?;
        if out_array_addr == 0 || keys_schema_addr == 0 || keys_array_addr == 0 {
            return Err(NativeError::InvalidArgument(
                "an output ArrowArray/ArrowSchema address is 0".into(),
            ));
        }
        let length = spec.len(env)?;
        let mut codes = vec![0i32; length];
        spec.get_region(env, 0, &mut codes)?;
        let spec = SplitSpec::decode(&codes)?;
        // SAFETY: a valid ArrowArray moved above; import_batch moves it again and validates it.
        let batch = unsafe { import_batch(&mut array, &schema) }?;
        let split = split(&batch, &spec)?;
        // The caller's buffers go back now, on this thread: nothing below refers to them.
        drop(batch);

        let offsets = split
            .offsets
            .iter()
            .map(|&o| i32::try_from(o))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| NativeError::InvalidState("a batch of more than 2^31 rows".into()))?;
        let java_offsets = env.new_int_array(offsets.len())?;
        java_offsets.set_region(env, 0, &offsets)?;

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
