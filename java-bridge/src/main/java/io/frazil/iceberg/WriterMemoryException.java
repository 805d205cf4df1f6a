package io.frazil.iceberg;

/**
 * A Frazil writer could not get the memory it needed (Arrow buffers, a JNI array). Thrown instead
 * of the {@link OutOfMemoryError} it carries as its cause, so that a task fails and is restarted by
 * Flink like after any write failure, rather than the error being treated as fatal for the process.
 */
public class WriterMemoryException extends RuntimeException {
  public WriterMemoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
