//! Arrow batches as Flink stream records: one batch is one Arrow IPC stream.
//!
//! ```text
//!  Java: ArrowBatch ──C Data──► ffi::import_batch (validated) ──► encode ──► bytes (a whole stream:
//!                                                                           schema, batch, end marker)
//!  Java: bytes ──► frames (every length and offset checked) ──► decode (arrow-ipc, full validation
//!                  but UTF-8) ──C Data──► Java (ownership moves; Java releases)
//! ```
//!
//! Each record carries its schema. A Flink serializer cannot keep "schema already sent" state:
//! one serializer instance writes a record once and the same bytes go to several channels
//! (broadcast, rebalance over a shared record writer), one deserializer reads the interleaved
//! records of all input channels, in-flight buffers of an unaligned checkpoint are restored into
//! other subtasks after rescaling, and state backends read records one at a time. The schema
//! message costs a few hundred bytes per batch and lets every record be decoded alone and checked
//! against the reader's schema field by field.
//!
//! * [`encode`] — a batch into one IPC stream, optionally with LZ4-frame or Zstd bodies;
//!   [`encode_into`] the same straight into the caller's buffer.
//! * [`frames`] — the stream's messages split and bounds-checked before arrow-ipc sees them.
//! * [`decode`] — the stream back into a batch of the expected schema.
//! * [`wire_types`] — strings travel and are validated as binary (no UTF-8 check, as on import).

pub mod decode;
pub mod encode;
pub mod frames;
pub mod wire_types;

pub use decode::decode;
pub use encode::{encode, encode_into, Compression};
