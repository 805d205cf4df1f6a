package io.frazil.bench;

import com.sun.management.OperatingSystemMXBean;
import io.frazil.flink.FrazilFlink;
import io.frazil.nexmark.NexmarkQuery;
import io.frazil.nexmark.NexmarkSql;
import io.frazil.nexmark.NexmarkTables;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;

/**
 * One Nexmark job of one arm: timed from the result table's creation and the INSERT's submission to
 * its end (bounded source drained, final checkpoint committed), then, off the clock, Flink's
 * checkpoint statistics and the validation of what it committed.
 */
final class NexmarkTrial {
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** The rows of a query's first valid trial: every later trial, either arm, must commit them. */
  static final class Reference {
    NexmarkTables.Committed rows;
    int seq;
  }

  final int seq;
  final NexmarkQuery query;
  final int formatVersion;
  final String arm;
  final String phase;
  final int rep;
  long wallNs;
  long processCpuNs;
  long gcCount;
  long gcMs;
  long peakRssKb;
  double loadBefore;
  double loadAfter;
  long committedRows = -1;
  int dataFiles;
  long dataBytes;
  String createdBy = "";
  long nativeFiles = -1;
  JobCheckpoints checkpoints = new JobCheckpoints();
  final List<String> failures = new ArrayList<>();

  NexmarkTrial(int seq, NexmarkQuery query, int formatVersion, String arm, String phase, int rep) {
    this.seq = seq;
    this.query = query;
    this.formatVersion = formatVersion;
    this.arm = arm;
    this.phase = phase;
    this.rep = rep;
  }

  boolean valid() {
    return failures.isEmpty();
  }

  boolean measured() {
    return "measured".equals(phase);
  }

  String cohort() {
    return "nexmark-v" + formatVersion;
  }

  void run(NexmarkBench bench, String landed, HttpClient http, URI rest, Reference reference)
      throws Exception {
    String table = String.format(Locale.ROOT, "%s_%s_%d", query.name(), arm, seq).replace('-', '_');
    HadoopCatalog catalog = bench.catalog();
    bench.arm(arm);
    StreamTableEnvironment tableEnv =
        NexmarkSql.session(bench.environment(), bench.warehouseUri(), bench.generator());
    long native0 = FrazilFlink.nativeDataFiles();
    // Garbage of the previous trial (and its validation) is collected here, off the clock.
    System.gc();
    MemoryProbes.Sampler rss = new MemoryProbes.Sampler(100);
    long gcCount0 = RunFacts.gcCount();
    long gcMs0 = RunFacts.gcMillis();
    loadBefore = OS.getSystemLoadAverage();
    rss.start();
    long cpu0 = OS.getProcessCpuTime();
    long wall0 = System.nanoTime();
    String jobId = null;
    try {
      JobClient job =
          NexmarkSql.submit(
              tableEnv, catalog, query, table, bench.tableOptions(arm, formatVersion), landed);
      jobId = job.getJobID().toString();
      job.getJobExecutionResult().get();
    } catch (Exception e) {
      failures.add("job failed: " + rootMessage(e));
      e.printStackTrace();
    }
    wallNs = System.nanoTime() - wall0;
    processCpuNs = OS.getProcessCpuTime() - cpu0;
    rss.stop();
    loadAfter = OS.getSystemLoadAverage();
    peakRssKb = rss.maxRssKb;
    gcCount = RunFacts.gcCount() - gcCount0;
    gcMs = RunFacts.gcMillis() - gcMs0;
    if (bench.local()) {
      nativeFiles = FrazilFlink.nativeDataFiles() - native0;
    }
    if (jobId != null && valid()) {
      checkpoints = JobCheckpoints.read(http, rest, jobId, Duration.ofSeconds(30));
    }
    if (valid()) {
      validate(bench, catalog, table, reference);
    }
    if (!bench.keepTables) {
      catalog.dropTable(TableIdentifier.of(NexmarkSql.DATABASE, table), true);
    }
  }

  private void validate(
      NexmarkBench bench, HadoopCatalog catalog, String table, Reference reference)
      throws Exception {
    NexmarkTables.Committed committed =
        NexmarkTables.read(catalog.loadTable(TableIdentifier.of(NexmarkSql.DATABASE, table)));
    committedRows = committed.rows();
    dataFiles = committed.dataFiles;
    dataBytes = committed.dataBytes;
    createdBy = String.join("; ", committed.createdBy);
    if (committed.rows() == 0) {
      failures.add("committed no rows");
    }
    String writer = "stock".equals(arm) ? "parquet-mr" : "frazil";
    if (!committed.allWrittenBy(writer)) {
      failures.add("data files not all written by " + writer + ": " + createdBy);
    }
    if (bench.local() && "frazil".equals(arm) && nativeFiles < dataFiles) {
      failures.add(
          String.format(
              Locale.ROOT,
              "Frazil wrote %d data files natively, the table has %d",
              nativeFiles,
              dataFiles));
    }
    if (reference.rows == null) {
      if (valid()) {
        reference.rows = committed;
        reference.seq = seq;
      }
    } else {
      String difference = NexmarkTables.difference(reference.rows, committed);
      if (difference != null) {
        failures.add("rows differ from trial " + reference.seq + "'s: " + difference);
      }
    }
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == t ? t.toString() : t + " (root cause: " + root + ")";
  }

  /**
   * The steady checkpoints' durations; when the source is chained into the writer (one vertex, so
   * JobCheckpoints knows no source end), every completed checkpoint's but the last (the final one a
   * bounded job waits for).
   */
  List<Long> steadyDurations() {
    List<Long> steady = checkpoints.steady(checkpoints.durationMs);
    boolean chained =
        checkpoints.error != null && checkpoints.error.startsWith("no writer or no source");
    if (steady.isEmpty() && chained) {
      List<Long> all = checkpoints.durationMs;
      return all.size() > 1 ? all.subList(0, all.size() - 1) : List.of();
    }
    return steady;
  }

  /** The trial's line of iterations.jsonl. */
  String toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("seq", seq);
    json.put("cohort", cohort());
    json.put("query", query.name());
    json.put("format_version", formatVersion);
    json.put("arm", arm);
    json.put("phase", phase);
    json.put("rep", rep);
    json.put("wall_ns", wallNs);
    json.put("process_cpu_ns", processCpuNs);
    json.put("gc_count", gcCount);
    json.put("gc_ms", gcMs);
    json.put("peak_rss_kb", peakRssKb);
    json.put("load_before", loadBefore);
    json.put("load_after", loadAfter);
    json.put("committed_rows", committedRows);
    json.put("data_files", dataFiles);
    json.put("data_bytes", dataBytes);
    json.put("created_by", createdBy);
    json.put("native_files", nativeFiles);
    json.put("checkpoints_completed", checkpoints.completed);
    json.put("checkpoints_failed", checkpoints.failed);
    json.put("checkpoint_duration_ms", checkpoints.durationMs);
    json.put("checkpoint_steady", checkpoints.steady);
    json.put("checkpoint_stats_error", checkpoints.error);
    json.put("valid", valid());
    json.put("failures", failures);
    return Json.object(json);
  }

  /** The bench's generic iteration (for Report's cells and ratios.svg). */
  Iteration iteration(int events) {
    return new Iteration(
        seq,
        cohort(),
        query.name(),
        events,
        arm,
        phase,
        rep,
        wallNs,
        processCpuNs,
        -1,
        -1,
        gcCount,
        gcMs,
        dataBytes,
        dataFiles,
        committedRows,
        0,
        createdBy);
  }

  String summary() {
    return String.format(
        Locale.ROOT,
        "#%d %-8s %-6s %8.0f ms wall, %8.0f ms CPU, %,d rows, %d files%s",
        seq,
        phase,
        arm,
        wallNs / 1e6,
        processCpuNs / 1e6,
        committedRows,
        dataFiles,
        valid() ? "" : " INVALID: " + String.join("; ", failures));
  }
}
