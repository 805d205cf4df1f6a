package io.frazil.flink.routing;

import io.frazil.flink.FrazilFlink;
import io.frazil.flink.LogOnce;
import io.frazil.partition.BucketTupleMemo;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.flink.sink.FrazilPartitionedDeltaWriter;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.TaskWriter;

/**
 * Iceberg's {@link RowDataTaskWriterFactory} with Frazil's partition-key memoizer in its
 * partitioned writers.
 *
 * <p>For a bucket-only partition spec small enough for {@link BucketTupleMemo} (every field {@code
 * bucket[N]}, at most {@value BucketTupleMemo#MAX_TUPLES} tuples counting a null slot per field),
 * {@link #create()} returns a fan-out writer (appends) or a delta writer (equality fields) that
 * look each row's partition up by its bucket ordinal instead of building, hashing and probing a
 * {@code PartitionKey}. Everything else, and any spec or table where the memoizer is switched off,
 * gets exactly the writer the wrapped Iceberg factory creates, except appends to any other
 * partitioned spec: those get Iceberg's own {@code PartitionedFanoutWriter} with a row wrapper that
 * builds its field getters once ({@link CachedGetterFanoutWriter}) instead of on every row. All of
 * them use the wrapped factory's own file writer factory, output file factory and settings, so
 * files, names, rolling and deletes are Iceberg's.
 *
 * <p>Off switches: table property {@value #TABLE_PROPERTY}{@code =false}, JVM system property
 * {@value #SYSTEM_PROPERTY}{@code =false}, or Frazil itself switched off for the table ({@link
 * FrazilFlink#TABLE_PROPERTY}{@code =false}).
 */
public final class FrazilTaskWriterFactory extends RowDataTaskWriterFactory {
  /** Table property that keeps Iceberg's own partition routing for one table. */
  public static final String TABLE_PROPERTY = "write.frazil.partition-memo.enabled";

  /** JVM system property that keeps Iceberg's own partition routing in this process. */
  public static final String SYSTEM_PROPERTY = "frazil.partition-memo.enabled";

  private static final long serialVersionUID = 1L;
  private static final AtomicLong MEMOIZED_WRITERS = new AtomicLong();
  private static final AtomicLong MEMOIZED_DELTA_WRITERS = new AtomicLong();
  private static final AtomicLong CACHED_GETTER_WRITERS = new AtomicLong();

  private final RowDataTaskWriterFactory delegate;
  private transient TaskWriterFactoryFields stock;
  private transient BucketTupleMemo memo;
  private transient boolean cachedGetters;

  /**
   * A subclass, so it fits wherever Iceberg holds a {@link RowDataTaskWriterFactory} (the Dynamic
   * Iceberg Sink's writer caches). The superclass state is built from the same settings but never
   * used: every call goes to {@code delegate}, or to the memoized writers built from its parts.
   */
  private FrazilTaskWriterFactory(RowDataTaskWriterFactory delegate, TaskWriterFactoryFields view)
      throws ReflectiveOperationException {
    super(
        view.tableSupplier(),
        view.flinkSchema(),
        view.targetFileSizeBytes(),
        view.format(),
        Map.of(),
        view.equalityFieldIds(),
        view.upsert(),
        view.schema(),
        view.spec());
    this.delegate = delegate;
  }

  /**
   * Frazil's factory around {@code factory}; {@code factory} itself when it already is one or when
   * this Iceberg's factory cannot be read (a warning is logged once).
   */
  public static RowDataTaskWriterFactory wrap(RowDataTaskWriterFactory factory) {
    if (factory instanceof FrazilTaskWriterFactory) {
      return factory;
    }
    try {
      return new FrazilTaskWriterFactory(factory, TaskWriterFactoryFields.open(factory));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      warnUnused("memo-wrap", "partition-key memoizer", UNEXPECTED_FACTORY, e);
      return factory;
    }
  }

  /** The Iceberg factory this one stands in for. */
  public RowDataTaskWriterFactory delegate() {
    return delegate;
  }

  /** Task writers created with the memoizer in this process so far (tests, logs). */
  public static long memoizedWriters() {
    return MEMOIZED_WRITERS.get();
  }

  /** Of {@link #memoizedWriters()}, the equality-delta (upsert / CDC) writers. */
  public static long memoizedDeltaWriters() {
    return MEMOIZED_DELTA_WRITERS.get();
  }

  /** Append writers created with {@link CachedGetterFanoutWriter} in this process so far. */
  public static long cachedGetterWriters() {
    return CACHED_GETTER_WRITERS.get();
  }

  /** True after {@link #initialize} when {@link #create()} returns memoized writers. */
  public boolean memoizes() {
    return memo != null;
  }

  @Override
  public void initialize(int taskId, int attemptId) {
    delegate.initialize(taskId, attemptId);
    this.memo = null;
    this.cachedGetters = false;
    try {
      this.stock = TaskWriterFactoryFields.open(delegate);
      PartitionSpec spec = stock.spec();
      if (spec.isPartitioned() && enabledFor(stock.table().properties())) {
        if (BucketTupleMemo.isEligible(spec)) {
          this.memo = BucketTupleMemo.create(stock.schema(), spec, stock.flinkSchema());
        } else {
          // Appends only: delta writers of these specs stay Iceberg's.
          Set<Integer> equalityFieldIds = stock.equalityFieldIds();
          this.cachedGetters = equalityFieldIds == null || equalityFieldIds.isEmpty();
        }
      }
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      warnUnused("memo-unavailable", "partition-key memoizer", UNEXPECTED_FACTORY, e);
      this.stock = null;
    }
  }

  @Override
  public TaskWriter<RowData> create() {
    if (cachedGetters) {
      return cachedGetterWriter();
    }
    if (memo == null) {
      return delegate.create();
    }
    try {
      stock.refreshTable();
      TaskWriter<RowData> writer = memoizedWriter();
      MEMOIZED_WRITERS.incrementAndGet();
      return writer;
    } catch (ReflectiveOperationException | LinkageError e) {
      // LinkageError: the delta writer lives in Iceberg's package and cannot be linked when
      // Iceberg was loaded by another class loader than Frazil.
      warnUnused("memo-create", "partition-key memoizer", null, e);
      this.memo = null;
      return delegate.create();
    }
  }

  /** Iceberg's fan-out writer with getters built once, or Iceberg's own when it cannot be built. */
  private TaskWriter<RowData> cachedGetterWriter() {
    try {
      stock.refreshTable();
      TaskWriter<RowData> writer = CachedGetterFanoutWriter.create(stock);
      CACHED_GETTER_WRITERS.incrementAndGet();
      return writer;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      warnUnused(
          "cached-getters",
          "fan-out writer with cached field getters",
          "Iceberg's RowDataWrapper is not as expected",
          e);
      this.cachedGetters = false;
      return delegate.create();
    }
  }

  private TaskWriter<RowData> memoizedWriter() throws ReflectiveOperationException {
    Set<Integer> equalityFieldIds = stock.equalityFieldIds();
    if (equalityFieldIds == null || equalityFieldIds.isEmpty()) {
      return new MemoizedFanoutWriter(
          memo,
          stock.format(),
          stock.fileWriterFactory(),
          stock.outputFileFactory(),
          stock.table().io(),
          stock.targetFileSizeBytes());
    }
    MEMOIZED_DELTA_WRITERS.incrementAndGet();
    return new FrazilPartitionedDeltaWriter(
        memo,
        stock.format(),
        stock.fileWriterFactory(),
        stock.outputFileFactory(),
        stock.table().io(),
        stock.targetFileSizeBytes(),
        stock.schema(),
        stock.flinkSchema(),
        equalityFieldIds,
        stock.upsert(),
        stock.useDv());
  }

  private static final String UNEXPECTED_FACTORY =
      "Iceberg's task writer factory is not as expected";

  /** One warning per kind and exception class: Iceberg's own writers are used instead. */
  private static void warnUnused(String kind, String what, String why, Throwable e) {
    LogOnce.warn(
        kind + ":" + e.getClass().getName(),
        "Frazil's " + what + " is not used" + (why == null ? "" : " (" + why + ")") + ": " + e);
  }

  static boolean enabledFor(Map<String, String> tableProperties) {
    return FrazilFlink.processEnabled()
        && isTrue(System.getProperty(SYSTEM_PROPERTY))
        && isTrue(tableProperties.get(TABLE_PROPERTY))
        && isTrue(tableProperties.get(FrazilFlink.TABLE_PROPERTY));
  }

  private static boolean isTrue(String value) {
    return value == null || !"false".equalsIgnoreCase(value.trim());
  }
}
