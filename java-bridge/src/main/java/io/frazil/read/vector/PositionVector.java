package io.frazil.read.vector;

import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;

/**
 * Row positions in the file ({@code _pos}), and the v3 row lineage columns that inherit from them:
 * {@code _row_id} is the file's value where present, else the data file's first row id plus the
 * position; {@code _last_updated_sequence_number} is the file's value where present, else the data
 * file's sequence number. This is what Iceberg's {@code ParquetValueReaders} return.
 */
public final class PositionVector implements LongColumnVector {
  private final long firstPosition;
  private final long base;
  private final boolean addPosition;
  private final LongColumnVector stored;

  private PositionVector(long firstPosition, long base, boolean addPosition, ColumnVector stored) {
    this.firstPosition = firstPosition;
    this.base = base;
    this.addPosition = addPosition;
    this.stored = (LongColumnVector) stored;
  }

  /** {@code _pos} of a batch whose first row is at {@code firstPosition} in the file. */
  public static PositionVector positions(long firstPosition) {
    return new PositionVector(firstPosition, 0, true, null);
  }

  /** {@code _row_id}: {@code stored} (may be null: not in the file) or first row id + position. */
  public static PositionVector rowIds(long firstPosition, long firstRowId, ColumnVector stored) {
    return new PositionVector(firstPosition, firstRowId, true, stored);
  }

  /** {@code _last_updated_sequence_number}: {@code stored} or the file's sequence number. */
  public static PositionVector sequenceNumbers(long fileSequenceNumber, ColumnVector stored) {
    return new PositionVector(0, fileSequenceNumber, false, stored);
  }

  @Override
  public boolean isNullAt(int i) {
    return false;
  }

  @Override
  public long getLong(int i) {
    if (stored != null && !stored.isNullAt(i)) {
      return stored.getLong(i);
    }
    return addPosition ? base + firstPosition + i : base;
  }
}
