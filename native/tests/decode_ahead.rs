//! Decode-ahead ([`frazil::reader::ahead`]): the batches decoded on the pool are the ones the
//! calling thread decodes itself, in order; a decoder error surfaces on the consuming side; and a
//! reader dropped with a batch in flight has freed everything when the drop returns.

use std::sync::{Arc, Mutex};

use arrow::array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray, StructArray};
use arrow::datatypes::{DataType, Field, Schema};
use bytes::Bytes;
use frazil::allocator::allocated_bytes;
use frazil::reader::ahead::DecodeAhead;
use frazil::reader::ranges::FileRanges;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::ParquetMetaDataReader;

/// The memory test reads the process-wide count: the tests of this binary run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn file(rows: usize) -> Bytes {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
    ]));
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows as i64));
    let names: ArrayRef =
        Arc::new(StringArray::from_iter((0..rows).map(|i| {
            (i % 5 != 0).then(|| format!("a string value of row {i}"))
        })));
    let batch = RecordBatch::try_new(schema.clone(), vec![ids, names]).unwrap();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

fn decoder(bytes: &Bytes, batch_size: usize) -> ParquetRecordBatchReader {
    ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .build()
        .unwrap()
}

fn drain(mut ahead: DecodeAhead) -> Vec<StructArray> {
    let mut batches = Vec::new();
    while let Some(batch) = ahead.next_batch().unwrap() {
        batches.push(batch);
    }
    assert!(!ahead.in_flight(), "nothing in flight once done");
    assert!(ahead.next_batch().unwrap().is_none(), "done stays done");
    batches
}

#[test]
fn batches_decoded_ahead_are_the_batches_decoded_inline() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = file(50_000);
    let inline = drain(DecodeAhead::start_with(decoder(&bytes, 4096), false));
    let ahead = drain(DecodeAhead::start_with(decoder(&bytes, 4096), true));
    assert_eq!(inline.len(), 13);
    assert_eq!(inline, ahead);
    let rows: usize = ahead.iter().map(|b| b.len()).sum();
    assert_eq!(rows, 50_000);
}

#[test]
fn a_decoder_error_surfaces_on_the_consuming_side_and_ends_the_row_group() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = file(10_000);
    let footer_len =
        u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
    let footer = &bytes[bytes.len() - 8 - footer_len as usize..bytes.len() - 8];
    let metadata = ParquetMetaDataReader::decode_metadata(footer).unwrap();
    for ahead in [false, true] {
        // Only the first column's bytes are there: decoding the second one fails.
        let mut ranges = FileRanges::new(bytes.len() as u64);
        let (start, len) = metadata.row_group(0).column(0).byte_range();
        ranges.begin(start, len as usize).unwrap();
        ranges
            .append(&bytes[start as usize..(start + len) as usize])
            .unwrap();
        let options = parquet::arrow::arrow_reader::ArrowReaderOptions::new();
        let meta = parquet::arrow::arrow_reader::ArrowReaderMetadata::try_new(
            Arc::new(metadata.clone()),
            options,
        )
        .unwrap();
        // Building reads no page: the missing bytes are only found while decoding.
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(ranges, meta)
            .build()
            .unwrap();
        let mut decoding = DecodeAhead::start_with(reader, ahead);
        let error = decoding.next_batch().unwrap_err().to_string();
        assert!(error.contains("outside the byte ranges"), "{error}");
        assert!(!decoding.in_flight());
        assert!(
            decoding.next_batch().unwrap().is_none(),
            "the decoder is gone"
        );
    }
}

#[test]
fn a_reader_dropped_with_a_batch_in_flight_has_freed_it_when_the_drop_returns() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = file(400_000);
    let before = allocated_bytes();
    {
        let mut decoding = DecodeAhead::start_with(decoder(&bytes, 200_000), true);
        let first = decoding.next_batch().unwrap().unwrap();
        assert_eq!(first.len(), 200_000);
        assert!(decoding.in_flight(), "the second batch is being decoded");
        let held = allocated_bytes();
        assert!(held > before + (4 << 20), "{before} -> {held}");
        drop(first);
    }
    // Each thread may hold up to FLUSH_BYTES uncounted: a few of them, far below a batch.
    let after = allocated_bytes();
    assert!(after < before + (1 << 20), "{before} -> {after}");
}
