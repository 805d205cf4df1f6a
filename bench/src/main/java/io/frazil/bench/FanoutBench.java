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
import java.util.concurrent.TimeUnit;

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
public final class FanoutBench {
  static final List<String> ARMS = List.of("stock", "frazil");

  private final FanoutOptions options;
  private final List<Trial> trials = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private Path logs;

  private FanoutBench(FanoutOptions options) {
    this.options = options;
  }

  public static void main(String[] args) {
    BenchMain.main(args, FanoutOptions::parse, FanoutOptions.USAGE, o -> new FanoutBench(o).run());
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
      return FlatJson.text(result.get(key));
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
      String head = FanoutTrial.Json.object(mine);
      json.append(head, 1, head.length() - 1);
      for (Map.Entry<String, String> e : result.entrySet()) {
        if (mine.containsKey(e.getKey())) {
          continue;
        }
        json.append(',');
        FanoutTrial.Json.string(json, e.getKey()).append(':').append(e.getValue());
      }
      return json.append('}').toString();
    }
  }

  /** Rebuilds the report from an earlier run's iterations.jsonl (e.g. after a report fix). */
  private boolean reportOnly() throws IOException {
    for (String line : Files.readAllLines(options.out.resolve("iterations.jsonl"))) {
      if (line.isBlank()) {
        continue;
      }
      Map<String, String> all = FlatJson.parse(line);
      Trial t = new Trial();
      t.seq = Integer.parseInt(all.get("seq"));
      t.stage = FlatJson.text(all.get("stage"));
      t.phase = FlatJson.text(all.get("phase"));
      t.rep = Integer.parseInt(all.get("rep"));
      t.heap = FlatJson.text(all.get("heap"));
      t.arm = FlatJson.text(all.get("arm"));
      t.partitions = Integer.parseInt(all.get("partitions"));
      t.outcome = FlatJson.text(all.get("outcome"));
      t.exitCode = Integer.parseInt(all.get("exit_code"));
      t.elapsedMs = Long.parseLong(all.get("jvm_elapsed_ms"));
      t.observedPeakRssBytes = Long.parseLong(all.get("observed_peak_rss_bytes"));
      t.detail = FlatJson.text(all.get("detail"));
      t.result = all;
      trials.add(t);
    }
    String recorded = "recorded in the original run's RUN-INFO.md";
    Path previous = options.out.resolve("results.md");
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
    new FanoutReport(options, trials, notes)
        .write(
            Double.NaN,
            "see the note below",
            "see the note below",
            childCommand("<heap>", List.of()));
    return true;
  }

  private boolean run() throws Exception {
    if (options.reportOnly) {
      return reportOnly();
    }
    long started = System.nanoTime();
    Files.createDirectories(options.out);
    this.logs = Files.createTempDirectory(options.tmp, "frazil-fanout-logs-");
    System.out.printf(
        "FanoutBench %s%n  %s%n  out %s%n", options.smoke ? "(smoke)" : "", options, options.out);
    String loadBefore = loadAverage();
    try (BufferedWriter out =
        Files.newBufferedWriter(options.out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = out;
      for (int n : options.partitions) {
        for (int rep = 0; rep < options.warmupTrials + options.trials; rep++) {
          boolean warm = rep < options.warmupTrials;
          for (String arm : ARMS) {
            trial(
                "grid",
                warm ? "warmup" : "measured",
                warm ? rep : rep - options.warmupTrials,
                arm,
                n,
                options.heap,
                options.timeoutS);
          }
        }
      }
      oomSearch();
    }
    String loadAfter = loadAverage();
    double seconds = (System.nanoTime() - started) / 1e9;
    FanoutReport report = new FanoutReport(options, trials, notes);
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
    System.out.printf("%nresults in %s (%.0f s)%s%n", options.out, seconds, ok ? "" : ": FAILED");
    return ok;
  }

  /**
   * At {@code --oom-partitions}, heaps from large to small: both arms at each heap; stops after the
   * first heap at which neither arm completes.
   */
  private void oomSearch() throws Exception {
    for (String heap : options.oomHeaps) {
      boolean any = false;
      for (String arm : ARMS) {
        Trial t =
            trial(
                "oom-search", "measured", 0, arm, options.oomPartitions, heap, options.oomTimeoutS);
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
    if (options.pretouch) {
      command.add("-XX:+AlwaysPreTouch");
    }
    command.add("-Dlog4j2.configurationFile=classpath:log4j2.properties");
    for (String property :
        List.of("bench.repoRoot", "bench.releaseLibrary", "fanout.nativeCounter")) {
      String value = System.getProperty(property);
      if (value != null) {
        command.add("-D" + property + "=" + value);
      }
    }
    if (options.memoryBudget != null) {
      command.add("-Dfrazil.memory.budget=" + options.memoryBudget);
    }
    if (options.frazilRouting) {
      command.add("-D" + FanoutTrial.FRAZIL_ROUTING + "=true");
    }
    command.add("-cp");
    command.add(args.isEmpty() ? "<classpath>" : System.getProperty("java.class.path"));
    command.add(FanoutTrial.class.getName());
    command.addAll(args);
    return command;
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
    List<String> args =
        List.of(
            "--arm", arm,
            "--partitions", Integer.toString(n),
            "--rows", Integer.toString(options.rows),
            "--pool-rows", Integer.toString(options.poolRows),
            "--warmup-rows", Integer.toString(options.warmupRows),
            "--seed", Long.toString(options.seed),
            "--tmp", options.tmp.toString());
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
      t.observedPeakRssBytes = Math.max(t.observedPeakRssBytes, statusKb(status, "VmHWM") * 1024);
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
      t.result = FlatJson.parse(resultLine);
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
      Path kept = options.out.resolve("trial-" + t.seq + ".log");
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

  private static long statusKb(Path status, String key) {
    try {
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith(key + ":")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }

  static String loadAverage() {
    try {
      return Files.readString(Paths.get("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** Splits one JSON object into its top-level keys and their values as raw JSON text. */
  static final class FlatJson {
    private FlatJson() {}

    static Map<String, String> parse(String json) {
      Map<String, String> map = new LinkedHashMap<>();
      int i = json.indexOf('{') + 1;
      int[] end = new int[1];
      while (true) {
        i = skip(json, i);
        if (i >= json.length() || json.charAt(i) == '}') {
          return map;
        }
        String key = unquote(json, i, end);
        i = skip(json, end[0]) + 1; // ':'
        i = skip(json, i);
        int start = i;
        int depth = 0;
        while (i < json.length()) {
          char d = json.charAt(i);
          if (d == '"') {
            unquote(json, i, end);
            i = end[0];
            continue;
          }
          if (d == '[' || d == '{') {
            depth++;
          } else if (d == ']' || d == '}') {
            if (depth == 0) {
              break;
            }
            depth--;
          } else if (d == ',' && depth == 0) {
            break;
          }
          i++;
        }
        map.put(key, json.substring(start, i).trim());
        if (i < json.length() && json.charAt(i) == ',') {
          i++;
        }
      }
    }

    /** The string a raw JSON value holds (the text itself when it is not a JSON string). */
    static String text(String raw) {
      if (raw == null || raw.isEmpty() || raw.charAt(0) != '"') {
        return raw;
      }
      return unquote(raw, 0, new int[1]);
    }

    private static int skip(String json, int i) {
      while (i < json.length() && Character.isWhitespace(json.charAt(i))) {
        i++;
      }
      return i;
    }

    private static String unquote(String json, int i, int[] end) {
      StringBuilder s = new StringBuilder();
      int j = i + 1;
      while (json.charAt(j) != '"') {
        char c = json.charAt(j);
        if (c == '\\') {
          char next = json.charAt(j + 1);
          if (next == 'u') {
            s.append((char) Integer.parseInt(json.substring(j + 2, j + 6), 16));
            j += 6;
          } else {
            s.append(next == 'n' ? '\n' : next == 't' ? '\t' : next);
            j += 2;
          }
        } else {
          s.append(c);
          j++;
        }
      }
      end[0] = j + 1;
      return s.toString();
    }
  }
}
