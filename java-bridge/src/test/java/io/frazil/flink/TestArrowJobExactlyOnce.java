package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.FrazilParquetAppender;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Arrow job end to end ({@link ArrowJob}): rows become Arrow batches, cross a rebalance and a
 * keyed exchange as {@link ArrowBatch}es (ArrowBatchSerializer), become rows again and are
 * committed by Iceberg's IcebergSink, files written by Frazil. Each case compares every committed
 * row, all columns, with the expected rows (exactly once: same sorted list, no more, no fewer), and
 * checks that Arrow memory returns.
 */
public class TestArrowJobExactlyOnce {
  private static final long ROWS = 30_000;
  private static final long HELD_ROWS = 1_000;

  @RegisterExtension
  static final FrazilMiniCluster CLUSTER =
      FrazilMiniCluster.installedLikeACluster(checkpointHistory());

  @TempDir private File warehouse;
  @TempDir private File savepoints;

  private long releasedUnclosedBefore;

  /**
   * Flink 1.20.1 and 2.0.0 take only aligned checkpoints of any job with a Sink V2 that has a
   * committer, such as IcebergSink: FLINK-37870 (fixed in 2.1). Their {@code
   * SinkTransformationTranslator} means to disable unaligned checkpoints between the sink's writer
   * and committer, but seeds its visited set with {@code new HashSet<>(writer.getId())} (a
   * capacity, not the id), so its walk passes the writer and disables them on every exchange
   * upstream too. The in-flight cases therefore run on Flink 2.1 and later.
   */
  private static void assumeUnalignedCheckpointsInThisMiniCluster() {
    String version = EnvironmentInformation.getVersion();
    Assumptions.assumeFalse(
        version.startsWith("1.") || version.startsWith("2.0."),
        "in-flight cases: Flink "
            + version
            + "'s MiniCluster took only aligned checkpoints of"
            + " this job");
  }

  /** Keeps every checkpoint's statistics of a job, for the persisted in-flight data check. */
  private static Configuration checkpointHistory() {
    Configuration conf = new Configuration();
    conf.setString("web.checkpoints.history", "1000");
    return conf;
  }

  @BeforeEach
  public void resetJobState() throws InterruptedException {
    ArrowJobRows.PacedRows.reset();
    ArrowJob.ExchangedBatches.reset();
    ArrowJob.KeyedBatches.microsPerRow = 0;
    // Batches an earlier failed job dropped are released by the cleaner; wait for them, so that
    // what this test counts is its own.
    ArrowJob.awaitArrowMemoryReturned();
    releasedUnclosedBefore = ArrowBatch.releasedUnclosed();
  }

  @Test
  public void alignedCheckpointsCommitEveryRowOnce() throws Exception {
    Table table = createTable("aligned");
    ArrowJobRows.PacedRows.everyRowNanos = 100_000;
    Configuration conf = checkpointing(100);
    conf.set(PipelineOptions.OBJECT_REUSE, true);
    StreamExecutionEnvironment env = env(conf, 2);
    ArrowJob.build(env, warehouse, "aligned", ROWS);
    ArrowJob.assertBatchesCrossTheNetwork(env);
    long sliced = FrazilParquetAppender.slicedRows();

    run(env, "aligned");

    assertExactlyOnce(table);
    // Object reuse on: the sink's rows reach the appender as they were emitted, rows of a batch.
    assertThat(FrazilParquetAppender.slicedRows() - sliced)
        .as("rows handed to the native writer as slices of their batch")
        .isEqualTo(ROWS);
    assertThat(ArrowJob.ExchangedBatches.BATCHES.get())
        .as("batches across the rebalance")
        .isGreaterThanOrEqualTo(ROWS / ArrowJob.BATCH_ROWS);
    assertThat(ArrowJob.ExchangedBatches.COMPLETED_CHECKPOINTS.get())
        .as("checkpoints completed while the job ran")
        .isGreaterThanOrEqualTo(2);
    ArrowJob.awaitArrowMemoryReturned();
    assertThat(ArrowBatch.releasedUnclosed() - releasedUnclosedBefore)
        .as("batches left to the cleaner: every stage closed what it held")
        .isZero();
  }

  @Test
  public void unalignedCheckpointsPersistInFlightBatchesAndCommitEveryRowOnce(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    assumeUnalignedCheckpointsInThisMiniCluster();
    Table table = createTable("unaligned");
    // A slow consumer after the keyed exchange: batches queue up in the exchanges, and each
    // checkpoint barrier overtakes them, which the checkpoint persists. The sources stay open
    // (see holdSourcesOpen) until the test has seen such a checkpoint complete.
    ArrowJob.KeyedBatches.microsPerRow = 100;
    holdSourcesOpen();
    StreamExecutionEnvironment env = env(unaligned(), 2);
    ArrowJob.build(env, warehouse, "unaligned", ROWS);
    ArrowJob.assertBatchesCrossTheNetwork(env);
    long sliced = FrazilParquetAppender.slicedRows();

    JobClient job = env.executeAsync("unaligned");
    try {
      awaitInFlightCheckpoints(cluster, job, 1);
    } finally {
      releaseSources();
    }
    finish(job, "unaligned");

    assertExactlyOnce(table);
    // Object reuse off: Flink's copying chain hands the sink's rows on uncopied (SinkRowsTypeInfo).
    assertThat(FrazilParquetAppender.slicedRows() - sliced)
        .as("rows handed to the native writer as slices of their batch")
        .isEqualTo(ROWS);
    long persisted =
        ArrowJob.persistedInFlightBytes(
            cluster.getArchivedExecutionGraph(job.getJobID()).get(30, TimeUnit.SECONDS),
            ArrowJob.KEYED);
    assertThat(persisted)
        .as(
            "in-flight bytes the keyed-batch subtasks' checkpoints persisted (their input: batches)")
        .isPositive();
    ArrowJob.awaitArrowMemoryReturned();
    assertThat(ArrowBatch.releasedUnclosed() - releasedUnclosedBefore)
        .as("object reuse off: copies and originals all closed by the stages")
        .isZero();
  }

  @Test
  public void aFailureAfterCheckpointsRestoresInFlightBatchesAndCommitsEveryRowOnce(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    assumeUnalignedCheckpointsInThisMiniCluster();
    Table table = createTable("failover");
    // Backpressured as in the unaligned case; the failure comes once a checkpoint with batches in
    // flight has completed, so the restart restores batches into the exchanges.
    ArrowJob.KeyedBatches.microsPerRow = 100;
    holdSourcesOpen();
    StreamExecutionEnvironment env = env(unaligned(), 2);
    ArrowJob.build(env, warehouse, "failover", ROWS);

    JobClient job = env.executeAsync("failover");
    try {
      awaitInFlightCheckpoints(cluster, job, 1);
      ArrowJob.ExchangedBatches.failNow = true;
      awaitCondition(ArrowJob.ExchangedBatches.FAILED::get, "the injected failure");
    } finally {
      releaseSources();
    }
    finish(job, "failover");

    assertThat(ArrowJob.ExchangedBatches.FAILED.get()).as("the injected failure ran").isTrue();
    assertExactlyOnce(table);
    assertThat(
            ArrowJob.restoredInFlightBytes(
                cluster.getArchivedExecutionGraph(job.getJobID()).get(30, TimeUnit.SECONDS)))
        .as("in-flight bytes of the checkpoint the restart restored")
        .isPositive();
    ArrowJob.awaitArrowMemoryReturned();
  }

  @Test
  public void savepointsRescaleTwoToFourToTwoAndCommitEveryRowOnce(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    Table table = createTable("rescale");
    ArrowJobRows.PacedRows.slowMillis = 2;

    ArrowJobRows.PacedRows.slowAfter = ROWS / 4;
    String first = runUntilSavepoint(cluster, null, 2, "rescale p2");
    long afterFirst = committedRows(table);
    assertThat(afterFirst).as("rows committed by the first savepoint").isPositive();

    ArrowJobRows.PacedRows.slowAfter = ROWS / 2;
    String second = runUntilSavepoint(cluster, first, 4, "rescale p4");
    assertThat(committedRows(table))
        .as("rows committed at parallelism 4")
        .isGreaterThan(afterFirst);

    ArrowJobRows.PacedRows.slowAfter = Long.MAX_VALUE;
    Configuration conf = checkpointing(100);
    conf.set(StateRecoveryOptions.SAVEPOINT_PATH, second);
    StreamExecutionEnvironment env = env(conf, 2);
    ArrowJob.build(env, warehouse, "rescale", ROWS);
    run(env, "rescale p2 again");

    assertExactlyOnce(table);
    assertThat(ArrowJob.ExchangedBatches.PARALLELISMS).containsExactlyInAnyOrder(2, 4);
    ArrowJob.awaitArrowMemoryReturned();
    assertThat(ArrowBatch.releasedUnclosed() - releasedUnclosedBefore).isZero();
  }

  @Test
  public void anUnalignedCheckpointWithBatchesInFlightRestoresAtParallelismFour(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    assumeUnalignedCheckpointsInThisMiniCluster();
    Table table = createTable("rescale_unaligned");
    ArrowJob.KeyedBatches.microsPerRow = 100;
    holdSourcesOpen();
    Configuration conf = unaligned();
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, savepoints.toURI().toString());
    conf.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    StreamExecutionEnvironment env = env(conf, 2);
    ArrowJob.build(env, warehouse, "rescale_unaligned", ROWS);
    JobClient first = env.executeAsync("unaligned p2");
    CompletedCheckpointStats checkpoint;
    try {
      awaitInFlightCheckpoints(cluster, first, 2);
    } finally {
      if (!isTerminal(cluster, first)) {
        first.cancel().get(30, TimeUnit.SECONDS);
      }
      awaitCondition(() -> isTerminal(cluster, first), "the cancelled job to end");
    }
    checkpoint =
        (CompletedCheckpointStats)
            cluster
                .getArchivedExecutionGraph(first.getJobID())
                .get(30, TimeUnit.SECONDS)
                .getCheckpointStatsSnapshot()
                .getHistory()
                .getLatestCompletedCheckpoint();
    assertThat(checkpoint.getPersistedData())
        .as("in-flight bytes of the retained checkpoint")
        .isPositive();

    ArrowJob.KeyedBatches.microsPerRow = 0;
    releaseSources();
    Configuration restore = checkpointing(100);
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, checkpoint.getExternalPath());
    StreamExecutionEnvironment restored = env(restore, 4);
    ArrowJob.build(restored, warehouse, "rescale_unaligned", ROWS);
    JobClient second = run(restored, "unaligned restored at p4");

    assertExactlyOnce(table);
    assertThat(ArrowJob.ExchangedBatches.PARALLELISMS).containsExactlyInAnyOrder(2, 4);
    assertThat(
            cluster
                .getArchivedExecutionGraph(second.getJobID())
                .get(30, TimeUnit.SECONDS)
                .getCheckpointStatsSnapshot()
                .getLatestRestoredCheckpoint()
                .getCheckpointId())
        .as("the checkpoint the p4 job restored")
        .isEqualTo(checkpoint.getCheckpointId());
    ArrowJob.awaitArrowMemoryReturned();
  }

  /**
   * The last {@value #HELD_ROWS} rows (over all source subtasks) come one per 20 ms until {@link
   * #releaseSources}: the job cannot end before the test has seen the checkpoint it waits for.
   */
  private static void holdSourcesOpen() {
    ArrowJobRows.PacedRows.slowAfter = ROWS - HELD_ROWS;
    ArrowJobRows.PacedRows.slowMillis = 20;
  }

  private static void releaseSources() {
    ArrowJobRows.PacedRows.slowMillis = 0;
  }

  /**
   * Waits until {@code count} completed checkpoints of the running job persisted in-flight data.
   */
  private static void awaitInFlightCheckpoints(MiniCluster cluster, JobClient job, int count)
      throws InterruptedException {
    awaitCondition(
        () -> {
          if (isTerminal(cluster, job)) {
            throw new AssertionError("The job ended before a checkpoint held batches in flight");
          }
          return completedWithInFlightData(cluster, job) >= count;
        },
        count + " checkpoints with batches in flight");
  }

  private static long completedWithInFlightData(MiniCluster cluster, JobClient job) {
    try {
      return cluster
          .getExecutionGraph(job.getJobID())
          .get(10, TimeUnit.SECONDS)
          .getCheckpointStatsSnapshot()
          .getHistory()
          .getCheckpoints()
          .stream()
          .filter(c -> c instanceof CompletedCheckpointStats && c.getPersistedData() > 0)
          .count();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read the checkpoints of " + job.getJobID(), e);
    }
  }

  private static boolean isTerminal(MiniCluster cluster, JobClient job) {
    try {
      return cluster.getJobStatus(job.getJobID()).get(10, TimeUnit.SECONDS).isTerminalState();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read the status of " + job.getJobID(), e);
    }
  }

  /**
   * Runs the job at {@code parallelism} (from {@code savepoint} if set) until it has mapped {@code
   * PacedRows.slowAfter} rows and is crawling, then stops it with a savepoint. A savepoint needs
   * every task running (restored tasks start one by one), so the test waits for that too.
   */
  private String runUntilSavepoint(
      MiniCluster cluster, String savepoint, int parallelism, String name) throws Exception {
    Configuration conf = checkpointing(100);
    if (savepoint != null) {
      conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    }
    StreamExecutionEnvironment env = env(conf, parallelism);
    ArrowJob.build(env, warehouse, "rescale", ROWS);
    JobClient job = env.executeAsync(name);
    try {
      long target = ArrowJobRows.PacedRows.slowAfter;
      awaitCondition(() -> ArrowJobRows.PacedRows.MAPPED.get() > target, name + " mid-stream");
      awaitCondition(() -> allTasksRunning(cluster, job), name + " tasks running");
      return job.stopWithSavepoint(
              false, savepoints.toURI().toString(), SavepointFormatType.CANONICAL)
          .get(60, TimeUnit.SECONDS);
    } catch (Exception | AssertionError e) {
      job.cancel().get(30, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** Every task of the job is running or, like a source subtask without a split, finished. */
  private static boolean allTasksRunning(MiniCluster cluster, JobClient job) {
    try {
      for (AccessExecutionVertex vertex :
          cluster
              .getExecutionGraph(job.getJobID())
              .get(10, TimeUnit.SECONDS)
              .getAllExecutionVertices()) {
        ExecutionState state = vertex.getExecutionState();
        if (state != ExecutionState.RUNNING && state != ExecutionState.FINISHED) {
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read the state of " + job.getJobID(), e);
    }
  }

  private Table createTable(String name) {
    return JobTables.createTable(
        warehouse, name, ArrowJobRows.SCHEMA, JobTables.Partitioning.UNPARTITIONED, 2, Map.of());
  }

  /** Unaligned from the first barrier on (no aligned phase first). */
  private static Configuration unaligned() {
    Configuration conf = checkpointing(100);
    conf.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
    conf.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);
    return conf;
  }

  private static Configuration checkpointing(long intervalMillis) {
    Configuration conf = new Configuration();
    // Typed options: some keys differ between Flink 1.20 and 2.x (unaligned.enabled, say).
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(intervalMillis));
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    return conf;
  }

  private static StreamExecutionEnvironment env(Configuration conf, int parallelism) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    // Applies conf to the checkpoint and execution configs explicitly, the same on every Flink
    // line.
    env.configure(conf);
    env.setParallelism(parallelism);
    return env;
  }

  /** Runs the job to its end, bounded in time. */
  private static JobClient run(StreamExecutionEnvironment env, String name) throws Exception {
    return finish(env.executeAsync(name), name);
  }

  /** Waits for the job's end, bounded in time. */
  private static JobClient finish(JobClient job, String name) throws Exception {
    try {
      job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      job.cancel().get(30, TimeUnit.SECONDS);
      throw new AssertionError(name + " did not finish in 180 s", e);
    }
    return job;
  }

  private static void awaitCondition(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  private static long committedRows(Table table) {
    table.refresh();
    return table.currentSnapshot() == null
        ? 0
        : Long.parseLong(table.currentSnapshot().summary().getOrDefault("total-records", "0"));
  }

  /** Every row once, every column as written, every data file Frazil's. */
  private static void assertExactlyOnce(Table table) throws Exception {
    assertThat(ArrowJobRows.committed(table))
        .as("committed rows, all columns, sorted")
        .hasSize((int) ROWS)
        .isEqualTo(ArrowJobRows.expected(ROWS));
    FlinkJobs.Files files = FlinkJobs.files(table);
    assertThat(files.dataFiles).isNotEmpty();
    for (DataFile file : files.dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location())).startsWith("frazil version ");
    }
  }
}
