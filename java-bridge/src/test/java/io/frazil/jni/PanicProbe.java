package io.frazil.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;

/**
 * Run in a child JVM on the test build of the library by {@link
 * TestNativeParquetWriter#panicBecomesAJavaExceptionAndTheJvmLivesOn}: three native panics, each a
 * {@link NativeWriterException}, then a file written by the same library; exits non-zero on any
 * failed assertion.
 */
public final class PanicProbe {
  private PanicProbe() {}

  public static void main(String[] args) {
    NativeLoader.load();
    for (int i = 1; i <= 3; i += 1) {
      Throwable thrown =
          catchThrowable(() -> NativeTestHooks.panic("boom".getBytes(StandardCharsets.UTF_8)));
      assertThat(thrown)
          .isInstanceOf(NativeWriterException.class)
          .hasMessageContaining("native panic: boom");
      System.out.println("panic " + i + ": " + thrown);
    }
    TestNativeParquetWriter test = new TestNativeParquetWriter();
    test.before();
    test.writesAndFinishesAFile();
    test.after();
    System.out.println("file written after the panics");
  }
}
