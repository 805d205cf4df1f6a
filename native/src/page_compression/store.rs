//! The page store arrow-rs puts a planned column's pages into: it pairs each page's header with
//! its data, hands the page to its [`CompressedChunk`] to compress (inline, or as a pool job),
//! and at the splice hands back the compressed bytes in place of what arrow-rs put.
//!
//! arrow-rs puts a page as two blobs, header then data, and takes them back by the keys `put`
//! returned: page *k*'s header is key *2k*, its data *2k + 1*. Taking a blob waits until the page
//! is compressed (the caller's thread, at the row-group close). Every page taken goes through the
//! store the sink made (`inner`), so the output can take it over without copying it.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use parquet::arrow::arrow_writer::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};
use parquet::errors::ParquetError;

use super::chunk::CompressedChunk;
use super::page_bytes::{page_type, DATA_PAGE, DICTIONARY_PAGE};
use super::ColumnPlan;

/// Creates an [`OwnCompressionPageStore`] for the planned columns (around the store `inner`
/// makes, so a sink's page hand-over keeps working) and `inner`'s own store for the others.
pub struct OwnCompressionPageStoreFactory {
    inner: Arc<dyn PageStoreFactory>,
    /// Per leaf column: how its pages are compressed, when here.
    plans: Vec<Option<ColumnPlan>>,
    /// Compress every page on the thread that puts it (a one-thread encoder), none on the pool.
    inline: AtomicBool,
    /// The chunks created since [`Self::take_created`], by leaf column.
    created: Mutex<HashMap<usize, Arc<CompressedChunk>>>,
}

impl fmt::Debug for OwnCompressionPageStoreFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnCompressionPageStoreFactory")
            .field("plans", &self.plans)
            .field("inline", &self.inline)
            .finish_non_exhaustive()
    }
}

impl OwnCompressionPageStoreFactory {
    pub fn new(inner: Arc<dyn PageStoreFactory>, plans: Vec<Option<ColumnPlan>>) -> Self {
        Self {
            inner,
            plans,
            inline: AtomicBool::new(false),
            created: Mutex::new(HashMap::new()),
        }
    }

    /// Whether the chunks created from now on compress on the thread that puts each page.
    pub fn set_inline(&self, inline: bool) {
        self.inline.store(inline, Ordering::Relaxed);
    }

    /// The compressed chunks of the column writers created since the last call, by leaf column.
    pub fn take_created(&self) -> HashMap<usize, Arc<CompressedChunk>> {
        std::mem::take(&mut *self.created.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl PageStoreFactory for OwnCompressionPageStoreFactory {
    fn create(&self, args: &PageStoreArgs<'_>) -> parquet::errors::Result<Box<dyn PageStore>> {
        let inner = self.inner.create(args)?;
        let Some(plan) = self.plans.get(args.column_index()).copied().flatten() else {
            return Ok(inner);
        };
        let chunk = Arc::new(CompressedChunk::new(
            plan.level,
            self.inline.load(Ordering::Relaxed) || !plan.on_pool,
        ));
        self.created
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(args.column_index(), Arc::clone(&chunk));
        Ok(Box::new(OwnCompressionPageStore {
            chunk,
            inner,
            header: None,
        }))
    }
}

/// A planned column's page store: compresses each page as it arrives (inline or as a pool job),
/// and hands back the compressed page (through the `inner` store, so the output can
/// take the page over without copying it).
struct OwnCompressionPageStore {
    chunk: Arc<CompressedChunk>,
    inner: Box<dyn PageStore>,
    /// The header of the page whose data comes next (arrow-rs puts header, then data), and
    /// whether it is the dictionary page's.
    header: Option<(Bytes, bool)>,
}

impl PageStore for OwnCompressionPageStore {
    fn put(&mut self, value: Bytes) -> parquet::errors::Result<PageKey> {
        let Some((header, is_dictionary)) = self.header.take() else {
            let is_dictionary = match page_type(&value) {
                Some(DATA_PAGE) => false,
                Some(DICTIONARY_PAGE) => true,
                _ => {
                    return Err(ParquetError::General(
                        "Frazil compresses v1 data and dictionary pages only".into(),
                    ))
                }
            };
            let index = self.chunk.pages();
            self.header = Some((value, is_dictionary));
            return Ok(PageKey::new(2 * index as u64));
        };
        let index = self.chunk.put(header, value, is_dictionary)?;
        Ok(PageKey::new(2 * index as u64 + 1))
    }

    fn take(&mut self, key: PageKey) -> parquet::errors::Result<Bytes> {
        let index = usize::try_from(key.get() / 2)
            .map_err(|_| ParquetError::General(format!("invalid page key {}", key.get())))?;
        let is_data = key.get() % 2 == 1;
        let pages = index + 1;
        if self.chunk.pages() < pages {
            return Err(ParquetError::General(format!(
                "invalid page key {}",
                key.get()
            )));
        }
        let blob = self
            .chunk
            .take_blob(index, is_data)
            .ok_or_else(|| ParquetError::General(format!("page {index} is not available")))?;
        // Through the inner store, which may arrange for the output to keep this very page.
        let key = self.inner.put(blob)?;
        self.inner.take(key)
    }

    fn memory_size(&self) -> usize {
        // Pages count uncompressed until the row group closes, whatever the jobs did: the
        // encoder reads this right after a batch, and it must not depend on timing.
        self.chunk.uncompressed_resident()
    }
}
