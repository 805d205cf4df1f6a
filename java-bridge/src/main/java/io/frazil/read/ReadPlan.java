package io.frazil.read;

import io.frazil.read.vector.UnsupportedReadException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.SystemConfigs;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.ParquetBloomRowGroupFilter;
import org.apache.iceberg.parquet.ParquetDictionaryRowGroupFilter;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;

/**
 * Which row groups and columns of a file a read takes, decided exactly as Iceberg's {@code
 * ReadConf} decides them, with Iceberg's own classes: the split is parquet-java's range filter on
 * the footer, row groups are dropped by Iceberg's metrics, dictionary and bloom-filter row-group
 * filters, and the projection is Iceberg's pruning by field id (after name mapping for files
 * without ids).
 */
final class ReadPlan {
  private static final String[] READ_PROPERTIES_TO_REMOVE = {
    "parquet.read.filter",
    "parquet.private.read.filter.predicate",
    "parquet.read.support.class",
    "parquet.crypto.factory.class"
  };

  /**
   * Codecs the native library decodes (arrow-rs with its lz4, brotli, snappy, flate2 and zstd
   * features); a projected column chunk in any other (LZO) sends the file to Iceberg's reader.
   */
  private static final Set<CompressionCodecName> NATIVE_CODECS =
      EnumSet.of(
          CompressionCodecName.UNCOMPRESSED,
          CompressionCodecName.SNAPPY,
          CompressionCodecName.GZIP,
          CompressionCodecName.LZ4,
          CompressionCodecName.LZ4_RAW,
          CompressionCodecName.ZSTD,
          CompressionCodecName.BROTLI);

  final MessageType projection;
  final List<BlockMetaData> rowGroups;

  /** The projection's leaf columns as indexes of the file's leaves (native code's numbering). */
  final int[] leaves;

  private ReadPlan(MessageType projection, List<BlockMetaData> rowGroups, int[] leaves) {
    this.projection = projection;
    this.rowGroups = rowGroups;
    this.leaves = leaves;
  }

  static ReadPlan plan(org.apache.iceberg.io.InputFile file, FileTail tail, ReadSettings settings)
      throws IOException, UnsupportedReadException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(new TailCachedInputFile(file, tail), options(file, settings))) {
      MessageType fileSchema = reader.getFileMetaData().getSchema();
      MessageType typeWithIds;
      MessageType projection;
      NameMapping mapping = mapping(settings);
      if (ParquetSchemaUtil.hasIds(fileSchema)) {
        typeWithIds = fileSchema;
        projection = ParquetSchemaUtil.pruneColumns(fileSchema, settings.projection);
      } else if (mapping != null) {
        typeWithIds = ParquetSchemaUtil.applyNameMapping(fileSchema, mapping);
        projection = ParquetSchemaUtil.pruneColumns(typeWithIds, settings.projection);
      } else {
        typeWithIds = ParquetSchemaUtil.addFallbackIds(fileSchema);
        projection = ParquetSchemaUtil.pruneColumnsFallback(fileSchema, settings.projection);
      }

      List<BlockMetaData> selected = new ArrayList<>();
      ParquetMetricsRowGroupFilter stats = null;
      ParquetDictionaryRowGroupFilter dictionaries = null;
      ParquetBloomRowGroupFilter blooms = null;
      if (settings.filter != null) {
        stats =
            new ParquetMetricsRowGroupFilter(
                settings.projection, settings.filter, settings.caseSensitive);
        dictionaries =
            new ParquetDictionaryRowGroupFilter(
                settings.projection, settings.filter, settings.caseSensitive);
        blooms =
            new ParquetBloomRowGroupFilter(
                settings.projection, settings.filter, settings.caseSensitive);
      }
      for (BlockMetaData rowGroup : reader.getRowGroups()) {
        boolean read =
            settings.filter == null
                || (stats.shouldRead(typeWithIds, rowGroup)
                    && dictionaries.shouldRead(
                        typeWithIds, rowGroup, reader.getDictionaryReader(rowGroup))
                    && blooms.shouldRead(
                        typeWithIds, rowGroup, reader.getBloomFilterDataReader(rowGroup)));
        if (read) {
          checkChunks(rowGroup, projection);
          selected.add(rowGroup);
        }
      }
      return new ReadPlan(projection, selected, leaves(fileSchema, projection));
    }
  }

  /**
   * Refuses a row group whose projected chunks the native decoder would not read as Iceberg does: a
   * codec it lacks, or v2 data pages that may carry no null count. parquet-java writes {@code
   * num_nulls = -1} into v2 page headers of a column whose statistics are off (Iceberg's {@code
   * write.parquet.stats-enabled.column.*}); Iceberg's reader ignores the field, arrow-rs refuses
   * the page. The footer cannot show the page headers, so any chunk without a null count that may
   * hold v2 pages goes to Iceberg's reader.
   */
  private static void checkChunks(BlockMetaData rowGroup, MessageType projection)
      throws UnsupportedReadException {
    for (ColumnChunkMetaData column : rowGroup.getColumns()) {
      if (!projection.containsPath(column.getPath().toArray())) {
        continue;
      }
      if (!NATIVE_CODECS.contains(column.getCodec())) {
        throw new UnsupportedReadException(
            "codec", column.getCodec() + " in column " + column.getPath().toDotString());
      }
      EncodingStats pages = column.getEncodingStats();
      boolean mayHoldV2Pages = pages == null || pages.usesV2Pages();
      boolean nullCountKnown =
          column.getStatistics() != null && column.getStatistics().isNumNullsSet();
      if (mayHoldV2Pages && !nullCountKnown) {
        throw new UnsupportedReadException(
            "v2PagesWithoutNullCounts",
            "column " + column.getPath().toDotString() + " has no statistics");
      }
    }
  }

  /** As Iceberg's {@code Parquet.ReadBuilder}: an empty mapping unless one is given. */
  private static NameMapping mapping(ReadSettings settings) {
    if (settings.nameMapping != null) {
      return settings.nameMapping;
    }
    return SystemConfigs.NETFLIX_UNSAFE_PARQUET_ID_FALLBACK_ENABLED.value()
        ? null
        : NameMapping.empty();
  }

  private static ParquetReadOptions options(
      org.apache.iceberg.io.InputFile file, ReadSettings settings) {
    ParquetReadOptions.Builder builder =
        file instanceof HadoopInputFile
            ? HadoopOptions.builder((HadoopInputFile) file)
            : ParquetReadOptions.builder(new PlainParquetConfiguration());
    for (Map.Entry<String, String> entry : settings.properties.entrySet()) {
      builder.set(entry.getKey(), entry.getValue());
    }
    if (settings.start != null) {
      builder.withRange(settings.start, settings.start + settings.length);
    }
    return builder.build();
  }

  /** Apart, so Hadoop's classes are needed only where a file is a Hadoop file. */
  private static final class HadoopOptions {
    static ParquetReadOptions.Builder builder(HadoopInputFile file) {
      // As Iceberg does: drop the configuration's read settings that conflict with this read.
      Configuration conf = new Configuration(file.getConf());
      for (String property : READ_PROPERTIES_TO_REMOVE) {
        conf.unset(property);
      }
      return HadoopReadOptions.builder(conf);
    }
  }

  private static int[] leaves(MessageType fileSchema, MessageType projection) {
    List<ColumnDescriptor> all = fileSchema.getColumns();
    List<ColumnDescriptor> wanted = projection.getColumns();
    int[] leaves = new int[wanted.size()];
    for (int i = 0; i < leaves.length; i++) {
      leaves[i] = indexOf(all, wanted.get(i).getPath());
    }
    return leaves;
  }

  private static int indexOf(List<ColumnDescriptor> columns, String[] path) {
    for (int i = 0; i < columns.size(); i++) {
      if (Arrays.equals(columns.get(i).getPath(), path)) {
        return i;
      }
    }
    throw new IllegalStateException("Projected column not in the file: " + String.join(".", path));
  }
}
