package io.frazil.partition;

/**
 * The native split cannot compute this spec's keys (a transform it does not implement, a source
 * type a transform does not apply to, a source not reachable through structs): the caller keys the
 * rows with the Java path ({@link FrazilPartitionKeySelector}) instead.
 */
public final class UnsupportedSplitException extends UnsupportedOperationException {
  private static final long serialVersionUID = 1L;

  public UnsupportedSplitException(String message) {
    super(message);
  }

  public UnsupportedSplitException(String message, Throwable cause) {
    super(message, cause);
  }
}
