package io.frazil.iceberg;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.testkit.StockParquet;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.io.FileAppender;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Writes the same rows with stock Iceberg and with Frazil, and reads files back: the file-level
 * parity harness of java-bridge's tests and of the validation tool's file-level group (which gets
 * it from this module's test jar: it needs Frazil's appender, so it cannot live in testkit, which
 * java-bridge's tests depend on).
 */
public final class ParityHarness {
  private ParityHarness() {}

  /** What one writer produced. */
  public static final class Written {
    public final File file;
    public final Metrics metrics;
    public final List<Long> splitOffsets;
    public final long length;

    Written(File file, Metrics metrics, List<Long> splitOffsets, long length) {
      this.file = file;
      this.metrics = metrics;
      this.splitOffsets = splitOffsets;
      this.length = length;
    }
  }

  public static Written writeStock(
      File file, Schema schema, List<RowData> rows, Map<String, String> props, MetricsConfig config)
      throws IOException {
    return finish(
        file, StockParquet.appender(Files.localOutput(file), schema, props, config), rows);
  }

  public static Written writeFrazil(
      File file, Schema schema, List<RowData> rows, Map<String, String> props, MetricsConfig config)
      throws IOException {
    return writeFrazil(file, schema, rows, props, config, 1000);
  }

  public static Written writeFrazil(
      File file,
      Schema schema,
      List<RowData> rows,
      Map<String, String> props,
      MetricsConfig config,
      int batchRows)
      throws IOException {
    FrazilParquetAppender appender =
        FrazilParquet.write(Files.localOutput(file))
            .schema(schema)
            .setAll(props)
            .metricsConfig(config)
            .overwrite()
            .batchRows(batchRows)
            .buildRowData();
    return finish(file, appender, rows);
  }

  /**
   * Frazil's Arrow appender, fed the rows as Arrow batches of {@code batchRows} rows built by one
   * reused {@link RowDataArrowWriter}: refilled in place after each {@code add} under the caller's
   * contract, and given new buffers ({@code allocateNew}) after {@code add} emptied it when {@code
   * takeOwnership}. The batches' allocator must hold nothing once the writer is closed (else its
   * close fails the write).
   */
  public static Written writeFrazilArrow(
      File file,
      Schema schema,
      List<RowData> rows,
      Map<String, String> props,
      MetricsConfig config,
      int batchRows,
      boolean takeOwnership)
      throws IOException {
    FrazilParquet.WriteBuilder builder =
        FrazilParquet.write(Files.localOutput(file))
            .schema(schema)
            .setAll(props)
            .metricsConfig(config)
            .overwrite();
    FrazilArrowAppender appender =
        takeOwnership ? builder.buildArrowTakingOwnership() : builder.buildArrow();
    try (BufferAllocator allocator = new RootAllocator();
        RowDataArrowWriter batch =
            new RowDataArrowWriter(schema, FlinkSchemaUtil.convert(schema), allocator)) {
      try (FileAppender<VectorSchemaRoot> closing = appender) {
        for (int start = 0; start < rows.size(); start += batchRows) {
          batch.reset();
          for (RowData row : rows.subList(start, Math.min(rows.size(), start + batchRows))) {
            batch.write(row);
          }
          batch.finishBatch();
          closing.add(batch.root());
          if (takeOwnership) {
            // Arrow's rule after a transfer: allocate before refilling.
            batch.root().allocateNew();
          }
        }
      }
    }
    return new Written(file, appender.metrics(), appender.splitOffsets(), appender.length());
  }

  private static Written finish(File file, FileAppender<RowData> appender, List<RowData> rows)
      throws IOException {
    try (FileAppender<RowData> closing = appender) {
      for (RowData row : rows) {
        closing.add(row);
      }
    }
    return new Written(file, appender.metrics(), appender.splitOffsets(), appender.length());
  }

  public static List<Record> read(File file, Schema schema) throws IOException {
    return StockParquet.read(Files.localInput(file), schema);
  }

  public static ParquetMetadata footer(File file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new Path(file.getAbsolutePath()), new Configuration()))) {
      return reader.getFooter();
    }
  }
}
