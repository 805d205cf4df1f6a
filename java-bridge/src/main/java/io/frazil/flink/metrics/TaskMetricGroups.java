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

  private static volatile boolean loggedNoTask = false;

  private TaskMetricGroups() {}

  /** The metric group of the Flink task running on this thread, or empty. */
  public static Optional<TaskMetricGroup> current() {
    return of(Thread.currentThread());
  }

  /** The metric group of the Flink task that {@code thread} runs, or empty. */
  static Optional<TaskMetricGroup> of(Thread thread) {
    if (READER == null) {
      return Optional.empty();
    }
    try {
      Object runnable = READER.read(thread);
      if (runnable instanceof Task) {
        return Optional.ofNullable(((Task) runnable).getMetricGroup());
      }
      return Optional.empty();
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
