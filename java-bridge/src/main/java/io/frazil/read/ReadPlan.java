package io.frazil.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
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
      throws IOException {
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
          selected.add(rowGroup);
        }
      }
      return new ReadPlan(projection, selected, leaves(fileSchema, projection));
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
    ParquetReadOptions.Builder builder;
    if (file instanceof HadoopInputFile) {
      // As Iceberg does: drop read settings of the job's configuration that conflict with this
      // read.
      Configuration conf = new Configuration(((HadoopInputFile) file).getConf());
      for (String property : READ_PROPERTIES_TO_REMOVE) {
        conf.unset(property);
      }
      builder = HadoopReadOptions.builder(conf);
    } else {
      builder = ParquetReadOptions.builder(new PlainParquetConfiguration());
    }
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
