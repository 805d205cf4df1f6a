//! Splitting an Arrow batch by destination: the rows of each distinct partition tuple together,
//! so that a keyed exchange moves whole sub-batches to the writer subtask that owns them.
//!
//! The result is one batch with the rows regrouped (groups in the order their first row
//! appears, rows in their original order within a group), the group boundaries, and a batch of
//! keys with one row per group: the partition tuple, one column per partition field. Java turns
//! each tuple into Iceberg's partition path once per distinct tuple (see
//! `io.frazil.partition.ArrowBatchSplitter` for why the path is not built here).

use std::sync::Arc;

use arrow::array::{make_array, Array, ArrayRef, AsArray, RecordBatch, UInt32Array};
use arrow::buffer::NullBuffer;
use arrow::compute::{take, take_record_batch};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::row::{RowConverter, SortField};
use hashbrown::HashMap;

use super::transforms::Transform;
use crate::error::{NativeError, Result};

/// One partition field: where its source column is and how it is transformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitField {
    /// Top-level column index, then child indices through structs.
    pub path: Vec<usize>,
    pub transform: Transform,
}

/// The partition fields of a spec, in the spec's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitSpec {
    pub fields: Vec<SplitField>,
}

impl SplitSpec {
    /// Decodes `[field count, then per field: transform code, parameter, path length, path…]`
    /// (the layout `io.frazil.partition.SplitSpec` writes).
    pub fn decode(codes: &[i32]) -> Result<Self> {
        let bad =
            |what: &str| NativeError::InvalidArgument(format!("split spec {codes:?}: {what}"));
        let mut it = codes.iter().copied();
        let mut next = |what: &str| it.next().ok_or_else(|| bad(what));
        let count = usize::try_from(next("no field count")?).map_err(|_| bad("negative count"))?;
        let mut fields = Vec::with_capacity(count.min(64));
        for _ in 0..count {
            let code = next("truncated transform")?;
            let param = next("truncated parameter")?;
            let transform = Transform::from_code(code, param)?;
            let depth = next("truncated path length")?;
            if !(1..=64).contains(&depth) {
                return Err(bad("a path length outside 1..=64"));
            }
            let path = (0..depth)
                .map(|_| {
                    let index = next("truncated path")?;
                    usize::try_from(index).map_err(|_| bad("a negative column index"))
                })
                .collect::<Result<_>>()?;
            fields.push(SplitField { path, transform });
        }
        if it.next().is_some() {
            return Err(bad("values after the last field"));
        }
        Ok(Self { fields })
    }
}

/// A batch regrouped by partition tuple.
#[derive(Debug)]
pub struct Split {
    /// The input's rows, grouped; group `g` is rows `offsets[g]..offsets[g + 1]`.
    pub batch: RecordBatch,
    /// Group boundaries, `groups + 1` values starting at 0.
    pub offsets: Vec<u32>,
    /// One row per group: its partition tuple (columns `p0`, `p1`, … in spec order).
    pub keys: RecordBatch,
}

/// The source column of `field` in `batch`: a top-level column, or a struct child whose value is
/// null where any parent struct is null (Iceberg's accessors return null for a null parent).
pub fn source_column(batch: &RecordBatch, path: &[usize]) -> Result<ArrayRef> {
    let (&first, rest) = path
        .split_first()
        .ok_or_else(|| NativeError::InvalidArgument("an empty source column path".into()))?;
    let mut column = batch.columns().get(first).cloned().ok_or_else(|| {
        NativeError::InvalidArgument(format!(
            "source column {first} of a batch of {} columns",
            batch.num_columns()
        ))
    })?;
    for &child in rest {
        let DataType::Struct(_) = column.data_type() else {
            return Err(NativeError::Unsupported(format!(
                "a partition source inside a {} column (structs only)",
                column.data_type()
            )));
        };
        let parent = column.as_struct();
        let inner = parent.columns().get(child).cloned().ok_or_else(|| {
            NativeError::InvalidArgument(format!(
                "child {child} of a struct of {} fields",
                parent.num_columns()
            ))
        })?;
        let nulls = NullBuffer::union(parent.nulls(), inner.nulls());
        let data = inner
            .to_data()
            .into_builder()
            .nulls(nulls)
            .build()
            .map_err(|e| NativeError::arrow("reading a struct child", e))?;
        column = make_array(data);
    }
    Ok(column)
}

/// Regroups `batch` by the partition tuple of each row under `spec`.
pub fn split(batch: &RecordBatch, spec: &SplitSpec) -> Result<Split> {
    let rows = batch.num_rows();
    let tuples = spec
        .fields
        .iter()
        .map(|f| f.transform.apply(&source_column(batch, &f.path)?))
        .collect::<Result<Vec<_>>>()?;
    let radixes = bucket_radixes(spec);
    let (group_of_row, first_rows) = match radixes {
        Some(radixes) => group_bucket_tuples(&tuples, &radixes, rows),
        None => group_rows(&tuples, rows)?,
    };

    let groups = first_rows.len();
    let (order, offsets) = counting_order(&group_of_row, groups);
    // Always a copy, also for a single group: the sub-batches own native buffers and hold no
    // reference to the caller's (Java) buffers.
    let regrouped = take_record_batch(batch, &UInt32Array::from(order))
        .map_err(|e| NativeError::arrow("regrouping a batch by partition", e))?;

    let firsts = UInt32Array::from(first_rows);
    let mut fields = Vec::with_capacity(tuples.len());
    let mut columns = Vec::with_capacity(tuples.len());
    for (i, tuple) in tuples.iter().enumerate() {
        fields.push(Field::new(format!("p{i}"), tuple.data_type().clone(), true));
        columns.push(
            take(tuple.as_ref(), &firsts, None)
                .map_err(|e| NativeError::arrow("taking partition keys", e))?,
        );
    }
    let keys = RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        columns,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(groups)),
    )
    .map_err(|e| NativeError::arrow("building the partition keys", e))?;
    Ok(Split {
        batch: regrouped,
        offsets,
        keys,
    })
}

/// The row order that groups rows by `group_of_row` (a counting sort: stable, so each group's
/// rows keep their original order), and the group boundaries (`groups + 1` values from 0).
pub(crate) fn counting_order(group_of_row: &[u32], groups: usize) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; groups + 1];
    for &g in group_of_row {
        offsets[g as usize + 1] += 1;
    }
    for g in 0..groups {
        offsets[g + 1] += offsets[g];
    }
    let mut next = offsets[..groups].to_vec();
    let mut order = vec![0u32; group_of_row.len()];
    for (row, &g) in group_of_row.iter().enumerate() {
        order[next[g as usize] as usize] = row as u32;
        next[g as usize] += 1;
    }
    (order, offsets)
}

/// The largest bucket-tuple space grouped by ordinal instead of by hashing (as Java's
/// `BucketTupleMemo.MAX_TUPLES`).
const MAX_BUCKET_TUPLES: usize = 1024;

/// `N + 1` per field (a slot for null) when every field is `bucket[N]` and the product is at
/// most [`MAX_BUCKET_TUPLES`]: the spec's tuples then have a mixed-radix ordinal.
fn bucket_radixes(spec: &SplitSpec) -> Option<Vec<usize>> {
    let mut product = 1usize;
    let mut radixes = Vec::with_capacity(spec.fields.len());
    for field in &spec.fields {
        let Transform::Bucket(n) = field.transform else {
            return None;
        };
        let radix = usize::try_from(n).ok()?.checked_add(1)?;
        product = product.checked_mul(radix)?;
        if product > MAX_BUCKET_TUPLES {
            return None;
        }
        radixes.push(radix);
    }
    (!radixes.is_empty()).then_some(radixes)
}

/// [`group_rows`] for bucket-only specs: each row's tuple as its mixed-radix ordinal (the bounded
/// bucket-tuple memo's numbering), groups found through an array indexed by ordinal.
fn group_bucket_tuples(
    tuples: &[ArrayRef],
    radixes: &[usize],
    rows: usize,
) -> (Vec<u32>, Vec<u32>) {
    let mut ordinals = vec![0usize; rows];
    for (tuple, &radix) in tuples.iter().zip(radixes) {
        let buckets = tuple.as_primitive::<arrow::datatypes::Int32Type>();
        for (row, ordinal) in ordinals.iter_mut().enumerate() {
            // A bucket is in 0..N; the null slot is N.
            let slot = if buckets.is_null(row) {
                radix - 1
            } else {
                buckets.value(row) as usize
            };
            *ordinal = *ordinal * radix + slot;
        }
    }
    let size: usize = radixes.iter().product();
    let mut group_of_ordinal = vec![u32::MAX; size];
    let mut group_of_row = Vec::with_capacity(rows);
    let mut first_rows = Vec::new();
    for (row, &ordinal) in ordinals.iter().enumerate() {
        let group = &mut group_of_ordinal[ordinal];
        if *group == u32::MAX {
            *group = first_rows.len() as u32;
            first_rows.push(row as u32);
        }
        group_of_row.push(*group);
    }
    (group_of_row, first_rows)
}

/// The group of every row (numbered by first appearance) and the first row of every group.
fn group_rows(tuples: &[ArrayRef], rows: usize) -> Result<(Vec<u32>, Vec<u32>)> {
    if tuples.is_empty() {
        // Unpartitioned: one group (when there are rows).
        return Ok((vec![0; rows], if rows > 0 { vec![0] } else { vec![] }));
    }
    let fields = tuples
        .iter()
        .map(|t| SortField::new(t.data_type().clone()))
        .collect();
    let converter = RowConverter::new(fields)
        .map_err(|e| NativeError::arrow("grouping partition tuples", e))?;
    let encoded = converter
        .convert_columns(tuples)
        .map_err(|e| NativeError::arrow("grouping partition tuples", e))?;
    let mut group_of = HashMap::with_capacity_and_hasher(16, ahash::RandomState::new());
    let mut group_of_row = Vec::with_capacity(rows);
    let mut first_rows = Vec::new();
    for (row, key) in encoded.iter().enumerate() {
        let next = first_rows.len() as u32;
        let group = *group_of.entry(key).or_insert(next);
        if group == next {
            first_rows.push(row as u32);
        }
        group_of_row.push(group);
    }
    Ok((group_of_row, first_rows))
}

#[cfg(test)]
mod tests {
    use arrow::array::{Int32Array, StringArray, StructArray};
    use arrow::datatypes::Int32Type;

    use super::*;

    fn batch() -> RecordBatch {
        let ids = Int32Array::from(vec![Some(5), Some(7), None, Some(5), Some(8)]);
        let names = StringArray::from(vec!["a", "b", "c", "d", "e"]);
        let inner = StructArray::from(vec![(
            Arc::new(Field::new("x", DataType::Int32, true)),
            Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5])) as ArrayRef,
        )]);
        let nested = StructArray::try_new(
            inner.fields().clone(),
            inner.columns().to_vec(),
            Some(NullBuffer::from(vec![true, false, true, true, true])),
        )
        .unwrap();
        RecordBatch::try_from_iter(vec![
            ("id", Arc::new(ids) as ArrayRef),
            ("name", Arc::new(names) as ArrayRef),
            ("s", Arc::new(nested) as ArrayRef),
        ])
        .unwrap()
    }

    #[test]
    fn groups_in_first_appearance_order_and_keeps_row_order() {
        let spec = SplitSpec::decode(&[1, 2, 2, 1, 0]).unwrap(); // truncate[2](id)
        let split = split(&batch(), &spec).unwrap();
        assert_eq!(split.offsets, vec![0, 2, 3, 4, 5]);
        let names = split.batch.column(1).as_string::<i32>();
        assert_eq!(
            names.iter().flatten().collect::<Vec<_>>(),
            ["a", "d", "b", "c", "e"]
        );
        let keys = split.keys.column(0).as_primitive::<Int32Type>();
        assert_eq!(
            keys,
            &Int32Array::from(vec![Some(4), Some(6), None, Some(8)])
        );
    }

    #[test]
    fn a_null_parent_struct_gives_a_null_source() {
        let column = source_column(&batch(), &[2, 0]).unwrap();
        assert_eq!(column.null_count(), 1);
        assert!(column.is_null(1));
        let spec = SplitSpec::decode(&[2, 0, 0, 2, 2, 0, 7, 0, 1, 0]).unwrap();
        let split = split(&batch(), &spec).unwrap();
        assert_eq!(split.keys.num_rows(), 5);
        assert_eq!(split.keys.column(1).null_count(), 5);
    }

    #[test]
    fn bucket_ordinals_group_as_hashing_does() {
        // Two bucket columns with nulls: the ordinal grouping and the generic one must agree.
        let a: ArrayRef = Arc::new(Int32Array::from(
            (0..500)
                .map(|i| (i % 7 != 0).then_some(i * 31 % 5))
                .collect::<Vec<_>>(),
        ));
        let b: ArrayRef = Arc::new(Int32Array::from(
            (0..500)
                .map(|i| (i % 11 != 0).then_some(i * 17 % 3))
                .collect::<Vec<_>>(),
        ));
        let tuples = [a, b];
        let by_hash = group_rows(&tuples, 500).unwrap();
        let by_ordinal = group_bucket_tuples(&tuples, &[6, 4], 500);
        assert_eq!(by_hash, by_ordinal);
        let spec = SplitSpec::decode(&[2, 1, 5, 1, 0, 1, 3, 1, 1]).unwrap();
        assert_eq!(bucket_radixes(&spec), Some(vec![6, 4]));
        let too_many = SplitSpec::decode(&[2, 1, 100, 1, 0, 1, 100, 1, 1]).unwrap();
        assert_eq!(bucket_radixes(&too_many), None);
        let not_bucket = SplitSpec::decode(&[1, 0, 0, 1, 0]).unwrap();
        assert_eq!(bucket_radixes(&not_bucket), None);
    }

    #[test]
    fn unpartitioned_is_one_group_and_bad_specs_are_named() {
        let split = split(&batch(), &SplitSpec::decode(&[0]).unwrap()).unwrap();
        assert_eq!(split.offsets, vec![0, 5]);
        assert_eq!(split.keys.num_rows(), 1);
        assert!(SplitSpec::decode(&[1, 0, 0]).is_err());
        assert!(SplitSpec::decode(&[1, 0, 0, 1, 0, 9]).is_err());
        assert!(source_column(&batch(), &[9]).is_err());
        assert!(matches!(
            source_column(&batch(), &[0, 1]),
            Err(NativeError::Unsupported(_))
        ));
    }
}
