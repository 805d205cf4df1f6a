package io.frazil.bench;

import io.frazil.nexmark.NexmarkQuery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * {@link NexmarkBench}'s results: {@code results.md} (run facts, per query and format the stock and
 * Frazil medians with ranges and ratios, checkpoint durations, where Frazil gains most and least,
 * every trial) and {@code ratios.svg} (bench's {@link Report#writeSvg}). Medians cover the measured
 * trials that passed validation.
 */
final class NexmarkReport {
  private final NexmarkBench bench;

  NexmarkReport(NexmarkBench bench) {
    this.bench = bench;
  }

  /** One query × format: its valid measured trials per arm. */
  private static final class Row {
    final NexmarkQuery query;
    final int version;
    final List<NexmarkTrial> stock = new ArrayList<>();
    final List<NexmarkTrial> frazil = new ArrayList<>();

    Row(NexmarkQuery query, int version) {
      this.query = query;
      this.version = version;
    }

    boolean complete() {
      return !stock.isEmpty() && !frazil.isEmpty();
    }

    Report.Ratio ratio(ToDoubleFunction<NexmarkTrial> quantity) {
      return new Report.Ratio(stat(stock, quantity), stat(frazil, quantity));
    }
  }

  static Report.Stat stat(List<NexmarkTrial> trials, ToDoubleFunction<NexmarkTrial> quantity) {
    double[] values = new double[trials.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = quantity.applyAsDouble(trials.get(i));
    }
    return new Report.Stat(values);
  }

  /** Writes results.md, ratios.svg and the run files; true when every trial passed validation. */
  boolean write(double seconds) throws IOException {
    Map<String, Row> rows = new LinkedHashMap<>();
    List<Iteration> iterations = new ArrayList<>();
    List<NexmarkTrial> invalid = new ArrayList<>();
    for (NexmarkTrial trial : bench.trials) {
      if (!trial.valid()) {
        invalid.add(trial);
        continue;
      }
      if (!trial.measured()) {
        continue;
      }
      Row row =
          rows.computeIfAbsent(
              trial.query.name() + "|" + trial.formatVersion,
              k -> new Row(trial.query, trial.formatVersion));
      ("stock".equals(trial.arm) ? row.stock : row.frazil).add(trial);
      iterations.add(trial.iteration(bench.events));
    }
    List<Row> complete = new ArrayList<>();
    rows.values().stream().filter(Row::complete).forEach(complete::add);
    RunFacts facts = RunFacts.collect();

    StringBuilder md = new StringBuilder();
    md.append("# Stock Iceberg vs Frazil — Nexmark SQL queries into Iceberg tables\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| native library | ").append(bench.nativeLibrary).append(" |\n");
    md.append("| mode | ").append(bench.smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(BenchCli.args(bench.cli))).append("` |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| plan | %,d Nexmark events per job (seed %d, %,d events/s of event time), queries"
                + " %s, format v%s, %d warm-up + %d measured (stock, Frazil) pairs per query,"
                + " %.0f s in total |\n",
            bench.events,
            bench.seed,
            bench.eventsPerSecond,
            String.join(",", bench.queries),
            bench.formatVersions.stream().map(String::valueOf).collect(Collectors.joining(", v")),
            bench.warmupPairs,
            bench.pairs,
            seconds));
    md.append(
        String.format(
            Locale.ROOT,
            "| job | %s; one SQL job per trial: `frazil-nexmark` sources (person / auction / bid,"
                + " 4 s watermark) → the query → Iceberg's SQL sink (IcebergSink, v2) into a fresh"
                + " table of a Hadoop catalog on local disk; parallelism %d; checkpoints every %d"
                + " ms |\n",
            bench.local()
                ? "Flink MiniCluster in this JVM (1 TaskManager, " + bench.parallelism + " slots)"
                : "cluster at " + bench.cluster,
            bench.parallelism,
            bench.checkpointMs));
    md.append(
        bench.local()
            ? "| arms | stock: FrazilFlink.uninstall() (Iceberg's own Parquet writer and reader);"
                + " Frazil: FrazilFlink.install(); nothing else differs |\n"
            : "| arms | stock: result table property `write.parquet.frazil.enabled=false`;"
                + " Frazil: the cluster's default |\n");
    md.append(
        "| validation | every trial: rows committed (Iceberg's generic reader, deletes applied)"
            + " equal to the query's first trial as a multiset, every live data file's footer"
            + " `created_by` parquet-mr (stock) or frazil (Frazil), Frazil's native-file counter"
            + " ≥ the table's data files |\n\n");
    double loadMin = Double.MAX_VALUE;
    double loadMax = 0;
    for (NexmarkTrial trial : bench.trials) {
      loadMin = Math.min(loadMin, Math.min(trial.loadBefore, trial.loadAfter));
      loadMax = Math.max(loadMax, Math.max(trial.loadBefore, trial.loadAfter));
    }
    if (!bench.trials.isEmpty()) {
      md.append(
          String.format(
              Locale.ROOT,
              "Host load (1-minute load average, read before and after each job): %.1f to %.1f on"
                  + " %d cores%s.\n\n",
              loadMin,
              loadMax,
              facts.cores,
              loadMax > facts.cores
                  ? " — other work shared this machine; trust CPU over wall"
                  : ""));
    }
    for (String note : bench.notes) {
      md.append("**").append(note).append("**\n\n");
    }
    if (!invalid.isEmpty()) {
      md.append("**VALIDATION FAILURES: ").append(invalid.size());
      md.append(" trial(s) failed and are left out of the medians:**\n\n");
      for (NexmarkTrial trial : invalid) {
        md.append("- #").append(trial.seq).append(' ').append(trial.query.name());
        md.append(' ').append(trial.arm).append(": ");
        md.append(String.join("; ", trial.failures)).append('\n');
      }
      md.append('\n');
    }
    md.append(table(complete));
    md.append(gains(complete));
    md.append(trialList());
    md.append(
        "Columns: *wall* = from the result table's CREATE and the INSERT's submission to the job's"
            + " end (all events through sources, query and writers, periodic checkpoints with"
            + " their commits, the final checkpoint and commit); *CPU* = this process's CPU time"
            + " over the same span (the MiniCluster runs in it); *peak RSS* = the process's"
            + " largest resident set sampled every 100 ms during the job (one JVM for both arms:"
            + " it includes the heap both arms have touched, so it shows growth, not each arm's"
            + " own footprint); *checkpoint p50* = median `end_to_end_duration` of the steady"
            + " checkpoints (bench/README.md, whole-job cohort; where the source is chained into"
            + " the writer, so no source end time is known, of every completed checkpoint but the"
            + " last), median over the trials; ratios are stock / Frazil of the"
            + " medians (> 1: Frazil faster), bracketed by stock min / Frazil max … stock max /"
            + " Frazil min. Every trial, warm-ups and failures included, is in"
            + " `iterations.jsonl`.\n");
    Files.writeString(out("results.md"), md.toString(), StandardCharsets.UTF_8);

    List<Report.Cell> cells = Report.cells(iterations);
    if (!cells.isEmpty()) {
      Report.writeSvg(
          bench.out.resolve("ratios.svg"),
          cells,
          String.format(
              Locale.ROOT,
              "Nexmark queries into Iceberg, %,d events per job, parallelism %d, %s",
              bench.events,
              bench.parallelism,
              facts.now.substring(0, 10)));
    }
    facts.writeRunFiles(
        bench.out,
        BenchCli.args(bench.cli),
        RunFacts.labels("native library", bench.nativeLibrary));
    return invalid.isEmpty() && !complete.isEmpty();
  }

  private java.nio.file.Path out(String name) {
    return bench.out.resolve(name);
  }

  private String table(List<Row> rows) {
    StringBuilder md = new StringBuilder();
    md.append("## Stock / Frazil per query\n\n");
    md.append(
        "| query | v | result | rows committed | stock wall ms | Frazil wall ms | wall stock/Frazil"
            + " | stock CPU ms | Frazil CPU ms | CPU stock/Frazil | peak RSS MB stock / Frazil"
            + " | checkpoint p50 ms stock / Frazil | data files stock / Frazil | MB written |\n");
    md.append("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (Row row : rows) {
      Report.Stat stockWall = stat(row.stock, t -> t.wallNs / 1e6);
      Report.Stat frazilWall = stat(row.frazil, t -> t.wallNs / 1e6);
      Report.Stat stockCpu = stat(row.stock, t -> t.processCpuNs / 1e6);
      Report.Stat frazilCpu = stat(row.frazil, t -> t.processCpuNs / 1e6);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %,d | %s | %s | %s | %s | %s | %s | %.0f / %.0f | %s / %s | %.0f /"
                  + " %.0f | %.1f |\n",
              row.query.name(),
              row.version,
              row.query.upsert() ? "upsert" : "append",
              row.stock.get(0).committedRows,
              Report.range(stockWall, "%.0f"),
              Report.range(frazilWall, "%.0f"),
              ratio(row.ratio(t -> t.wallNs)),
              Report.range(stockCpu, "%.0f"),
              Report.range(frazilCpu, "%.0f"),
              ratio(row.ratio(t -> t.processCpuNs)),
              stat(row.stock, t -> t.peakRssKb / 1024.0).median,
              stat(row.frazil, t -> t.peakRssKb / 1024.0).median,
              checkpointP50(row.stock),
              checkpointP50(row.frazil),
              stat(row.stock, t -> t.dataFiles).median,
              stat(row.frazil, t -> t.dataFiles).median,
              stat(row.frazil, t -> t.dataBytes / 1e6).median));
    }
    return md.append('\n').toString();
  }

  private static String ratio(Report.Ratio ratio) {
    return Report.times(ratio.median) + " " + Report.ratioRange(ratio);
  }

  /** Median over the arm's trials of each trial's median steady checkpoint duration. */
  private static String checkpointP50(List<NexmarkTrial> trials) {
    List<Double> medians = new ArrayList<>();
    for (NexmarkTrial trial : trials) {
      List<Long> steady = trial.steadyDurations();
      if (!steady.isEmpty()) {
        medians.add((double) JobCheckpoints.percentile(steady, 0.5));
      }
    }
    if (medians.isEmpty()) {
      return "–";
    }
    double[] values = medians.stream().mapToDouble(Double::doubleValue).toArray();
    return Report.fmt("%.0f", new Report.Stat(values).median);
  }

  private static String gains(List<Row> rows) {
    if (rows.size() < 2) {
      return "";
    }
    List<Row> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparingDouble(r -> -r.ratio(t -> t.wallNs).median));
    StringBuilder md = new StringBuilder("## Where Frazil gains most and least (wall)\n\n");
    double[] medians = sorted.stream().mapToDouble(r -> r.ratio(t -> t.wallNs).median).toArray();
    md.append(
        String.format(
            Locale.ROOT,
            "Median over the %d query rows of their wall stock/Frazil: %s.\n\n",
            medians.length,
            Report.times(new Report.Stat(medians).median)));
    int n = Math.min(3, sorted.size() / 2);
    md.append("Most: ");
    for (int i = 0; i < n; i++) {
      md.append(i == 0 ? "" : ", ").append(label(sorted.get(i)));
    }
    md.append(". Least: ");
    for (int i = sorted.size() - 1; i >= sorted.size() - n; i--) {
      md.append(i == sorted.size() - 1 ? "" : ", ").append(label(sorted.get(i)));
    }
    return md.append(".\n\n").toString();
  }

  private static String label(Row row) {
    return "`"
        + row.query.name()
        + "` v"
        + row.version
        + " "
        + Report.times(row.ratio(t -> t.wallNs).median);
  }

  private String trialList() {
    StringBuilder md = new StringBuilder("## Every trial\n\n");
    md.append("| # | query | v | phase | arm | wall ms | CPU ms | rows | files | valid |\n");
    md.append("|--:|---|--:|---|---|--:|--:|--:|--:|---|\n");
    for (NexmarkTrial t : bench.trials) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %d | %s | %s | %.0f | %.0f | %,d | %d | %s |\n",
              t.seq,
              t.query.name(),
              t.formatVersion,
              t.phase,
              t.arm,
              t.wallNs / 1e6,
              t.processCpuNs / 1e6,
              t.committedRows,
              t.dataFiles,
              t.valid() ? "yes" : "NO"));
    }
    return md.append('\n').toString();
  }
}
