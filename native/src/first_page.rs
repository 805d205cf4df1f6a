//! [`FirstPage`]: the rows a file holds before its dictionary decision, kept compact.
//!
//! A file's first page of rows decides which of its columns are dictionary encoded (see
//! [`crate::dictionary`]), so those rows are held until the page is complete: page-row-limit
//! rows, or fewer once one column holds page-size bytes. With many open partitions every file
//! sits in that state at the same time. Plain copies of their rows made that moment Frazil's
//! native peak: with 128 interleaved files of bid rows, 339 MB while every file reached its
//! decision, against 235 MB once all of them were encoding. Under memory pressure a file keeps
//! holding its rows here after the decision, up to a page's row limit (see
//! [`crate::writer::set_memory_pressure`]).
//!
//! So a column of a plain type is held the way a dictionary would hold it: its distinct values
//! once, plus a 16-bit key per row. The decision needs exactly those counts, so it no longer
//! hashes the page a second time. A column whose values turn out mostly distinct is turned back
//! into copies, since keys would only add to values that do not repeat. Other columns (booleans,
//! structs, lists, maps) are held as copies, as before.
//!
//! [`FirstPage::into_batches`] gives the rows back as the batches they came in, value for value
//! (floats by their bits), so the encoder sees what it would have seen.

use arrow::array::{
    make_array, new_null_array, Array, ArrayData, ArrayRef, MutableArrayData, NullBufferBuilder,
    RecordBatch, RecordBatchOptions, UInt16Array,
};
use arrow::buffer::{Buffer, MutableBuffer, NullBuffer, ScalarBuffer};
use arrow::compute::take;
use arrow::datatypes::{DataType, SchemaRef, TimeUnit};
use hashbrown::hash_table::{Entry, HashTable};
use parquet::schema::types::ColumnPath;

use crate::dictionary::{self, EncodedSizes};
use crate::error::{NativeError, Result};

/// Distinct values a column can hold as keys: one more would not fit a 16-bit key. The default
/// first page (20,000 rows) never gets there.
const MAX_DISTINCT: usize = u16::MAX as usize + 1;

/// A column is turned back into copies once more than half of at least this many values were
/// distinct: from there on, a key per row and a hash slot per value cost about what they save.
const VERDICT_AFTER_VALUES: usize = 1024;

/// The rows a file holds before its encoder starts.
#[derive(Default)]
pub struct FirstPage {
    schema: Option<SchemaRef>,
    columns: Vec<HeldColumn>,
    /// Rows of each batch taken, in order: the replay cuts the same batches.
    batch_rows: Vec<usize>,
    rows: usize,
    /// Bytes of each leaf column as Arrow held them in the batches taken (see [`leaf_bytes`]).
    leaf_bytes: Vec<usize>,
}

enum HeldColumn {
    Distinct(Box<DistinctValues>),
    Copies(Vec<ArrayRef>),
}

impl FirstPage {
    /// True while no row is held.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The largest plain size one leaf column has reached: the first page ends at page-size
    /// bytes in one column.
    pub fn widest_leaf_bytes(&self) -> usize {
        self.leaf_bytes.iter().copied().max().unwrap_or(0)
    }

    /// Plain size of the rows held, summed over their leaf columns: what the file's data is
    /// about to be before encoding.
    pub fn plain_bytes(&self) -> usize {
        self.leaf_bytes.iter().sum()
    }

    /// Memory the rows hold now.
    pub fn memory_size(&self) -> usize {
        self.columns
            .iter()
            .map(|column| match column {
                HeldColumn::Distinct(values) => values.memory_size(),
                HeldColumn::Copies(pieces) => {
                    pieces.iter().map(|a| a.get_array_memory_size()).sum()
                }
            })
            .sum()
    }

    /// Takes in `batch`'s rows: nothing of `batch` is referenced afterwards, so the caller may
    /// release its buffers.
    pub fn take(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.schema.is_none() {
            self.columns = batch
                .schema()
                .fields()
                .iter()
                .map(|field| match DistinctValues::for_type(field.data_type()) {
                    Some(values) => HeldColumn::Distinct(Box::new(values)),
                    None => HeldColumn::Copies(Vec::new()),
                })
                .collect();
            self.schema = Some(batch.schema());
        }
        let mut leaves = Vec::with_capacity(self.leaf_bytes.len());
        for (held, array) in self.columns.iter_mut().zip(batch.columns()) {
            leaf_bytes(array.as_ref(), &mut leaves);
            if let HeldColumn::Distinct(values) = held {
                if values.take(array.as_ref()) {
                    continue;
                }
                let values = std::mem::replace(held, HeldColumn::Copies(Vec::new()));
                if let HeldColumn::Distinct(values) = values {
                    *held = HeldColumn::Copies(values.into_pieces(&self.batch_rows)?);
                }
            }
            if let HeldColumn::Copies(pieces) = held {
                pieces.push(deep_copy(array.as_ref())?);
            }
        }
        self.leaf_bytes.resize(leaves.len(), 0);
        for (total, bytes) in self.leaf_bytes.iter_mut().zip(leaves) {
            *total += bytes;
        }
        self.batch_rows.push(batch.num_rows());
        self.rows += batch.num_rows();
        Ok(())
    }

    /// Leaf columns (outside lists and maps) whose first page does not compress with a
    /// dictionary: [`dictionary::columns_without_dictionary_benefit`] of the rows held.
    pub fn columns_without_dictionary_benefit(&self) -> Vec<ColumnPath> {
        let mut out = Vec::new();
        let Some(schema) = self.schema.as_ref() else {
            return out;
        };
        for (field, held) in schema.fields().iter().zip(&self.columns) {
            let path = vec![field.name().clone()];
            match held {
                HeldColumn::Distinct(values) => {
                    if !values.sizes().dictionary_pays() {
                        out.push(ColumnPath::new(path));
                    }
                }
                HeldColumn::Copies(pieces) => {
                    dictionary::collect_columns_without_benefit(field, pieces, path, &mut out)
                }
            }
        }
        out
    }

    /// The rows held, as the batches they were taken in. Each batch is built when the iterator
    /// reaches it, so one at a time is held in plain form.
    pub fn into_batches(self) -> impl Iterator<Item = Result<RecordBatch>> {
        let schema = self.schema;
        let mut replays: Vec<ColumnReplay> =
            self.columns.into_iter().map(ColumnReplay::new).collect();
        let mut offset = 0;
        self.batch_rows.into_iter().map(move |rows| {
            let schema = schema
                .clone()
                .expect("rows were taken, so the schema is known");
            let columns = replays
                .iter_mut()
                .map(|replay| replay.next(offset, rows))
                .collect::<Result<Vec<_>>>()?;
            offset += rows;
            let options = RecordBatchOptions::new().with_row_count(Some(rows));
            RecordBatch::try_new_with_options(schema, columns, &options)
                .map_err(|e| NativeError::arrow("rebuilding a held batch", e))
        })
    }
}

/// A copy of `array` in Rust-owned buffers, so the caller's (Java) buffers can be released.
fn deep_copy(array: &dyn Array) -> Result<ArrayRef> {
    let data = array.to_data();
    let mut copy = MutableArrayData::new(vec![&data], false, data.len());
    copy.try_extend(0, 0, data.len())
        .map_err(|e| NativeError::arrow("copying a batch", e))?;
    Ok(make_array(copy.freeze()))
}

/// Appends the bytes of each leaf column of `array` (struct fields visited in order; a list or
/// map counts as one), as Arrow holds them: close to their plain encoded size.
fn leaf_bytes(array: &dyn Array, out: &mut Vec<usize>) {
    match array.data_type() {
        DataType::Struct(_) => {
            for child in arrow::array::AsArray::as_struct(array).columns() {
                leaf_bytes(child.as_ref(), out);
            }
        }
        _ => out.push(array.to_data().get_slice_memory_size().unwrap_or(0)),
    }
}

/// How a type's values are laid out in Arrow, and how the dictionary decision counts them.
#[derive(Clone, Copy)]
enum Layout {
    /// `width` bytes per value in one buffer; the decision counts `parquet_width` per value.
    Fixed { width: usize, parquet_width: usize },
    /// 32-bit offsets into a data buffer; the decision counts a 4-byte length plus the bytes.
    Variable,
}

/// One column's distinct non-null values (their bytes, in first-seen order) and a key per row.
struct DistinctValues {
    data_type: DataType,
    layout: Layout,
    /// Arrow's aligned buffer: the values become an array of the column's type without a copy.
    bytes: MutableBuffer,
    /// Start of each value in `bytes` and the end of the last (variable layout only).
    offsets: Vec<i32>,
    table: HashTable<u16>,
    hasher: ahash::RandomState,
    /// A key per row; 0 where the row is null.
    keys: Vec<u16>,
    nulls: NullBufferBuilder,
    non_null: usize,
    plain_bytes: usize,
    dictionary_bytes: usize,
}

impl DistinctValues {
    /// Held as distinct values: the types the dictionary decision counts (see
    /// [`crate::dictionary`]), booleans aside.
    fn for_type(data_type: &DataType) -> Option<Self> {
        let fixed = |width, parquet_width| Layout::Fixed {
            width,
            parquet_width,
        };
        let layout = match data_type {
            DataType::Int32 | DataType::Date32 | DataType::Float32 => fixed(4, 4),
            DataType::Int64
            | DataType::Float64
            | DataType::Time64(TimeUnit::Microsecond)
            | DataType::Timestamp(TimeUnit::Microsecond | TimeUnit::Nanosecond, _) => fixed(8, 8),
            DataType::Decimal128(precision, _) => {
                fixed(16, dictionary::decimal_plain_width(*precision))
            }
            DataType::FixedSizeBinary(width) => {
                let width = usize::try_from(*width).ok()?;
                fixed(width, width)
            }
            DataType::Utf8 | DataType::Binary => Layout::Variable,
            _ => return None,
        };
        Some(Self {
            data_type: data_type.clone(),
            layout,
            bytes: MutableBuffer::new(0),
            offsets: match layout {
                Layout::Fixed { .. } => Vec::new(),
                Layout::Variable => vec![0],
            },
            table: HashTable::new(),
            hasher: ahash::RandomState::new(),
            keys: Vec::new(),
            nulls: NullBufferBuilder::new(0),
            non_null: 0,
            plain_bytes: 0,
            dictionary_bytes: 0,
        })
    }

    fn distinct(&self) -> usize {
        self.table.len()
    }

    fn memory_size(&self) -> usize {
        self.bytes.capacity()
            + self.offsets.capacity() * 4
            + self.keys.capacity() * 2
            + self.keys.capacity().div_ceil(8)
            // A slot and its control byte.
            + self.table.capacity() * 3
    }

    fn sizes(&self) -> EncodedSizes {
        EncodedSizes::from_counts(
            self.non_null,
            self.distinct(),
            self.plain_bytes,
            self.dictionary_bytes,
        )
    }

    /// Adds `array`'s rows; false (nothing added) when this column is better held as copies:
    /// its values so far were mostly distinct, or `array` could bring more than 16-bit keys or
    /// 32-bit offsets can address.
    fn take(&mut self, array: &dyn Array) -> bool {
        let mostly_distinct =
            self.non_null >= VERDICT_AFTER_VALUES && self.distinct() * 2 > self.non_null;
        let data = array.to_data();
        let rows = data.len();
        if mostly_distinct || self.distinct() + rows > MAX_DISTINCT {
            return false;
        }
        let (values, offsets, width) = match self.layout {
            Layout::Fixed { width, .. } => {
                let start = data.offset() * width;
                let values = &data.buffers()[0].as_slice()[start..start + rows * width];
                (values, None, width)
            }
            Layout::Variable => {
                let offsets = data.buffer::<i32>(0);
                let span = (offsets[rows] - offsets[0]) as usize;
                if self.bytes.len() + span > i32::MAX as usize {
                    return false;
                }
                (data.buffers()[1].as_slice(), Some(&offsets[..=rows]), 0)
            }
        };
        let nulls = data.nulls();
        self.keys.reserve(rows);
        for row in 0..rows {
            if nulls.is_some_and(|n| n.is_null(row)) {
                self.keys.push(0);
                self.nulls.append_null();
                continue;
            }
            let value = match offsets {
                Some(o) => &values[o[row] as usize..o[row + 1] as usize],
                None => &values[row * width..(row + 1) * width],
            };
            let key = self.intern(value);
            self.keys.push(key);
            self.nulls.append_non_null();
        }
        true
    }

    /// The key of `value`, added to the distinct values if new.
    fn intern(&mut self, value: &[u8]) -> u16 {
        let (plain, dictionary_width) = match self.layout {
            Layout::Fixed { parquet_width, .. } => (parquet_width, parquet_width),
            Layout::Variable => (4 + value.len(), 4 + value.len()),
        };
        self.non_null += 1;
        self.plain_bytes += plain;
        let hash = self.hasher.hash_one(value);
        let next_key = self.table.len() as u16;
        let (bytes, offsets, layout, hasher) = (
            self.bytes.as_slice(),
            &self.offsets,
            self.layout,
            &self.hasher,
        );
        let stored = |key: u16| value_at(bytes, offsets, layout, key);
        match self.table.entry(
            hash,
            |&key| stored(key) == value,
            |&key| hasher.hash_one(stored(key)),
        ) {
            Entry::Occupied(entry) => *entry.get(),
            Entry::Vacant(entry) => {
                // Within MAX_DISTINCT: checked for the whole batch before it is taken.
                let key = next_key;
                entry.insert(key);
                self.bytes.extend_from_slice(value);
                if let Layout::Variable = self.layout {
                    self.offsets.push(self.bytes.len() as i32);
                }
                self.dictionary_bytes += dictionary_width;
                key
            }
        }
    }

    /// The distinct values as an array of the column's type, and the keys and nulls per row.
    fn into_parts(self) -> Result<(ArrayRef, ScalarBuffer<u16>, Option<NullBuffer>)> {
        let Self {
            data_type,
            layout,
            bytes,
            offsets,
            table,
            keys,
            mut nulls,
            ..
        } = self;
        let distinct = table.len();
        drop(table);
        let builder = ArrayData::builder(data_type).len(distinct);
        let builder = match layout {
            Layout::Fixed { .. } => builder.add_buffer(bytes.into()),
            Layout::Variable => builder
                .add_buffer(Buffer::from_vec(offsets))
                .add_buffer(bytes.into()),
        };
        let values = builder
            .build()
            .map_err(|e| NativeError::arrow("rebuilding held values", e))?;
        Ok((make_array(values), ScalarBuffer::from(keys), nulls.finish()))
    }

    /// The column's pieces as copies, one per batch of `batch_rows`.
    fn into_pieces(self, batch_rows: &[usize]) -> Result<Vec<ArrayRef>> {
        let mut replay = ColumnReplay::Distinct(Box::new(self.into_parts()?));
        let mut offset = 0;
        let mut pieces = Vec::with_capacity(batch_rows.len());
        for &rows in batch_rows {
            pieces.push(replay.next(offset, rows)?);
            offset += rows;
        }
        Ok(pieces)
    }
}

fn value_at<'a>(bytes: &'a [u8], offsets: &[i32], layout: Layout, key: u16) -> &'a [u8] {
    let key = usize::from(key);
    match layout {
        Layout::Fixed { width, .. } => &bytes[key * width..(key + 1) * width],
        Layout::Variable => &bytes[offsets[key] as usize..offsets[key + 1] as usize],
    }
}

/// One held column, handed back batch by batch.
enum ColumnReplay {
    Distinct(Box<(ArrayRef, ScalarBuffer<u16>, Option<NullBuffer>)>),
    Copies(std::vec::IntoIter<ArrayRef>),
    /// Turning distinct values back into an array failed: every batch reports it.
    Failed(String),
}

impl ColumnReplay {
    fn new(held: HeldColumn) -> Self {
        match held {
            HeldColumn::Distinct(values) => match values.into_parts() {
                Ok(parts) => Self::Distinct(Box::new(parts)),
                Err(e) => Self::Failed(e.to_string()),
            },
            HeldColumn::Copies(pieces) => Self::Copies(pieces.into_iter()),
        }
    }

    /// The column's `rows` rows from `offset`: the next batch.
    fn next(&mut self, offset: usize, rows: usize) -> Result<ArrayRef> {
        match self {
            Self::Distinct(parts) => {
                let (values, keys, nulls) = parts.as_ref();
                if values.is_empty() {
                    // Every row so far is null: there is no value to point at.
                    return Ok(new_null_array(values.data_type(), rows));
                }
                let keys = UInt16Array::new(
                    keys.slice(offset, rows),
                    nulls.as_ref().map(|n| n.slice(offset, rows)),
                );
                take(values.as_ref(), &keys, None)
                    .map_err(|e| NativeError::arrow("rebuilding a held batch", e))
            }
            Self::Copies(pieces) => pieces.next().ok_or_else(|| {
                NativeError::InvalidState("a held column has fewer batches than its page".into())
            }),
            Self::Failed(message) => Err(NativeError::InvalidState(message.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{
        AsArray, BooleanArray, Decimal128Array, FixedSizeBinaryArray, Float64Array, Int32Array,
        Int64Array, ListArray, StringArray, StructArray, TimestampMicrosecondArray,
    };
    use arrow::datatypes::{Field, Float64Type, Int32Type, Schema};

    use super::*;

    /// Every kind of column: held as distinct values (with nulls, NaN and ±0.0, empty strings,
    /// a time zone, a decimal's precision) or as copies (boolean, struct, list).
    fn schema() -> SchemaRef {
        let child = Arc::new(Field::new("v", DataType::Int32, true));
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("small", DataType::Int32, true),
            Field::new("score", DataType::Float64, true),
            Field::new("name", DataType::Utf8, true),
            Field::new(
                "at",
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                true,
            ),
            Field::new("amount", DataType::Decimal128(20, 2), true),
            Field::new("uuid", DataType::FixedSizeBinary(16), true),
            Field::new("flag", DataType::Boolean, true),
            Field::new("nested", DataType::Struct(vec![child.clone()].into()), true),
            Field::new_list("tags", Field::new_list_field(DataType::Int32, true), true),
        ]))
    }

    /// Rows `from..from + rows`; `period` sets how often values repeat (rows for all distinct).
    fn batch(schema: &SchemaRef, from: usize, rows: usize, period: usize) -> RecordBatch {
        let v = |i: usize| (i % period) as i64;
        let null_every = |i: usize, n: usize| i % n == n - 1;
        let scores = [f64::NAN, -0.0, 0.0, f64::INFINITY, 1.5];
        let range = from..from + rows;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(range.clone().map(v))),
            Arc::new(Int32Array::from_iter(
                range
                    .clone()
                    .map(|i| (!null_every(i, 7)).then(|| v(i) as i32)),
            )),
            Arc::new(Float64Array::from_iter(range.clone().map(|i| {
                (!null_every(i, 5)).then(|| scores[i % scores.len()] * (v(i) % 3) as f64)
            }))),
            Arc::new(StringArray::from_iter(range.clone().map(|i| {
                (!null_every(i, 4)).then(|| {
                    if v(i) % 3 == 0 {
                        String::new()
                    } else {
                        format!("n{}", v(i))
                    }
                })
            }))),
            Arc::new(
                TimestampMicrosecondArray::from_iter(
                    range
                        .clone()
                        .map(|i| (!null_every(i, 3)).then(|| v(i) * 1_000)),
                )
                .with_timezone("UTC"),
            ),
            Arc::new(
                Decimal128Array::from_iter(
                    range
                        .clone()
                        .map(|i| (!null_every(i, 6)).then(|| i128::from(v(i)) * 101)),
                )
                .with_precision_and_scale(20, 2)
                .unwrap(),
            ),
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    range
                        .clone()
                        .map(|i| (!null_every(i, 9)).then(|| (v(i) as u128).to_le_bytes())),
                    16,
                )
                .unwrap(),
            ),
            Arc::new(BooleanArray::from_iter(
                range
                    .clone()
                    .map(|i| (!null_every(i, 2)).then_some(i % 3 == 0)),
            )),
            Arc::new(StructArray::from(vec![(
                Arc::new(Field::new("v", DataType::Int32, true)),
                Arc::new(Int32Array::from_iter_values(
                    range.clone().map(|i| v(i) as i32),
                )) as ArrayRef,
            )])),
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
                range.map(|i| Some(vec![Some(v(i) as i32); i % 3])),
            )),
        ];
        RecordBatch::try_new(Arc::clone(schema), columns).unwrap()
    }

    fn held_as_distinct(page: &FirstPage) -> Vec<bool> {
        page.columns
            .iter()
            .map(|c| matches!(c, HeldColumn::Distinct(_)))
            .collect()
    }

    #[test]
    fn held_rows_come_back_as_the_batches_they_came_in() {
        let schema = schema();
        // Sliced pieces too: the caller's arrays may start at an offset.
        let batches = vec![
            batch(&schema, 0, 700, 50),
            batch(&schema, 700, 1_300, 50).slice(17, 1_000),
            batch(&schema, 2_000, 0, 50),
            batch(&schema, 2_000, 3_000, 50),
        ];
        let mut page = FirstPage::default();
        for b in &batches {
            page.take(b).unwrap();
        }
        assert_eq!(page.rows(), 4_700);
        assert_eq!(
            held_as_distinct(&page),
            [true, true, true, true, true, true, true, false, false, false]
        );
        let decided = page.columns_without_dictionary_benefit();
        assert_eq!(
            decided,
            dictionary::columns_without_dictionary_benefit(&batches)
        );
        let back: Vec<RecordBatch> = page.into_batches().map(Result::unwrap).collect();
        assert_eq!(back, batches);
        // Equal as arrays; floats must also be the same bits (NaN, -0.0).
        for (b, original) in back.iter().zip(&batches) {
            let bits = |b: &RecordBatch| -> Vec<Option<u64>> {
                b.column(2)
                    .as_primitive::<Float64Type>()
                    .iter()
                    .map(|f| f.map(f64::to_bits))
                    .collect()
            };
            assert_eq!(bits(b), bits(original));
        }
    }

    #[test]
    fn mostly_distinct_columns_turn_into_copies_and_decide_the_same() {
        let schema = schema();
        // Distinct first (such columns turn into copies after the first batch), then the same
        // values again: together each value repeats, and the dictionary pays.
        let batches = vec![
            batch(&schema, 0, 2_000, usize::MAX),
            batch(&schema, 2_000, 2_000, usize::MAX),
            batch(&schema, 0, 2_000, usize::MAX),
        ];
        let mut page = FirstPage::default();
        page.take(&batches[0]).unwrap();
        assert_eq!(held_as_distinct(&page)[..7], [true; 7]);
        page.take(&batches[1]).unwrap();
        // The scores repeat whatever the period (a few values times 0, 1 or 2).
        let mut expected = [false; 10];
        expected[2] = true;
        assert_eq!(held_as_distinct(&page), expected);
        page.take(&batches[2]).unwrap();
        assert_eq!(
            page.columns_without_dictionary_benefit(),
            dictionary::columns_without_dictionary_benefit(&batches)
        );
        let back: Vec<RecordBatch> = page.into_batches().map(Result::unwrap).collect();
        assert_eq!(back, batches);
    }

    #[test]
    fn repeated_values_take_a_fraction_of_their_copies_memory() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, false),
        ]));
        let names: Vec<String> = (0..1_000).map(|i| format!("{i:>60}")).collect();
        let piece = |from: usize| {
            let ids =
                Int64Array::from_iter_values((from..from + 1_000).map(|i| (i % 1_000) as i64));
            let text =
                StringArray::from_iter_values((from..from + 1_000).map(|i| &names[i % 1_000]));
            RecordBatch::try_new(schema.clone(), vec![Arc::new(ids), Arc::new(text)]).unwrap()
        };
        let batches: Vec<RecordBatch> = (0..16).map(|b| piece(b * 1_000)).collect();
        let mut page = FirstPage::default();
        for b in &batches {
            page.take(b).unwrap();
        }
        let copies: usize = batches.iter().map(RecordBatch::get_array_memory_size).sum();
        assert!(
            page.memory_size() * 3 < copies,
            "{} held against {copies} in copies",
            page.memory_size()
        );
        assert_eq!(page.columns_without_dictionary_benefit(), vec![]);
    }

    #[test]
    fn a_column_of_nulls_comes_back() {
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
        let nulls = RecordBatch::try_new(
            schema,
            vec![Arc::new(StringArray::from(vec![None::<&str>; 5]))],
        )
        .unwrap();
        let mut page = FirstPage::default();
        page.take(&nulls).unwrap();
        page.take(&nulls).unwrap();
        let both = [nulls.clone(), nulls.clone()];
        assert_eq!(
            page.columns_without_dictionary_benefit(),
            dictionary::columns_without_dictionary_benefit(&both)
        );
        let back: Vec<RecordBatch> = page.into_batches().map(Result::unwrap).collect();
        assert_eq!(back, vec![nulls.clone(), nulls]);
    }
}
