package io.frazil.jni;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

public class TestNativeLoader {
  @Test
  public void bundledLibraryLoadsAndMatchesTheJarVersion() {
    NativeLoader.load();
    assertThat(NativeLoader.isAvailable()).isTrue();
    assertThat(NativeLoader.failure()).isNull();
    assertThat(NativeParquetWriter.nativeVersion()).isEqualTo(NativeLoader.javaVersion());
    assertThat(NativeLoader.class.getResource(NativeLoader.bundledResource()))
        .as("library bundled at %s", NativeLoader.bundledResource())
        .isNotNull();
  }

  @Test
  public void explicitBadPathFailsWithAClearMessageEveryTime() throws Exception {
    String output = probe("-D" + NativeLoader.PATH_PROPERTY + "=/nonexistent/libfrazil.so");
    assertThat(output)
        .contains("attempt 1: java.lang.UnsatisfiedLinkError")
        .contains("frazil.native.path=/nonexistent/libfrazil.so")
        // The first failure is remembered, not retried, and named by a fresh error each time
        // (one shared Throwable thrown into many tasks could end up in an exception cycle).
        .contains("attempt 2: java.lang.UnsatisfiedLinkError: The Frazil native library failed")
        .contains("same throwable as attempt 1: false");
  }

  @Test
  public void extractsIntoAConfiguredDirectoryAndLeavesNothingBehind() throws Exception {
    File dir = java.nio.file.Files.createTempDirectory("frazil-loader").toFile();
    try {
      String output = probe("-D" + NativeLoader.TMPDIR_PROPERTY + "=" + dir.getAbsolutePath());
      assertThat(output).contains("attempt 1: loaded").contains("attempt 2: loaded");
      assertThat(dir.listFiles()).isEmpty();
    } finally {
      // Empty when the test passes; delete() then removes it (and leaves evidence otherwise).
      dir.delete();
    }
  }

  private static String probe(String property) throws IOException, InterruptedException {
    String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Process process =
        new ProcessBuilder(
                List.of(
                    java,
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    property,
                    "-cp",
                    System.getProperty("java.class.path"),
                    LoaderProbe.class.getName()))
            .redirectErrorStream(true)
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
