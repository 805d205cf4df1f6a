//! Writer settings: Iceberg's `write.parquet.*` table properties turned into arrow-rs
//! [`WriterProperties`] in one place, so reviewers can compare them side by side with
//! Iceberg's `Parquet.WriteBuilder`.

use std::collections::HashMap;

use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{
    EnabledStatistics, WriterProperties, WriterPropertiesBuilder, WriterVersion,
};
use parquet::schema::types::{ColumnPath, SchemaDescriptor};

use crate::error::{NativeError, Result};

/// `created_by` written into every footer: names Frazil (never parquet-mr, which would switch on
/// parquet-java's old-writer workarounds) in the `<app> version <v> (build <b>)` form that
/// parquet-java's `VersionParser` accepts.
pub const CREATED_BY: &str = concat!(
    "frazil version ",
    env!("CARGO_PKG_VERSION"),
    " (build parquet-rs 60.1.0)"
);

const ROW_GROUP_SIZE: &str = "write.parquet.row-group-size-bytes";
const PAGE_SIZE: &str = "write.parquet.page-size-bytes";
const PAGE_ROW_LIMIT: &str = "write.parquet.page-row-limit";
const DICT_SIZE: &str = "write.parquet.dict-size-bytes";
const PAGE_VERSION: &str = "write.parquet.page-version";
const CODEC: &str = "write.parquet.compression-codec";
const LEVEL: &str = "write.parquet.compression-level";
const BLOOM_MAX_BYTES: &str = "write.parquet.bloom-filter-max-bytes";
const BLOOM_ENABLED_PREFIX: &str = "write.parquet.bloom-filter-enabled.column.";
const BLOOM_FPP_PREFIX: &str = "write.parquet.bloom-filter-fpp.column.";
const BLOOM_NDV_PREFIX: &str = "write.parquet.bloom-filter-ndv.column.";
const STATS_ENABLED_PREFIX: &str = "write.parquet.stats-enabled.column.";
const PARQUET_ENABLE_DICTIONARY: &str = "parquet.enable.dictionary";

/// Iceberg's defaults (`TableProperties`), used when a property is absent.
const DEFAULT_ROW_GROUP_SIZE: usize = 128 * 1024 * 1024;
const DEFAULT_PAGE_SIZE: usize = 1024 * 1024;
const DEFAULT_PAGE_ROW_LIMIT: usize = 20_000;
const DEFAULT_DICT_SIZE: usize = 2 * 1024 * 1024;
const DEFAULT_ZSTD_LEVEL: i32 = 3;
const DEFAULT_BLOOM_FPP: f64 = 0.01;

/// Everything a writer needs besides the schema, parsed from string properties.
#[derive(Debug, Clone)]
pub struct WriterOptions {
    properties: HashMap<String, String>,
    iceberg_schema_json: Option<String>,
}

impl WriterOptions {
    /// Options from Iceberg table/writer properties (unrelated keys are ignored).
    pub fn from_properties(properties: HashMap<String, String>) -> Self {
        Self {
            properties,
            iceberg_schema_json: None,
        }
    }

    /// Sets the `iceberg.schema` footer entry (Java's `SchemaParser.toJson` of the write schema).
    pub fn with_iceberg_schema_json(mut self, json: impl Into<String>) -> Self {
        self.iceberg_schema_json = Some(json.into());
        self
    }

    /// Target row-group size (`write.parquet.row-group-size-bytes`).
    pub fn row_group_bytes(&self) -> Result<usize> {
        self.usize_prop(ROW_GROUP_SIZE, DEFAULT_ROW_GROUP_SIZE)
    }

    /// Rows per data page (`write.parquet.page-row-limit`); parquet-java decides on dictionary
    /// encoding when its first page is full, so Frazil decides on this many rows too.
    pub fn page_row_limit(&self) -> Result<usize> {
        self.usize_prop(PAGE_ROW_LIMIT, DEFAULT_PAGE_ROW_LIMIT)
    }

    /// Target bytes per data page (`write.parquet.page-size-bytes`); parquet-java's first page,
    /// and so its dictionary decision, also ends when one column holds this many bytes.
    pub fn page_size_bytes(&self) -> Result<usize> {
        self.usize_prop(PAGE_SIZE, DEFAULT_PAGE_SIZE)
    }

    fn usize_prop(&self, key: &str, default: usize) -> Result<usize> {
        match self.properties.get(key) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    NativeError::InvalidArgument(format!(
                        "{key} must be a positive integer, got '{v}'"
                    ))
                }),
        }
    }

    fn compression(&self) -> Result<Compression> {
        let codec = self
            .properties
            .get(CODEC)
            .map(|c| c.trim().to_ascii_lowercase())
            .unwrap_or_else(|| "zstd".to_string());
        let level = match self.properties.get(LEVEL).map(|l| l.trim()) {
            None | Some("") => None,
            Some(l) => Some(l.parse::<i32>().map_err(|_| {
                NativeError::InvalidArgument(format!("{LEVEL} must be an integer, got '{l}'"))
            })?),
        };
        match codec.as_str() {
            "zstd" => {
                let level = ZstdLevel::try_new(level.unwrap_or(DEFAULT_ZSTD_LEVEL))
                    .map_err(|e| NativeError::parquet(format!("setting {LEVEL}"), e))?;
                Ok(Compression::ZSTD(level))
            }
            "uncompressed" | "none" => Ok(Compression::UNCOMPRESSED),
            "gzip" => {
                // parquet-java's gzip (Hadoop's zlib codec) uses zlib's default level, 6.
                let level = u32::try_from(level.unwrap_or(6)).map_err(|_| {
                    NativeError::InvalidArgument(format!("{LEVEL} for gzip must be 0..=9"))
                })?;
                let level = GzipLevel::try_new(level)
                    .map_err(|e| NativeError::parquet(format!("setting {LEVEL}"), e))?;
                Ok(Compression::GZIP(level))
            }
            "snappy" => Ok(Compression::SNAPPY),
            other => Err(NativeError::Unsupported(format!(
                "{CODEC}={other} (supported: zstd, gzip, snappy, uncompressed)"
            ))),
        }
    }

    fn writer_version(&self) -> Result<WriterVersion> {
        match self.properties.get(PAGE_VERSION).map(|v| v.trim()) {
            None | Some("v1") | Some("V1") => Ok(WriterVersion::PARQUET_1_0),
            Some("v2") | Some("V2") => Ok(WriterVersion::PARQUET_2_0),
            Some(other) => Err(NativeError::InvalidArgument(format!(
                "{PAGE_VERSION} must be v1 or v2, got '{other}'"
            ))),
        }
    }

    /// Builds the arrow-rs properties for a file with the given Parquet schema; `no_dictionary`
    /// lists leaf columns to write without a dictionary (see [`crate::dictionary`]).
    pub fn to_writer_properties(
        &self,
        schema: &SchemaDescriptor,
        no_dictionary: &[ColumnPath],
    ) -> Result<WriterProperties> {
        let mut builder = WriterProperties::builder()
            .set_created_by(CREATED_BY.to_string())
            .set_compression(self.compression()?)
            .set_writer_version(self.writer_version()?)
            .set_max_row_group_bytes(Some(
                self.usize_prop(ROW_GROUP_SIZE, DEFAULT_ROW_GROUP_SIZE)?,
            ))
            // Iceberg cuts row groups by bytes only; lift arrow-rs's 1 Mi-row default.
            .set_max_row_group_row_count(None)
            .set_data_page_size_limit(self.page_size_bytes()?)
            .set_data_page_row_count_limit(self.usize_prop(PAGE_ROW_LIMIT, DEFAULT_PAGE_ROW_LIMIT)?)
            .set_dictionary_page_size_limit(self.usize_prop(DICT_SIZE, DEFAULT_DICT_SIZE)?)
            .set_statistics_enabled(EnabledStatistics::Page)
            // Iceberg metrics are computed from untruncated chunk statistics.
            .set_statistics_truncate_length(None)
            .set_column_index_truncate_length(Some(64));

        if let Some(json) = &self.iceberg_schema_json {
            builder = builder.set_key_value_metadata(Some(vec![KeyValue::new(
                "iceberg.schema".to_string(),
                json.clone(),
            )]));
        }
        if let Some(v) = self.properties.get(PARQUET_ENABLE_DICTIONARY) {
            builder = builder.set_dictionary_enabled(java_bool(v));
        }
        for path in no_dictionary {
            builder = builder.set_column_dictionary_enabled(path.clone(), false);
        }
        builder = self.apply_column_properties(builder, schema)?;
        Ok(builder.build())
    }

    fn apply_column_properties(
        &self,
        mut builder: WriterPropertiesBuilder,
        schema: &SchemaDescriptor,
    ) -> Result<WriterPropertiesBuilder> {
        let bloom_max_bytes = self.usize_prop(BLOOM_MAX_BYTES, 1024 * 1024)?;
        let mut keys: Vec<&String> = self.properties.keys().collect();
        keys.sort();
        for key in keys {
            let value = &self.properties[key];
            if let Some(column) = key.strip_prefix(STATS_ENABLED_PREFIX) {
                // Like Iceberg Java: a column that is not in the schema is skipped.
                let Some(path) = column_path(schema, column) else {
                    continue;
                };
                let level = if java_bool(value) {
                    EnabledStatistics::Page
                } else {
                    EnabledStatistics::None
                };
                builder = builder.set_column_statistics_enabled(path, level);
            } else if let Some(column) = key.strip_prefix(BLOOM_ENABLED_PREFIX) {
                let Some(path) = column_path(schema, column) else {
                    continue;
                };
                if java_bool(value) {
                    let fpp = match self.properties.get(&format!("{BLOOM_FPP_PREFIX}{column}")) {
                        Some(f) => f
                            .trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|f| *f > 0.0 && *f < 1.0)
                            .ok_or_else(|| {
                                NativeError::InvalidArgument(format!(
                                    "{BLOOM_FPP_PREFIX}{column} must be in (0, 1), got '{f}'"
                                ))
                            })?,
                        None => DEFAULT_BLOOM_FPP,
                    };
                    // Size the filter like parquet-java: from the NDV when given, else as large
                    // as the byte cap allows; arrow-rs folds it down after the values are in.
                    let ndv = match self.properties.get(&format!("{BLOOM_NDV_PREFIX}{column}")) {
                        Some(n) => n.trim().parse::<u64>().map_err(|_| {
                            NativeError::InvalidArgument(format!(
                                "{BLOOM_NDV_PREFIX}{column} must be an integer, got '{n}'"
                            ))
                        })?,
                        None => ndv_for_bytes(bloom_max_bytes, fpp),
                    };
                    let ndv = ndv.min(ndv_for_bytes(bloom_max_bytes, fpp)).max(1);
                    builder = builder
                        .set_column_bloom_filter_enabled(path.clone(), true)
                        .set_column_bloom_filter_fpp(path.clone(), fpp)
                        .set_column_bloom_filter_max_ndv(path, ndv);
                }
            }
        }
        Ok(builder)
    }
}

/// The number of distinct values a split-block bloom filter of `bytes` holds at `fpp`
/// (inverse of the sizing formula both parquet-java and arrow-rs use).
fn ndv_for_bytes(bytes: usize, fpp: f64) -> u64 {
    let bits = (bytes as f64) * 8.0;
    let ndv = -bits * (1.0 - fpp.powf(1.0 / 8.0)).ln() / 8.0;
    ndv.max(1.0) as u64
}

/// `Boolean.valueOf` semantics, as Iceberg Java reads per-column switches: only "true"
/// (any case) is true.
fn java_bool(value: &str) -> bool {
    value.trim().eq_ignore_ascii_case("true")
}

/// Maps an Iceberg dotted column name (`tags.element`, `m.key`, `s.a`) to the Parquet leaf
/// path (`tags.list.element`, `m.key_value.key`, `s.a`) by dropping the synthetic repeated
/// groups that Iceberg names do not contain; `None` when no leaf has that name.
fn column_path(schema: &SchemaDescriptor, iceberg_name: &str) -> Option<ColumnPath> {
    for column in schema.columns() {
        let parts = column.path().parts();
        let iceberg: Vec<&str> = parts
            .iter()
            .map(String::as_str)
            .filter(|p| *p != "list" && *p != "key_value")
            .collect();
        if iceberg.join(".") == iceberg_name {
            return Some(column.path().clone());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zstd_level_three_is_the_default() {
        let opts = WriterOptions::from_properties(HashMap::new());
        assert_eq!(
            opts.compression().unwrap(),
            Compression::ZSTD(ZstdLevel::try_new(3).unwrap())
        );
    }

    #[test]
    fn explicit_level_wins() {
        let props = HashMap::from([(LEVEL.to_string(), "9".to_string())]);
        let opts = WriterOptions::from_properties(props);
        assert_eq!(
            opts.compression().unwrap(),
            Compression::ZSTD(ZstdLevel::try_new(9).unwrap())
        );
    }

    #[test]
    fn unknown_codec_is_unsupported() {
        let props = HashMap::from([(CODEC.to_string(), "brotli".to_string())]);
        let err = WriterOptions::from_properties(props)
            .compression()
            .unwrap_err();
        assert!(matches!(err, NativeError::Unsupported(_)), "{err}");
    }

    #[test]
    fn bad_page_version_is_rejected() {
        let props = HashMap::from([(PAGE_VERSION.to_string(), "v3".to_string())]);
        let err = WriterOptions::from_properties(props)
            .writer_version()
            .unwrap_err();
        assert!(err.to_string().contains("v1 or v2"), "{err}");
    }
}
