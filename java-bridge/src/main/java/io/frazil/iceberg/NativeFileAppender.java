package io.frazil.iceberg;

import io.frazil.jni.NativeFileSummary;
import io.frazil.metrics.NativeMetrics;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both of Frazil's appenders are: one data file encoded natively, with the life Iceberg's task
 * writers expect (open → add … → close once; metrics, split offsets and length valid after close)
 * and the failure rules every appender must keep: after a failed call the file can never be
 * finished, every later call says why with a fresh exception, and {@link #close()} reports no
 * metrics and leaves nothing that could be committed (see {@link Failures}). The subclasses only
 * say how rows arrive ({@code add}) and what they buffer on the way.
 */
abstract class NativeFileAppender<D> implements FileAppender<D> {
  private static final Logger LOG = LoggerFactory.getLogger(NativeFileAppender.class);
  private static final Metrics EMPTY_METRICS = new Metrics(0L, null, null, null, null);

  /**
   * Batches native code may still be encoding when {@code add} returns, where the appender owns the
   * batches it writes: the slowest column may lag the others by a batch (see
   * native/src/encoder.rs).
   */
  static final int BATCHES_IN_FLIGHT = 2;

  final OutputFile file;
  final Schema schema;
  final Map<String, String> properties;
  final boolean overwrite;
  private final MetricsConfig metricsConfig;

  /** Null when the table or the process keeps this file out of the memory budget. */
  private final MemoryBudget budget;

  private MemoryBudget.Member member;
  NativeFileWriter fileWriter;
  long rowCount = 0L;
  private boolean closed = false;
  Throwable failure = null;
  private Metrics metrics;
  private List<Long> splitOffsets;
  private long length = 0L;
  private long encodeNanos = 0L;

  NativeFileAppender(
      OutputFile file,
      Schema schema,
      Map<String, String> properties,
      MetricsConfig metricsConfig,
      boolean overwrite,
      MemoryBudget budget) {
    this.file = file;
    this.schema = schema;
    this.properties = properties;
    this.metricsConfig = metricsConfig;
    this.overwrite = overwrite;
    this.budget = budget;
  }

  /** Rows added in buffers the subclass still holds, handed to the encoder before the footer. */
  abstract void flushBuffered();

  /** Bytes of Arrow memory the subclass holds for this file. */
  abstract long bufferedMemory();

  /** Bytes of buffered rows, as {@link #length()} counts them before they are encoded. */
  long bufferedLength() {
    return 0L;
  }

  /** After an early row group: lets go of buffers the subclass can allocate again later. */
  void dropBuffers() {}

  /** Frees the subclass's buffers and allocators (always called, also after a failure). */
  abstract void releaseBuffers();

  /** Fails when the appender is closed or failed before; {@code what} names the caller's action. */
  final void checkUsable(String what) {
    Preconditions.checkState(!closed, "Cannot %s: the appender for %s is closed", what, file);
    if (failure != null) {
      throw Failures.refused(what, file.location(), failure);
    }
  }

  /** Records {@code t} as the failure that ends this file and returns it to throw. */
  final RuntimeException failed(Throwable t, String action) {
    Throwable thrown = Failures.ordinary(t, action + " " + file.location());
    this.failure = thrown;
    return Failures.rethrow(thrown);
  }

  /** Creates the file's native writer (with the first rows) and joins the memory budget. */
  final void openFile(org.apache.arrow.memory.BufferAllocator exportAllocator) {
    this.fileWriter = new NativeFileWriter(file, schema, properties, overwrite, exportAllocator);
    if (budget != null) {
      this.member = budget.join(new BudgetedFile());
    }
  }

  /** True when the budget should look at this file now (another thread asked it to shed). */
  final boolean shedRequested() {
    return member != null && member.shedRequested();
  }

  final boolean budgeted() {
    return member != null;
  }

  /** After this file's memory grew: lets the budget shed files (maybe this one) if needed. */
  final void checkBudget() {
    if (member == null) {
      return;
    }
    budget.check(member);
    if (failure != null) {
      // Shedding this file failed (the failure was recorded by the budget's call).
      throw Failures.rethrow(failure);
    }
  }

  @Override
  public final Metrics metrics() {
    Preconditions.checkState(closed, "Cannot return metrics for an unclosed appender");
    return metrics;
  }

  @Override
  public final long length() {
    if (closed) {
      return length;
    }
    return fileWriter == null ? 0L : fileWriter.estimatedLength() + bufferedLength();
  }

  @Override
  public final List<Long> splitOffsets() {
    return splitOffsets;
  }

  /** Nanoseconds native encoder threads spent on this file (valid after close). */
  public final long encodeNanos() {
    return encodeNanos;
  }

  /** Rows added so far. */
  public final long rowCount() {
    return rowCount;
  }

  @Override
  public final void close() throws IOException {
    if (closed) {
      return;
    }
    this.closed = true;
    if (failure != null) {
      // A fresh exception that names the failure: the caller already holds the original and may
      // attach this one to it as suppressed (see Failures). Even a failure before the first row
      // reached the encoder (the file may exist, empty): nothing of it may become a data file.
      IOException refused = Failures.cannotFinish(file.location(), failure);
      Failures.cleanUpAfter(refused, this::release);
      throw refused;
    }
    if (rowCount == 0) {
      // No row ever came: like stock Iceberg, no file.
      this.metrics = EMPTY_METRICS;
      release();
      return;
    }
    try {
      flushBuffered();
      NativeFileSummary summary = fileWriter.finish();
      this.length = summary.fileSize();
      this.splitOffsets = summary.splitOffsets();
      this.encodeNanos = summary.encodeNanos();
      this.metrics = NativeMetrics.build(summary, schema, metricsConfig);
      LOG.info(
          "Frazil wrote {} ({} rows, {} bytes)", file.location(), rowCount, summary.fileSize());
    } catch (Throwable t) {
      throw Failures.closeFailed(t, file.location(), this::release);
    }
    release();
  }

  final void release() {
    if (member != null) {
      budget.leave(member);
      this.member = null;
    }
    try {
      if (fileWriter != null) {
        fileWriter.close();
      }
    } finally {
      releaseBuffers();
    }
  }

  /** This file's place in the memory budget; the budget calls it on this file's thread only. */
  private final class BudgetedFile implements MemoryBudget.Sheddable {
    @Override
    public long heldBytes() {
      if (closed || failure != null || fileWriter == null) {
        return 0L;
      }
      return bufferedMemory() + fileWriter.heldBytes();
    }

    @Override
    public void shed() {
      if (closed || failure != null || fileWriter == null) {
        return;
      }
      try {
        flushBuffered();
        // Waits for and releases every batch in flight: all buffers are free afterwards.
        fileWriter.flushRowGroup();
        dropBuffers();
      } catch (Throwable t) {
        failure = Failures.ordinary(t, "closing a row group of " + file.location() + " early");
      }
    }
  }
}
