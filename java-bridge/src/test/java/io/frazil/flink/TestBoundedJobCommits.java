package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stock Iceberg 1.11.0 sinks on Flink 2.1.1 (Frazil uninstalled, every data file written by
 * parquet-mr) in a bounded job whose two writer subtasks reach end of input at different times.
 *
 * <p>Every test runs the same deterministic schedule instead of racing periodic checkpoints: the
 * periodic interval is one hour, and the test triggers checkpoints itself. Source subtask 0 emits
 * {@value #EARLY_ROWS} rows and ends at once; source subtask 1 emits {@value #LATE_ROWS_BEFORE}
 * rows, waits until the test releases it, then emits {@value #LATE_ROWS_AFTER} more and ends. "The
 * window" is the time between the two writers' ends of input; a test either completes a checkpoint
 * in it or not. These tests pin the current upstream behaviour; they do not exercise Frazil.
 */
public class TestBoundedJobCommits {
  @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = FlinkJobs.miniCluster();

  static final long EARLY_ROWS = 1_000;
  static final long LATE_ROWS_BEFORE = 2_000;
  static final long LATE_ROWS_AFTER = 3_000;
  static final long TOTAL_ROWS = EARLY_ROWS + LATE_ROWS_BEFORE + LATE_ROWS_AFTER;

  /**
   * No identifier fields: with them FlinkSink would key rows by them, and every writer would read
   * from every source subtask (the safe topology below).
   */
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));

  /** The same columns, {@code id} an identifier field. */
  static final Schema KEYED_SCHEMA = new Schema(SCHEMA.columns(), Set.of(1));

  static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);
  static final String END_INPUT_CHECKPOINT_ID = Long.toString(Long.MAX_VALUE);
  private static final String SOURCE_NAME = "two-pace source";
  private static final long WAIT_MS = 60_000;

  // The MiniCluster runs in this JVM: the job's operators and the test share these.
  static volatile CountDownLatch startEarlySource;
  static volatile CountDownLatch earlyInputEnded;
  static volatile CountDownLatch releaseLateSource;
  static volatile CountDownLatch lateInputEnded;

  private static boolean frazilWasInstalled;

  @TempDir private File warehouse;

  enum Sink {
    FLINK_SINK,
    ICEBERG_SINK
  }

  /** How the writers read the two source subtasks. */
  enum Topology {
    /** Writer i reads source subtask i only (chained): FlinkSink's default without keys. */
    FORWARD,
    /** Every writer reads from every source subtask. */
    REBALANCE,
    /** FlinkSink keys rows by the table's identifier fields (its equality fields by default). */
    IDENTIFIER_FIELDS
  }

  /** What the test does in the window between the two writers' ends of input. */
  enum Window {
    /** Completes one checkpoint. */
    COMPLETED_CHECKPOINT,
    /** Nothing: the next checkpoint comes after both ends of input. */
    NO_CHECKPOINT,
    /** Waits until the early source task is FINISHED, then asks for a checkpoint. */
    CHECKPOINT_AFTER_EARLY_TASK_FINISHED
  }

  @BeforeAll
  public static void stockWritersOnly() {
    frazilWasInstalled = FrazilFlink.isInstalled();
    // Load Flink's file system factories now: Frazil's bootstrap factory among them installs
    // Frazil. Left to the first job, that load would install it mid-test.
    FileSystem.initialize(new Configuration(), null);
    FrazilFlink.uninstall();
    assertThat(FrazilFlink.isInstalled()).isFalse();
  }

  @AfterAll
  public static void restoreFrazil() {
    if (frazilWasInstalled) {
      assertThat(FrazilFlink.install()).isTrue();
    }
  }

  /**
   * Upstream bug (Iceberg 1.11.0 FlinkSink v1, still on Flink 2.1.1): the early writer's last data
   * files are never committed.
   *
   * <p>Code path: {@code IcebergStreamWriter.endInput()} emits its last {@code WriteResult} tagged
   * {@code END_INPUT_CHECKPOINT_ID = Long.MAX_VALUE}. {@code IcebergFilesCommitter.processElement}
   * buffers it in {@code writeResultsSinceLastSnapshot} under that id; the window checkpoint's
   * {@code snapshotState} ({@code writeToManifestUptoLatestCheckpoint}) writes it to a manifest and
   * stores it as {@code dataFilesPerCheckpoint.put(Long.MAX_VALUE, manifest)}; {@code
   * notifyCheckpointComplete(1)} commits only {@code headMap(1, true)}, so it stays pending. The
   * late writer's end of input buffers its own result under {@code Long.MAX_VALUE}, and the
   * committer's {@code endInput()} again calls {@code writeToManifestUptoLatestCheckpoint}, whose
   * {@code dataFilesPerCheckpoint.put(Long.MAX_VALUE, ...)} replaces the early writer's manifest
   * before {@code commitUpToCheckpoint} commits. The early writer's file stays on disk, referenced
   * by no snapshot. Only the committer's {@code snapshotState} between the two ends of input
   * matters: the checkpoint need not complete.
   */
  @Test
  public void
      upstreamBugFlinkSinkLosesTheEarlyWritersLastFilesWhenACheckpointFallsBetweenTheEndsOfInput(
          @InjectMiniCluster MiniCluster cluster) throws Exception {
    Outcome outcome =
        run(
            cluster,
            Sink.FLINK_SINK,
            Window.COMPLETED_CHECKPOINT,
            null,
            "flink_bug",
            Topology.FORWARD);

    assertThat(outcome.windowCheckpoint).isEqualTo("completed 1");
    assertThat(outcome.committedIds)
        .as("every row of the late writer, none of the early writer's")
        .containsExactlyInAnyOrderElementsOf(ids(EARLY_ROWS, TOTAL_ROWS));
    assertThat(outcome.uncommittedRows)
        .as("the early writer's end-of-input file, left on disk and referenced by no snapshot")
        .isEqualTo(EARLY_ROWS);
    assertThat(outcome.uncommittedFiles).isEqualTo(1);
    assertThat(outcome.commits)
        .as("checkpoint 1 commits the late writer's first rows, end of input its last ones")
        .containsExactly("1:" + LATE_ROWS_BEFORE, END_INPUT_CHECKPOINT_ID + ":" + LATE_ROWS_AFTER);
  }

  /** Control: the same job with no checkpoint in the window commits every row once. */
  @Test
  public void flinkSinkCommitsEveryRowWhenNoCheckpointFallsBetweenTheEndsOfInput(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Outcome outcome =
        run(
            cluster,
            Sink.FLINK_SINK,
            Window.NO_CHECKPOINT,
            null,
            "flink_control",
            Topology.FORWARD);

    assertExactlyOnce(outcome);
    assertThat(outcome.commits).containsExactly(END_INPUT_CHECKPOINT_ID + ":" + TOTAL_ROWS);
  }

  /**
   * A safe FlinkSink topology: when every writer reads from every source subtask (rebalance here;
   * likewise keyBy, hash distribution, or one source subtask), no writer ends input before the last
   * source does, and a barrier that follows a writer's end of input follows every writer's.
   */
  @Test
  public void flinkSinkCommitsEveryRowWhenEveryWriterReadsFromEverySourceSubtask(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Outcome outcome =
        run(
            cluster,
            Sink.FLINK_SINK,
            Window.COMPLETED_CHECKPOINT,
            null,
            "flink_rebalance",
            Topology.REBALANCE);

    assertThat(outcome.windowCheckpoint).isEqualTo("completed 1");
    assertExactlyOnce(outcome);
  }

  /** The same safe topology when the table has identifier fields: FlinkSink keys rows by them. */
  @Test
  public void flinkSinkCommitsEveryRowWhenTheTableHasIdentifierFields(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Outcome outcome =
        run(
            cluster,
            Sink.FLINK_SINK,
            Window.COMPLETED_CHECKPOINT,
            null,
            "flink_keyed",
            Topology.IDENTIFIER_FIELDS);

    assertThat(outcome.windowCheckpoint).isEqualTo("completed 1");
    assertExactlyOnce(outcome);
  }

  /**
   * IcebergSink (sink v2) under the schedule that loses rows with FlinkSink: its pre-commit
   * aggregator collects write results regardless of their checkpoint id and emits them all under
   * the next checkpoint, so the early writer's files are committed with checkpoint 1.
   */
  @Test
  public void icebergSinkCommitsEveryRowOnceWhenACheckpointFallsBetweenTheEndsOfInput(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Outcome outcome =
        run(
            cluster,
            Sink.ICEBERG_SINK,
            Window.COMPLETED_CHECKPOINT,
            null,
            "iceberg",
            Topology.FORWARD);

    assertThat(outcome.windowCheckpoint).isEqualTo("completed 1");
    assertExactlyOnce(outcome);
    assertThat(outcome.commits.get(0))
        .as("checkpoint 1 commits the early writer's rows and the late writer's first ones")
        .isEqualTo("1:" + (EARLY_ROWS + LATE_ROWS_BEFORE));
  }

  /**
   * {@code execution.checkpointing.checkpoints-after-tasks-finish: false} refuses every checkpoint
   * once a task has FINISHED, so this schedule commits every FlinkSink row. It does not close the
   * window: a checkpoint already under way when the early writer ends input can still reach the
   * committer before that task finishes (seen in trials), so it is not a safe setting.
   */
  @Test
  public void flinkSinkWithoutCheckpointsAfterTasksFinishRefusesCheckpointsOnceAWriterFinished(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Outcome outcome =
        run(
            cluster,
            Sink.FLINK_SINK,
            Window.CHECKPOINT_AFTER_EARLY_TASK_FINISHED,
            false,
            "flink_no_final",
            Topology.FORWARD);

    assertThat(outcome.windowCheckpoint)
        .contains("checkpointing with finished tasks is not enabled");
    assertExactlyOnce(outcome);
  }

  /**
   * Upstream behaviour, not a safe setting: with {@code checkpoints-after-tasks-finish: false} the
   * sink v2 {@code CommitterOperator} commits only on completed checkpoints (its {@code endInput}
   * commits only without checkpointing or in batch mode), and no checkpoint completes once a task
   * has finished, so IcebergSink commits nothing written after the last checkpoint before the first
   * task finished; here, nothing at all.
   */
  @Test
  public void icebergSinkWithoutCheckpointsAfterTasksFinishCommitsNothingAfterTheFirstTaskFinished(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Outcome outcome =
        run(
            cluster,
            Sink.ICEBERG_SINK,
            Window.CHECKPOINT_AFTER_EARLY_TASK_FINISHED,
            false,
            "iceberg_no_final",
            Topology.FORWARD);

    assertThat(outcome.windowCheckpoint)
        .contains("checkpointing with finished tasks is not enabled");
    assertThat(outcome.committedIds).isEmpty();
    assertThat(outcome.commits).isEmpty();
    assertThat(outcome.uncommittedRows).isEqualTo(TOTAL_ROWS);
  }

  private static void assertExactlyOnce(Outcome outcome) {
    assertThat(outcome.committedIds).containsExactlyInAnyOrderElementsOf(ids(0, TOTAL_ROWS));
    assertThat(outcome.uncommittedFiles).as("data files referenced by no snapshot").isZero();
  }

  private static List<Long> ids(long from, long to) {
    return LongStream.range(from, to).boxed().collect(Collectors.toList());
  }

  /** What one scheduled job left in its table. */
  private static final class Outcome {
    String windowCheckpoint;
    List<Long> committedIds;

    /** {@code max-committed-checkpoint-id:added-records} of every snapshot, oldest first. */
    List<String> commits;

    long uncommittedFiles;
    long uncommittedRows;
  }

  private Outcome run(
      MiniCluster cluster,
      Sink sink,
      Window window,
      Boolean checkpointsAfterTasksFinish,
      String tableName,
      Topology topology)
      throws Exception {
    startEarlySource = new CountDownLatch(1);
    earlyInputEnded = new CountDownLatch(1);
    releaseLateSource = new CountDownLatch(1);
    lateInputEnded = new CountDownLatch(1);
    FrazilFlink.uninstall();
    Table table =
        FlinkJobs.catalog(warehouse)
            .createTable(
                TableIdentifier.of(FlinkJobs.DATABASE, tableName),
                topology == Topology.IDENTIFIER_FIELDS ? KEYED_SCHEMA : SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2", FrazilFlink.TABLE_PROPERTY, "false"));

    Configuration conf = new Configuration();
    // Periodic checkpoints effectively off (the first would come after an hour): the test
    // triggers every checkpoint of the job itself.
    conf.setString("execution.checkpointing.interval", "1h");
    conf.setString("execution.checkpointing.min-pause", "1h");
    conf.setString("restart-strategy.type", "none");
    if (checkpointsAfterTasksFinish != null) {
      conf.setString(
          "execution.checkpointing.checkpoints-after-tasks-finish",
          checkpointsAfterTasksFinish.toString());
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.configure(conf);
    env.setParallelism(2);
    DataStream<Long> numbers = env.addSource(new TwoPaceSource(), SOURCE_NAME).setParallelism(2);
    DataStream<RowData> rows =
        numbers
            .transform("rows", InternalTypeInfo.of(ROW_TYPE), new ToRowMarkingEnd())
            .setParallelism(2);
    if (topology == Topology.REBALANCE) {
      rows = rows.rebalance();
    }
    if (sink == Sink.FLINK_SINK) {
      FlinkSink.forRowData(rows)
          .tableLoader(FlinkJobs.tableLoader(warehouse, tableName))
          .writeParallelism(2)
          .append();
    } else {
      IcebergSink.forRowData(rows)
          .tableLoader(FlinkJobs.tableLoader(warehouse, tableName))
          .writeParallelism(2)
          .append();
    }

    JobClient client = env.executeAsync("bounded job commits " + tableName);
    JobID job = client.getJobID();
    awaitTaskStates(cluster, job, "RUNNING");
    startEarlySource.countDown();
    await(earlyInputEnded, "the early source's end of input");

    Outcome outcome = new Outcome();
    outcome.windowCheckpoint = "none";
    switch (window) {
      case COMPLETED_CHECKPOINT:
        outcome.windowCheckpoint = Checkpoints.triggerUntilCompleted(cluster, job, WAIT_MS);
        break;
      case CHECKPOINT_AFTER_EARLY_TASK_FINISHED:
        awaitTaskStates(cluster, job, "FINISHED");
        outcome.windowCheckpoint = Checkpoints.trigger(cluster, job, WAIT_MS);
        break;
      default:
        break;
    }
    releaseLateSource.countDown();
    await(lateInputEnded, "the late source's end of input");
    // Both ends of input are behind us: final checkpoints until the job finishes (refused ones,
    // e.g. without checkpoints after tasks finish, are harmless).
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (true) {
      JobStatus status = client.getJobStatus().get();
      if (status == JobStatus.FINISHED) {
        break;
      }
      assertThat(status.isGloballyTerminalState()).as("job state " + status).isFalse();
      assertThat(System.currentTimeMillis()).as("job finished in time").isLessThan(deadline);
      // Short waits: a trigger issued while the job is finishing may never be answered.
      if (Checkpoints.trigger(cluster, job, 5_000).startsWith("completed")) {
        long settle = System.currentTimeMillis() + 1_000;
        while (System.currentTimeMillis() < settle
            && client.getJobStatus().get() != JobStatus.FINISHED) {
          Thread.sleep(20);
        }
      } else {
        Thread.sleep(50);
      }
    }
    assertThat(FrazilFlink.isInstalled()).as("Frazil stayed out of the job").isFalse();
    table.refresh();
    outcome.committedIds =
        FlinkJobs.read(table).stream()
            .map(r -> (Long) r.getField("id"))
            .collect(Collectors.toList());
    outcome.commits = Lists.newArrayList();
    List<Snapshot> snapshots = Lists.newArrayList(table.snapshots());
    for (Snapshot snapshot : snapshots) {
      outcome.commits.add(
          snapshot.summary().get("flink.max-committed-checkpoint-id")
              + ":"
              + snapshot.summary().get("added-records"));
    }
    Set<String> committed =
        FlinkJobs.files(table).dataFiles.stream()
            .map(DataFile::location)
            .map(l -> new File(l.replaceFirst("^file:", "")).getName())
            .collect(Collectors.toSet());
    for (Path file : dataFilesOnDisk(tableName)) {
      assertThat(FlinkJobs.createdBy(file.toString()))
          .as("stock writer for " + file)
          .startsWith("parquet-mr");
      if (!committed.contains(file.getFileName().toString())) {
        outcome.uncommittedFiles++;
        outcome.uncommittedRows += recordCount(file);
      }
    }
    return outcome;
  }

  private List<Path> dataFilesOnDisk(String tableName) throws IOException {
    Path data = warehouse.toPath().resolve(FlinkJobs.DATABASE).resolve(tableName).resolve("data");
    if (!Files.exists(data)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".parquet"))
          .collect(Collectors.toList());
    }
  }

  private static long recordCount(Path file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toString()),
                new org.apache.hadoop.conf.Configuration()))) {
      return reader.getRecordCount();
    }
  }

  private static void await(CountDownLatch latch, String what) throws InterruptedException {
    assertThat(latch.await(WAIT_MS, TimeUnit.MILLISECONDS)).as(what).isTrue();
  }

  /** Every task RUNNING, except source subtask 0, which must be in {@code earlySource}. */
  private static void awaitTaskStates(MiniCluster cluster, JobID job, String earlySource)
      throws Exception {
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (true) {
      List<String> wrong = Lists.newArrayList();
      int tasks = 0;
      for (AccessExecutionVertex vertex :
          cluster.getExecutionGraph(job).get().getAllExecutionVertices()) {
        tasks++;
        boolean early =
            vertex.getTaskNameWithSubtaskIndex().startsWith("Source: " + SOURCE_NAME)
                && vertex.getParallelSubtaskIndex() == 0;
        String expected = early ? earlySource : "RUNNING";
        if (!vertex.getExecutionState().name().equals(expected)) {
          wrong.add(vertex.getTaskNameWithSubtaskIndex() + "=" + vertex.getExecutionState());
        }
      }
      if (tasks > 0 && wrong.isEmpty()) {
        return;
      }
      assertThat(System.currentTimeMillis())
          .as("task states in time; still " + wrong)
          .isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /**
   * Subtask 0 emits rows 0..EARLY_ROWS-1 once the test starts it, and ends; subtask 1 emits the
   * next LATE_ROWS_BEFORE rows, waits for the test, emits LATE_ROWS_AFTER more and ends. Rows go
   * out under the checkpoint lock, so no checkpoint splits a batch.
   */
  static final class TwoPaceSource extends LegacyParallelSource<Long> {
    private volatile boolean running = true;

    @Override
    public void run(SourceContext<Long> ctx) throws Exception {
      if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
        awaitOrFail(startEarlySource);
        emit(ctx, 0, EARLY_ROWS);
        return;
      }
      emit(ctx, EARLY_ROWS, EARLY_ROWS + LATE_ROWS_BEFORE);
      awaitOrFail(releaseLateSource);
      emit(ctx, EARLY_ROWS + LATE_ROWS_BEFORE, TOTAL_ROWS);
    }

    private void awaitOrFail(CountDownLatch latch) throws InterruptedException {
      long deadline = System.currentTimeMillis() + WAIT_MS;
      while (running && !latch.await(10, TimeUnit.MILLISECONDS)) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("the test did not release this source in time");
        }
      }
    }

    private static void emit(SourceContext<Long> ctx, long from, long to) {
      synchronized (ctx.getCheckpointLock()) {
        for (long id = from; id < to; id += 1) {
          ctx.collect(id);
        }
      }
    }

    @Override
    public void cancel() {
      running = false;
    }
  }

  /**
   * Long to row. Its end of input marks the subtask's: with FlinkSink the writer is chained after
   * it and ends input in the same mailbox action, before any checkpoint the test triggers later;
   * IcebergSink's writer is not chained to a legacy source, and gets end of data on the channel
   * before any later barrier.
   */
  static final class ToRowMarkingEnd extends AbstractStreamOperator<RowData>
      implements OneInputStreamOperator<Long, RowData>, BoundedOneInput {
    @Override
    public void processElement(StreamRecord<Long> element) {
      long id = element.getValue();
      output.collect(element.replace(GenericRowData.of(id, StringData.fromString("row-" + id))));
    }

    @Override
    public void endInput() {
      if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
        earlyInputEnded.countDown();
      } else {
        lateInputEnded.countDown();
      }
    }
  }
}
