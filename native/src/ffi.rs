//! Import of Java-exported Arrow data through the C Data Interface.
//!
//! Ownership: Java allocates and exports; Rust *moves* the C struct out with `from_raw` as the
//! very first step, which marks the Java-side struct released. From then on the Rust value
//! owns the producer's release callback, so every early return below still releases the
//! Java buffers (on this, the JNI calling thread) when the value drops.

use arrow::array::{Array, RecordBatch, StructArray};
use arrow::datatypes::{DataType, Schema, SchemaRef};
use arrow::ffi::{from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};

use crate::error::{NativeError, Result};

/// Takes ownership of an exported `ArrowSchema` (a struct of the table's columns).
///
/// # Safety
/// `ptr` must point to a valid, initialized `ArrowSchema` that nothing else will release.
pub unsafe fn import_schema(ptr: *mut FFI_ArrowSchema) -> Result<Schema> {
    if ptr.is_null() {
        return Err(NativeError::InvalidArgument(
            "ArrowSchema address is 0".into(),
        ));
    }
    // SAFETY: the caller guarantees a valid struct; from_raw moves it out and leaves a
    // released struct behind.
    let ffi = unsafe { FFI_ArrowSchema::from_raw(ptr) };
    Schema::try_from(&ffi).map_err(|e| NativeError::arrow("importing the writer's Arrow schema", e))
}

/// Takes ownership of an exported `ArrowArray` holding one batch of `schema`'s columns.
///
/// # Safety
/// `ptr` must point to a valid, initialized `ArrowArray` that nothing else will release.
pub unsafe fn import_batch(ptr: *mut FFI_ArrowArray, schema: &SchemaRef) -> Result<RecordBatch> {
    if ptr.is_null() {
        return Err(NativeError::InvalidArgument(
            "ArrowArray address is 0".into(),
        ));
    }
    // SAFETY: as above; the struct is moved before anything can fail.
    let ffi = unsafe { FFI_ArrowArray::from_raw(ptr) };
    let data_type = DataType::Struct(schema.fields().clone());
    // SAFETY: the array was exported for this schema; arrow validates the layout and (since
    // arrow 59) realigns 8-byte-aligned Java buffers such as Decimal128 values.
    let data = unsafe { from_ffi_and_data_type(ffi, data_type) }
        .map_err(|e| NativeError::arrow("importing an Arrow batch", e))?;
    let array = StructArray::from(data);
    if array.null_count() > 0 {
        return Err(NativeError::InvalidArgument(
            "an Arrow batch must not have top-level null rows".into(),
        ));
    }
    let (_, columns, _) = array.into_parts();
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| NativeError::InvalidArgument(format!("invalid Arrow batch: {e}")))
}
