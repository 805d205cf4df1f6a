package io.frazil.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.iceberg.ArrowMemory;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/** Test batches: Flink rows converted by the writer's own {@link RowDataArrowWriter}. */
final class ArrowBatches {
  private ArrowBatches() {}

  /** One batch of {@code rows}, owned by the caller, in the exchange allocator. */
  static ArrowBatch of(Schema schema, List<RowData> rows) {
    RowDataArrowWriter writer =
        new RowDataArrowWriter(
            schema, FlinkSchemaUtil.convert(schema), ArrowMemory.exchangeAllocator());
    try {
      rows.forEach(writer::write);
      writer.finishBatch();
    } catch (RuntimeException e) {
      writer.close();
      throw e;
    }
    // The batch owns the writer's vectors (the writer holds nothing else).
    return ArrowBatch.of(writer.root());
  }

  /** {@code batch} written by {@code serializer} as Flink's network stack would. */
  static byte[] serialize(ArrowBatchSerializer serializer, ArrowBatch batch) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(1024);
    serializer.serialize(batch, out);
    return out.getCopyOfBuffer();
  }

  static ArrowBatch deserialize(ArrowBatchSerializer serializer, byte[] record) throws Exception {
    DataInputDeserializer in = new DataInputDeserializer(record);
    ArrowBatch batch = serializer.deserialize(in);
    assertThat(in.available()).as("bytes left after the record").isZero();
    return batch;
  }

  /**
   * Waits (bounded: 5 s) for the cleaner to release unreachable batches, so that no batch from an
   * earlier check is counted against the next one.
   */
  static void awaitUnreachableReleased(long expectedLive) throws InterruptedException {
    for (int i = 0; i < 100; i += 1) {
      if (ArrowBatch.liveBatches() == expectedLive && ArrowMemory.allocatedBytes() == 0) {
        return;
      }
      System.gc();
      Thread.sleep(50);
    }
  }
}
