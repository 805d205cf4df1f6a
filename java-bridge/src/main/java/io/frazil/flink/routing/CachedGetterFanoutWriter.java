package io.frazil.flink.routing;

import org.apache.flink.table.data.RowData;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitionedFanoutWriter;

/**
 * Iceberg's append-only partitioned fan-out writer of the Flink sink, reading each row's partition
 * through a {@link CachedGetterRowDataWrapper}.
 *
 * <p>It is Iceberg's {@code PartitionedFanoutWriter} itself (one rolling writer per {@link
 * PartitionKey}, all open until {@code close()}), with the same partition function as Iceberg's
 * {@code RowDataPartitionedFanoutWriter}; only the row wrapper differs, and it returns the same
 * values. Used for partitioned specs the bucket memoizer does not take.
 */
final class CachedGetterFanoutWriter extends PartitionedFanoutWriter<RowData> {
  private final PartitionKey partitionKey;
  private final CachedGetterRowDataWrapper wrapper;

  private CachedGetterFanoutWriter(
      PartitionSpec spec,
      FileFormat format,
      FileWriterFactory<RowData> fileWriterFactory,
      OutputFileFactory fileFactory,
      FileIO io,
      long targetFileSize,
      Schema schema,
      CachedGetterRowDataWrapper wrapper) {
    super(spec, format, fileWriterFactory, fileFactory, io, targetFileSize);
    this.partitionKey = new PartitionKey(spec, schema);
    this.wrapper = wrapper;
  }

  /**
   * A writer with the settings of the Iceberg factory behind {@code stock}; throws when those
   * settings or Iceberg's row wrapper are not where Frazil expects them.
   */
  static CachedGetterFanoutWriter create(TaskWriterFactoryFields stock)
      throws ReflectiveOperationException {
    Schema schema = stock.schema();
    return new CachedGetterFanoutWriter(
        stock.spec(),
        stock.format(),
        stock.fileWriterFactory(),
        stock.outputFileFactory(),
        stock.table().io(),
        stock.targetFileSizeBytes(),
        schema,
        CachedGetterRowDataWrapper.create(stock.flinkSchema(), schema.asStruct()));
  }

  @Override
  protected PartitionKey partition(RowData row) {
    partitionKey.partition(wrapper.wrap(row));
    return partitionKey;
  }
}
