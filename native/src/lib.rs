//! Frazil's native encoder: Iceberg Parquet data files from Arrow batches, for Flink's
//! Iceberg sinks running in a JVM.
//!
//! ```text
//!  Java: RowData → Arrow vectors ──C Data──► ffi       (import with move semantics, validation)
//!                                             │
//!                                             ▼
//!                                           pipeline  (the caller's last batches, kept in flight)
//!                                             │
//!                                             ▼
//!                                           writer    (Iceberg Parquet schema, write.parquet.*)
//!                                             │
//!                                             ▼
//!                                           encoder   (a lane per column on the pool threads:
//!                                             │        arrow-rs column writers → pages → Zstd 3;
//!                                             │        big text columns' pages: Zstd as pool jobs)
//!                                             ▼
//!  Java: OutputFile stream ◄──drain── OutputBuffer ; close → stats (per-field-id facts)
//! ```
//!
//! * [`schema`] — the Parquet schema Iceberg Java writes, from the Arrow schema.
//! * [`options`] — `write.parquet.*` properties → arrow-rs `WriterProperties`.
//! * [`writer`] — [`writer::NativeParquetWriter`], the encoder façade.
//! * [`pipeline`] — the caller's batches kept until encoded, while it fills the next ones.
//! * [`encoder`] — row groups encoded column by column on the encoder threads (`encoder/`: the
//!   row-group decisions, the column lanes, the row-group close).
//! * [`page_compression`] — Zstd pages compressed by Frazil, large text columns' pages in
//!   parallel on the encoder threads, the bytes arrow-rs would write (`page_compression/`: the
//!   plan, the page store, a chunk's pages, a page's bytes, the splice).
//! * [`pool`] — the process-wide encoder threads.
//! * [`stats`] — footer and writer-side facts for Iceberg metrics.
//! * [`dictionary`] — parquet-java's keep-or-drop dictionary rule, per column.
//! * [`first_page`] — the rows a file holds until that rule is applied (under memory pressure,
//!   up to a page's row limit), kept compact.
//! * [`reader`] — decoding Parquet data files into Arrow batches from byte ranges Java fetched
//!   (the read path: Java decides row groups and columns with Iceberg's code).
//! * [`ipc`] — Arrow batches as Flink stream records: Arrow IPC stream bytes, checked before
//!   decoding (`ipc/`: encode, frames, decode, the string-as-binary wire types).
//! * [`partition`] — Iceberg partition transforms on Arrow arrays and the split of a batch by
//!   partition tuple (`partition/`: bucket, time ordinals, transforms, split).
//! * [`ffi`] — Arrow C Data import.
//! * [`jni`] — the thin JNI layer; the only place that knows about the JVM.
//! * [`allocator`] — mimalloc as the global allocator, and its purge delay.

pub mod allocator;
pub mod dictionary;
pub mod encoder;
pub mod error;
pub mod ffi;
pub mod first_page;
pub mod ipc;
pub mod jni;
pub mod options;
pub mod output;
pub mod page_compression;
pub mod partition;
pub mod pipeline;
pub mod pool;
pub mod reader;
pub mod schema;
pub mod stats;
pub mod writer;
