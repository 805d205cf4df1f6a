package io.frazil.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The generator as a parallel DataStream source and as the SQL connector {@code frazil-nexmark}.
 */
class TestNexmarkSource {
  @RegisterExtension static final MiniClusterExtension CLUSTER = NexmarkMiniCluster.twoSlots();

  private static final NexmarkGenerator GENERATOR = new NexmarkGenerator(3, 10_000);

  @Test
  void parallelReadersEmitEveryEventOnceAndInterleaved() throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    long events = 5_001;
    List<RowData> rows = new ArrayList<>();
    try (CloseableIterator<RowData> it =
        env.fromSource(
                NexmarkSource.of(NexmarkTable.EVENTS, GENERATOR, events),
                WatermarkStrategy.noWatermarks(),
                "nexmark")
            .executeAndCollect()) {
      it.forEachRemaining(rows::add);
    }
    assertThat(rows).hasSize((int) events);
    // Collected rows are binary, the generator's generic: compare them as external rows.
    DataStructureConverter<Object, Object> converter =
        DataStructureConverters.getConverter(NexmarkTable.EVENTS.dataType());
    converter.open(getClass().getClassLoader());
    List<Object> actual = new ArrayList<>();
    rows.forEach(row -> actual.add(converter.toExternal(row)));
    List<Object> expected = new ArrayList<>();
    for (long id = 0; id < events; id++) {
      expected.add(converter.toExternal(NexmarkTable.EVENTS.row(GENERATOR, id)));
    }
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void sqlTablesGetTheirShareOfTheEvents() throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);
    NexmarkSql.Events events = new NexmarkSql.Events(10_000, 10_000, 3);
    for (NexmarkTable table :
        List.of(NexmarkTable.PERSON, NexmarkTable.AUCTION, NexmarkTable.BID)) {
      tableEnv.executeSql(NexmarkSql.sourceDdl(table, events));
    }
    assertThat(count(tableEnv, "SELECT COUNT(*) FROM person")).isEqualTo(200);
    assertThat(count(tableEnv, "SELECT COUNT(*) FROM auction")).isEqualTo(600);
    assertThat(count(tableEnv, "SELECT COUNT(*) FROM bid")).isEqualTo(9_200);
    // The bids SQL reads are the generator's, field for field.
    assertThat(count(tableEnv, "SELECT SUM(price) FROM bid"))
        .isEqualTo(GENERATOR.firstBids(9_200).stream().mapToLong(bid -> bid.getLong(2)).sum());
  }

  @Test
  void wrongColumnsOrOptionsAreRefusedByName() {
    StreamTableEnvironment tableEnv =
        StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
    tableEnv.executeSql(
        "CREATE TEMPORARY TABLE short_bid (auction BIGINT, bidder BIGINT)"
            + " WITH ('connector' = 'frazil-nexmark', 'table' = 'bid', 'events' = '10')");
    assertThatThrownBy(() -> tableEnv.executeSql("SELECT * FROM short_bid").await())
        .hasRootCauseInstanceOf(ValidationException.class)
        .rootCause()
        .hasMessageContaining("must declare the columns");
    tableEnv.executeSql(
        "CREATE TEMPORARY TABLE nothing (auction BIGINT)"
            + " WITH ('connector' = 'frazil-nexmark', 'table' = 'bids')");
    assertThatThrownBy(() -> tableEnv.executeSql("SELECT * FROM nothing").await())
        .hasRootCauseInstanceOf(ValidationException.class)
        .rootCause()
        .hasMessageContaining("Unknown Nexmark table 'bids'");
  }

  private static long count(StreamTableEnvironment tableEnv, String sql) throws Exception {
    try (CloseableIterator<Row> it = tableEnv.executeSql(sql).collect()) {
      long last = -1;
      while (it.hasNext()) {
        Row row = it.next();
        // A streaming aggregate updates its row; the last value is the total.
        last = ((Number) row.getField(0)).longValue();
      }
      return last;
    }
  }
}
