package org.apache.iceberg.flink.sink.dynamic;

import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The writer key the Dynamic Iceberg Sink gives a record ({@code HashKeyGenerator}, package-private
 * in Iceberg), for tests that compare Frazil's routing with the sink's own. Lives in Iceberg's
 * package only to reach that class; it is test code and never shipped.
 */
public final class StockDynamicSinkKeys {
  private final HashKeyGenerator generator;

  public StockDynamicSinkKeys(int maxWriteParallelism) {
    this.generator = new HashKeyGenerator(16, maxWriteParallelism);
  }

  /** The key of {@code row}, a record for {@code table} with these equality fields and mode. */
  public int key(
      TableIdentifier table,
      Schema schema,
      PartitionSpec spec,
      Set<String> equalityFields,
      DistributionMode mode,
      int writeParallelism,
      RowData row)
      throws Exception {
    DynamicRecord record =
        new DynamicRecord(table, "main", schema, row, spec, mode, writeParallelism);
    record.setEqualityFields(equalityFields);
    return generator.generateKey(record);
  }
}
