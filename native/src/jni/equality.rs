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

use arrow::array::{Array, StructArray};
use arrow::ffi::FFI_ArrowArray;
use jni::objects::{JClass, JIntArray};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

use super::exception::ThrowJava;
use super::{int_array, java_ints, java_offsets, take_exported_batch};
use crate::error::{NativeError, Result};
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
        let batch = unsafe { take_exported_batch(schema_addr, array_addr) }?;
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
        let routed = route(&batch, &fields, routing, &table, destinations)?;
        let java_offsets = java_offsets(env, &routed.offsets)?;
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
        let batch = unsafe { take_exported_batch(schema_addr, array_addr) }?;
        let fields = key_fields(env, &fields)?;
        let keys = row_keys(&batch, &fields)?;
        java_ints(env, &keys)
    })
    .resolve::<ThrowJava>()
}

fn key_fields(env: &mut Env<'_>, codes: &JIntArray<'_>) -> Result<Vec<KeyField>> {
    decode_key_fields(&int_array(env, codes)?)
}
