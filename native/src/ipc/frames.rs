//! The messages of one IPC stream, checked before arrow-ipc reads them.
//!
//! arrow-ipc slices a message's buffers with bounds checks that panic, and allocates the length a
//! compressed buffer declares before decompressing it (a failed allocation aborts the process; it
//! is not a panic a JNI shim can catch). So every length, offset and declared size of a message is
//! checked here first, and a truncated or forged message is refused with an error that says which
//! part is wrong.

use arrow::buffer::Buffer;
use arrow_ipc::{root_as_message, Message};

use crate::error::{NativeError, Result};

/// The marker before each message's metadata length (the IPC format since Arrow 0.15).
const CONTINUATION: [u8; 4] = [0xFF; 4];

/// The most bytes the compressed buffers of one batch may declare once decompressed: an honest
/// batch of a Flink record is far smaller (its encoded form was a Java byte array), and a forged
/// length must not make native code try to allocate it.
pub const MAX_DECODED_BYTES: u64 = 1 << 30;

/// Above this, the declared bytes are reserved (and given back) before decoding, so a machine
/// that cannot hold them reports an error instead of aborting inside a decompressor.
const PROBE_ABOVE_BYTES: u64 = 64 << 20;

pub(crate) fn truncated(what: impl std::fmt::Display) -> NativeError {
    NativeError::InvalidArgument(format!("truncated Arrow IPC batch: {what}"))
}

pub(crate) fn invalid(what: impl std::fmt::Display) -> NativeError {
    NativeError::InvalidArgument(format!("invalid Arrow IPC batch: {what}"))
}

/// One message: its flatbuffer metadata and its body.
pub struct Frame {
    metadata: Buffer,
    pub body: Buffer,
}

impl Frame {
    /// The message, its flatbuffer verified.
    pub fn message(&self) -> Result<Message<'_>> {
        root_as_message(&self.metadata)
            .map_err(|e| invalid(format!("message metadata is not a valid flatbuffer ({e})")))
    }
}

/// The messages of a stream, in order.
pub struct Frames {
    rest: Buffer,
}

impl Frames {
    pub fn new(bytes: Buffer) -> Self {
        Frames { rest: bytes }
    }

    /// The next message, or `None` at the end-of-stream marker; `what` names it in errors.
    pub fn next_frame(&mut self, what: &str) -> Result<Option<Frame>> {
        let prefix = self.take(8, || format!("{what} has no complete 8-byte prefix"))?;
        if prefix[..4] != CONTINUATION {
            return Err(invalid(format!(
                "{what} does not start with the IPC continuation marker"
            )));
        }
        let length = u32::from_le_bytes([prefix[4], prefix[5], prefix[6], prefix[7]]) as usize;
        if length == 0 {
            return Ok(None);
        }
        let available = self.rest.len();
        let metadata = self.take(length, || {
            format!("{what} declares {length} metadata bytes, {available} remain")
        })?;
        let body_length = root_as_message(&metadata)
            .map_err(|e| invalid(format!("{what}: metadata is not a valid flatbuffer ({e})")))?
            .bodyLength();
        let available = self.rest.len();
        let body_length = usize::try_from(body_length)
            .map_err(|_| invalid(format!("{what} declares a body of {body_length} bytes")))?;
        let body = self.take(body_length, || {
            format!("{what} declares a body of {body_length} bytes, {available} remain")
        })?;
        Ok(Some(Frame { metadata, body }))
    }

    /// Fails unless every byte was read.
    pub fn finish(self) -> Result<()> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(invalid(format!(
                "{} bytes follow the end-of-stream marker",
                self.rest.len()
            )))
        }
    }

    fn take(&mut self, n: usize, describe: impl FnOnce() -> String) -> Result<Buffer> {
        if n > self.rest.len() {
            return Err(truncated(describe()));
        }
        let head = self.rest.slice_with_length(0, n);
        self.rest = self.rest.slice(n);
        Ok(head)
    }
}

/// Checks what arrow-ipc would otherwise trust in a record batch message: row and node counts
/// within Java's `int` range, null counts within their node, every buffer inside the body, and the
/// decompressed sizes compressed buffers declare.
pub fn check_batch(batch: &arrow_ipc::RecordBatch<'_>, body: &Buffer) -> Result<()> {
    let in_java_range = |n: i64| (0..=i64::from(i32::MAX)).contains(&n);
    if !in_java_range(batch.length()) {
        return Err(invalid(format!("a batch of {} rows", batch.length())));
    }
    let nodes = batch
        .nodes()
        .ok_or_else(|| invalid("the record batch has no field nodes"))?;
    for (i, node) in nodes.iter().enumerate() {
        if !in_java_range(node.length()) || !(0..=node.length()).contains(&node.null_count()) {
            return Err(invalid(format!(
                "field node {i} has {} values and {} nulls",
                node.length(),
                node.null_count()
            )));
        }
    }
    let buffers = batch
        .buffers()
        .ok_or_else(|| invalid("the record batch has no buffer list"))?;
    let compressed = batch.compression().is_some();
    let mut declared: u64 = 0;
    for (i, buffer) in buffers.iter().enumerate() {
        let (offset, length) = (buffer.offset(), buffer.length());
        let end = offset.checked_add(length);
        let inside = offset >= 0
            && length >= 0
            && end.is_some_and(|end| usize::try_from(end).is_ok_and(|end| end <= body.len()));
        if !inside {
            return Err(truncated(format!(
                "buffer {i} at {offset} of {length} bytes lies outside the {}-byte body",
                body.len()
            )));
        }
        if compressed && length > 0 {
            declared =
                declared.saturating_add(declared_size(body, offset as usize, length as usize, i)?);
        }
    }
    if declared > MAX_DECODED_BYTES {
        return Err(invalid(format!(
            "compressed buffers declare {declared} decoded bytes, more than the {MAX_DECODED_BYTES} a batch may hold"
        )));
    }
    if declared > PROBE_ABOVE_BYTES {
        let mut probe: Vec<u8> = Vec::new();
        probe.try_reserve_exact(declared as usize).map_err(|_| {
            NativeError::InvalidState(format!(
                "cannot allocate the {declared} bytes an Arrow IPC batch decodes to"
            ))
        })?;
    }
    Ok(())
}

/// The decoded length a compressed buffer declares in its 8-byte prefix (-1: stored as is).
fn declared_size(body: &Buffer, offset: usize, length: usize, index: usize) -> Result<u64> {
    if length < 8 {
        return Err(invalid(format!(
            "compressed buffer {index} has {length} bytes, fewer than its 8-byte length prefix"
        )));
    }
    let prefix: [u8; 8] = body[offset..offset + 8].try_into().expect("8 bytes");
    match i64::from_le_bytes(prefix) {
        -1 => Ok((length - 8) as u64),
        n if n >= 0 => Ok(n as u64),
        n => Err(invalid(format!(
            "compressed buffer {index} declares {n} decoded bytes"
        ))),
    }
}
