//! Batches that arrive through the C Data Interface are not trusted: one whose offsets, null
//! counts or child lengths disagree is refused with an `InvalidArgument`-kind error (Java:
//! `IllegalArgumentException`) before anything reads its values, instead of letting the encoder
//! read past its buffers. Each case forges such a batch with arrow-rs's unchecked builders and
//! hands it over exactly as Java does: an exported `ArrowArray` moved into `import_batch`.

mod common;

use std::sync::Arc;

use arrow::array::{Array, ArrayData, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow::buffer::{Buffer, NullBuffer};
use arrow::datatypes::{DataType, Fields, SchemaRef};
use arrow::ffi::FFI_ArrowArray;
use frazil::error::NativeError;
use frazil::ffi::import_batch;

use common::{field, schema_of};

fn schema() -> SchemaRef {
    let item = field("element", DataType::Int32, true, 4);
    schema_of(vec![
        field("id", DataType::Int64, false, 1),
        field("s", DataType::Utf8, true, 2),
        field("l", DataType::List(Arc::new(item)), true, 3),
    ])
}

fn ids() -> ArrayData {
    Int64Array::from(vec![1, 2, 3]).into_data()
}

fn strings() -> ArrayData {
    StringArray::from(vec![Some("a"), None, Some("ccc")]).into_data()
}

fn lists(values: ArrayData, offsets: &[i32]) -> ArrayData {
    let DataType::List(item) = schema().field(2).data_type().clone() else {
        unreachable!()
    };
    // SAFETY: deliberately unchecked; the point is to hand over what a faulty producer would.
    unsafe {
        ArrayData::builder(DataType::List(item))
            .len(offsets.len() - 1)
            .add_buffer(Buffer::from_slice_ref(offsets))
            .add_child_data(values)
            .build_unchecked()
    }
}

fn good_lists() -> ArrayData {
    lists(
        Int32Array::from(vec![1, 2, 3, 4]).into_data(),
        &[0, 1, 3, 4],
    )
}

/// The batch as Java exports it: a struct of the columns, moved through an `ArrowArray`.
fn import(columns: Vec<ArrayData>, len: usize) -> Result<RecordBatch, NativeError> {
    let schema = schema();
    // SAFETY: deliberately unchecked, as above.
    let batch = unsafe {
        ArrayData::builder(DataType::Struct(Fields::from(schema.fields().to_vec())))
            .len(len)
            .child_data(columns)
            .build_unchecked()
    };
    let mut exported = Box::new(FFI_ArrowArray::new(&batch));
    // SAFETY: a valid exported struct, moved into the import (which releases it).
    unsafe { import_batch(&mut *exported as *mut FFI_ArrowArray, &schema) }
}

fn assert_refused(result: Result<RecordBatch, NativeError>, expected: &str) {
    match result {
        Ok(_) => panic!("an inconsistent batch was accepted (expected: {expected})"),
        Err(e) => {
            assert!(
                matches!(
                    e,
                    NativeError::Arrow { .. } | NativeError::InvalidArgument(_)
                ),
                "refused as an invalid argument: {e:?}"
            );
            let text = e.to_string();
            assert!(text.contains(expected), "{text} should mention {expected}");
        }
    }
}

#[test]
fn a_consistent_batch_is_accepted() {
    let batch = import(vec![ids(), strings(), good_lists()], 3).expect("valid batch");
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(batch.column(1).null_count(), 1);
}

#[test]
fn decreasing_string_offsets_are_refused() {
    // SAFETY: deliberately unchecked.
    let bad = unsafe {
        ArrayData::builder(DataType::Utf8)
            .len(3)
            .add_buffer(Buffer::from_slice_ref([0i32, 3, 1, 5]))
            .add_buffer(Buffer::from_slice_ref(b"abcde"))
            .build_unchecked()
    };
    assert_refused(import(vec![ids(), bad, good_lists()], 3), "offset");
}

#[test]
fn invalid_utf8_is_written_as_it_is_like_stock() {
    // Flink strings are bytes; parquet-java writes them unchecked, and so does Frazil.
    // SAFETY: deliberately unchecked (valid offsets, invalid UTF-8 bytes).
    let raw = unsafe {
        ArrayData::builder(DataType::Utf8)
            .len(3)
            .add_buffer(Buffer::from_slice_ref([0i32, 1, 2, 3]))
            .add_buffer(Buffer::from_slice_ref([0x61u8, 0xff, 0x62]))
            .build_unchecked()
    };
    assert!(import(vec![ids(), raw, good_lists()], 3).is_ok());
}

#[test]
fn a_null_count_that_disagrees_with_the_bitmap_is_refused() {
    let valid = StringArray::from(vec![Some("a"), None, Some("ccc")]).into_data();
    // The bitmap has one null; the producer claims two.
    let bitmap = valid.nulls().unwrap().inner().clone();
    // SAFETY: deliberately unchecked.
    let lying = unsafe {
        valid
            .into_builder()
            .nulls(Some(NullBuffer::new_unchecked(bitmap, 2)))
            .build_unchecked()
    };
    assert_refused(import(vec![ids(), lying, good_lists()], 3), "null_count");
}

#[test]
fn nulls_in_a_required_column_are_refused() {
    let with_null = Int64Array::from(vec![Some(1), None, Some(3)]).into_data();
    assert_refused(
        import(vec![with_null, strings(), good_lists()], 3),
        "non-nullable child",
    );
}

#[test]
fn list_offsets_beyond_the_values_are_refused() {
    // Four values, but the last list claims to end at the ninth.
    let bad = lists(
        Int32Array::from(vec![1, 2, 3, 4]).into_data(),
        &[0, 1, 3, 9],
    );
    assert_refused(
        import(vec![ids(), strings(), bad], 3),
        "larger than values length",
    );
}

#[test]
fn a_column_shorter_than_the_batch_is_refused() {
    let short = Int64Array::from(vec![1, 2]).into_data();
    assert_refused(import(vec![short, strings(), good_lists()], 3), "");
}
