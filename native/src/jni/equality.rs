//! JNI exports for `io.frazil.jni.NativeEqualityRouting`: Iceberg's equality-field key of every
//! row, and a batch's rows regrouped by the destination that key sends them to.
//!
//! ```text
//!  Java (task thread)                                    Rust
//!  routeBatch(schema, array, fields, routing, table, n, out) ─► import both (moved) → keys
//!      → destinations → rows regrouped (copied) → exported into `out`; returns the offsets
//!  rowKeys(schema, array, fields) ─► import both (moved) → the key of every row
//! ```
//!
//! Stateless: nothing outlives a call but the exported batch, which Java owns. The input is
//! released before the call returns (on this thread), on success and on failure.

use std::sync::Arc;

use arrow::array::{Array, RecordBatch, StructArray};
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use jni::objects::{JClass, JIntArray};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

use super::exception::ThrowJava;
use crate::error::{NativeError, Result};
use crate::ffi::{import_batch, import_schema};
use crate::partition::equality::{decode_key_fields, route, row_keys, KeyField, KeyRouting};

/// `static native int[] routeBatch(long schemaAddr, long arrayAddr, int[] fields, int routing,
/// int[] table, int destinations, long outArrayAddr)`: returns the offsets (destinations + 1).
///
/// # Safety
/// `schema_addr` and `array_addr` must be the addresses of an exported `ArrowSchema` and of an
/// `ArrowArray` of that schema; both are consumed (moved), also when this fails. `out_array_addr`
/// must be an allocated, released (empty) struct; it is written only on success.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeEqualityRouting_routeBatch<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    array_addr: jlong,
    fields: JIntArray<'local>,
    routing: jint,
    table: JIntArray<'local>,
    destinations: jint,
    out_array_addr: jlong,
) -> JIntArray<'local> {
    env.with_env(|env| -> Result<_> {
        // SAFETY: as the function's contract; the input is moved before anything can fail.
        let batch = unsafe { take_batch(schema_addr, array_addr) };
        if out_array_addr == 0 {
            return Err(NativeError::InvalidArgument(
                "the output ArrowArray address is 0".into(),
            ));
        }
        let fields = key_fields(env, &fields)?;
        let routing = KeyRouting::from_code(routing)?;
        let table = int_array(env, &table)?;
        let destinations = usize::try_from(destinations)
            .map_err(|_| NativeError::InvalidArgument(format!("{destinations} destinations")))?;
        let routed = route(&batch?, &fields, routing, &table, destinations)?;
        let offsets = routed
            .offsets
            .iter()
            .map(|&o| i32::try_from(o))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| NativeError::InvalidState("a batch of more than 2^31 rows".into()))?;
        let java_offsets = env.new_int_array(offsets.len())?;
        java_offsets.set_region(env, 0, &offsets)?;
        let rows = FFI_ArrowArray::new(&StructArray::from(routed.batch).to_data());
        // SAFETY: the caller passes an empty struct it owns; from here Java owns the rows.
        unsafe { std::ptr::write(out_array_addr as *mut FFI_ArrowArray, rows) };
        Ok(java_offsets)
    })
    .resolve::<ThrowJava>()
}

/// `static native int[] rowKeys(long schemaAddr, long arrayAddr, int[] fields)`: the equality key
/// of every row.
///
/// # Safety
/// As [`Java_io_frazil_jni_NativeEqualityRouting_routeBatch`]'s input.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_io_frazil_jni_NativeEqualityRouting_rowKeys<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    array_addr: jlong,
    fields: JIntArray<'local>,
) -> JIntArray<'local> {
    env.with_env(|env| -> Result<_> {
        // SAFETY: as the function's contract; the input is moved before anything can fail.
        let batch = unsafe { take_batch(schema_addr, array_addr) };
        let fields = key_fields(env, &fields)?;
        let keys = row_keys(&batch?, &fields)?;
        let java_keys = env.new_int_array(keys.len())?;
        java_keys.set_region(env, 0, &keys)?;
        Ok(java_keys)
    })
    .resolve::<ThrowJava>()
}

/// Imports (moves) the exported batch. The array is taken first, so that it is released on every
/// path, also when the schema fails to import.
///
/// # Safety
/// As the exports' input contract.
unsafe fn take_batch(schema_addr: jlong, array_addr: jlong) -> Result<RecordBatch> {
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

fn int_array(env: &mut Env<'_>, array: &JIntArray<'_>) -> Result<Vec<i32>> {
    let length = array.len(env)?;
    let mut values = vec![0i32; length];
    array.get_region(env, 0, &mut values)?;
    Ok(values)
}

fn key_fields(env: &mut Env<'_>, codes: &JIntArray<'_>) -> Result<Vec<KeyField>> {
    decode_key_fields(&int_array(env, codes)?)
}
