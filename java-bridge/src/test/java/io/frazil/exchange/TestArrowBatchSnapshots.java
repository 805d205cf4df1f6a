package io.frazil.exchange;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshotSerializationUtil;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint records the serializer's schema and compression: restoring with another schema is
 * incompatible (Flink refuses the restore instead of misreading batches); another compression is
 * compatible as is, since every record names its own codec.
 */
public class TestArrowBatchSnapshots {
  private static final Schema SCHEMA =
      new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));

  private static TypeSerializer<ArrowBatch> serializer(Schema schema, IpcCompression codec) {
    return ArrowBatchTypeInfo.of(schema)
        .withCompression(codec)
        .createSerializer((SerializerConfig) null);
  }

  /** The snapshot as written into a checkpoint and read back from it. */
  private static TypeSerializerSnapshot<ArrowBatch> recorded(TypeSerializer<ArrowBatch> serializer)
      throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    TypeSerializerSnapshotSerializationUtil.writeSerializerSnapshot(
        out, serializer.snapshotConfiguration());
    return TypeSerializerSnapshotSerializationUtil.readSerializerSnapshot(
        new DataInputDeserializer(out.getCopyOfBuffer()),
        TestArrowBatchSnapshots.class.getClassLoader());
  }

  private static TypeSerializerSchemaCompatibility<ArrowBatch> restore(
      TypeSerializer<ArrowBatch> before, TypeSerializer<ArrowBatch> after) throws Exception {
    return after.snapshotConfiguration().resolveSchemaCompatibility(recorded(before));
  }

  @Test
  public void theSameSchemaIsCompatibleAsIs() throws Exception {
    TypeSerializer<ArrowBatch> serializer = serializer(SCHEMA, IpcCompression.ZSTD);
    assertThat(restore(serializer, serializer).isCompatibleAsIs()).isTrue();
    TypeSerializer<ArrowBatch> restored = recorded(serializer).restoreSerializer();
    assertThat(restored).isEqualTo(serializer);
  }

  @Test
  public void anotherCompressionIsCompatibleAsIs() throws Exception {
    assertThat(
            restore(
                    serializer(SCHEMA, IpcCompression.NONE),
                    serializer(SCHEMA, IpcCompression.LZ4_FRAME))
                .isCompatibleAsIs())
        .isTrue();
  }

  @Test
  public void anotherSchemaIsIncompatible() throws Exception {
    Schema renamed =
        new Schema(
            required(1, "id", Types.LongType.get()), optional(2, "t", Types.StringType.get()));
    Schema widened =
        new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "s", Types.StringType.get()),
            optional(3, "x", Types.IntegerType.get()));
    for (Schema changed : new Schema[] {renamed, widened}) {
      TypeSerializerSchemaCompatibility<ArrowBatch> result =
          restore(
              serializer(SCHEMA, IpcCompression.NONE), serializer(changed, IpcCompression.NONE));
      assertThat(result.isIncompatible()).as("restore into %s", changed).isTrue();
    }
  }

  @Test
  public void typeInformationDescribesTheBatches() {
    ArrowBatchTypeInfo info = ArrowBatchTypeInfo.of(SCHEMA);
    assertThat(info.getTypeClass()).isEqualTo(ArrowBatch.class);
    assertThat(info.compression())
        .as("compression is off by default")
        .isEqualTo(IpcCompression.NONE);
    assertThat(info).isEqualTo(ArrowBatchTypeInfo.of(SCHEMA));
    assertThat(info).isNotEqualTo(info.withCompression(IpcCompression.ZSTD));
    assertThat(info.createSerializer((SerializerConfig) null))
        .isInstanceOf(ArrowBatchSerializer.class);
  }
}
