package io.frazil.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** ReadBench's results.md (one table per cohort, the issue's targets), ratios.svg and RUN-INFO. */
final class ReadReport {
  private final ReadBench bench;
  private final List<ReadTrial> trials;

  ReadReport(ReadBench bench, List<ReadTrial> trials) {
    this.bench = bench;
    this.trials = trials;
  }

  boolean guardsPassed() {
    return trials.stream().allMatch(t -> t.failures.isEmpty());
  }

  /** One cohort × schema × rows: its valid measured trials per arm. */
  static final class Group {
    final String cohort;
    final String schema;
    final int rows;
    final List<ReadTrial> stock = new ArrayList<>();
    final List<ReadTrial> frazil = new ArrayList<>();

    Group(String cohort, String schema, int rows) {
      this.cohort = cohort;
      this.schema = schema;
      this.rows = rows;
    }

    boolean complete() {
      return !stock.isEmpty() && !frazil.isEmpty();
    }
  }

  private Map<String, Group> groups() {
    Map<String, Group> groups = new LinkedHashMap<>();
    for (ReadTrial t : trials) {
      Iteration it = t.it;
      if (!it.measured() || !t.failures.isEmpty()) {
        continue;
      }
      Group g =
          groups.computeIfAbsent(
              it.cohort + "|" + it.schema + "|" + it.rows,
              k -> new Group(it.cohort, it.schema, it.rows));
      ("stock".equals(it.arm) ? g.stock : g.frazil).add(t);
    }
    return groups;
  }

  private static List<Iteration> its(List<ReadTrial> trials) {
    List<Iteration> list = new ArrayList<>();
    trials.forEach(t -> list.add(t.it));
    return list;
  }

  private static Report.Stat stat(
      List<ReadTrial> trials, java.util.function.ToDoubleFunction<ReadTrial> f) {
    double[] values = new double[trials.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = f.applyAsDouble(trials.get(i));
    }
    return new Report.Stat(values);
  }

  static String title(String cohort) {
    switch (cohort) {
      case "read-scan":
        return "every column of one data file (the file written with Iceberg's default 128 MiB row"
            + " groups)";
      case "read-project":
        return "2 of N columns (bid: auction, url; wide: user_id, event_type of 40; nested: id,"
            + " tags of 7)";
      case "read-filtered":
        return "every column, filter `<col> < value at row N/10` (bid: date_time, wide and"
            + " nested: id) over a file written with ~20 row groups: row-group pruning by"
            + " statistics, the surviving row groups read whole";
      case "rss-scan":
      case "rss-project":
        return "peak RSS (VmHWM) of a child JVM that reads the file "
            + "several times, one JVM per arm and trial (times: its last read)";
      case "job-source-discard":
        return "MiniCluster job: IcebergSource (bounded) → flat map touching every field →"
            + " discarding sink (alloc: GC account, all threads; peak RSS: sampled, whole"
            + " process)";
      case "job-copy":
        return "MiniCluster job: IcebergSource (bounded) → IcebergSink (v2) into a fresh table,"
            + " checkpoints every --checkpoint-ms; stock = Iceberg's reader and writer, Frazil = native read and"
            + " native write (alloc: GC account; peak RSS: sampled, whole process)";
      default:
        return cohort;
    }
  }

  String tables(Map<String, Group> groups) {
    StringBuilder md = new StringBuilder();
    List<String> cohorts = new ArrayList<>();
    for (Group g : groups.values()) {
      if (!cohorts.contains(g.cohort)) {
        cohorts.add(g.cohort);
      }
    }
    for (String cohort : cohorts) {
      md.append("## Cohort `").append(cohort).append("`: ").append(title(cohort)).append("\n\n");
      md.append(
          "| schema | rows | arm | wall ms, median [min–max] | process CPU ms, median [min–max]"
              + " | thread CPU ms (+ native pool) | alloc MB/iter | alloc B/row | peak RSS MB, median [min–max]"
              + " | rows returned | input MB (row groups) | M rows/s | wall stock/Frazil"
              + " | CPU stock/Frazil | alloc Frazil/stock | peak RSS Frazil/stock |\n");
      md.append("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
      for (Group g : groups.values()) {
        if (!g.cohort.equals(cohort) || !g.complete()) {
          continue;
        }
        row(md, g, g.stock, false);
        row(md, g, g.frazil, true);
      }
      md.append('\n');
    }
    return md.toString();
  }

  private static void row(StringBuilder md, Group g, List<ReadTrial> ts, boolean ratios) {
    Report.Stat wall = stat(ts, t -> t.it.wallNs / 1e6);
    Report.Stat cpu = stat(ts, t -> t.it.processCpuNs / 1e6);
    Report.Stat thread = stat(ts, t -> t.it.threadCpuNs / 1e6);
    Report.Stat alloc = stat(ts, t -> t.it.allocatedBytes);
    Report.Stat rss = stat(ts, t -> t.peakRssKb() / 1024.0);
    Report.Stat returned = stat(ts, t -> t.rowsReturned);
    Report.Stat input = stat(ts, t -> t.it.outputBytes);
    Report.Stat groups = stat(ts, t -> t.it.rowGroups);
    md.append("| ").append(g.schema);
    md.append(" | ").append(String.format(Locale.ROOT, "%,d", g.rows));
    md.append(" | ").append(ts.get(0).it.arm);
    md.append(" | ").append(Report.range(wall, "%.1f"));
    md.append(" | ").append(Report.range(cpu, "%.1f"));
    Report.Stat pool = stat(ts, t -> t.poolCpuNs / 1e6);
    md.append(" | ").append(thread.median < 0 ? "–" : Report.fmt("%.1f", thread.median));
    if (thread.median >= 0 && pool.median > 0) {
      md.append(" + ").append(Report.fmt("%.0f", pool.median));
    }
    md.append(" | ").append(Report.fmt("%.1f", alloc.median / (1 << 20)));
    md.append(" | ").append(Report.fmt("%.1f", alloc.median / g.rows));
    md.append(" | ").append(Report.range(rss, "%.0f"));
    md.append(" | ").append(String.format(Locale.ROOT, "%,.0f", returned.median));
    md.append(" | ").append(Report.fmt("%.2f", input.median / (1 << 20)));
    md.append(" (").append(Report.fmt("%.0f", groups.median)).append(')');
    md.append(" | ").append(Report.fmt("%.2f", g.rows / (wall.median / 1e3) / 1e6));
    if (!ratios) {
      md.append(" | | | | |\n");
      return;
    }
    Report.Ratio w = ratio(g, t -> t.it.wallNs);
    Report.Ratio c = ratio(g, t -> t.it.processCpuNs);
    double allocStock = stat(g.stock, t -> t.it.allocatedBytes).median;
    double rssStock = stat(g.stock, t -> t.peakRssKb()).median;
    md.append(" | **").append(Report.times(w.median)).append("** ").append(Report.ratioRange(w));
    md.append(" | **").append(Report.times(c.median)).append("** ").append(Report.ratioRange(c));
    md.append(" | ").append(Report.fmt("%.1f%%", 100.0 * alloc.median / allocStock));
    md.append(" | ").append(Report.fmt("%.0f%%", 100.0 * rss.median * 1024 / rssStock));
    md.append(" |\n");
  }

  static Report.Ratio ratio(Group g, java.util.function.ToDoubleFunction<ReadTrial> f) {
    return new Report.Ratio(stat(g.stock, f), stat(g.frazil, f));
  }

  /** The issue's targets, evaluated on this run. */
  String targets(Map<String, Group> groups) {
    StringBuilder md = new StringBuilder("## Targets (issue 32)\n\n");
    md.append("| target | measured | verdict |\n|---|---|---|\n");
    int max = bench.maxRows();
    target(
        md, groups, "file read ≥ 4× stock wall, bid " + fmtRows(max), "read-scan|bid|" + max, 4.0);
    for (String schema : List.of("bid", "wide", "nested")) {
      target(
          md,
          groups,
          "projection ≥ 6× stock wall, " + schema + " " + fmtRows(max),
          "read-project|" + schema + "|" + max,
          6.0);
    }
    target(
        md,
        groups,
        "Iceberg → Iceberg job ≥ 2.5× stock wall",
        "job-copy|bid|" + bench.jobRows,
        2.5);
    for (Group g : groups.values()) {
      if (!g.cohort.startsWith("rss-") || !g.complete()) {
        continue;
      }
      double s = stat(g.stock, t -> t.peakRssKb()).median / 1024;
      double f = stat(g.frazil, t -> t.peakRssKb()).median / 1024;
      md.append("| peak RSS ≤ stock, ").append(g.cohort).append(' ').append(g.schema);
      md.append(" | ").append(Report.fmt("%.0f", f)).append(" MB vs stock ");
      md.append(Report.fmt("%.0f", s)).append(" MB (").append(Report.fmt("%.0f%%", 100 * f / s));
      md.append(") | ").append(f <= s ? "MET" : "**NOT MET**").append(" |\n");
    }
    md.append('\n');
    return md.toString();
  }

  private static String fmtRows(int rows) {
    return String.format(Locale.ROOT, "%,d rows", rows);
  }

  private static void target(
      StringBuilder md, Map<String, Group> groups, String what, String key, double goal) {
    Group g = groups.get(key);
    if (g == null || !g.complete()) {
      md.append("| ").append(what).append(" | not run | – |\n");
      return;
    }
    Report.Ratio w = ratio(g, t -> t.it.wallNs);
    Report.Ratio c = ratio(g, t -> t.it.processCpuNs);
    md.append("| ").append(what).append(" | wall **").append(Report.times(w.median));
    md.append("** ").append(Report.ratioRange(w)).append(", CPU ").append(Report.times(c.median));
    md.append(' ').append(Report.ratioRange(c));
    md.append(" | ").append(w.median >= goal ? "MET" : "**NOT MET**").append(" |\n");
  }

  void write(double seconds) throws IOException {
    Map<String, Group> groups = groups();
    RunFacts facts = RunFacts.collect();
    StringBuilder md = new StringBuilder();
    md.append("# Stock Iceberg Flink Parquet reader vs Frazil — Read cohort\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| native library | ").append(bench.nativeLibrary).append(" |\n");
    md.append("| mode | ").append(bench.smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(BenchCli.args(bench.cli))).append("` |\n");
    md.append("| plan | ").append(bench.toString().replace("|", "/"));
    md.append(String.format(Locale.ROOT, ", %.0f s in total |\n", seconds));
    md.append("| files | written once by stock Iceberg (`Parquet.write` + `FlinkParquetWriters`),");
    md.append(" `write.parquet.compression-codec=zstd`, level 3; default row groups except the");
    md.append(" filtered cell's file (row-group size = default file size / 20) |\n\n");
    for (String note : bench.notes) {
      md.append("**").append(note).append("**\n\n");
    }
    long invalid = trials.stream().filter(t -> !t.failures.isEmpty()).count();
    if (invalid > 0) {
      md.append("**").append(invalid).append(" trial(s) failed validation** (left out of the");
      md.append(" medians; `valid:false` in `iterations.jsonl`):\n\n");
      for (ReadTrial t : trials) {
        if (!t.failures.isEmpty()) {
          md.append("- #").append(t.it.seq).append(' ').append(t.it.cohort).append(' ');
          md.append(t.it.arm).append(' ').append(t.it.phase).append(": ");
          md.append(String.join("; ", t.failures)).append('\n');
        }
      }
      md.append('\n');
    }
    md.append(
        "File cells: warm-ups then measured repetitions alternating stock, Frazil in one JVM;"
            + " `System.gc()` before every read. The timed region builds the reader with"
            + " `FormatModelRegistry.readBuilder(PARQUET, RowData.class, file)` and the settings"
            + " `RowDataFileScanTaskReader` passes (project, split(0, length), caseSensitive,"
            + " filter, reuseContainers), iterates every row, reads every projected field into a"
            + " checksum and closes the reader; stock = Frazil uninstalled (Iceberg's own model),"
            + " Frazil = installed. Guards on every iteration: same row count and checksum as"
            + " stock, the Frazil read was native (`ReadCounters.nativeFiles` +1, no fallback),"
            + " the stock read was not, no Arrow memory or native reader left. Medians of the"
            + " measured repetitions with [min–max]; ratios stock / Frazil of the medians,"
            + " bracketed by stock min / Frazil max … stock max / Frazil min; alloc and RSS"
            + " Frazil / stock. *peak RSS* of the file cells is sampled every 10 ms in the one"
            + " JVM that runs both arms (heap pages stay resident once touched, so it mostly"
            + " shows the JVM's history); the `rss-*` cohorts measure it per arm in child JVMs."
            + " Every iteration, warm-ups included, is in `iterations.jsonl`.\n\n");
    md.append(targets(groups));
    md.append(tables(groups));
    md.append("Columns: *wall* = `System.nanoTime()` around the timed region; *process CPU* =");
    md.append(" `getProcessCpuTime()` (all threads: the reader, JIT, GC, Flink; 10 ms");
    md.append(
        " resolution); *thread CPU* = the reading thread (file cells; – for jobs), + the CPU of");
    md.append(
        " Frazil's native pool threads in the timed region (decode-ahead; 10 ms ticks); *alloc*");
    md.append(" = Java heap bytes allocated by the reading thread (file cells) or the GC account");
    md.append(" of all threads (jobs; see the whole-job cohort); native and Arrow memory are not");
    md.append(" in it; *input MB* = bytes of the files read (copy: committed); *rows returned* =");
    md.append(" rows the read produced (copy: committed rows).\n");
    java.nio.file.Path out = bench.out;
    Files.writeString(out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);

    List<Iteration> forSvg = new ArrayList<>();
    for (ReadTrial t : trials) {
      if (t.failures.isEmpty() && !t.it.cohort.startsWith("rss-")) {
        forSvg.add(t.it);
      }
    }
    List<Report.Cell> cells = Report.cells(forSvg);
    boolean finite =
        cells.stream()
            .allMatch(
                c ->
                    Double.isFinite(c.wall().high)
                        && Double.isFinite(c.cpu().high)
                        && Double.isFinite(c.cpu().median));
    if (!cells.isEmpty() && finite) {
      String subtitle =
          String.format(
              Locale.ROOT,
              "%s, %d cores, Java %s, commit %.10s%s; zstd-3 files written by stock Iceberg",
              facts.now.substring(0, 10),
              facts.cores,
              System.getProperty("java.version"),
              facts.commit,
              bench.smoke ? ", SMOKE run, not a measurement" : "");
      Report.writeSvg(out.resolve("ratios.svg"), cells, subtitle);
    } else if (!cells.isEmpty()) {
      System.out.println(
          "ratios.svg skipped: a ratio is not finite (process CPU 0 at smoke sizes)");
    }
    facts.writeRunFiles(
        out, BenchCli.args(bench.cli), RunFacts.labels("native library", bench.nativeLibrary));
    System.out.println();
    System.out.print(targets(groups));
    System.out.print(tables(groups));
    System.out.printf(
        Locale.ROOT,
        "%d iterations, %s, %.0f s; results in %s%n",
        trials.size(),
        guardsPassed() ? "all guards passed" : invalid + " INVALID",
        seconds,
        out);
  }
}
