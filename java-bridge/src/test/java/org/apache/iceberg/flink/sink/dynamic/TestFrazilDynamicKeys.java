package org.apache.iceberg.flink.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The Dynamic Iceberg Sink's writer keys with Frazil's selector cache equal Iceberg's, row by row:
 * hash distribution by partition (memoized for bucket-only specs), by equality fields and round
 * robin (left to Iceberg).
 */
public class TestFrazilDynamicKeys {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "data", Types.StringType.get())),
          Set.of(1));
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "keys");

  private static DynamicRecord record(
      RowData row, PartitionSpec spec, DistributionMode mode, boolean equality) {
    DynamicRecord record = new DynamicRecord(TABLE, "main", SCHEMA, row, spec, mode, 3);
    if (equality) {
      record.setEqualityFields(Set.of("id", "data"));
    }
    return record;
  }

  @Test
  public void writerKeysEqualIcebergs() throws Exception {
    PartitionSpec bucket =
        PartitionSpec.builderFor(SCHEMA).bucket("id", 4).bucket("data", 3).build();
    PartitionSpec identity = PartitionSpec.builderFor(SCHEMA).identity("data").build();
    PartitionSpec tooLarge = PartitionSpec.builderFor(SCHEMA).bucket("id", 2000).build();
    HashKeyGenerator stock = new HashKeyGenerator(100, 128);
    HashKeyGenerator frazil = new HashKeyGenerator(100, 128);
    long before = FrazilDynamicRouting.memoizedKeySelectors();
    FrazilDynamicRouting.memoizeKeys(frazil);

    Random random = new Random(11);
    for (int i = 0; i < 20_000; i += 1) {
      RowData row =
          GenericRowData.of(
              random.nextLong(),
              random.nextInt(10) == 0 ? null : StringData.fromString("d" + random.nextInt(50)));
      for (PartitionSpec spec : List.of(bucket, identity, tooLarge)) {
        for (boolean equality : new boolean[] {false, true}) {
          DynamicRecord hashed = record(row, spec, DistributionMode.HASH, equality);
          assertThat(frazil.generateKey(hashed))
              .as("row %d, %s, equality %s", i, spec, equality)
              .isEqualTo(stock.generateKey(hashed));
        }
      }
    }
    // Only the bucket spec's partition selector (with and without equality fields) is memoized.
    assertThat(FrazilDynamicRouting.memoizedKeySelectors() - before).isEqualTo(2);
  }
}
