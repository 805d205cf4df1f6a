package io.frazil.jni;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the native encoder reports about a finished file: exact, untruncated per-field-id facts from
 * which {@code io.frazil.metrics.NativeMetrics} builds Iceberg {@code Metrics}. Decoded from the
 * layout written by {@code FileSummary::to_bytes} in {@code native/src/stats.rs}.
 */
public final class NativeFileSummary {
  private static final int FORMAT_VERSION = 2;

  private final long recordCount;
  private final long fileSize;
  private final long encodeNanos;
  private final List<Long> splitOffsets;
  private final List<Column> columns;

  private NativeFileSummary(
      long recordCount,
      long fileSize,
      long encodeNanos,
      List<Long> splitOffsets,
      List<Column> columns) {
    this.recordCount = recordCount;
    this.fileSize = fileSize;
    this.encodeNanos = encodeNanos;
    this.splitOffsets = Collections.unmodifiableList(splitOffsets);
    this.columns = Collections.unmodifiableList(columns);
  }

  /** Facts for one Parquet leaf column. */
  public static final class Column {
    private final int fieldId;
    private final boolean repeated;
    private final boolean hasCounts;
    private final boolean floatMetrics;
    private final long columnSize;
    private final long valueCount;
    private final long nullCount;
    private final long nanCount;
    private final ByteBuffer lowerBound;
    private final ByteBuffer upperBound;

    private Column(ByteBuffer in) {
      this.fieldId = in.getInt();
      int flags = in.get();
      this.repeated = (flags & 1) != 0;
      this.hasCounts = (flags & 2) != 0;
      this.floatMetrics = (flags & 4) != 0;
      this.columnSize = in.getLong();
      this.valueCount = in.getLong();
      this.nullCount = in.getLong();
      this.nanCount = in.getLong();
      this.lowerBound = readBound(in);
      this.upperBound = readBound(in);
    }

    public int fieldId() {
      return fieldId;
    }

    /** The leaf is under a list or map: Iceberg records only its column size. */
    public boolean repeated() {
      return repeated;
    }

    /** Value and null counts are valid (statistics in every row group, or measured floats). */
    public boolean hasCounts() {
      return hasCounts;
    }

    /** A float/double measured while writing: the NaN count is valid. */
    public boolean floatMetrics() {
      return floatMetrics;
    }

    public long columnSize() {
      return columnSize;
    }

    public long valueCount() {
      return valueCount;
    }

    public long nullCount() {
      return nullCount;
    }

    public long nanCount() {
      return nanCount;
    }

    /** Untruncated lower bound in Iceberg single-value encoding, or null. */
    public ByteBuffer lowerBound() {
      return copy(lowerBound);
    }

    /** Untruncated upper bound in Iceberg single-value encoding, or null. */
    public ByteBuffer upperBound() {
      return copy(upperBound);
    }
  }

  /** Decodes a summary returned by the native {@code close}. */
  public static NativeFileSummary parse(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int version = in.getInt();
    if (version != FORMAT_VERSION) {
      throw new IllegalStateException(
          "Native file summary format " + version + " is not " + FORMAT_VERSION);
    }
    long records = in.getLong();
    long size = in.getLong();
    long nanos = in.getLong();
    int splitCount = in.getInt();
    List<Long> splits = new ArrayList<>(splitCount);
    for (int i = 0; i < splitCount; i += 1) {
      splits.add(in.getLong());
    }
    int columnCount = in.getInt();
    List<Column> columns = new ArrayList<>(columnCount);
    for (int i = 0; i < columnCount; i += 1) {
      columns.add(new Column(in));
    }
    return new NativeFileSummary(records, size, nanos, splits, columns);
  }

  // Fresh buffers each time: Iceberg's truncation helpers write into the buffer they are given.
  private static ByteBuffer copy(ByteBuffer bound) {
    if (bound == null) {
      return null;
    }
    byte[] bytes = new byte[bound.remaining()];
    bound.duplicate().get(bytes);
    return ByteBuffer.wrap(bytes);
  }

  private static ByteBuffer readBound(ByteBuffer in) {
    int length = in.getInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return ByteBuffer.wrap(bytes);
  }

  public long recordCount() {
    return recordCount;
  }

  /** Exact size of the file in bytes. */
  public long fileSize() {
    return fileSize;
  }

  /** Nanoseconds the native encoder threads spent encoding this file, summed over threads. */
  public long encodeNanos() {
    return encodeNanos;
  }

  /** Row-group start offsets, ascending. */
  public List<Long> splitOffsets() {
    return splitOffsets;
  }

  public List<Column> columns() {
    return columns;
  }
}
