package io.frazil.flink.routing;

import io.frazil.flink.FrazilFlink;
import io.frazil.flink.LogOnce;
import io.frazil.partition.FrazilPartitionKeySelector;
import io.frazil.reflect.HiddenField;
import io.frazil.reflect.PrivateMembers;
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
        LogOnce.warn(
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
      LogOnce.warn(
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
        setStateKeySelector(
            oneInput, FrazilPartitionKeySelector.of((PartitionKeySelector) stateKey));
        replaced += 1;
      }
    } else if (transformation instanceof PartitionTransformation) {
      StreamPartitioner<?> partitioner =
          ((PartitionTransformation<?>) transformation).getPartitioner();
      if (partitioner instanceof KeyGroupStreamPartitioner) {
        HiddenField keySelector = PrivateMembers.KEY_GROUP_PARTITIONER_KEY_SELECTOR;
        Object selector = keySelector.get(partitioner);
        if (selector instanceof PartitionKeySelector) {
          keySelector.set(
              partitioner, FrazilPartitionKeySelector.of((PartitionKeySelector) selector));
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
    if (!PrivateMembers.STREAM_WRITER_TASK_WRITER_FACTORY
        .owner()
        .equals(operator.getClass().getName())) {
      return 0;
    }
    HiddenField field = PrivateMembers.STREAM_WRITER_TASK_WRITER_FACTORY;
    TaskWriterFactory<?> current = field.get(operator);
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
}
