//! Zstd pages compressed by Frazil, with one reused context per thread, and the pages of large
//! text columns compressed in parallel on the encoder threads.
//!
//! An arrow-rs column writer compresses each page itself, with a Zstd compressor *and* a
//! decompressor it creates for every column chunk. Creating a Zstd context runs `CPUID`, which
//! exits to the hypervisor on a VM: with 1,024 small files closed at a checkpoint that was 16,384
//! contexts and about a third of the native close time. And on the `bid` schema one free-text
//! column holds most of the bytes, so its Zstd work alone bounded a file's wall time on its
//! lane's one thread. So every Zstd column of a v1 file (see [`plan`]) gets a column writer
//! created *uncompressed*, and its page store ([`store`]) compresses each page as it
//! arrives, with the calling thread's own context:
//! - inline, on the thread that encodes the column, for dictionary and fixed-width columns
//!   (small pages: a pool job would cost more than it saves);
//! - as a job on [`crate::pool`] for text columns without a dictionary: page *k* is compressed
//!   while the lane encodes page *k + 1* and the other columns.
//!
//! ```text
//!  lane (encoder thread):   encode p0 ─ put(h0, d0) ─ encode p1 ─ put(h1, d1) ─ ...
//!  pool:                                 └► zstd(d0), rewrite h0      └► zstd(d1), rewrite h1
//!  row-group close (caller):  wait for every page ─ fix the chunk's metadata ─ splice pages
//! ```
//!
//! The bytes are those arrow-rs writes when it compresses the page itself: the same
//! `zstd::bulk` one-shot compression at the same level (a fresh frame per page, content size
//! written), and the page header arrow-rs wrote with only its `compressed_page_size` re-encoded.
//! At close the chunk's metadata gets what arrow-rs would have recorded: the codec, the total
//! compressed and uncompressed sizes (headers change length with that field), the dictionary
//! and data page offsets, and the offset index's page offsets and sizes. A chunk with a
//! dictionary page is spliced from here ([`ChunkPages`]), dictionary first: arrow-rs would move
//! its dictionary page ahead using the page's uncompressed length, which it keeps private. Row
//! groups are cut on the same sizes as before: a batch's size counts its column's pages as
//! compressed, and [`crate::encoder`] waits for those pages' compression before it reads that
//! size (on the caller's thread, never on an encoder thread). So a file's bytes are the same as
//! with arrow-rs compressing, whatever the thread count or timing (tests
//! `own_compression_writes_the_bytes_arrow_rs_writes`, `threads_do_not_change_the_bytes`).
//!
//! Only v1 files qualify: a v2 data page's header carries an `is_compressed` flag and only its
//! values are compressed.
//!
//! * [`store`] — the page store arrow-rs puts a planned column's pages into.
//! * [`chunk`] — one column chunk's pages as they are compressed, and its metadata at close.
//! * [`page_bytes`] — one page's bytes: Zstd as arrow-rs compresses, the rewritten header.
//! * [`splice`] — a chunk's compressed pages read as one buffer, for arrow-rs's splice.

mod chunk;
mod page_bytes;
mod splice;
mod store;

use parquet::basic::{Compression, Type as PhysicalType};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::SchemaDescriptor;

pub use self::chunk::CompressedChunk;
pub use self::splice::{ChunkPages, ChunkPagesRead};
pub use self::store::OwnCompressionPageStoreFactory;

/// How one leaf column's pages are compressed here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnPlan {
    /// The Zstd level.
    pub level: i32,
    /// As pool jobs (large text pages), or inline on the thread that encodes the column.
    pub on_pool: bool,
}

/// Chooses the leaf columns whose pages are compressed here, from the schema and the properties
/// only (never from timing): every column written with Zstd in a v1 file; on the pool, the
/// byte-array columns without a dictionary (text that a dictionary does not pay for, the large
/// ones). Returns the properties to build the column writers with (those columns uncompressed)
/// and, per leaf, how its pages are compressed.
pub fn plan(
    descriptor: &SchemaDescriptor,
    properties: WriterProperties,
) -> (WriterProperties, Vec<Option<ColumnPlan>>) {
    if properties.writer_version() != WriterVersion::PARQUET_1_0 {
        return (properties, vec![None; descriptor.num_columns()]);
    }
    let plans: Vec<Option<ColumnPlan>> = descriptor
        .columns()
        .iter()
        .map(|column| {
            let path = column.path();
            match properties.compression(path) {
                Compression::ZSTD(level) => Some(ColumnPlan {
                    level: level.compression_level(),
                    on_pool: column.physical_type() == PhysicalType::BYTE_ARRAY
                        && !properties.dictionary_enabled(path),
                }),
                _ => None,
            }
        })
        .collect();
    if plans.iter().all(Option::is_none) {
        return (properties, plans);
    }
    let mut builder = properties.into_builder();
    for (column, plan) in descriptor.columns().iter().zip(&plans) {
        if plan.is_some() {
            builder =
                builder.set_column_compression(column.path().clone(), Compression::UNCOMPRESSED);
        }
    }
    (builder.build(), plans)
}
