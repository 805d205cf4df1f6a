package io.frazil.iceberg;

import java.util.ArrayDeque;
import java.util.Collection;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.vector.FieldVector;

/**
 * The root allocator behind a batch's buffers. Arrow moves a buffer only to an allocator of its own
 * root (arrow-java checks it per buffer), and a C Data export works only through one of the batch's
 * root: who may take or export a batch follows from this.
 */
public final class BufferRoots {
  private BufferRoots() {}

  /** A batch whose buffers belong to more than one root allocator. */
  public static final class MixedRootsException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    MixedRootsException(String message) {
      super(message);
    }
  }

  /**
   * The root allocator of every buffer of {@code vectors} and their children; when they hold no
   * buffer at all, the first vector's allocator's root.
   *
   * @throws MixedRootsException naming the column and both allocators, when there are two roots
   */
  public static BufferAllocator of(Collection<FieldVector> vectors) {
    BufferAllocator[] found = {null};
    forEachBuffer(
        vectors,
        (vector, manager) -> {
          BufferAllocator root = manager.getAllocator().getRoot();
          if (found[0] == null) {
            found[0] = root;
          } else if (found[0] != root) {
            throw new MixedRootsException(
                "holds buffers of two root allocators ('"
                    + found[0].getName()
                    + "' and '"
                    + root.getName()
                    + "', column '"
                    + vector.getName()
                    + "')");
          }
          return true;
        });
    if (found[0] == null && !vectors.isEmpty()) {
      return vectors.iterator().next().getAllocator().getRoot();
    }
    return found[0];
  }

  /** True when every buffer of {@code vectors} and their children is accounted to {@code owner}. */
  public static boolean allOwnedBy(Collection<FieldVector> vectors, BufferAllocator owner) {
    return forEachBuffer(vectors, (vector, manager) -> manager.getAllocator() == owner);
  }

  /** Sees one buffer of a vector; false stops the walk. */
  private interface BufferVisitor {
    boolean visit(FieldVector vector, ReferenceManager manager);
  }

  /**
   * Shows {@code visitor} the reference manager of every buffer of {@code vectors} and their
   * children, breadth first, skipping empty buffers (Arrow's no-op manager: no allocator's).
   *
   * @return false when the visitor stopped the walk
   */
  private static boolean forEachBuffer(Collection<FieldVector> vectors, BufferVisitor visitor) {
    ArrayDeque<FieldVector> pending = new ArrayDeque<>(vectors);
    while (!pending.isEmpty()) {
      FieldVector vector = pending.pollFirst();
      for (ArrowBuf buffer : vector.getFieldBuffers()) {
        ReferenceManager manager = buffer.getReferenceManager();
        if (manager != ReferenceManager.NO_OP && !visitor.visit(vector, manager)) {
          return false;
        }
      }
      pending.addAll(vector.getChildrenFromFields());
    }
    return true;
  }
}
