package io.frazil.bench;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.exchange.ArrowBatchSerializer;
import io.frazil.exchange.ArrowBatchTypeInfo;
import io.frazil.exchange.IpcCompression;
import io.frazil.iceberg.ArrowMemory;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The exchange cohort: what a record costs to cross Flink's network stack, serialized into a {@link
 * DataOutputSerializer} and deserialized from a {@link DataInputDeserializer} as a record writer
 * and a record deserializer do, on the same rows. Stock: Flink's {@link RowDataSerializer}, row by
 * row (a new row per record, as without object reuse). Frazil: {@link ArrowBatchSerializer} (one
 * Arrow IPC stream per batch, encoded and decoded in native code), batch by batch, each decoded
 * batch released after its rows are counted.
 *
 * <p>Fixture: the {@code bid} rows of {@link Datasets}; the Arrow batches are built from them by
 * {@link RowDataArrowWriter} before timing (building them is the job of the operator that emits
 * them, not of the serializer). Before timing, every batch is serialized, read back and compared
 * with the original (same vectors, bit for bit), and the stock arm reads back as many rows as it
 * wrote, or the run fails. Then warm-ups and measured repetitions alternate stock, Frazil, ... in
 * this JVM; every iteration goes to {@code iterations.jsonl}, medians to {@code results.md}. See
 * bench/README.md, "Exchange cohort".
 */
@Command(
    name = "ExchangeBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Serialize + deserialize through Flink's DataOutputView/DataInputView: RowDataSerializer"
          + " against the Arrow IPC ArrowBatchSerializer, on the bid rows (bench/README.md,"
          + " \"Exchange cohort\")."
    })
public final class ExchangeBench implements Callable<Integer> {
  static final String COHORT = "exchange-serde";

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
      description = "20,000 rows, 1 warm-up, 2 reps (flags given with it still win).")
  boolean smoke;

  @Option(
      names = "--rows",
      paramLabel = "N",
      defaultValue = "2000000",
      converter = BenchCli.Positive.class,
      description = "Rows per iteration.")
  int rows;

  @Option(
      names = "--batch-rows",
      paramLabel = "N",
      defaultValue = "8192",
      converter = BenchCli.Positive.class,
      description = "Rows per Arrow batch (the Frazil writer's batch size).")
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
      names = "--compression",
      split = ",",
      paramLabel = "CODEC",
      defaultValue = "NONE,LZ4_FRAME",
      description = "Frazil arm's IPC body compression per cell: NONE, LZ4_FRAME, ZSTD.")
  List<IpcCompression> codecs;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "Data seed.")
  long seed;

  private final List<Iteration> iterations = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private String loadAtStart;

  /** Keeps results alive so no arm's work is dead code. */
  static volatile long blackhole;

  public static void main(String[] args) {
    BenchCli.main(args, new ExchangeBench());
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
        "rows=%d batchRows=%d warmups=%d reps=%d compression=%s seed=%d",
        rows,
        batchRows,
        warmups,
        reps,
        codecs,
        seed);
  }

  private void run() throws IOException {
    long started = System.nanoTime();
    this.loadAtStart = RunFacts.loadAverage();
    Guards.loggingIsQuiet();
    Clock.enable();
    Files.createDirectories(out);
    System.out.printf("ExchangeBench %s%n  %s%n  out %s%n", smoke ? "(smoke)" : "", this, out);
    Schema schema = Datasets.BID;
    RowType rowType = FlinkSchemaUtil.convert(schema);
    RowData[] fixture = Datasets.bids(rows, seed).toArray(new RowData[0]);
    List<ArrowBatch> batches = toBatches(schema, rowType, fixture);
    String heap = Guards.fixtureHeap("the fixtures", notes);
    System.out.printf("[bid] %,d rows, %d Arrow batches (%s)%n", rows, batches.size(), heap);
    try (BufferedWriter lines =
        Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = lines;
      RowDataSerializer stock = new RowDataSerializer(rowType);
      for (IpcCompression codec : codecs) {
        ArrowBatchSerializer frazil =
            (ArrowBatchSerializer)
                ArrowBatchTypeInfo.of(schema)
                    .withCompression(codec)
                    .createSerializer(
                        (org.apache.flink.api.common.serialization.SerializerConfig) null);
        String cell = "bid " + batchRows + " rows/batch, IPC " + codec;
        verify(cell, stock, fixture, frazil, batches);
        for (int rep = 0; rep < warmups + reps; rep++) {
          String phase = rep < warmups ? "warmup" : "measured";
          int index = rep < warmups ? rep : rep - warmups;
          timed(cell, "stock", phase, index, () -> stockPass(stock, fixture));
          timed(cell, "frazil", phase, index, () -> frazilPass(frazil, batches));
        }
      }
    } finally {
      batches.forEach(ArrowBatch::close);
    }
    Guards.check(
        ArrowMemory.allocatedBytes() == 0, "Arrow bytes left: %d", ArrowMemory.allocatedBytes());
    writeResults((System.nanoTime() - started) / 1e9);
  }

  private List<ArrowBatch> toBatches(Schema schema, RowType rowType, RowData[] fixture) {
    List<ArrowBatch> batches = new ArrayList<>();
    for (int from = 0; from < fixture.length; from += batchRows) {
      RowDataArrowWriter writer =
          new RowDataArrowWriter(schema, rowType, ArrowMemory.exchangeAllocator());
      for (int i = from; i < Math.min(fixture.length, from + batchRows); i++) {
        writer.write(fixture[i]);
      }
      writer.finishBatch();
      batches.add(ArrowBatch.of(writer.root()));
    }
    return batches;
  }

  private static void verify(
      String cell,
      RowDataSerializer stock,
      RowData[] fixture,
      ArrowBatchSerializer frazil,
      List<ArrowBatch> batches)
      throws IOException {
    Guards.check(
        stockPass(stock, fixture) == fixture.length, "[%s] stock rows read back differ", cell);
    DataOutputSerializer out = new DataOutputSerializer(1 << 20);
    for (ArrowBatch batch : batches) {
      out.clear();
      frazil.serialize(batch, out);
      try (ArrowBatch read =
          frazil.deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()))) {
        Guards.check(read.contentEquals(batch), "[%s] a batch read back differs", cell);
      }
    }
    System.out.printf("[%s] verified: every batch read back equal, vector by vector%n", cell);
  }

  /** Flink's record writer path: serialize into a buffer, a deserializer reads it back. */
  private static long stockPass(RowDataSerializer serializer, RowData[] rows) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(1 << 20);
    DataInputDeserializer in = new DataInputDeserializer();
    long read = 0;
    for (int from = 0; from < rows.length; from += 8192) {
      int to = Math.min(rows.length, from + 8192);
      out.clear();
      for (int i = from; i < to; i++) {
        serializer.serialize(rows[i], out);
      }
      in.setBuffer(out.getSharedBuffer(), 0, out.length());
      for (int i = from; i < to; i++) {
        RowData row = serializer.deserialize(in);
        read += row.getArity() > 0 ? 1 : 0;
      }
    }
    return read;
  }

  private static long frazilPass(ArrowBatchSerializer serializer, List<ArrowBatch> batches)
      throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(1 << 20);
    DataInputDeserializer in = new DataInputDeserializer();
    long read = 0;
    for (ArrowBatch batch : batches) {
      out.clear();
      serializer.serialize(batch, out);
      in.setBuffer(out.getSharedBuffer(), 0, out.length());
      try (ArrowBatch back = serializer.deserialize(in)) {
        read += back.rowCount();
      }
    }
    return read;
  }

  interface Pass {
    long run() throws IOException;
  }

  private void timed(String cell, String arm, String phase, int rep, Pass pass) throws IOException {
    Clock.collectGarbage(true);
    Clock started = Clock.start();
    long read = pass.run();
    Clock took = started.stop();
    blackhole += read;
    Guards.check(read == rows, "[%s %s] read %d rows, expected %d", cell, arm, read, rows);
    Iteration it =
        new Iteration(
            iterations.size(),
            COHORT,
            cell,
            rows,
            arm,
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
            rows,
            0,
            null);
    iterations.add(it);
    jsonl.write(it.toJson());
    jsonl.newLine();
    jsonl.flush();
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %8.1f ms  thread cpu %8.1f ms  %6.2f M rows/s per core  alloc %7.1f MB%n",
        arm,
        phase,
        rep,
        it.wallNs / 1e6,
        it.threadCpuNs / 1e6,
        rows / (it.threadCpuNs / 1e9) / 1e6,
        it.allocatedBytes / 1048576.0);
  }

  private void writeResults(double seconds) throws IOException {
    List<Report.Cell> cells = Report.cells(iterations);
    RunFacts facts = RunFacts.collect();
    boolean environment = RunFacts.copyEnvironment(facts.repo, out);
    StringBuilder md = new StringBuilder();
    md.append(
        "# Exchange: Flink's RowDataSerializer vs Frazil's Arrow IPC ArrowBatchSerializer\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| load average (1, 5, 15 min) | at start ").append(loadAtStart);
    md.append(", at end ").append(RunFacts.loadAverage()).append(" |\n");
    md.append("| environment.json | ")
        .append(environment ? "copied next to this file" : "not present in the repository root")
        .append(" |\n");
    md.append("| mode | ").append(smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(BenchCli.args(cli))).append("` |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| plan | bid fixture %,d rows, %d-row batches, %d warm-up(s) + %d measured per arm"
                + " per cell, seed %d, %.0f s in total |\n\n",
            rows,
            batchRows,
            warmups,
            reps,
            seed,
            seconds));
    for (String note : notes) {
      md.append("- ").append(note).append('\n');
    }
    md.append(
        "\nEach iteration serializes every row (stock: row by row with `RowDataSerializer`;"
            + " Frazil: batch by batch with `ArrowBatchSerializer`) into a `DataOutputSerializer`"
            + " in chunks of one batch and deserializes it from a `DataInputDeserializer`, as a"
            + " record writer and a record deserializer would; Frazil releases each decoded batch."
            + " Building the Arrow batches from rows is not timed (an upstream operator's job)."
            + " Medians of the measured repetitions, [min–max]; ratios are stock / Frazil (> 1:"
            + " Frazil faster); the thread-CPU ratio is the ratio of rows/s per core. Every"
            + " iteration is in `iterations.jsonl`.\n\n");
    md.append("| cell | arm | rows/s per core (thread CPU), median [min–max] |\n|---|---|---|\n");
    for (Report.Cell cell : cells) {
      for (String arm : List.of("stock", "frazil")) {
        List<Iteration> its = new ArrayList<>();
        for (Iteration it : iterations) {
          if (it.measured() && it.schema.equals(cell.schema) && it.arm.equals(arm)) {
            its.add(it);
          }
        }
        Report.Stat perCore = Report.stat(its, it -> it.rows / (it.threadCpuNs / 1e9) / 1e6);
        md.append("| ").append(cell.schema).append(" | ").append(arm).append(" | ");
        md.append(Report.range(perCore, "%.2f")).append(" M |\n");
      }
    }
    md.append('\n');
    String tables = Report.tables(cells, List.of(COHORT));
    tables =
        tables.replaceAll(
            "(## Cohort `" + COHORT + "`: )[^\n]*",
            "$1serialize + deserialize through Flink's DataOutputView/DataInputView");
    md.append(tables);
    Files.writeString(out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);
    boolean finite = !cells.isEmpty();
    for (Report.Cell cell : cells) {
      finite &= Double.isFinite(cell.wall().high) && Double.isFinite(cell.cpu().high);
      finite &= Double.isFinite(cell.wall().low) && Double.isFinite(cell.cpu().low);
    }
    if (finite) {
      Report.writeSvg(
          out.resolve("ratios.svg"),
          cells,
          String.format(
              Locale.ROOT,
              "RowDataSerializer / ArrowBatchSerializer, %s, %d cores, commit %.10s%s",
              facts.now.substring(0, 10),
              facts.cores,
              facts.commit,
              smoke ? ", SMOKE run, not a measurement" : ""));
    }
    System.out.println();
    System.out.print(tables);
    System.out.printf(
        "%d iterations, all guards passed, %.0f s; results in %s%n",
        iterations.size(), seconds, out);
  }
}
