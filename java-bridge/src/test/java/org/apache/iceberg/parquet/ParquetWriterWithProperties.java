package org.apache.iceberg.parquet;

import java.io.IOException;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.data.FlinkParquetWriters;
import org.apache.iceberg.io.OutputFile;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;

/**
 * Iceberg's own Parquet file writer for Flink rows (its package-private {@link ParquetWriter} and
 * {@code FlinkParquetWriters}), given parquet-java's {@link ParquetProperties} directly: files with
 * the encodings Iceberg's table properties cannot ask for (byte-stream split, delta-length byte
 * arrays, a custom values-writer factory) but otherwise exactly Iceberg's (field ids, schema, list
 * and map layout). In this package only to reach that constructor.
 */
public final class ParquetWriterWithProperties {
  private ParquetWriterWithProperties() {}

  public static void write(
      OutputFile file,
      Schema schema,
      Iterable<RowData> rows,
      ParquetProperties properties,
      CompressionCodecName codec,
      long rowGroupBytes)
      throws IOException {
    MessageType type = ParquetSchemaUtil.convert(schema, "table");
    RowType rowType = FlinkSchemaUtil.convert(schema);
    ParquetWriter<RowData> writer =
        new ParquetWriter<>(
            new Configuration(),
            file,
            schema,
            type,
            rowGroupBytes,
            Map.of(),
            (icebergSchema, parquetType) -> FlinkParquetWriters.buildWriter(rowType, parquetType),
            codec,
            properties,
            MetricsConfig.getDefault(),
            ParquetFileWriter.Mode.OVERWRITE,
            null);
    try (writer) {
      for (RowData row : rows) {
        writer.add(row);
      }
    }
  }
}
