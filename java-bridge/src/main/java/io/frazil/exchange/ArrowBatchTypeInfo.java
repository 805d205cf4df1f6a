package io.frazil.exchange;

import io.frazil.arrow.IcebergArrowSchema;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink type information of a stream of {@link ArrowBatch}es of one Arrow schema, e.g. {@code
 * stream.returns(ArrowBatchTypeInfo.of(icebergSchema))}. Compression of the serialized batches is
 * off unless {@link #withCompression} turns it on.
 */
public final class ArrowBatchTypeInfo extends TypeInformation<ArrowBatch> {
  private static final long serialVersionUID = 1L;

  private final String schemaJson;
  private final IpcCompression compression;

  private ArrowBatchTypeInfo(String schemaJson, IpcCompression compression) {
    this.schemaJson = schemaJson;
    this.compression = Objects.requireNonNull(compression, "Invalid compression: null");
  }

  /** Batches laid out as {@code schema}. */
  public static ArrowBatchTypeInfo of(Schema schema) {
    return new ArrowBatchTypeInfo(
        ArrowSchemas.toJson(Objects.requireNonNull(schema, "Invalid schema: null")),
        IpcCompression.NONE);
  }

  /** Batches of an Iceberg table's rows, laid out as the Frazil writer takes them. */
  public static ArrowBatchTypeInfo of(org.apache.iceberg.Schema schema) {
    return of(IcebergArrowSchema.convert(schema));
  }

  /** The same batches, their serialized bodies compressed with {@code codec}. */
  public ArrowBatchTypeInfo withCompression(IpcCompression codec) {
    return new ArrowBatchTypeInfo(schemaJson, codec);
  }

  public Schema schema() {
    return ArrowSchemas.fromJson(schemaJson);
  }

  public IpcCompression compression() {
    return compression;
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<ArrowBatch> getTypeClass() {
    return ArrowBatch.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  /** Flink 1.19 and later (no {@code @Override}: this file compiles against 1.20 and 2.x). */
  public TypeSerializer<ArrowBatch> createSerializer(SerializerConfig config) {
    return new ArrowBatchSerializer(schema(), compression);
  }

  /** Flink 1.20's abstract variant; no {@code @Override}, as Flink 2 removed it. */
  public TypeSerializer<ArrowBatch> createSerializer(ExecutionConfig config) {
    return new ArrowBatchSerializer(schema(), compression);
  }

  @Override
  public String toString() {
    return "ArrowBatch<" + schema() + ", compression " + compression + ">";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ArrowBatchTypeInfo
        && ((ArrowBatchTypeInfo) other).canEqual(this)
        && compression == ((ArrowBatchTypeInfo) other).compression
        && schema().equals(((ArrowBatchTypeInfo) other).schema());
  }

  @Override
  public int hashCode() {
    return Objects.hash(schema(), compression);
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof ArrowBatchTypeInfo;
  }
}
