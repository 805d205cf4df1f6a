package io.frazil.arrow;

import org.apache.flink.table.data.RowData;

/**
 * Signals a value the Iceberg type rejects. Carries no row number: only {@link
 * RowDataArrowWriter#write(RowData)} knows it, and it turns this into the public {@link
 * IllegalArgumentException}.
 */
final class InvalidValueException extends RuntimeException {
  InvalidValueException(String message) {
    super(message, null, false, false);
  }
}
