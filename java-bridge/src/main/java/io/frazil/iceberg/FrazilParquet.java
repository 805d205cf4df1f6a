package io.frazil.iceberg;

import java.util.Map;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;

/**
 * Entry point of the Java writer API, shaped like Iceberg's {@code Parquet.write(file)}:
 *
 * <pre>{@code
 * FileAppender<RowData> appender =
 *     FrazilParquet.write(outputFile)
 *         .schema(schema)
 *         .setAll(table.properties())
 *         .metricsConfig(MetricsConfig.forTable(table))
 *         .buildRowData();
 * }</pre>
 */
public final class FrazilParquet {
  /** Rows per Arrow batch handed to the native encoder. */
  public static final int DEFAULT_BATCH_ROWS = 8192;

  private FrazilParquet() {}

  public static WriteBuilder write(OutputFile file) {
    return new WriteBuilder(file);
  }

  /** Collects the settings of one data file. */
  public static final class WriteBuilder {
    private final OutputFile file;
    private final Map<String, String> properties = Maps.newHashMap();
    private Schema schema = null;
    private RowType flinkType = null;
    private MetricsConfig metricsConfig = MetricsConfig.getDefault();
    private boolean overwrite = false;
    private int batchRows = DEFAULT_BATCH_ROWS;
    private MemoryBudget budget = null;

    private WriteBuilder(OutputFile file) {
      this.file = Preconditions.checkNotNull(file, "Output file is required");
    }

    public WriteBuilder schema(Schema newSchema) {
      this.schema = newSchema;
      return this;
    }

    /** The Flink row type rows are read with (defaults to the converted Iceberg schema). */
    public WriteBuilder flinkType(RowType newFlinkType) {
      this.flinkType = newFlinkType;
      return this;
    }

    public WriteBuilder set(String key, String value) {
      properties.put(key, value);
      return this;
    }

    public WriteBuilder setAll(Map<String, String> newProperties) {
      properties.putAll(newProperties);
      return this;
    }

    public WriteBuilder metricsConfig(MetricsConfig newMetricsConfig) {
      this.metricsConfig = newMetricsConfig;
      return this;
    }

    public WriteBuilder overwrite() {
      return overwrite(true);
    }

    public WriteBuilder overwrite(boolean enabled) {
      this.overwrite = enabled;
      return this;
    }

    public WriteBuilder batchRows(int newBatchRows) {
      Preconditions.checkArgument(newBatchRows > 0, "Invalid batch size: %s", newBatchRows);
      this.batchRows = newBatchRows;
      return this;
    }

    /** Tests: a budget other than the process's. */
    WriteBuilder memoryBudget(MemoryBudget newBudget) {
      this.budget = newBudget;
      return this;
    }

    /** An appender of Flink rows. */
    public FrazilParquetAppender buildRowData() {
      Preconditions.checkArgument(schema != null, "Schema is required");
      RowType rowType = flinkType != null ? flinkType : FlinkSchemaUtil.convert(schema);
      return new FrazilParquetAppender(
          file,
          schema,
          rowType,
          Maps.newHashMap(properties),
          metricsConfig,
          overwrite,
          batchRows,
          budget());
    }

    /**
     * An appender of Arrow batches laid out as {@code IcebergArrowSchema.convert(schema)}; the
     * caller keeps ownership of each batch: {@code add} returns once native code has encoded it and
     * let go of it, so the root may be refilled or freed at once (no overlap with the encoder).
     */
    public FrazilArrowAppender buildArrow() {
      return buildArrow(false);
    }

    /**
     * An appender of Arrow batches laid out as {@code IcebergArrowSchema.convert(schema)} that
     * takes ownership of each batch: {@code add} transfers the root's buffers to the appender (no
     * copy) and leaves the root empty, and native code keeps encoding up to two batches after
     * {@code add} returns, as for RowData input. The buffers' root allocator must outlive the
     * appender. See {@link FrazilArrowAppender} for both contracts.
     */
    public FrazilArrowAppender buildArrowTakingOwnership() {
      return buildArrow(true);
    }

    private FrazilArrowAppender buildArrow(boolean takeOwnership) {
      Preconditions.checkArgument(schema != null, "Schema is required");
      return new FrazilArrowAppender(
          file,
          schema,
          Maps.newHashMap(properties),
          metricsConfig,
          overwrite,
          budget(),
          takeOwnership);
    }

    /** The budget this file's memory counts against; null when the table or process opts out. */
    private MemoryBudget budget() {
      if (budget != null) {
        return budget;
      }
      String enabled = properties.get(MemoryBudget.TABLE_PROPERTY);
      if (enabled != null && !Boolean.parseBoolean(enabled.trim())) {
        return null;
      }
      MemoryBudget process = MemoryBudget.process();
      return process.limitBytes() > 0 ? process : null;
    }
  }
}
