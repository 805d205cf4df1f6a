package io.frazil.arrow;

import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;

/** Writers of date, time and timestamp fields. */
final class DateTimeWriters {
  private DateTimeWriters() {}

  /** Flink DATE and Arrow Date(DAY) are both days since the epoch in an int. */
  static final class DateWriter extends FixedWidthWriter<DateDayVector> {
    DateWriter(DateDayVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putInt(index, row.getInt(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putInt(index, array.getInt(pos));
    }
  }

  /** Flink holds TIME as milliseconds of the day; Iceberg stores microseconds. */
  static final class TimeWriter extends FixedWidthWriter<TimeMicroVector> {
    TimeWriter(TimeMicroVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putLong(index, row.getInt(pos) * 1000L);
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putLong(index, array.getInt(pos) * 1000L);
    }
  }

  /** The unit of the Iceberg timestamp a Flink timestamp is converted to. */
  enum TimestampUnit {
    MICROS {
      @Override
      long convert(TimestampData timestamp) {
        return timestamp.getMillisecond() * 1000L + timestamp.getNanoOfMillisecond() / 1000;
      }
    },
    NANOS {
      @Override
      long convert(TimestampData timestamp) {
        return timestamp.getMillisecond() * 1_000_000L + timestamp.getNanoOfMillisecond();
      }
    };

    abstract long convert(TimestampData timestamp);
  }

  /**
   * Writes Flink TIMESTAMP and TIMESTAMP_LTZ values: both are an epoch offset in {@link
   * TimestampData}, and whether Iceberg adjusts to UTC only changes the Arrow type's zone.
   */
  static final class TimestampWriter extends FixedWidthWriter<TimeStampVector> {
    private final int precision;
    private final TimestampUnit unit;

    TimestampWriter(
        TimeStampVector vector, int precision, TimestampUnit unit, String path, boolean nullable) {
      super(vector, path, nullable);
      this.precision = precision;
      this.unit = unit;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putLong(index, unit.convert(row.getTimestamp(pos, precision)));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putLong(index, unit.convert(array.getTimestamp(pos, precision)));
    }
  }
}
