package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.testkit.ExceptionGraph;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecordGenerator;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One bad row in a Flink job fails that job with the original error as its root cause, and never
 * the TaskManager: on a cluster with a single TaskManager, a healthy job runs right after each
 * failed one (it would wait for slots forever if the TaskManager had died, so every wait here is
 * bounded). Nothing of the failed job is committed, and native and Arrow memory all come back.
 */
public class TestBadRowsInFlinkJobs {
  /** One TaskManager: if a bad row killed it, the next job could not run. */
  @RegisterExtension
  static final FrazilMiniCluster MINI_CLUSTER = FrazilMiniCluster.installedLikeACluster();

  private static final long JOB_TIMEOUT_SECONDS = 180;

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "data", Types.StringType.get()),
              Types.NestedField.optional(3, "code", Types.FixedType.ofLength(4))),
          Set.of(1));

  private static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);
  private static final byte[] CODE = {7, 7, 7, 7};

  @TempDir private File warehouse;

  /** Rows Flink hands a sink that Iceberg's schema cannot take. */
  enum BadRow {
    /** A null in a required column: a connector that declares a column NOT NULL and lies. */
    NULL_IN_REQUIRED_COLUMN("Null value in required field 'id'") {
      @Override
      RowData row(long id) {
        return GenericRowData.of(null, StringData.fromString("bad"), CODE);
      }
    },
    /**
     * A {@code fixed(4)} value of 5 bytes, which the conversion refuses (Flink's {@code BINARY(4)}
     * carries any byte array, and SQL's type-length enforcer is off by default).
     */
    FIXED_VALUE_OF_ANOTHER_LENGTH("Cannot write 5 bytes to field 'code' of fixed length 4") {
      @Override
      RowData row(long id) {
        return GenericRowData.of(id, StringData.fromString("bad"), new byte[] {1, 2, 3, 4, 5});
      }
    };

    final String message;

    BadRow(String message) {
      this.message = message;
    }

    abstract RowData row(long id);
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = Lists.newArrayList();
    for (JobTables.Sink sink : JobTables.Sink.values()) {
      for (BadRow bad : BadRow.values()) {
        cases.add(Arguments.of(sink, bad));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("cases")
  public void aBadRowFailsTheJobAndTheTaskManagerLivesOn(JobTables.Sink sink, BadRow bad)
      throws Exception {
    String name = (sink + "_" + bad).toLowerCase(Locale.ROOT);
    Table failed = createTable(name + "_bad");
    long nativeBefore = FrazilFlink.nativeWritersBuilt();

    Throwable failure = run(sink, name + "_bad", 200, new Rows(100, bad));

    assertThat(failure).as("the job with a bad row fails").isNotNull();
    ExceptionGraph.assertAcyclic(failure);
    Throwable root = ExceptionGraph.rootCause(failure);
    if (sink == JobTables.Sink.SQL && bad == BadRow.NULL_IN_REQUIRED_COLUMN) {
      // The planner puts its own NOT NULL check before every sink of a NOT NULL column (even when
      // the source declares the column NOT NULL), so no writer, stock or Frazil, sees this row.
      assertThat(root).hasMessageContaining("Column 'id' is NOT NULL");
    } else {
      assertThat(root)
          .as("the original error is the root cause of the job's failure")
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(bad.message);
      assertThat(FrazilFlink.nativeWritersBuilt())
          .as("the bad row reached Frazil's writer, not a check before it")
          .isGreaterThan(nativeBefore);
    }
    // (The Dynamic Iceberg Sink may commit an empty snapshot when it sets up the table's branch.)
    assertThat(FlinkJobs.files(failed).dataFiles).as("no data file of the failed job").isEmpty();
    assertThat(FlinkJobs.read(failed)).as("no row of the failed job").isEmpty();

    // The same single TaskManager runs the next job: it was never taken down.
    Table healthy = createTable(name + "_healthy");
    assertThat(run(sink, name + "_healthy", 500, new Rows(-1, null)))
        .as("the healthy job's failure")
        .isNull();
    assertThat(FlinkJobs.read(healthy)).hasSize(500);
    for (org.apache.iceberg.DataFile file : FlinkJobs.files(healthy).dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location())).startsWith("frazil version ");
    }
  }

  private Table createTable(String name) {
    return FlinkJobs.catalog(warehouse)
        .createTable(
            TableIdentifier.of(FlinkJobs.DATABASE, name),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(
                TableProperties.FORMAT_VERSION, "2", TableProperties.PARQUET_COMPRESSION, "zstd"));
  }

  /**
   * Turns ids into rows inside the job, one of them bad: a bad row built before the job could not
   * be shipped with it (Flink's serializer refuses a decimal of the wrong scale), while inside the
   * job it reaches the sink the way a faulty source or mapper hands it over.
   */
  private static final class Rows implements MapFunction<Long, RowData> {
    private final long badAt;
    private final BadRow bad;

    Rows(long badAt, BadRow bad) {
      this.badAt = badAt;
      this.bad = bad;
    }

    @Override
    public RowData map(Long id) {
      if (id == badAt) {
        return bad.row(id);
      }
      return GenericRowData.of(id, StringData.fromString("row-" + id), CODE);
    }
  }

  /**
   * Writes {@code rows} with {@code sink} and returns the job's failure, or null if it succeeded.
   * No restarts and no periodic checkpoints: a bounded job commits only at its end, so a failed job
   * commits nothing. Every wait is bounded.
   */
  private Throwable run(JobTables.Sink sink, String tableName, long count, Rows rows)
      throws Exception {
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(1);
    TableIdentifier identifier = TableIdentifier.of(FlinkJobs.DATABASE, tableName);
    TableLoader loader = TableLoader.fromCatalog(FlinkJobs.catalogLoader(warehouse), identifier);
    DataStream<RowData> input =
        env.fromSequence(0, count - 1).map(rows).returns(InternalTypeInfo.of(ROW_TYPE));
    JobClient job;
    switch (sink) {
      case FLINK_SINK:
        FlinkSink.forRowData(input).tableLoader(loader).append();
        job = env.executeAsync("bad rows: FlinkSink " + tableName);
        break;
      case ICEBERG_SINK:
        IcebergSink.forRowData(input).tableLoader(loader).append();
        job = env.executeAsync("bad rows: IcebergSink " + tableName);
        break;
      case DYNAMIC_SINK:
        DynamicIcebergSink.forInput(input)
            .generator(new ToOneTable(identifier))
            .catalogLoader(FlinkJobs.catalogLoader(warehouse))
            .writeParallelism(1)
            .append();
        job = env.executeAsync("bad rows: DynamicIcebergSink " + tableName);
        break;
      case SQL:
        job = insertWithSql(env, input, tableName);
        break;
      default:
        throw new IllegalArgumentException("Unknown sink " + sink);
    }
    try {
      job.getJobExecutionResult().get(JOB_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      job.cancel().get(30, TimeUnit.SECONDS);
      throw new AssertionError(
          "job on " + tableName + " did not finish in " + JOB_TIMEOUT_SECONDS + " s", e);
    }
  }

  /**
   * {@code INSERT INTO … SELECT * FROM src}, where {@code src} is the RowData stream with its
   * declared types ({@code id BIGINT NOT NULL}): the planner adds no null check for a column its
   * source declares NOT NULL, so a lying source's null reaches the sink, as in production.
   */
  private JobClient insertWithSql(
      StreamExecutionEnvironment env, DataStream<RowData> input, String tableName) {
    StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);
    tableEnv.executeSql(
        "CREATE CATALOG "
            + FlinkJobs.CATALOG
            + " WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='"
            + warehouse.getAbsolutePath()
            + "')");
    // Declared as the connector declares it: id NOT NULL, so the planner adds no null check.
    org.apache.flink.table.api.Schema declared =
        org.apache.flink.table.api.Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("data", DataTypes.STRING())
            .column("code", DataTypes.BINARY(4))
            .build();
    tableEnv.createTemporaryView("src", tableEnv.fromDataStream(input, declared));
    TableResult result =
        tableEnv.executeSql(
            "INSERT INTO "
                + FlinkJobs.CATALOG
                + "."
                + FlinkJobs.DATABASE
                + "."
                + tableName
                + " SELECT * FROM src");
    return result.getJobClient().orElseThrow();
  }

  /** The Dynamic Iceberg Sink's generator: every row to one table, with this test's schema. */
  private static final class ToOneTable implements DynamicRecordGenerator<RowData> {
    // TableIdentifier is not serializable: keep its string form.
    private final String identifier;

    ToOneTable(TableIdentifier identifier) {
      this.identifier = identifier.toString();
    }

    @Override
    public void generate(RowData row, Collector<DynamicRecord> out) {
      out.collect(
          new DynamicRecord(
              TableIdentifier.parse(identifier),
              "main",
              SCHEMA,
              row,
              PartitionSpec.unpartitioned()));
    }
  }
}
