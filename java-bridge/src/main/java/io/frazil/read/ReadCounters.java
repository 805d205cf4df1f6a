package io.frazil.read;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Process-wide counts of the native read path, for metrics and tests. */
public final class ReadCounters {
  private static final AtomicLong FILES = new AtomicLong();
  private static final AtomicLong ROW_GROUPS = new AtomicLong();
  private static final AtomicLong BYTES = new AtomicLong();

  private static final Map<String, LongAdder> STOCK_BY_REASON = new ConcurrentHashMap<>();

  private ReadCounters() {}

  /** A file read by Iceberg's own reader, and why (the reason's short name). */
  public static void stockFile(String reason) {
    STOCK_BY_REASON.computeIfAbsent(reason, r -> new LongAdder()).increment();
  }

  /** Files read by Iceberg's own reader for {@code reason}. */
  public static long stockFiles(String reason) {
    LongAdder count = STOCK_BY_REASON.get(reason);
    return count == null ? 0 : count.sum();
  }

  /** Files read by Iceberg's own reader, every reason. */
  public static long stockFiles() {
    return STOCK_BY_REASON.values().stream().mapToLong(LongAdder::sum).sum();
  }

  static void fileOpened() {
    FILES.incrementAndGet();
  }

  static void rowGroupRead() {
    ROW_GROUPS.incrementAndGet();
  }

  static void bytesFetched(long bytes) {
    BYTES.addAndGet(bytes);
  }

  /** Data files opened by the native reader. */
  public static long nativeFiles() {
    return FILES.get();
  }

  /** Row groups decoded natively. */
  public static long nativeRowGroups() {
    return ROW_GROUPS.get();
  }

  /** Column-chunk bytes fetched for native decoding. */
  public static long bytesFetched() {
    return BYTES.get();
  }
}
