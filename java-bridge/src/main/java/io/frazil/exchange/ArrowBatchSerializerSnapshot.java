package io.frazil.exchange;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What a checkpoint or savepoint records of an {@link ArrowBatchSerializer}: the Arrow schema (as
 * JSON) and the compression. A restore whose serializer has another schema is incompatible, so
 * Flink refuses it instead of misreading batches; a changed compression is compatible as is,
 * because each record's message names its own codec and every serializer reads all of them.
 */
public final class ArrowBatchSerializerSnapshot implements TypeSerializerSnapshot<ArrowBatch> {
  private static final int VERSION = 1;

  private String schemaJson;
  private IpcCompression compression;

  /** For Flink, which reads the fields with {@link #readSnapshot}. */
  public ArrowBatchSerializerSnapshot() {}

  ArrowBatchSerializerSnapshot(String schemaJson, IpcCompression compression) {
    this.schemaJson = schemaJson;
    this.compression = compression;
  }

  @Override
  public int getCurrentVersion() {
    return VERSION;
  }

  @Override
  public void writeSnapshot(DataOutputView out) throws IOException {
    byte[] json = schemaJson.getBytes(StandardCharsets.UTF_8);
    out.writeInt(json.length);
    out.write(json);
    out.writeUTF(compression.name());
  }

  @Override
  public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
      throws IOException {
    if (readVersion != VERSION) {
      throw new IOException(
          "Unknown ArrowBatchSerializer snapshot version "
              + readVersion
              + " (knows "
              + VERSION
              + ")");
    }
    int length = in.readInt();
    byte[] json = MessageBytes.read(in, length);
    this.schemaJson = new String(json, 0, length, StandardCharsets.UTF_8);
    String codec = in.readUTF();
    try {
      this.compression = IpcCompression.valueOf(codec);
    } catch (IllegalArgumentException e) {
      throw new IOException("Unknown ArrowBatch compression in a snapshot: " + codec, e);
    }
  }

  @Override
  public TypeSerializer<ArrowBatch> restoreSerializer() {
    return new ArrowBatchSerializer(schema(), compression);
  }

  /**
   * Called on the new serializer's snapshot with the one a checkpoint recorded (Flink 1.19 and
   * later; no {@code @Override}, so this file compiles against 1.20 and 2.x alike).
   */
  public TypeSerializerSchemaCompatibility<ArrowBatch> resolveSchemaCompatibility(
      TypeSerializerSnapshot<ArrowBatch> oldSnapshot) {
    if (!(oldSnapshot instanceof ArrowBatchSerializerSnapshot)) {
      return TypeSerializerSchemaCompatibility.incompatible();
    }
    Schema old = ((ArrowBatchSerializerSnapshot) oldSnapshot).schema();
    return old.equals(schema())
        ? TypeSerializerSchemaCompatibility.compatibleAsIs()
        : TypeSerializerSchemaCompatibility.incompatible();
  }

  /**
   * Flink 1.20's older direction (called on the recorded snapshot with the new serializer); no
   * {@code @Override}, as Flink 2 removed it.
   */
  public TypeSerializerSchemaCompatibility<ArrowBatch> resolveSchemaCompatibility(
      TypeSerializer<ArrowBatch> newSerializer) {
    return newSerializer.snapshotConfiguration().resolveSchemaCompatibility(this);
  }

  Schema schema() {
    return ArrowSchemas.fromJson(schemaJson);
  }

  IpcCompression compression() {
    return compression;
  }
}
