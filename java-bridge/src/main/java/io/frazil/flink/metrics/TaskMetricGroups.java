package io.frazil.flink.metrics;

import io.frazil.reflect.PrivateMembers;
import java.util.Optional;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;
import org.apache.flink.runtime.taskmanager.Task;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the Flink {@link TaskMetricGroup} of the task running on the current thread.
 *
 * <p>Iceberg builds data-file appenders deep inside its task writers, with no Flink metric group in
 * reach. But they run on the task's own thread, and Flink's {@link Task} creates that thread as
 * {@code new Thread(TASK_THREADS_GROUP, this, name)}: the thread's {@link Runnable} is the Task,
 * whose {@link Task#getMetricGroup()} is public. Reading a thread's Runnable takes reflection into
 * {@code java.lang.Thread}, which needs {@code --add-opens=java.base/java.lang=ALL-UNNAMED} (part
 * of Flink's default {@code env.java.opts.all}).
 *
 * <p>The thread's fields are declared in {@link PrivateMembers}; this is the only reflection of the
 * metrics code. When anything is missing (not a task thread, the module not opened, another JDK or
 * Flink layout) it returns empty, never throws, and says why once per process at INFO.
 */
final class TaskMetricGroups {
  private static final Logger LOG = LoggerFactory.getLogger(TaskMetricGroups.class);

  /** Reads a thread's Runnable, or null when this JVM does not let us. */
  private static final RunnableReader READER = reader();

  /** How Flink's SplitFetcherManager names a source's fetcher threads (THREAD_NAME_PREFIX). */
  static final String FETCHER_PREFIX = "Source Data Fetcher for ";

  private static volatile boolean loggedNoTask = false;

  private TaskMetricGroups() {}

  /** The metric group of the Flink task running on this thread, or empty. */
  public static Optional<TaskMetricGroup> current() {
    return of(Thread.currentThread());
  }

  /**
   * The metric group of the Flink task that {@code thread} runs, or, for a FLIP-27 source's split
   * fetcher thread, of the task that owns the fetcher; or empty.
   */
  static Optional<TaskMetricGroup> of(Thread thread) {
    if (READER == null) {
      return Optional.empty();
    }
    try {
      Object runnable = READER.read(thread);
      if (runnable instanceof Task) {
        return Optional.ofNullable(((Task) runnable).getMetricGroup());
      }
      Task owner = fetcherOwner(thread);
      return owner == null ? Optional.empty() : Optional.ofNullable(owner.getMetricGroup());
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      if (!loggedNoTask) {
        loggedNoTask = true;
        LOG.info(
            "Frazil metrics are reported per process only: cannot find a thread's Flink task ({})",
            e.toString());
      }
      return Optional.empty();
    }
  }

  /**
   * The task whose source reader started {@code thread}, when it is a split fetcher thread.
   *
   * <p>A FLIP-27 source (the IcebergSource) reads its splits on fetcher threads, which Flink's
   * SplitFetcherManager names {@value #FETCHER_PREFIX} + the task thread's name, and which the task
   * thread creates, so they share its thread group. The task is the thread of that group with that
   * name whose Runnable is a Task. Two tasks of the same name in one process (the same job twice in
   * a MiniCluster) cannot be told apart: the first found is taken.
   */
  private static Task fetcherOwner(Thread thread) throws ReflectiveOperationException {
    String name = thread.getName();
    ThreadGroup group = thread.getThreadGroup();
    if (!name.startsWith(FETCHER_PREFIX) || group == null) {
      return null;
    }
    String taskThreadName = name.substring(FETCHER_PREFIX.length());
    Thread[] threads = new Thread[group.activeCount() + 16];
    int count = group.enumerate(threads, false);
    for (int i = 0; i < count; i++) {
      if (threads[i] != thread && taskThreadName.equals(threads[i].getName())) {
        Object runnable = READER.read(threads[i]);
        if (runnable instanceof Task) {
          return (Task) runnable;
        }
      }
    }
    return null;
  }

  /** True when this JVM lets Frazil read a thread's Runnable (tests). */
  static boolean canReadThreads() {
    return READER != null;
  }

  @FunctionalInterface
  private interface RunnableReader {
    Object read(Thread thread) throws ReflectiveOperationException;
  }

  private static RunnableReader reader() {
    try {
      // Resolving throws InaccessibleObjectException (a RuntimeException) when java.lang is not
      // opened.
      if (PrivateMembers.THREAD_TARGET.existsOnThisJvm()) {
        PrivateMembers.THREAD_TARGET.check();
        return PrivateMembers.THREAD_TARGET::get;
      }
      PrivateMembers.THREAD_HOLDER.check();
      PrivateMembers.THREAD_HOLDER_TASK.check();
      return thread -> {
        Object fields = PrivateMembers.THREAD_HOLDER.get(thread);
        return fields == null ? null : PrivateMembers.THREAD_HOLDER_TASK.get(fields);
      };
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.info(
          "Frazil metrics are reported per process only: cannot read a thread's Runnable to find"
              + " its Flink task (start the JVM with --add-opens=java.base/java.lang=ALL-UNNAMED,"
              + " as Flink's env.java.opts.all does): {}",
          e.toString());
      return null;
    }
  }
}
