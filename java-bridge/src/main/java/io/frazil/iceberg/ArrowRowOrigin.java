package io.frazil.iceberg;

/**
 * Which row of which Arrow batch the row being written is, when a writer is fed the rows of Arrow
 * batches one by one: with it, {@link FrazilParquetAppender} hands runs of such rows to native code
 * as slices of their batch instead of copying them value by value into a batch of its own.
 *
 * <p>One per thread. The step that turns batches into rows ({@code
 * io.frazil.flink.arrow.ArrowBatchesToRows}) records each row here just before it emits it, and
 * Iceberg's writer, chained behind it on the same thread, hands the same object to the appender,
 * which recognises it by identity. A row that was copied on the way (Flink's copying chain with
 * object reuse off, a serializer, a mapping) is another object, is not recognised, and is written
 * as any row: the origin can only ever be right or unused.
 */
public final class ArrowRowOrigin {
  private static final ThreadLocal<ArrowRowOrigin> CURRENT =
      ThreadLocal.withInitial(ArrowRowOrigin::new);

  private Object row;
  private ArrowRows batch;
  private int index;

  private ArrowRowOrigin() {}

  /** This thread's origin. */
  public static ArrowRowOrigin current() {
    return CURRENT.get();
  }

  /** {@code row} is row {@code index} of {@code batch}, until the next call or {@link #clear()}. */
  public void set(Object row, ArrowRows batch, int index) {
    this.row = row;
    this.batch = batch;
    this.index = index;
  }

  /** No row is known (call before the batch is released). */
  public void clear() {
    this.row = null;
    this.batch = null;
  }

  /** The batch {@code candidate} is a row of, or null when it is not the row recorded here. */
  ArrowRows batchOf(Object candidate) {
    return candidate == row ? batch : null;
  }

  /** The recorded row's index in its batch (valid after {@link #batchOf} found it). */
  int index() {
    return index;
  }
}
