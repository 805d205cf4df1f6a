//! Iceberg's `bucket[N]` transform: 32-bit MurmurHash3 (x86_32, seed 0) over the canonical bytes
//! of each value (spec, "Bucket Transform Details" and Appendix B), then
//! `(hash & Integer.MAX_VALUE) % N`.
//!
//! Canonical bytes per Arrow type, as Iceberg hashes the Java value `RowDataWrapper` gives:
//! int, date (and Int8/Int16) as the 8-byte little-endian long; long, time (micros) and
//! timestamp/timestamptz micros as the long; nanosecond timestamps floored to micros first
//! (`DateTimeUtil.nanosToMicros`), so ns and µs columns bucket alike; strings as their UTF-8
//! bytes; binary, fixed and uuid (fixed[16]) as their raw bytes; decimals as the minimal
//! big-endian two's-complement bytes of the unscaled value (`BigInteger.toByteArray`).
//! boolean, float and double are rejected, as Iceberg's `Bucket` rejects them.

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, FixedSizeBinaryArray, Int32Array, LargeBinaryArray,
    LargeStringArray, StringArray,
};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time64MicrosecondType, TimeUnit, TimestampMicrosecondType, TimestampNanosecondType,
};

use crate::error::{NativeError, Result};

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

fn fmix(mut h1: u32, length: usize) -> u32 {
    // Guava mixes the length in as an int.
    h1 ^= length as u32;
    h1 ^= h1 >> 16;
    h1 = h1.wrapping_mul(0x85eb_ca6b);
    h1 ^= h1 >> 13;
    h1 = h1.wrapping_mul(0xc2b2_ae35);
    h1 ^= h1 >> 16;
    h1
}

/// MurmurHash3 x86_32 (seed 0) of `bytes`, as Java's signed int.
pub fn hash_bytes(bytes: &[u8]) -> i32 {
    let mut h1 = 0u32;
    let mut chunks = bytes.chunks_exact(4);
    for chunk in &mut chunks {
        let k1 = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        h1 = mix_h1(h1, mix_k1(k1));
    }
    let mut k1 = 0u32;
    for (i, &b) in chunks.remainder().iter().enumerate() {
        k1 ^= u32::from(b) << (8 * i);
    }
    // A zero tail mixes to zero, so XOR-ing it unconditionally equals Guava's "if any tail".
    h1 ^= mix_k1(k1);
    fmix(h1, bytes.len()) as i32
}

/// Hash of the 8-byte little-endian encoding of `value` (Iceberg int, long, date, time,
/// timestamp).
pub fn hash_long(value: i64) -> i32 {
    let h1 = mix_h1(0, mix_k1(value as u32));
    let h1 = mix_h1(h1, mix_k1((value as u64 >> 32) as u32));
    fmix(h1, 8) as i32
}

/// Hash of a decimal's unscaled value as `BigInteger.toByteArray()` writes it: the fewest
/// big-endian two's-complement bytes that keep the sign.
pub fn hash_unscaled(unscaled: i128) -> i32 {
    let bytes = unscaled.to_be_bytes();
    let mut start = 0;
    // Drop a leading 0x00 (0xFF) while the next byte's sign bit is 0 (1): it is sign extension.
    while start < bytes.len() - 1 {
        let (lead, next) = (bytes[start], bytes[start + 1]);
        let redundant = (lead == 0x00 && next & 0x80 == 0) || (lead == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    hash_bytes(&bytes[start..])
}

/// `(hash & Integer.MAX_VALUE) % n`, as Iceberg's `Bucket.apply`.
pub fn bucket_of(hash: i32, n: i32) -> i32 {
    (hash & i32::MAX) % n
}

/// `bucket[n]` of every value of `array` (nulls stay null), as an `Int32Array`.
pub fn bucket_array(array: &ArrayRef, n: i32) -> Result<ArrayRef> {
    if n <= 0 {
        return Err(NativeError::InvalidArgument(format!(
            "bucket[{n}]: the number of buckets must be positive"
        )));
    }
    let hashes = hash_array(array)?;
    Ok(std::sync::Arc::new(
        hashes.unary::<_, Int32Type>(|h| bucket_of(h, n)),
    ))
}

/// The Iceberg bucket hash of every value of `array`.
pub fn hash_array(array: &ArrayRef) -> Result<Int32Array> {
    let hashes = match array.data_type() {
        DataType::Int8 => {
            let a = array.as_primitive::<Int8Type>();
            a.unary(|v| hash_long(i64::from(v)))
        }
        DataType::Int16 => {
            let a = array.as_primitive::<Int16Type>();
            a.unary(|v| hash_long(i64::from(v)))
        }
        DataType::Int32 => {
            let a = array.as_primitive::<Int32Type>();
            a.unary(|v| hash_long(i64::from(v)))
        }
        DataType::Date32 => {
            let a = array.as_primitive::<Date32Type>();
            a.unary(|v| hash_long(i64::from(v)))
        }
        DataType::Int64 => array.as_primitive::<Int64Type>().unary(hash_long),
        DataType::Time64(TimeUnit::Microsecond) => array
            .as_primitive::<Time64MicrosecondType>()
            .unary(hash_long),
        DataType::Timestamp(TimeUnit::Microsecond, _) => array
            .as_primitive::<TimestampMicrosecondType>()
            .unary(hash_long),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            let a = array.as_primitive::<TimestampNanosecondType>();
            a.unary(|v| hash_long(v.div_euclid(1000)))
        }
        DataType::Decimal128(_, _) => array.as_primitive::<Decimal128Type>().unary(hash_unscaled),
        DataType::Utf8 => {
            // Hashed as bytes: the import does not check UTF-8, and Iceberg hashes the bytes.
            let a: &StringArray = array.as_string::<i32>();
            bytes_hashes(a.len(), |i| a.is_valid(i), |i| a.value(i).as_bytes())
        }
        DataType::LargeUtf8 => {
            let a: &LargeStringArray = array.as_string::<i64>();
            bytes_hashes(a.len(), |i| a.is_valid(i), |i| a.value(i).as_bytes())
        }
        DataType::Binary => {
            let a: &BinaryArray = array.as_binary::<i32>();
            bytes_hashes(a.len(), |i| a.is_valid(i), |i| a.value(i))
        }
        DataType::LargeBinary => {
            let a: &LargeBinaryArray = array.as_binary::<i64>();
            bytes_hashes(a.len(), |i| a.is_valid(i), |i| a.value(i))
        }
        DataType::FixedSizeBinary(_) => {
            let a: &FixedSizeBinaryArray = array.as_fixed_size_binary();
            bytes_hashes(a.len(), |i| a.is_valid(i), |i| a.value(i))
        }
        other => {
            return Err(NativeError::Unsupported(format!(
                "bucket of an Arrow {other} column (Iceberg buckets int, long, date, time, \
                 timestamp, string, binary, fixed, uuid and decimal)"
            )));
        }
    };
    Ok(hashes)
}

fn bytes_hashes<'a>(
    len: usize,
    valid: impl Fn(usize) -> bool,
    value: impl Fn(usize) -> &'a [u8],
) -> Int32Array {
    (0..len)
        .map(|i| valid(i).then(|| hash_bytes(value(i))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The reference hashes of the Iceberg spec's Appendix B.
    #[test]
    fn spec_appendix_b_hashes() {
        assert_eq!(hash_long(34), 2_017_239_379); // int 34 and long 34
        assert_eq!(hash_unscaled(1420), -500_754_589); // decimal(4,2) 14.20
        assert_eq!(hash_long(17_486), -653_330_422); // date 2017-11-16
        assert_eq!(hash_long(81_068_000_000), -662_762_989); // time 22:31:08
        assert_eq!(hash_long(1_510_871_468_000_000), -2_047_944_441); // timestamp 2017-11-16T22:31:08
        assert_eq!(hash_bytes(b"iceberg"), 1_210_000_089);
        let uuid = [
            0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7,
            0x85, 0xe7,
        ];
        assert_eq!(hash_bytes(&uuid), 1_488_055_340);
        assert_eq!(hash_bytes(&[0, 1, 2, 3]), -188_683_207);
    }

    #[test]
    fn unscaled_bytes_are_minimal_twos_complement() {
        // BigInteger.toByteArray: 0 → [00], -1 → [ff], 128 → [00 80], -129 → [ff 7f].
        assert_eq!(hash_unscaled(0), hash_bytes(&[0x00]));
        assert_eq!(hash_unscaled(-1), hash_bytes(&[0xff]));
        assert_eq!(hash_unscaled(127), hash_bytes(&[0x7f]));
        assert_eq!(hash_unscaled(128), hash_bytes(&[0x00, 0x80]));
        assert_eq!(hash_unscaled(-128), hash_bytes(&[0x80]));
        assert_eq!(hash_unscaled(-129), hash_bytes(&[0xff, 0x7f]));
        assert_eq!(hash_unscaled(1420), hash_bytes(&[0x05, 0x8c]));
    }

    #[test]
    fn nanos_bucket_like_micros_floored() {
        let micros: ArrayRef =
            std::sync::Arc::new(arrow::array::TimestampMicrosecondArray::from(vec![
                Some(-2),
                Some(1),
                None,
            ]));
        let nanos: ArrayRef =
            std::sync::Arc::new(arrow::array::TimestampNanosecondArray::from(vec![
                Some(-1_001),
                Some(1_999),
                None,
            ]));
        assert_eq!(hash_array(&micros).unwrap(), hash_array(&nanos).unwrap());
    }

    #[test]
    fn bucket_masks_the_sign_then_takes_the_remainder() {
        assert_eq!(
            bucket_of(-653_330_422, 16),
            (-653_330_422i32 & i32::MAX) % 16
        );
        assert!(bucket_array(
            &(std::sync::Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            0
        )
        .is_err());
        let floats: ArrayRef = std::sync::Arc::new(arrow::array::Float64Array::from(vec![1.0]));
        assert!(matches!(
            bucket_array(&floats, 4),
            Err(NativeError::Unsupported(_))
        ));
    }
}
