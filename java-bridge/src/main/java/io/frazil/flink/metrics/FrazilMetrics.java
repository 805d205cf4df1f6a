package io.frazil.flink.metrics;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.MemoryBudget;
import io.frazil.jni.NativeLoader;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.read.ReadCounters;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskManagerMetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frazil's Flink metrics: what its data-file writers did, per task and per process.
 *
 * <p>Every completed data file (at least one row, closed without error) is counted once, in the
 * process totals (the one source of truth for {@code FrazilFlink.nativeDataFiles()} and the
 * TaskManager metrics) and, when it was written on a Flink task thread, in that task's counters.
 *
 * <p>Per task, under the task's metric group ({@value #GROUP} sub-group): counters {@value
 * #NATIVE_DATA_FILES}, {@value #NATIVE_ROWS}, {@value #NATIVE_BYTES}, {@value
 * #NATIVE_ENCODE_NANOS}, {@value #STOCK_DATA_FILES}, {@value #STOCK_ROWS}, and one counter per
 * fallback reason in the {@value #FALLBACK_GROUP} sub-group, registered when the reason first
 * occurs in that task. An Iceberg sink's writer operator is chained into one task, so per task is
 * per writer operator subtask (a task that chains two Iceberg writers reports their sum). Per
 * TaskManager (its metric group, {@value #GROUP} sub-group): the same names as gauges of the
 * process totals, plus {@value #NATIVE_MEMORY_BYTES}. A MiniCluster running several TaskManagers in
 * one JVM shows the same process totals on each.
 */
public final class FrazilMetrics {
  /** The sub-group of a task's or TaskManager's metric group. */
  public static final String GROUP = "frazil";

  /** The sub-group of {@value #GROUP} with one counter per fallback reason. */
  public static final String FALLBACK_GROUP = "fallback";

  /** Data files written natively (completed, at least one row). */
  public static final String NATIVE_DATA_FILES = "nativeDataFiles";

  /** Rows in those files. */
  public static final String NATIVE_ROWS = "nativeRows";

  /** Bytes of those files. */
  public static final String NATIVE_BYTES = "nativeBytes";

  /** Nanoseconds native encoder jobs spent encoding those files (summed over threads). */
  public static final String NATIVE_ENCODE_NANOS = "nativeEncodeNanos";

  /** Data files Frazil left to Iceberg's own writer (completed, at least one row). */
  public static final String STOCK_DATA_FILES = "stockDataFiles";

  /** Rows in those files. */
  public static final String STOCK_ROWS = "stockRows";

  /**
   * Per TaskManager only: bytes the native library has allocated now plus bytes Frazil's Arrow
   * buffers hold (both are shared by all tasks of the process).
   */
  public static final String NATIVE_MEMORY_BYTES = "nativeMemoryBytes";

  /** Per TaskManager only: the memory budget those bytes are held to (0: no budget). */
  public static final String MEMORY_BUDGET_BYTES = "memoryBudgetBytes";

  /** Per TaskManager only: row groups closed early to stay within the memory budget. */
  public static final String EARLY_ROW_GROUP_FLUSHES = "earlyRowGroupFlushes";

  /** Per TaskManager only: 1 while memory is short (files hold over half the budget), else 0. */
  public static final String MEMORY_PRESSURE = "memoryPressure";

  /** Per TaskManager only: how often memory pressure began. */
  public static final String MEMORY_PRESSURE_EPISODES = "memoryPressureEpisodes";

  /** Data files the native reader opened (per task: {@link ReadMetrics}). */
  public static final String NATIVE_READ_FILES = "nativeReadFiles";

  /** Row groups the native reader decoded. */
  public static final String NATIVE_READ_ROW_GROUPS = "nativeReadRowGroups";

  /** Column-chunk bytes fetched for native decoding. */
  public static final String NATIVE_READ_BYTES = "nativeReadBytes";

  /** Data files read by Iceberg's reader (by reason under {@code fallback.read.*}). */
  public static final String STOCK_READ_FILES = "stockReadFiles";

  private static final Logger LOG = LoggerFactory.getLogger(FrazilMetrics.class);

  private static final LongAdder NATIVE_FILES = new LongAdder();
  private static final LongAdder NATIVE_ROW_COUNT = new LongAdder();
  private static final LongAdder NATIVE_BYTE_COUNT = new LongAdder();
  private static final LongAdder NATIVE_NANOS = new LongAdder();
  private static final LongAdder STOCK_FILES = new LongAdder();
  private static final LongAdder STOCK_ROW_COUNT = new LongAdder();
  private static final Map<String, LongAdder> STOCK_BY_REASON = new ConcurrentHashMap<>();

  /** Read fallback reasons seen by this process (their counts are in ReadCounters). */
  private static final Set<String> READ_REASONS = ConcurrentHashMap.newKeySet();

  /** TaskManager groups seen, each with the fallback reasons registered in it (under LOCK). */
  private static final Map<TaskManagerMetricGroup, Set<String>> TASK_MANAGERS = new WeakHashMap<>();

  private static final Object LOCK = new Object();

  /** The writers' counters of the task running on this thread (task threads run one task). */
  private static final ThreadLocal<TaskCounters> TASK = new ThreadLocal<>();

  private static volatile boolean loggedRegistration = false;

  private FrazilMetrics() {}

  /**
   * Where a data-file writer built on this thread reports its file: the task's counters when this
   * is a Flink task thread, the process totals always. Never throws.
   */
  public static FileCounter forCurrentThread() {
    TaskMetricGroup group;
    try {
      group = TaskMetricGroups.current().orElse(null);
    } catch (RuntimeException | LinkageError e) {
      group = null;
    }
    if (group == null) {
      return FileCounter.PROCESS_ONLY;
    }
    TaskCounters cached = TASK.get();
    if (cached != null && cached.task == group) {
      return cached.counter;
    }
    try {
      TaskCounters created = new TaskCounters(group);
      TASK.set(created);
      return created.counter;
    } catch (RuntimeException | LinkageError e) {
      logRegistrationOnce(
          "Frazil metrics are reported per process only: registering them failed: " + e);
      return FileCounter.PROCESS_ONLY;
    }
  }

  /** Data files written natively by this process so far. */
  public static long nativeDataFiles() {
    return NATIVE_FILES.sum();
  }

  /** Data files this process left to Iceberg's own writer so far. */
  public static long stockDataFiles() {
    return STOCK_FILES.sum();
  }

  /** Data files this process left to Iceberg's own writer for {@code reason} so far. */
  public static long stockDataFiles(String reason) {
    LongAdder count = STOCK_BY_REASON.get(reason);
    return count == null ? 0L : count.sum();
  }

  /** Bytes the native library has allocated plus bytes Frazil's Arrow buffers hold, now. */
  public static long nativeMemoryBytes() {
    long rust = 0L;
    if (NativeLoader.isLoaded()) {
      try {
        rust = NativeParquetWriter.allocatedBytes();
      } catch (RuntimeException | LinkageError e) {
        rust = 0L;
      }
    }
    return rust + ArrowMemory.allocatedBytes();
  }

  /** Counts completed data files of one writer into the process totals and, maybe, a task. */
  public static class FileCounter {
    static final FileCounter PROCESS_ONLY = new FileCounter();

    private FileCounter() {}

    /** A data file written natively: {@code rows} rows, {@code bytes} long. */
    public void nativeFile(long rows, long bytes, long encodeNanos) {
      NATIVE_FILES.increment();
      NATIVE_ROW_COUNT.add(rows);
      NATIVE_BYTE_COUNT.add(bytes);
      NATIVE_NANOS.add(encodeNanos);
    }

    /** A data file written by Iceberg's writer for {@code reason} (a metric name). */
    public void stockFile(String reason, long rows) {
      STOCK_FILES.increment();
      STOCK_ROW_COUNT.add(rows);
      LongAdder byReason = STOCK_BY_REASON.get(reason);
      if (byReason == null) {
        byReason = STOCK_BY_REASON.computeIfAbsent(reason, r -> new LongAdder());
        registerReasonWithTaskManagers(reason);
      }
      byReason.increment();
    }
  }

  /** One task's counters, registered in its metric group when the task writes its first file. */
  private static final class TaskCounters {
    final TaskMetricGroup task;
    final FileCounter counter;

    TaskCounters(TaskMetricGroup task) {
      this.task = task;
      MetricGroup group = task.addGroup(GROUP);
      Counter nativeFiles = group.counter(NATIVE_DATA_FILES);
      Counter nativeRows = group.counter(NATIVE_ROWS);
      Counter nativeBytes = group.counter(NATIVE_BYTES);
      Counter nativeNanos = group.counter(NATIVE_ENCODE_NANOS);
      Counter stockFiles = group.counter(STOCK_DATA_FILES);
      Counter stockRows = group.counter(STOCK_ROWS);
      MetricGroup fallback = group.addGroup(FALLBACK_GROUP);
      Map<String, Counter> byReason = new ConcurrentHashMap<>();
      this.counter =
          new FileCounter() {
            @Override
            public void nativeFile(long rows, long bytes, long encodeNanos) {
              super.nativeFile(rows, bytes, encodeNanos);
              nativeFiles.inc();
              nativeRows.inc(rows);
              nativeBytes.inc(bytes);
              nativeNanos.inc(encodeNanos);
            }

            @Override
            public void stockFile(String reason, long rows) {
              super.stockFile(reason, rows);
              stockFiles.inc();
              stockRows.inc(rows);
              byReason.computeIfAbsent(reason, fallback::counter).inc();
            }
          };
      registerTaskManager(task.parent().parent());
      logRegistrationOnce(
          "Frazil metrics registered per task ("
              + task.getMetricIdentifier(GROUP)
              + ".*) and per TaskManager");
    }
  }

  static void registerTaskManager(TaskManagerMetricGroup taskManager) {
    synchronized (LOCK) {
      if (taskManager == null || TASK_MANAGERS.containsKey(taskManager)) {
        return;
      }
      Set<String> reasons = ConcurrentHashMap.newKeySet();
      TASK_MANAGERS.put(taskManager, reasons);
      MetricGroup group = taskManager.addGroup(GROUP);
      group.gauge(NATIVE_DATA_FILES, gauge(NATIVE_FILES));
      group.gauge(NATIVE_ROWS, gauge(NATIVE_ROW_COUNT));
      group.gauge(NATIVE_BYTES, gauge(NATIVE_BYTE_COUNT));
      group.gauge(NATIVE_ENCODE_NANOS, gauge(NATIVE_NANOS));
      group.gauge(STOCK_DATA_FILES, gauge(STOCK_FILES));
      group.gauge(STOCK_ROWS, gauge(STOCK_ROW_COUNT));
      group.gauge(NATIVE_MEMORY_BYTES, (Gauge<Long>) FrazilMetrics::nativeMemoryBytes);
      group.gauge(MEMORY_BUDGET_BYTES, (Gauge<Long>) MemoryBudget.process()::limitBytes);
      group.gauge(EARLY_ROW_GROUP_FLUSHES, (Gauge<Long>) MemoryBudget.process()::earlyFlushes);
      group.gauge(MEMORY_PRESSURE, (Gauge<Integer>) () -> MemoryBudget.underPressure() ? 1 : 0);
      group.gauge(MEMORY_PRESSURE_EPISODES, (Gauge<Long>) MemoryBudget::pressureEpisodes);
      group.gauge(NATIVE_READ_FILES, (Gauge<Long>) ReadCounters::nativeFiles);
      group.gauge(NATIVE_READ_ROW_GROUPS, (Gauge<Long>) ReadCounters::nativeRowGroups);
      group.gauge(NATIVE_READ_BYTES, (Gauge<Long>) ReadCounters::bytesFetched);
      group.gauge(STOCK_READ_FILES, (Gauge<Long>) ReadCounters::stockFiles);
      for (String reason : STOCK_BY_REASON.keySet()) {
        registerReason(taskManager, reasons, reason);
      }
      for (String reason : READ_REASONS) {
        registerReadReason(taskManager, reasons, reason);
      }
    }
  }

  /** Registers a read fallback reason's gauge with every TaskManager, the first time it occurs. */
  static void registerReadReasonWithTaskManagers(String reason) {
    if (!READ_REASONS.add(reason)) {
      return;
    }
    synchronized (LOCK) {
      for (Map.Entry<TaskManagerMetricGroup, Set<String>> entry : TASK_MANAGERS.entrySet()) {
        registerReadReason(entry.getKey(), entry.getValue(), reason);
      }
    }
  }

  private static void registerReadReason(
      TaskManagerMetricGroup taskManager, Set<String> registered, String reason) {
    // One set per TaskManager for both halves: read reasons are kept under their group's name.
    if (registered.add(ReadMetrics.READ_GROUP + "." + reason)) {
      taskManager
          .addGroup(GROUP)
          .addGroup(FALLBACK_GROUP)
          .addGroup(ReadMetrics.READ_GROUP)
          .gauge(reason, (Gauge<Long>) () -> ReadCounters.stockFiles(reason));
    }
  }

  private static void registerReasonWithTaskManagers(String reason) {
    synchronized (LOCK) {
      for (Map.Entry<TaskManagerMetricGroup, Set<String>> entry : TASK_MANAGERS.entrySet()) {
        registerReason(entry.getKey(), entry.getValue(), reason);
      }
    }
  }

  private static void registerReason(
      TaskManagerMetricGroup taskManager, Set<String> registered, String reason) {
    if (registered.add(reason)) {
      taskManager
          .addGroup(GROUP)
          .addGroup(FALLBACK_GROUP)
          .gauge(reason, gauge(STOCK_BY_REASON.get(reason)));
    }
  }

  private static Gauge<Long> gauge(LongAdder adder) {
    return adder::sum;
  }

  static void logRegistrationOnce(String message) {
    if (!loggedRegistration) {
      loggedRegistration = true;
      LOG.info("{} (logged once)", message);
    }
  }
}
