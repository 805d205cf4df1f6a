package io.frazil.read.vector;

/**
 * A file (or one of its columns) the native reader does not reproduce exactly; the file is then
 * read by Iceberg's own reader. Thrown before any row of the file is returned.
 */
public final class UnsupportedReadException extends Exception {
  private final String reason;

  public UnsupportedReadException(String reason, String detail) {
    super(reason + ": " + detail);
    this.reason = reason;
  }

  /** A short, stable name for the reason (the fallback metric and log key). */
  public String reason() {
    return reason;
  }
}
