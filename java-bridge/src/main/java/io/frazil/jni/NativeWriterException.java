package io.frazil.jni;

/**
 * Thrown by the native encoder when Parquet encoding fails or native code panics. Bad arguments
 * surface as {@link IllegalArgumentException}, misuse of a closed or freed writer as {@link
 * IllegalStateException}, settings the encoder cannot reproduce as {@link
 * UnsupportedOperationException}.
 */
public class NativeWriterException extends RuntimeException {
  public NativeWriterException(String message) {
    super(message);
  }

  public NativeWriterException(String message, Throwable cause) {
    super(message, cause);
  }
}
