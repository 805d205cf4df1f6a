package io.frazil.validation;

import io.frazil.flink.FrazilFlink;
import io.frazil.jni.NativeLoader;
import io.frazil.testkit.LoadedLibrary;
import io.frazil.testkit.ParityCases;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * {@code make validate} / {@code make run-validate-smoke}: proves that this build writes correct
 * Iceberg tables. Runs Flink jobs (stock table vs Frazil table) and file-level writes (stock writer
 * vs Frazil writer), writes {@code report.md} and {@code report.json} with a copy of {@code
 * environment.json}, and exits non-zero on any failure.
 */
public final class Validate {
  private static final String USAGE =
      String.join(
          "\n",
          "usage: Validate [--smoke] --out DIR [--work DIR] [--environment FILE] [--only TEXT]"
              + " [--keep-work]",
          "  --smoke             small subset (FlinkSink + SQL, bucket, v2/v3, append/upsert,",
          "                      2,000 rows; file-level primitives with 2 metrics modes)",
          "  --out DIR           where report.md, report.json and environment.json go",
          "  --work DIR          warehouses and files (default DIR/work; emptied first)",
          "  --environment FILE  environment.json describing the build (default <repo>/...)",
          "  --only TEXT         only cases whose name contains TEXT (debugging; marks the report)",
          "  --keep-work         keep the work directory even when everything passed");

  private Validate() {}

  public static void main(String[] rawArgs) throws Exception {
    List<String> args = new ArrayList<>();
    for (String raw : rawArgs) {
      for (String token : raw.trim().split("\\s+")) {
        if (!token.isEmpty()) {
          args.add(token);
        }
      }
    }
    boolean smoke = false;
    boolean keepWork = false;
    Path out = null;
    Path work = null;
    Path environment = null;
    String only = null;
    for (int i = 0; i < args.size(); i += 1) {
      switch (args.get(i)) {
        case "--smoke":
          smoke = true;
          break;
        case "--keep-work":
          keepWork = true;
          break;
        case "--out":
          out = Paths.get(value(args, ++i));
          break;
        case "--work":
          work = Paths.get(value(args, ++i));
          break;
        case "--environment":
          environment = Paths.get(value(args, ++i));
          break;
        case "--only":
          only = value(args, ++i);
          break;
        case "--help":
        case "-h":
          System.out.println(USAGE);
          return;
        default:
          System.err.println("unknown argument " + args.get(i) + "\n" + USAGE);
          System.exit(2);
      }
    }
    if (out == null) {
      System.err.println("--out is required\n" + USAGE);
      System.exit(2);
    }
    Path repo = repoRoot();
    if (environment == null) {
      environment = repo.resolve("environment.json");
    }
    if (work == null) {
      work = out.resolve("work");
    }
    System.exit(run(smoke, out, work, environment, only, keepWork, String.join(" ", args)));
  }

  private static String value(List<String> args, int i) {
    if (i >= args.size()) {
      System.err.println(args.get(i - 1) + " needs a value\n" + USAGE);
      System.exit(2);
    }
    return args.get(i);
  }

  private static int run(
      boolean smoke,
      Path out,
      Path work,
      Path environment,
      String only,
      boolean keepWork,
      String argLine)
      throws Exception {
    long start = System.nanoTime();
    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Files.createDirectories(out);
    deleteTree(work);
    Files.createDirectories(work);
    if (!Files.isRegularFile(environment)) {
      System.err.println(
          "validate: "
              + environment
              + " is missing; run `make environment` (or pass --environment)");
      return 2;
    }
    String environmentJson = Files.readString(environment, StandardCharsets.UTF_8);

    // What a Flink JobManager/TaskManager does at start-up: Frazil's FileSystemFactory service
    // installs the hook. Nothing else in this process installs it.
    FileSystem.initialize(new Configuration(), null);
    if (!FrazilFlink.isInstalled()) {
      System.err.println("validate: FrazilFlink is not installed by the FileSystemFactory hook");
      return 1;
    }

    List<JobParity.Case> jobCases = new ArrayList<>();
    for (JobParity.Case c : JobParity.cases(smoke)) {
      if (only == null || c.name().contains(only)) {
        jobCases.add(c);
      }
    }
    List<ParityCases.Case> fileCases = new ArrayList<>();
    for (ParityCases.Case c : FileParity.cases(smoke)) {
      if (only == null || c.name().contains(only)) {
        fileCases.add(c);
      }
    }
    int total = jobCases.size() + fileCases.size();
    System.out.printf(
        Locale.ROOT,
        "Frazil validation (%s): %d Flink job cases, %d file-level cases%n",
        smoke ? "smoke" : "full",
        jobCases.size(),
        fileCases.size());

    List<CaseResult> results = new ArrayList<>();
    int index = 0;
    if (!jobCases.isEmpty()) {
      Configuration conf = new Configuration();
      conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
      MiniCluster cluster =
          new MiniCluster(
              new MiniClusterConfiguration.Builder()
                  .setConfiguration(conf)
                  .setNumTaskManagers(1)
                  .setNumSlotsPerTaskManager(4)
                  .withRandomPorts()
                  .build());
      cluster.start();
      TestStreamEnvironment.setAsContext(cluster, 2);
      try {
        File warehouse = work.resolve("warehouse").toFile();
        for (JobParity.Case c : jobCases) {
          CaseResult result = JobParity.run(c, warehouse);
          results.add(result);
          progress(++index, total, result);
        }
      } finally {
        TestStreamEnvironment.unsetAsContext();
        cluster.close();
      }
    }
    File files = work.resolve("files").toFile();
    for (ParityCases.Case c : fileCases) {
      CaseResult result = FileParity.run(c, files);
      results.add(result);
      progress(++index, total, result);
    }

    // Which build ran: the library this JVM mapped and the bridge jar on the classpath, against
    // the hashes environment.json records.
    List<String[]> buildFacts = new ArrayList<>();
    Map<String, Object> build = new LinkedHashMap<>();
    boolean identity = buildIdentity(environmentJson, buildFacts, build);

    boolean passed = identity && results.stream().allMatch(CaseResult::passed) && total > 0;
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("mode", (smoke ? "smoke" : "full") + (only == null ? "" : " (--only " + only + ")"));
    run.put("started_utc", started.toString());
    run.put("duration_seconds", Math.round(seconds * 10) / 10.0);
    run.put(
        "command", smoke ? "make run-validate-smoke" : only == null ? "make validate" : argLine);
    run.put("arguments", argLine);
    run.put("java_version", System.getProperty("java.version"));
    run.put("jvm_arguments", ManagementFactory.getRuntimeMXBean().getInputArguments());
    run.put("available_processors", Runtime.getRuntime().availableProcessors());
    run.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
    run.put("flink_job_cases", jobCases.size());
    run.put("file_level_cases", fileCases.size());

    Files.copy(environment, out.resolve("environment.json"), StandardCopyOption.REPLACE_EXISTING);
    Report.write(out.resolve("report.json"), Json.write(Report.json(results, run, build, passed)));
    Report.write(out.resolve("report.md"), Report.markdown(results, run, buildFacts, passed));

    long failed = results.stream().filter(r -> !r.passed()).count();
    System.out.printf(
        Locale.ROOT,
        "%s: %d cases, %d failed%s, %.0f s; report in %s%n",
        passed ? "PASS" : "FAIL",
        results.size(),
        failed,
        identity ? "" : ", build identity mismatch",
        seconds,
        out.resolve("report.md"));
    if (passed && !keepWork) {
      deleteTree(work);
    }
    return passed ? 0 : 1;
  }

  private static void progress(int index, int total, CaseResult result) {
    StringBuilder failed = new StringBuilder();
    for (Check check : result.checks.values()) {
      if (check.status() == Check.Status.FAIL) {
        failed.append(failed.length() == 0 ? " " : ", ").append(check.name);
        if (!check.failures().isEmpty()) {
          failed.append(" [").append(check.failures().get(0)).append(']');
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "[%2d/%d] %-10s %-70s %s (%.1f s)%s%n",
        index,
        total,
        result.group,
        result.name,
        result.passed() ? "pass" : "FAIL",
        result.millis / 1000.0,
        failed);
  }

  private static boolean buildIdentity(
      String environmentJson, List<String[]> facts, Map<String, Object> build) {
    String envLibrary =
        find(
            environmentJson,
            "\"libfrazil_so\"\\s*:\\s*\\{[^}]*?\"sha256\"\\s*:\\s*\"([0-9a-f]{64})\"");
    String envJar =
        find(
            environmentJson,
            "\"java_bridge_jar\"\\s*:\\s*\\{[^}]*?\"sha256\"\\s*:\\s*\"([0-9a-f]{64})\"");
    String commit = find(environmentJson, "\"commit\"\\s*:\\s*\"([0-9a-f]{40})\"");
    String dirty = find(environmentJson, "\"dirty\"\\s*:\\s*(true|false)");
    String generated = find(environmentJson, "\"generated_at_utc\"\\s*:\\s*\"([^\"]+)\"");

    String dirtyPaths = find(environmentJson, "\"dirty_paths\"\\s*:\\s*\\[([^\\]]*)\\]");
    long dirtyCount =
        dirtyPaths == null
            ? 0
            : Pattern.compile("\"[^\"]*\"").matcher(dirtyPaths).results().count();
    LoadedLibrary loaded = LoadedLibrary.find(NativeLoader.bundledResource());
    String jarPath = "unknown";
    String jarSha = "unknown";
    try {
      Path jar =
          Paths.get(FrazilFlink.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      jarPath = jar.toString();
      jarSha = Files.isRegularFile(jar) ? LoadedLibrary.sha256(jar) : "not a jar (" + jar + ")";
    } catch (Exception e) {
      jarSha = "unknown (" + e + ")";
    }
    boolean libraryMatches = envLibrary != null && envLibrary.equals(loaded.sha256);
    boolean jarMatches = envJar != null && envJar.equals(jarSha);

    facts.add(
        new String[] {
          "git commit (environment.json)",
          commit
              + ("true".equals(dirty)
                  ? " + " + dirtyCount + " uncommitted paths (listed in environment.json)"
                  : " (clean tree)")
        });
    facts.add(new String[] {"environment.json generated", String.valueOf(generated)});
    facts.add(new String[] {"libfrazil.so sha256 (environment.json)", "`" + envLibrary + "`"});
    facts.add(
        new String[] {
          "native library this JVM loaded",
          "`"
              + loaded.where
              + "`, sha256 `"
              + loaded.sha256
              + "` — "
              + (libraryMatches ? "matches" : "**DIFFERS**")
        });
    facts.add(new String[] {"java-bridge jar sha256 (environment.json)", "`" + envJar + "`"});
    facts.add(
        new String[] {
          "java-bridge jar on the classpath",
          "`" + jarPath + "`, sha256 `" + jarSha + "` — " + (jarMatches ? "matches" : "**DIFFERS**")
        });
    facts.add(
        new String[] {
          "native version / Frazil hook",
          NativeLoader.javaVersion()
              + " / installed by the FileSystemFactory service: "
              + FrazilFlink.isInstalled()
        });

    build.put("git_commit", commit);
    build.put("git_dirty", "true".equals(dirty));
    build.put("git_dirty_path_count", dirtyCount);
    build.put("environment_generated_at_utc", generated);
    build.put("environment_libfrazil_sha256", envLibrary);
    build.put("loaded_native_library", loaded.where);
    build.put("loaded_native_library_sha256", loaded.sha256);
    build.put("native_library_matches_environment", libraryMatches);
    build.put("environment_java_bridge_jar_sha256", envJar);
    build.put("classpath_java_bridge_jar", jarPath);
    build.put("classpath_java_bridge_jar_sha256", jarSha);
    build.put("java_bridge_jar_matches_environment", jarMatches);
    build.put("native_version", NativeLoader.javaVersion());
    build.put("frazil_installed_by_filesystem_factory", FrazilFlink.isInstalled());
    if (!libraryMatches) {
      System.err.println(
          "validate: the loaded native library ("
              + loaded.sha256
              + ") is not environment.json's ("
              + envLibrary
              + "): rebuild (`make jvm`) and regenerate (`make environment`)");
    }
    if (!jarMatches) {
      System.err.println(
          "validate: the java-bridge jar on the classpath ("
              + jarSha
              + ") is not environment.json's ("
              + envJar
              + "): reinstall (`make jvm`) and regenerate (`make environment`)");
    }
    return libraryMatches && jarMatches;
  }

  private static String find(String text, String regex) {
    Matcher matcher = Pattern.compile(regex, Pattern.DOTALL).matcher(text);
    return matcher.find() ? matcher.group(1) : null;
  }

  private static Path repoRoot() {
    String property = System.getProperty("validation.repoRoot");
    if (property != null && !property.isEmpty()) {
      return Paths.get(property);
    }
    return Paths.get("").toAbsolutePath();
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(path);
      }
    }
  }
}
