package io.frazil.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.ThreadMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Process-wide Java heap allocation over a whole Flink job, whose task threads are created and gone
 * within the measured interval.
 *
 * <p>JDK 17 has no process-wide allocation counter ({@code getTotalThreadAllocatedBytes} arrived in
 * JDK 21), and per-thread counters vanish with their threads. So two figures are kept: a GC account
 * (heap used after − heap used before + everything the collections in between freed, from GC
 * notifications, heap pools only), which sees every thread's allocation; and the sum of {@code
 * getThreadAllocatedBytes} over the threads alive at the start and at the end, which misses threads
 * that lived only inside the interval (Flink's task threads) and is kept as a floor only.
 */
final class JobHeap {
  private final ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
  private final List<GarbageCollectorMXBean> collectors =
      ManagementFactory.getGarbageCollectorMXBeans();
  private final List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans();
  private final Set<String> heapPools = new HashSet<>();
  private final AtomicLong freed = new AtomicLong();
  private final AtomicLong notified = new AtomicLong();
  private final boolean notifications;
  private final long baselineCount;

  JobHeap() {
    long collections = 0;
    for (GarbageCollectorMXBean gc : collectors) {
      collections += Math.max(0, gc.getCollectionCount());
    }
    this.baselineCount = collections;
    for (MemoryPoolMXBean pool : pools) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    boolean all = true;
    for (GarbageCollectorMXBean gc : collectors) {
      if (!(gc instanceof NotificationEmitter)) {
        all = false;
        continue;
      }
      ((NotificationEmitter) gc)
          .addNotificationListener(
              (notification, handback) -> {
                if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                    notification.getType())) {
                  return;
                }
                GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long delta = 0;
                Map<String, MemoryUsage> before = info.getGcInfo().getMemoryUsageBeforeGc();
                Map<String, MemoryUsage> after = info.getGcInfo().getMemoryUsageAfterGc();
                for (String pool : heapPools) {
                  MemoryUsage b = before.get(pool);
                  MemoryUsage a = after.get(pool);
                  if (b != null && a != null) {
                    delta += b.getUsed() - a.getUsed();
                  }
                }
                freed.addAndGet(delta);
                notified.incrementAndGet();
              },
              null,
              null);
    }
    this.notifications = all;
  }

  boolean notificationsAvailable() {
    return notifications;
  }

  /** One reading: GC account and live-thread sum. */
  static final class Reading {
    final long gcAccount;
    final Map<Long, Long> threadBytes;
    final long gcCount;
    final long gcMs;

    Reading(long gcAccount, Map<Long, Long> threadBytes, long gcCount, long gcMs) {
      this.gcAccount = gcAccount;
      this.threadBytes = threadBytes;
      this.gcCount = gcCount;
      this.gcMs = gcMs;
    }

    /**
     * Bytes allocated since {@code start} by the threads alive now (a thread born since counts in
     * full); threads that ended in between are missing.
     */
    long liveThreadsSince(Reading start) {
      long sum = 0;
      for (Map.Entry<Long, Long> e : threadBytes.entrySet()) {
        Long before = start.threadBytes.get(e.getKey());
        sum += e.getValue() - (before == null ? 0 : before);
      }
      return sum;
    }
  }

  /**
   * Reads the counters. GC notifications arrive asynchronously: waits (up to a second) until one
   * has arrived for every collection the collector beans have counted.
   */
  Reading read() {
    long count = 0;
    long ms = 0;
    for (GarbageCollectorMXBean gc : collectors) {
      count += Math.max(0, gc.getCollectionCount());
      ms += Math.max(0, gc.getCollectionTime());
    }
    long deadline = System.nanoTime() + 1_000_000_000L;
    while (notifications
        && baselineCount + notified.get() < count
        && System.nanoTime() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    long used = 0;
    for (MemoryPoolMXBean pool : pools) {
      if (heapPools.contains(pool.getName())) {
        used += pool.getUsage().getUsed();
      }
    }
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    Map<Long, Long> live = new HashMap<>(ids.length * 2);
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        live.put(ids[i], bytes[i]);
      }
    }
    return new Reading(freed.get() + used, live, count, ms);
  }
}
