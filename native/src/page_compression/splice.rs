//! A column chunk's compressed pages read as one buffer, without joining them: what
//! `SerializedRowGroupWriter::append_column` splices a chunk Frazil compressed with a dictionary
//! page from (dictionary first; arrow-rs would place it by its uncompressed length).

use std::collections::VecDeque;
use std::io::Read;

use bytes::{Buf, Bytes};
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};

/// A column chunk's compressed pages in file order, read by
/// `SerializedRowGroupWriter::append_column` as if they were one buffer (without joining them).
#[derive(Debug)]
pub struct ChunkPages {
    blobs: VecDeque<Bytes>,
    len: u64,
}

impl ChunkPages {
    /// The pages' blobs (headers and data), in file order.
    pub(super) fn new(blobs: VecDeque<Bytes>) -> Self {
        let len = blobs.iter().map(Bytes::len).sum::<usize>() as u64;
        Self { blobs, len }
    }

    /// The pages' blobs (headers and data) in file order.
    pub fn blobs(&self) -> impl Iterator<Item = &Bytes> {
        self.blobs.iter()
    }
}

impl Length for ChunkPages {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for ChunkPages {
    type T = ChunkPagesRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<ChunkPagesRead> {
        let mut read = ChunkPagesRead {
            blobs: self.blobs.clone(),
        };
        let mut skip = usize::try_from(start)
            .map_err(|_| ParquetError::General(format!("offset {start} out of range")))?;
        while skip > 0 {
            let front = read.blobs.front_mut().ok_or_else(|| {
                ParquetError::General(format!("offset {start} past the column chunk"))
            })?;
            let n = skip.min(front.len());
            front.advance(n);
            skip -= n;
            if front.is_empty() {
                read.blobs.pop_front();
            }
        }
        Ok(read)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let mut out = Vec::with_capacity(length);
        self.get_read(start)?
            .take(length as u64)
            .read_to_end(&mut out)
            .map_err(|e| ParquetError::External(Box::new(e)))?;
        if out.len() != length {
            return Err(ParquetError::General(format!(
                "{length} bytes at {start} past the column chunk"
            )));
        }
        Ok(Bytes::from(out))
    }
}

/// Reads [`ChunkPages`]' blobs one after the other.
#[derive(Debug)]
pub struct ChunkPagesRead {
    blobs: VecDeque<Bytes>,
}

impl Read for ChunkPagesRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(front) = self.blobs.front_mut() {
            if front.is_empty() {
                self.blobs.pop_front();
                continue;
            }
            let n = buf.len().min(front.len());
            buf[..n].copy_from_slice(&front[..n]);
            front.advance(n);
            return Ok(n);
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_pages_read_as_one_buffer_from_any_offset() {
        let blobs: VecDeque<Bytes> = [&b"abc"[..], b"", b"defgh"]
            .into_iter()
            .map(Bytes::from_static)
            .collect();
        let pages = ChunkPages::new(blobs);
        assert_eq!(pages.len(), 8);
        let mut read = String::new();
        pages
            .get_read(2)
            .unwrap()
            .read_to_string(&mut read)
            .unwrap();
        assert_eq!(read, "cdefgh");
        assert_eq!(&pages.get_bytes(1, 4).unwrap()[..], b"bcde");
        assert_eq!(&pages.get_bytes(0, 8).unwrap()[..], b"abcdefgh");
        assert!(pages.get_bytes(6, 5).is_err(), "past the end");
        assert!(pages.get_read(9).is_err(), "offset past the end");
    }
}
