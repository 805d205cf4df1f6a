package io.frazil.testkit;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.data.FlinkParquetWriters;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;

/** Stock Iceberg's Parquet writer and reader for Flink rows: the parity oracle. */
public final class StockParquet {
  private StockParquet() {}

  /** Iceberg's own Parquet appender for Flink rows ({@code FlinkParquetWriters}). */
  public static FileAppender<RowData> appender(
      OutputFile file, Schema schema, Map<String, String> props, MetricsConfig config)
      throws IOException {
    RowType rowType = FlinkSchemaUtil.convert(schema);
    return Parquet.write(file)
        .schema(schema)
        .createWriterFunc(msgType -> FlinkParquetWriters.buildWriter(rowType, msgType))
        .setAll(props)
        .metricsConfig(config)
        .overwrite()
        .build();
  }

  /** Every record of a Parquet data file, read with Iceberg's generic reader. */
  public static List<Record> read(InputFile file, Schema schema) throws IOException {
    try (CloseableIterable<Record> records =
        Parquet.read(file)
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      return Lists.newArrayList(records);
    }
  }
}
