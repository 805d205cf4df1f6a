//! Helpers shared by the integration tests: Arrow fields carrying Iceberg field ids here, sample
//! columns in [`columns`], writing a file, reading it back and checking it in [`files`], and reading a
//! file through the native reader as Java does in [`native_read`].
//!
//! Every file under `tests/` is its own test binary and compiles this module again. The two
//! submodules are allowed to be partly unused: each binary calls only the few sample columns and
//! file checks its own tests need (`untrusted_batches` and `close_threads` none at all).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use frazil::schema::FIELD_ID_KEY;

#[allow(dead_code)]
pub mod columns;
#[allow(dead_code)]
pub mod files;
#[allow(dead_code)]
pub mod native_read;

pub fn id_meta(id: i32) -> HashMap<String, String> {
    HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())])
}

pub fn field(name: &str, data_type: DataType, nullable: bool, id: i32) -> Field {
    Field::new(name, data_type, nullable).with_metadata(id_meta(id))
}

pub fn schema_of(fields: Vec<Field>) -> SchemaRef {
    Arc::new(Schema::new(fields))
}
