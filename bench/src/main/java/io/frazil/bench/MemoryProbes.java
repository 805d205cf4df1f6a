package io.frazil.bench;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeLoader;
import io.frazil.jni.NativeParquetWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The memory figures of a fan-out trial ({@link FanoutTrial}): the JVM's heap pools, this process's
 * {@code /proc} status and smaps, Arrow's and Frazil's native byte counts, and a sampler thread
 * that follows them during the measured write.
 */
final class MemoryProbes {
  private MemoryProbes() {}

  /** Samples RSS, heap in use, Arrow bytes and the native byte count until stopped. */
  static final class Sampler implements Runnable {
    private final int periodMs;
    private final Thread thread;
    private volatile boolean running = true;
    volatile long maxRssKb;
    volatile long maxHeapUsed;
    volatile long maxArrow;
    volatile long maxNativeCounter = -1;
    volatile int samples;

    Sampler(int periodMs) {
      this.periodMs = periodMs;
      this.thread = new Thread(this, "fanout-sampler");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join();
      sample();
    }

    @Override
    public void run() {
      while (running) {
        sample();
        try {
          Thread.sleep(periodMs);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private void sample() {
      maxRssKb = Math.max(maxRssKb, procStatusKb("VmRSS"));
      maxHeapUsed = Math.max(maxHeapUsed, heapUsed());
      maxArrow = Math.max(maxArrow, ArrowMemory.allocatedBytes());
      maxNativeCounter = Math.max(maxNativeCounter, nativeBytes());
      samples++;
    }
  }

  /** Frazil's native-allocator byte count, or -1 while the library is not loaded. */
  static long nativeBytes() {
    return NativeLoader.isLoaded() ? NativeParquetWriter.allocatedBytes() : -1;
  }

  static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Resets every pool's peak, so {@link #peakHeapPools} covers the measured write only. */
  static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      pool.resetPeakUsage();
    }
  }

  /** Sum over heap pools of each pool's peak used bytes (an upper bound of the heap's peak). */
  static long peakHeapPools() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /**
   * Resident memory not explained by the JVM: RSS − resident Java heap − committed non-heap
   * (metaspace, code cache, ...). The heap is fixed (-Xms = -Xmx), so its committed size says
   * nothing about residency; its resident bytes come from the heap's mapping in smaps (the one
   * anonymous mapping at least as large as -Xmx). Thread stacks, malloc'd JVM internals, zstd-jni
   * contexts, Arrow buffers and Frazil's native encoder all land here. -1 when smaps is missing.
   */
  static long nativeEstimate() {
    long heapRss = heapResidentBytes();
    if (heapRss < 0) {
      return -1;
    }
    long nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage().getCommitted();
    return procStatusKb("VmRSS") * 1024 - heapRss - nonHeap;
  }

  /** The first line of an smaps entry: "start-end perms ...". */
  private static final Pattern MAPPING = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");

  /**
   * Resident bytes of the Java heap: the anonymous read-write mapping whose size is within 10% of
   * -Xmx (G1 reserves the heap as one mapping; with -Xms = -Xmx it is committed at start), or -1.
   */
  static long heapResidentBytes() {
    long max = Runtime.getRuntime().maxMemory();
    try {
      List<String> lines = Files.readAllLines(Paths.get("/proc/self/smaps"));
      long best = -1;
      long bestSize = 0;
      boolean candidate = false;
      long size = 0;
      for (String line : lines) {
        if (MAPPING.matcher(line).lookingAt()) {
          String[] parts = line.trim().split("\\s+");
          candidate = parts.length == 5 && parts[1].startsWith("rw");
        } else if (line.startsWith("Size:")) {
          size = kb(line) * 1024;
        } else if (line.startsWith("Rss:")
            && candidate
            && size >= max * 0.9
            && size <= max * 1.1
            && size > bestSize) {
          best = kb(line) * 1024;
          bestSize = size;
        }
      }
      return best;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** A {@code /proc/self/status} figure in KB ("VmRSS", "VmHWM"), or -1. */
  static long procStatusKb(String key) {
    return statusKb(Paths.get("/proc/self/status"), key);
  }

  /**
   * Minor page faults of the whole process so far ({@code minflt} of {@code /proc/self/stat}), or
   * -1: every first touch of a fresh page (the kernel zeroes it) is one.
   */
  static long minorFaults() {
    try {
      String stat = Files.readString(Paths.get("/proc/self/stat"));
      // Fields after the parenthesised name: state is field 3, minflt field 10.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      return Long.parseLong(fields[7]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** A figure in KB from a {@code /proc/<pid>/status} file, or -1 when it cannot be read. */
  static long statusKb(Path status, String key) {
    try {
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith(key + ":")) {
          return kb(line);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private static long kb(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }
}
