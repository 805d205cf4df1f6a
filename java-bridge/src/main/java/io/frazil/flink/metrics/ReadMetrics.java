package io.frazil.flink.metrics;

import io.frazil.read.ReadListener;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;

/**
 * The read half of Frazil's Flink metrics: per task, under the task's metric group ({@value
 * FrazilMetrics#GROUP} sub-group), counters {@value FrazilMetrics#NATIVE_READ_FILES}, {@value
 * FrazilMetrics#NATIVE_READ_ROW_GROUPS}, {@value FrazilMetrics#NATIVE_READ_BYTES}, {@value
 * FrazilMetrics#STOCK_READ_FILES}, and one counter per fallback reason in {@value
 * FrazilMetrics#FALLBACK_GROUP}.{@value #READ_GROUP}, registered when the task reads its first
 * file. Per TaskManager the same names are gauges of the process totals ({@link FrazilMetrics}).
 *
 * <p>A FLIP-27 source reads on split fetcher threads, not on its task's thread; {@link
 * TaskMetricGroups} finds the task that owns such a thread, so both threads count into the one
 * task's counters, kept here per task rather than per thread.
 */
public final class ReadMetrics {
  /** The sub-group of {@value FrazilMetrics#FALLBACK_GROUP} with the read fallback reasons. */
  public static final String READ_GROUP = "read";

  /** Each task's read counters (under the class lock; weak: a finished task's group goes). */
  private static final Map<TaskMetricGroup, ReadListener> TASKS = new WeakHashMap<>();

  private ReadMetrics() {}

  /**
   * Where a file read on this thread reports: the counters of the task the thread runs or fetches
   * for, and the process totals always. Never throws.
   */
  public static ReadListener forCurrentThread() {
    TaskMetricGroup group;
    try {
      group = TaskMetricGroups.current().orElse(null);
    } catch (RuntimeException | LinkageError e) {
      group = null;
    }
    if (group == null) {
      return ProcessListener.INSTANCE;
    }
    synchronized (ReadMetrics.class) {
      ReadListener known = TASKS.get(group);
      if (known != null) {
        return known;
      }
      try {
        ReadListener created = new TaskListener(group);
        TASKS.put(group, created);
        return created;
      } catch (RuntimeException | LinkageError e) {
        FrazilMetrics.logRegistrationOnce(
            "Frazil read metrics are reported per process only: registering them failed: " + e);
        return ProcessListener.INSTANCE;
      }
    }
  }

  /** The process totals, and each new fallback reason registered with the TaskManagers. */
  private static class ProcessListener extends ReadListener {
    static final ProcessListener INSTANCE = new ProcessListener();

    @Override
    public void stockFile(String reason) {
      super.stockFile(reason);
      FrazilMetrics.registerReadReasonWithTaskManagers(reason);
    }
  }

  /** One task's counters, plus the process totals. */
  private static final class TaskListener extends ProcessListener {
    private final Counter files;
    private final Counter rowGroups;
    private final Counter bytes;
    private final Counter stockFiles;
    private final MetricGroup fallback;
    private final Map<String, Counter> byReason = new ConcurrentHashMap<>();

    TaskListener(TaskMetricGroup task) {
      // addGroup returns the group the task's writers may have registered already.
      MetricGroup group = task.addGroup(FrazilMetrics.GROUP);
      this.files = group.counter(FrazilMetrics.NATIVE_READ_FILES);
      this.rowGroups = group.counter(FrazilMetrics.NATIVE_READ_ROW_GROUPS);
      this.bytes = group.counter(FrazilMetrics.NATIVE_READ_BYTES);
      this.stockFiles = group.counter(FrazilMetrics.STOCK_READ_FILES);
      this.fallback = group.addGroup(FrazilMetrics.FALLBACK_GROUP).addGroup(READ_GROUP);
      FrazilMetrics.registerTaskManager(task.parent().parent());
      FrazilMetrics.logRegistrationOnce(
          "Frazil read metrics registered per task ("
              + task.getMetricIdentifier(FrazilMetrics.GROUP)
              + ".*) and per TaskManager");
    }

    @Override
    public void fileOpened() {
      super.fileOpened();
      files.inc();
    }

    @Override
    public void rowGroupRead() {
      super.rowGroupRead();
      rowGroups.inc();
    }

    @Override
    public void bytesFetched(long fetched) {
      super.bytesFetched(fetched);
      bytes.inc(fetched);
    }

    @Override
    public void stockFile(String reason) {
      super.stockFile(reason);
      stockFiles.inc();
      byReason.computeIfAbsent(reason, fallback::counter).inc();
    }
  }
}
