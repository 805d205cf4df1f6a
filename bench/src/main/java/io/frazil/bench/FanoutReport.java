package io.frazil.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** results.md, fanout.svg and RUN-INFO.md of {@link FanoutBench}. */
final class FanoutReport {
  private static final double MB = 1048576.0;

  private final FanoutBench bench;
  private final List<FanoutBench.Trial> trials;
  private final List<String> notes;

  FanoutReport(FanoutBench bench, List<FanoutBench.Trial> trials, List<String> notes) {
    this.bench = bench;
    this.trials = trials;
    this.notes = notes;
  }

  /** The measured, completed grid trials of one arm and N. */
  List<FanoutBench.Trial> cell(String arm, int n) {
    List<FanoutBench.Trial> cell = new ArrayList<>();
    for (FanoutBench.Trial t : trials) {
      if ("grid".equals(t.stage)
          && "measured".equals(t.phase)
          && t.completed()
          && t.arm.equals(arm)
          && t.partitions == n) {
        cell.add(t);
      }
    }
    return cell;
  }

  static Report.Stat stat(List<FanoutBench.Trial> cell, ToDoubleFunction<FanoutBench.Trial> f) {
    double[] values = new double[cell.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = f.applyAsDouble(cell.get(i));
    }
    return new Report.Stat(values);
  }

  static ToDoubleFunction<FanoutBench.Trial> q(String key, double scale) {
    return t -> t.num(key) / scale;
  }

  void write(double seconds, String loadBefore, String loadAfter, List<String> childCommand)
      throws IOException {
    RunFacts facts = RunFacts.collect();
    String nativeLibrary = "(no Frazil trial completed)";
    for (FanoutBench.Trial t : trials) {
      String lib = t.str("native_library");
      if (t.completed() && lib != null && !"null".equals(lib)) {
        nativeLibrary = lib;
        break;
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("# Fan-out cohort: one task writer, N open partition files, stock vs Frazil\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| trial JVMs | `").append(String.join(" ", childCommand)).append("` |\n");
    md.append("| native library (first Frazil trial) | ").append(nativeLibrary).append(" |\n");
    md.append("| native counter hook | ").append(nativeCounterText()).append(" |\n");
    md.append("| mode | ").append(bench.smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(bench.args())).append("` |\n");
    md.append("| plan | ")
        .append(bench)
        .append(
            Double.isNaN(seconds) ? " |\n" : String.format(Locale.ROOT, "; %.0f s |\n", seconds));
    md.append("| load average (/proc/loadavg) | before `").append(loadBefore);
    md.append("`, after `").append(loadAfter).append("` |\n");
    md.append("| writer settings | `write.parquet.compression-codec=zstd`,");
    md.append(
        " `write.parquet.compression-level=3` on both arms; Iceberg defaults otherwise (512 MB");
    md.append(" target file size: no rolling) |\n\n");
    for (String note : notes) {
      md.append("**").append(note).append("**\n\n");
    }
    md.append(
        "Each trial is its own JVM (`FanoutTrial`): build a pool of distinct bid rows (column"
            + " `part` = row index mod N, cycled so that row i lands in partition i mod N), one"
            + " JIT warm-up write, then the measured write: `RowDataTaskWriterFactory.create()`,"
            + " `write` every row, `complete()` (closes all N files at once, as a checkpoint"
            + " does). Data files go through plain buffered local files (`LocalFileIO`: Hadoop's"
            + " local file system forks `chmod` for every new file, which dominated both arms at"
            + " N = 1,024); table metadata through a Hadoop catalog. Trials alternate stock,"
            + " Frazil, stock, … per N. Medians of the measured"
            + " trials with [min–max]; ratios are stock / Frazil of the medians (> 1: Frazil"
            + " faster) with the extreme-range bracket, memory is Frazil / stock. Every trial,"
            + " warm-ups and OOM search included, is in `iterations.jsonl`.\n\n");

    md.append("## Time (heap ").append(bench.heap).append(")\n\n");
    md.append(
        "| N | arm | trials | wall ms | write ms | close-all ms | process CPU ms | GC ms"
            + " (count) | alloc MB | alloc B/row | output MB | wall stock/Frazil"
            + " | CPU stock/Frazil | close-all stock/Frazil | alloc Frazil/stock |\n");
    md.append("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int n : bench.partitions) {
      List<FanoutBench.Trial> stock = cell("stock", n);
      List<FanoutBench.Trial> frazil = cell("frazil", n);
      timeRow(md, n, "stock", stock, null);
      timeRow(md, n, "frazil", frazil, stock);
    }
    md.append("\n## Memory (heap ").append(bench.heap).append(")\n\n");
    md.append(
        "| N | arm | peak RSS MB | RSS before write MB | peak heap MB (pools) | heap used peak MB"
            + " (sampled) | Arrow MB, all files open [peak] | native counter MB | native est. MB:"
            + " before → all open | peak RSS Frazil/stock | peak heap Frazil/stock |\n");
    md.append("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int n : bench.partitions) {
      List<FanoutBench.Trial> stock = cell("stock", n);
      List<FanoutBench.Trial> frazil = cell("frazil", n);
      memoryRow(md, n, "stock", stock, null);
      memoryRow(md, n, "frazil", frazil, stock);
    }
    md.append('\n');
    md.append(
        "Columns: *wall* = write + close-all; *write* = `create()` + `write` of every row;"
            + " *close-all* = `complete()` (every open file flushed, footer written, closed);"
            + " *process CPU* = `getProcessCpuTime` over both (all threads: writer, Frazil's"
            + " encoder, GC, JIT, the 20 ms sampler; 10 ms resolution); *GC* = collections during"
            + " both; *alloc* = Java heap allocated by the writing thread (native and Arrow memory"
            + " not included); *peak RSS* = the trial JVM's `VmHWM` (its whole life: start-up,"
            + " row pool, JIT warm-up write, measured write); *RSS before write* = `VmRSS` just"
            + " before the measured write; *peak heap (pools)* = sum over heap pools of each"
            + " pool's peak used bytes since just before the measured write (an upper bound);"
            + " *heap used peak* = the sampler's maximum of heap used; *Arrow* ="
            + " `ArrowMemory.allocatedBytes()` once every row is written and no file closed yet"
            + " [sampler's peak]; *native counter* = Frazil's native-allocator byte counter at the"
            + " same moment (`NativeParquetWriter.allocatedBytes()`; – in runs from before it"
            + " existed); *native est.* = RSS − resident bytes of the Java heap's mapping (smaps) −"
            + " committed non-heap, before the write and with every file open: the cross-check of"
            + " what is held outside the Java heap (thread stacks, malloc, zstd-jni contexts,"
            + " Arrow buffers, Frazil's encoder).\n\n");

    oomSection(md);
    targets(md);
    trialList(md);
    Files.writeString(bench.out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);

    FanoutSvg.write(bench.out.resolve("fanout.svg"), this, facts, bench);
    if (bench.reportOnly) {
      return; // RUN-INFO.md and environment.json stay those of the run
    }
    facts.writeRunFiles(bench.out, bench.args(), RunFacts.labels("native library", nativeLibrary));
  }

  private String nativeCounterText() {
    for (FanoutBench.Trial t : trials) {
      if (t.completed() && t.num("native_counter_all_open_bytes") >= 0) {
        return "present (values in the memory table)";
      }
    }
    return "not present in this build: `native counter` shows –; cross-check is RSS-based";
  }

  private void timeRow(
      StringBuilder md,
      int n,
      String arm,
      List<FanoutBench.Trial> cell,
      List<FanoutBench.Trial> stock) {
    md.append("| ").append(String.format(Locale.ROOT, "%,d", n)).append(" | ").append(arm);
    md.append(" | ").append(cell.size());
    if (cell.isEmpty()) {
      md.append(" |").append(" – |".repeat(12)).append('\n');
      return;
    }
    md.append(" | ").append(Report.range(stat(cell, q("wall_ns", 1e6)), "%.0f"));
    md.append(" | ").append(Report.range(stat(cell, q("write_wall_ns", 1e6)), "%.0f"));
    md.append(" | ").append(Report.range(stat(cell, q("close_wall_ns", 1e6)), "%.0f"));
    md.append(" | ").append(Report.range(stat(cell, q("process_cpu_ns", 1e6)), "%.0f"));
    md.append(" | ").append(Report.fmt("%.0f", stat(cell, q("gc_ms", 1)).median));
    md.append(" (").append(Report.fmt("%.0f", stat(cell, q("gc_count", 1)).median)).append(')');
    Report.Stat alloc = stat(cell, q("allocated_bytes", 1));
    md.append(" | ").append(Report.fmt("%.1f", alloc.median / MB));
    md.append(" | ").append(Report.fmt("%.1f", alloc.median / bench.rows));
    md.append(" | ").append(Report.fmt("%.2f", stat(cell, q("output_bytes", MB)).median));
    if (stock == null || stock.isEmpty()) {
      md.append(" | | | | |\n");
      return;
    }
    md.append(" | ").append(ratio(stock, cell, "wall_ns"));
    md.append(" | ").append(ratio(stock, cell, "process_cpu_ns"));
    md.append(" | ").append(ratio(stock, cell, "close_wall_ns"));
    md.append(" | ")
        .append(
            Report.fmt("%.1f%%", 100 * alloc.median / stat(stock, q("allocated_bytes", 1)).median));
    md.append(" |\n");
  }

  private void memoryRow(
      StringBuilder md,
      int n,
      String arm,
      List<FanoutBench.Trial> cell,
      List<FanoutBench.Trial> stock) {
    md.append("| ").append(String.format(Locale.ROOT, "%,d", n)).append(" | ").append(arm);
    if (cell.isEmpty()) {
      md.append(" |").append(" – |".repeat(9)).append('\n');
      return;
    }
    Report.Stat rss = stat(cell, q("peak_rss_bytes", MB));
    Report.Stat heap = stat(cell, q("peak_heap_bytes", MB));
    md.append(" | ").append(Report.range(rss, "%.0f"));
    md.append(" | ").append(Report.fmt("%.0f", stat(cell, q("rss_before_bytes", MB)).median));
    md.append(" | ").append(Report.range(heap, "%.0f"));
    md.append(" | ")
        .append(Report.fmt("%.0f", stat(cell, q("sampled_peak_heap_used_bytes", MB)).median));
    md.append(" | ").append(Report.fmt("%.1f", stat(cell, q("arrow_bytes_all_open", MB)).median));
    md.append(" [")
        .append(Report.fmt("%.1f", stat(cell, q("peak_arrow_bytes", MB)).median))
        .append(']');
    double counter = stat(cell, q("native_counter_all_open_bytes", MB)).median;
    md.append(" | ").append(counter < 0 ? "–" : Report.fmt("%.1f", counter));
    md.append(" | ")
        .append(Report.fmt("%.0f", stat(cell, q("native_estimate_before_bytes", MB)).median));
    md.append(" → ")
        .append(Report.fmt("%.0f", stat(cell, q("native_estimate_all_open_bytes", MB)).median));
    if (stock == null || stock.isEmpty()) {
      md.append(" | | |\n");
      return;
    }
    Report.Stat stockRss = stat(stock, q("peak_rss_bytes", MB));
    Report.Stat stockHeap = stat(stock, q("peak_heap_bytes", MB));
    md.append(" | ").append(Report.fmt("%.0f%%", 100 * rss.median / stockRss.median));
    md.append(" [").append(Report.fmt("%.0f", 100 * rss.min / stockRss.max)).append('–');
    md.append(Report.fmt("%.0f%%", 100 * rss.max / stockRss.min)).append(']');
    md.append(" | ").append(Report.fmt("%.0f%%", 100 * heap.median / stockHeap.median));
    md.append(" |\n");
  }

  private void oomSection(StringBuilder md) {
    List<FanoutBench.Trial> search = new ArrayList<>();
    for (FanoutBench.Trial t : trials) {
      if ("oom-search".equals(t.stage)) {
        search.add(t);
      }
    }
    md.append("## Heap search at N = ")
        .append(String.format(Locale.ROOT, "%,d", bench.oomPartitions));
    md.append("\n\n");
    if (search.isEmpty()) {
      md.append("Not run (`--oom-heaps none` or smoke).\n\n");
      return;
    }
    md.append(
        "One trial per arm per heap (-Xms = -Xmx), largest heap first; `-XX:+ExitOnOutOfMemoryError`"
            + " ends a JVM at its first OutOfMemoryError; the search stops after a heap at which"
            + " neither arm completes. *peak RSS* is `VmHWM` polled by the parent every 200 ms"
            + " (so also for a JVM that died).\n\n");
    md.append(
        "| heap | arm | outcome | JVM s | wall ms | close-all ms | GC ms | peak RSS MB | detail |\n");
    md.append("|--:|---|---|--:|--:|--:|--:|--:|---|\n");
    for (FanoutBench.Trial t : search) {
      md.append("| ").append(t.heap).append(" | ").append(t.arm);
      md.append(" | **").append(t.completed() ? "completed" : t.outcome.toUpperCase(Locale.ROOT));
      md.append("** | ").append(Report.fmt("%.1f", t.elapsedMs / 1e3));
      md.append(" | ").append(t.completed() ? Report.fmt("%.0f", t.num("wall_ns") / 1e6) : "–");
      md.append(" | ")
          .append(t.completed() ? Report.fmt("%.0f", t.num("close_wall_ns") / 1e6) : "–");
      md.append(" | ").append(t.completed() ? Report.fmt("%.0f", t.num("gc_ms")) : "–");
      md.append(" | ").append(Report.fmt("%.0f", t.observedPeakRssBytes / MB));
      md.append(" | ").append(t.detail.replace("|", "\\|")).append(" |\n");
    }
    md.append('\n');
    String verdict = null;
    for (String heap : bench.oomHeaps) {
      boolean stockOk = false;
      boolean frazilOk = false;
      boolean seen = false;
      for (FanoutBench.Trial t : search) {
        if (t.heap.equals(heap)) {
          seen = true;
          stockOk |= "stock".equals(t.arm) && t.completed();
          frazilOk |= "frazil".equals(t.arm) && t.completed();
        }
      }
      if (seen && frazilOk && !stockOk && verdict == null) {
        verdict = heap;
      }
    }
    md.append(
        verdict == null
            ? "No heap in the search at which stock fails and Frazil completes.\n\n"
            : "Largest heap at which stock fails and Frazil completes: **" + verdict + "**.\n\n");
  }

  private void targets(StringBuilder md) {
    md.append("## Targets (issue 14; measured here, never asserted in tests)\n\n");
    // 1. peak RSS below stock at every N
    StringBuilder rss = new StringBuilder();
    boolean rssMet = true;
    StringBuilder close = new StringBuilder();
    boolean closeMet = true;
    boolean complete = true;
    for (int n : bench.partitions) {
      List<FanoutBench.Trial> s = cell("stock", n);
      List<FanoutBench.Trial> f = cell("frazil", n);
      if (s.isEmpty() && !f.isEmpty() && stockRanOutOfMemory(n)) {
        // Stock could not finish at all: Frazil's run is below it on every axis.
        double frazilRss = stat(f, q("peak_rss_bytes", MB)).median;
        rss.append(
            String.format(Locale.ROOT, " N=%,d %.0f MB vs stock out of memory;", n, frazilRss));
        close.append(String.format(Locale.ROOT, " N=%,d stock out of memory;", n));
        continue;
      }
      if (s.isEmpty() || f.isEmpty()) {
        complete = false;
        continue;
      }
      Report.Stat sr = stat(s, q("peak_rss_bytes", MB));
      Report.Stat fr = stat(f, q("peak_rss_bytes", MB));
      rssMet &= fr.median < sr.median;
      rss.append(String.format(Locale.ROOT, " N=%,d %.0f vs %.0f MB;", n, fr.median, sr.median));
      Report.Stat sc = stat(s, q("close_wall_ns", 1e6));
      Report.Stat fc = stat(f, q("close_wall_ns", 1e6));
      closeMet &= fc.median <= sc.median;
      close.append(String.format(Locale.ROOT, " N=%,d %.0f vs %.0f ms;", n, fc.median, sc.median));
    }
    md.append("| target | result | measured (Frazil vs stock, medians) |\n|---|---|---|\n");
    md.append("| peak RSS below stock at every N (heap ").append(bench.heap).append(") | ");
    md.append(verdict(rssMet && complete)).append(" |").append(rss).append(" |\n");
    md.append("| close-all never slower than stock | ").append(verdict(closeMet && complete));
    md.append(" |").append(close).append(" |\n");
    int top = bench.partitions.get(bench.partitions.size() - 1);
    List<FanoutBench.Trial> s = cell("stock", top);
    List<FanoutBench.Trial> f = cell("frazil", top);
    if (s.isEmpty() && !f.isEmpty() && stockRanOutOfMemory(top)) {
      md.append(
          String.format(
              Locale.ROOT,
              "| N=%,d wall ≥ 5.5× stock | stock out of memory | Frazil %.0f ms |\n",
              top,
              stat(f, q("wall_ns", 1e6)).median));
    } else if (!s.isEmpty() && !f.isEmpty()) {
      Report.Ratio wall = new Report.Ratio(stat(s, q("wall_ns", 1e6)), stat(f, q("wall_ns", 1e6)));
      md.append(
          String.format(
              Locale.ROOT,
              "| N=%,d wall ≥ 5.5× stock | %s | %.2f× [%.2f–%.2f] |\n",
              top,
              verdict(wall.median >= 5.5),
              wall.median,
              wall.low,
              wall.high));
    }
    boolean oom = false;
    for (String heap : bench.oomHeaps) {
      boolean stockOk = false;
      boolean frazilOk = false;
      for (FanoutBench.Trial t : trials) {
        if ("oom-search".equals(t.stage) && t.heap.equals(heap)) {
          stockOk |= "stock".equals(t.arm) && t.completed();
          frazilOk |= "frazil".equals(t.arm) && t.completed();
        }
      }
      oom |= frazilOk && !stockOk;
    }
    StringBuilder gridOom = new StringBuilder();
    for (int n : bench.partitions) {
      if (stockRanOutOfMemory(n) && !cell("frazil", n).isEmpty()) {
        oom = true;
        gridOom.append(String.format(Locale.ROOT, " heap %s at N=%,d;", bench.heap, n));
      }
    }
    md.append("| a heap at which stock fails and Frazil completes | ");
    md.append(bench.oomHeaps.isEmpty() && gridOom.length() == 0 ? "not run" : verdict(oom))
        .append(" |")
        .append(gridOom)
        .append(" see the heap search |\n");
    s = cell("stock", 1);
    f = cell("frazil", 1);
    if (!s.isEmpty() && !f.isEmpty()) {
      Report.Ratio wall = new Report.Ratio(stat(s, q("wall_ns", 1e6)), stat(f, q("wall_ns", 1e6)));
      Report.Ratio cpu =
          new Report.Ratio(stat(s, q("process_cpu_ns", 1e6)), stat(f, q("process_cpu_ns", 1e6)));
      md.append(
          String.format(
              Locale.ROOT,
              "| N=1 no regression vs the file-write cohort | compare | wall %.2f× [%.2f–%.2f], CPU"
                  + " %.2f× [%.2f–%.2f] here; file-write cohort bid 2,000,000: %s |\n",
              wall.median,
              wall.low,
              wall.high,
              cpu.median,
              cpu.low,
              cpu.high,
              fileWriteReference()));
    }
    md.append('\n');
  }

  /** True when stock's measured trials at {@code n} in the grid all ran out of Java heap. */
  private boolean stockRanOutOfMemory(int n) {
    boolean any = false;
    for (FanoutBench.Trial t : trials) {
      if ("grid".equals(t.stage)
          && "measured".equals(t.phase)
          && "stock".equals(t.arm)
          && t.partitions == n) {
        if (!"oom".equals(t.outcome)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  private static String verdict(boolean met) {
    return met ? "**met**" : "**not met**";
  }

  /** The bid 2,000,000 Frazil row of the newest committed file-write results, if any. */
  private String fileWriteReference() {
    Path results = bench.out.getParent();
    Path newest = null;
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(results)) {
      for (Path dir : dirs) {
        String name = dir.getFileName().toString();
        if (name.matches("\\d{4}-\\d{2}-\\d{2}-[0-9a-f]+")
            && Files.isRegularFile(dir.resolve("results.md"))
            && (newest == null || name.compareTo(newest.getFileName().toString()) > 0)) {
          newest = dir;
        }
      }
      if (newest == null) {
        return "no committed file-write results next to this directory";
      }
      for (String line : Files.readAllLines(newest.resolve("results.md"))) {
        if (line.startsWith("| bid | 2,000,000 | frazil |")) {
          String[] cells = line.split("\\|");
          return "wall "
              + cells[11].trim().replace("**", "")
              + ", CPU "
              + cells[12].trim().replace("**", "")
              + " ("
              + newest.getFileName()
              + ")";
        }
      }
    } catch (IOException | RuntimeException e) {
      return "not found (" + e.getMessage() + ")";
    }
    return "no bid 2,000,000 row in " + newest.getFileName();
  }

  private void trialList(StringBuilder md) {
    md.append("## Every trial\n\n");
    md.append(
        "| # | stage | phase | heap | arm | N | outcome | wall ms | close-all ms | CPU ms |"
            + " peak RSS MB | peak heap MB | row groups | early flushes (budget MB) | load 1m |"
            + " host: chase ns / touch ns per page / compute ms |\n");
    md.append("|--:|---|---|--:|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (FanoutBench.Trial t : trials) {
      boolean ok = t.completed();
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %s | %s | %,d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
              t.seq,
              t.stage,
              t.phase,
              t.heap,
              t.arm,
              t.partitions,
              ok ? "ok" : "**" + t.outcome.toUpperCase(Locale.ROOT) + "**",
              ok ? Report.fmt("%.0f", t.num("wall_ns") / 1e6) : "–",
              ok ? Report.fmt("%.0f", t.num("close_wall_ns") / 1e6) : "–",
              ok ? Report.fmt("%.0f", t.num("process_cpu_ns") / 1e6) : "–",
              ok
                  ? Report.fmt("%.0f", t.num("peak_rss_bytes") / MB)
                  : Report.fmt("%.0f", t.observedPeakRssBytes / MB),
              ok ? Report.fmt("%.0f", t.num("peak_heap_bytes") / MB) : "–",
              ok ? Report.fmt("%.0f", t.num("row_groups")) : "–",
              ok && "frazil".equals(t.arm) && !Double.isNaN(t.num("early_row_group_flushes"))
                  ? Report.fmt("%.0f", t.num("early_row_group_flushes"))
                      + Report.fmt(" (%.0f)", t.num("memory_budget_bytes") / MB)
                  : "–",
              ok ? Report.fmt("%.1f", t.num("loadavg_1m")) : "–",
              hostProbe(t)));
    }
    md.append(
        "\nHost probe, timed by the harness just before each trial (its own JVM, not the"
            + " trial's): one dependent load through 64 MiB at random (memory latency), the first"
            + " write to each page of 64 MiB of fresh memory (a page fault), a fixed integer loop."
            + " A trial that is slow together with its probe ran in a slow period of the host.\n");
    md.append('\n');
  }

  /** The harness's host probe before the trial (see {@link HostProbe}); runs before it had none. */
  private static String hostProbe(FanoutBench.Trial t) {
    double chase = t.num("host_chase_ns");
    if (Double.isNaN(chase)) {
      return "–";
    }
    return Report.fmt("%.0f", chase)
        + " / "
        + Report.fmt("%.0f", t.num("host_touch_ns_per_page"))
        + " / "
        + Report.fmt("%.0f", t.num("host_compute_ms"));
  }

  private String ratio(List<FanoutBench.Trial> stock, List<FanoutBench.Trial> frazil, String key) {
    Report.Ratio r = new Report.Ratio(stat(stock, q(key, 1)), stat(frazil, q(key, 1)));
    return "**"
        + Report.times(r.median)
        + "** ["
        + Report.fmt("%.2f", r.low)
        + "–"
        + Report.fmt("%.2f", r.high)
        + "]";
  }
}
