//! One page's bytes as arrow-rs writes them compressed: the data through Zstd's one-shot
//! compression with the thread's reused context, and the page header arrow-rs wrote with only
//! its `compressed_page_size` re-encoded (a thrift compact `PageHeader`).

use std::cell::RefCell;

use bytes::Bytes;
use parquet::errors::ParquetError;

use crate::allocator::UncountedBuffer;
use crate::error::{NativeError, Result};

/// The largest Zstd output buffer a thread keeps for its next page: the compression bound of a
/// 1 MiB page (the default page size) with room to spare. A larger one, for an outsized
/// dictionary page, is freed after use.
const RETAINED_SCRATCH: usize = 2 << 20;

/// Compresses one v1 data page's bytes as arrow-rs's Zstd codec does and returns its header
/// with the compressed size, and the compressed bytes in one allocation of their exact size (the
/// page waits in memory until its row group closes). Zstd writes into the thread's scratch
/// buffer, sized for the worst case and left out of the memory count (see
/// [`UncountedBuffer`]), and the page is copied out of it once.
pub(super) fn compress_page(level: i32, header: &[u8], data: &[u8]) -> Result<(Bytes, Bytes)> {
    thread_local! {
        /// One Zstd context per encoder thread, reused like arrow-rs reuses one per column
        /// writer (a context costs more to create than a small page to compress).
        static COMPRESSOR: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
            const { RefCell::new(None) };
        /// Where the thread's Zstd context writes a page.
        static SCRATCH: RefCell<UncountedBuffer> = const { RefCell::new(UncountedBuffer::new()) };
    }
    let failed = |e: std::io::Error| {
        NativeError::parquet("compressing a page", ParquetError::External(Box::new(e)))
    };
    let compressed = COMPRESSOR.with(|cell| {
        SCRATCH.with(|scratch| -> Result<Bytes> {
            let mut cell = cell.borrow_mut();
            if cell.as_ref().is_none_or(|(l, _)| *l != level) {
                *cell = Some((level, zstd::bulk::Compressor::new(level).map_err(failed)?));
            }
            let (_, compressor) = cell.as_mut().expect("set above");
            let mut scratch = scratch.borrow_mut();
            let bound = zstd::zstd_safe::compress_bound(data.len());
            let room = scratch.with_room(bound).ok_or_else(|| {
                NativeError::InvalidState(format!("no memory for a {bound}-byte page buffer"))
            })?;
            let written = compressor.compress_to_buffer(data, room).map_err(failed);
            let page = written.map(|len| Bytes::copy_from_slice(&room[..len]));
            if scratch.capacity() > RETAINED_SCRATCH {
                scratch.release();
            }
            page
        })
    })?;
    let header = with_compressed_size(header, compressed.len())?;
    Ok((Bytes::from(header), compressed))
}

/// `header`, a thrift compact `PageHeader`, with field 3 (`compressed_page_size`) set to `size`.
/// arrow-rs writes fields 1 (`type`), 2 (`uncompressed_page_size`) and 3 first, in order, each
/// an i32 (zigzag varint) with a one-byte field header; the rest is kept as it is.
fn with_compressed_size(header: &[u8], size: usize) -> Result<Vec<u8>> {
    const I32_FIELD_DELTA_1: u8 = 0x15;
    let malformed = || NativeError::InvalidState("unexpected page header layout".into());
    let mut at = 0;
    let mut field_3 = None;
    for field in 1..=3 {
        if header.get(at) != Some(&I32_FIELD_DELTA_1) {
            return Err(malformed());
        }
        let start = at + 1;
        let len = header
            .get(start..)
            .ok_or_else(malformed)?
            .iter()
            .position(|b| b & 0x80 == 0)
            .ok_or_else(malformed)?
            + 1;
        if field == 3 {
            field_3 = Some((start, start + len));
        }
        at = start + len;
    }
    let (start, end) = field_3.ok_or_else(malformed)?;
    let size = i32::try_from(size)
        .map_err(|_| NativeError::InvalidState("compressed page over 2 GiB".into()))?;
    let mut out = Vec::with_capacity(header.len() + 5);
    out.extend_from_slice(&header[..start]);
    let mut zigzag = ((size << 1) ^ (size >> 31)) as u32;
    while zigzag >= 0x80 {
        out.push((zigzag as u8) | 0x80);
        zigzag >>= 7;
    }
    out.push(zigzag as u8);
    out.extend_from_slice(&header[end..]);
    Ok(out)
}

/// `PageType::DATA_PAGE` in a page header: a v1 data page.
pub(super) const DATA_PAGE: i32 = 0;
/// `PageType::DICTIONARY_PAGE` in a page header.
pub(super) const DICTIONARY_PAGE: i32 = 2;

/// The page type in a thrift compact `PageHeader` (field 1).
pub(super) fn page_type(header: &[u8]) -> Option<i32> {
    if header.first() != Some(&0x15) {
        return None;
    }
    let byte = *header.get(1)?;
    (byte & 0x80 == 0).then(|| i32::from(byte >> 1) ^ -i32::from(byte & 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compressed_size_is_re_encoded_and_the_rest_kept() {
        // type 0, uncompressed 300, compressed 300, then a data page header struct.
        let mut header = vec![0x15, 0x00, 0x15, 0xd8, 0x04, 0x15, 0xd8, 0x04];
        header.extend_from_slice(&[0x2c, 0x15, 0x02, 0x00]);
        let rewritten = with_compressed_size(&header, 5).unwrap();
        assert_eq!(
            rewritten,
            vec![0x15, 0x00, 0x15, 0xd8, 0x04, 0x15, 0x0a, 0x2c, 0x15, 0x02, 0x00]
        );
        assert_eq!(page_type(&header), Some(0));
        assert!(with_compressed_size(&[0x16, 0x00], 5).is_err());
    }
}
