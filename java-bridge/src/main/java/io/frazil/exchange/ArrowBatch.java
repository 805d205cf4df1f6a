package io.frazil.exchange;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.BufferRoots;
import java.lang.ref.Cleaner;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One Arrow batch as a Flink stream element: an arrow-java {@link VectorSchemaRoot} that this
 * object owns, tagged with its schema.
 *
 * <p>Ownership: the batch is released exactly once. {@link #close()} releases it; a second {@code
 * close()} throws {@link IllegalStateException} (never a second free), and so does reading it after
 * release ({@link #root()}, {@link #rowCount()}). A batch nobody closes is released when the
 * garbage collector finds it unreachable (a {@link Cleaner}), which covers the batches Flink itself
 * drops: the original after it serialized or copied it, those in flight when a task fails. That is
 * a safety net, counted by {@link #releasedUnclosed()}; whoever holds a batch last closes it (see
 * ARCHITECTURE.md, "Arrow batches between operators").
 *
 * <p>The vectors must not be written once the batch exists: a copy ({@link #copy()}) or a
 * serialized form may already have been taken. The batch's buffers must stay valid until it is
 * released: their allocator stays open (the exchange allocator, {@code
 * ArrowMemory.exchangeAllocator()}, is never closed).
 *
 * <p>Reading and releasing may happen on different threads, one at a time, as Flink hands a record
 * from thread to thread; releasing is atomic, so a race between two releases still frees once.
 */
public final class ArrowBatch implements AutoCloseable {
  /** One daemon thread for the whole process. */
  private static final Cleaner CLEANER = Cleaner.create();

  private static final AtomicLong LIVE = new AtomicLong();
  private static final AtomicLong RELEASED_UNCLOSED = new AtomicLong();

  private final Schema schema;
  private final VectorSchemaRoot root;
  private final Release release;
  private final Cleaner.Cleanable cleanable;

  private ArrowBatch(VectorSchemaRoot root) {
    this.schema = root.getSchema();
    this.root = root;
    this.release = new Release(root);
    LIVE.incrementAndGet();
    this.cleanable = CLEANER.register(this, release);
  }

  /**
   * A batch that owns {@code root}: the caller must not use, close or refill {@code root} after
   * this (closing the batch closes it).
   */
  public static ArrowBatch of(VectorSchemaRoot root) {
    return new ArrowBatch(Objects.requireNonNull(root, "Invalid root: null"));
  }

  /**
   * A batch handed over through the Arrow C Data Interface, for code that holds its own Arrow
   * library (the runtime jar relocates Frazil's, so an arrow-java {@code VectorSchemaRoot} of the
   * job's own Arrow is another class): export the root with that library ({@code
   * Data.exportVectorSchemaRoot(allocator, root, null, array, schema)}) into an {@code ArrowArray}
   * and an {@code ArrowSchema} it allocated, and pass their {@code memoryAddress()}. The C Data
   * Interface is an ABI, the same for every Arrow library and version, so no class crosses.
   *
   * <p>Both structs are moved: this call takes them (leaving them released), also when it fails.
   * The buffers are not copied: the batch holds a reference to each, accounted in the exchange
   * allocator, and releases them when it is released; the exporting allocator must stay open until
   * then. For a Frazil sink, export with the layout's schema ({@code
   * ArrowRowLayout.arrowSchemaJson()}), whose field metadata carries the Iceberg field ids.
   *
   * @throws IllegalArgumentException if an address is 0, or the structs do not hold a valid batch
   */
  public static ArrowBatch importCData(long arrayAddress, long schemaAddress) {
    if (arrayAddress == 0 || schemaAddress == 0) {
      throw new IllegalArgumentException(
          "Cannot import an ArrowBatch from C Data at address 0 (array "
              + arrayAddress
              + ", schema "
              + schemaAddress
              + ")");
    }
    ArrowArray array = ArrowArray.wrap(arrayAddress);
    ArrowSchema schema = ArrowSchema.wrap(schemaAddress);
    BufferAllocator exchange = ArrowMemory.exchangeAllocator();
    try {
      return new ArrowBatch(Data.importVectorSchemaRoot(exchange, array, schema, null));
    } catch (RuntimeException e) {
      // Moved also on failure: hand back whatever the import did not take.
      releaseIfPending(array, schema, e);
      throw new IllegalArgumentException("Cannot import an ArrowBatch from C Data: " + e, e);
    }
  }

  /**
   * Hands the batch's rows to code with its own Arrow library through the C Data Interface (see
   * {@link #importCData}): fills the empty {@code ArrowArray} and {@code ArrowSchema} at these
   * addresses, allocated by that library, which then imports them ({@code
   * Data.importVectorSchemaRoot}). The buffers are shared by reference count, not copied: the batch
   * stays open, and its holder still closes it; the importer's vectors keep the buffers alive until
   * they are released in turn.
   *
   * @throws IllegalStateException if the batch was released
   * @throws IllegalArgumentException if an address is 0
   */
  public void exportCData(long arrayAddress, long schemaAddress) {
    ensureOpen("export");
    if (arrayAddress == 0 || schemaAddress == 0) {
      throw new IllegalArgumentException("Cannot export " + this + " to C Data at address 0");
    }
    // Exported through the batch's own allocator: arrow-java exports only buffers of the
    // exporting allocator's root.
    BufferAllocator allocator =
        root.getFieldVectors().isEmpty()
            ? ArrowMemory.exchangeAllocator()
            : root.getVector(0).getAllocator();
    Data.exportVectorSchemaRoot(
        allocator, root, null, ArrowArray.wrap(arrayAddress), ArrowSchema.wrap(schemaAddress));
  }

  private static void releaseIfPending(ArrowArray array, ArrowSchema schema, RuntimeException e) {
    try {
      if (array.snapshot().release != 0) {
        array.release();
      }
      if (schema.snapshot().release != 0) {
        schema.release();
      }
    } catch (RuntimeException release) {
      e.addSuppressed(release);
    }
  }

  /** The batch's schema (its tag); readable after release too. */
  public Schema schema() {
    return schema;
  }

  /** The vectors, for reading only. */
  public VectorSchemaRoot root() {
    ensureOpen("read");
    return root;
  }

  public int rowCount() {
    ensureOpen("count the rows of");
    return root.getRowCount();
  }

  public boolean isReleased() {
    return release.claimed.get();
  }

  /**
   * An independent copy, released on its own (see {@link #close()}). A batch's vectors are never
   * written once it exists, so a batch whose buffers are all in the exchange allocator (built by
   * Frazil's steps, deserialized, or read by the Arrow source) is copied without moving a byte: its
   * buffers are exported and imported again through the Arrow C Data Interface, which holds a
   * reference to each until the copy is released. This is what Flink's chained operators pay per
   * batch with object reuse off. A batch of another allocator is copied deeply into the exchange
   * allocator instead, so that no copy ever depends on a caller's allocator staying open.
   */
  public ArrowBatch copy() {
    ensureOpen("copy");
    BufferAllocator exchange = ArrowMemory.exchangeAllocator();
    if (!BufferRoots.allOwnedBy(root.getFieldVectors(), exchange)) {
      return ArrowBatchCodec.copy(this);
    }
    VectorSchemaRoot copy = VectorSchemaRoot.create(schema, exchange);
    ArrowArray array = ArrowArray.allocateNew(exchange);
    boolean exported = false;
    boolean imported = false;
    try {
      Data.exportVectorSchemaRoot(exchange, root, null, array);
      exported = true;
      // Moves the buffers (references, no bytes) into the copy's vectors and closes the struct.
      Data.importIntoVectorSchemaRoot(exchange, array, copy, null);
      imported = true;
    } catch (RuntimeException | Error e) {
      if (exported && !imported) {
        try {
          if (array.snapshot().release != 0) {
            array.release(); // exported, not imported: let go of the buffer references here
          }
        } catch (RuntimeException closed) {
          e.addSuppressed(closed); // the import had taken the struct already
        }
      }
      copy.close();
      throw e;
    } finally {
      array.close();
    }
    return new ArrowBatch(copy);
  }

  /** Same schema, same rows, same values (bit for bit), both unreleased. */
  public boolean contentEquals(ArrowBatch other) {
    return root().equals(other.root());
  }

  /**
   * Releases the buffers.
   *
   * @throws IllegalStateException if the batch was already released
   */
  @Override
  public void close() {
    if (!release.claimed.compareAndSet(false, true)) {
      throw new IllegalStateException("Cannot release " + this + ": it was already released");
    }
    cleanable.clean();
  }

  /** Batches created and not yet released, in this process (leak checks). */
  public static long liveBatches() {
    return LIVE.get();
  }

  /** Batches released by the garbage collector's cleaner because nobody closed them. */
  public static long releasedUnclosed() {
    return RELEASED_UNCLOSED.get();
  }

  @Override
  public String toString() {
    String fields =
        schema.getFields().stream().map(Field::getName).collect(Collectors.joining(", "));
    String rows = isReleased() ? "released" : root.getRowCount() + " rows";
    return "ArrowBatch[" + rows + "; " + fields + "]";
  }

  private void ensureOpen(String action) {
    if (isReleased()) {
      throw new IllegalStateException(
          "Cannot " + action + " " + this + ": it was released (closed) before");
    }
  }

  /** The release, run once: by {@link #close()}, or by the cleaner; never refers to the batch. */
  private static final class Release implements Runnable {
    private final VectorSchemaRoot root;
    private final AtomicBoolean claimed = new AtomicBoolean();

    private Release(VectorSchemaRoot root) {
      this.root = root;
    }

    @Override
    public void run() {
      if (claimed.compareAndSet(false, true)) {
        RELEASED_UNCLOSED.incrementAndGet();
      }
      LIVE.decrementAndGet();
      root.close();
    }
  }
}
