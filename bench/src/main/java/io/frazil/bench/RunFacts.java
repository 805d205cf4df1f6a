package io.frazil.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** What every bench program records next to its results: repository, git state, environment. */
final class RunFacts {
  private static final List<GarbageCollectorMXBean> COLLECTORS =
      ManagementFactory.getGarbageCollectorMXBeans();

  /** When the results were written (ISO-8601, UTC). */
  final String now;

  final Path repo;
  final String commit;

  /** {@code git status --porcelain}: empty for a clean tree. */
  final String dirty;

  final long dirtyFiles;
  final String java;
  final String osName;
  final int cores;
  final List<String> jvmArgs;

  private RunFacts() {
    this.now = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    this.repo = repoRoot();
    this.commit = git(repo, "rev-parse", "HEAD");
    this.dirty = git(repo, "status", "--porcelain");
    this.dirtyFiles = dirty.isEmpty() ? 0 : dirty.lines().count();
    this.java = javaVersion();
    this.osName = osName();
    this.cores = Runtime.getRuntime().availableProcessors();
    this.jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
  }

  /** The facts of this run, read now. */
  static RunFacts collect() {
    return new RunFacts();
  }

  /** The results.md rows every program starts with: date, commit, machine, JVM. */
  void appendHeaderRows(StringBuilder md) {
    md.append("| date (UTC) | ").append(now).append(" |\n");
    md.append("| commit | `").append(commit).append('`');
    md.append(dirtyFiles == 0 ? " (clean tree)" : " + " + dirtyFiles + " uncommitted paths");
    md.append(" |\n");
    md.append("| machine | ").append(osName).append(", ").append(cores).append(" cores |\n");
    md.append("| JVM | ").append(java).append(", `").append(String.join(" ", jvmArgs));
    md.append("` |\n");
  }

  /** Copies environment.json next to the results and writes RUN-INFO.md there. */
  boolean writeRunFiles(Path out, List<String> benchArgs, Map<String, String> artifacts)
      throws IOException {
    boolean copied = copyEnvironment(repo, out);
    writeRunInfo(out, benchArgs, artifacts, copied);
    return copied;
  }

  /** "17.0.15 (OpenJDK 64-Bit Server VM 17.0.15+6-…)". */
  static String javaVersion() {
    return System.getProperty("java.version")
        + " ("
        + System.getProperty("java.vm.name")
        + " "
        + System.getProperty("java.vm.version")
        + ")";
  }

  /** "Linux 6.1 amd64". */
  static String osName() {
    return System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + " "
        + System.getProperty("os.arch");
  }

  /** Collections so far, over all collectors. */
  static long gcCount() {
    long count = 0;
    for (GarbageCollectorMXBean gc : COLLECTORS) {
      count += Math.max(0, gc.getCollectionCount());
    }
    return count;
  }

  /** Milliseconds spent collecting so far, over all collectors. */
  static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : COLLECTORS) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

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

  /**
   * Writes {@code RUN-INFO.md}: when, which commit (and uncommitted paths), JVM, machine, the
   * program's arguments, the artifacts it ran ({@code artifacts}: label to description) and whether
   * {@code environment.json} sits next to it.
   */
  private void writeRunInfo(
      Path out, List<String> benchArgs, Map<String, String> artifacts, boolean environmentCopied)
      throws IOException {
    StringBuilder info = new StringBuilder();
    info.append("# Run info\n\n");
    info.append("- date (UTC): ").append(now).append('\n');
    info.append("- git commit: ").append(commit);
    info.append(dirtyFiles == 0 ? " (clean tree)" : " (+" + dirtyFiles + " uncommitted paths)");
    info.append('\n');
    if (dirtyFiles > 0) {
      info.append("- uncommitted paths (`git status --porcelain`):\n");
      dirty.lines().forEach(line -> info.append("  - `").append(line.trim()).append("`\n"));
    }
    info.append("- java.version: ").append(java).append('\n');
    info.append("- os: ").append(osName).append('\n');
    info.append("- cores: ").append(cores).append('\n');
    info.append("- max heap: ").append(Runtime.getRuntime().maxMemory() >> 20).append(" MB\n");
    info.append("- JVM args: `").append(String.join(" ", jvmArgs)).append("`\n");
    info.append("- bench args: `").append(BenchCli.joinArgs(benchArgs)).append("`\n");
    artifacts.forEach(
        (label, what) -> info.append("- ").append(label).append(": ").append(what).append('\n'));
    info.append("- environment.json: ");
    info.append(
        environmentCopied ? "copied next to this file" : "not present in the repository root");
    info.append('\n');
    Files.writeString(out.resolve("RUN-INFO.md"), info.toString(), StandardCharsets.UTF_8);
  }

  /** An ordered label-to-text map from alternating labels and texts. */
  static Map<String, String> labels(String... labelsAndTexts) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i + 1 < labelsAndTexts.length; i += 2) {
      map.put(labelsAndTexts[i], labelsAndTexts[i + 1]);
    }
    return map;
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

  /** The first three fields of /proc/loadavg, or "unknown". */
  static String loadAverage() {
    try {
      String[] fields = Files.readString(Paths.get("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
