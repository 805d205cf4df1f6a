package io.frazil.bench;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.partition.ArrowBatchSplitter;
import io.frazil.partition.EqualityKeyRouter;
import io.frazil.partition.FrazilPartitionKeySelector;
import io.frazil.partition.KeyedSubBatch;
import io.frazil.partition.RoutedSubBatch;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.EqualityFieldKeySelector;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The split cohort: what it costs to key rows for {@code write.distribution-mode=hash}, per row
 * ({@code PartitionKeySelector.getKey}: stock, and {@link FrazilPartitionKeySelector}) against
 * splitting Arrow batches of the same rows by partition tuple ({@link ArrowBatchSplitter}: native
 * transforms and regrouping, the path built in Java once per distinct tuple).
 *
 * <p>The Arrow batches (8,192 rows, {@link IcebergArrowSchema} layout) are built from the rows
 * before timing, as in the file-write bench's {@code arrow-input} cohort: the {@code frazil-split}
 * arm is the ceiling for a pipeline whose data is already Arrow, not a like-for-like input. Its
 * timed region is a new splitter, every batch split, every sub-batch closed. Before timing, every
 * batch's sub-batch row counts per key must equal the stock selector's key counts over the same
 * rows, or the run fails. Warm-ups and measured repetitions alternate stock, frazil, frazil-split,
 * … in this JVM; every iteration goes to {@code iterations.jsonl}, medians to {@code results.md}
 * (via {@link Report}). See bench/README.md, "Split cohort".
 */
@Command(
    name = "SplitBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Keying rows per row (stock, Frazil selector) against splitting Arrow batches natively"
          + " (bench/README.md, \"Split cohort\")."
    })
public final class SplitBench implements Callable<Integer> {
  static final String COHORT = "routing-split";

  /** The specs measured, by name: memo-eligible buckets, buckets with a day, identity + hour. */
  private static final Map<String, Function<Schema, PartitionSpec>> SPECS = new LinkedHashMap<>();

  static {
    SPECS.put("bucket[4](auction)", s -> PartitionSpec.builderFor(s).bucket("auction", 4).build());
    SPECS.put(
        "bucket[16](auction) day(date_time)",
        s -> PartitionSpec.builderFor(s).bucket("auction", 16).day("date_time").build());
    SPECS.put(
        "identity(channel) hour(date_time)",
        s -> PartitionSpec.builderFor(s).identity("channel").hour("date_time").build());
  }

  /** Upsert keys measured, by name (bid field ids): two longs, and a string. */
  private static final Map<String, Set<Integer>> EQUALITY_KEYS = new LinkedHashMap<>();

  static {
    EQUALITY_KEYS.put("equality(auction, bidder) to 4 subtasks", Set.of(1, 2));
    EQUALITY_KEYS.put("equality(url) to 4 subtasks", Set.of(5));
  }

  /** The keyed writers of the equality cells, and Flink's default max parallelism for them. */
  private static final int SUBTASKS = 4;

  private static final int KEY_GROUPS = 128;

  @Spec CommandSpec cli;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      converter = BenchCli.AbsolutePath.class,
      description = "Where iterations.jsonl, results.md, ratios.svg go.")
  Path out;

  @Option(
      names = "--smoke",
      description =
          "20,000 rows, 1 warm-up, 2 reps (flags given with it still win): checks the harness in"
              + " seconds.")
  boolean smoke;

  @Option(
      names = "--rows",
      paramLabel = "N",
      defaultValue = "1000000",
      converter = BenchCli.Positive.class,
      description = "Rows keyed per iteration.")
  int rows;

  @Option(
      names = "--batch-rows",
      paramLabel = "N",
      defaultValue = "8192",
      converter = BenchCli.Positive.class,
      description = "Rows per Arrow batch of the frazil-split arm.")
  int batchRows;

  @Option(
      names = "--warmups",
      paramLabel = "N",
      defaultValue = "3",
      converter = BenchCli.NonNegative.class,
      description = "Warm-up iterations per arm per cell.")
  int warmups;

  @Option(
      names = "--reps",
      paramLabel = "N",
      defaultValue = "7",
      converter = BenchCli.Positive.class,
      description = "Measured iterations per arm per cell.")
  int reps;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "Data generator seed.")
  long seed;

  @Option(names = "--no-gc", description = "Skip System.gc() before each iteration.")
  boolean noGc;

  private final List<Iteration> iterations = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private String loadAtStart;

  /** Keeps results alive so no arm's work is dead code. */
  static volatile long blackhole;

  public static void main(String[] args) {
    BenchCli.main(args, new SplitBench());
  }

  @Override
  public Integer call() throws IOException {
    if (smoke) {
      rows = BenchCli.given(cli, "--rows") ? rows : 20_000;
      warmups = BenchCli.given(cli, "--warmups") ? warmups : 1;
      reps = BenchCli.given(cli, "--reps") ? reps : 2;
    }
    run();
    return 0;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rows=%d batchRows=%d warmups=%d reps=%d seed=%d gcBetween=%s",
        rows,
        batchRows,
        warmups,
        reps,
        seed,
        !noGc);
  }

  private void run() throws IOException {
    long started = System.nanoTime();
    this.loadAtStart = RunFacts.loadAverage();
    Guards.loggingIsQuiet();
    Clock.enable();
    Files.createDirectories(out);
    System.out.printf("SplitBench %s%n  %s%n  out %s%n", smoke ? "(smoke)" : "", this, out);

    Schema schema = Datasets.BID;
    RowType rowType = FlinkSchemaUtil.convert(schema);
    org.apache.arrow.vector.types.pojo.Schema arrowSchema = IcebergArrowSchema.convert(schema);
    RowData[] fixture = Datasets.bids(rows, seed).toArray(new RowData[0]);
    try (BufferAllocator allocator = new RootAllocator();
        BufferedWriter lines =
            Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = lines;
      List<ArrowBatch> batches = batches(fixture, schema, rowType, allocator);
      try {
        for (Map.Entry<String, Function<Schema, PartitionSpec>> named : SPECS.entrySet()) {
          PartitionSpec spec = named.getValue().apply(schema);
          String cell = "bid " + named.getKey();
          Map<String, Arm> arms = new LinkedHashMap<>();
          arms.put("stock", () -> new StockKeys(new PartitionKeySelector(spec, schema, rowType)));
          arms.put(
              "frazil",
              () -> new FrazilKeys(new FrazilPartitionKeySelector(spec, schema, rowType)));
          arms.put(
              "frazil-split",
              () -> new SplitKeys(new ArrowBatchSplitter(spec, schema, arrowSchema, allocator)));
          verify(cell, fixture, batches, spec, schema, rowType, arrowSchema, allocator);
          runCell(cell, fixture, batches, arms);
        }
        for (Map.Entry<String, Set<Integer>> named : EQUALITY_KEYS.entrySet()) {
          Set<Integer> ids = named.getValue();
          String cell = "bid " + named.getKey();
          Map<String, Arm> arms = new LinkedHashMap<>();
          arms.put(
              "stock",
              () ->
                  new StockSubtasks(
                      new EqualityFieldKeySelector(schema, rowType, ids), SUBTASKS, KEY_GROUPS));
          arms.put(
              "frazil-split",
              () ->
                  new RoutedKeys(
                      EqualityKeyRouter.keyBy(
                          schema, ids, arrowSchema, KEY_GROUPS, SUBTASKS, allocator)));
          verifyRouting(cell, fixture, batches, ids, schema, rowType, arrowSchema, allocator);
          runCell(cell, fixture, batches, arms);
        }
      } finally {
        batches.forEach(ArrowBatch::close);
      }
      Guards.check(
          allocator.getAllocatedMemory() == 0,
          "%d bytes of Arrow memory left after the run",
          allocator.getAllocatedMemory());
    }
    writeResults((System.nanoTime() - started) / 1e9);
  }

  private List<ArrowBatch> batches(
      RowData[] fixture, Schema schema, RowType rowType, BufferAllocator allocator) {
    List<ArrowBatch> batches = new ArrayList<>();
    for (int from = 0; from < fixture.length; from += batchRows) {
      RowDataArrowWriter writer = new RowDataArrowWriter(schema, rowType, allocator);
      int to = Math.min(fixture.length, from + batchRows);
      for (int i = from; i < to; i++) {
        writer.write(fixture[i]);
      }
      writer.finishBatch();
      // The batch takes the writer's root; the writer holds no other memory.
      batches.add(ArrowBatch.of(writer.root()));
    }
    return batches;
  }

  /** Every batch: sub-batch rows per key equal the stock selector's key counts. */
  private void verify(
      String cell,
      RowData[] fixture,
      List<ArrowBatch> batches,
      PartitionSpec spec,
      Schema schema,
      RowType rowType,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      BufferAllocator allocator) {
    PartitionKeySelector stock = new PartitionKeySelector(spec, schema, rowType);
    ArrowBatchSplitter splitter = new ArrowBatchSplitter(spec, schema, arrowSchema, allocator);
    long tuples = 0;
    for (int b = 0; b < batches.size(); b++) {
      Map<String, Integer> expected = new HashMap<>();
      int from = b * batchRows;
      int to = Math.min(fixture.length, from + batchRows);
      for (int i = from; i < to; i++) {
        expected.merge(stock.getKey(fixture[i]), 1, Integer::sum);
      }
      Map<String, Integer> actual = new HashMap<>();
      for (KeyedSubBatch part : splitter.split(batches.get(b))) {
        Guards.check(
            actual.put(part.key(), part.batch().rowCount()) == null,
            "[%s %s] batch %d: key %s twice",
            COHORT,
            cell,
            b,
            part.key());
        part.batch().close();
      }
      Guards.check(
          expected.equals(actual),
          "[%s %s] batch %d: stock key counts %s, split %s",
          COHORT,
          cell,
          b,
          expected,
          actual);
      tuples += actual.size();
    }
    String note =
        String.format(
            Locale.ROOT,
            "`%s`: %.1f sub-batches per %,d-row batch on average (distinct partition tuples).",
            cell,
            tuples / (double) batches.size(),
            batchRows);
    notes.add(note);
    System.out.printf(
        "[%s %s] verified: %,d rows in %d batches, key counts equal per batch; %s%n",
        COHORT, cell, fixture.length, batches.size(), note);
  }

  /** Every batch: rows per destination subtask equal stock's keyBy counts over the same rows. */
  private void verifyRouting(
      String cell,
      RowData[] fixture,
      List<ArrowBatch> batches,
      Set<Integer> ids,
      Schema schema,
      RowType rowType,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      BufferAllocator allocator) {
    EqualityFieldKeySelector stock = new EqualityFieldKeySelector(schema, rowType, ids);
    EqualityKeyRouter router =
        EqualityKeyRouter.keyBy(schema, ids, arrowSchema, KEY_GROUPS, SUBTASKS, allocator);
    for (int b = 0; b < batches.size(); b++) {
      int[] expected = new int[SUBTASKS];
      int from = b * batchRows;
      int to = Math.min(fixture.length, from + batchRows);
      for (int i = from; i < to; i++) {
        expected[
                KeyGroupRangeAssignment.assignKeyToParallelOperator(
                    stock.getKey(fixture[i]), KEY_GROUPS, SUBTASKS)] +=
            1;
      }
      int[] actual = new int[SUBTASKS];
      for (RoutedSubBatch part : router.route(batches.get(b))) {
        actual[part.destination()] += part.batch().rowCount();
        part.batch().close();
      }
      Guards.check(
          Arrays.equals(expected, actual),
          "[%s %s] batch %d: stock rows per subtask %s, routed %s",
          COHORT,
          cell,
          b,
          Arrays.toString(expected),
          Arrays.toString(actual));
    }
    System.out.printf(
        "[%s %s] verified: %,d rows in %d batches, rows per subtask equal per batch%n",
        COHORT, cell, fixture.length, batches.size());
  }

  private void runCell(
      String cell, RowData[] fixture, List<ArrowBatch> batches, Map<String, Arm> arms)
      throws IOException {
    System.out.printf(
        "[%s %s %,d rows] %d warm-up + %d measured per arm, alternating%n",
        COHORT, cell, fixture.length, warmups, reps);
    for (int rep = 0; rep < warmups + reps; rep++) {
      String phase = rep < warmups ? "warmup" : "measured";
      int index = rep < warmups ? rep : rep - warmups;
      for (Map.Entry<String, Arm> arm : arms.entrySet()) {
        timed(cell, fixture, batches, arm.getKey(), arm.getValue(), phase, index);
      }
    }
  }

  private void timed(
      String cell,
      RowData[] fixture,
      List<ArrowBatch> batches,
      String armName,
      Arm arm,
      String phase,
      int rep)
      throws IOException {
    long preGcMs = Clock.collectGarbage(!noGc);
    Clock started = Clock.start();
    Keys keys = arm.newKeys();
    long checksum = keys.keyAll(fixture, batches);
    Clock took = started.stop();
    blackhole += checksum;
    Guards.check(
        keys.keyed == fixture.length,
        "[%s %s %s %s #%d] keyed %d rows, expected %d",
        COHORT,
        cell,
        armName,
        phase,
        rep,
        keys.keyed,
        fixture.length);
    Iteration it =
        new Iteration(
            iterations.size(),
            COHORT,
            cell,
            fixture.length,
            armName,
            phase,
            rep,
            took.wallNs,
            took.processCpuNs,
            took.threadCpuNs,
            took.allocatedBytes,
            took.gcCount,
            took.gcMs,
            0L,
            0,
            fixture.length,
            0,
            null);
    iterations.add(it);
    jsonl.write(it.toJson());
    jsonl.newLine();
    jsonl.flush();
    System.out.printf(
        Locale.ROOT,
        "  %-12s %-8s #%d  wall %8.1f ms  cpu %8.1f ms  thread %8.1f ms  alloc %8.1f MB"
            + " (%6.1f B/row)  gc %2d  (pre-gc %d ms)%n",
        armName,
        phase,
        rep,
        it.wallNs / 1e6,
        it.processCpuNs / 1e6,
        it.threadCpuNs / 1e6,
        it.allocatedBytes / 1048576.0,
        it.allocatedBytes / (double) fixture.length,
        it.gcCount,
        preGcMs);
  }

  // ---------------------------------------------------------------------------------------------
  // The arms: fresh state per iteration (a new selector or splitter, as a restarted task)

  interface Arm {
    Keys newKeys();
  }

  abstract static class Keys {
    long keyed;

    /** Keys every row; returns a checksum of every key's hashCode (what Flink hashes). */
    abstract long keyAll(RowData[] fixture, List<ArrowBatch> batches);
  }

  /** Stock keyBy: PartitionKeySelector.getKey per row. */
  static final class StockKeys extends Keys {
    private final PartitionKeySelector selector;

    StockKeys(PartitionKeySelector selector) {
      this.selector = selector;
    }

    @Override
    long keyAll(RowData[] fixture, List<ArrowBatch> batches) {
      long checksum = 0;
      for (RowData row : fixture) {
        checksum += selector.getKey(row).hashCode();
      }
      keyed += fixture.length;
      return checksum;
    }
  }

  /** Frazil's RowData keyBy: FrazilPartitionKeySelector.getKey per row (a class of its own). */
  static final class FrazilKeys extends Keys {
    private final FrazilPartitionKeySelector selector;

    FrazilKeys(FrazilPartitionKeySelector selector) {
      this.selector = selector;
    }

    @Override
    long keyAll(RowData[] fixture, List<ArrowBatch> batches) {
      long checksum = 0;
      for (RowData row : fixture) {
        checksum += selector.getKey(row).hashCode();
      }
      keyed += fixture.length;
      return checksum;
    }
  }

  /** The Arrow path: every batch split, one key per sub-batch, every sub-batch closed. */
  static final class SplitKeys extends Keys {
    private final ArrowBatchSplitter splitter;

    SplitKeys(ArrowBatchSplitter splitter) {
      this.splitter = splitter;
    }

    @Override
    long keyAll(RowData[] fixture, List<ArrowBatch> batches) {
      long checksum = 0;
      for (ArrowBatch batch : batches) {
        for (KeyedSubBatch part : splitter.split(batch)) {
          int rows = part.batch().rowCount();
          checksum += (long) part.key().hashCode() * rows;
          keyed += rows;
          part.batch().close();
        }
      }
      return checksum;
    }
  }

  /** Stock keyBy by equality fields: the key per row, and Flink's subtask for it. */
  static final class StockSubtasks extends Keys {
    private final EqualityFieldKeySelector selector;
    private final int subtasks;
    private final int keyGroups;

    StockSubtasks(EqualityFieldKeySelector selector, int subtasks, int keyGroups) {
      this.selector = selector;
      this.subtasks = subtasks;
      this.keyGroups = keyGroups;
    }

    @Override
    long keyAll(RowData[] fixture, List<ArrowBatch> batches) {
      long checksum = 0;
      for (RowData row : fixture) {
        checksum +=
            KeyGroupRangeAssignment.assignKeyToParallelOperator(
                selector.getKey(row), keyGroups, subtasks);
      }
      keyed += fixture.length;
      return checksum;
    }
  }

  /** The Arrow path by equality key: every batch routed, every sub-batch closed. */
  static final class RoutedKeys extends Keys {
    private final EqualityKeyRouter router;

    RoutedKeys(EqualityKeyRouter router) {
      this.router = router;
    }

    @Override
    long keyAll(RowData[] fixture, List<ArrowBatch> batches) {
      long checksum = 0;
      for (ArrowBatch batch : batches) {
        for (RoutedSubBatch part : router.route(batch)) {
          int rows = part.batch().rowCount();
          checksum += (long) part.destination() * rows;
          keyed += rows;
          part.batch().close();
        }
      }
      return checksum;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // results.md (tables from Report), ratios.svg

  private void writeResults(double seconds) throws IOException {
    List<Report.Cell> cells = Report.cells(iterations);
    RunFacts facts = RunFacts.collect();
    boolean environment = RunFacts.copyEnvironment(facts.repo, out);
    StringBuilder md = new StringBuilder();
    md.append(
        "# Keying rows for the hash distribution: per row against the native Arrow split\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| load average (1, 5, 15 min) | at start ").append(loadAtStart);
    md.append(", at end ").append(RunFacts.loadAverage());
    md.append(" (other work on the machine competes with every arm) |\n");
    md.append("| environment.json | ")
        .append(environment ? "copied next to this file" : "not present in the repository root")
        .append(" |\n");
    md.append("| mode | ").append(smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(BenchCli.args(cli))).append("` |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| plan | bid fixture %,d rows (Arrow batches of %,d rows), %d warm-up(s) + %d measured"
                + " per arm per cell, seed %d, %.0f s in total |\n\n",
            rows,
            batchRows,
            warmups,
            reps,
            seed,
            seconds));
    for (String note : notes) {
      md.append("- ").append(note).append('\n');
    }
    md.append('\n');
    md.append(
        "Before timing, every batch was split and its sub-batches' row counts per key equalled the"
            + " stock selector's key counts over the same rows. **stock**:"
            + " `PartitionKeySelector.getKey(row)` per row; **frazil**:"
            + " `FrazilPartitionKeySelector.getKey(row)` per row (memoized for the bucket-only"
            + " spec, stock's code otherwise); **frazil-split**: `ArrowBatchSplitter.split(batch)`"
            + " per pre-built Arrow batch, every sub-batch closed (the Arrow batches are built"
            + " before timing: a ceiling for Arrow-native input, not a like-for-like input). In the"
            + " `equality(...)` cells (the upsert shuffle), **stock** is"
            + " `EqualityFieldKeySelector.getKey(row)` and Flink's key group → subtask per row"
            + " (4 subtasks, 128 key groups), **frazil-split** `EqualityKeyRouter.route(batch)`,"
            + " verified the same way (rows per subtask equal per batch). Each"
            + " iteration starts from a new selector or splitter. Medians of the measured"
            + " repetitions, [min–max]; ratios are stock / Frazil (> 1 means Frazil is faster);"
            + " allocation is Frazil / stock. `output MB` does not apply (always 0). Every"
            + " iteration, warm-ups included, is in `iterations.jsonl`.\n\n");
    String tables = Report.tables(cells, List.of(COHORT));
    tables =
        tables.replaceAll(
            "(## Cohort `" + COHORT + "`: )[^\n]*",
            "$1the hash distribution's key for every row (no file writing)");
    md.append(tables);
    md.append("Columns: *wall* = `System.nanoTime()` around keying every row; *process CPU* = all");
    md.append(
        " threads (JIT and GC included); *thread CPU* = the keying thread (the split runs on");
    md.append(" it too); *alloc* = Java heap bytes allocated by that thread.\n");
    Files.writeString(out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);
    boolean finite = !cells.isEmpty();
    for (Report.Cell cell : cells) {
      finite &= Double.isFinite(cell.wall().high) && Double.isFinite(cell.cpu().high);
      finite &= Double.isFinite(cell.wall().low) && Double.isFinite(cell.cpu().low);
    }
    if (finite) {
      String subtitle =
          String.format(
              Locale.ROOT,
              "keying only, %s, %d cores, Java %s, commit %.10s%s",
              facts.now.substring(0, 10),
              facts.cores,
              System.getProperty("java.version"),
              facts.commit,
              smoke ? ", SMOKE run, not a measurement" : "");
      Report.writeSvg(out.resolve("ratios.svg"), cells, subtitle);
    } else {
      System.out.println(
          "ratios.svg not written: a ratio is not finite (timings below resolution)");
    }
    System.out.println();
    System.out.print(tables);
    System.out.printf(
        "%d iterations, all guards passed, %.0f s; results in %s%n",
        iterations.size(), seconds, out);
  }
}
