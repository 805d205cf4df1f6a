//! One IPC stream (as [`super::encode`] writes it) back into a batch of the expected schema.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use arrow::array::{make_array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::buffer::Buffer;
use arrow::datatypes::{Schema, SchemaRef};
use arrow_ipc::convert::try_fb_to_schema;
use arrow_ipc::reader::RecordBatchDecoder;
use arrow_ipc::MetadataVersion;

use super::frames::{check_batch, invalid, truncated, Frames};
use super::wire_types::{retype, strings_as_binary};
use crate::error::{NativeError, Result};

/// Decodes `bytes`: exactly a schema message equal to `expected`, one record batch message and the
/// end-of-stream marker. The batch is validated as arrow-rs validates a batch (offsets, lengths,
/// null counts, non-nullable children), except the UTF-8 of strings, as on import from Java.
pub fn decode(bytes: Buffer, expected: &SchemaRef) -> Result<RecordBatch> {
    let mut frames = Frames::new(bytes);
    let schema_frame = frames
        .next_frame("the schema message")?
        .ok_or_else(|| invalid("the stream ends before its schema"))?;
    let message = schema_frame.message()?;
    let header = message.header_as_schema().ok_or_else(|| {
        invalid(format!(
            "the first message is a {:?}, not a schema",
            message.header_type()
        ))
    })?;
    let found = try_fb_to_schema(header)
        .map_err(|e| NativeError::arrow("invalid Arrow IPC batch: reading its schema", e))?;
    if &found != expected.as_ref() {
        return Err(NativeError::InvalidArgument(format!(
            "the Arrow IPC batch was written with another schema than this serializer's: {}",
            difference(&found, expected)
        )));
    }

    let batch_frame = frames
        .next_frame("the record batch message")?
        .ok_or_else(|| truncated("the stream ends after its schema, without a record batch"))?;
    let message = batch_frame.message()?;
    let header = message.header_as_record_batch().ok_or_else(|| {
        invalid(format!(
            "the second message is a {:?}, not a record batch",
            message.header_type()
        ))
    })?;
    let version = message.version();
    if version < MetadataVersion::V4 {
        return Err(invalid(format!("metadata version {version:?}, before V4")));
    }
    check_batch(&header, &batch_frame.body)?;
    let wire = Arc::new(strings_as_binary(expected));
    let no_dictionaries = HashMap::new();
    // arrow-rs still asserts on a few malformed layouts it otherwise validates (a fixed-width
    // buffer whose length is not a multiple of its width panics in `typed_data`); such a panic is
    // a refusal of this message, reported like any other.
    let decoding = std::panic::catch_unwind(AssertUnwindSafe(|| {
        RecordBatchDecoder::try_new(&batch_frame.body, header, wire, &no_dictionaries, &version)
            .and_then(|decoder| decoder.read_record_batch())
    }));
    let decoded = match decoding {
        Ok(result) => result.map_err(|e| NativeError::arrow("invalid Arrow IPC batch", e))?,
        Err(payload) => {
            return Err(invalid(format!(
                "arrow-ipc refused its layout ({})",
                crate::error::panic_text(payload.as_ref())
            )))
        }
    };

    if frames.next_frame("the end-of-stream marker")?.is_some() {
        return Err(invalid("a message follows the record batch"));
    }
    frames.finish()?;

    let columns: Vec<ArrayRef> = decoded
        .columns()
        .iter()
        .zip(expected.fields())
        .map(|(column, field)| make_array(retype(column.to_data(), field.data_type())))
        .collect();
    let options = RecordBatchOptions::new().with_row_count(Some(decoded.num_rows()));
    RecordBatch::try_new_with_options(expected.clone(), columns, &options)
        .map_err(|e| NativeError::arrow("invalid Arrow IPC batch", e))
}

/// The first way `found` differs from `expected`, for the error message.
fn difference(found: &Schema, expected: &Schema) -> String {
    let (found_fields, expected_fields) = (found.fields(), expected.fields());
    if found_fields.len() != expected_fields.len() {
        return format!(
            "it has {} top-level fields, the serializer's schema {}",
            found_fields.len(),
            expected_fields.len()
        );
    }
    for (i, (f, e)) in found_fields.iter().zip(expected_fields.iter()).enumerate() {
        if f != e {
            return format!("field #{i} is {f:?}, the serializer expects {e:?}");
        }
    }
    format!(
        "schema metadata {:?}, the serializer expects {:?}",
        found.metadata(),
        expected.metadata()
    )
}
