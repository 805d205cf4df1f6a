//! Which columns should not be dictionary encoded, decided the way parquet-java decides.
//!
//! parquet-java starts every column chunk with dictionary encoding and, when the first page is
//! written, keeps it only if `dictionary bytes + encoded indexes < plain bytes`; otherwise it
//! re-encodes that page as PLAIN and never uses the dictionary for the chunk. arrow-rs has no
//! such check: it keeps a dictionary until the dictionary page limit, so a column of distinct
//! values (timestamps, ids) is stored once as dictionary pages and again as plain pages — files
//! 30–40% larger than Iceberg Java's. Frazil applies parquet-java's rule to a file's first page
//! of rows (page-row-limit rows, or fewer once one column holds page-size bytes; see
//! [`crate::writer`]) and switches the dictionary off for the columns where it does not pay.

use std::collections::HashSet;
use std::hash::Hash;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, PrimitiveArray, RecordBatch};
use arrow::datatypes::{ArrowPrimitiveType, DataType, Field};
use parquet::schema::types::ColumnPath;

/// Leaf columns (outside lists and maps) whose first batch does not compress with a
/// dictionary.
pub fn columns_without_dictionary_benefit(batch: &RecordBatch) -> Vec<ColumnPath> {
    let mut out = Vec::new();
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        visit(field, column, vec![field.name().clone()], &mut out);
    }
    out
}

fn visit(field: &Field, array: &ArrayRef, path: Vec<String>, out: &mut Vec<ColumnPath>) {
    if let DataType::Struct(children) = field.data_type() {
        let array = array.as_struct();
        for (child, column) in children.iter().zip(array.columns()) {
            let mut child_path = path.clone();
            child_path.push(child.name().clone());
            visit(child, column, child_path, out);
        }
        return;
    }
    if let Some(sizes) = plain_and_dictionary_sizes(array.as_ref()) {
        if !sizes.dictionary_pays() {
            out.push(ColumnPath::new(path));
        }
    }
}

/// Sizes of one column's values encoded plain and with a dictionary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncodedSizes {
    pub plain: usize,
    pub dictionary: usize,
    pub indexes: usize,
}

impl EncodedSizes {
    /// parquet-java's `DictionaryValuesWriter.isCompressionSatisfying`.
    pub fn dictionary_pays(&self) -> bool {
        self.dictionary + self.indexes < self.plain
    }
}

fn sizes(values: usize, distinct: usize, plain: usize, dictionary: usize) -> EncodedSizes {
    // RLE/bit-packed indexes: about bit_width(distinct - 1) bits per value, plus the width byte.
    let bits = usize::BITS as usize - distinct.saturating_sub(1).leading_zeros() as usize;
    EncodedSizes {
        plain,
        dictionary,
        indexes: 1 + (values * bits).div_ceil(8),
    }
}

fn primitive<T: ArrowPrimitiveType>(array: &dyn Array, width: usize) -> EncodedSizes
where
    T::Native: Hash + Eq,
{
    let array: &PrimitiveArray<T> = array.as_primitive::<T>();
    let mut distinct = HashSet::with_capacity(array.len());
    let mut values = 0usize;
    for v in array.iter().flatten() {
        values += 1;
        distinct.insert(v);
    }
    sizes(
        values,
        distinct.len(),
        values * width,
        distinct.len() * width,
    )
}

fn float_bits<T: ArrowPrimitiveType>(
    array: &dyn Array,
    width: usize,
    bits: fn(T::Native) -> u64,
) -> EncodedSizes {
    let array: &PrimitiveArray<T> = array.as_primitive::<T>();
    let mut distinct = HashSet::with_capacity(array.len());
    let mut values = 0usize;
    for v in array.iter().flatten() {
        values += 1;
        distinct.insert(bits(v));
    }
    sizes(
        values,
        distinct.len(),
        values * width,
        distinct.len() * width,
    )
}

fn bytes<'a>(values: impl Iterator<Item = &'a [u8]>, length_prefix: usize) -> EncodedSizes {
    let mut distinct: HashSet<&[u8]> = HashSet::new();
    let (mut count, mut plain, mut dictionary) = (0usize, 0usize, 0usize);
    for v in values {
        count += 1;
        plain += length_prefix + v.len();
        if distinct.insert(v) {
            dictionary += length_prefix + v.len();
        }
    }
    sizes(count, distinct.len(), plain, dictionary)
}

fn plain_and_dictionary_sizes(array: &dyn Array) -> Option<EncodedSizes> {
    use arrow::datatypes::*;
    let sizes = match array.data_type() {
        // Parquet writes booleans without a dictionary anyway.
        DataType::Boolean => {
            let _: &BooleanArray = array.as_boolean();
            return None;
        }
        DataType::Int32 => primitive::<Int32Type>(array, 4),
        DataType::Date32 => primitive::<Date32Type>(array, 4),
        DataType::Int64 => primitive::<Int64Type>(array, 8),
        DataType::Time64(TimeUnit::Microsecond) => primitive::<Time64MicrosecondType>(array, 8),
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            primitive::<TimestampMicrosecondType>(array, 8)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            primitive::<TimestampNanosecondType>(array, 8)
        }
        DataType::Float32 => float_bits::<Float32Type>(array, 4, |v| u64::from(v.to_bits())),
        DataType::Float64 => float_bits::<Float64Type>(array, 8, f64::to_bits),
        DataType::Decimal128(precision, _) => {
            let width = match precision {
                1..=9 => 4,
                10..=18 => 8,
                p => crate::schema::decimal_required_bytes(i32::from(*p)) as usize,
            };
            primitive::<Decimal128Type>(array, width)
        }
        DataType::Utf8 => bytes(
            array.as_string::<i32>().iter().flatten().map(str::as_bytes),
            4,
        ),
        DataType::Binary => bytes(array.as_binary::<i32>().iter().flatten(), 4),
        DataType::FixedSizeBinary(_) => bytes(array.as_fixed_size_binary().iter().flatten(), 0),
        _ => return None,
    };
    Some(sizes)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::Schema;

    use super::*;

    #[test]
    fn distinct_longs_do_not_pay_repeated_ones_do() {
        let distinct: ArrayRef = Arc::new(Int64Array::from_iter_values(0..8192));
        let repeated: ArrayRef = Arc::new(Int64Array::from_iter_values((0..8192).map(|i| i % 10)));
        let schema = Arc::new(Schema::new(vec![
            Field::new("distinct", DataType::Int64, false),
            Field::new("repeated", DataType::Int64, false),
        ]));
        let batch = RecordBatch::try_new(schema, vec![distinct, repeated]).unwrap();
        let off = columns_without_dictionary_benefit(&batch);
        assert_eq!(off, vec![ColumnPath::new(vec!["distinct".to_string()])]);
    }

    #[test]
    fn low_cardinality_strings_pay() {
        let values: ArrayRef = Arc::new(StringArray::from_iter_values(
            (0..1000).map(|i| ["Google", "Apple"][i % 2]),
        ));
        let sizes = plain_and_dictionary_sizes(values.as_ref()).unwrap();
        assert!(sizes.dictionary_pays(), "{sizes:?}");
    }
}
