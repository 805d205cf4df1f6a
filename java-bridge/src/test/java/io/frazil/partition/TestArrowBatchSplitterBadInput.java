package io.frazil.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.exchange.ArrowBatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link ArrowBatchSplitter} does with specs and batches it cannot split: a named exception
 * (the caller falls back to the Java key selector), the input batch left as it was, no Arrow memory
 * left.
 */
public class TestArrowBatchSplitterBadInput {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(2, "s", Types.StringType.get()));

  private BufferAllocator allocator;

  @BeforeEach
  public void openAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  public void closeAllocator() {
    assertThat(allocator.getAllocatedMemory()).as("Arrow memory left").isZero();
    allocator.close();
  }

  @Test
  public void aTransformIcebergDoesNotKnowIsUnsupported() {
    PartitionSpec spec =
        PartitionSpecParser.fromJson(
            SCHEMA,
            "{\"spec-id\": 0, \"fields\": [{\"name\": \"z\", \"transform\": \"zorder\","
                + " \"source-id\": 2, \"field-id\": 1000}]}");
    assertThatThrownBy(
            () ->
                new ArrowBatchSplitter(spec, SCHEMA, IcebergArrowSchema.convert(SCHEMA), allocator))
        .isInstanceOf(UnsupportedSplitException.class)
        .hasMessageContaining("'z'")
        .hasMessageContaining("zorder");
  }

  @Test
  public void aSourceMissingFromTheArrowSchemaIsUnsupported() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("s").build();
    org.apache.arrow.vector.types.pojo.Schema withoutIds =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    assertThatThrownBy(() -> new ArrowBatchSplitter(spec, SCHEMA, withoutIds, allocator))
        .isInstanceOf(UnsupportedSplitException.class)
        .hasMessageContaining("not reachable");
  }

  @Test
  public void aColumnOfAnotherTypeThanTheSpecSaysFailsNamedAndLeavesTheBatch() {
    // The Arrow column with field id 1 holds strings, while the Iceberg schema says timestamp:
    // the Java checks pass, the native transform rejects the Arrow type.
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).day("ts").build();
    org.apache.arrow.vector.types.pojo.Schema forged =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(
                new Field(
                    "ts",
                    new FieldType(
                        true,
                        ArrowType.Utf8.INSTANCE,
                        null,
                        Map.of(IcebergArrowSchema.FIELD_ID_KEY, "1")),
                    null)));
    ArrowBatchSplitter splitter = new ArrowBatchSplitter(spec, SCHEMA, forged, allocator);
    try (ArrowBatch batch = stringBatch(forged, "2026-12-05", "x")) {
      long before = allocator.getAllocatedMemory();
      assertThatThrownBy(() -> splitter.split(batch))
          .isInstanceOf(UnsupportedSplitException.class)
          .hasRootCauseInstanceOf(UnsupportedOperationException.class)
          .rootCause()
          .hasMessageContaining("day of Utf8");
      assertThat(allocator.getAllocatedMemory()).isEqualTo(before);
      assertThat(batch.isReleased()).isFalse();
      assertThat(((VarCharVector) batch.root().getVector(0)).getObject(1).toString())
          .isEqualTo("x");
    }
  }

  @Test
  public void aBatchOfAnotherSchemaIsRejected() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("s").build();
    ArrowBatchSplitter splitter =
        new ArrowBatchSplitter(spec, SCHEMA, IcebergArrowSchema.convert(SCHEMA), allocator);
    org.apache.arrow.vector.types.pojo.Schema other =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(Field.nullable("other", ArrowType.Utf8.INSTANCE)));
    try (ArrowBatch batch = stringBatch(other, "a")) {
      assertThatThrownBy(() -> splitter.split(batch))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("schema is not the splitter's");
      assertThat(batch.isReleased()).isFalse();
    }
  }

  private ArrowBatch stringBatch(org.apache.arrow.vector.types.pojo.Schema schema, String... rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    VarCharVector vector = (VarCharVector) root.getVector(0);
    vector.allocateNew();
    for (int i = 0; i < rows.length; i++) {
      vector.setSafe(i, rows[i].getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(rows.length);
    return ArrowBatch.of(root);
  }
}
