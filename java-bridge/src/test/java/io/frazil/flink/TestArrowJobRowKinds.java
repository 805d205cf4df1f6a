package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.exchange.ArrowBatch;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.flink.arrow.ArrowStreams;
import io.frazil.flink.arrow.FrazilArrowSink;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Row kinds carried in the {@code _frazil_row_kind} column: inserts, updates (before and after) and
 * deletes cross a network exchange as Arrow batches, come out with the kinds they went in with, and
 * an Iceberg sink with equality fields applies them.
 */
public class TestArrowJobRowKinds {
  @RegisterExtension
  static final FrazilMiniCluster CLUSTER = FrazilMiniCluster.installedLikeACluster();

  private static final long IDS = 2_000;
  private static final Schema KEYED = new Schema(ArrowJobRows.SCHEMA.columns(), Set.of(1));
  private static final ArrowRowLayout LAYOUT = ArrowRowLayout.withRowKind(KEYED);

  @TempDir private File warehouse;

  @Test
  public void everyRowKindSurvivesTheExchangeInOrder() throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    List<RowData> changes = changes();
    DataStream<RowData> rows =
        ArrowStreams.toRows(
            ArrowStreams.toBatches(input(env, changes), LAYOUT, 64).rebalance(), LAYOUT, "none");

    List<String> out = new ArrayList<>();
    try (CloseableIterator<RowData> it = rows.executeAndCollect("row kinds")) {
      it.forEachRemaining(row -> out.add(describe(row)));
    }

    assertThat(out)
        .isEqualTo(
            changes.stream().map(TestArrowJobRowKinds::describe).collect(Collectors.toList()));
    assertThat(out.stream().map(s -> s.substring(0, 2)).distinct())
        .containsExactlyInAnyOrder("+I", "-U", "+U", "-D");
    ArrowJob.awaitArrowMemoryReturned();
  }

  @ParameterizedTest(name = "{0}, upsert={1}")
  @CsvSource({"ICEBERG_SINK, false", "ICEBERG_SINK, true", "FLINK_SINK, false", "FLINK_SINK, true"})
  public void aSinkWithEqualityFieldsAppliesUpdatesAndDeletes(JobTables.Sink sink, boolean upsert)
      throws Exception {
    String name = sink.name().toLowerCase(java.util.Locale.ROOT) + (upsert ? "_upsert" : "_cdc");
    Table table =
        JobTables.createTable(
            warehouse, name, KEYED, JobTables.Partitioning.UNPARTITIONED, 2, Map.of());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.enableCheckpointing(100);
    DataStream<ArrowBatch> batches =
        ArrowStreams.toBatches(input(env, changes()), LAYOUT, 64).rebalance();
    // One source subtask: a bounded job through FlinkSink commits all (docs/upstream-issues.md).
    if (sink == JobTables.Sink.ICEBERG_SINK) {
      FrazilArrowSink.icebergSink(batches, FlinkJobs.tableLoader(warehouse, name))
          .equalityFieldColumns(List.of("id"))
          .upsert(upsert)
          .append();
    } else {
      FrazilArrowSink.flinkSink(batches, FlinkJobs.tableLoader(warehouse, name))
          .equalityFieldColumns(List.of("id"))
          .upsert(upsert)
          .append();
    }
    env.execute("row kinds into " + name);

    List<String> expected =
        LongStream.range(0, IDS)
            .filter(id -> id % 5 != 0)
            .mapToObj(id -> Arrays.toString(finalValues(id)))
            .sorted()
            .collect(Collectors.toList());
    assertThat(ArrowJobRows.committed(table)).isEqualTo(expected);
    FlinkJobs.Files files = FlinkJobs.files(table);
    assertThat(files.deleteFiles).as("deletes written for -U/-D rows").isNotEmpty();
    for (DataFile file : files.dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location())).startsWith("frazil version ");
    }
    ArrowJob.awaitArrowMemoryReturned();
  }

  private static DataStream<RowData> input(StreamExecutionEnvironment env, List<RowData> rows) {
    return env.fromData(rows, InternalTypeInfo.of(ArrowJobRows.ROW_TYPE));
  }

  /**
   * Every id inserted; even ids then updated (-U old, +U new label); ids divisible by 5 then
   * deleted (-D of the row as it stands).
   */
  private static List<RowData> changes() {
    List<RowData> changes = new ArrayList<>();
    for (long id = 0; id < IDS; id++) {
      changes.add(ArrowJobRows.row(id));
    }
    for (long id = 0; id < IDS; id += 2) {
      changes.add(withKind(ArrowJobRows.row(id), RowKind.UPDATE_BEFORE));
      changes.add(withKind(updated(id), RowKind.UPDATE_AFTER));
    }
    for (long id = 0; id < IDS; id += 5) {
      changes.add(withKind(id % 2 == 0 ? updated(id) : ArrowJobRows.row(id), RowKind.DELETE));
    }
    return changes;
  }

  private static GenericRowData updated(long id) {
    GenericRowData row = (GenericRowData) ArrowJobRows.row(id);
    row.setField(1, StringData.fromString("updated-" + id));
    return row;
  }

  private static Object[] finalValues(long id) {
    Object[] values = ArrowJobRows.values(id);
    if (id % 2 == 0) {
      values[1] = "updated-" + id;
    }
    return values;
  }

  private static RowData withKind(RowData row, RowKind kind) {
    row.setRowKind(kind);
    return row;
  }

  private static String describe(RowData row) {
    return row.getRowKind().shortString()
        + " "
        + row.getLong(0)
        + " "
        + (row.isNullAt(1) ? "null" : row.getString(1).toString());
  }
}
