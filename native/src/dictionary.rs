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

/// The distinct values of a column. The decision hashes every value of a file's first page, on
/// the thread that closes a small file: std's SipHash was about a tenth of that thread's time
/// when 1,024 files closed at once; ahash (already arrow-rs's) is several times cheaper.
type Distinct<T> = HashSet<T, ahash::RandomState>;

fn distinct_set<T>(capacity: usize) -> Distinct<T> {
    HashSet::with_capacity_and_hasher(capacity, ahash::RandomState::new())
}

/// Leaf columns (outside lists and maps) whose first page, given as the batches that make it up,
/// does not compress with a dictionary.
pub fn columns_without_dictionary_benefit(first_page: &[RecordBatch]) -> Vec<ColumnPath> {
    let mut out = Vec::new();
    let Some(first) = first_page.first() else {
        return out;
    };
    for (index, field) in first.schema().fields().iter().enumerate() {
        let arrays: Vec<ArrayRef> = first_page
            .iter()
            .map(|batch| batch.column(index).clone())
            .collect();
        collect_columns_without_benefit(field, &arrays, vec![field.name().clone()], &mut out);
    }
    out
}

/// Adds to `out` the leaf columns of `field` (at `path`) that do not compress with a dictionary;
/// `arrays` are the column's pieces, one per batch of the first page.
pub(crate) fn collect_columns_without_benefit(
    field: &Field,
    arrays: &[ArrayRef],
    path: Vec<String>,
    out: &mut Vec<ColumnPath>,
) {
    if let DataType::Struct(children) = field.data_type() {
        for (index, child) in children.iter().enumerate() {
            let pieces: Vec<ArrayRef> = arrays
                .iter()
                .map(|array| array.as_struct().column(index).clone())
                .collect();
            let mut child_path = path.clone();
            child_path.push(child.name().clone());
            collect_columns_without_benefit(child, &pieces, child_path, out);
        }
        return;
    }
    if let Some(sizes) = plain_and_dictionary_sizes(arrays) {
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
    /// The sizes of `values` non-null values, `distinct` of them distinct, taking `plain` bytes
    /// plain and `dictionary` bytes as a dictionary.
    pub fn from_counts(values: usize, distinct: usize, plain: usize, dictionary: usize) -> Self {
        // RLE/bit-packed indexes: about bit_width(distinct - 1) bits per value, plus the width
        // byte.
        let bits = usize::BITS as usize - distinct.saturating_sub(1).leading_zeros() as usize;
        Self {
            plain,
            dictionary,
            indexes: 1 + (values * bits).div_ceil(8),
        }
    }

    /// parquet-java's `DictionaryValuesWriter.isCompressionSatisfying`.
    pub fn dictionary_pays(&self) -> bool {
        self.dictionary + self.indexes < self.plain
    }
}

fn sizes(values: usize, distinct: usize, plain: usize, dictionary: usize) -> EncodedSizes {
    EncodedSizes::from_counts(values, distinct, plain, dictionary)
}

/// Bytes of a decimal of `precision` digits in a plain page (Iceberg's physical types).
pub(crate) fn decimal_plain_width(precision: u8) -> usize {
    match precision {
        1..=9 => 4,
        10..=18 => 8,
        p => crate::schema::decimal_required_bytes(i32::from(p)) as usize,
    }
}

fn total_len(arrays: &[ArrayRef]) -> usize {
    arrays.iter().map(|a| a.len()).sum()
}

/// Distinct non-null values of fixed-width columns, keyed by `key` (the value itself, or a
/// float's bits so that NaN and -0.0 count as parquet-java counts them).
fn fixed_width<T: ArrowPrimitiveType, K: Hash + Eq>(
    arrays: &[ArrayRef],
    width: usize,
    key: fn(T::Native) -> K,
) -> EncodedSizes {
    let mut distinct = distinct_set(total_len(arrays));
    let mut values = 0usize;
    for array in arrays {
        let array: &PrimitiveArray<T> = array.as_primitive::<T>();
        for v in array.iter().flatten() {
            values += 1;
            distinct.insert(key(v));
        }
    }
    sizes(
        values,
        distinct.len(),
        values * width,
        distinct.len() * width,
    )
}

fn primitive<T: ArrowPrimitiveType>(arrays: &[ArrayRef], width: usize) -> EncodedSizes
where
    T::Native: Hash + Eq,
{
    fixed_width::<T, T::Native>(arrays, width, |v| v)
}

fn bytes<'a>(values: impl Iterator<Item = &'a [u8]>, length_prefix: usize) -> EncodedSizes {
    let mut distinct: Distinct<&[u8]> = distinct_set(0);
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

fn plain_and_dictionary_sizes(arrays: &[ArrayRef]) -> Option<EncodedSizes> {
    use arrow::datatypes::*;
    let data_type = arrays.first()?.data_type();
    let sizes = match data_type {
        // Parquet writes booleans without a dictionary anyway.
        DataType::Boolean => {
            let _: &BooleanArray = arrays[0].as_boolean();
            return None;
        }
        DataType::Int32 => primitive::<Int32Type>(arrays, 4),
        DataType::Date32 => primitive::<Date32Type>(arrays, 4),
        DataType::Int64 => primitive::<Int64Type>(arrays, 8),
        DataType::Time64(TimeUnit::Microsecond) => primitive::<Time64MicrosecondType>(arrays, 8),
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            primitive::<TimestampMicrosecondType>(arrays, 8)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            primitive::<TimestampNanosecondType>(arrays, 8)
        }
        DataType::Float32 => fixed_width::<Float32Type, u32>(arrays, 4, f32::to_bits),
        DataType::Float64 => fixed_width::<Float64Type, u64>(arrays, 8, f64::to_bits),
        DataType::Decimal128(precision, _) => {
            primitive::<Decimal128Type>(arrays, decimal_plain_width(*precision))
        }
        DataType::Utf8 => bytes(
            arrays
                .iter()
                .flat_map(|a| a.as_string::<i32>().iter().flatten().map(str::as_bytes)),
            4,
        ),
        DataType::Binary => bytes(
            arrays
                .iter()
                .flat_map(|a| a.as_binary::<i32>().iter().flatten()),
            4,
        ),
        DataType::FixedSizeBinary(_) => bytes(
            arrays
                .iter()
                .flat_map(|a| a.as_fixed_size_binary().iter().flatten()),
            0,
        ),
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
        let off = columns_without_dictionary_benefit(&[batch]);
        assert_eq!(off, vec![ColumnPath::new(vec!["distinct".to_string()])]);
    }

    #[test]
    fn a_first_page_in_pieces_decides_as_the_whole_page_does() {
        use arrow::array::StructArray;
        use arrow::compute::concat_batches;
        // Each piece alone is distinct values (no dictionary); together every value repeats
        // once, where the dictionary pays. The struct's child must be judged the same way.
        let child = Arc::new(Field::new("v", DataType::Int64, false));
        let schema = Arc::new(Schema::new(vec![
            Field::new("top", DataType::Int64, false),
            Field::new("s", DataType::Struct(vec![child.clone()].into()), false),
        ]));
        let piece = || {
            let values: ArrayRef = Arc::new(Int64Array::from_iter_values(0..4096));
            let nested: ArrayRef =
                Arc::new(StructArray::from(vec![(child.clone(), values.clone())]));
            RecordBatch::try_new(schema.clone(), vec![values, nested]).unwrap()
        };
        let pieces = [piece(), piece()];
        let whole = concat_batches(&schema, &pieces).unwrap();

        assert_eq!(
            columns_without_dictionary_benefit(&pieces[..1]).len(),
            2,
            "one piece alone: distinct values"
        );
        assert_eq!(columns_without_dictionary_benefit(&pieces), vec![]);
        assert_eq!(
            columns_without_dictionary_benefit(&pieces),
            columns_without_dictionary_benefit(&[whole])
        );
        assert_eq!(columns_without_dictionary_benefit(&[]), vec![]);
    }

    #[test]
    fn low_cardinality_strings_pay() {
        let values: ArrayRef = Arc::new(StringArray::from_iter_values(
            (0..1000).map(|i| ["Google", "Apple"][i % 2]),
        ));
        let sizes = plain_and_dictionary_sizes(&[values]).unwrap();
        assert!(sizes.dictionary_pays(), "{sizes:?}");
    }
}
