//! Strings travel as binary.
//!
//! arrow-ipc validates a decoded batch fully, UTF-8 of strings included, but a batch is imported
//! from Java without that check (Iceberg and parquet-java write a string's bytes as they are, see
//! [`crate::ffi`]). So the decoder reads each string column as the binary type of the same layout,
//! which validates offsets, lengths and nulls and nothing else, and [`retype`] puts the expected
//! type back without touching a buffer: what was accepted on the way in comes out again.

use std::sync::Arc;

use arrow::array::ArrayData;
use arrow::datatypes::{DataType, Field, Fields, Schema};

/// `schema` with every string type (at any depth) replaced by the binary type of its layout.
pub fn strings_as_binary(schema: &Schema) -> Schema {
    Schema::new_with_metadata(
        schema
            .fields()
            .iter()
            .map(|f| binary_field(f))
            .collect::<Fields>(),
        schema.metadata().clone(),
    )
}

fn binary_field(field: &Field) -> Arc<Field> {
    Arc::new(field.clone().with_data_type(binary_type(field.data_type())))
}

fn binary_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Utf8 => DataType::Binary,
        DataType::LargeUtf8 => DataType::LargeBinary,
        DataType::Struct(fields) => {
            DataType::Struct(fields.iter().map(|f| binary_field(f)).collect())
        }
        DataType::List(item) => DataType::List(binary_field(item)),
        DataType::LargeList(item) => DataType::LargeList(binary_field(item)),
        DataType::FixedSizeList(item, n) => DataType::FixedSizeList(binary_field(item), *n),
        DataType::Map(entries, sorted) => DataType::Map(binary_field(entries), *sorted),
        other => other.clone(),
    }
}

/// `data` (decoded with [`strings_as_binary`] types) relabelled with `target`, the type it was
/// decoded for; children follow the target's child types.
pub fn retype(data: ArrayData, target: &DataType) -> ArrayData {
    if data.data_type() == target {
        return data;
    }
    let child_types: Vec<DataType> = match target {
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type().clone()).collect(),
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::FixedSizeList(item, _)
        | DataType::Map(item, _) => vec![item.data_type().clone()],
        _ => Vec::new(),
    };
    let children: Vec<ArrayData> = data
        .child_data()
        .iter()
        .zip(child_types.iter())
        .map(|(child, child_type)| retype(child.clone(), child_type))
        .collect();
    let builder = data.into_builder().data_type(target.clone());
    let builder = if children.is_empty() {
        builder
    } else {
        builder.child_data(children)
    };
    // SAFETY: `target` differs from the decoded type only in string-versus-binary labels, which
    // share one layout; the buffers were validated for that layout when they were decoded.
    unsafe { builder.build_unchecked() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, BinaryArray, ListArray, StringArray};
    use arrow::datatypes::Int32Type;

    #[test]
    fn nested_strings_become_binary_and_back() {
        let item = Arc::new(Field::new("element", DataType::Utf8, true));
        let schema = Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("l", DataType::List(item), true),
            Field::new("i", DataType::Int32, false),
        ]);
        let wire = strings_as_binary(&schema);
        assert_eq!(wire.field(0).data_type(), &DataType::Binary);
        assert_eq!(
            wire.field(1).data_type(),
            &DataType::List(Arc::new(Field::new("element", DataType::Binary, true)))
        );
        assert_eq!(wire.field(2).data_type(), &DataType::Int32);

        let binary = BinaryArray::from(vec![Some(&b"ab"[..]), None]).into_data();
        let back = retype(binary, schema.field(0).data_type());
        assert_eq!(StringArray::from(back).value(0), "ab");

        let ints = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)])]);
        let same = retype(ints.to_data(), ints.data_type());
        assert_eq!(same, ints.to_data());
    }
}
