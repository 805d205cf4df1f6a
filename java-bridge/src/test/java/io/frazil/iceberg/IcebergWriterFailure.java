package io.frazil.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.testkit.ExceptionGraph;
import java.io.IOException;

/**
 * What Iceberg's task writers do when an appender's {@code add} throws: close the appender and
 * attach what close throws to the original as suppressed. The result must stay acyclic (Flink walks
 * it recursively, and a cycle takes the TaskManager down).
 */
final class IcebergWriterFailure {
  private IcebergWriterFailure() {}

  /** {@code close()} of either appender. */
  interface Closer {
    void close() throws IOException;
  }

  /** Runs {@code add}, which must fail, then closes like Iceberg; returns the original failure. */
  static Throwable afterFailedAdd(Runnable add, Closer appender) {
    Throwable original = null;
    try {
      add.run();
    } catch (Throwable t) {
      original = t;
      try {
        appender.close();
      } catch (Throwable closeFailure) {
        original.addSuppressed(closeFailure);
      }
    }
    assertThat(original).as("the write failed").isNotNull();
    ExceptionGraph.assertAcyclic(original);
    assertThat(original.getSuppressed()).as("close() failed too").isNotEmpty();
    return original;
  }
}
