//! A batch into one Arrow IPC stream: schema message, record batch message, end-of-stream marker.

use std::io::{self, Write};

use arrow::array::RecordBatch;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_ipc::CompressionType;

use crate::error::{NativeError, Result};

/// Body compression of the record batch message (the Java enum `IpcCompression`, same codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Buffers as they are (the default: the network stack is rarely the bottleneck in-cluster).
    None,
    /// Each buffer an LZ4 frame.
    Lz4Frame,
    /// Each buffer a Zstd frame.
    Zstd,
}

impl Compression {
    /// The codec for Java's code: 0 none, 1 LZ4 frame, 2 Zstd.
    pub fn from_code(code: i32) -> Result<Self> {
        match code {
            0 => Ok(Compression::None),
            1 => Ok(Compression::Lz4Frame),
            2 => Ok(Compression::Zstd),
            other => Err(NativeError::InvalidArgument(format!(
                "unknown Arrow IPC compression code {other} (0 none, 1 lz4-frame, 2 zstd)"
            ))),
        }
    }

    fn ipc_type(self) -> Option<CompressionType> {
        match self {
            Compression::None => None,
            Compression::Lz4Frame => Some(CompressionType::LZ4_FRAME),
            Compression::Zstd => Some(CompressionType::ZSTD),
        }
    }
}

/// The bytes of one IPC stream holding `batch` (its schema first).
pub fn encode(batch: &RecordBatch, compression: Compression) -> Result<Vec<u8>> {
    let failed = |e| NativeError::arrow("encoding an Arrow IPC batch", e);
    let options = IpcWriteOptions::default()
        .try_with_compression(compression.ipc_type())
        .map_err(failed)?;
    // Room for the buffers plus the schema and batch metadata, so the vector rarely regrows.
    let capacity = match compression {
        Compression::None => batch.get_array_memory_size() + 4096,
        _ => 64 * 1024,
    };
    let mut writer =
        StreamWriter::try_new_with_options(Vec::with_capacity(capacity), &batch.schema(), options)
            .map_err(failed)?;
    writer.write(batch).map_err(failed)?;
    writer.finish().map_err(failed)?;
    writer.into_inner().map_err(failed)
}

/// Encodes `batch` as [`encode`] does, straight into `out`: the stream's length, or `None` when it
/// does not fit (what was written then is garbage; the caller makes room and encodes again). Saves
/// the copy from a vector when the caller's buffer is where the bytes must end up (a Java array).
pub fn encode_into(
    batch: &RecordBatch,
    compression: Compression,
    out: &mut [u8],
) -> Result<Option<usize>> {
    let failed = |e| NativeError::arrow("encoding an Arrow IPC batch", e);
    let options = IpcWriteOptions::default()
        .try_with_compression(compression.ipc_type())
        .map_err(failed)?;
    let mut sink = SliceSink {
        out,
        written: 0,
        overflowed: false,
    };
    let encoded = (|| {
        let mut writer = StreamWriter::try_new_with_options(&mut sink, &batch.schema(), options)?;
        writer.write(batch)?;
        writer.finish()
    })();
    match encoded {
        Ok(()) => Ok(Some(sink.written)),
        Err(_) if sink.overflowed => Ok(None),
        Err(e) => Err(failed(e)),
    }
}

/// A writer into a fixed slice that records running out of room (so that the error it causes is
/// told apart from an encoding error).
struct SliceSink<'a> {
    out: &'a mut [u8],
    written: usize,
    overflowed: bool,
}

impl Write for SliceSink<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let end = self.written + bytes.len();
        if end > self.out.len() {
            self.overflowed = true;
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                "the destination buffer is full",
            ));
        }
        self.out[self.written..end].copy_from_slice(bytes);
        self.written = end;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
