//! Iceberg partition transforms over Arrow arrays: one call turns a source column into the
//! column of partition values (`Transform.bind(type).apply(value)` for every row; a null
//! source value gives a null partition value, as in Iceberg).
//!
//! | transform     | source Arrow types                                   | result        |
//! |---------------|------------------------------------------------------|---------------|
//! | `identity`    | any                                                  | the source    |
//! | `bucket[N]`   | see [`super::bucket`]                                | Int32         |
//! | `truncate[W]` | Int32, Int64, Utf8, Binary, Decimal128               | source type   |
//! | `year/month`  | Date32, Timestamp(µs / ns)                           | Int32         |
//! | `day`         | Date32, Timestamp(µs / ns)                           | Date32        |
//! | `hour`        | Timestamp(µs / ns)                                   | Int32         |
//! | `void`        | any                                                  | Int32, null   |

use std::sync::Arc;

use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BinaryBuilder, Date32Array, PrimitiveArray,
};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Int32Type, Int64Type, TimeUnit, TimestampMicrosecondType,
    TimestampNanosecondType,
};

use super::bucket::bucket_array;
use super::time::{days_to, micros_to, nanos_to, Unit};
use crate::error::{NativeError, Result};

/// One Iceberg partition transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transform {
    Identity,
    Bucket(i32),
    Truncate(i32),
    Year,
    Month,
    Day,
    Hour,
    Void,
}

impl Transform {
    /// The transform for a (code, parameter) pair as `io.frazil.partition.SplitSpec` encodes
    /// it: 0 identity, 1 bucket[param], 2 truncate[param], 3 year, 4 month, 5 day, 6 hour, 7 void.
    pub fn from_code(code: i32, param: i32) -> Result<Self> {
        let transform = match code {
            0 => Self::Identity,
            1 | 2 if param <= 0 => {
                return Err(NativeError::InvalidArgument(format!(
                    "transform code {code} needs a positive parameter, not {param}"
                )))
            }
            1 => Self::Bucket(param),
            2 => Self::Truncate(param),
            3 => Self::Year,
            4 => Self::Month,
            5 => Self::Day,
            6 => Self::Hour,
            7 => Self::Void,
            other => {
                return Err(NativeError::Unsupported(format!(
                    "partition transform code {other}"
                )))
            }
        };
        Ok(transform)
    }

    /// Iceberg's name for the transform (`Transform.toString()`).
    pub fn name(self) -> String {
        match self {
            Self::Identity => "identity".into(),
            Self::Bucket(n) => format!("bucket[{n}]"),
            Self::Truncate(w) => format!("truncate[{w}]"),
            Self::Year => "year".into(),
            Self::Month => "month".into(),
            Self::Day => "day".into(),
            Self::Hour => "hour".into(),
            Self::Void => "void".into(),
        }
    }

    /// The partition values of every row of `source`.
    pub fn apply(self, source: &ArrayRef) -> Result<ArrayRef> {
        match self {
            Self::Identity => Ok(source.clone()),
            // An all-null int column rather than Arrow's Null type, which not every consumer
            // (arrow-java's import, the row format) handles alike.
            Self::Void => Ok(new_null_array(&DataType::Int32, source.len())),
            Self::Bucket(n) => bucket_array(source, n),
            Self::Truncate(width) => truncate(source, width),
            Self::Year => time(source, Unit::Years),
            Self::Month => time(source, Unit::Months),
            Self::Day => time(source, Unit::Days),
            Self::Hour => time(source, Unit::Hours),
        }
        .map_err(|e| match e {
            NativeError::Unsupported(m) => {
                NativeError::Unsupported(format!("{} of {}: {m}", self.name(), source.data_type()))
            }
            other => other,
        })
    }
}

fn unsupported(what: &str) -> NativeError {
    NativeError::Unsupported(format!("Iceberg does not apply it to this type ({what})"))
}

fn time(source: &ArrayRef, unit: Unit) -> Result<ArrayRef> {
    let ordinals: PrimitiveArray<Int32Type> = match source.data_type() {
        DataType::Date32 if unit != Unit::Hours => source
            .as_primitive::<Date32Type>()
            .unary(|days| days_to(unit, days)),
        DataType::Timestamp(TimeUnit::Microsecond, _) => source
            .as_primitive::<TimestampMicrosecondType>()
            .unary(|micros| micros_to(unit, micros)),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => source
            .as_primitive::<TimestampNanosecondType>()
            .unary(|nanos| nanos_to(unit, nanos)),
        _ => {
            return Err(unsupported(
                "dates and µs/ns timestamps only; hour: timestamps only",
            ))
        }
    };
    if unit == Unit::Days {
        // Iceberg's day transform yields a date.
        let (_, values, nulls) = ordinals.into_parts();
        return Ok(Arc::new(Date32Array::new(values, nulls)));
    }
    Ok(Arc::new(ordinals))
}

fn truncate(source: &ArrayRef, width: i32) -> Result<ArrayRef> {
    let truncated: ArrayRef =
        match source.data_type() {
            // value - (((value % width) + width) % width) in Java int / long arithmetic (wrapping).
            DataType::Int32 => Arc::new(source.as_primitive::<Int32Type>().unary::<_, Int32Type>(
                |v| v.wrapping_sub((v % width).wrapping_add(width) % width),
            )),
            DataType::Int64 => {
                let w = i64::from(width);
                Arc::new(
                    source
                        .as_primitive::<Int64Type>()
                        .unary::<_, Int64Type>(|v| v.wrapping_sub((v % w).wrapping_add(w) % w)),
                )
            }
            DataType::Decimal128(precision, scale) => {
                // BigInteger arithmetic in Java; i128 cannot overflow for a 38-digit unscaled value.
                let w = i128::from(width);
                let values = source
                    .as_primitive::<Decimal128Type>()
                    .unary::<_, Decimal128Type>(|v| v - ((v % w) + w) % w);
                Arc::new(
                    values
                        .with_precision_and_scale(*precision, *scale)
                        .map_err(|e| NativeError::arrow("truncating a decimal column", e))?,
                )
            }
            DataType::Utf8 => {
                let strings = source.as_string::<i32>();
                // The first `width` code points, counted on the bytes (a code point starts at every
                // byte that is not a UTF-8 continuation byte), so no UTF-8 decoding is needed.
                let width = width as usize;
                binary_from(strings.len(), |i| {
                    strings.is_valid(i).then(|| {
                        let bytes = strings.value(i).as_bytes();
                        &bytes[..code_point_prefix(bytes, width)]
                    })
                })
                .to_data()
                .into_builder()
                .data_type(DataType::Utf8)
                .build()
                .map(arrow::array::make_array)
                .map_err(|e| NativeError::arrow("truncating a string column", e))?
            }
            DataType::Binary => {
                let binary = source.as_binary::<i32>();
                let width = width as usize;
                Arc::new(binary_from(binary.len(), |i| {
                    binary.is_valid(i).then(|| {
                        let bytes = binary.value(i);
                        &bytes[..bytes.len().min(width)]
                    })
                }))
            }
            _ => return Err(unsupported("int, long, decimal, string and binary only")),
        };
    Ok(truncated)
}

/// The byte length of the first `code_points` code points of UTF-8 `bytes`.
pub fn code_point_prefix(bytes: &[u8], code_points: usize) -> usize {
    let mut seen = 0;
    for (at, &b) in bytes.iter().enumerate() {
        if b & 0xc0 != 0x80 {
            if seen == code_points {
                return at;
            }
            seen += 1;
        }
    }
    bytes.len()
}

fn binary_from<'a>(
    len: usize,
    value: impl Fn(usize) -> Option<&'a [u8]>,
) -> arrow::array::BinaryArray {
    let mut builder = BinaryBuilder::with_capacity(len, 0);
    for i in 0..len {
        builder.append_option(value(i));
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use arrow::array::{BinaryArray, Decimal128Array, Int32Array, Int64Array, StringArray};

    use super::*;

    fn apply(t: Transform, a: impl Array + 'static) -> ArrayRef {
        t.apply(&(Arc::new(a) as ArrayRef)).unwrap()
    }

    // The spec's truncate examples: 1 → 0, -1 → -10 (W = 10); "iceberg" → "ice" (W = 3);
    // 10.65 → 10.50 (unscaled width 50).
    #[test]
    fn truncate_as_the_spec() {
        let ints = apply(
            Transform::Truncate(10),
            Int32Array::from(vec![Some(1), Some(-1), None]),
        );
        assert_eq!(
            ints.as_primitive::<Int32Type>(),
            &Int32Array::from(vec![Some(0), Some(-10), None])
        );
        let longs = apply(
            Transform::Truncate(10),
            Int64Array::from(vec![1i64, -1, 19]),
        );
        assert_eq!(longs.as_primitive::<Int64Type>().values(), &[0, -10, 10]);
        let strings = apply(
            Transform::Truncate(3),
            StringArray::from(vec!["iceberg", "añ€𝄞x", "ab"]),
        );
        let expected = StringArray::from(vec!["ice", "añ€", "ab"]);
        assert_eq!(strings.as_string::<i32>(), &expected);
        let emoji = apply(Transform::Truncate(1), StringArray::from(vec!["𝄞x"]));
        assert_eq!(emoji.as_string::<i32>().value(0), "𝄞");
        let decimals = Decimal128Array::from(vec![1065, -1065])
            .with_precision_and_scale(9, 2)
            .unwrap();
        let decimals = apply(Transform::Truncate(50), decimals);
        assert_eq!(
            decimals.as_primitive::<Decimal128Type>().values(),
            &[1050, -1100]
        );
        assert_eq!(decimals.data_type(), &DataType::Decimal128(9, 2));
        let binary = apply(
            Transform::Truncate(2),
            BinaryArray::from(vec![&b"\x01\x02\x03"[..], b"\x01"]),
        );
        assert_eq!(
            binary.as_binary::<i32>(),
            &BinaryArray::from(vec![&b"\x01\x02"[..], b"\x01"])
        );
    }

    #[test]
    fn truncate_wraps_like_java_int() {
        // (MAX % W + W) overflows in Java and wraps; so must this.
        let width = i32::MAX - 1;
        let v = i32::MAX;
        let java = v.wrapping_sub((v % width).wrapping_add(width) % width);
        let out = apply(Transform::Truncate(width), Int32Array::from(vec![v]));
        assert_eq!(out.as_primitive::<Int32Type>().value(0), java);
    }

    #[test]
    fn day_of_a_timestamp_is_a_date_and_void_is_null() {
        let ts =
            arrow::array::TimestampMicrosecondArray::from(vec![Some(1_510_871_468_000_000), None]);
        let days = apply(Transform::Day, ts.clone());
        assert_eq!(days.data_type(), &DataType::Date32);
        assert_eq!(days.as_primitive::<Date32Type>().value(0), 17_486);
        assert!(days.is_null(1));
        let void = apply(Transform::Void, ts);
        assert_eq!(void.null_count(), 2);
    }

    #[test]
    fn unsupported_pairs_are_named() {
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["x"]));
        let err = Transform::Year.apply(&strings).unwrap_err();
        assert!(matches!(err, NativeError::Unsupported(_)));
        assert!(err.to_string().contains("year of Utf8"), "{err}");
        let dates: ArrayRef = Arc::new(Date32Array::from(vec![1]));
        assert!(Transform::Hour.apply(&dates).is_err());
        assert!(Transform::from_code(9, 0).is_err());
        assert!(Transform::from_code(1, 0).is_err());
    }
}
