package io.frazil.exchange;

import java.io.IOException;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink's serializer of {@link ArrowBatch}: each record is {@code int length} followed by one Arrow
 * IPC stream (schema message, record batch message, end marker) encoded in native code.
 *
 * <p>The schema travels with every record, not once per channel: a serializer instance writes a
 * record once and Flink copies those bytes to every channel it goes to, one deserializer reads the
 * interleaved records of all its input channels, unaligned checkpoints restore in-flight buffers
 * into other subtasks after rescaling, and state backends read records one by one. None of these
 * lets "schema already sent" state be kept safely; the schema costs a few hundred bytes per batch.
 * A record is checked against this serializer's schema field by field when read.
 *
 * <p>Ownership: {@link #serialize} leaves the batch with its caller; {@link #deserialize} and
 * {@link #copy(ArrowBatch)} return new batches their caller owns. A {@code reuse} batch is never
 * written into or released: Flink may still hold it. Holds no state but its settings, so {@link
 * #duplicate()} returns this instance and it may be used from several threads at once.
 */
public final class ArrowBatchSerializer extends TypeSerializer<ArrowBatch> {
  private static final long serialVersionUID = 1L;

  private final String schemaJson;
  private final IpcCompression compression;
  private transient volatile Schema schema;

  public ArrowBatchSerializer(Schema schema, IpcCompression compression) {
    this.schema = Objects.requireNonNull(schema, "Invalid schema: null");
    this.schemaJson = ArrowSchemas.toJson(schema);
    this.compression = Objects.requireNonNull(compression, "Invalid compression: null");
  }

  /** The schema every batch this serializer reads or writes has. */
  public Schema schema() {
    Schema known = schema;
    if (known == null) {
      known = ArrowSchemas.fromJson(schemaJson);
      this.schema = known;
    }
    return known;
  }

  public IpcCompression compression() {
    return compression;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<ArrowBatch> duplicate() {
    return this;
  }

  /** An empty batch (no rows, no buffers) of the schema. */
  @Override
  public ArrowBatch createInstance() {
    return ArrowBatch.of(
        org.apache.arrow.vector.VectorSchemaRoot.create(
            schema(), io.frazil.iceberg.ArrowMemory.exchangeAllocator()));
  }

  @Override
  public ArrowBatch copy(ArrowBatch from) {
    checkSchema(from);
    return from.copy();
  }

  @Override
  public ArrowBatch copy(ArrowBatch from, ArrowBatch reuse) {
    return copy(from);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(ArrowBatch batch, DataOutputView target) throws IOException {
    checkSchema(batch);
    if (target instanceof DataOutputSerializer) {
      // What Flink's record writers and state backends serialize into: encoded in place.
      ArrowBatchCodec.encodeTo(batch, compression, (DataOutputSerializer) target);
      return;
    }
    ArrowBatchCodec.Encoded encoded = ArrowBatchCodec.encode(batch, compression);
    target.writeInt(encoded.length);
    target.write(encoded.bytes, 0, encoded.length);
  }

  @Override
  public ArrowBatch deserialize(DataInputView source) throws IOException {
    int length = source.readInt();
    byte[] bytes = MessageBytes.read(source, length);
    try {
      return ArrowBatchCodec.decode(schema(), bytes, length);
    } catch (IllegalArgumentException e) {
      throw new InvalidArrowBatchException(
          "Cannot read a serialized ArrowBatch of " + length + " bytes: " + e.getMessage(), e);
    }
  }

  @Override
  public ArrowBatch deserialize(ArrowBatch reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  /** Copies the record's bytes as they are (decoding and checking happen where it is read). */
  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    int length = source.readInt();
    byte[] bytes = MessageBytes.read(source, length);
    target.writeInt(length);
    target.write(bytes, 0, length);
  }

  @Override
  public TypeSerializerSnapshot<ArrowBatch> snapshotConfiguration() {
    return new ArrowBatchSerializerSnapshot(schemaJson, compression);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ArrowBatchSerializer
        && compression == ((ArrowBatchSerializer) other).compression
        && schema().equals(((ArrowBatchSerializer) other).schema());
  }

  @Override
  public int hashCode() {
    return Objects.hash(schema(), compression);
  }

  private void checkSchema(ArrowBatch batch) {
    Objects.requireNonNull(batch, "Cannot serialize a null ArrowBatch");
    if (!schema().equals(batch.schema())) {
      throw new IllegalArgumentException(
          "ArrowBatch schema "
              + batch.schema()
              + " does not match the serializer's schema "
              + schema());
    }
  }
}
