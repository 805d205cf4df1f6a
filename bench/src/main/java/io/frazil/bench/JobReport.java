package io.frazil.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * {@link JobBench}'s results: {@code results.md} (run facts, the time table, Flink's checkpoint
 * statistics with the checkpoint-duration target, every trial), {@code ratios.svg} and the run
 * files. Medians cover the measured trials that passed validation.
 */
final class JobReport {
  private final JobBench bench;
  private final List<Iteration> iterations;
  private final Map<Integer, JobTrial> trials;

  JobReport(JobBench bench, List<Iteration> iterations, Map<Integer, JobTrial> trials) {
    this.bench = bench;
    this.iterations = iterations;
    this.trials = trials;
  }

  /** Writes results.md, ratios.svg and the run files; true when every trial passed validation. */
  boolean write(double seconds) throws IOException {
    List<Iteration> validMeasured = new ArrayList<>();
    List<Integer> invalid = new ArrayList<>();
    for (Iteration it : iterations) {
      JobTrial trial = trials.get(it.seq);
      if (!trial.valid()) {
        invalid.add(it.seq);
      } else if (it.measured()) {
        validMeasured.add(it);
      }
    }
    List<Report.Cell> cells = Report.cells(validMeasured);
    RunFacts facts = RunFacts.collect();
    String bridge = bench.bridgeAtStart;
    String bridgeAtEnd = JobBench.bridgeJar();
    if (!bridgeAtEnd.equals(bench.bridgeAtStart)) {
      bench.notes.add(
          "WARNING: the bridge jar on the classpath was replaced during the run; at the start: "
              + bench.bridgeAtStart
              + "; at the end: "
              + bridgeAtEnd);
    }

    StringBuilder md = new StringBuilder();
    md.append(
        "# Stock Iceberg vs Frazil (RowData, Arrow end to end) — whole Flink jobs (Dynamic Iceberg"
            + " Sink)\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| native library | ").append(bench.nativeLibrary).append(" |\n");
    md.append("| bridge jar (at start) | ").append(bridge).append(" |\n");
    md.append("| mode | ").append(bench.smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(BenchCli.args(bench.cli))).append("` |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| plan | %,d rows per job, cells %s, %d warm-up + %d measured pairs per cell (one"
                + " trial of each arm %s, in that order), seed %d, %.0f s in total |\n",
            bench.rows,
            bench.cells,
            bench.warmupPairs,
            bench.pairs,
            bench.arms,
            bench.seed,
            seconds));
    md.append(
        String.format(
            Locale.ROOT,
            "| job | Flink MiniCluster (1 TaskManager, %d slots, shared by all trials, one job per"
                + " trial); sequence source at parallelism 1 → rebalance → row lookup, generator"
                + " and writers at parallelism %d; checkpoints every %d ms (exactly-once); Dynamic"
                + " Iceberg Sink, write parallelism %d; HadoopCatalog on local disk, a fresh table"
                + " per trial. Frazil Arrow arm: the sequence source's chained flat-map emits"
                + " pre-built 8,192-row Arrow batches (buffers shared with the pre-built ones by"
                + " reference count) → rebalance of the batches → (keyed: native split by bucket"
                + " → custom partitioning of whole sub-batches to the writer subtask) →"
                + " FrazilArrowSink.dynamicSink (batch → rows) → the same generator and sink |\n",
            bench.parallelism,
            bench.parallelism,
            bench.checkpointMs,
            bench.parallelism));
    md.append(
        "| table | Nexmark bid schema, `bucket(auction, 4)`, `write.parquet.compression-codec=zstd`,"
            + " `write.parquet.compression-level=3`, format v2 or v3; stock arm adds"
            + " `write.parquet.frazil.enabled=false` (FrazilFlink.install() ran once for both"
            + " arms); the Frazil arms' jobs run through FrazilRouting.accelerate(env) |\n");
    md.append(
        "| cells | *forward*: append, `DynamicRecord` without distribution mode (written by the"
            + " generator's own subtask, no shuffle); *keyed*: upsert on equality fields"
            + " (auction, bidder, date_time), `DistributionMode.HASH` (keyBy partition to the"
            + " writers); the Arrow arm's keyed records have no distribution mode: their"
            + " sub-batch already reached the writer subtask of its bucket |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| input | Datasets.bids (seed %d), %d date_time values moved by whole microseconds so"
                + " (auction, bidder, date_time) is unique; every trial must read back exactly"
                + " this: %s |\n\n",
            bench.seed,
            bench.movedKeys,
            bench.expected));
    double loadMin = Double.MAX_VALUE;
    double loadMax = 0;
    for (JobTrial trial : trials.values()) {
      loadMin = Math.min(loadMin, Math.min(trial.loadBefore, trial.loadAfter));
      loadMax = Math.max(loadMax, Math.max(trial.loadBefore, trial.loadAfter));
    }
    if (!trials.isEmpty()) {
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
      md.append(" trial(s) failed and are left out of the medians (seq ").append(invalid);
      md.append("); see the trial list below and `iterations.jsonl`.**\n\n");
    }
    md.append(
        "Medians of the measured trials that passed validation, [min–max] over them. Ratios are"
            + " stock / arm of the medians (> 1 means the Frazil arm is faster or cheaper),"
            + " bracketed by the extreme range (stock min / arm max … stock max / arm min);"
            + " allocation is arm / stock.\n\n");
    md.append(table(cells));
    md.append(JobArrowTargets.section(cells, bench.smoke));
    md.append(checkpointTable(cells));
    md.append(trialList());
    md.append(
        "Columns: *wall* = `System.nanoTime()` around `env.execute()` (job submission,"
            + " scheduling, all rows through source, lookup, generator and writers, periodic"
            + " checkpoints with their commits, the final checkpoint and commit); *process CPU* ="
            + " `OperatingSystemMXBean.getProcessCpuTime()` over the same interval (every thread"
            + " of the JVM: Flink, writers, Frazil's Rust threads, JIT, GC); *alloc* = Java heap"
            + " allocated by the whole process in that interval, GC account (heap used after −"
            + " heap used before + heap freed by the collections in between; native and Arrow"
            + " off-heap memory not included; `alloc_live_threads_bytes` in `iterations.jsonl`"
            + " is the per-thread counter summed over threads alive at the end, which misses"
            + " Flink's finished task threads and is only a floor); *data MB / files* = the live"
            + " data files of the final snapshot; *deletes* = live delete files eq / pos / DV;"
            + " *commits* = snapshots the sink committed; *M rows/s* from the median wall time;"
            + " *native encoder CPU* = CPU of the `frazil-encoder-N` threads during the job"
            + " (`/proc/self/task`, 10 ms ticks; part of process CPU): the Frazil writer's encoding,"
            + " apart from its row-to-Arrow copy on the task threads; *sliced rows* (trial list) ="
            + " rows Frazil's appenders took as slices of their Arrow batch instead of converting"
            + " them (the Arrow arm's direct path).\n");
    Files.writeString(bench.out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);

    if (!cells.isEmpty()) {
      String subtitle =
          String.format(
              Locale.ROOT,
              "Flink jobs, Dynamic Iceberg Sink, %,d rows, p=%d, %d ms checkpoints; %s, %d"
                  + " cores, %.10s%s",
              bench.rows,
              bench.parallelism,
              bench.checkpointMs,
              facts.now.substring(0, 10),
              facts.cores,
              facts.commit,
              bench.smoke ? ", SMOKE run, not a measurement" : "");
      Report.writeSvg(bench.out.resolve("ratios.svg"), cells, subtitle);
    }

    boolean copied =
        facts.writeRunFiles(
            bench.out,
            BenchCli.args(bench.cli),
            RunFacts.labels("native library", bench.nativeLibrary, "bridge jar", bridge));

    System.out.println();
    System.out.print(table(cells));
    System.out.print(checkpointTable(cells));
    System.out.printf(
        "%d trials, %d failed validation, %.0f s; results in %s%n",
        iterations.size(), invalid.size(), seconds, bench.out);
    return invalid.isEmpty();
  }

  /** The steady checkpoints' figures ({@link JobCheckpoints}) of {@code its}, pooled. */
  private List<Long> pooled(List<Iteration> its, Function<JobCheckpoints, List<Long>> series) {
    List<Long> out = new ArrayList<>();
    for (Iteration it : its) {
      JobCheckpoints ck = trials.get(it.seq).checkpoints;
      out.addAll(ck.steady(series.apply(ck)));
    }
    return out;
  }

  /**
   * Flink's checkpoint statistics per cell and arm, and the target "Frazil's checkpoint durations
   * are not longer than stock's" (met when Frazil's pooled p50 and p99 are each at most stock's).
   */
  private String checkpointTable(List<Report.Cell> cells) {
    StringBuilder md = new StringBuilder();
    md.append("## Checkpoints (Flink's statistics, REST API)\n\n");
    md.append(
        "Steady checkpoints (completed, triggered while the writers were still receiving rows:"
            + " before the source ended, its final checkpoint excluded) of the measured trials that"
            + " passed validation, pooled per cell and arm; nearest-rank percentiles, ms. Ratios"
            + " are stock / arm (> 1: the Frazil arm's are shorter).\n\n");
    md.append(
        "| cell | arm | jobs | completed (steady) / failed | rows per close"
            + " | checkpoint p50 / p99 / max | close p50 / p99 / max | writer sync p50 / p99 / max"
            + " | writer start delay p50 / max | source remainder p50 / max"
            + " | pre-commit remainder p50 / max | checkpoint p50 stock/arm"
            + " | checkpoint max stock/arm | close p50 stock/arm | close max stock/arm |\n");
    md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    List<String> verdicts = new ArrayList<>();
    boolean met = true;
    boolean evaluated = false;
    Report.Cell previous = null;
    for (Report.Cell cell : cells) {
      if (!cell.sameCellAs(previous)) {
        checkpointRow(md, cell, cell.stock, null);
      }
      previous = cell;
      checkpointRow(md, cell, cell.frazil, cell);
      List<Long> stock = pooled(cell.stock, ck -> ck.durationMs);
      List<Long> frazil = pooled(cell.frazil, ck -> ck.durationMs);
      if (stock.isEmpty() || frazil.isEmpty()) {
        verdicts.add(cell.schema + ": no steady checkpoints in one arm, not evaluated");
        continue;
      }
      evaluated = true;
      long s50 = JobCheckpoints.percentile(stock, 0.5);
      long f50 = JobCheckpoints.percentile(frazil, 0.5);
      long s99 = JobCheckpoints.percentile(stock, 0.99);
      long f99 = JobCheckpoints.percentile(frazil, 0.99);
      boolean cellMet = f50 <= s50 && f99 <= s99;
      met &= cellMet;
      verdicts.add(
          String.format(
              Locale.ROOT,
              "%s %s %s (%s vs stock: p50 %d vs %d ms, p99 %d vs %d ms, max %d vs %d ms; %d vs %d"
                  + " steady checkpoints)",
              cell.schema,
              cell.arm,
              cellMet ? "met" : "not met",
              cell.arm,
              f50,
              s50,
              f99,
              s99,
              JobCheckpoints.max(frazil),
              JobCheckpoints.max(stock),
              frazil.size(),
              stock.size()));
    }
    md.append('\n');
    md.append("**Target \"Frazil's checkpoint durations are not longer than stock's\"");
    md.append(" (each Frazil arm's p50 and p99 ≤ stock's, per cell): ");
    md.append(!evaluated ? "NOT EVALUATED" : met ? "MET" : "NOT MET").append("**");
    if (bench.smoke) {
      md.append(" (smoke run: not a measurement)");
    }
    md.append(" — ").append(String.join("; ", verdicts)).append(".\n\n");
    md.append(
        "Columns: *checkpoint* = Flink's `end_to_end_duration` of a completed checkpoint (trigger"
            + " to the last acknowledgement at the JobManager); *close* = per checkpoint, the"
            + " slowest writer subtask's `end_to_end_duration − start_delay − alignment − sync −"
            + " async`: the time from the barrier's alignment to the acknowledgement that Flink"
            + " does not itemise, i.e. the operators' `prepareSnapshotPreBarrier` (where the"
            + " Dynamic Iceberg Sink's writer runs `TaskWriter.complete()`, closing every open"
            + " data and delete file, and emits the write results) plus forwarding the barrier"
            + " and the acknowledgement's trip to the JobManager; *writer sync* = Flink's"
            + " `sync` of the writer subtasks (slowest per checkpoint): the operators'"
            + " `snapshotState`, which Flink times only after the pre-barrier step, so it does"
            + " not include closing files; *writer start delay* = trigger to the barrier reaching"
            + " the writer (slowest subtask), which grows with the records queued ahead of the"
            + " barrier; *source remainder* = the same remainder as *close* for the source,"
            + " which has no pre-barrier work (the acknowledgement overhead); *pre-commit"
            + " remainder* = the same for the sink's aggregator, which writes the checkpoint's"
            + " manifests; *rows per close* = rows / (steady checkpoints + 1) per job, median"
            + " (each steady checkpoint and the end of input close a round of files). Every"
            + " completed checkpoint's figures, steady or not, are in `iterations.jsonl`"
            + " (`ckpt_*`).\n\n");
    return md.toString();
  }

  private void checkpointRow(
      StringBuilder md, Report.Cell cell, List<Iteration> its, Report.Cell ratios) {
    List<Long> duration = pooled(its, ck -> ck.durationMs);
    List<Long> close = pooled(its, ck -> ck.closeMs);
    long completed = 0;
    long failed = 0;
    double[] rowsPerClose = new double[its.size()];
    for (int i = 0; i < its.size(); i++) {
      JobCheckpoints ck = trials.get(its.get(i).seq).checkpoints;
      completed += ck.completed;
      failed += ck.failed;
      rowsPerClose[i] = cell.rows / (ck.steady(ck.ids).size() + 1.0);
    }
    md.append("| ").append(cell.schema);
    md.append(" | ").append(its.get(0).arm);
    md.append(" | ").append(its.size());
    md.append(" | ").append(completed).append(" (").append(duration.size()).append(") / ");
    md.append(failed);
    md.append(" | ").append(Report.fmt("%,.0f", new Report.Stat(rowsPerClose).median));
    md.append(" | ").append(triple(duration));
    md.append(" | ").append(triple(close));
    md.append(" | ").append(triple(pooled(its, ck -> ck.writerSyncMs)));
    md.append(" | ").append(pair(pooled(its, ck -> ck.writerStartDelayMs)));
    md.append(" | ").append(pair(pooled(its, ck -> ck.sourceRemainderMs)));
    md.append(" | ").append(pair(pooled(its, ck -> ck.preCommitRemainderMs)));
    if (ratios == null) {
      md.append(" | | | | |\n");
      return;
    }
    List<Long> stockDuration = pooled(ratios.stock, ck -> ck.durationMs);
    List<Long> stockClose = pooled(ratios.stock, ck -> ck.closeMs);
    md.append(" | **").append(ratio(stockDuration, duration, 0.5)).append("**");
    md.append(" | ").append(ratio(stockDuration, duration, 1.0));
    md.append(" | **").append(ratio(stockClose, close, 0.5)).append("**");
    md.append(" | ").append(ratio(stockClose, close, 1.0));
    md.append(" |\n");
  }

  private static String triple(List<Long> values) {
    if (values.isEmpty()) {
      return "n/a";
    }
    return JobCheckpoints.percentile(values, 0.5)
        + " / "
        + JobCheckpoints.percentile(values, 0.99)
        + " / "
        + JobCheckpoints.max(values);
  }

  private static String pair(List<Long> values) {
    if (values.isEmpty()) {
      return "n/a";
    }
    return JobCheckpoints.percentile(values, 0.5) + " / " + JobCheckpoints.max(values);
  }

  /** stock / Frazil of one percentile; n/a when either is missing or Frazil's is 0. */
  private static String ratio(List<Long> stock, List<Long> frazil, double p) {
    long s = JobCheckpoints.percentile(stock, p);
    long f = JobCheckpoints.percentile(frazil, p);
    return s < 0 || f <= 0 ? "n/a" : Report.times((double) s / f);
  }

  private String table(List<Report.Cell> cells) {
    StringBuilder md = new StringBuilder();
    md.append("## Cohort `")
        .append(JobBench.COHORT)
        .append("`: whole Flink job, stock vs the Frazil arms\n\n");
    md.append(
        "| cell | arm | n | wall s, median [min–max] | process CPU s, median [min–max]"
            + " | CPU s / M rows | alloc GB | data MB | data files | deletes eq/pos/DV"
            + " | commits | M rows/s | native encoder CPU s | wall stock/arm"
            + " | CPU stock/arm | alloc arm/stock |\n");
    md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    Report.Cell previous = null;
    for (Report.Cell cell : cells) {
      if (!cell.sameCellAs(previous)) {
        row(md, cell, cell.stock, null);
      }
      previous = cell;
      row(md, cell, cell.frazil, cell);
    }
    md.append('\n');
    return md.toString();
  }

  private void row(StringBuilder md, Report.Cell cell, List<Iteration> its, Report.Cell ratios) {
    Report.Stat wall = Report.stat(its, i -> i.wallNs / 1e9);
    Report.Stat cpu = Report.stat(its, i -> i.processCpuNs / 1e9);
    Report.Stat alloc = Report.stat(its, i -> i.allocatedBytes);
    Report.Stat out = Report.stat(its, i -> i.outputBytes);
    Report.Stat files = Report.stat(its, i -> i.fileCount);
    Report.Stat eq = Report.stat(its, i -> trials.get(i.seq).check.equalityDeleteFiles);
    Report.Stat pos = Report.stat(its, i -> trials.get(i.seq).check.positionDeleteFiles);
    Report.Stat dv = Report.stat(its, i -> trials.get(i.seq).check.deletionVectors);
    Report.Stat commits = Report.stat(its, i -> trials.get(i.seq).check.snapshots);
    md.append("| ").append(cell.schema);
    md.append(" | ").append(its.get(0).arm);
    md.append(" | ").append(its.size());
    md.append(" | ").append(Report.range(wall, "%.2f"));
    md.append(" | ").append(Report.range(cpu, "%.2f"));
    md.append(" | ").append(Report.fmt("%.2f", cpu.median / (cell.rows / 1e6)));
    md.append(" | ").append(Report.fmt("%.2f", alloc.median / 1e9));
    md.append(" | ").append(Report.fmt("%.1f", out.median / (1 << 20)));
    md.append(" | ").append(Report.fmt("%.0f", files.median));
    md.append(" | ")
        .append(Report.fmt("%.0f", eq.median))
        .append('/')
        .append(Report.fmt("%.0f", pos.median))
        .append('/')
        .append(Report.fmt("%.0f", dv.median));
    md.append(" | ").append(Report.fmt("%.0f", commits.median));
    md.append(" | ").append(Report.fmt("%.2f", cell.rows / wall.median / 1e6));
    Report.Stat encoder = Report.stat(its, i -> trials.get(i.seq).encoderCpuNs / 1e9);
    md.append(" | ").append(encoder.min < 0 ? "n/a" : Report.range(encoder, "%.2f"));
    if (ratios == null) {
      md.append(" | | | |\n");
    } else {
      Report.Ratio w = ratios.wall();
      Report.Ratio c = ratios.cpu();
      double allocStock = Report.stat(ratios.stock, i -> i.allocatedBytes).median;
      md.append(" | **").append(Report.times(w.median)).append("** ").append(Report.ratioRange(w));
      md.append(" | **").append(Report.times(c.median)).append("** ").append(Report.ratioRange(c));
      md.append(" | ").append(Report.fmt("%.1f%%", 100.0 * alloc.median / allocStock));
      md.append(" |\n");
    }
  }

  /** Every trial in run order, warm-ups and failures included. */
  private String trialList() {
    StringBuilder md = new StringBuilder();
    md.append("### Every trial (run order)\n\n");
    md.append(
        "| seq | cell | arm | phase | wall s | CPU s | alloc GB | GCs | data MB | files | writers"
            + " | eq/pos/DV | commits | read back | sliced rows | checkpoints steady/failed"
            + " | checkpoint ms p50/max | close ms p50/max | load 1m before→after | validation |\n");
    md.append(
        "|--:|---|---|---|--:|--:|--:|--:|--:|--:|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
    for (Iteration it : iterations) {
      JobTrial trial = trials.get(it.seq);
      JobCheck c = trial.check;
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %s #%d | %.2f | %.2f | %.2f | %d | %.1f | %d | %s | %d/%d/%d | %d"
                  + " | %,d | %,d | %d/%d | %s | %s | %.1f→%.1f | %s |\n",
              it.seq,
              trial.cell,
              it.arm,
              it.phase,
              it.rep,
              it.wallNs / 1e9,
              it.processCpuNs / 1e9,
              it.allocatedBytes / 1e9,
              it.gcCount,
              it.outputBytes / 1048576.0,
              it.fileCount,
              String.join(",", c.writerSubtasks),
              c.equalityDeleteFiles,
              c.positionDeleteFiles,
              c.deletionVectors,
              c.snapshots,
              c.readBack.count,
              trial.slicedRows,
              trial.checkpoints.steady(trial.checkpoints.ids).size(),
              trial.checkpoints.failed,
              pair(trial.checkpoints.steady(trial.checkpoints.durationMs)).replace(" ", ""),
              pair(trial.checkpoints.steady(trial.checkpoints.closeMs)).replace(" ", ""),
              trial.loadBefore,
              trial.loadAfter,
              trial.valid()
                  ? "ok"
                  : "**FAILED**: " + String.join("; ", trial.failures).replace("|", "\\|")));
    }
    md.append('\n');
    return md.toString();
  }
}
