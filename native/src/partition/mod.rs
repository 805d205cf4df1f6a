//! Iceberg partition transforms over Arrow arrays, and the split of a batch by partition tuple
//! (issue 33, "Splitting by destination").
//!
//! * [`bucket`] — `bucket[N]`: Iceberg's Murmur3 over each type's canonical bytes.
//! * [`time`] — `year`/`month`/`day`/`hour` ordinals exactly as Iceberg's `DateTimeUtil`.
//! * [`transforms`] — every transform (identity, bucket, truncate, time, void) on an array.
//! * [`equality`] — Iceberg's equality-field key of each row, and rows regrouped by where it
//!   sends them.
//! * [`split`] — a batch's rows regrouped by partition tuple, with one key row per group.

pub mod bucket;
pub mod equality;
pub mod split;
pub mod time;
pub mod transforms;

pub use split::{split, Split, SplitField, SplitSpec};
pub use transforms::Transform;
