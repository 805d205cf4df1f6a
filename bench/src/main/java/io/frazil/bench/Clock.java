package io.frazil.bench;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;

/**
 * What one timed region cost: wall, process CPU, this thread's CPU and heap allocation, and GC.
 * {@link #start()} reads the slow counters first and the wall clock last, {@link #stop()} the wall
 * clock first, so the counters' own cost stays outside the measured wall time.
 */
final class Clock {
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  final long wallNs;
  final long processCpuNs;
  final long threadCpuNs;
  final long allocatedBytes;
  final long gcCount;
  final long gcMs;

  private Clock(
      long wallNs,
      long processCpuNs,
      long threadCpuNs,
      long allocatedBytes,
      long gcCount,
      long gcMs) {
    this.wallNs = wallNs;
    this.processCpuNs = processCpuNs;
    this.threadCpuNs = threadCpuNs;
    this.allocatedBytes = allocatedBytes;
    this.gcCount = gcCount;
    this.gcMs = gcMs;
  }

  /** Turns on the per-thread counters; fails the run when this JVM cannot measure them. */
  static void enable() {
    Guards.check(
        THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadAllocatedMemorySupported(),
        "This JVM cannot measure thread CPU time or allocation");
    THREADS.setThreadCpuTimeEnabled(true);
    THREADS.setThreadAllocatedMemoryEnabled(true);
  }

  /** Collects garbage first when asked (so no arm pays for the other's); returns the ms it took. */
  static long collectGarbage(boolean collect) {
    long start = System.nanoTime();
    if (collect) {
      System.gc();
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  /** The counters now, on this thread. */
  static Clock start() {
    long gcCount = RunFacts.gcCount();
    long gcMs = RunFacts.gcMillis();
    long alloc = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    long thread = THREADS.getCurrentThreadCpuTime();
    long process = OS.getProcessCpuTime();
    return new Clock(System.nanoTime(), process, thread, alloc, gcCount, gcMs);
  }

  /** What passed since {@code this} was started, on the same thread. */
  Clock stop() {
    long wall = System.nanoTime();
    long process = OS.getProcessCpuTime();
    long thread = THREADS.getCurrentThreadCpuTime();
    long alloc = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    return new Clock(
        wall - wallNs,
        process - processCpuNs,
        thread - threadCpuNs,
        alloc - allocatedBytes,
        RunFacts.gcCount() - gcCount,
        RunFacts.gcMillis() - gcMs);
  }
}
