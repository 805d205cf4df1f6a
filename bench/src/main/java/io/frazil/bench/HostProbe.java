package io.frazil.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Three fixed kernels the harness times just before each trial, in its own JVM, so that a slow
 * trial can be told apart from a slow host: these VMs run the same work up to 2-3× slower in some
 * periods, and a memory-bound writer (Frazil at N = 1,024) feels that more than a GC-bound one.
 *
 * <ul>
 *   <li>{@code host_chase_ns}: one dependent load through a random cycle over 64 MiB (memory
 *       latency; no cache holds it);
 *   <li>{@code host_touch_ns_per_page}: first write to each 4 KiB page of 64 MiB of fresh native
 *       memory (a page fault, what a growing buffer pays);
 *   <li>{@code host_compute_ms}: a fixed integer loop in registers (the CPU's own speed).
 * </ul>
 *
 * The kernels run in the harness, never in the trial's JVM, so they change none of its figures.
 */
final class HostProbe {
  private static final int CHASE_SLOTS = 16 << 20; // 64 MiB of ints
  private static final int CHASE_LOADS = 2_000_000;
  private static final long TOUCH_BYTES = 64L << 20;
  private static final int PAGE = 4096;
  private static final long COMPUTE_STEPS = 200_000_000L;

  private static int[] cycle;

  /** Kept so the JIT cannot drop the kernels' work. */
  static volatile long sink;

  private HostProbe() {}

  /** The three figures, measured now (about half a second). */
  static Map<String, Double> measure() {
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("host_chase_ns", chaseNs());
    out.put("host_touch_ns_per_page", touchNsPerPage());
    out.put("host_compute_ms", computeMs());
    return out;
  }

  private static double chaseNs() {
    int[] next = cycle();
    // A short pass first, so the timed one does not include the JIT's compilation.
    int at = chase(next, 0, 100_000);
    long start = System.nanoTime();
    at = chase(next, at, CHASE_LOADS);
    long elapsed = System.nanoTime() - start;
    sink += at;
    return (double) elapsed / CHASE_LOADS;
  }

  private static int chase(int[] next, int from, int loads) {
    int at = from;
    for (int i = 0; i < loads; i += 1) {
      at = next[at];
    }
    return at;
  }

  /** One random cycle through every slot (Sattolo's shuffle), built once per harness. */
  private static synchronized int[] cycle() {
    if (cycle == null) {
      int[] next = new int[CHASE_SLOTS];
      for (int i = 0; i < next.length; i += 1) {
        next[i] = i;
      }
      SplittableRandom random = new SplittableRandom(42);
      for (int i = next.length - 1; i > 0; i -= 1) {
        int j = random.nextInt(i);
        int swap = next[i];
        next[i] = next[j];
        next[j] = swap;
      }
      cycle = next;
    }
    return cycle;
  }

  private static double touchNsPerPage() {
    long address = MemoryUtil.allocateMemory(TOUCH_BYTES);
    try {
      long start = System.nanoTime();
      for (long offset = 0; offset < TOUCH_BYTES; offset += PAGE) {
        MemoryUtil.putByte(address + offset, (byte) 1);
      }
      long elapsed = System.nanoTime() - start;
      return (double) elapsed / (TOUCH_BYTES / PAGE);
    } finally {
      MemoryUtil.freeMemory(address);
    }
  }

  private static double computeMs() {
    long x = 0x9E3779B97F4A7C15L;
    long start = System.nanoTime();
    for (long i = 0; i < COMPUTE_STEPS; i += 1) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    long elapsed = System.nanoTime() - start;
    sink += x;
    return elapsed / 1e6;
  }
}
