//! Reading a whole file through `NativeParquetReader` as the Java side does: the footer the
//! file's tail names, then per row group the column chunks that footer states, then every batch.

use arrow::array::StructArray;
use frazil::reader::NativeParquetReader;
use parquet::file::metadata::ParquetMetaDataReader;

/// The Thrift footer's byte range, `None` unless the file ends in a plausible tail.
pub fn footer_range(bytes: &[u8]) -> Option<(usize, usize)> {
    let n = bytes.len();
    if n < 12 || &bytes[n - 4..] != b"PAR1" {
        return None;
    }
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    (len + 12 <= n).then(|| (n - 8 - len, n - 8))
}

/// Every leaf of `bytes`, decoded in batches of `batch_size` rows; `Err` carries the first error.
pub fn read_natively(bytes: &[u8], batch_size: usize) -> Result<Vec<StructArray>, String> {
    let (start, end) = footer_range(bytes).ok_or("no footer")?;
    let footer = &bytes[start..end];
    let mut reader = NativeParquetReader::open(footer, bytes.len() as u64, batch_size)
        .map_err(|e| e.to_string())?;
    // Java takes the chunk ranges from parquet-java's view of the same footer.
    let meta = ParquetMetaDataReader::decode_metadata(footer).map_err(|e| e.to_string())?;
    let leaves: Vec<usize> = (0..reader.leaf_columns()).collect();
    reader
        .projected_schema(&leaves)
        .map_err(|e| e.to_string())?;
    let mut batches = Vec::new();
    for row_group in 0..reader.row_groups() {
        let rg = meta.row_group(row_group);
        for column in rg.columns() {
            // Not byte_range(): it panics on a negative start, which Java refuses instead.
            let start = column
                .dictionary_page_offset()
                .filter(|&d| d >= 0 && d < column.data_page_offset())
                .unwrap_or(column.data_page_offset());
            let offset = u64::try_from(start).map_err(|e| e.to_string())?;
            let length = usize::try_from(column.compressed_size()).map_err(|e| e.to_string())?;
            let ranges = reader.fetched_mut();
            ranges.begin(offset, length)?;
            let from = usize::try_from(offset).map_err(|e| e.to_string())?;
            let data = bytes
                .get(from..from.saturating_add(length))
                .ok_or("chunk past the end")?;
            ranges.append(data)?;
        }
        reader
            .start_row_group(row_group, &leaves)
            .map_err(|e| e.to_string())?;
        while let Some(batch) = reader.next_batch().map_err(|e| e.to_string())? {
            batches.push(batch);
        }
    }
    Ok(batches)
}
