package example.clusterjob;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Writes rows 0..rows-1 with one SQL {@code INSERT INTO} through Iceberg's Flink catalog and SQL
 * connector. The table is created by the Iceberg API (bucket partitioning has no Flink DDL).
 *
 * <pre>
 * --warehouse DIR --table db.t --rows N [--parallelism 2] [--catalog-impl CLASS --catalog-props k=v,...]
 * </pre>
 */
public final class SqlInsertJob {
  private SqlInsertJob() {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String table = args.get("table");
    long rows = args.getLong("rows", 100_000);
    int parallelism = args.getInt("parallelism", 2);

    Tables.create(args, table, Rows.SCHEMA, Rows.SPEC);

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    tables.createTemporaryView(
        "src", env.fromSequence(0, rows - 1).map(Rows::row).returns(Rows.ROW_TYPE));
    StringBuilder with = new StringBuilder("'type'='iceberg', 'catalog-impl'='");
    with.append(Tables.impl(args)).append('\'');
    Tables.properties(args)
        .forEach((k, v) -> with.append(", '").append(k).append("'='").append(v).append('\''));
    tables.executeSql("CREATE CATALOG ice WITH (" + with + ")");
    tables
        .executeSql(
            "INSERT INTO `ice`.`"
                + table.replace(".", "`.`")
                + "` SELECT id, category, name, CAST(amount AS DECIMAL(12, 2)),"
                + " CAST(ts AS TIMESTAMP(6)), flag FROM src")
        .await();
  }
}
