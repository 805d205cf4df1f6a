package io.frazil.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.flink.FrazilFlink;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Nexmark queries tiny on the MiniCluster, stock Iceberg (Frazil uninstalled) then Frazil
 * (installed): both arms commit the same rows (Iceberg's reader, deletes applied), every data file
 * of the stock table says parquet-mr and every one of the Frazil table says frazil, and Frazil's
 * native-file counter grew. {@code make test} runs q0 (append, v2) and q17 (upsert, v2 and v3);
 * {@code -Dnexmark.test.queries=q0,q5@3,...} ({@code <query>[@<format version>]}, or {@code all}
 * for every query at v2) runs others.
 */
class TestNexmarkArms {
  @RegisterExtension static final MiniClusterExtension CLUSTER = NexmarkMiniCluster.twoSlots();

  private static final NexmarkSql.Events EVENTS = new NexmarkSql.Events(20_000, 10_000, 42);

  @TempDir static Path warehouse;

  static List<String> queries() {
    String chosen = System.getProperty("nexmark.test.queries", "q0,q17,q17@3");
    return "all".equals(chosen) ? NexmarkQuery.ALL : Arrays.asList(chosen.split(","));
  }

  @BeforeAll
  static void initializeFileSystems() {
    // Flink initializes its file systems (and with them Frazil's bootstrap hook, which installs
    // Frazil) lazily, at a MiniCluster's first job: done here, so it cannot reinstall Frazil in
    // the middle of a stock arm.
    FileSystem.initialize(new Configuration(), null);
  }

  @AfterAll
  static void reinstall() {
    FrazilFlink.install();
  }

  @ParameterizedTest
  @MethodSource("queries")
  void bothArmsCommitTheSameRows(String queryAndVersion) throws Exception {
    String[] parts = queryAndVersion.split("@");
    String name = parts[0];
    int version = parts.length > 1 ? Integer.parseInt(parts[1]) : 2;
    String tables = name.replace('-', '_') + "_v" + version;
    NexmarkQuery query = NexmarkQuery.load(name);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.configure(
        NexmarkSql.jobConfiguration(500, warehouse.resolve("checkpoints").toUri().toString()));
    StreamTableEnvironment tableEnv = NexmarkSql.session(env, warehouse.toUri().toString(), EVENTS);
    HadoopCatalog catalog =
        new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.toString());
    String landed = null;
    if (query.readsLandedBids()) {
      landed = "landed_" + tables;
      FrazilFlink.uninstall();
      NexmarkSql.landBids(tableEnv, landed, version).getJobExecutionResult().get();
    }
    String with = NexmarkSql.with(version, Map.of());

    FrazilFlink.uninstall();
    String stockTable = tables + "_stock";
    run(NexmarkSql.submit(tableEnv, catalog, query, stockTable, with, landed));

    assertThat(FrazilFlink.install()).as("Frazil installs").isTrue();
    long native0 = FrazilFlink.nativeDataFiles();
    String frazilTable = tables + "_frazil";
    run(NexmarkSql.submit(tableEnv, catalog, query, frazilTable, with, landed));
    long nativeFiles = FrazilFlink.nativeDataFiles() - native0;

    Table stockIceberg = catalog.loadTable(TableIdentifier.of(NexmarkSql.DATABASE, stockTable));
    Table frazilIceberg = catalog.loadTable(TableIdentifier.of(NexmarkSql.DATABASE, frazilTable));
    NexmarkTables.Committed stock = NexmarkTables.read(stockIceberg);
    NexmarkTables.Committed frazil = NexmarkTables.read(frazilIceberg);
    assertThat(stock.rows()).as("%s committed rows", name).isPositive();
    assertThat(NexmarkTables.difference(stock, frazil))
        .as(
            "%s: stock vs Frazil; first rows %s vs %s",
            name,
            NexmarkTables.firstRows(stockIceberg, 3),
            NexmarkTables.firstRows(frazilIceberg, 3))
        .isNull();
    assertThat(stock.allWrittenBy("parquet-mr")).as("stock files %s", stock.createdBy).isTrue();
    assertThat(frazil.allWrittenBy("frazil")).as("Frazil files %s", frazil.createdBy).isTrue();
    assertThat(nativeFiles).isGreaterThanOrEqualTo(frazil.dataFiles);
  }

  private static void run(JobClient job) throws Exception {
    job.getJobExecutionResult().get();
  }
}
