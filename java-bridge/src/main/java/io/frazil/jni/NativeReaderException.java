package io.frazil.jni;

/**
 * A Parquet data file could not be read natively: its bytes are corrupt or truncated, or decoding
 * failed. The message names the file and what failed; the failing task fails, nothing else.
 */
public class NativeReaderException extends RuntimeException {
  public NativeReaderException(String message) {
    super(message);
  }

  public NativeReaderException(String message, Throwable cause) {
    super(message, cause);
  }
}
