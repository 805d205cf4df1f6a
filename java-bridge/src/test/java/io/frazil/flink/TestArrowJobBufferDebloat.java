package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.FrazilParquetAppender;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Arrow job of {@link TestArrowJobExactlyOnce} on TaskManagers with Flink's buffer debloating
 * on: network buffers start at 256 bytes (the smallest Flink allows, and the debloater's floor) and
 * are resized every 50 ms toward a 5 ms target while a slow keyed step backpressures the exchanges,
 * so every serialized batch (tens of KB) spans many buffers of changing sizes. A failure is
 * injected after two completed checkpoints; the table must hold every row once, every column as
 * written, in Frazil's files, and every batch must be released by the stages.
 */
public class TestArrowJobBufferDebloat {
  private static final long ROWS = 30_000;

  @RegisterExtension
  static final FrazilMiniCluster CLUSTER = FrazilMiniCluster.installedLikeACluster(debloating());

  @TempDir private File warehouse;

  /**
   * TaskManager options (read when the TaskManager starts), set by key: the starting segment size
   * exists from Flink 2.0 on, and an unknown key is ignored.
   */
  private static Configuration debloating() {
    Configuration conf = new Configuration();
    conf.setString("taskmanager.network.memory.buffer-debloat.enabled", "true");
    conf.setString("taskmanager.memory.min-segment-size", "256b");
    conf.setString("taskmanager.memory.starting-segment-size", "256b");
    conf.setString("taskmanager.network.memory.buffer-debloat.target", "5ms");
    conf.setString("taskmanager.network.memory.buffer-debloat.period", "50ms");
    // Reads the input gates' current buffer sizes while the job runs.
    conf.setString(
        "metrics.reporter.debloat.factory.class", BufferSizeProbe.Factory.class.getName());
    return conf;
  }

  @BeforeEach
  public void resetJobState() throws InterruptedException {
    ArrowJobRows.PacedRows.reset();
    ArrowJob.ExchangedBatches.reset();
    ArrowJob.KeyedBatches.microsPerRow = 0;
    ArrowJob.awaitArrowMemoryReturned();
  }

  @Test
  public void debloatedBuffersCarryBatchesExactlyOnceThroughAFailure() throws Exception {
    Table table =
        JobTables.createTable(
            warehouse,
            "debloat",
            ArrowJobRows.SCHEMA,
            JobTables.Partitioning.UNPARTITIONED,
            2,
            Map.of());
    ArrowJobRows.PacedRows.everyRowNanos = 100_000;
    ArrowJob.KeyedBatches.microsPerRow = 20;
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.configure(conf);
    env.setParallelism(2);
    ArrowJob.build(env, warehouse, "debloat", ROWS);
    ArrowJob.assertBatchesCrossTheNetwork(env);
    long sliced = FrazilParquetAppender.slicedRows();

    BufferSizeProbe.reset();
    JobClient job = env.executeAsync("buffer debloating");
    try {
      await(() -> ArrowJob.ExchangedBatches.COMPLETED_CHECKPOINTS.get() >= 2, "two checkpoints");
      BufferSizeProbe.sample();
      ArrowJob.ExchangedBatches.failNow = true;
      await(ArrowJob.ExchangedBatches.FAILED::get, "the injected failure");
      job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      job.cancel().get(30, TimeUnit.SECONDS);
      throw new AssertionError("the job did not finish in 180 s", e);
    }

    assertThat(ArrowJob.ExchangedBatches.FAILED.get()).as("the injected failure ran").isTrue();
    assertThat(BufferSizeProbe.smallestSeen())
        .as("an input gate's buffer size while batches flowed (the default segment: 32 KB)")
        .isPositive()
        .isLessThan(32 * 1024);
    assertThat(ArrowJobRows.committed(table))
        .as("committed rows, all columns, sorted")
        .isEqualTo(ArrowJobRows.expected(ROWS));
    FlinkJobs.Files files = FlinkJobs.files(table);
    assertThat(files.dataFiles).isNotEmpty();
    for (DataFile file : files.dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location())).startsWith("frazil version ");
    }
    // Object reuse off: the sink's rows still reach the appender as rows of their batch.
    assertThat(FrazilParquetAppender.slicedRows() - sliced)
        .as("rows sliced, replayed rows included")
        .isGreaterThanOrEqualTo(ROWS);
    ArrowJob.awaitArrowMemoryReturned();
    FlinkJobs.assertNothingLeaked();
    assertThat(ArrowBatch.liveBatches()).as("batches alive after the job").isZero();
  }

  /**
   * A metric reporter that keeps the input gates' {@code debloatedBufferSize} gauges (the buffer
   * size the debloater set), so the test can read them while the job runs. Flink finds its factory
   * through {@code META-INF/services} (test resources).
   */
  public static final class BufferSizeProbe implements MetricReporter {
    private static final List<Gauge<?>> GAUGES = new CopyOnWriteArrayList<>();
    private static final AtomicInteger SMALLEST = new AtomicInteger(Integer.MAX_VALUE);

    static void reset() {
      GAUGES.clear();
      SMALLEST.set(Integer.MAX_VALUE);
    }

    /** Reads every gauge registered so far. */
    static void sample() {
      for (Gauge<?> gauge : GAUGES) {
        Object value = gauge.getValue();
        if (value instanceof Number && ((Number) value).intValue() > 0) {
          SMALLEST.accumulateAndGet(((Number) value).intValue(), Math::min);
        }
      }
    }

    /** The smallest buffer size read, or 0 when no gauge was registered or read. */
    static int smallestSeen() {
      int smallest = SMALLEST.get();
      return smallest == Integer.MAX_VALUE ? 0 : smallest;
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
      if (name.toLowerCase(java.util.Locale.ROOT).contains("buffer")) {
        System.err.println(
            "PROBE metric "
                + name
                + " "
                + metric.getClass().getSimpleName()
                + " "
                + group.getMetricIdentifier(name));
      }
      if ("debloatedBufferSize".equals(name) && metric instanceof Gauge) {
        GAUGES.add((Gauge<?>) metric);
      }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    /** Flink creates the reporter from its configuration, by this factory's class name. */
    public static final class Factory implements MetricReporterFactory {
      @Override
      public MetricReporter createMetricReporter(Properties properties) {
        return new BufferSizeProbe();
      }
    }
  }

  private static void await(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
