//! Routing rows by their equality fields: the key stock Iceberg's Flink sinks shuffle upserts by
//! (`EqualityFieldKeySelector.getKey`), computed for every row of a batch, and the rows regrouped
//! by the writer subtask that key sends them to.
//!
//! The key is `StructLikeWrapper.hashCode()` over the equality fields in schema order:
//! `41 * (41 * 97 + n) + h(v1)`, then `41 * r + h(vi)` for each further field, where `h` is the
//! Java `hashCode()` of the value `RowDataWrapper` reads (0 for null):
//!
//! | kind | Java value | `h` |
//! |---|---|---|
//! | int, date | `Integer` | the value |
//! | long, timestamp(tz) µs/ns | `Long` | `(int) (v ^ (v >>> 32))` |
//! | time | `Long` micros of Flink's milliseconds | as long, of `(µs / 1000) * 1000` |
//! | boolean | `Boolean` | 1231 / 1237 |
//! | float, double | `Float`, `Double` | of `floatToIntBits` / `doubleToLongBits` (one NaN) |
//! | string | `String` | `JavaHashes`: 177, then `31 * h + c` per UTF-16 unit |
//! | binary, fixed | `ByteBuffer` | 1, then `31 * h + b` per signed byte, last byte first |
//! | uuid | `UUID` | `(int) (hilo >> 32) ^ (int) hilo`, `hilo = msb ^ lsb` |
//! | decimal | `BigDecimal` | `31 * BigInteger.hashCode() + scale` |
//!
//! Where the key sends a row is Flink's business and is given by Java as a table (built with
//! Flink's and Iceberg's own code): Flink's `keyBy` takes key group `murmurHash(key) % maxParallelism`
//! to its subtask; the Dynamic Iceberg Sink takes slot `safeAbs(key) % writeParallelism` to its
//! writer. Native code only indexes the table.

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, UInt32Array};
use arrow::compute::take_record_batch;
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, Time64MicrosecondType, TimeUnit, TimestampMicrosecondType,
    TimestampNanosecondType,
};

use super::split::counting_order;
use crate::error::{NativeError, Result};

/// How an equality field's values hash: the Java class `RowDataWrapper` gives for its Iceberg
/// type. The codes are `io.frazil.partition.EqualityKeys`'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Int,
    Long,
    Time,
    Boolean,
    Float,
    Double,
    String,
    Binary,
    Uuid,
    Decimal,
}

impl KeyKind {
    pub fn from_code(code: i32) -> Result<Self> {
        Ok(match code {
            0 => Self::Int,
            1 => Self::Long,
            2 => Self::Time,
            3 => Self::Boolean,
            4 => Self::Float,
            5 => Self::Double,
            6 => Self::String,
            7 => Self::Binary,
            8 => Self::Uuid,
            9 => Self::Decimal,
            _ => {
                return Err(NativeError::InvalidArgument(format!(
                    "unknown equality key kind {code}"
                )))
            }
        })
    }
}

/// One equality field: its top-level column and how its values hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyField {
    pub column: usize,
    pub kind: KeyKind,
}

/// Decodes `[field count, then per field: column index, kind code]`.
pub fn decode_key_fields(codes: &[i32]) -> Result<Vec<KeyField>> {
    let bad = |what: &str| NativeError::InvalidArgument(format!("equality key {codes:?}: {what}"));
    let (&count, rest) = codes.split_first().ok_or_else(|| bad("no field count"))?;
    let count = usize::try_from(count).map_err(|_| bad("a negative count"))?;
    if count == 0 || rest.len() != 2 * count {
        return Err(bad("not one or more (column, kind) pairs"));
    }
    rest.chunks_exact(2)
        .map(|pair| {
            Ok(KeyField {
                column: usize::try_from(pair[0]).map_err(|_| bad("a negative column index"))?,
                kind: KeyKind::from_code(pair[1])?,
            })
        })
        .collect()
}

/// Iceberg's equality key (`EqualityFieldKeySelector.getKey`) of every row of `batch`.
pub fn row_keys(batch: &RecordBatch, fields: &[KeyField]) -> Result<Vec<i32>> {
    let seed = 41i32.wrapping_mul(97).wrapping_add(fields.len() as i32);
    let mut keys = vec![seed; batch.num_rows()];
    for field in fields {
        let column = batch.columns().get(field.column).ok_or_else(|| {
            NativeError::InvalidArgument(format!(
                "equality column {} of a batch of {} columns",
                field.column,
                batch.num_columns()
            ))
        })?;
        mix_column(&mut keys, column, field.kind)?;
    }
    Ok(keys)
}

/// `key = 41 * key + h(value)` for each row.
fn mix_column(keys: &mut [i32], column: &ArrayRef, kind: KeyKind) -> Result<()> {
    fn each(keys: &mut [i32], column: &dyn Array, mut h: impl FnMut(usize) -> i32) {
        for (row, key) in keys.iter_mut().enumerate() {
            let value = if column.is_null(row) { 0 } else { h(row) };
            *key = key.wrapping_mul(41).wrapping_add(value);
        }
    }
    let unsupported = || {
        Err(NativeError::Unsupported(format!(
            "an equality key of kind {kind:?} on an Arrow {} column",
            column.data_type()
        )))
    };
    let c = column.as_ref();
    match (kind, column.data_type()) {
        (KeyKind::Int, DataType::Int32) => {
            let a = c.as_primitive::<Int32Type>();
            each(keys, c, |r| a.value(r));
        }
        (KeyKind::Int, DataType::Date32) => {
            let a = c.as_primitive::<Date32Type>();
            each(keys, c, |r| a.value(r));
        }
        (KeyKind::Int, DataType::Int16) => {
            let a = c.as_primitive::<Int16Type>();
            each(keys, c, |r| i32::from(a.value(r)));
        }
        (KeyKind::Int, DataType::Int8) => {
            let a = c.as_primitive::<Int8Type>();
            each(keys, c, |r| i32::from(a.value(r)));
        }
        (KeyKind::Long, DataType::Int64) => {
            let a = c.as_primitive::<Int64Type>();
            each(keys, c, |r| long_hash(a.value(r)));
        }
        (KeyKind::Long, DataType::Timestamp(TimeUnit::Microsecond, _)) => {
            let a = c.as_primitive::<TimestampMicrosecondType>();
            each(keys, c, |r| long_hash(a.value(r)));
        }
        (KeyKind::Long, DataType::Timestamp(TimeUnit::Nanosecond, _)) => {
            let a = c.as_primitive::<TimestampNanosecondType>();
            each(keys, c, |r| long_hash(a.value(r)));
        }
        (KeyKind::Time, DataType::Time64(TimeUnit::Microsecond)) => {
            // Flink's TIME is milliseconds; RowDataWrapper widens them back to micros.
            let a = c.as_primitive::<Time64MicrosecondType>();
            each(keys, c, |r| long_hash(a.value(r).div_euclid(1000) * 1000));
        }
        (KeyKind::Boolean, DataType::Boolean) => {
            let a = c.as_boolean();
            each(keys, c, |r| if a.value(r) { 1231 } else { 1237 });
        }
        (KeyKind::Float, DataType::Float32) => {
            let a = c.as_primitive::<Float32Type>();
            each(keys, c, |r| {
                let v = a.value(r);
                if v.is_nan() {
                    0x7fc0_0000
                } else {
                    v.to_bits() as i32
                }
            });
        }
        (KeyKind::Double, DataType::Float64) => {
            let a = c.as_primitive::<Float64Type>();
            each(keys, c, |r| {
                let v = a.value(r);
                let bits = if v.is_nan() {
                    0x7ff8_0000_0000_0000
                } else {
                    v.to_bits() as i64
                };
                long_hash(bits)
            });
        }
        (KeyKind::String, DataType::Utf8) => {
            let a = c.as_string::<i32>();
            each(keys, c, |r| string_hash(a.value(r)));
        }
        (KeyKind::String, DataType::LargeUtf8) => {
            let a = c.as_string::<i64>();
            each(keys, c, |r| string_hash(a.value(r)));
        }
        (KeyKind::Binary, DataType::Binary) => {
            let a = c.as_binary::<i32>();
            each(keys, c, |r| byte_buffer_hash(a.value(r)));
        }
        (KeyKind::Binary, DataType::LargeBinary) => {
            let a = c.as_binary::<i64>();
            each(keys, c, |r| byte_buffer_hash(a.value(r)));
        }
        (KeyKind::Binary, DataType::FixedSizeBinary(_)) => {
            let a = c.as_fixed_size_binary();
            each(keys, c, |r| byte_buffer_hash(a.value(r)));
        }
        (KeyKind::Uuid, DataType::FixedSizeBinary(16)) => {
            let a = c.as_fixed_size_binary();
            each(keys, c, |r| uuid_hash(a.value(r)));
        }
        (KeyKind::Decimal, DataType::Decimal128(_, scale)) => {
            let a = c.as_primitive::<Decimal128Type>();
            let scale = i32::from(*scale);
            each(keys, c, |r| decimal_hash(a.value(r), scale));
        }
        _ => return unsupported(),
    }
    Ok(())
}

/// `Long.hashCode`.
fn long_hash(v: i64) -> i32 {
    (v ^ ((v as u64) >> 32) as i64) as i32
}

/// `JavaHashes.hashCode(CharSequence)` over the UTF-16 units of the string.
fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(177i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `ByteBuffer.hashCode` of a buffer wrapping `bytes`: from the last byte to the first.
fn byte_buffer_hash(bytes: &[u8]) -> i32 {
    bytes.iter().rev().fold(1i32, |h, &b| {
        h.wrapping_mul(31).wrapping_add(i32::from(b as i8))
    })
}

/// `UUID.hashCode` of the UUID whose big-endian bytes these are.
fn uuid_hash(bytes: &[u8]) -> i32 {
    let msb = i64::from_be_bytes(bytes[..8].try_into().expect("16 bytes"));
    let lsb = i64::from_be_bytes(bytes[8..16].try_into().expect("16 bytes"));
    let hilo = msb ^ lsb;
    ((hilo >> 32) as i32) ^ (hilo as i32)
}

/// `BigDecimal.hashCode`: `31 * BigInteger.hashCode() + scale`, where a `BigInteger`'s hash runs
/// `31 * h + word` over its magnitude's 32-bit words, most significant first, times its sign.
fn decimal_hash(unscaled: i128, scale: i32) -> i32 {
    let magnitude = unscaled.unsigned_abs();
    let mut h = 0i32;
    for shift in [96u32, 64, 32, 0] {
        let word = (magnitude >> shift) as u32;
        h = h.wrapping_mul(31).wrapping_add(word as i32);
    }
    let signed = if unscaled < 0 { h.wrapping_neg() } else { h };
    signed.wrapping_mul(31).wrapping_add(scale)
}

/// Flink's `MathUtils.murmurHash(int)`: one MurmurHash3 round, non-negative.
pub fn flink_murmur(code: i32) -> i32 {
    let mut h = (code as u32).wrapping_mul(0xcc9e_2d51).rotate_left(15);
    h = h.wrapping_mul(0x1b87_3593).rotate_left(13);
    h = h.wrapping_mul(5).wrapping_add(0xe654_6b64);
    h ^= 4;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    let signed = h as i32;
    if signed >= 0 {
        signed
    } else if signed != i32::MIN {
        -signed
    } else {
        0
    }
}

/// How a key picks its entry of the destination table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRouting {
    /// Flink's `keyBy`: the key group `murmurHash(key) % table.len()` (the max parallelism).
    KeyGroups,
    /// The Dynamic Iceberg Sink: the slot `safeAbs(key) % table.len()` (the write parallelism).
    Slots,
}

impl KeyRouting {
    pub fn from_code(code: i32) -> Result<Self> {
        match code {
            0 => Ok(Self::KeyGroups),
            1 => Ok(Self::Slots),
            _ => Err(NativeError::InvalidArgument(format!(
                "unknown key routing {code}"
            ))),
        }
    }

    fn index(self, key: i32, entries: usize) -> usize {
        let spread = match self {
            Self::KeyGroups => flink_murmur(key),
            Self::Slots => {
                if key == i32::MIN {
                    i32::MAX
                } else {
                    key.abs()
                }
            }
        };
        spread as usize % entries
    }
}

/// A batch's rows regrouped by destination: destination `d` is rows `offsets[d]..offsets[d + 1]`.
#[derive(Debug)]
pub struct Routed {
    pub batch: RecordBatch,
    pub offsets: Vec<u32>,
}

/// Regroups `batch` by the destination each row's equality key takes it to: `table[index]`, where
/// `routing` gives the index. Rows keep their order within a destination. Destinations are
/// `0..destinations`, every table entry must be one of them.
pub fn route(
    batch: &RecordBatch,
    fields: &[KeyField],
    routing: KeyRouting,
    table: &[i32],
    destinations: usize,
) -> Result<Routed> {
    if table.is_empty() || table.iter().any(|&d| d < 0 || d as usize >= destinations) {
        return Err(NativeError::InvalidArgument(format!(
            "a destination table of {} entries with an entry outside 0..{destinations}",
            table.len()
        )));
    }
    let keys = row_keys(batch, fields)?;
    let group_of_row: Vec<u32> = keys
        .iter()
        .map(|&key| table[routing.index(key, table.len())] as u32)
        .collect();
    let (order, offsets) = counting_order(&group_of_row, destinations);
    // Always a copy: the parts own native buffers and hold no reference to the caller's.
    let batch = take_record_batch(batch, &UInt32Array::from(order))
        .map_err(|e| NativeError::arrow("regrouping a batch by equality key", e))?;
    Ok(Routed { batch, offsets })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{
        BooleanArray, Decimal128Array, FixedSizeBinaryArray, Float64Array, Int32Array, Int64Array,
        StringArray,
    };

    use super::*;

    // Expected values are Java's, computed with JDK 17's jshell (and flink-core 2.1.1's MathUtils).
    #[test]
    fn value_hashes_are_javas() {
        assert_eq!(long_hash(-1), 0);
        assert_eq!(long_hash(1 << 40), 256);
        // "Aé😀": 177 → units 0x41, 0xe9, 0xd83d, 0xde00.
        let expected = [0x41, 0xe9, 0xd83d, 0xde00]
            .iter()
            .fold(177i32, |h, &u| h.wrapping_mul(31).wrapping_add(u));
        assert_eq!(string_hash("Aé😀"), expected);
        // ByteBuffer.wrap(new byte[] {1, -1}).hashCode() == 31 * (31 + -1) + 1
        assert_eq!(byte_buffer_hash(&[1, 0xff]), 31 * (31 - 1) + 1);
        // new BigDecimal("-1.5").hashCode() == 31 * -15 + 1
        assert_eq!(decimal_hash(-15, 1), -464);
        // BigInteger.ONE.shiftLeft(32).hashCode() == 31
        assert_eq!(decimal_hash(1 << 32, 0), 31 * 31);
        // UUID(1, 2).hashCode() == 3
        let mut uuid = [0u8; 16];
        uuid[7] = 1;
        uuid[15] = 2;
        assert_eq!(uuid_hash(&uuid), 3);
        // new BigDecimal(new BigInteger("-123456789012345678901234567890"), 7).hashCode()
        assert_eq!(
            decimal_hash(-123_456_789_012_345_678_901_234_567_890, 7),
            748_148_576
        );
        // MathUtils.murmurHash(0), (1) and (-123456789)
        assert_eq!(flink_murmur(0), 593_689_054);
        assert_eq!(flink_murmur(1), 68_075_478);
        assert_eq!(flink_murmur(-123_456_789), 1_470_798_557);
    }

    #[test]
    fn keys_mix_fields_in_order_with_null_as_zero() {
        let batch = RecordBatch::try_from_iter(vec![
            (
                "id",
                Arc::new(Int64Array::from(vec![Some(7), None])) as ArrayRef,
            ),
            (
                "name",
                Arc::new(StringArray::from(vec![Some("a"), Some("a")])) as ArrayRef,
            ),
            (
                "flag",
                Arc::new(BooleanArray::from(vec![true, false])) as ArrayRef,
            ),
        ])
        .unwrap();
        let fields = decode_key_fields(&[2, 0, 1, 1, 6]).unwrap();
        let keys = row_keys(&batch, &fields).unwrap();
        let seed = 41 * 97 + 2;
        assert_eq!(keys[0], (seed * 41 + 7) * 41 + (177 * 31 + 97));
        assert_eq!(keys[1], (seed * 41) * 41 + (177 * 31 + 97));
        assert!(decode_key_fields(&[1, 0]).is_err());
        assert!(decode_key_fields(&[1, 0, 42]).is_err());
        let wrong = decode_key_fields(&[1, 2, 0]).unwrap();
        assert!(matches!(
            row_keys(&batch, &wrong),
            Err(NativeError::Unsupported(_))
        ));
    }

    #[test]
    fn routes_rows_by_table_keeping_their_order() {
        let ids: Vec<i32> = (0..100).collect();
        let batch = RecordBatch::try_from_iter(vec![
            ("id", Arc::new(Int32Array::from(ids.clone())) as ArrayRef),
            (
                "d",
                Arc::new(Float64Array::from(vec![f64::NAN; 100])) as ArrayRef,
            ),
            (
                "u",
                Arc::new(
                    FixedSizeBinaryArray::try_from_iter(ids.iter().map(|&i| [i as u8; 16]))
                        .unwrap(),
                ) as ArrayRef,
            ),
            (
                "m",
                Arc::new(
                    Decimal128Array::from(ids.iter().map(|&i| i as i128).collect::<Vec<_>>())
                        .with_precision_and_scale(10, 2)
                        .unwrap(),
                ) as ArrayRef,
            ),
        ])
        .unwrap();
        let fields = decode_key_fields(&[4, 0, 0, 1, 5, 2, 8, 3, 9]).unwrap();
        let keys = row_keys(&batch, &fields).unwrap();
        let table = [1, 0, 2, 1];
        let routed = route(&batch, &fields, KeyRouting::Slots, &table, 3).unwrap();
        assert_eq!(routed.offsets.len(), 4);
        assert_eq!(routed.offsets[3], 100);
        let out = routed.batch.column(0).as_primitive::<Int32Type>();
        for d in 0..3 {
            let rows: Vec<i32> = (routed.offsets[d]..routed.offsets[d + 1])
                .map(|r| out.value(r as usize))
                .collect();
            let expected: Vec<i32> = ids
                .iter()
                .copied()
                .filter(|&i| table[KeyRouting::Slots.index(keys[i as usize], 4)] as usize == d)
                .collect();
            assert_eq!(rows, expected);
        }
        assert!(route(&batch, &fields, KeyRouting::KeyGroups, &[0, 3], 3).is_err());
    }
}
