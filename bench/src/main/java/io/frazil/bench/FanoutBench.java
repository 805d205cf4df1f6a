package io.frazil.bench;

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code make bench-fanout}: one Iceberg Flink task writer with N partition files open at once
 * (issue 14, "Many open partitions"), stock vs Frazil. Every trial is a child JVM ({@link
 * FanoutTrial}) so that peak RSS and peak heap belong to one arm and one N; trials alternate stock,
 * Frazil, stock, … per N. Then a descending heap search at one N records which arm completes at
 * each heap (a child's OutOfMemoryError is an outcome, not a harness failure). Writes {@code
 * iterations.jsonl} (every trial), {@code results.md}, {@code fanout.svg}, {@code RUN-INFO.md} and
 * {@code environment.json}. Exits 1 if any completed trial failed its checks, or a grid trial did
 * not complete. See bench/README.md, "Fan-out cohort".
 */
@Command(
    name = "FanoutBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "One Iceberg Flink task writer with N open partition files, stock vs Frazil, one child JVM"
          + " per trial (bench/README.md, \"Fan-out cohort\")."
    })
public final class FanoutBench implements Callable<Integer> {
  static final List<String> ARMS = List.of("stock", "frazil");

  @Spec CommandSpec cli;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      converter = BenchCli.AbsolutePath.class,
      description = "Results directory.")
  Path out;

  @Option(
      names = "--smoke",
      description =
          "20,000 rows, N = 1,16, 0 warm-up + 1 trial, 2,000-row JIT warm-up, 512m heap, no OOM"
              + " search (flags given with it still win): checks the harness, not a measurement.")
  boolean smoke;

  @Option(
      names = "--report-only",
      description =
          "Rewrite results.md and fanout.svg from --out's iterations.jsonl (same flags as the"
              + " run).")
  boolean reportOnly;

  @Option(
      names = "--rows",
      paramLabel = "R",
      defaultValue = "2000000",
      converter = BenchCli.Positive.class,
      description = "Rows per trial.")
  int rows;

  @Option(
      names = "--partitions",
      split = ",",
      paramLabel = "N",
      defaultValue = "1,16,128,1024",
      converter = BenchCli.Positive.class,
      description = "Open partition files per task writer, one grid column each.")
  List<Integer> partitions;

  @Option(
      names = "--trials",
      paramLabel = "T",
      defaultValue = "3",
      converter = BenchCli.Positive.class,
      description = "Measured trials per arm and N.")
  int measuredTrials;

  @Option(
      names = "--warmup-trials",
      paramLabel = "W",
      defaultValue = "1",
      converter = BenchCli.NonNegative.class,
      description = "Discarded trials per arm and N before them.")
  int warmupTrials;

  @Option(
      names = "--heap",
      paramLabel = "SIZE",
      defaultValue = "4g",
      converter = BenchCli.HeapSize.class,
      description = "-Xms = -Xmx of every grid trial (stock needs more than 2g at N = 1,024).")
  String heap;

  @Option(
      names = "--memory-budget",
      paramLabel = "SIZE",
      description =
          "-Dfrazil.memory.budget of every trial (unset: the process default, 25%% of the heap).")
  String memoryBudget;

  @Option(
      names = "--frazil-routing",
      description =
          "Task writers from FrazilTaskWriterFactory, as after FrazilRouting.accelerate(env) in a"
              + " job (without it: Iceberg's factory, the jar alone).")
  boolean frazilRouting;

  @Option(
      names = "--pretouch",
      description =
          "-XX:+AlwaysPreTouch in every trial: the whole heap resident from the start, as in a"
              + " TaskManager that has run for a while.")
  boolean pretouch;

  @Option(
      names = "--oom-heaps",
      split = ",",
      paramLabel = "SIZE",
      defaultValue = "2g,1g,512m,256m",
      converter = OomHeap.class,
      description = "Descending heaps of the OOM search ('none' skips it).")
  List<String> oomHeaps;

  @Option(
      names = "--oom-partitions",
      paramLabel = "N",
      defaultValue = "1024",
      converter = BenchCli.Positive.class,
      description = "N of the OOM search.")
  int oomPartitions;

  @Option(
      names = "--pool-rows",
      paramLabel = "P",
      defaultValue = "131072",
      converter = BenchCli.Positive.class,
      description = "Distinct pre-built rows, cycled (a multiple of N).")
  int poolRows;

  @Option(
      names = "--warmup-rows",
      paramLabel = "W",
      defaultValue = "65536",
      converter = BenchCli.NonNegative.class,
      description = "JIT warm-up write inside each trial JVM (0 = none).")
  int warmupRows;

  @Option(
      names = "--timeout-s",
      paramLabel = "S",
      defaultValue = "900",
      converter = BenchCli.Positive.class,
      description = "Seconds per grid trial before it is killed.")
  int timeoutS;

  @Option(
      names = "--oom-timeout-s",
      paramLabel = "S",
      defaultValue = "300",
      converter = BenchCli.Positive.class,
      description = "Seconds per OOM-search trial before it is killed (GC thrashing).")
  int oomTimeoutS;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "Data generator seed.")
  long seed;

  @Option(
      names = "--tmp",
      paramLabel = "DIR",
      defaultValue = "${sys:java.io.tmpdir}",
      converter = BenchCli.AbsolutePath.class,
      description = "Parent of the trials' warehouses.")
  Path tmp;

  private final List<Trial> trials = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private Path logs;

  public static void main(String[] args) {
    BenchCli.main(args, new FanoutBench());
  }

  @Override
  public Integer call() throws Exception {
    resolve();
    return (reportOnly ? reportOnly() : run()) ? 0 : 1;
  }

  /** Applies --smoke to the options not given with it; "--oom-heaps none" turns the search off. */
  void resolve() {
    if (smoke) {
      // The smoke plan replaces the defaults, not the flags given with it.
      rows = BenchCli.given(cli, "--rows") ? rows : 20_000;
      partitions = BenchCli.given(cli, "--partitions") ? partitions : List.of(1, 16);
      measuredTrials = BenchCli.given(cli, "--trials") ? measuredTrials : 1;
      warmupTrials = BenchCli.given(cli, "--warmup-trials") ? warmupTrials : 0;
      heap = BenchCli.given(cli, "--heap") ? heap : "512m";
      oomHeaps = BenchCli.given(cli, "--oom-heaps") ? oomHeaps : List.of();
      poolRows = BenchCli.given(cli, "--pool-rows") ? poolRows : 20_000;
      warmupRows = BenchCli.given(cli, "--warmup-rows") ? warmupRows : 2_000;
      timeoutS = BenchCli.given(cli, "--timeout-s") ? timeoutS : 180;
    }
    if (oomHeaps.contains(OomHeap.NONE)) {
      oomHeaps = List.of();
    }
  }

  /** The arguments as given (results.md, RUN-INFO.md). */
  List<String> args() {
    return BenchCli.args(cli);
  }

  /** A heap of the OOM search, or "none". */
  static final class OomHeap extends BenchCli.HeapSize {
    static final String NONE = "none";

    @Override
    public String convert(String text) {
      return NONE.equals(text) ? NONE : super.convert(text);
    }
  }

  /** The plan, as the run and results.md print it. */
  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rows %,d, N %s, %d warm-up + %d measured trial(s) per arm and N, heap %s, OOM search %s"
            + " at N=%d, pool %,d rows, JIT warm-up %,d rows, seed %d",
        rows,
        partitions,
        warmupTrials,
        measuredTrials,
        heap,
        oomHeaps.isEmpty() ? "off" : oomHeaps,
        oomPartitions,
        poolRows,
        warmupRows,
        seed);
  }

  /** One child JVM: its outcome, and its own measurements when it completed. */
  static final class Trial {
    int seq;
    String stage; // grid or oom-search
    String phase; // warmup or measured
    int rep;
    String arm;
    int partitions;
    String heap;
    String outcome; // ok, invalid, oom, timeout, crash
    int exitCode;
    long elapsedMs;
    long observedPeakRssBytes;
    String detail = "";
    Map<String, String> result = new LinkedHashMap<>();

    boolean completed() {
      return "ok".equals(outcome);
    }

    String str(String key) {
      return Json.text(result.get(key));
    }

    double num(String key) {
      String v = result.get(key);
      return v == null || "null".equals(v) ? Double.NaN : Double.parseDouble(v);
    }

    String toJson() {
      StringBuilder json = new StringBuilder(2048).append('{');
      Map<String, Object> mine = new LinkedHashMap<>();
      mine.put("seq", seq);
      mine.put("cohort", "fanout");
      mine.put("stage", stage);
      mine.put("phase", phase);
      mine.put("rep", rep);
      mine.put("heap", heap);
      mine.put("arm", arm);
      mine.put("partitions", partitions);
      mine.put("outcome", outcome);
      mine.put("exit_code", exitCode);
      mine.put("jvm_elapsed_ms", elapsedMs);
      mine.put("observed_peak_rss_bytes", observedPeakRssBytes);
      mine.put("detail", detail);
      String head = Json.object(mine);
      json.append(head, 1, head.length() - 1);
      for (Map.Entry<String, String> e : result.entrySet()) {
        if (mine.containsKey(e.getKey())) {
          continue;
        }
        json.append(',');
        Json.string(json, e.getKey()).append(':').append(e.getValue());
      }
      return json.append('}').toString();
    }
  }

  /** Rebuilds the report from an earlier run's iterations.jsonl (e.g. after a report fix). */
  private boolean reportOnly() throws IOException {
    for (String line : Files.readAllLines(out.resolve("iterations.jsonl"))) {
      if (line.isBlank()) {
        continue;
      }
      Map<String, String> all = Json.parse(line);
      Trial t = new Trial();
      t.seq = Integer.parseInt(all.get("seq"));
      t.stage = Json.text(all.get("stage"));
      t.phase = Json.text(all.get("phase"));
      t.rep = Integer.parseInt(all.get("rep"));
      t.heap = Json.text(all.get("heap"));
      t.arm = Json.text(all.get("arm"));
      t.partitions = Integer.parseInt(all.get("partitions"));
      t.outcome = Json.text(all.get("outcome"));
      t.exitCode = Integer.parseInt(all.get("exit_code"));
      t.elapsedMs = Long.parseLong(all.get("jvm_elapsed_ms"));
      t.observedPeakRssBytes = Long.parseLong(all.get("observed_peak_rss_bytes"));
      t.detail = Json.text(all.get("detail"));
      t.result = all;
      trials.add(t);
    }
    String recorded = "recorded in the original run's RUN-INFO.md";
    Path previous = out.resolve("results.md");
    if (Files.isRegularFile(previous)) {
      List<String> kept = new ArrayList<>();
      for (String line : Files.readAllLines(previous)) {
        for (String row : List.of("| date (UTC) |", "| commit |", "| plan |", "| load average")) {
          if (line.startsWith(row)) {
            kept.add(line.substring(2, line.length() - 2).replace(" | ", ": "));
          }
        }
      }
      if (!kept.isEmpty()) {
        recorded = "from the original results.md: " + String.join("; ", kept);
      }
    }
    notes.add(
        "Report rebuilt with --report-only from iterations.jsonl: the date, commit and JVM rows"
            + " above are the rebuild's; the run's date, commit, JVM, run time and load are "
            + recorded
            + " (per-trial load average in the trial list).");
    new FanoutReport(this, trials, notes)
        .write(
            Double.NaN,
            "see the note below",
            "see the note below",
            childCommand("<heap>", List.of()));
    return true;
  }

  private boolean run() throws Exception {
    long started = System.nanoTime();
    Files.createDirectories(out);
    this.logs = Files.createTempDirectory(tmp, "frazil-fanout-logs-");
    System.out.printf("FanoutBench %s%n  %s%n  out %s%n", smoke ? "(smoke)" : "", this, out);
    String loadBefore = RunFacts.loadAverage();
    try (BufferedWriter lines =
        Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = lines;
      for (int n : partitions) {
        for (int rep = 0; rep < warmupTrials + measuredTrials; rep++) {
          boolean warm = rep < warmupTrials;
          for (String arm : ARMS) {
            trial(
                "grid",
                warm ? "warmup" : "measured",
                warm ? rep : rep - warmupTrials,
                arm,
                n,
                heap,
                timeoutS);
          }
        }
      }
      oomSearch();
    }
    String loadAfter = RunFacts.loadAverage();
    double seconds = (System.nanoTime() - started) / 1e9;
    FanoutReport report = new FanoutReport(this, trials, notes);
    report.write(seconds, loadBefore, loadAfter, childCommand("<heap>", List.of()));
    boolean ok = true;
    for (Trial t : trials) {
      // Stock running out of heap is a result (the case Frazil is for), not a failed run.
      boolean stockOom = "stock".equals(t.arm) && "oom".equals(t.outcome);
      if ("invalid".equals(t.outcome) || ("grid".equals(t.stage) && !t.completed() && !stockOom)) {
        ok = false;
        System.out.printf(
            "FAILED trial #%d (%s %s N=%d heap %s): %s %s%n",
            t.seq, t.stage, t.arm, t.partitions, t.heap, t.outcome, t.detail);
      }
    }
    RunFacts.deleteTree(logs);
    System.out.printf("%nresults in %s (%.0f s)%s%n", out, seconds, ok ? "" : ": FAILED");
    return ok;
  }

  /**
   * At {@code --oom-partitions}, heaps from large to small: both arms at each heap; stops after the
   * first heap at which neither arm completes.
   */
  private void oomSearch() throws Exception {
    for (String heap : oomHeaps) {
      boolean any = false;
      for (String arm : ARMS) {
        Trial t = trial("oom-search", "measured", 0, arm, oomPartitions, heap, oomTimeoutS);
        any |= t.completed();
      }
      if (!any) {
        break;
      }
    }
  }

  List<String> childCommand(String heap, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    command.add("-Xms" + heap);
    command.add("-Xmx" + heap);
    command.add("-XX:+ExitOnOutOfMemoryError");
    if (pretouch) {
      command.add("-XX:+AlwaysPreTouch");
    }
    command.add("-Dlog4j2.configurationFile=classpath:log4j2.properties");
    for (String property : List.of("bench.repoRoot", "bench.releaseLibrary")) {
      String value = System.getProperty(property);
      if (value != null) {
        command.add("-D" + property + "=" + value);
      }
    }
    if (memoryBudget != null) {
      command.add("-Dfrazil.memory.budget=" + memoryBudget);
    }
    if (frazilRouting) {
      command.add("-D" + FanoutTrial.FRAZIL_ROUTING + "=true");
    }
    command.add("-cp");
    command.add(args.isEmpty() ? "<classpath>" : System.getProperty("java.class.path"));
    command.add(FanoutTrial.class.getName());
    command.addAll(args);
    return command;
  }

  /** The flags of one {@link FanoutTrial} child JVM. */
  List<String> trialArgs(String arm, int n) {
    return List.of(
        "--arm", arm,
        "--partitions", Integer.toString(n),
        "--rows", Integer.toString(rows),
        "--pool-rows", Integer.toString(poolRows),
        "--warmup-rows", Integer.toString(warmupRows),
        "--seed", Long.toString(seed),
        "--tmp", tmp.toString());
  }

  private Trial trial(
      String stage, String phase, int rep, String arm, int n, String heap, int timeoutS)
      throws Exception {
    Trial t = new Trial();
    t.seq = trials.size();
    t.stage = stage;
    t.phase = phase;
    t.rep = rep;
    t.arm = arm;
    t.partitions = n;
    t.heap = heap;
    List<String> args = trialArgs(arm, n);
    File log = logs.resolve("trial-" + t.seq + ".log").toFile();
    Map<String, Double> host = HostProbe.measure();
    long start = System.nanoTime();
    Process process =
        new ProcessBuilder(childCommand(heap, args))
            .redirectErrorStream(true)
            .redirectOutput(log)
            .start();
    Path status = Paths.get("/proc", Long.toString(process.pid()), "status");
    long deadline = start + TimeUnit.SECONDS.toNanos(timeoutS);
    boolean finished = false;
    while (!finished && System.nanoTime() < deadline) {
      t.observedPeakRssBytes =
          Math.max(t.observedPeakRssBytes, MemoryProbes.statusKb(status, "VmHWM") * 1024);
      finished = process.waitFor(200, TimeUnit.MILLISECONDS);
    }
    if (!finished) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
    t.elapsedMs = (System.nanoTime() - start) / 1_000_000;
    String output = Files.readString(log.toPath(), StandardCharsets.UTF_8);
    t.exitCode = finished ? process.exitValue() : -1;
    String resultLine = null;
    for (String line : output.split("\n")) {
      if (line.startsWith(FanoutTrial.RESULT_MARKER)) {
        resultLine = line.substring(FanoutTrial.RESULT_MARKER.length()).trim();
      }
    }
    if (resultLine != null) {
      t.result = Json.parse(resultLine);
    }
    for (Map.Entry<String, Double> e : host.entrySet()) {
      t.result.put(e.getKey(), String.format(Locale.ROOT, "%.2f", e.getValue()));
    }
    int oomAt = output.indexOf("OutOfMemoryError");
    if (!finished) {
      t.outcome = "timeout";
      t.detail = "killed after " + timeoutS + " s";
    } else if (t.exitCode == 0 && resultLine != null) {
      t.outcome = "ok";
    } else if (oomAt >= 0) {
      t.outcome = "oom";
      int end = output.indexOf('\n', oomAt);
      t.detail = output.substring(oomAt, end < 0 ? output.length() : end).trim();
    } else if (resultLine != null) {
      t.outcome = "invalid";
      t.detail = t.result.getOrDefault("failures", "");
    } else {
      t.outcome = "crash";
      t.detail = "exit " + t.exitCode + ": " + tail(output, 600);
    }
    if (!t.completed() && !"oom".equals(t.outcome)) {
      Path kept = out.resolve("trial-" + t.seq + ".log");
      Files.writeString(kept, tail(output, 20_000), StandardCharsets.UTF_8);
      t.detail += " (log tail: " + kept.getFileName() + ")";
    }
    trials.add(t);
    jsonl.write(t.toJson());
    jsonl.newLine();
    jsonl.flush();
    if (t.completed()) {
      System.out.printf(
          Locale.ROOT,
          "  #%-3d %-10s %-8s %-6s N=%-5d heap %-5s wall %8.1f ms (write %8.1f, close-all %7.1f)"
              + "  cpu %8.1f ms  alloc %7.1f MB  gc %5.0f ms  peak RSS %6.0f MB  peak heap %6.0f"
              + " MB  arrow %6.1f MB  native est %6.1f MB  load %.1f"
              + "  host chase %.0f ns, touch %.0f ns/page, compute %.0f ms%n",
          t.seq,
          stage,
          phase,
          arm,
          n,
          heap,
          t.num("wall_ns") / 1e6,
          t.num("write_wall_ns") / 1e6,
          t.num("close_wall_ns") / 1e6,
          t.num("process_cpu_ns") / 1e6,
          t.num("allocated_bytes") / 1048576.0,
          t.num("gc_ms"),
          t.num("peak_rss_bytes") / 1048576.0,
          t.num("peak_heap_bytes") / 1048576.0,
          t.num("arrow_bytes_all_open") / 1048576.0,
          t.num("native_estimate_all_open_bytes") / 1048576.0,
          t.num("loadavg_1m"),
          t.num("host_chase_ns"),
          t.num("host_touch_ns_per_page"),
          t.num("host_compute_ms"));
    } else {
      System.out.printf(
          Locale.ROOT,
          "  #%-3d %-10s %-8s %-6s N=%-5d heap %-5s %s after %.1f s (peak RSS %.0f MB): %s%n",
          t.seq,
          stage,
          phase,
          arm,
          n,
          heap,
          t.outcome.toUpperCase(Locale.ROOT),
          t.elapsedMs / 1e3,
          t.observedPeakRssBytes / 1048576.0,
          t.detail);
    }
    return t;
  }

  private static String tail(String text, int chars) {
    return text.length() <= chars ? text : text.substring(text.length() - chars);
  }
}
