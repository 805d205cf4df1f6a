package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.frazil.testkit.JobTables;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Rolling, off switches, fallback and failover with Frazil in the Flink sinks. */
public class TestSinkBehaviour {
  @RegisterExtension
  static final FrazilMiniCluster MINI_CLUSTER = FrazilMiniCluster.installedLikeACluster();

  @TempDir private File warehouse;

  /** Before the extension's leak check. */
  @AfterEach
  public void after() {
    FrazilFlink.setProcessEnabled(true);
  }

  private List<String> writers(Table table) throws Exception {
    List<String> createdBy = new java.util.ArrayList<>();
    for (DataFile file : FlinkJobs.files(table).dataFiles) {
      createdBy.add(FlinkJobs.createdBy(file.location()));
    }
    return createdBy;
  }

  private void writeWithFlinkSink(String table, List<RowData> rows, int parallelism)
      throws Exception {
    writeWithFlinkSink(table, rows, FlinkJobs.env(parallelism));
  }

  private void writeWithFlinkSink(String table, List<RowData> rows, StreamExecutionEnvironment env)
      throws Exception {
    DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(FlinkJobs.ROW_TYPE));
    FlinkSink.forRowData(input).tableLoader(FlinkJobs.tableLoader(warehouse, table)).append();
    env.execute(table);
  }

  @Test
  public void tinyTargetFileSizeRollsLikeStock() throws Exception {
    // Iceberg checks the size every 1000 rows: with a 4-byte target each check rolls the file.
    Map<String, String> tiny = Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "4");
    Table frazil =
        FlinkJobs.createTable(
            warehouse, "roll_frazil", JobTables.Partitioning.UNPARTITIONED, 2, tiny);
    Table stock =
        FlinkJobs.createTable(
            warehouse,
            "roll_stock",
            JobTables.Partitioning.UNPARTITIONED,
            2,
            Map.of(
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "4",
                FrazilFlink.TABLE_PROPERTY, "false"));
    List<RowData> rows = FlinkJobs.rows(0, 8000, "a");
    // No periodic checkpoints: a checkpoint also closes files, at timing-dependent rows.
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    writeWithFlinkSink("roll_frazil", rows, env);
    env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    writeWithFlinkSink("roll_stock", rows, env);

    List<String> frazilWriters = writers(frazil);
    List<String> stockWriters = writers(stock);
    assertThat(frazilWriters).hasSize(8).allMatch(w -> w.startsWith("frazil version "));
    assertThat(stockWriters)
        .as("the table property switches Frazil off")
        .hasSize(frazilWriters.size())
        .allMatch(w -> w.startsWith("parquet-mr"));
    assertThat(FlinkJobs.read(frazil)).hasSize(8000);
  }

  @Test
  public void processSwitchTurnsFrazilOff() throws Exception {
    Table table =
        FlinkJobs.createTable(warehouse, "off", JobTables.Partitioning.BUCKET, 3, Map.of());
    FrazilFlink.setProcessEnabled(false);
    writeWithFlinkSink("off", FlinkJobs.rows(0, 1000, "a"), 2);
    assertThat(writers(table)).isNotEmpty().allMatch(w -> w.startsWith("parquet-mr"));
    assertThat(FlinkJobs.read(table)).hasSize(1000);
  }

  @Test
  public void failuresBetweenAndDuringCheckpointsLoseAndDuplicateNothing() throws Exception {
    Table table =
        FlinkJobs.createTable(warehouse, "failover", JobTables.Partitioning.BUCKET, 2, Map.of());
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "5");
    conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(150);
    long count = 20_000;
    DataStream<RowData> input =
        env.fromSequence(0, count - 1)
            .setParallelism(1)
            .map(new FailingRows())
            .setParallelism(1)
            .returns(InternalTypeInfo.of(FlinkJobs.ROW_TYPE));
    FlinkSink.forRowData(input).tableLoader(FlinkJobs.tableLoader(warehouse, "failover")).append();
    env.execute("failover");

    List<Long> ids =
        FlinkJobs.read(table).stream()
            .map(r -> (Long) r.get(0))
            .sorted()
            .collect(Collectors.toList());
    assertThat(ids).hasSize((int) count).doesNotHaveDuplicates();
    assertThat(ids.get(0)).isZero();
    assertThat(ids.get(ids.size() - 1)).isEqualTo(count - 1);
    assertThat(FailingRows.failures()).as("injected failures").isGreaterThanOrEqualTo(2);
    assertThat(writers(table)).allMatch(w -> w.startsWith("frazil version "));
  }

  /**
   * Turns ids into rows, slowly enough to span several checkpoints. The first attempt fails between
   * checkpoints (in {@code map}); the second fails while taking a checkpoint.
   */
  static final class FailingRows extends RichMapFunction<Long, RowData>
      implements CheckpointedFunction {
    private static final java.util.concurrent.atomic.AtomicInteger FAILURES =
        new java.util.concurrent.atomic.AtomicInteger();
    private long seen = 0;
    private int snapshots = 0;

    static int failures() {
      return FAILURES.get();
    }

    private int attempt() {
      return getRuntimeContext().getTaskInfo().getAttemptNumber();
    }

    @Override
    public RowData map(Long id) throws Exception {
      seen += 1;
      if (seen % 10 == 0) {
        Thread.sleep(1);
      }
      if (attempt() == 0 && seen == 3000) {
        FAILURES.incrementAndGet();
        throw new IllegalStateException("injected failure between checkpoints");
      }
      return FlinkJobs.row(id, "v-" + id);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      snapshots += 1;
      if (attempt() == 1 && snapshots == 3) {
        FAILURES.incrementAndGet();
        throw new IllegalStateException("injected failure during a checkpoint");
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }

  @Test
  public void aJvmWithoutArrowsAddOpensFallsBackToTheStockWriterWithOneWarning() throws Exception {
    // Flink 1.x's Kryo serializes Iceberg's write results (ByteBuffer bounds) by reflection into
    // java.nio too, so without that line the job fails there with the stock writer alone (Flink
    // 1.20's shipped env.java.opts.all holds it); only Flink 2.x runs a job without it.
    assumeThat(EnvironmentInformation.getVersion())
        .as("Flink 2.x; on 1.x stock Iceberg needs java.nio opened as well")
        .startsWith("2.");
    // A TaskManager whose env.java.opts.all lost the java.nio line: Frazil's writer steps aside,
    // the job runs on Iceberg's writer (chained and with object reuse, because Flink's own Kryo
    // copy of Iceberg's write results needs the same line), and the log says once what is missing
    // and how to fix it.
    File warehouseDir = new File(warehouse, "no-add-opens");
    File log = new File(warehouse, "no-add-opens.log");
    Process process =
        new ProcessBuilder(
                taskManagerJvm(
                    "-cp",
                    System.getProperty("java.class.path"),
                    FallbackProbe.class.getName(),
                    warehouseDir.getAbsolutePath(),
                    "chained"))
            .redirectErrorStream(true)
            .redirectOutput(log)
            .start();
    try {
      assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("the probe finished").isTrue();
    } finally {
      process.destroyForcibly();
    }
    String output = java.nio.file.Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output)
        .contains("rows=500")
        .contains("created_by=parquet-mr")
        .doesNotContain("created_by=frazil")
        .doesNotContain("Memory was leaked")
        .doesNotContain("FATAL");
    assertThat(output.split("append it to env.java.opts.all", -1))
        .as("the warning is logged once: %s", output)
        .hasSize(2);
    assertThat(output)
        .as("a fallback Frazil did not choose is a warning")
        .containsPattern("WARN +\\S+ - Frazil cannot hand Arrow batches to its native encoder");
  }

  @Test
  public void missingNativeLibraryFallsBackWithOneWarning() throws Exception {
    File warehouseDir = new File(warehouse, "fallback");
    // Output to a file, not a pipe: a chatty child must never block on a full pipe buffer.
    File log = new File(warehouse, "fallback.log");
    Process process =
        new ProcessBuilder(
                taskManagerJvm(
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "-Dfrazil.native.path=/nonexistent/libfrazil.so",
                    "-cp",
                    System.getProperty("java.class.path"),
                    FallbackProbe.class.getName(),
                    warehouseDir.getAbsolutePath()))
            .redirectErrorStream(true)
            .redirectOutput(log)
            .start();
    try {
      assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("the probe finished").isTrue();
    } finally {
      process.destroyForcibly(); // stopped on every path, also when it did not finish
    }
    String output = java.nio.file.Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output)
        .contains("rows=500")
        .contains("created_by=parquet-mr")
        .doesNotContain("created_by=frazil");
    assertThat(output.split("native library could not be loaded", -1))
        .as("the warning is logged once: %s", output)
        .hasSize(2);
    assertThat(output)
        .as("a fallback Frazil did not choose is a warning")
        .containsPattern("WARN +\\S+ - Frazil's native library could not be loaded");
  }

  /**
   * A java command line with Flink's own Java 17 opens (what its default env.java.opts.all gives a
   * TaskManager; Flink 1.20's Kryo needs java.util), which never include java.nio, then {@code
   * args}.
   */
  private static List<String> taskManagerJvm(String... args) {
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("java.home") + "/bin/java");
    String opens = System.getProperty("frazil.test.flink.opens", "").trim();
    if (!opens.isEmpty()) {
      command.addAll(Arrays.asList(opens.split("\\s+")));
    }
    command.addAll(Arrays.asList(args));
    return command;
  }
}
