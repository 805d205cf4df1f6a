//! Per-field facts Iceberg needs for a data file's metrics, keyed by field id.
//!
//! Two sources, following Iceberg Java's `ParquetMetrics`:
//! * float and double leaves (not under a list or map) are measured from the values as they
//!   are written ([`FloatStats`]): Iceberg takes their counts, NaN counts and bounds from its
//!   value writers, never from the footer, because Parquet float statistics disagree with
//!   `Float.compare` on NaN and signed zero;
//! * every other leaf is summarised from the finished footer ([`summarize`]): column sizes,
//!   value and null counts and the chunk min/max merged across row groups with Iceberg's
//!   comparators, encoded as Iceberg single-value bytes.
//!
//! Java applies the table's `MetricsConfig` (modes, truncation) to these untruncated facts.

use std::cmp::Ordering;
use std::collections::HashMap;

use arrow::array::{Array, ArrayRef, AsArray, StructArray};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Float32Type, Float64Type, Schema};
use parquet::basic::{LogicalType, Type as PhysicalType};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::statistics::Statistics;

use crate::schema::field_id;

/// Writer-side facts for one float or double leaf.
#[derive(Debug, Clone, PartialEq)]
pub struct FloatStats {
    pub field_id: i32,
    pub is_double: bool,
    pub value_count: i64,
    pub null_count: i64,
    pub nan_count: i64,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl FloatStats {
    fn new(field_id: i32, is_double: bool) -> Self {
        Self {
            field_id,
            is_double,
            value_count: 0,
            null_count: 0,
            nan_count: 0,
            min: None,
            max: None,
        }
    }

    fn observe(&mut self, v: f64) {
        if v.is_nan() {
            self.nan_count += 1;
            return;
        }
        // total_cmp orders -0.0 below +0.0 like Java's Float.compare; NaN never gets here.
        if self.min.is_none_or(|m| v.total_cmp(&m) == Ordering::Less) {
            self.min = Some(v);
        }
        if self
            .max
            .is_none_or(|m| v.total_cmp(&m) == Ordering::Greater)
        {
            self.max = Some(v);
        }
    }

    fn encode(&self, v: f64) -> Vec<u8> {
        if self.is_double {
            v.to_le_bytes().to_vec()
        } else {
            (v as f32).to_le_bytes().to_vec()
        }
    }
}

/// Tracks [`FloatStats`] for every float/double leaf reachable through structs only.
#[derive(Debug, Default)]
pub struct FloatTracker {
    /// (path of child indexes from the batch root, stats)
    leaves: Vec<(Vec<usize>, FloatStats)>,
}

impl FloatTracker {
    /// Finds the tracked leaves of `schema`.
    pub fn new(schema: &Schema) -> Self {
        let mut leaves = Vec::new();
        for (i, field) in schema.fields().iter().enumerate() {
            collect_float_leaves(field, vec![i], &mut leaves);
        }
        Self { leaves }
    }

    /// Observes one batch's columns. A leaf value counts as null when it or any ancestor
    /// struct is null (the Parquet definition-level rule).
    pub fn observe(&mut self, columns: &[ArrayRef]) {
        for (path, stats) in &mut self.leaves {
            let mut array: &dyn Array = columns[path[0]].as_ref();
            let mut nulls: Option<NullBuffer> = array.logical_nulls();
            for &child in &path[1..] {
                let parent: &StructArray = array.as_struct();
                array = parent.column(child).as_ref();
                nulls = NullBuffer::union(nulls.as_ref(), array.logical_nulls().as_ref());
            }
            stats.value_count += array.len() as i64;
            stats.null_count += nulls.as_ref().map_or(0, |n| n.null_count()) as i64;
            let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
            if stats.is_double {
                let values = array.as_primitive::<Float64Type>().values();
                for (i, v) in values.iter().enumerate() {
                    if valid(i) {
                        stats.observe(*v);
                    }
                }
            } else {
                let values = array.as_primitive::<Float32Type>().values();
                for (i, v) in values.iter().enumerate() {
                    if valid(i) {
                        stats.observe(f64::from(*v));
                    }
                }
            }
        }
    }

    /// The stats gathered so far, by field id.
    pub fn into_map(self) -> HashMap<i32, FloatStats> {
        self.leaves
            .into_iter()
            .map(|(_, s)| (s.field_id, s))
            .collect()
    }
}

fn collect_float_leaves(
    field: &arrow::datatypes::Field,
    path: Vec<usize>,
    out: &mut Vec<(Vec<usize>, FloatStats)>,
) {
    match field.data_type() {
        DataType::Float32 | DataType::Float64 => {
            if let Some(id) = field_id(field) {
                let is_double = matches!(field.data_type(), DataType::Float64);
                out.push((path, FloatStats::new(id, is_double)));
            }
        }
        DataType::Struct(children) => {
            for (i, child) in children.iter().enumerate() {
                let mut p = path.clone();
                p.push(i);
                collect_float_leaves(child, p, out);
            }
        }
        // Iceberg records no value metrics under lists and maps.
        _ => {}
    }
}

/// Facts for one Parquet leaf column of the finished file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnSummary {
    pub field_id: i32,
    /// The leaf sits under a list or map (Iceberg keeps only its column size).
    pub repeated: bool,
    /// Counts are valid: every row group had statistics, or the leaf is a measured float.
    pub has_counts: bool,
    /// A float/double measured on write: `nan_count` is meaningful.
    pub float_metrics: bool,
    pub column_size: i64,
    pub value_count: i64,
    pub null_count: i64,
    pub nan_count: i64,
    /// Lower bound, Iceberg single-value encoding, untruncated.
    pub lower: Option<Vec<u8>>,
    /// Upper bound, Iceberg single-value encoding, untruncated.
    pub upper: Option<Vec<u8>>,
}

/// Everything Java needs to build the `DataFile` metrics.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileSummary {
    pub record_count: i64,
    pub file_size: i64,
    /// Nanoseconds the encoder spent on the file's columns, summed over threads.
    pub encode_nanos: i64,
    pub split_offsets: Vec<i64>,
    pub columns: Vec<ColumnSummary>,
}

/// A chunk bound decoded for comparison with Iceberg's comparator for the column's type.
#[derive(Debug, Clone)]
enum Bound {
    Bool(bool),
    Int(i64),
    Decimal(i128),
    /// Strings, binary, fixed: unsigned lexicographic bytes (= code-point order for UTF-8).
    Bytes(Vec<u8>),
    /// `java.util.UUID.compareTo`: signed most- then least-significant long.
    Uuid(i64, i64, Vec<u8>),
}

impl Bound {
    fn cmp(&self, other: &Bound) -> Ordering {
        match (self, other) {
            (Bound::Bool(a), Bound::Bool(b)) => a.cmp(b),
            (Bound::Int(a), Bound::Int(b)) => a.cmp(b),
            (Bound::Decimal(a), Bound::Decimal(b)) => a.cmp(b),
            (Bound::Bytes(a), Bound::Bytes(b)) => a.cmp(b),
            (Bound::Uuid(am, al, _), Bound::Uuid(bm, bl, _)) => (am, al).cmp(&(bm, bl)),
            _ => Ordering::Equal,
        }
    }
}

enum ColumnKind {
    Bool,
    Int32,
    Int64,
    Decimal,
    Bytes,
    Uuid,
    Float,
}

fn column_kind(physical: PhysicalType, logical: Option<&LogicalType>) -> ColumnKind {
    let decimal = matches!(logical, Some(LogicalType::Decimal(_)));
    match physical {
        PhysicalType::BOOLEAN => ColumnKind::Bool,
        PhysicalType::INT32 if decimal => ColumnKind::Decimal,
        PhysicalType::INT32 => ColumnKind::Int32,
        PhysicalType::INT64 if decimal => ColumnKind::Decimal,
        PhysicalType::INT64 | PhysicalType::INT96 => ColumnKind::Int64,
        PhysicalType::FLOAT | PhysicalType::DOUBLE => ColumnKind::Float,
        PhysicalType::FIXED_LEN_BYTE_ARRAY if decimal => ColumnKind::Decimal,
        PhysicalType::FIXED_LEN_BYTE_ARRAY if matches!(logical, Some(LogicalType::Uuid)) => {
            ColumnKind::Uuid
        }
        PhysicalType::FIXED_LEN_BYTE_ARRAY | PhysicalType::BYTE_ARRAY => ColumnKind::Bytes,
    }
}

fn decimal_from_be(bytes: &[u8]) -> i128 {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let mut v: i128 = if negative { -1 } else { 0 };
    for b in bytes {
        v = (v << 8) | i128::from(*b);
    }
    v
}

/// Minimal big-endian two's complement, as `BigInteger.toByteArray` (0 → `00`, 128 → `00 80`).
pub fn decimal_to_min_be(v: i128) -> Vec<u8> {
    let full = v.to_be_bytes();
    let mut start = 0;
    while start < full.len() - 1 {
        let (b, next) = (full[start], full[start + 1]);
        if (b == 0x00 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    full[start..].to_vec()
}

fn bounds_of(kind: &ColumnKind, stats: &Statistics) -> Option<(Bound, Bound)> {
    let pair = match (kind, stats) {
        (ColumnKind::Bool, Statistics::Boolean(s)) => {
            (Bound::Bool(*s.min_opt()?), Bound::Bool(*s.max_opt()?))
        }
        (ColumnKind::Int32, Statistics::Int32(s)) => (
            Bound::Int(i64::from(*s.min_opt()?)),
            Bound::Int(i64::from(*s.max_opt()?)),
        ),
        (ColumnKind::Int64, Statistics::Int64(s)) => {
            (Bound::Int(*s.min_opt()?), Bound::Int(*s.max_opt()?))
        }
        (ColumnKind::Decimal, Statistics::Int32(s)) => (
            Bound::Decimal(i128::from(*s.min_opt()?)),
            Bound::Decimal(i128::from(*s.max_opt()?)),
        ),
        (ColumnKind::Decimal, Statistics::Int64(s)) => (
            Bound::Decimal(i128::from(*s.min_opt()?)),
            Bound::Decimal(i128::from(*s.max_opt()?)),
        ),
        (ColumnKind::Decimal, Statistics::FixedLenByteArray(s)) => (
            Bound::Decimal(decimal_from_be(s.min_opt()?.data())),
            Bound::Decimal(decimal_from_be(s.max_opt()?.data())),
        ),
        (ColumnKind::Uuid, Statistics::FixedLenByteArray(s)) => (
            uuid_bound(s.min_opt()?.data())?,
            uuid_bound(s.max_opt()?.data())?,
        ),
        (ColumnKind::Bytes, Statistics::ByteArray(s)) => (
            Bound::Bytes(s.min_opt()?.data().to_vec()),
            Bound::Bytes(s.max_opt()?.data().to_vec()),
        ),
        (ColumnKind::Bytes, Statistics::FixedLenByteArray(s)) => (
            Bound::Bytes(s.min_opt()?.data().to_vec()),
            Bound::Bytes(s.max_opt()?.data().to_vec()),
        ),
        _ => return None,
    };
    Some(pair)
}

fn uuid_bound(bytes: &[u8]) -> Option<Bound> {
    let msb = i64::from_be_bytes(bytes.get(0..8)?.try_into().ok()?);
    let lsb = i64::from_be_bytes(bytes.get(8..16)?.try_into().ok()?);
    Some(Bound::Uuid(msb, lsb, bytes.to_vec()))
}

fn encode_bound(kind: &ColumnKind, bound: &Bound) -> Vec<u8> {
    match (kind, bound) {
        (_, Bound::Bool(b)) => vec![u8::from(*b)],
        (ColumnKind::Int32, Bound::Int(v)) => (*v as i32).to_le_bytes().to_vec(),
        (_, Bound::Int(v)) => v.to_le_bytes().to_vec(),
        (_, Bound::Decimal(v)) => decimal_to_min_be(*v),
        (_, Bound::Bytes(b)) => b.clone(),
        (_, Bound::Uuid(_, _, b)) => b.clone(),
    }
}

/// Summarises a finished file: footer facts for every leaf plus the writer-side float facts.
pub fn summarize(
    metadata: &ParquetMetaData,
    file_size: i64,
    encode_nanos: i64,
    floats: &HashMap<i32, FloatStats>,
) -> FileSummary {
    let schema = metadata.file_metadata().schema_descr();
    let row_groups = metadata.row_groups();
    let mut columns = Vec::with_capacity(schema.num_columns());

    for (i, descr) in schema.columns().iter().enumerate() {
        let info = descr.self_type().get_basic_info();
        if !info.has_id() {
            continue;
        }
        let field_id = info.id();
        let kind = column_kind(descr.physical_type(), descr.logical_type_ref());
        let mut summary = ColumnSummary {
            field_id,
            repeated: descr.max_rep_level() > 0,
            ..ColumnSummary::default()
        };
        let mut all_have_stats = true;
        let mut lower: Option<Bound> = None;
        let mut upper: Option<Bound> = None;
        for rg in row_groups {
            let chunk = rg.column(i);
            summary.column_size += chunk.compressed_size();
            summary.value_count += chunk.num_values();
            match chunk.statistics() {
                Some(stats) => {
                    summary.null_count += stats.null_count_opt().unwrap_or(0) as i64;
                    if let Some((lo, hi)) = bounds_of(&kind, stats) {
                        if lower.as_ref().is_none_or(|l| lo.cmp(l) == Ordering::Less) {
                            lower = Some(lo);
                        }
                        if upper
                            .as_ref()
                            .is_none_or(|u| hi.cmp(u) == Ordering::Greater)
                        {
                            upper = Some(hi);
                        }
                    }
                }
                None => all_have_stats = false,
            }
        }

        if matches!(kind, ColumnKind::Float) {
            if let Some(f) = floats.get(&field_id).filter(|_| !summary.repeated) {
                summary.has_counts = true;
                summary.float_metrics = true;
                summary.value_count = f.value_count;
                summary.null_count = f.null_count;
                summary.nan_count = f.nan_count;
                summary.lower = f.min.map(|v| f.encode(v));
                summary.upper = f.max.map(|v| f.encode(v));
            } else {
                summary.has_counts = all_have_stats;
            }
        } else {
            summary.has_counts = all_have_stats;
            if all_have_stats {
                summary.lower = lower.map(|b| encode_bound(&kind, &b));
                summary.upper = upper.map(|b| encode_bound(&kind, &b));
            }
        }
        columns.push(summary);
    }

    let mut split_offsets: Vec<i64> = row_groups
        .iter()
        .filter(|rg| rg.num_columns() > 0)
        .map(|rg| {
            let first = rg.column(0);
            let data = first.data_page_offset();
            match first.dictionary_page_offset() {
                Some(dict) if dict > 0 && dict < data => dict,
                _ => data,
            }
        })
        .collect();
    split_offsets.sort_unstable();

    FileSummary {
        record_count: metadata.file_metadata().num_rows(),
        file_size,
        encode_nanos,
        split_offsets,
        columns,
    }
}

/// Layout version of [`FileSummary::to_bytes`]; Java's `NativeFileSummary` checks it.
pub const SUMMARY_FORMAT_VERSION: i32 = 2;

impl FileSummary {
    /// Little-endian encoding read by Java's `NativeFileSummary.parse`:
    /// `i32 version, i64 records, i64 size, i64 encode nanos, i32 n, i64[n] splits, i32 m,` then
    /// per column
    /// `i32 id, u8 flags (1 repeated, 2 counts, 4 float), i64 size, i64 values, i64 nulls,
    /// i64 nans, i32 len + lower bytes (-1: none), i32 len + upper bytes (-1: none)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.columns.len() * 64);
        out.extend_from_slice(&SUMMARY_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&self.record_count.to_le_bytes());
        out.extend_from_slice(&self.file_size.to_le_bytes());
        out.extend_from_slice(&self.encode_nanos.to_le_bytes());
        out.extend_from_slice(&(self.split_offsets.len() as i32).to_le_bytes());
        for s in &self.split_offsets {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out.extend_from_slice(&(self.columns.len() as i32).to_le_bytes());
        for c in &self.columns {
            out.extend_from_slice(&c.field_id.to_le_bytes());
            let flags = u8::from(c.repeated)
                | (u8::from(c.has_counts) << 1)
                | (u8::from(c.float_metrics) << 2);
            out.push(flags);
            for v in [c.column_size, c.value_count, c.null_count, c.nan_count] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            for bound in [&c.lower, &c.upper] {
                match bound {
                    Some(b) => {
                        out.extend_from_slice(&(b.len() as i32).to_le_bytes());
                        out.extend_from_slice(b);
                    }
                    None => out.extend_from_slice(&(-1i32).to_le_bytes()),
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_bytes_are_minimal_twos_complement() {
        assert_eq!(decimal_to_min_be(0), vec![0x00]);
        assert_eq!(decimal_to_min_be(127), vec![0x7F]);
        assert_eq!(decimal_to_min_be(128), vec![0x00, 0x80]);
        assert_eq!(decimal_to_min_be(-1), vec![0xFF]);
        assert_eq!(decimal_to_min_be(-128), vec![0x80]);
        assert_eq!(decimal_to_min_be(-129), vec![0xFF, 0x7F]);
        assert_eq!(decimal_from_be(&[0xFF, 0x7F]), -129);
        assert_eq!(decimal_from_be(&[0x00, 0x80]), 128);
    }

    #[test]
    fn float_bounds_order_signed_zero_and_skip_nan() {
        let mut s = FloatStats::new(1, true);
        for v in [0.0, -0.0, f64::NAN, 1.5] {
            s.observe(v);
        }
        assert_eq!(s.nan_count, 1);
        assert_eq!(s.min.unwrap().to_bits(), (-0.0f64).to_bits());
        assert_eq!(s.max, Some(1.5));
    }

    #[test]
    fn uuid_merge_is_signed() {
        let low = uuid_bound(&[0x80; 16]).unwrap();
        let high = uuid_bound(&[0x10; 16]).unwrap();
        assert_eq!(low.cmp(&high), Ordering::Less);
    }
}
