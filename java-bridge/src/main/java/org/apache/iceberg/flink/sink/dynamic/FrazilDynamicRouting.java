package org.apache.iceberg.flink.sink.dynamic;

import io.frazil.flink.LogOnce;
import io.frazil.flink.routing.FrazilTaskWriterFactory;
import io.frazil.partition.FrazilPartitionKeySelector;
import io.frazil.reflect.HiddenField;
import io.frazil.reflect.PrivateMembers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator;
import org.apache.flink.streaming.api.operators.SimpleUdfStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;

/**
 * Puts Frazil's partition-key memoizer into a Dynamic Iceberg Sink job: the writers' per-row
 * partition keys and the generator's hash-distribution writer keys.
 *
 * <p>The sink builds both inside package-private classes ({@code DynamicWriter}, {@code
 * HashKeyGenerator}), so this class lives in their package and works by swapping, before the job
 * runs: the sink and the forward-writer sink for subclasses whose writers keep their task writer
 * factories in a map that wraps each new factory with {@link FrazilTaskWriterFactory}; and the
 * generator function for a wrapper that, once the generator is open, makes its key-selector cache
 * replace each partition-key selector by {@link FrazilPartitionKeySelector}, which yields the very
 * same strings (so the same writer keys). Each factory keeps its table's spec id, so spec evolution
 * gets a fresh memo. It links only when Iceberg's Flink classes share Frazil's class loader;
 * Frazil's routing skips it otherwise.
 */
public final class FrazilDynamicRouting {
  private static final java.util.concurrent.atomic.AtomicLong MEMOIZED_KEY_SELECTORS =
      new java.util.concurrent.atomic.AtomicLong();

  private FrazilDynamicRouting() {}

  /** Writer-key selectors switched to Frazil's partition keys in this process so far. */
  public static long memoizedKeySelectors() {
    return MEMOIZED_KEY_SELECTORS.get();
  }

  /** Rewrites {@code transformation} in place when it is part of a Dynamic Iceberg Sink. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static int rewrite(Transformation<?> transformation) throws ReflectiveOperationException {
    if (transformation instanceof SinkTransformation) {
      Object sink = ((SinkTransformation<?, ?>) transformation).getSink();
      if (sink.getClass() == DynamicIcebergSink.class) {
        PrivateMembers.SINK_TRANSFORMATION_SINK.set(
            transformation, new MemoizingSink((DynamicIcebergSink) sink));
        return 1;
      }
      return 0;
    }
    if (!(transformation instanceof OneInputTransformation)) {
      return 0;
    }
    StreamOperatorFactory<?> factory =
        ((OneInputTransformation<?, ?>) transformation).getOperatorFactory();
    if (factory instanceof SinkWriterOperatorFactory) {
      Object sink = PrivateMembers.SINK_WRITER_OPERATOR_FACTORY_SINK.get(factory);
      if (sink.getClass() == DynamicIcebergSink.ForwardWriterSink.class) {
        PrivateMembers.SINK_WRITER_OPERATOR_FACTORY_SINK.set(
            factory, new MemoizingForwardSink((DynamicIcebergSink.ForwardWriterSink) sink));
        return 1;
      }
    } else if (factory instanceof SimpleUdfStreamOperatorFactory) {
      AbstractUdfStreamOperator<?, ?> operator =
          (AbstractUdfStreamOperator<?, ?>)
              ((SimpleUdfStreamOperatorFactory<?>) factory).getOperator();
      Object function = operator.getUserFunction();
      if (function instanceof DynamicRecordProcessor) {
        PrivateMembers.UDF_OPERATOR_USER_FUNCTION.set(
            operator, new MemoizingRecordProcessor((DynamicRecordProcessor) function));
        return 1;
      }
    }
    return 0;
  }

  /**
   * Makes {@code writer}'s factory cache hand out Frazil factories; if Iceberg's writer is not
   * shaped as expected, it is returned unchanged (with one warning), never failing the task.
   */
  static SinkWriter<DynamicRecordInternal> memoize(SinkWriter<DynamicRecordInternal> writer) {
    return memoize(writer, PrivateMembers.DYNAMIC_WRITER_TASK_WRITER_FACTORIES);
  }

  /** {@link #memoize(SinkWriter)} through the given field (tests pass a missing one). */
  static SinkWriter<DynamicRecordInternal> memoize(
      SinkWriter<DynamicRecordInternal> writer, HiddenField factoriesField) {
    if (writer instanceof DynamicWriter) {
      try {
        Map<WriteTarget, RowDataTaskWriterFactory> factories = factoriesField.get(writer);
        factoriesField.set(writer, new FactoryMap(factories));
      } catch (ReflectiveOperationException | RuntimeException e) {
        // Like every other reflective site: Iceberg's own routing keeps working, said once.
        LogOnce.warn(
            "dynamic-writer:" + e.getClass().getName(),
            "Frazil left a Dynamic Iceberg Sink writer on Iceberg's task writer factories: " + e);
      }
    }
    return writer;
  }

  /** Makes {@code keys}' selector cache swap partition-key selectors for Frazil's. */
  static void memoizeKeys(HashKeyGenerator keys) throws ReflectiveOperationException {
    Map<HashKeyGenerator.SelectorKey, KeySelector<RowData, Integer>> cache =
        PrivateMembers.HASH_KEY_GENERATOR_SELECTOR_CACHE.get(keys);
    if (!(cache instanceof SelectorMap)) {
      PrivateMembers.HASH_KEY_GENERATOR_SELECTOR_CACHE.set(keys, new SelectorMap(cache));
    }
  }

  /**
   * What creates a writer: Iceberg's sinks declare {@link IOException} on Flink 1.20, not on 2.x.
   */
  @FunctionalInterface
  interface WriterCreation {
    SinkWriter<DynamicRecordInternal> create() throws IOException;
  }

  /** The writer {@code creation} returns; its {@link IOException} (Flink 1.20) as unchecked. */
  static SinkWriter<DynamicRecordInternal> created(WriterCreation creation) {
    try {
      return creation.create();
    } catch (IOException e) {
      throw new UncheckedIOException("Iceberg's Dynamic Iceberg Sink could not create a writer", e);
    }
  }

  /** The shuffle-side sink, identical but for its writers. */
  static final class MemoizingSink extends DynamicIcebergSink {
    private static final long serialVersionUID = 1L;

    MemoizingSink(DynamicIcebergSink sink) throws ReflectiveOperationException {
      super(
          PrivateMembers.DYNAMIC_SINK_CATALOG_LOADER.get(sink),
          PrivateMembers.DYNAMIC_SINK_SNAPSHOT_PROPERTIES.get(sink),
          PrivateMembers.DYNAMIC_SINK_UID_PREFIX.get(sink),
          PrivateMembers.DYNAMIC_SINK_WRITE_PROPERTIES.get(sink),
          PrivateMembers.DYNAMIC_SINK_FLINK_CONFIG.get(sink),
          PrivateMembers.DYNAMIC_SINK_CACHE_MAXIMUM_SIZE.getInt(sink),
          PrivateMembers.DYNAMIC_SINK_FORWARD_WRITE_RESULTS.get(sink));
      // Same id as the sink it replaces: the committer separates its files by it.
      PrivateMembers.DYNAMIC_SINK_SINK_ID.set(this, PrivateMembers.DYNAMIC_SINK_SINK_ID.get(sink));
    }

    @Override
    public SinkWriter<DynamicRecordInternal> createWriter(WriterInitContext context) {
      return memoize(created(() -> super.createWriter(context)));
    }
  }

  /** The forward (no shuffle) writer sink, identical but for its writers. */
  static final class MemoizingForwardSink extends DynamicIcebergSink.ForwardWriterSink {
    private static final long serialVersionUID = 1L;

    MemoizingForwardSink(DynamicIcebergSink.ForwardWriterSink sink)
        throws ReflectiveOperationException {
      super(
          PrivateMembers.FORWARD_SINK_CATALOG_LOADER.get(sink),
          PrivateMembers.FORWARD_SINK_WRITE_PROPERTIES.get(sink),
          PrivateMembers.FORWARD_SINK_FLINK_CONFIG.get(sink),
          PrivateMembers.FORWARD_SINK_CACHE_MAXIMUM_SIZE.getInt(sink));
    }

    @Override
    public SinkWriter<DynamicRecordInternal> createWriter(WriterInitContext context) {
      return memoize(created(() -> super.createWriter(context)));
    }
  }

  /** The dynamic writer's factory cache; every factory it creates is wrapped once. */
  private static final class FactoryMap extends AbstractMap<WriteTarget, RowDataTaskWriterFactory> {
    private final Map<WriteTarget, RowDataTaskWriterFactory> delegate;

    FactoryMap(Map<WriteTarget, RowDataTaskWriterFactory> delegate) {
      this.delegate = delegate;
    }

    @Override
    public RowDataTaskWriterFactory computeIfAbsent(
        WriteTarget key, Function<? super WriteTarget, ? extends RowDataTaskWriterFactory> create) {
      return delegate.computeIfAbsent(key, k -> FrazilTaskWriterFactory.wrap(create.apply(k)));
    }

    @Override
    public RowDataTaskWriterFactory get(Object key) {
      return delegate.get(key);
    }

    @Override
    public RowDataTaskWriterFactory put(WriteTarget key, RowDataTaskWriterFactory value) {
      return delegate.put(key, FrazilTaskWriterFactory.wrap(value));
    }

    @Override
    public RowDataTaskWriterFactory remove(Object key) {
      return delegate.remove(key);
    }

    @Override
    public Set<Entry<WriteTarget, RowDataTaskWriterFactory>> entrySet() {
      return delegate.entrySet();
    }
  }

  /**
   * The generator, unchanged, except that once it is open its hash-key generator's selector cache
   * swaps each partition-key selector for Frazil's.
   */
  static final class MemoizingRecordProcessor<T> extends ProcessFunction<T, DynamicRecordInternal> {
    private static final long serialVersionUID = 1L;
    private final DynamicRecordProcessor<T> delegate;

    MemoizingRecordProcessor(DynamicRecordProcessor<T> delegate) {
      this.delegate = delegate;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
      delegate.setRuntimeContext(getRuntimeContext());
      delegate.open(openContext);
      memoizeKeys(PrivateMembers.RECORD_PROCESSOR_HASH_KEY_GENERATOR.get(delegate));
    }

    @Override
    public void processElement(T element, Context ctx, Collector<DynamicRecordInternal> out)
        throws Exception {
      delegate.processElement(element, ctx, out);
    }

    @Override
    public void close() throws Exception {
      delegate.close();
    }
  }

  /** The generator's selector cache; partition-key selectors are swapped as they are created. */
  private static final class SelectorMap
      extends AbstractMap<HashKeyGenerator.SelectorKey, KeySelector<RowData, Integer>> {
    private final Map<HashKeyGenerator.SelectorKey, KeySelector<RowData, Integer>> delegate;

    SelectorMap(Map<HashKeyGenerator.SelectorKey, KeySelector<RowData, Integer>> delegate) {
      this.delegate = delegate;
    }

    @Override
    public KeySelector<RowData, Integer> computeIfAbsent(
        HashKeyGenerator.SelectorKey key,
        Function<? super HashKeyGenerator.SelectorKey, ? extends KeySelector<RowData, Integer>>
            create) {
      return delegate.computeIfAbsent(key, k -> memoized(create.apply(k)));
    }

    @Override
    public KeySelector<RowData, Integer> get(Object key) {
      return delegate.get(key);
    }

    @Override
    public KeySelector<RowData, Integer> put(
        HashKeyGenerator.SelectorKey key, KeySelector<RowData, Integer> value) {
      return delegate.put(key, value);
    }

    @Override
    public KeySelector<RowData, Integer> remove(Object key) {
      return delegate.remove(key);
    }

    @Override
    public Set<Entry<HashKeyGenerator.SelectorKey, KeySelector<RowData, Integer>>> entrySet() {
      return delegate.entrySet();
    }
  }

  /**
   * A target-limited selector whose inner function hashes a {@link PartitionKeySelector}'s path
   * gets the same function over Frazil's selector; anything else is returned unchanged.
   */
  private static KeySelector<RowData, Integer> memoized(KeySelector<RowData, Integer> selector) {
    try {
      HiddenField wrapped = PrivateMembers.TARGET_LIMITED_KEY_SELECTOR_WRAPPED;
      if (!selector.getClass().getName().equals(wrapped.owner())) {
        return selector;
      }
      PartitionKeySelector stock =
          PrivateMembers.capturedValue(wrapped.get(selector), PartitionKeySelector.class);
      if (stock == null) {
        return selector;
      }
      FrazilPartitionKeySelector frazil = FrazilPartitionKeySelector.of(stock);
      if (frazil.isMemoized()) {
        wrapped.set(selector, new PathHash(frazil));
        MEMOIZED_KEY_SELECTORS.incrementAndGet();
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      LogOnce.warn(
          "dynamic-selector:" + e.getClass().getName(),
          "Frazil left a Dynamic Iceberg Sink writer key selector unchanged: " + e);
    }
    return selector;
  }

  /** What the stock inner function computes: the partition path's String hash code. */
  private static final class PathHash implements KeySelector<RowData, Integer> {
    private static final long serialVersionUID = 1L;
    private final FrazilPartitionKeySelector paths;

    PathHash(FrazilPartitionKeySelector paths) {
      this.paths = paths;
    }

    @Override
    public Integer getKey(RowData row) throws Exception {
      return paths.getKey(row).hashCode();
    }
  }
}
