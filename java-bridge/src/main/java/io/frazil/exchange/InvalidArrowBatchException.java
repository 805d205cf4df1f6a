package io.frazil.exchange;

import java.io.IOException;

/**
 * A serialized {@link ArrowBatch} that cannot be read: truncated, forged, or written with another
 * schema than the reading serializer's. The message says which. Flink fails the task; nothing of
 * the batch stays allocated.
 */
public class InvalidArrowBatchException extends IOException {
  private static final long serialVersionUID = 1L;

  public InvalidArrowBatchException(String message) {
    super(message);
  }

  public InvalidArrowBatchException(String message, Throwable cause) {
    super(message, cause);
  }
}
