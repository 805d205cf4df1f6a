package io.frazil.nexmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopCatalog;

/**
 * The SQL session every Nexmark job runs in: the generator's three tables ({@code person}, {@code
 * auction}, {@code bid}, each a {@code frazil-nexmark} source with a 4-second out-of-orderness
 * watermark on {@code dateTime}), q14's function, and an Iceberg Hadoop catalog whose database
 * {@value #DATABASE} holds the result tables. Iceberg's SQL sink is its v2 {@code IcebergSink}
 * ({@code table.exec.iceberg.use-v2-sink}): with parallel bounded sources, the v1 FlinkSink can
 * leave a finished writer's last files uncommitted (docs/upstream-issues.md).
 */
public final class NexmarkSql {
  public static final String CATALOG = "nexmark_iceberg";
  public static final String DATABASE = "nexmark";

  private NexmarkSql() {}

  /** What the source tables generate. */
  public static final class Events {
    public final long events;
    public final long eventsPerSecond;
    public final long seed;

    public Events(long events, long eventsPerSecond, long seed) {
      this.events = events;
      this.eventsPerSecond = eventsPerSecond;
      this.seed = seed;
    }
  }

  /**
   * What every Nexmark job needs besides its SQL: checkpoints of {@code checkpointMs} written to
   * {@code checkpointDir} (stateful queries outgrow the JobManager's in-memory checkpoint storage),
   * and no restarts, so a failing job fails its trial instead of retrying for ever.
   */
  public static Configuration jobConfiguration(long checkpointMs, String checkpointDir) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(checkpointMs));
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return conf;
  }

  /** A table environment on {@code env} with the sources, the function and the catalog. */
  public static StreamTableEnvironment session(
      StreamExecutionEnvironment env, String warehouse, Events events) {
    StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);
    tableEnv.getConfig().set("table.exec.iceberg.use-v2-sink", "true");
    tableEnv.getConfig().set("table.exec.iceberg.use-flip27-source", "true");
    for (String statement : sessionSql(warehouse, events)) {
      tableEnv.executeSql(statement);
    }
    return tableEnv;
  }

  /** The statements {@link #session} runs, for a SQL client or a log. */
  public static List<String> sessionSql(String warehouse, Events events) {
    List<String> sql = new ArrayList<>();
    for (NexmarkTable table :
        List.of(NexmarkTable.PERSON, NexmarkTable.AUCTION, NexmarkTable.BID)) {
      sql.add(sourceDdl(table, events));
    }
    sql.add("CREATE TEMPORARY FUNCTION count_char AS '" + CountChar.class.getName() + "'");
    sql.add(
        "CREATE CATALOG "
            + CATALOG
            + " WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
            + warehouse
            + "')");
    sql.add("CREATE DATABASE IF NOT EXISTS " + CATALOG + "." + DATABASE);
    return sql;
  }

  /**
   * {@code CREATE TEMPORARY TABLE <person|auction|bid> (...) WITH ('connector' = 'frazil-nexmark',
   * ...)}.
   */
  public static String sourceDdl(NexmarkTable table, Events events) {
    RowType type = table.rowType();
    StringBuilder ddl =
        new StringBuilder("CREATE TEMPORARY TABLE ").append(table.optionValue()).append(" (");
    for (RowType.RowField field : type.getFields()) {
      ddl.append('`')
          .append(field.getName())
          .append("` ")
          .append(field.getType().asSerializableString())
          .append(", ");
    }
    ddl.append("WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND) WITH (")
        .append("'connector' = '")
        .append(NexmarkTableFactory.IDENTIFIER)
        .append("', 'table' = '")
        .append(table.optionValue())
        .append(String.format(Locale.ROOT, "', 'events' = '%d'", events.events))
        .append(String.format(Locale.ROOT, ", 'events-per-second' = '%d'", events.eventsPerSecond))
        .append(String.format(Locale.ROOT, ", 'seed' = '%d')", events.seed));
    return ddl.toString();
  }

  /** {@code catalog.database.name} of a result table. */
  public static String qualified(String table) {
    return CATALOG + "." + DATABASE + "." + table;
  }

  /** The result tables' options: format version plus {@code extra} (e.g. Frazil's table switch). */
  public static String with(int formatVersion, Map<String, String> extra) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("format-version", Integer.toString(formatVersion));
    options.putAll(extra);
    List<String> pairs = new ArrayList<>();
    options.forEach((k, v) -> pairs.add("'" + k + "' = '" + v + "'"));
    return String.join(", ", pairs);
  }

  /**
   * Creates {@code query}'s result table {@code table} (and its bucket spec through {@code
   * catalog}, before any data) and submits its job; returns the running job.
   */
  public static JobClient submit(
      StreamTableEnvironment tableEnv,
      HadoopCatalog catalog,
      NexmarkQuery query,
      String table,
      String with,
      String landedBids) {
    tableEnv.executeSql(query.createSql(qualified(table), with));
    if (query.bucketColumn() != null) {
      Table created = catalog.loadTable(TableIdentifier.of(DATABASE, table));
      created
          .updateSpec()
          .addField(Expressions.bucket(query.bucketColumn(), query.buckets()))
          .commit();
    }
    TableResult result =
        tableEnv.executeSql(
            query.insertSql(qualified(table), landedBids == null ? null : qualified(landedBids)));
    return result
        .getJobClient()
        .orElseThrow(() -> new IllegalStateException("INSERT of " + query.name() + " ran no job"));
  }

  /** Lands the generator's bids in Iceberg table {@code table} (what {@code q0-read} reads). */
  public static JobClient landBids(
      StreamTableEnvironment tableEnv, String table, int formatVersion) {
    tableEnv.executeSql(
        "CREATE TABLE "
            + qualified(table)
            + " (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
            + " `dateTime` TIMESTAMP(3), extra STRING) WITH ("
            + with(formatVersion, Map.of())
            + ")");
    return tableEnv
        .executeSql("INSERT INTO " + qualified(table) + " SELECT * FROM bid")
        .getJobClient()
        .orElseThrow(() -> new IllegalStateException("landing the bids ran no job"));
  }
}
