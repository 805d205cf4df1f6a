package io.frazil.flink;

import io.frazil.partition.FrazilPartitionKeySelector;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner;
import org.apache.flink.streaming.runtime.partitioner.StreamPartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.sink.FrazilIcebergSinkRouting;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.flink.sink.TaskWriterFactory;
import org.apache.iceberg.flink.sink.dynamic.FrazilDynamicRouting;

/**
 * Puts Frazil's partition-key memoizer into the {@code FlinkSink} pipelines of a job before it is
 * executed.
 *
 * <p>Iceberg builds its task writers and partition key selectors with {@code new} inside its sink
 * builders and operators, so no registry reaches them. This pass walks the job's transformations
 * and swaps, in place: the task writer factory of every Iceberg stream writer operator for a {@link
 * FrazilTaskWriterFactory} around it, and every {@link PartitionKeySelector} (hash distribution)
 * for a {@link FrazilPartitionKeySelector} that returns the same key strings, so rows reach the
 * same subtasks and key groups as before (savepoints stay compatible); in {@code IcebergSink} jobs
 * the same two ({@link FrazilIcebergSinkRouting}); and in Dynamic Iceberg Sink jobs the writers and
 * hash-distribution writer keys ({@link FrazilDynamicRouting}). Anything it does not recognise is
 * left alone.
 */
public final class FrazilRouting {
  private static final String STREAM_WRITER = "org.apache.iceberg.flink.sink.IcebergStreamWriter";

  private FrazilRouting() {}

  /**
   * Rewrites the job's transformations; returns how many components now use the memoizer's entry
   * points (each still falls back to Iceberg's path when a spec is not eligible at run time).
   */
  public static int accelerate(StreamExecutionEnvironment env) {
    if (!FrazilFlink.processEnabled()) {
      return 0;
    }
    int replaced = 0;
    Set<Transformation<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Transformation<?>> pending = new ArrayDeque<>(env.getTransformations());
    while (!pending.isEmpty()) {
      Transformation<?> transformation = pending.pop();
      if (!seen.add(transformation)) {
        continue;
      }
      pending.addAll(transformation.getInputs());
      try {
        replaced += rewrite(transformation) + rewriteInIcebergPackages(transformation);
      } catch (ReflectiveOperationException | RuntimeException e) {
        FrazilFlink.logOnce(
            "routing-rewrite:" + e.getClass().getName(),
            "Frazil left a Flink operator's partition routing unchanged: " + e);
      }
    }
    return replaced;
  }

  private static int rewriteInIcebergPackages(Transformation<?> transformation)
      throws ReflectiveOperationException {
    try {
      return FrazilDynamicRouting.rewrite(transformation)
          + FrazilIcebergSinkRouting.rewrite(transformation);
    } catch (LinkageError e) {
      // Iceberg's Flink classes come from another class loader: no package access.
      FrazilFlink.logOnce(
          "dynamic-linkage",
          "Frazil's memoizer is not used in IcebergSink and Dynamic Iceberg Sink jobs (Iceberg"
              + " is loaded by another class loader): "
              + e);
      return 0;
    }
  }

  private static int rewrite(Transformation<?> transformation) throws ReflectiveOperationException {
    int replaced = 0;
    if (transformation instanceof OneInputTransformation) {
      OneInputTransformation<?, ?> oneInput = (OneInputTransformation<?, ?>) transformation;
      replaced += replaceTaskWriterFactory(oneInput.getOperatorFactory());
      KeySelector<?, ?> stateKey = oneInput.getStateKeySelector();
      if (stateKey instanceof PartitionKeySelector) {
        setStateKeySelector(oneInput, memoized((PartitionKeySelector) stateKey));
        replaced += 1;
      }
    } else if (transformation instanceof PartitionTransformation) {
      StreamPartitioner<?> partitioner =
          ((PartitionTransformation<?>) transformation).getPartitioner();
      if (partitioner instanceof KeyGroupStreamPartitioner) {
        Field field = KeyGroupStreamPartitioner.class.getDeclaredField("keySelector");
        field.setAccessible(true);
        Object selector = field.get(partitioner);
        if (selector instanceof PartitionKeySelector) {
          field.set(partitioner, memoized((PartitionKeySelector) selector));
          replaced += 1;
        }
      }
    }
    return replaced;
  }

  @SuppressWarnings("unchecked")
  private static void setStateKeySelector(
      OneInputTransformation<?, ?> transformation, FrazilPartitionKeySelector selector) {
    ((OneInputTransformation<RowData, ?>) transformation).setStateKeySelector(selector);
  }

  private static int replaceTaskWriterFactory(StreamOperatorFactory<?> factory)
      throws ReflectiveOperationException {
    if (!(factory instanceof SimpleOperatorFactory)) {
      return 0;
    }
    StreamOperator<?> operator = ((SimpleOperatorFactory<?>) factory).getOperator();
    if (!STREAM_WRITER.equals(operator.getClass().getName())) {
      return 0;
    }
    Field field = operator.getClass().getDeclaredField("taskWriterFactory");
    field.setAccessible(true);
    TaskWriterFactory<?> current = (TaskWriterFactory<?>) field.get(operator);
    if (!(current instanceof RowDataTaskWriterFactory)
        || current instanceof FrazilTaskWriterFactory) {
      return 0; // already Frazil's, or a factory this pass does not know
    }
    RowDataTaskWriterFactory wrapped =
        FrazilTaskWriterFactory.wrap((RowDataTaskWriterFactory) current);
    if (wrapped == current) {
      return 0;
    }
    field.set(operator, wrapped);
    return 1;
  }

  /** Frazil's selector for the same spec, schema and row type as Iceberg's {@code stock}. */
  public static FrazilPartitionKeySelector memoized(PartitionKeySelector stock)
      throws ReflectiveOperationException {
    Schema schema = (Schema) read(stock, "schema");
    RowType flinkSchema = (RowType) read(stock, "flinkSchema");
    PartitionKey key = (PartitionKey) read(stock, "partitionKey");
    PartitionSpec spec = (PartitionSpec) readSuper(key, "spec");
    return new FrazilPartitionKeySelector(spec, schema, flinkSchema);
  }

  private static Object read(Object target, String name) throws ReflectiveOperationException {
    Field field = target.getClass().getDeclaredField(name);
    field.setAccessible(true);
    return field.get(target);
  }

  private static Object readSuper(Object target, String name) throws ReflectiveOperationException {
    for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
      } catch (NoSuchFieldException e) {
        // look further up
      }
    }
    throw new NoSuchFieldException(name + " in " + target.getClass().getName());
  }
}
