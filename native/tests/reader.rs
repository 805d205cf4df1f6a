//! The reader decodes exactly the byte ranges it is given: whole files written by arrow-rs, read
//! back row group by row group with a projection, and refused when a range is missing.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use frazil::reader::NativeParquetReader;
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::WriterProperties;

fn file(rows: usize, row_group_rows: usize) -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("n", DataType::Int32, true),
    ]));
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows as i64));
    let names: ArrayRef = Arc::new(StringArray::from_iter(
        (0..rows).map(|i| (i % 3 != 0).then(|| format!("name-{i}"))),
    ));
    let ns: ArrayRef = Arc::new(Int32Array::from_iter((0..rows).map(|i| Some(i as i32 * 7))));
    let batch = RecordBatch::try_new(schema.clone(), vec![ids, names, ns]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(row_group_rows))
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    out
}

fn footer(bytes: &[u8]) -> &[u8] {
    let n = bytes.len();
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    &bytes[n - 8 - len..n - 8]
}

fn fetch(reader: &mut NativeParquetReader, bytes: &[u8], row_group: usize, leaves: &[usize]) {
    let meta = ParquetMetaDataReader::decode_metadata(footer(bytes)).unwrap();
    for &leaf in leaves {
        let (start, len) = meta.row_group(row_group).column(leaf).byte_range();
        let ranges = reader.fetched_mut();
        ranges.begin(start, len as usize).unwrap();
        let data = &bytes[start as usize..(start + len) as usize];
        for piece in data.chunks(1000) {
            ranges.append(piece).unwrap();
        }
    }
}

#[test]
fn every_row_group_reads_back_with_a_projection() {
    let bytes = file(10_000, 3_000);
    let mut reader = NativeParquetReader::open(footer(&bytes), bytes.len() as u64, 1024).unwrap();
    assert_eq!(reader.row_groups(), 4);
    let leaves = [0, 2];
    let schema = reader.projected_schema(&leaves).unwrap();
    assert_eq!(schema.fields().len(), 2);
    let mut next_id = 0i64;
    for row_group in 0..reader.row_groups() {
        fetch(&mut reader, &bytes, row_group, &leaves);
        reader.start_row_group(row_group, &leaves).unwrap();
        while let Some(batch) = reader.next_batch().unwrap() {
            assert!(batch.len() <= 1024);
            assert_eq!(batch.fields().len(), 2);
            let ids = batch
                .column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap();
            let ns = batch
                .column(1)
                .as_any()
                .downcast_ref::<Int32Array>()
                .unwrap();
            for i in 0..batch.len() {
                assert_eq!(ids.value(i), next_id);
                assert_eq!(ns.value(i), next_id as i32 * 7);
                next_id += 1;
            }
        }
    }
    assert_eq!(next_id, 10_000);
}

#[test]
fn a_column_whose_bytes_were_not_fetched_is_an_error_not_a_read() {
    let bytes = file(100, 100);
    let mut reader = NativeParquetReader::open(footer(&bytes), bytes.len() as u64, 64).unwrap();
    fetch(&mut reader, &bytes, 0, &[0]);
    // Column 1 is requested but only column 0's chunk was fetched.
    let started = reader.start_row_group(0, &[0, 1]);
    let error = match started {
        Err(e) => e.to_string(),
        Ok(()) => reader.next_batch().unwrap_err().to_string(),
    };
    assert!(error.contains("outside the byte ranges"), "{error}");
}

#[test]
fn bad_footers_and_bad_requests_are_refused() {
    let bytes = file(100, 100);
    assert!(NativeParquetReader::open(&[1, 2, 3], 100, 64).is_err());
    let mut reader = NativeParquetReader::open(footer(&bytes), bytes.len() as u64, 64).unwrap();
    assert!(reader.projected_schema(&[7]).is_err());
    assert!(reader.start_row_group(3, &[0]).is_err());
    assert!(reader.next_batch().is_err(), "no row group started");
}
