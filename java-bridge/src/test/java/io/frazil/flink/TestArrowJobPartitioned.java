package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.exchange.ArrowBatch;
import io.frazil.exchange.ArrowBatchSerializer;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.flink.arrow.ArrowStreams;
import io.frazil.flink.arrow.FrazilArrowSink;
import io.frazil.iceberg.FrazilParquetAppender;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FrazilArrowSink#append} into a partitioned table with {@code
 * write.distribution-mode=hash}: batches are split by partition natively and whole parts are keyed
 * to the writer subtasks, the Arrow form of stock's hash distribution. The same rows go through
 * stock Iceberg (RowData, IcebergSink, hash distribution, stock writer) into a second table: both
 * commit every row once, and every partition's files come from the same writer subtask in both.
 */
public class TestArrowJobPartitioned {
  private static final long ROWS = 20_000;

  @RegisterExtension
  static final FrazilMiniCluster CLUSTER = FrazilMiniCluster.installedLikeACluster();

  @TempDir private File warehouse;

  @Test
  public void partsGoToTheSubtaskStockHashSendsTheirRowsTo() throws Exception {
    ArrowJobRows.PacedRows.reset();
    Table arrow = createTable("arrow", Map.of());
    Table stock = createTable("stock", Map.of("write.parquet.frazil.enabled", "false"));

    StreamExecutionEnvironment arrowJob = env();
    ArrowRowLayout layout = ArrowRowLayout.appendOnly(ArrowJobRows.SCHEMA);
    DataStream<ArrowBatch> batches = ArrowStreams.toBatches(rows(arrowJob), layout, 700);
    FrazilArrowSink.append(batches, FlinkJobs.tableLoader(warehouse, "arrow"));
    assertPartsAreKeyedAsBatches(arrowJob);
    long sliced = FrazilParquetAppender.slicedRows();
    run(arrowJob, "arrow");
    long slicedRows = FrazilParquetAppender.slicedRows() - sliced;

    StreamExecutionEnvironment stockJob = env();
    IcebergSink.forRowData(rows(stockJob))
        .tableLoader(FlinkJobs.tableLoader(warehouse, "stock"))
        .distributionMode(DistributionMode.HASH)
        .append();
    run(stockJob, "stock");

    for (Table table : new Table[] {arrow, stock}) {
      assertThat(ArrowJobRows.committed(table))
          .as("committed rows of %s, all columns, sorted", table.name())
          .isEqualTo(ArrowJobRows.expected(ROWS));
    }
    Map<String, Set<String>> arrowWriters = writersByPartition(arrow, "frazil version ");
    assertThat(arrowWriters).hasSizeGreaterThan(8);
    assertThat(arrowWriters)
        .as("writer subtasks per partition: Arrow parts as stock's hash distribution")
        .isEqualTo(writersByPartition(stock, "parquet-mr"));
    assertThat(slicedRows)
        .as("rows handed to the native writer as slices of parts")
        .isEqualTo(ROWS);
    ArrowJob.awaitArrowMemoryReturned();
  }

  private Table createTable(String name, Map<String, String> extra) {
    PartitionSpec spec =
        PartitionSpec.builderFor(ArrowJobRows.SCHEMA).bucket("id", 4).month("day").build();
    Map<String, String> props = new java.util.HashMap<>(extra);
    props.put(TableProperties.WRITE_DISTRIBUTION_MODE, "hash");
    props.put(TableProperties.FORMAT_VERSION, "2");
    props.put(TableProperties.PARQUET_COMPRESSION, "zstd");
    return JobTables.catalog(warehouse)
        .createTable(
            TableIdentifier.of(JobTables.DATABASE, name), ArrowJobRows.SCHEMA, spec, props);
  }

  /** The parts cross a keyed exchange as (path, ArrowBatch), serialized by ArrowBatchSerializer. */
  private static void assertPartsAreKeyedAsBatches(StreamExecutionEnvironment env) {
    int keyed = 0;
    for (StreamNode node : env.getStreamGraph(false).getStreamNodes()) {
      if (node.getInEdges().size() == 1
          && node.getInEdges().get(0).getPartitioner() instanceof KeyGroupStreamPartitioner) {
        TypeSerializer<?> in = node.getTypeSerializersIn()[0];
        assertThat(in).as(node.getOperatorName()).isInstanceOf(TupleSerializer.class);
        assertThat(((TupleSerializer<?>) in).getFieldSerializers()[1])
            .isInstanceOf(ArrowBatchSerializer.class);
        keyed += 1;
      }
    }
    assertThat(keyed).as("keyed exchanges").isEqualTo(1);
  }

  /** Partition path → the writer subtasks of its data files (from the file names). */
  private static Map<String, Set<String>> writersByPartition(Table table, String createdBy)
      throws Exception {
    Map<String, Set<String>> writers = new TreeMap<>();
    for (DataFile file : FlinkJobs.files(table).dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location())).startsWith(createdBy);
      String name = file.location().substring(file.location().lastIndexOf('/') + 1);
      // Iceberg names data files <subtask>-<attempt>-<operation>-<count>.parquet.
      writers
          .computeIfAbsent(table.spec().partitionToPath(file.partition()), k -> new TreeSet<>())
          .add(name.substring(0, name.indexOf('-')));
    }
    return writers;
  }

  private static DataStream<RowData> rows(StreamExecutionEnvironment env) {
    return env.fromSequence(0, ROWS - 1)
        .map(new ArrowJobRows.PacedRows())
        .returns(InternalTypeInfo.of(ArrowJobRows.ROW_TYPE));
  }

  private static StreamExecutionEnvironment env() {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.configure(conf);
    env.setParallelism(2);
    return env;
  }

  private static void run(StreamExecutionEnvironment env, String name) throws Exception {
    org.apache.flink.core.execution.JobClient job = env.executeAsync(name);
    try {
      job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      job.cancel().get(30, TimeUnit.SECONDS);
      throw new AssertionError(name + " did not finish in 180 s", e);
    }
  }
}
