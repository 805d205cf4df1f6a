package io.frazil.iceberg;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The process-wide Arrow root allocator of the bridge. Each writer takes a child of it, so a leak
 * is attributable to one file and the root's allocated bytes return to zero when all writers are
 * closed (tests assert this).
 */
public final class ArrowMemory {
  private static final BufferAllocator ROOT = new RootAllocator();

  private ArrowMemory() {}

  /** A child allocator for one writer; close it with the writer. */
  public static BufferAllocator newWriterAllocator(String name) {
    return ROOT.newChildAllocator(name, 0, Long.MAX_VALUE);
  }

  /** Bytes currently held by all bridge writers. */
  public static long allocatedBytes() {
    return ROOT.getAllocatedMemory();
  }
}
