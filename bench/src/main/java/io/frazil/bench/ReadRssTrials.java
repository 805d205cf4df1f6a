package io.frazil.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.InputFile;

/**
 * The read cohort's RSS trials: one child JVM per arm and trial (ReadBench run with its hidden
 * {@code --rss-child} flags and a fixed heap) reads a file {@code --rss-reads} times and prints its
 * figures, VmHWM first, on one line the parent parses.
 */
final class ReadRssTrials {
  private final ReadBench bench;
  private final ReadFixtures fixtures;

  ReadRssTrials(ReadBench bench, ReadFixtures fixtures) {
    this.bench = bench;
    this.fixtures = fixtures;
  }

  void run(String schemaName, String cell, int rowCount) throws IOException {
    ReadFixtures.Fixture fixture = fixtures.get(schemaName, rowCount);
    System.out.printf(
        "[rss-%s %s %,d rows] %d child JVM(s) per arm (-Xms/-Xmx %s), %d read(s) each,"
            + " alternating%n",
        cell, schemaName, rowCount, bench.rssTrials, bench.rssHeap, bench.rssReads);
    for (int rep = 0; rep < bench.rssTrials; rep++) {
      for (String arm : List.of("stock", "frazil")) {
        trial(schemaName, cell, rowCount, arm, rep, fixture.plain, fixture.plainRowGroups);
      }
    }
  }

  private void trial(
      String schemaName, String cell, int rowCount, String arm, int rep, File file, int groups)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!arg.startsWith("-Xms")
          && !arg.startsWith("-Xmx")
          && !arg.startsWith("-agentlib")
          && !arg.startsWith("-XX:StartFlightRecording")) {
        command.add(arg);
      }
    }
    command.add("-Xms" + bench.rssHeap);
    command.add("-Xmx" + bench.rssHeap);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ReadBench.class.getName());
    command.addAll(
        List.of(
            "--rss-child",
            "--out",
            bench.out.toString(),
            "--child-arm",
            arm,
            "--schemas",
            schemaName,
            "--cells",
            cell,
            "--rss-reads",
            Integer.toString(bench.rssReads),
            "--child-file",
            file.toString()));
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    Map<String, Long> result = new HashMap<>();
    StringBuilder log = new StringBuilder();
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        log.append(line).append('\n');
        if (line.startsWith("RSS-CHILD ")) {
          for (String pair : line.substring(10).trim().split(" ")) {
            String[] kv = pair.split("=");
            result.put(kv[0], Long.parseLong(kv[1]));
          }
        }
      }
    }
    int exit;
    try {
      exit = process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    String where =
        String.format(Locale.ROOT, "[rss-%s %s %,d %s #%d]", cell, schemaName, rowCount, arm, rep);
    Guards.check(
        exit == 0 && result.containsKey("hwm_kb"), "%s child JVM exited %d:%n%s", where, exit, log);
    Iteration it =
        new Iteration(
            bench.nextSeq(),
            "rss-" + cell,
            schemaName,
            rowCount,
            arm,
            "measured",
            rep,
            result.get("wall_ns"),
            result.get("cpu_ns"),
            result.get("thread_cpu_ns"),
            result.get("alloc_bytes"),
            result.get("gc_count"),
            result.get("gc_ms"),
            file.length(),
            1,
            result.get("rows"),
            groups,
            "parquet-mr (stock Iceberg)");
    ReadTrial trial = new ReadTrial(it);
    trial.rowsReturned = result.get("rows");
    trial.nativeFiles = result.get("native_files");
    trial.stockFiles = result.get("stock_files");
    trial.rssBeforeKb = result.get("rss_before_kb");
    trial.rssPeakKb = result.get("rss_peak_kb");
    trial.rssAfterKb = result.get("rss_after_kb");
    trial.childHwmKb = result.get("hwm_kb");
    trial.childHeap = bench.rssHeap;
    trial.loadBefore = loadBefore;
    trial.loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Guards.check(
        trial.rowsReturned == (long) rowCount * bench.rssReads,
        "%s child read %,d rows, expected %,d",
        where,
        trial.rowsReturned,
        (long) rowCount * bench.rssReads);
    Guards.check(
        "frazil".equals(arm) ? trial.nativeFiles == bench.rssReads : trial.nativeFiles == 0,
        "%s child read %d file(s) natively",
        where,
        trial.nativeFiles);
    bench.record(trial);
    System.out.printf(
        Locale.ROOT,
        "  %-6s #%d  VmHWM %,d MB  (RSS before the reads %,d MB, sampled peak %,d MB)  last read"
            + " %.1f ms%n",
        arm,
        rep,
        trial.childHwmKb >> 10,
        trial.rssBeforeKb >> 10,
        trial.rssPeakKb >> 10,
        it.wallNs / 1e6);
  }

  /** The RSS child: reads the file --rss-reads times and prints its figures on one line. */
  static int child(ReadBench bench) throws IOException {
    Guards.loggingIsQuiet();
    Clock.enable();
    String schemaName = bench.schemas.get(0);
    String cell = bench.cells.get(0);
    ReadBench.arm(bench.childArm);
    Schema projection = ReadBench.projection(schemaName, cell);
    InputFile input = org.apache.iceberg.Files.localInput(bench.childFile.toFile());
    long rssBefore = MemoryProbes.procStatusKb("VmRSS");
    MemoryProbes.Sampler sampler = new MemoryProbes.Sampler(10);
    sampler.start();
    long[] counters = ReadBench.Read.counters();
    long rowsRead = 0;
    Clock last = null;
    for (int i = 0; i < bench.rssReads; i++) {
      Clock started = Clock.start();
      rowsRead += ReadBench.read(input, projection, Expressions.alwaysTrue()).count;
      last = started.stop();
    }
    ReadBench.Read read = new ReadBench.Read(null, counters);
    try {
      sampler.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.out.printf(
        Locale.ROOT,
        "RSS-CHILD hwm_kb=%d rss_before_kb=%d rss_peak_kb=%d rss_after_kb=%d rows=%d"
            + " native_files=%d stock_files=%d wall_ns=%d cpu_ns=%d thread_cpu_ns=%d"
            + " alloc_bytes=%d gc_count=%d gc_ms=%d%n",
        MemoryProbes.procStatusKb("VmHWM"),
        rssBefore,
        sampler.maxRssKb,
        MemoryProbes.procStatusKb("VmRSS"),
        rowsRead,
        read.nativeFiles,
        read.stockFiles,
        last.wallNs,
        last.processCpuNs,
        last.threadCpuNs,
        last.allocatedBytes,
        last.gcCount,
        last.gcMs);
    return 0;
  }
}
