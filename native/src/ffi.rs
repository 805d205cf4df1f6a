//! Import of Java-exported Arrow data through the C Data Interface.
//!
//! Trust: arrow-rs imports C Data arrays without validating them, and a batch whose lengths,
//! offsets or null counts disagree would make the encoder read past its buffers. Every imported
//! batch is therefore checked as arrow-rs's full validation would check it ([`validate_imported`])
//! before anything reads its values; only the UTF-8 check of strings is left out, because Iceberg
//! and parquet-java write a string's bytes as they are. Buffer *sizes* are not part of the C Data
//! Interface: the Java side checks them against its vectors before exporting.
//!
//! Ownership: Java allocates and exports; Rust *moves* the C struct out with `from_raw` as the
//! very first step, which marks the Java-side struct released. From then on the Rust value
//! owns the producer's release callback, so every early return below still releases the
//! Java buffers (on this, the JNI calling thread) when the value drops.

use arrow::array::{Array, ArrayData, RecordBatch, StructArray};
use arrow::datatypes::{DataType, Schema, SchemaRef};
use arrow::error::ArrowError;
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
    validate_imported(&data)
        .map_err(|e| NativeError::arrow("validating an imported Arrow batch", e))?;
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

/// arrow-rs's full validation of `data` and its children (buffer lengths for the declared length
/// and offset, offsets within bounds and non-decreasing, null counts equal to the bitmaps, no nulls
/// in non-nullable children), except that string offsets are checked like binary offsets, without
/// UTF-8 validation.
pub fn validate_imported(data: &ArrayData) -> std::result::Result<(), ArrowError> {
    // Layout and lengths of the whole tree (arrow-rs descends into the children itself).
    data.validate()?;
    validate_nulls_and_values(data)
}

/// Null counts and values of `data` and, recursively, of its children.
fn validate_nulls_and_values(data: &ArrayData) -> std::result::Result<(), ArrowError> {
    data.validate_nulls()?;
    match data.data_type() {
        DataType::Utf8 => as_bytes(data, DataType::Binary).validate_values()?,
        DataType::LargeUtf8 => as_bytes(data, DataType::LargeBinary).validate_values()?,
        _ => data.validate_values()?,
    }
    for (i, child) in data.child_data().iter().enumerate() {
        validate_nulls_and_values(child).map_err(|e| {
            ArrowError::InvalidArgumentError(format!(
                "{} child #{i} invalid: {e}",
                data.data_type()
            ))
        })?;
    }
    Ok(())
}

/// The same buffers viewed as the binary type with the same offset width.
fn as_bytes(data: &ArrayData, binary: DataType) -> ArrayData {
    // SAFETY: Utf8/Binary (and LargeUtf8/LargeBinary) share one layout; the result is only
    // validated, never read as values.
    unsafe {
        data.clone()
            .into_builder()
            .data_type(binary)
            .build_unchecked()
    }
}
