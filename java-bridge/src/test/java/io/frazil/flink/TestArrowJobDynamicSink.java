package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.exchange.ArrowBatch;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.flink.arrow.ArrowStreams;
import io.frazil.flink.arrow.FrazilArrowSink;
import io.frazil.iceberg.FrazilParquetAppender;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.flink.sink.dynamic.StockDynamicSinkKeys;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link FrazilArrowSink#dynamicSink}: Arrow batches that crossed a network exchange go into the
 * Dynamic Iceberg Sink with the user's own record generator, and the committed table holds exactly
 * the input rows, every column compared through Iceberg's reader, in data files Frazil wrote.
 */
public class TestArrowJobDynamicSink {
  @RegisterExtension
  static final FrazilMiniCluster CLUSTER = FrazilMiniCluster.installedLikeACluster();

  private static final long ROWS = 6_000;
  private static final ArrowRowLayout LAYOUT = ArrowRowLayout.appendOnly(ArrowJobRows.SCHEMA);

  @TempDir private File warehouse;

  /**
   * Append or upsert (equality field {@code id}; with unique ids every row stays), each record
   * forward into an unpartitioned table (no distribution mode: written by the generator's own
   * subtask, its row object unchanged, so Frazil's appender takes each batch whole as a slice) or
   * with {@code DistributionMode.HASH} into a {@code bucket(id, 4)} table (the sink serializes the
   * rows to its writers: written as rows). Forward into a bucketed table, a batch's rows would
   * interleave four files in runs of a row or two, which the appender copies rather than slices
   * ({@code TestArrowRowSlices}).
   */
  @ParameterizedTest(name = "upsert={0}, v{1}, hash={2}")
  @CsvSource({"false, 2, false", "true, 2, true", "true, 3, false"})
  public void batchesReachTheDynamicSinkThroughTheGenerator(
      boolean upsert, int formatVersion, boolean hash) throws Exception {
    String name = (upsert ? "upsert" : "append") + "_v" + formatVersion + (hash ? "_hash" : "");
    Table table =
        JobTables.createTable(
            warehouse,
            name,
            ArrowJobRows.SCHEMA,
            hash ? JobTables.Partitioning.BUCKET : JobTables.Partitioning.UNPARTITIONED,
            formatVersion,
            Map.of());
    TableIdentifier identifier = TableIdentifier.of(JobTables.DATABASE, name);
    StreamExecutionEnvironment env = FlinkJobs.env(2);
    // Batches made by one subtask, rebalanced to two: the rows step and the generator run at the
    // environment's parallelism (2) after the exchange, so two writer subtasks write.
    DataStream<ArrowBatch> batches =
        ArrowStreams.toBatches(
                env.fromSequence(0, ROWS - 1)
                    .setParallelism(1)
                    .map(ArrowJobRows::row)
                    .setParallelism(1)
                    .returns(InternalTypeInfo.of(ArrowJobRows.ROW_TYPE)),
                LAYOUT,
                400)
            .rebalance();
    FrazilArrowSink.dynamicSink(batches, LAYOUT)
        .generator(
            new JobTables.Generator(
                identifier,
                ArrowJobRows.SCHEMA,
                table.spec(),
                upsert,
                hash ? DistributionMode.HASH : null))
        .catalogLoader(FlinkJobs.catalogLoader(warehouse))
        .writeParallelism(2)
        .append();
    long sliced = FrazilParquetAppender.slicedRows();
    env.execute("Arrow batches into the Dynamic Iceberg Sink, " + name);

    assertThat(FrazilParquetAppender.slicedRows() - sliced)
        .as("rows handed to the native writer as slices of their batch")
        .isEqualTo(hash ? 0 : ROWS);
    assertThat(ArrowJobRows.committed(table)).isEqualTo(ArrowJobRows.expected(ROWS));
    FlinkJobs.Files files = FlinkJobs.files(table);
    assertThat(files.dataFiles).isNotEmpty();
    Set<String> writerSubtasks = new TreeSet<>();
    for (DataFile file : files.dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location()))
          .as(file.location())
          .startsWith("frazil version ");
      // Iceberg's data file names start with the writer's subtask index.
      writerSubtasks.add(new org.apache.hadoop.fs.Path(file.location()).getName().split("-")[0]);
    }
    assertThat(writerSubtasks).as("writer subtasks").hasSize(2);
    // An upsert deletes each key before inserting it: equality deletes, committed with the data
    // files (same sequence number, so they apply to none of them and the scan above lists none).
    long equalityDeletes = 0;
    for (Snapshot snapshot : table.snapshots()) {
      equalityDeletes +=
          Long.parseLong(snapshot.summary().getOrDefault("added-equality-delete-files", "0"));
    }
    if (upsert) {
      assertThat(equalityDeletes).as("equality delete files committed").isPositive();
    } else {
      assertThat(equalityDeletes).as("equality delete files committed").isZero();
    }
    ArrowJob.awaitArrowMemoryReturned();
    FlinkJobs.assertNothingLeaked();
  }

  /**
   * {@link FrazilArrowSink#dynamicSinkRoutedByEqualityFields}: upserts keyed by {@code id} into an
   * unpartitioned v2 table, every id written twice (the second copy later in the stream). The
   * batches are split by equality key natively and whole parts cross the exchange; the generator
   * emits forward records. Each row must land in a data file of the writer subtask the Dynamic
   * sink's own routing picks for its key ({@code HashKeyGenerator}), and the table must hold each
   * id once: a key split across two writers would leave both copies (an equality delete does not
   * apply to a data file of its own commit).
   */
  @Test
  public void upsertsRoutedByEqualityKeyReachTheWriterTheSinkWouldPick() throws Exception {
    String name = "upsert_routed";
    Table table =
        JobTables.createTable(
            warehouse,
            name,
            ArrowJobRows.SCHEMA,
            JobTables.Partitioning.UNPARTITIONED,
            2,
            Map.of());
    TableIdentifier identifier = TableIdentifier.of(JobTables.DATABASE, name);
    StreamExecutionEnvironment env = FlinkJobs.env(2);
    DataStream<ArrowBatch> batches =
        ArrowStreams.toBatches(
            env.fromSequence(0, 2 * ROWS - 1)
                .setParallelism(1)
                .map(i -> ArrowJobRows.row(i % ROWS))
                .setParallelism(1)
                .returns(InternalTypeInfo.of(ArrowJobRows.ROW_TYPE)),
            LAYOUT,
            1_000);
    FrazilArrowSink.dynamicSinkRoutedByEqualityFields(batches, LAYOUT, identifier, Set.of("id"), 2)
        .generator(
            new JobTables.Generator(identifier, ArrowJobRows.SCHEMA, table.spec(), true, null))
        .catalogLoader(FlinkJobs.catalogLoader(warehouse))
        .writeParallelism(2)
        .append();
    long sliced = FrazilParquetAppender.slicedRows();
    env.execute("Arrow batches routed by equality key into the Dynamic Iceberg Sink");

    assertThat(FrazilParquetAppender.slicedRows() - sliced)
        .as("rows handed to the native writer as slices of their batch")
        .isEqualTo(2 * ROWS);
    table.refresh();
    assertThat(ArrowJobRows.committed(table)).isEqualTo(ArrowJobRows.expected(ROWS));
    StockDynamicSinkKeys stock = new StockDynamicSinkKeys(128);
    Map<Long, Integer> writerOfId = new TreeMap<>();
    for (DataFile file : FlinkJobs.files(table).dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location()))
          .as(file.location())
          .startsWith("frazil version ");
      int subtask =
          Integer.parseInt(new org.apache.hadoop.fs.Path(file.location()).getName().split("-")[0]);
      try (CloseableIterable<Record> records =
          Parquet.read(table.io().newInputFile(file.location()))
              .project(ArrowJobRows.SCHEMA)
              .createReaderFunc(s -> GenericParquetReaders.buildReader(ArrowJobRows.SCHEMA, s))
              .build()) {
        for (Record record : records) {
          long id = (Long) record.getField("id");
          int key =
              stock.key(
                  identifier,
                  ArrowJobRows.SCHEMA,
                  table.spec(),
                  Set.of("id"),
                  DistributionMode.HASH,
                  2,
                  ArrowJobRows.row(id));
          assertThat(subtask)
              .as("writer subtask of id %s", id)
              .isEqualTo(KeyGroupRangeAssignment.assignKeyToParallelOperator(key, 128, 2));
          Integer previous = writerOfId.put(id, subtask);
          assertThat(previous == null || previous.equals(subtask))
              .as("both copies of id %s on one writer", id)
              .isTrue();
        }
      }
    }
    assertThat(writerOfId).hasSize((int) ROWS);
    assertThat(new TreeSet<>(writerOfId.values())).as("writer subtasks").hasSize(2);
    ArrowJob.awaitArrowMemoryReturned();
    FlinkJobs.assertNothingLeaked();
  }

  @Test
  public void aStreamOfAnotherLayoutIsRefusedWhenTheJobIsBuilt() {
    StreamExecutionEnvironment env = FlinkJobs.env(1);
    Schema other = new Schema(ArrowJobRows.SCHEMA.columns().subList(0, 3));
    DataStream<ArrowBatch> batches =
        ArrowStreams.toBatches(
            env.fromSequence(0, 9)
                .map(ArrowJobRows::row)
                .returns(InternalTypeInfo.of(ArrowJobRows.ROW_TYPE)),
            LAYOUT,
            10);
    assertThatThrownBy(() -> FrazilArrowSink.dynamicSink(batches, ArrowRowLayout.appendOnly(other)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not the layout given to the Dynamic Iceberg Sink")
        .hasMessageContaining("event_time");
    assertThatThrownBy(
            () ->
                FrazilArrowSink.dynamicSink(
                    batches, ArrowRowLayout.withRowKind(new Schema(other.columns(), Set.of(1)))))
        .isInstanceOf(IllegalArgumentException.class);
    TableIdentifier table = TableIdentifier.of(JobTables.DATABASE, "t");
    assertThatThrownBy(
            () ->
                FrazilArrowSink.dynamicSinkRoutedByEqualityFields(
                    batches, ArrowRowLayout.appendOnly(other), table, Set.of("id"), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not the layout given to the Dynamic Iceberg Sink");
    assertThatThrownBy(
            () ->
                FrazilArrowSink.dynamicSinkRoutedByEqualityFields(
                    batches, LAYOUT, table, Set.of("no_such_column"), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'no_such_column' is not a column");
  }
}
