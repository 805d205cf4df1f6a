//! The byte ranges of one Parquet file that Java fetched through Iceberg's `FileIO`.
//!
//! Native code never opens a data file: Java reads the footer and the column chunks a scan needs
//! (through `InputFile`/`SeekableInputStream`, so S3 and every other store work) and copies them
//! here, range by range. [`FileRanges`] then serves arrow-rs's decoder as a [`ChunkReader`]: every
//! request must fall inside one fetched range, and a request outside them is an error that names
//! the offsets, never a read of memory that was not filled.

use std::io::Read;

use bytes::{Buf, Bytes};
use parquet::errors::{ParquetError, Result as ParquetResult};
use parquet::file::reader::{ChunkReader, Length};

/// Fetched ranges of one file, sorted by offset and not overlapping.
#[derive(Debug, Default)]
pub struct FileRanges {
    file_length: u64,
    ranges: Vec<(u64, Bytes)>,
    /// The range being filled by [`FileRanges::append`]: its offset, the bytes so far, its length.
    filling: Option<(u64, Vec<u8>, usize)>,
}

impl FileRanges {
    /// No ranges yet, for a file of `file_length` bytes.
    pub fn new(file_length: u64) -> Self {
        FileRanges {
            file_length,
            ..Default::default()
        }
    }

    /// Starts the range `[offset, offset + length)`; its bytes follow through [`Self::append`].
    pub fn begin(&mut self, offset: u64, length: usize) -> Result<(), String> {
        if self.filling.is_some() {
            return Err("a byte range is still being filled".into());
        }
        let end = offset.checked_add(length as u64);
        if end.is_none_or(|end| end > self.file_length) {
            return Err(format!(
                "byte range at {offset} of {length} bytes ends past the file ({} bytes)",
                self.file_length
            ));
        }
        self.filling = Some((offset, Vec::with_capacity(length), length));
        Ok(())
    }

    /// Appends bytes to the range being filled; once it is complete it becomes readable.
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.append_with(bytes.len(), |dst| {
            dst.copy_from_slice(bytes);
            Ok(())
        })
    }

    /// Appends `n` bytes that `fill` writes in place (JNI copies a Java array straight into
    /// them); once the range is complete it becomes readable. A failed `fill` abandons the range.
    pub fn append_with(
        &mut self,
        n: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        let Some((offset, data, length)) = self.filling.as_mut() else {
            return Err("no byte range is being filled".into());
        };
        if data.len() + n > *length {
            return Err(format!(
                "{} bytes given for the range at {offset} of {length} bytes",
                data.len() + n
            ));
        }
        let from = data.len();
        data.resize(from + n, 0);
        if let Err(e) = fill(&mut data[from..]) {
            self.filling = None;
            return Err(e);
        }
        if data.len() == *length {
            let (offset, data, _) = self.filling.take().expect("checked above");
            self.insert(offset, Bytes::from(data));
        }
        Ok(())
    }

    fn insert(&mut self, offset: u64, data: Bytes) {
        let at = self.ranges.partition_point(|(start, _)| *start < offset);
        self.ranges.insert(at, (offset, data));
    }

    /// Drops every fetched range (a row group is done).
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.filling = None;
    }

    /// Bytes held, for tests and accounting.
    pub fn held_bytes(&self) -> usize {
        self.ranges.iter().map(|(_, b)| b.len()).sum()
    }

    fn slice(&self, start: u64, length: usize) -> ParquetResult<Bytes> {
        // The last range starting at or before `start` is the only one that can hold it.
        let at = self.ranges.partition_point(|(offset, _)| *offset <= start);
        let found = at.checked_sub(1).map(|i| &self.ranges[i]);
        match found {
            Some((offset, data)) if start + length as u64 <= offset + data.len() as u64 => {
                let from = (start - offset) as usize;
                Ok(data.slice(from..from + length))
            }
            _ => Err(ParquetError::General(format!(
                "the decoder asked for {length} bytes at offset {start}, outside the byte ranges \
                 fetched for this row group"
            ))),
        }
    }

    fn rest_of_range(&self, start: u64) -> ParquetResult<Bytes> {
        let at = self.ranges.partition_point(|(offset, _)| *offset <= start);
        match at.checked_sub(1).map(|i| &self.ranges[i]) {
            Some((offset, data)) if start < offset + data.len() as u64 => {
                Ok(data.slice((start - offset) as usize..))
            }
            _ => Err(ParquetError::General(format!(
                "the decoder asked to read at offset {start}, outside the byte ranges fetched \
                 for this row group"
            ))),
        }
    }
}

impl Length for FileRanges {
    fn len(&self) -> u64 {
        self.file_length
    }
}

impl ChunkReader for FileRanges {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> ParquetResult<Self::T> {
        Ok(self.rest_of_range(start)?.reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> ParquetResult<Bytes> {
        self.slice(start, length)
    }
}

/// `Read` is what the decoder's page reader needs; make sure the returned type provides it.
const _: fn() = || {
    fn is_read<R: Read>() {}
    is_read::<bytes::buf::Reader<Bytes>>();
};

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges() -> FileRanges {
        let mut r = FileRanges::new(100);
        r.begin(40, 10).unwrap();
        r.append(&[1; 4]).unwrap();
        r.append(&[2; 6]).unwrap();
        r.begin(10, 5).unwrap();
        r.append(&[3; 5]).unwrap();
        r
    }

    #[test]
    fn requests_inside_a_range_are_served_without_copies() {
        let r = ranges();
        assert_eq!(r.get_bytes(42, 4).unwrap().as_ref(), &[1, 1, 2, 2]);
        assert_eq!(r.get_bytes(10, 5).unwrap().as_ref(), &[3; 5]);
        let mut rest = Vec::new();
        r.get_read(47).unwrap().read_to_end(&mut rest).unwrap();
        assert_eq!(rest, vec![2; 3]);
        assert_eq!(r.held_bytes(), 15);
    }

    #[test]
    fn requests_outside_every_range_are_errors() {
        let r = ranges();
        assert!(r.get_bytes(48, 4).is_err(), "crosses the end of a range");
        assert!(r.get_bytes(20, 1).is_err(), "between ranges");
        assert!(r.get_read(50).is_err(), "just past a range");
        assert!(r.get_bytes(0, 1).is_err(), "before every range");
    }

    #[test]
    fn ranges_past_the_file_or_overfilled_are_refused() {
        let mut r = FileRanges::new(100);
        assert!(r.begin(95, 10).is_err());
        assert!(r.begin(u64::MAX, 2).is_err());
        r.begin(0, 2).unwrap();
        assert!(r.begin(5, 1).is_err(), "one range at a time");
        assert!(r.append(&[0; 3]).is_err());
        r.clear();
        assert!(
            r.append(&[0]).is_err(),
            "nothing is being filled after clear"
        );
    }
}
