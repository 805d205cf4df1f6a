package io.frazil.read.vector;

import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * Timestamps (with and without zone) as Iceberg's Flink reader converts them: the epoch value in
 * the file's unit, split into milliseconds and the nanoseconds within the millisecond.
 */
final class TimestampVector extends HeapVector implements TimestampColumnVector {
  private final long[] values;
  private final long unitsPerMilli;
  private final long nanosPerUnit;

  /**
   * @param unitsPerMilli 1 for milliseconds, 1,000 for microseconds, 1,000,000 for nanoseconds
   */
  TimestampVector(byte[] validity, long[] values, long unitsPerMilli) {
    super(validity);
    this.values = values;
    this.unitsPerMilli = unitsPerMilli;
    this.nanosPerUnit = 1_000_000L / unitsPerMilli;
  }

  @Override
  public TimestampData getTimestamp(int i, int precision) {
    long value = values[i];
    if (unitsPerMilli == 1) {
      return TimestampData.fromEpochMillis(value);
    }
    return TimestampData.fromEpochMillis(
        Math.floorDiv(value, unitsPerMilli),
        (int) (Math.floorMod(value, unitsPerMilli) * nanosPerUnit));
  }
}
