package io.frazil.iceberg;

import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The process-wide Arrow root allocator of the bridge. Each writer takes a child of it, so a leak
 * is attributable to one file and the root's allocated bytes return to zero when all writers are
 * closed (tests assert this).
 *
 * <p>Also the one check that Arrow can hand batches to native code in this JVM at all: the C Data
 * Interface views its structs through {@code java.nio} internals, which Java 17 opens only with
 * {@value #ADD_OPENS}.
 */
public final class ArrowMemory {
  /** The JVM option Arrow needs, exactly as it must be written. */
  public static final String ADD_OPENS = "--add-opens=java.base/java.nio=ALL-UNNAMED";

  private static final BufferAllocator ROOT = new RootAllocator();

  /**
   * Holds the batches that cross operators ({@code io.frazil.exchange.ArrowBatch}): decoded from
   * the network, copied, or created by the exchange. Never closed: a batch may be released late, by
   * the garbage collector's cleaner.
   */
  private static final BufferAllocator EXCHANGE =
      ROOT.newChildAllocator("exchange", 0, Long.MAX_VALUE);

  private ArrowMemory() {}

  /** A child allocator for one writer; close it with the writer. */
  public static BufferAllocator newWriterAllocator(String name) {
    return ROOT.newChildAllocator(name, 0, Long.MAX_VALUE);
  }

  /** A child allocator for one file read natively; close it with the reader. */
  public static BufferAllocator newReaderAllocator(String name) {
    return ROOT.newChildAllocator("read " + name, 0, Long.MAX_VALUE);
  }

  /** The allocator of the batches that cross operators (never closed). */
  public static BufferAllocator exchangeAllocator() {
    return EXCHANGE;
  }

  /** Bytes currently held by all bridge writers, readers and exchanged batches. */
  public static long allocatedBytes() {
    return ROOT.getAllocatedMemory();
  }

  /**
   * Why Arrow's C Data export cannot work in this JVM (typically: {@value #ADD_OPENS} is missing),
   * or null when it can. Probed once per process, on a private allocator.
   */
  public static Throwable accessProblem() {
    return AccessProbe.PROBLEM;
  }

  /** Probed when first asked (class initialization is the lock). */
  private static final class AccessProbe {
    static final Throwable PROBLEM = probeAccess();
  }

  /** The message that says what is missing and how to fix it. */
  public static String accessAdvice() {
    return "Frazil cannot hand Arrow batches to its native encoder in this JVM: start it with "
        + ADD_OPENS
        + " (on a Flink cluster, append it to env.java.opts.all in config.yaml; keep the options"
        + " already there)";
  }

  /** Throws an {@link IllegalStateException} naming the fix, with the real cause, if needed. */
  static void checkAccess() {
    Throwable problem = accessProblem();
    if (problem != null) {
      throw new IllegalStateException(accessAdvice() + ". Cause: " + problem, problem);
    }
  }

  private static Throwable probeAccess() {
    // Exactly what every writer does first: allocate a C Data struct and read it. A failed probe
    // leaves its few bytes in its own allocator, which is dropped unclosed (closing it would only
    // log a leak report that hides the real problem).
    BufferAllocator probe = new RootAllocator(4096);
    try {
      ArrowSchema struct = ArrowSchema.allocateNew(probe);
      struct.snapshot();
      struct.close();
    } catch (Throwable t) {
      return t;
    }
    probe.close();
    return null;
  }
}
