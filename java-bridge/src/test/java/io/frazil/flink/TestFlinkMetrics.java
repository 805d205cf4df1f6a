package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.flink.metrics.FrazilMetrics;
import io.frazil.iceberg.MemoryBudget;
import io.frazil.read.ReadCounters;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.InjectClusterRESTAddress;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.flink.source.StreamingStartingStrategy;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frazil's metrics, read back through Flink's REST API while the writing (or reading) job still
 * runs, equal the committed table's facts: per writer or source task (summed over subtasks) and per
 * TaskManager.
 */
public class TestFlinkMetrics {
  private static final Duration TIME_LIMIT = Duration.ofSeconds(90);
  private static final long ROWS = 5000;
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final FrazilMiniCluster MINI_CLUSTER =
      FrazilMiniCluster.installedLikeACluster(restConfiguration());

  private final HttpClient http = HttpClient.newHttpClient();

  @TempDir private File warehouse;

  private static Configuration restConfiguration() {
    Configuration conf = new Configuration();
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofMillis(300));
    return conf;
  }

  @Test
  public void nativeFilesRowsBytesAndEncodeTimeEqualTheCommittedTable(
      @InjectClusterRESTAddress URI rest) throws Exception {
    Table table =
        FlinkJobs.createTable(warehouse, "native", JobTables.Partitioning.IDENTITY, 2, Map.of());
    JobClient job = startJob("native");
    try {
      Table committed = awaitCommitted(table);
      List<DataFile> files = List.copyOf(FlinkJobs.files(committed).dataFiles);
      long rows = files.stream().mapToLong(DataFile::recordCount).sum();
      long bytes = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
      assertThat(rows).isEqualTo(ROWS);
      assertThat(files.size()).as("identity partitions").isGreaterThan(1);

      String files_ = metric(FrazilMetrics.NATIVE_DATA_FILES);
      String rows_ = metric(FrazilMetrics.NATIVE_ROWS);
      String bytes_ = metric(FrazilMetrics.NATIVE_BYTES);
      String nanos_ = metric(FrazilMetrics.NATIVE_ENCODE_NANOS);
      String stock_ = metric(FrazilMetrics.STOCK_DATA_FILES);
      Map<String, Double> task =
          awaitTaskMetrics(
              rest,
              job,
              List.of(files_, rows_, bytes_, nanos_, stock_),
              m -> m.getOrDefault(files_, 0.0) >= files.size());
      assertThat(task.get(files_)).isEqualTo((double) files.size());
      assertThat(task.get(rows_)).isEqualTo((double) rows);
      assertThat(task.get(bytes_)).isEqualTo((double) bytes);
      assertThat(task.get(nanos_)).isPositive();
      assertThat(task.get(stock_)).isZero();

      // Per TaskManager: the process totals (which other test classes in this JVM add to).
      String memory_ = metric(FrazilMetrics.NATIVE_MEMORY_BYTES);
      String pressure_ = metric(FrazilMetrics.MEMORY_PRESSURE);
      String episodes_ = metric(FrazilMetrics.MEMORY_PRESSURE_EPISODES);
      Map<String, Double> taskManager =
          awaitTaskManagerMetrics(
              rest,
              List.of(files_, rows_, nanos_, memory_, pressure_, episodes_),
              m -> m.getOrDefault(files_, -1.0) == FrazilFlink.nativeDataFiles());
      assertThat(taskManager.get(files_)).isGreaterThanOrEqualTo((double) files.size());
      assertThat(taskManager.get(rows_)).isGreaterThanOrEqualTo((double) rows);
      assertThat(taskManager.get(nanos_)).isPositive();
      assertThat(taskManager.get(memory_)).isGreaterThanOrEqualTo(0.0);
      // This job's few files stay far below the default budget (a quarter of the heap).
      assertThat(taskManager.get(pressure_)).isZero();
      assertThat(taskManager.get(episodes_)).isEqualTo((double) MemoryBudget.pressureEpisodes());
    } finally {
      cancel(job);
    }
  }

  @Test
  public void filesLeftToIcebergAreCountedWithTheirReason(@InjectClusterRESTAddress URI rest)
      throws Exception {
    Table table =
        FlinkJobs.createTable(
            warehouse,
            "stock",
            JobTables.Partitioning.UNPARTITIONED,
            2,
            Map.of(FrazilFlink.TABLE_PROPERTY, "false"));
    long processBefore = FrazilMetrics.stockDataFiles("tableDisabled");
    JobClient job = startJob("stock");
    try {
      Table committed = awaitCommitted(table);
      List<DataFile> files = List.copyOf(FlinkJobs.files(committed).dataFiles);
      long rows = files.stream().mapToLong(DataFile::recordCount).sum();
      assertThat(rows).isEqualTo(ROWS);
      assertThat(FlinkJobs.createdBy(files.get(0).location())).startsWith("parquet-mr");

      String stock_ = metric(FrazilMetrics.STOCK_DATA_FILES);
      String stockRows_ = metric(FrazilMetrics.STOCK_ROWS);
      String reason_ = metric(FrazilMetrics.FALLBACK_GROUP + ".tableDisabled");
      String native_ = metric(FrazilMetrics.NATIVE_DATA_FILES);
      Map<String, Double> task =
          awaitTaskMetrics(
              rest,
              job,
              List.of(stock_, stockRows_, reason_, native_),
              m -> m.getOrDefault(stock_, 0.0) >= files.size());
      assertThat(task.get(stock_)).isEqualTo((double) files.size());
      assertThat(task.get(stockRows_)).isEqualTo((double) rows);
      assertThat(task.get(reason_)).isEqualTo((double) files.size());
      assertThat(task.get(native_)).isZero();

      assertThat(FrazilMetrics.stockDataFiles("tableDisabled") - processBefore)
          .isEqualTo(files.size());
      Map<String, Double> taskManager =
          awaitTaskManagerMetrics(
              rest,
              List.of(stock_, reason_),
              m -> m.getOrDefault(reason_, -1.0) == FrazilMetrics.stockDataFiles("tableDisabled"));
      assertThat(taskManager.get(stock_)).isEqualTo((double) FrazilFlink.stockDataFiles());
    } finally {
      cancel(job);
    }
  }

  @Test
  public void nativeReadsAreCountedPerSourceTaskAndPerTaskManager(
      @InjectClusterRESTAddress URI rest) throws Exception {
    Table table =
        FlinkJobs.createTable(warehouse, "read", JobTables.Partitioning.IDENTITY, 2, Map.of());
    JobClient writeJob = startJob("read");
    List<DataFile> files;
    try {
      files = List.copyOf(FlinkJobs.files(awaitCommitted(table)).dataFiles);
    } finally {
      cancel(writeJob);
    }
    table.refresh();
    List<DataFile> committed = List.copyOf(FlinkJobs.files(table).dataFiles);
    long readBefore = ReadCounters.nativeFiles();
    // Streaming, so the job (and its task metrics) stays up after the table scan is read. The
    // IcebergSource reads on split fetcher threads, not on its task's thread.
    JobClient readJob = startReadJob("read");
    try {
      String files_ = metric(FrazilMetrics.NATIVE_READ_FILES);
      String rowGroups_ = metric(FrazilMetrics.NATIVE_READ_ROW_GROUPS);
      String bytes_ = metric(FrazilMetrics.NATIVE_READ_BYTES);
      String stock_ = metric(FrazilMetrics.STOCK_READ_FILES);
      Map<String, Double> task =
          awaitTaskMetrics(
              rest,
              readJob,
              List.of(files_, rowGroups_, bytes_, stock_),
              m -> m.getOrDefault(files_, 0.0) >= committed.size());
      assertThat(files).isNotEmpty();
      assertThat(task.get(files_)).isEqualTo((double) committed.size());
      // Each of these small files is one row group.
      assertThat(task.get(rowGroups_)).isEqualTo((double) committed.size());
      assertThat(task.get(bytes_)).isPositive();
      assertThat(task.get(bytes_))
          .isLessThanOrEqualTo(
              (double) committed.stream().mapToLong(DataFile::fileSizeInBytes).sum());
      assertThat(task.get(stock_)).isZero();
      assertThat(ReadCounters.nativeFiles() - readBefore).isEqualTo(committed.size());

      Map<String, Double> taskManager =
          awaitTaskManagerMetrics(
              rest,
              List.of(files_, rowGroups_, bytes_, stock_),
              m -> m.getOrDefault(files_, -1.0) == ReadCounters.nativeFiles());
      assertThat(taskManager.get(rowGroups_)).isEqualTo((double) ReadCounters.nativeRowGroups());
      assertThat(taskManager.get(bytes_)).isEqualTo((double) ReadCounters.bytesFetched());
    } finally {
      cancel(readJob);
    }
  }

  /**
   * Reads the table with a streaming IcebergSource (table scan, then new snapshots), discarding.
   */
  private JobClient startReadJob(String tableName) throws Exception {
    StreamExecutionEnvironment env = FlinkJobs.env(2);
    IcebergSource<RowData> source =
        IcebergSource.forRowData()
            .tableLoader(FlinkJobs.tableLoader(warehouse, tableName))
            .streaming(true)
            .streamingStartingStrategy(StreamingStartingStrategy.TABLE_SCAN_THEN_INCREMENTAL)
            .monitorInterval(Duration.ofSeconds(1))
            .build();
    env.fromSource(
            source,
            WatermarkStrategy.noWatermarks(),
            "iceberg " + tableName,
            InternalTypeInfo.of(FlinkJobs.ROW_TYPE))
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync("read " + tableName);
  }

  private static String metric(String name) {
    return FrazilMetrics.GROUP + "." + name;
  }

  /**
   * Writes rows 0..ROWS-1 through the IcebergSink, then keeps the job running (the source goes on
   * slowly, its rows dropped before the sink), so the task metrics stay readable.
   */
  private JobClient startJob(String tableName) throws Exception {
    StreamExecutionEnvironment env = FlinkJobs.env(2);
    CatalogLoader catalogLoader =
        CatalogLoader.hadoop(
            FlinkJobs.CATALOG,
            new org.apache.hadoop.conf.Configuration(),
            ImmutableMap.of("warehouse", warehouse.getAbsolutePath()));
    DataStream<RowData> input =
        env.fromSequence(0, Long.MAX_VALUE - 1)
            .map(
                id -> {
                  if (id >= ROWS) {
                    Thread.sleep(5);
                  }
                  return id;
                },
                Types.LONG)
            .filter(id -> id < ROWS)
            .rebalance()
            .map(id -> FlinkJobs.row(id, "m-" + id), InternalTypeInfo.of(FlinkJobs.ROW_TYPE));
    IcebergSink.forRowData(input)
        .tableLoader(
            TableLoader.fromCatalog(
                catalogLoader, TableIdentifier.of(FlinkJobs.DATABASE, tableName)))
        .append();
    return env.executeAsync("metrics " + tableName);
  }

  /** Waits until the table holds all rows (the job commits on each checkpoint). */
  private static Table awaitCommitted(Table table) throws Exception {
    long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
    while (true) {
      table.refresh();
      if (table.currentSnapshot() != null) {
        String total = table.currentSnapshot().summary().get("total-records");
        if (total != null && Long.parseLong(total) >= ROWS) {
          return table;
        }
      }
      assertThat(System.nanoTime()).as("all rows committed in time").isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  /** The job's task metrics, summed over all subtasks of all vertices, once {@code ready}. */
  private Map<String, Double> awaitTaskMetrics(
      URI rest, JobClient job, List<String> names, Predicate<Map<String, Double>> ready)
      throws Exception {
    String jobId = job.getJobID().toHexString();
    long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
    while (true) {
      Map<String, Double> sums = Maps.newHashMap();
      for (JsonNode vertex : get(rest, "/jobs/" + jobId).path("vertices")) {
        JsonNode metrics =
            get(
                rest,
                "/jobs/"
                    + jobId
                    + "/vertices/"
                    + vertex.path("id").asText()
                    + "/subtasks/metrics?agg=sum&get="
                    + query(names));
        for (JsonNode metric : metrics) {
          sums.merge(metric.path("id").asText(), metric.path("sum").asDouble(), Double::sum);
        }
      }
      if (sums.keySet().containsAll(names) && ready.test(sums)) {
        return sums;
      }
      assertThat(System.nanoTime())
          .as("task metrics %s reported in time, last seen %s", names, sums)
          .isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  /** The (only) TaskManager's metrics, once {@code ready}. */
  private Map<String, Double> awaitTaskManagerMetrics(
      URI rest, List<String> names, Predicate<Map<String, Double>> ready) throws Exception {
    long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
    while (true) {
      Map<String, Double> values = Maps.newHashMap();
      for (JsonNode taskManager : get(rest, "/taskmanagers").path("taskmanagers")) {
        String id = taskManager.path("id").asText();
        for (JsonNode metric : get(rest, "/taskmanagers/" + id + "/metrics?get=" + query(names))) {
          values.put(metric.path("id").asText(), metric.path("value").asDouble());
        }
      }
      if (values.keySet().containsAll(names) && ready.test(values)) {
        return values;
      }
      assertThat(System.nanoTime())
          .as("TaskManager metrics %s reported in time, last seen %s", names, values)
          .isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static String query(List<String> names) {
    return names.stream()
        .map(n -> URLEncoder.encode(n, StandardCharsets.UTF_8))
        .collect(Collectors.joining(","));
  }

  private JsonNode get(URI rest, String path) throws IOException, InterruptedException {
    URI uri = URI.create(rest.toString().replaceAll("/$", "") + path);
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("GET %s: %s", uri, response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static void cancel(JobClient job) throws Exception {
    job.cancel().get();
    long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
    while (!job.getJobStatus().get().isGloballyTerminalState()) {
      assertThat(System.nanoTime()).as("job cancelled in time").isLessThan(deadline);
      Thread.sleep(100);
    }
  }
}
