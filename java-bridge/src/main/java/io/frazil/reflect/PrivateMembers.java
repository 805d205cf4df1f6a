package io.frazil.reflect;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Every private Iceberg and Flink member Frazil reaches, each named once.
 *
 * <p>Iceberg offers no supported way to replace its Parquet writer for Flink or its partition
 * routing: the data-file hook swaps one entry of a private registry map, and the partition-key
 * memoizer reads the settings out of Iceberg's sinks, task writer factories and key selectors and
 * swaps a few of their fields. All of that goes through these constants. {@code TestPrivateMembers}
 * resolves each one against the Iceberg and Flink on the classpath, so an upgrade that moves a
 * member fails one test that names it, instead of every job silently falling back to stock.
 *
 * <p>Fields are typed by the exact class name they are declared with; generic parameters are not
 * checked.
 */
public final class PrivateMembers {
  private static final String ICEBERG_SINK = "org.apache.iceberg.flink.sink.";
  private static final String DYNAMIC = ICEBERG_SINK + "dynamic.";
  private static final String MAP = "java.util.Map";
  private static final String STRING = "java.lang.String";
  private static final String CONFIGURATION = "org.apache.flink.configuration.Configuration";
  private static final String CATALOG_LOADER = "org.apache.iceberg.flink.CatalogLoader";
  private static final String SINK = "org.apache.flink.api.connector.sink2.Sink";
  private static final String TASK_WRITER_FACTORY = ICEBERG_SINK + "TaskWriterFactory";

  private PrivateMembers() {}

  // The data-file hook: Iceberg's format model registry.

  /** {@code FormatModelRegistry.MODELS}: (file format, input type) → format model. */
  public static final HiddenField FORMAT_MODELS =
      HiddenField.of("org.apache.iceberg.formats.FormatModelRegistry", "MODELS", MAP);

  // FlinkSink (v1): the writer operator and its hash distribution.

  public static final HiddenField STREAM_WRITER_TASK_WRITER_FACTORY =
      HiddenField.of(
          ICEBERG_SINK + "IcebergStreamWriter", "taskWriterFactory", TASK_WRITER_FACTORY);

  public static final HiddenField KEY_GROUP_PARTITIONER_KEY_SELECTOR =
      HiddenField.of(
          "org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner",
          "keySelector",
          "org.apache.flink.api.java.functions.KeySelector");

  // Iceberg's PartitionKeySelector (hash distribution) and PartitionKey.

  public static final HiddenField PARTITION_KEY_SELECTOR_SCHEMA =
      HiddenField.of(ICEBERG_SINK + "PartitionKeySelector", "schema", "org.apache.iceberg.Schema");

  public static final HiddenField PARTITION_KEY_SELECTOR_FLINK_SCHEMA =
      HiddenField.of(
          ICEBERG_SINK + "PartitionKeySelector",
          "flinkSchema",
          "org.apache.flink.table.types.logical.RowType");

  public static final HiddenField PARTITION_KEY_SELECTOR_KEY =
      HiddenField.of(
          ICEBERG_SINK + "PartitionKeySelector", "partitionKey", "org.apache.iceberg.PartitionKey");

  public static final HiddenField PARTITION_KEY_SPEC =
      HiddenField.of("org.apache.iceberg.PartitionKey", "spec", "org.apache.iceberg.PartitionSpec");

  // Iceberg's RowDataTaskWriterFactory: the settings Frazil's task writers must share.

  private static final String TASK_WRITERS = ICEBERG_SINK + "RowDataTaskWriterFactory";

  public static final HiddenField TASK_WRITERS_TABLE_SUPPLIER =
      HiddenField.of(TASK_WRITERS, "tableSupplier", "java.util.function.Supplier");

  public static final HiddenField TASK_WRITERS_SCHEMA =
      HiddenField.of(TASK_WRITERS, "schema", "org.apache.iceberg.Schema");

  public static final HiddenField TASK_WRITERS_FLINK_SCHEMA =
      HiddenField.of(TASK_WRITERS, "flinkSchema", "org.apache.flink.table.types.logical.RowType");

  public static final HiddenField TASK_WRITERS_SPEC =
      HiddenField.of(TASK_WRITERS, "spec", "org.apache.iceberg.PartitionSpec");

  public static final HiddenField TASK_WRITERS_TARGET_FILE_SIZE =
      HiddenField.of(TASK_WRITERS, "targetFileSizeBytes", "long");

  public static final HiddenField TASK_WRITERS_FORMAT =
      HiddenField.of(TASK_WRITERS, "format", "org.apache.iceberg.FileFormat");

  public static final HiddenField TASK_WRITERS_EQUALITY_FIELD_IDS =
      HiddenField.of(TASK_WRITERS, "equalityFieldIds", "java.util.Set");

  public static final HiddenField TASK_WRITERS_UPSERT =
      HiddenField.of(TASK_WRITERS, "upsert", "boolean");

  public static final HiddenField TASK_WRITERS_FILE_WRITER_FACTORY =
      HiddenField.of(TASK_WRITERS, "fileWriterFactory", "org.apache.iceberg.io.FileWriterFactory");

  /** Set by {@code initialize()}: format version > 2. */
  public static final HiddenField TASK_WRITERS_USE_DV =
      HiddenField.of(TASK_WRITERS, "useDv", "boolean");

  /** Set by {@code initialize()}. */
  public static final HiddenField TASK_WRITERS_OUTPUT_FILE_FACTORY =
      HiddenField.of(TASK_WRITERS, "outputFileFactory", "org.apache.iceberg.io.OutputFileFactory");

  /** What stock {@code create()} does first: refresh a caching table supplier. */
  public static final HiddenMethod TASK_WRITERS_REFRESH_TABLE =
      HiddenMethod.of(TASK_WRITERS, "refreshTable");

  // Iceberg's RowDataWrapper (the StructLike a partition key reads a row through).

  /**
   * {@code RowDataWrapper.getters}: the converting getter of each position, null where {@code get}
   * builds a new plain field getter on every call.
   */
  public static final HiddenField ROW_DATA_WRAPPER_GETTERS =
      HiddenField.of(
          "org.apache.iceberg.flink.RowDataWrapper",
          "getters",
          "[Lorg.apache.iceberg.flink.RowDataWrapper$PositionalGetter;");

  // IcebergSink (SinkV2): the sink inside its transformation and its package-private writer.

  public static final HiddenField SINK_TRANSFORMATION_SINK =
      HiddenField.of(
          "org.apache.flink.streaming.api.transformations.SinkTransformation", "sink", SINK);

  private static final String SINK_WRITER = ICEBERG_SINK + "IcebergSinkWriter";

  public static final HiddenField SINK_WRITER_TASK_WRITER_FACTORY =
      HiddenField.of(SINK_WRITER, "taskWriterFactory", TASK_WRITER_FACTORY);

  public static final HiddenField SINK_WRITER_WRITER =
      HiddenField.of(SINK_WRITER, "writer", "org.apache.iceberg.io.TaskWriter");

  public static final HiddenField SINK_WRITER_SUBTASK_ID =
      HiddenField.of(SINK_WRITER, "subTaskId", "int");

  public static final HiddenField SINK_WRITER_ATTEMPT_ID =
      HiddenField.of(SINK_WRITER, "attemptId", "int");

  // Dynamic Iceberg Sink: the operators Flink builds for it and Iceberg's package-private parts.

  public static final HiddenField SINK_WRITER_OPERATOR_FACTORY_SINK =
      HiddenField.of(
          "org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory",
          "sink",
          SINK);

  public static final HiddenField UDF_OPERATOR_USER_FUNCTION =
      HiddenField.of(
          "org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator",
          "userFunction",
          "org.apache.flink.api.common.functions.Function");

  public static final HiddenField DYNAMIC_WRITER_TASK_WRITER_FACTORIES =
      HiddenField.of(DYNAMIC + "DynamicWriter", "taskWriterFactories", MAP);

  public static final HiddenField HASH_KEY_GENERATOR_SELECTOR_CACHE =
      HiddenField.of(DYNAMIC + "HashKeyGenerator", "keySelectorCache", MAP);

  public static final HiddenField TARGET_LIMITED_KEY_SELECTOR_WRAPPED =
      HiddenField.of(
          DYNAMIC + "HashKeyGenerator$TargetLimitedKeySelector",
          "wrapped",
          "org.apache.flink.api.java.functions.KeySelector");

  public static final HiddenField RECORD_PROCESSOR_HASH_KEY_GENERATOR =
      HiddenField.of(
          DYNAMIC + "DynamicRecordProcessor", "hashKeyGenerator", DYNAMIC + "HashKeyGenerator");

  private static final String DYNAMIC_SINK = DYNAMIC + "DynamicIcebergSink";

  public static final HiddenField DYNAMIC_SINK_CATALOG_LOADER =
      HiddenField.of(DYNAMIC_SINK, "catalogLoader", CATALOG_LOADER);

  public static final HiddenField DYNAMIC_SINK_SNAPSHOT_PROPERTIES =
      HiddenField.of(DYNAMIC_SINK, "snapshotProperties", MAP);

  public static final HiddenField DYNAMIC_SINK_UID_PREFIX =
      HiddenField.of(DYNAMIC_SINK, "uidPrefix", STRING);

  public static final HiddenField DYNAMIC_SINK_SINK_ID =
      HiddenField.of(DYNAMIC_SINK, "sinkId", STRING);

  public static final HiddenField DYNAMIC_SINK_WRITE_PROPERTIES =
      HiddenField.of(DYNAMIC_SINK, "writeProperties", MAP);

  public static final HiddenField DYNAMIC_SINK_FLINK_CONFIG =
      HiddenField.of(DYNAMIC_SINK, "flinkConfig", CONFIGURATION);

  public static final HiddenField DYNAMIC_SINK_CACHE_MAXIMUM_SIZE =
      HiddenField.of(DYNAMIC_SINK, "cacheMaximumSize", "int");

  public static final HiddenField DYNAMIC_SINK_FORWARD_WRITE_RESULTS =
      HiddenField.of(
          DYNAMIC_SINK,
          "forwardWriteResults",
          "org.apache.flink.streaming.api.datastream.DataStream");

  private static final String FORWARD_SINK = DYNAMIC_SINK + "$ForwardWriterSink";

  public static final HiddenField FORWARD_SINK_CATALOG_LOADER =
      HiddenField.of(FORWARD_SINK, "catalogLoader", CATALOG_LOADER);

  public static final HiddenField FORWARD_SINK_WRITE_PROPERTIES =
      HiddenField.of(FORWARD_SINK, "writeProperties", MAP);

  public static final HiddenField FORWARD_SINK_FLINK_CONFIG =
      HiddenField.of(FORWARD_SINK, "flinkConfig", CONFIGURATION);

  public static final HiddenField FORWARD_SINK_CACHE_MAXIMUM_SIZE =
      HiddenField.of(FORWARD_SINK, "cacheMaximumSize", "int");

  // Flink metrics: a writer's task is the Runnable of the thread it runs on (Flink's Task creates
  // its thread as new Thread(group, this, name)); reading it needs java.lang opened, which Flink's
  // default env.java.opts.all does.

  /** JDK 17 and 18: the Runnable a platform thread was constructed with. */
  public static final HiddenField THREAD_TARGET =
      HiddenField.of("java.lang.Thread", "target", "java.lang.Runnable").onJdk(0, 18);

  /** JDK 19 and later keep it in {@code Thread.holder} ... */
  public static final HiddenField THREAD_HOLDER =
      HiddenField.of("java.lang.Thread", "holder", "java.lang.Thread$FieldHolder")
          .onJdk(19, Integer.MAX_VALUE);

  /** ... as {@code task}. */
  public static final HiddenField THREAD_HOLDER_TASK =
      HiddenField.of("java.lang.Thread$FieldHolder", "task", "java.lang.Runnable")
          .onJdk(19, Integer.MAX_VALUE);

  /** Every member declared above, in declaration order. */
  public static List<HiddenMember> all() {
    List<HiddenMember> members = new ArrayList<>();
    for (Field field : PrivateMembers.class.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers())
          && HiddenMember.class.isAssignableFrom(field.getType())) {
        try {
          members.add((HiddenMember) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("Cannot list " + field, e);
        }
      }
    }
    return members;
  }

  /**
   * The value of the first field of {@code target}'s own class holding an instance of {@code type},
   * or null. For lambdas and other synthetic classes, whose captured values have no stable field
   * names (e.g. the hash function Iceberg's {@code HashKeyGenerator} builds around a {@code
   * PartitionKeySelector}).
   */
  public static <T> T capturedValue(Object target, Class<T> type) throws IllegalAccessException {
    for (Field field : target.getClass().getDeclaredFields()) {
      if (!Modifier.isStatic(field.getModifiers()) && !field.getType().isPrimitive()) {
        field.setAccessible(true);
        Object value = field.get(target);
        if (type.isInstance(value)) {
          return type.cast(value);
        }
      }
    }
    return null;
  }
}
