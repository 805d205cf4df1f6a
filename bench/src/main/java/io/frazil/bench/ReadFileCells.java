package io.frazil.bench;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeParquetReader;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.InputFile;

/**
 * The read cohort's file cells in the bench's JVM: per cell, warm-ups then measured reads
 * alternating stock and Frazil, each timed, sampled and checked against the stock arm's rows.
 */
final class ReadFileCells {
  private final ReadBench bench;
  private final ReadFixtures fixtures;

  ReadFileCells(ReadBench bench, ReadFixtures fixtures) {
    this.bench = bench;
    this.fixtures = fixtures;
  }

  void run(String schemaName, String cell, int rowCount) throws IOException {
    ReadFixtures.Fixture fixture = fixtures.get(schemaName, rowCount);
    File file = "filtered".equals(cell) ? fixture.grouped : fixture.plain;
    int fileGroups = "filtered".equals(cell) ? fixture.groupedRowGroups : fixture.plainRowGroups;
    Schema projection = ReadBench.projection(schemaName, cell);
    Expression filter =
        "filtered".equals(cell)
            ? Expressions.lessThan(ReadBench.FILTER_COLUMN.get(schemaName), fixture.threshold)
            : Expressions.alwaysTrue();
    int measured = bench.repsFor(rowCount);
    System.out.printf(
        "[read-%s %s %,d rows] %d warm-up + %d measured per arm, alternating (%s, %d row"
            + " group(s)%s)%n",
        cell,
        schemaName,
        rowCount,
        bench.warmups,
        measured,
        file.getName(),
        fileGroups,
        "filtered".equals(cell) ? ", " + filter : "");
    ReadConsumer stockResult = null;
    for (int rep = 0; rep < bench.warmups + measured; rep++) {
      String phase = rep < bench.warmups ? "warmup" : "measured";
      int index = rep < bench.warmups ? rep : rep - bench.warmups;
      for (String arm : List.of("stock", "frazil")) {
        ReadTrial trial =
            timed(
                schemaName,
                cell,
                rowCount,
                arm,
                phase,
                index,
                file,
                fileGroups,
                projection,
                filter);
        String where =
            String.format(
                Locale.ROOT,
                "[read-%s %s %,d %s %s #%d]",
                cell,
                schemaName,
                rowCount,
                arm,
                phase,
                index);
        ReadConsumer got = lastConsumer;
        if (stockResult == null) {
          stockResult = got;
        }
        Guards.check(
            got.sameAs(stockResult),
            "%s returned %s, stock returned %s",
            where,
            got.text(),
            stockResult.text());
        if ("filtered".equals(cell)) {
          Guards.check(
              got.count < rowCount && got.count > 0,
              "%s the filter returned %,d of %,d rows (expected some, not all)",
              where,
              got.count,
              rowCount);
        } else {
          Guards.check(
              got.count == rowCount, "%s returned %,d rows of %,d", where, got.count, rowCount);
        }
        if ("frazil".equals(arm)) {
          Guards.check(
              trial.nativeFiles == 1 && trial.stockFiles == 0,
              "%s read natively %d file(s), by Iceberg's reader %d (expected 1 and 0)",
              where,
              trial.nativeFiles,
              trial.stockFiles);
        } else {
          Guards.check(
              trial.nativeFiles == 0,
              "%s the stock arm read %d file(s) natively",
              where,
              trial.nativeFiles);
        }
        Guards.check(
            ArrowMemory.allocatedBytes() == 0 && NativeParquetReader.openReaders() == 0,
            "%s left %d Arrow bytes and %d native readers open",
            where,
            ArrowMemory.allocatedBytes(),
            NativeParquetReader.openReaders());
        if ("frazil".equals(arm) && bench.nativeLibrary.startsWith("not")) {
          bench.nativeLibrary = Guards.describeNativeLibrary(bench.notes);
          System.out.println("  native library: " + bench.nativeLibrary);
        }
      }
    }
  }

  private ReadConsumer lastConsumer;

  private ReadTrial timed(
      String schemaName,
      String cell,
      int rowCount,
      String arm,
      String phase,
      int rep,
      File file,
      int fileGroups,
      Schema projection,
      Expression filter)
      throws IOException {
    ReadBench.arm(arm);
    InputFile input = org.apache.iceberg.Files.localInput(file);
    long preGcMs = Clock.collectGarbage(!bench.noGc);
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    long rssBefore = MemoryProbes.procStatusKb("VmRSS");
    MemoryProbes.Sampler sampler = new MemoryProbes.Sampler(10);
    sampler.start();
    long[] counters = ReadBench.Read.counters();
    long faultsBefore = MemoryProbes.minorFaults();
    long poolBefore = EncoderCpu.nanos();
    Clock started = Clock.start();

    ReadConsumer consumer = ReadBench.read(input, projection, filter);

    Clock took = started.stop();
    long poolAfter = EncoderCpu.nanos();
    long faultsAfter = MemoryProbes.minorFaults();
    ReadBench.Read read = new ReadBench.Read(consumer, counters);
    try {
      sampler.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    this.lastConsumer = consumer;
    Iteration it =
        new Iteration(
            bench.nextSeq(),
            "read-" + cell,
            schemaName,
            rowCount,
            arm,
            phase,
            rep,
            took.wallNs,
            took.processCpuNs,
            took.threadCpuNs,
            took.allocatedBytes,
            took.gcCount,
            took.gcMs,
            file.length(),
            1,
            consumer.count,
            fileGroups,
            "parquet-mr (stock Iceberg)");
    ReadTrial trial = new ReadTrial(it);
    trial.rowsReturned = consumer.count;
    trial.checksumSum = consumer.sum;
    trial.checksumXor = consumer.xor;
    trial.nativeFiles = read.nativeFiles;
    trial.stockFiles = read.stockFiles;
    trial.nativeRowGroups = read.nativeRowGroups;
    trial.bytesFetched = read.bytesFetched;
    trial.rssBeforeKb = rssBefore;
    trial.minorFaults = faultsBefore < 0 || faultsAfter < 0 ? -1 : faultsAfter - faultsBefore;
    trial.poolCpuNs = poolBefore < 0 || poolAfter < 0 ? -1 : poolAfter - poolBefore;
    trial.rssPeakKb = sampler.maxRssKb;
    trial.rssAfterKb = MemoryProbes.procStatusKb("VmRSS");
    trial.rssSamples = sampler.samples;
    trial.heapPeakBytes = sampler.maxHeapUsed;
    trial.arrowPeakBytes = sampler.maxArrow;
    trial.loadBefore = loadBefore;
    trial.loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    bench.record(trial);
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %9.1f ms  cpu %9.1f ms  thread %9.1f ms  alloc %8.1f MB  gc %2d"
            + "  rows %,d  rss %,d→%,d MB  row groups %d  faults %,d  pool %.0f ms  (pre-gc %d ms)%n",
        arm,
        phase,
        rep,
        it.wallNs / 1e6,
        it.processCpuNs / 1e6,
        it.threadCpuNs / 1e6,
        it.allocatedBytes / 1048576.0,
        it.gcCount,
        consumer.count,
        rssBefore >> 10,
        trial.rssPeakKb >> 10,
        read.nativeRowGroups,
        trial.minorFaults,
        trial.poolCpuNs / 1e6,
        preGcMs);
    return trial;
  }
}
