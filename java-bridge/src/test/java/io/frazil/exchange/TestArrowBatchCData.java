package io.frazil.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.iceberg.ArrowMemory;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ArrowBatch#importCData} and {@link ArrowBatch#exportCData}: batches handed to and from
 * code with its own Arrow allocator through the C Data Interface (what a job compiled against its
 * own Arrow does with the relocated runtime jar) keep every value, share buffers instead of copying
 * them, stay readable after the other side let go, and give all memory back to both sides.
 */
public class TestArrowBatchCData {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(18, 3)));
  private static final ArrowRowLayout LAYOUT = ArrowRowLayout.appendOnly(SCHEMA);

  /** The job's own allocator: another root than Frazil's. */
  private BufferAllocator job;

  private long exchangeBefore;

  @BeforeEach
  public void open() {
    job = new RootAllocator();
    exchangeBefore = ArrowMemory.exchangeAllocator().getAllocatedMemory();
  }

  @AfterEach
  public void close() {
    assertThat(job.getAllocatedMemory()).as("the job's Arrow memory left").isZero();
    job.close();
    assertThat(ArrowMemory.exchangeAllocator().getAllocatedMemory())
        .as("exchange memory left")
        .isEqualTo(exchangeBefore);
  }

  @Test
  public void theLayoutsSchemaSurvivesItsJson() throws Exception {
    assertThat(org.apache.arrow.vector.types.pojo.Schema.fromJSON(LAYOUT.arrowSchemaJson()))
        .isEqualTo(LAYOUT.arrowSchema());
  }

  @Test
  public void anImportedBatchHoldsTheJobsRowsAfterTheJobReleasedThem() {
    List<RowData> rows = rows(1_000);
    ArrowBatch imported;
    VectorSchemaRoot jobRoot = jobRoot(rows);
    try (ArrowArray array = ArrowArray.allocateNew(job);
        ArrowSchema schema = ArrowSchema.allocateNew(job)) {
      Data.exportVectorSchemaRoot(job, jobRoot, null, array, schema);
      imported = ArrowBatch.importCData(array.memoryAddress(), schema.memoryAddress());
      assertThat(array.snapshot().release).as("the array struct was taken").isZero();
    }
    long shared = job.getAllocatedMemory();
    jobRoot.close();
    assertThat(job.getAllocatedMemory())
        .as("the job's buffers stay alive for the batch, not copied")
        .isEqualTo(shared)
        .isPositive();
    try (ArrowBatch expected = ArrowBatches.of(SCHEMA, rows)) {
      assertThat(imported.schema()).isEqualTo(LAYOUT.arrowSchema());
      assertThat(imported.contentEquals(expected)).isTrue();
      // A copy of an imported batch shares its buffers too (they are the exchange allocator's).
      try (ArrowBatch copy = imported.copy()) {
        assertThat(copy.contentEquals(expected)).isTrue();
      }
    }
    imported.close();
  }

  @Test
  public void anExportedBatchIsReadableByTheJobAfterFrazilReleasedIt() {
    List<RowData> rows = rows(700);
    VectorSchemaRoot received;
    try (ArrowBatch batch = ArrowBatches.of(SCHEMA, rows);
        ArrowArray array = ArrowArray.allocateNew(job);
        ArrowSchema schema = ArrowSchema.allocateNew(job)) {
      batch.exportCData(array.memoryAddress(), schema.memoryAddress());
      received = Data.importVectorSchemaRoot(job, array, schema, null);
    }
    try (VectorSchemaRoot expected = jobRoot(rows)) {
      assertThat(received.getSchema()).isEqualTo(LAYOUT.arrowSchema());
      assertThat(received.equals(expected)).as("values after the batch was closed").isTrue();
    } finally {
      received.close();
    }
  }

  @Test
  public void badHandOversFailByNameAndLeaveNothing() {
    assertThatThrownBy(() -> ArrowBatch.importCData(0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("address 0");
    // A struct already taken (released): refused, nothing imported.
    try (VectorSchemaRoot jobRoot = jobRoot(rows(10));
        ArrowArray array = ArrowArray.allocateNew(job);
        ArrowSchema schema = ArrowSchema.allocateNew(job)) {
      Data.exportVectorSchemaRoot(job, jobRoot, null, array, schema);
      ArrowBatch.importCData(array.memoryAddress(), schema.memoryAddress()).close();
      assertThatThrownBy(
              () -> ArrowBatch.importCData(array.memoryAddress(), schema.memoryAddress()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Cannot import an ArrowBatch from C Data");
    }
    ArrowBatch released = ArrowBatches.of(SCHEMA, rows(3));
    released.close();
    assertThatThrownBy(() -> released.exportCData(1, 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("released");
  }

  private VectorSchemaRoot jobRoot(List<RowData> rows) {
    RowDataArrowWriter writer =
        new RowDataArrowWriter(SCHEMA, FlinkSchemaUtil.convert(SCHEMA), job);
    rows.forEach(writer::write);
    writer.finishBatch();
    return writer.root(); // the root holds the writer's vectors; the writer nothing else
  }

  private static List<RowData> rows(int count) {
    List<RowData> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      rows.add(
          GenericRowData.of(
              (long) i,
              i % 7 == 0 ? null : StringData.fromString("name " + i),
              i % 5 == 0 ? null : DecimalData.fromBigDecimal(BigDecimal.valueOf(i, 3), 18, 3)));
    }
    return rows;
  }
}
