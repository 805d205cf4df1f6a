//! Arrow batches as IPC stream bytes (`frazil::ipc`): every column kind round trips with and
//! without compression, strings whose bytes are not UTF-8 come back as they went in (as the C Data
//! import accepts them), and truncated, forged or foreign-schema bytes are refused with an
//! `InvalidArgument`-kind error, never a panic or an abort.

mod common;

use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow::buffer::Buffer;
use arrow::datatypes::{DataType, SchemaRef};
use frazil::error::NativeError;
use frazil::ipc::{decode, encode, encode_into, Compression};

use common::columns::*;
use common::{field, schema_of};

const CODECS: [Compression; 3] = [Compression::None, Compression::Lz4Frame, Compression::Zstd];

/// One column of each kind the writer takes, nested ones included, with nulls.
fn every_kind() -> RecordBatch {
    let columns = vec![
        bool_col("b", 1),
        int32_col("i", 2),
        int64_col("l", 3),
        required_int64_col("r", 4),
        float32_col("f", 5),
        float64_col("d", 6),
        decimal_col("dec", 7, 38, 4),
        date32_col("date", 8),
        time64_col("t", 9),
        timestamp_micros_col("ts", 10, Some("UTC")),
        timestamp_nanos_col("tsn", 11, None),
        utf8_col("s", 12),
        binary_col("bin", 13),
        fixed5_col("fx", 14),
        uuid_col("u", 15),
        struct_col("st", 20),
        list_int_col("li", 30),
        list_struct_col("ls", 40),
        map_col("m", 50),
        all_null_col("n", 60),
    ];
    let (fields, arrays): (Vec<_>, Vec<_>) = columns.into_iter().unzip();
    batch_of(&schema_of(fields), arrays)
}

fn round_trip(batch: &RecordBatch, codec: Compression) -> RecordBatch {
    let bytes = encode(batch, codec).expect("encodes");
    decode(Buffer::from_vec(bytes), &batch.schema()).expect("decodes")
}

fn invalid_argument(result: Result<RecordBatch, NativeError>) -> String {
    match result {
        Err(NativeError::InvalidArgument(message)) => message,
        Err(NativeError::Arrow { context, source }) => format!("{context}: {source}"),
        Err(other) => panic!("expected an InvalidArgument-kind error, got {other:?}"),
        Ok(batch) => panic!("expected an error, decoded {} rows", batch.num_rows()),
    }
}

#[test]
fn every_column_kind_round_trips_with_each_codec() {
    let batch = every_kind();
    for codec in CODECS {
        assert_eq!(round_trip(&batch, codec), batch, "{codec:?}");
    }
}

#[test]
fn encoding_into_a_buffer_gives_the_same_stream_or_says_it_does_not_fit() {
    let batch = every_kind();
    for codec in CODECS {
        let expected = encode(&batch, codec).expect("encodes");
        let mut exact = vec![0u8; expected.len()];
        assert_eq!(
            encode_into(&batch, codec, &mut exact).expect("encodes"),
            Some(expected.len()),
            "{codec:?}"
        );
        assert_eq!(exact, expected, "{codec:?}");
        let mut roomy = vec![7u8; expected.len() + 100];
        assert_eq!(
            encode_into(&batch, codec, &mut roomy).expect("encodes"),
            Some(expected.len())
        );
        assert_eq!(&roomy[..expected.len()], &expected[..]);
        for short in [0, 1, expected.len() / 2, expected.len() - 1] {
            let mut small = vec![0u8; short];
            assert_eq!(
                encode_into(&batch, codec, &mut small).expect("not an error"),
                None,
                "{codec:?} into {short} bytes"
            );
        }
    }
}

#[test]
fn empty_and_sliced_batches_round_trip() {
    let batch = every_kind();
    for codec in CODECS {
        let empty = batch.slice(0, 0);
        let back = round_trip(&empty, codec);
        assert_eq!(back.num_rows(), 0);
        assert_eq!(back, empty);
        // A slice starts mid-buffer (and mid-byte of the validity bitmaps).
        let sliced = batch.slice(1, 4);
        assert_eq!(round_trip(&sliced, codec), sliced, "{codec:?}");
    }
}

#[test]
fn large_batch_round_trips_and_compression_shrinks_it() {
    let n = 300_000;
    let schema = schema_of(vec![
        field("id", DataType::Int64, false, 1),
        field("s", DataType::Utf8, true, 2),
    ]);
    let ids = Int64Array::from_iter_values(0..n as i64);
    let strings = StringArray::from_iter(
        (0..n).map(|i| (i % 7 != 0).then(|| format!("bidder-{}", i % 1000))),
    );
    let batch = batch_of(&schema, vec![Arc::new(ids), Arc::new(strings)]);
    let plain = encode(&batch, Compression::None).unwrap().len();
    for codec in CODECS {
        let bytes = encode(&batch, codec).unwrap();
        if codec != Compression::None {
            assert!(
                bytes.len() < plain / 2,
                "{codec:?}: {} of {plain} bytes",
                bytes.len()
            );
        }
        assert_eq!(decode(Buffer::from_vec(bytes), &schema).unwrap(), batch);
    }
}

#[test]
fn strings_that_are_not_utf8_come_back_unchanged() {
    let schema = schema_of(vec![field("s", DataType::Utf8, true, 1)]);
    let raw: &[u8] = &[0x66, 0xFF, 0xFE, 0x6F];
    // SAFETY: deliberately not UTF-8, as a Java producer may hand over; layout is valid.
    let data = unsafe {
        ArrayData::builder(DataType::Utf8)
            .len(1)
            .add_buffer(Buffer::from_slice_ref([0i32, 4]))
            .add_buffer(Buffer::from_slice_ref(raw))
            .build_unchecked()
    };
    let batch = batch_of(&schema, vec![arrow::array::make_array(data)]);
    let back = round_trip(&batch, Compression::None);
    let column = back.column(0).to_data();
    assert_eq!(column.data_type(), &DataType::Utf8);
    assert_eq!(column.buffers()[1].as_slice(), raw);
}

#[test]
fn a_stream_of_another_schema_is_refused_naming_the_field() {
    let batch = every_kind();
    let bytes = encode(&batch, Compression::None).unwrap();
    let mut fields: Vec<_> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields[2] = field("l", DataType::Int32, true, 3);
    let other: SchemaRef = schema_of(fields);
    let message = invalid_argument(decode(Buffer::from_vec(bytes), &other));
    assert!(message.contains("another schema"), "{message}");
    assert!(message.contains("field #2"), "{message}");
}

#[test]
fn every_truncation_is_refused() {
    let batch = every_kind();
    for codec in CODECS {
        let bytes = encode(&batch, codec).unwrap();
        for cut in 0..bytes.len() {
            let message = invalid_argument(decode(
                Buffer::from_vec(bytes[..cut].to_vec()),
                &batch.schema(),
            ));
            assert!(
                message.contains("truncated") || message.contains("invalid"),
                "{codec:?} cut at {cut}: {message}"
            );
        }
    }
}

#[test]
fn trailing_bytes_are_refused() {
    let batch = every_kind();
    let mut bytes = encode(&batch, Compression::None).unwrap();
    bytes.extend_from_slice(&[0; 8]);
    let message = invalid_argument(decode(Buffer::from_vec(bytes), &batch.schema()));
    assert!(
        message.contains("follow the end-of-stream marker"),
        "{message}"
    );
}

/// Every byte flipped in turn: the result is an error or a batch that passes arrow-rs's full
/// validation (a flipped value is not detectable), never a panic.
#[test]
fn every_flipped_byte_is_refused_or_decodes_to_a_valid_batch() {
    let batch = every_kind();
    let schema = batch.schema();
    for codec in CODECS {
        let bytes = encode(&batch, codec).unwrap();
        for at in 0..bytes.len() {
            let mut forged = bytes.clone();
            forged[at] ^= 0xFF;
            let schema = schema.clone();
            let outcome =
                std::panic::catch_unwind(move || decode(Buffer::from_vec(forged), &schema));
            match outcome {
                Err(_) => panic!("{codec:?}: flipping byte {at} panicked"),
                Ok(Ok(decoded)) => {
                    for column in decoded.columns() {
                        // Strings were validated as binary; check the layout, not UTF-8.
                        let data = column.to_data();
                        frazil::ffi::validate_imported(&data)
                            .unwrap_or_else(|e| panic!("{codec:?} byte {at}: {e}"));
                    }
                }
                Ok(Err(NativeError::InvalidArgument(_) | NativeError::Arrow { .. })) => {}
                Ok(Err(other)) => panic!("{codec:?} byte {at}: unexpected kind {other:?}"),
            }
        }
    }
}

#[test]
fn a_forged_decompressed_size_is_refused_before_allocating() {
    let schema = schema_of(vec![field("id", DataType::Int64, false, 1)]);
    let batch = batch_of(
        &schema,
        vec![Arc::new(Int64Array::from_iter_values(0..1000)) as ArrayRef],
    );
    for codec in [Compression::Lz4Frame, Compression::Zstd] {
        let bytes = encode(&batch, codec).unwrap();
        // The values buffer's 8-byte prefix holds 8000 (its decoded size): forge 2^40 instead.
        let declared = 8000i64.to_le_bytes();
        let at = bytes
            .windows(8)
            .position(|w| w == declared)
            .expect("the values buffer's length prefix");
        let mut forged = bytes.clone();
        forged[at..at + 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
        let message = invalid_argument(decode(Buffer::from_vec(forged), &schema));
        assert!(message.contains("decoded bytes"), "{codec:?}: {message}");
    }
}

#[test]
fn bytes_that_are_not_a_stream_are_refused() {
    let schema = every_kind().schema();
    for bytes in [vec![], vec![0u8; 3], vec![0xAB; 64], b"ARROW1\0\0".to_vec()] {
        let message = invalid_argument(decode(Buffer::from_vec(bytes), &schema));
        assert!(message.contains("Arrow IPC"), "{message}");
    }
    // A bare end-of-stream marker: no schema.
    let eos: Vec<u8> = vec![0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
    let message = invalid_argument(decode(Buffer::from_vec(eos), &schema));
    assert!(message.contains("before its schema"), "{message}");
}

#[test]
fn an_unknown_codec_is_refused() {
    assert!(matches!(
        Compression::from_code(7),
        Err(NativeError::InvalidArgument(_))
    ));
}

#[test]
fn decoded_arrays_keep_their_nulls() {
    let batch = every_kind();
    let back = round_trip(&batch, Compression::Zstd);
    for (a, b) in batch.columns().iter().zip(back.columns()) {
        assert_eq!(a.null_count(), b.null_count());
    }
}
