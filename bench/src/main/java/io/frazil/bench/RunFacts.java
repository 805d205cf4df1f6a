package io.frazil.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** What every bench program records next to its results: repository, git state, environment. */
final class RunFacts {
  private RunFacts() {}

  /** The repository root: {@code -Dbench.repoRoot}, else git's top level, else null. */
  static Path repoRoot() {
    String property = System.getProperty("bench.repoRoot");
    if (property != null && !property.isEmpty()) {
      return Paths.get(property);
    }
    String top = git(Paths.get("").toAbsolutePath(), "rev-parse", "--show-toplevel");
    return top.isEmpty() || top.startsWith("unknown") ? null : Paths.get(top);
  }

  /** {@code git args} run in {@code dir} (or the working directory); "unknown" on failure. */
  static String git(Path dir, String... args) {
    List<String> command = new ArrayList<>();
    command.add("git");
    command.addAll(List.of(args));
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      if (dir != null) {
        builder.directory(dir.toFile());
      }
      Process process = builder.start();
      String output;
      try (InputStream in = process.getInputStream()) {
        output = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      return process.waitFor() == 0 ? output : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  /**
   * Copies the repository's {@code environment.json} (the toolchain and artifact hashes behind the
   * numbers) into {@code out}; false when there is none.
   */
  static boolean copyEnvironment(Path repo, Path out) throws IOException {
    Path environment = repo == null ? null : repo.resolve("environment.json");
    if (environment == null || !Files.isRegularFile(environment)) {
      return false;
    }
    Files.copy(environment, out.resolve("environment.json"), StandardCopyOption.REPLACE_EXISTING);
    return true;
  }

  static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
