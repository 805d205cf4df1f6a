package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.flink.routing.FrazilRouting;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.JobTables;
import io.frazil.testkit.JobTables.Partitioning;
import io.frazil.testkit.JobTables.Sink;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.relocated.com.google.common.collect.Sets;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/** Runs Iceberg Flink sinks on the shared MiniCluster and inspects what they committed. */
final class FlinkJobs {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "data", Types.StringType.get()),
              Types.NestedField.optional(3, "category", Types.StringType.get()),
              Types.NestedField.optional(4, "price", Types.DoubleType.get())),
          Set.of(1));

  static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);
  static final String CATALOG = JobTables.CATALOG;
  static final String DATABASE = JobTables.DATABASE;

  private FlinkJobs() {}

  /**
   * The MiniCluster every Flink test class runs on: one TaskManager (so a job that killed it would
   * leave the next one waiting for slots) with four slots. Classes that run Frazil jobs register it
   * through {@link FrazilMiniCluster}.
   */
  static MiniClusterExtension miniCluster() {
    return miniCluster(new org.apache.flink.configuration.Configuration());
  }

  /** The same MiniCluster with {@code extra} added to its configuration. */
  static MiniClusterExtension miniCluster(org.apache.flink.configuration.Configuration extra) {
    // Bounded restarts: with checkpointing on, Flink's default restarts a failing job forever, so
    // a job that cannot succeed (a class that fails to initialize, say) would hang the test
    // instead of failing it.
    org.apache.flink.configuration.Configuration conf =
        new org.apache.flink.configuration.Configuration(extra);
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "3");
    conf.setString("restart-strategy.fixed-delay.delay", "200 ms");
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(conf)
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());
  }

  /**
   * Installs Frazil as a cluster does: a JobManager/TaskManager initializes its file systems at
   * startup, which runs Frazil's bootstrap factory from the classpath; the MiniCluster skips that
   * step, so tests do it.
   */
  static void installLikeAClusterDoes() {
    FileSystem.initialize(new org.apache.flink.configuration.Configuration(), null);
    assertThat(FrazilFlink.isInstalled()).as("installed by the FileSystemFactory hook").isTrue();
  }

  /** Every writer of the finished jobs gave its Arrow and native memory back. */
  static void assertNothingLeaked() {
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
    assertThat(NativeParquetWriter.liveWriterCount()).as("native writers left open").isZero();
  }

  static PartitionSpec spec(Partitioning partitioning) {
    return JobTables.spec(SCHEMA, partitioning);
  }

  static CatalogLoader catalogLoader(File warehouse) {
    return JobTables.catalogLoader(warehouse);
  }

  static TableLoader tableLoader(File warehouse, String table) {
    return TableLoader.fromCatalog(catalogLoader(warehouse), TableIdentifier.of(DATABASE, table));
  }

  static HadoopCatalog catalog(File warehouse) {
    return JobTables.catalog(warehouse);
  }

  static Table createTable(
      File warehouse,
      String name,
      Partitioning partitioning,
      int formatVersion,
      Map<String, String> props) {
    return JobTables.createTable(warehouse, name, SCHEMA, partitioning, formatVersion, props);
  }

  static RowData row(long id, String data) {
    return GenericRowData.of(
        id,
        StringData.fromString(data),
        StringData.fromString("c" + (id % 5)),
        id % 7 == 0 ? null : id * 1.5);
  }

  /** Rows 0..count-1; with {@code version} in the data so upserts are visible. */
  static List<RowData> rows(long from, long count, String version) {
    List<RowData> rows = Lists.newArrayList();
    for (long id = from; id < from + count; id += 1) {
      rows.add(row(id, version + "-" + id));
    }
    return rows;
  }

  static StreamExecutionEnvironment env() {
    return env(2);
  }

  static StreamExecutionEnvironment env(int parallelism) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    env.enableCheckpointing(200, CheckpointingMode.EXACTLY_ONCE);
    return env;
  }

  /** Writes {@code rows} into the table with the given sink and waits for the job to finish. */
  static void write(File warehouse, String table, Sink sink, List<RowData> rows, boolean upsert)
      throws Exception {
    StreamExecutionEnvironment env = env();
    TypeInformation<RowData> typeInfo = InternalTypeInfo.of(ROW_TYPE);
    TableIdentifier identifier = TableIdentifier.of(DATABASE, table);
    CatalogLoader catalogLoader = catalogLoader(warehouse);
    List<String> equalityColumns = upsert ? List.of("id") : List.of();
    switch (sink) {
      case FLINK_SINK:
        {
          DataStream<RowData> input = env.fromData(rows, typeInfo);
          FlinkSink.forRowData(input)
              .tableLoader(TableLoader.fromCatalog(catalogLoader, identifier))
              .upsert(upsert)
              .equalityFieldColumns(equalityColumns)
              .append();
          // What a job does to get the partition-key memoizer into FlinkSink's writers.
          FrazilRouting.accelerate(env);
          env.execute("FlinkSink " + table);
          break;
        }
      case ICEBERG_SINK:
        {
          DataStream<RowData> input = env.fromData(rows, typeInfo);
          IcebergSink.forRowData(input)
              .tableLoader(TableLoader.fromCatalog(catalogLoader, identifier))
              .upsert(upsert)
              .equalityFieldColumns(equalityColumns)
              .append();
          FrazilRouting.accelerate(env);
          env.execute("IcebergSink " + table);
          break;
        }
      case DYNAMIC_SINK:
        {
          Table loaded = catalog(warehouse).loadTable(identifier);
          DataStream<RowData> input = env.fromData(rows, typeInfo);
          DynamicIcebergSink.forInput(input)
              .generator(generator(identifier, loaded.spec(), upsert))
              .catalogLoader(catalogLoader)
              .writeParallelism(2)
              .append();
          FrazilRouting.accelerate(env);
          env.execute("DynamicIcebergSink " + table);
          break;
        }
      case SQL:
        writeSql(env, warehouse, table, rows, upsert, false);
        break;
      default:
        throw new IllegalArgumentException("Unknown sink " + sink);
    }
  }

  private static void writeSql(
      StreamExecutionEnvironment env,
      File warehouse,
      String table,
      List<RowData> rows,
      boolean upsert,
      boolean attach)
      throws Exception {
    StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);
    tableEnv.executeSql(JobTables.createCatalogSql(warehouse));
    DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(ROW_TYPE));
    tableEnv.createTemporaryView(
        "src",
        tableEnv.fromDataStream(
            input
                .map(r -> toRow(r))
                .returns(
                    org.apache.flink.api.common.typeinfo.Types.ROW_NAMED(
                        new String[] {"id", "data", "category", "price"},
                        org.apache.flink.api.common.typeinfo.Types.LONG,
                        org.apache.flink.api.common.typeinfo.Types.STRING,
                        org.apache.flink.api.common.typeinfo.Types.STRING,
                        org.apache.flink.api.common.typeinfo.Types.DOUBLE))));
    String hint = upsert ? " /*+ OPTIONS('upsert-enabled'='true') */" : "";
    String insert =
        "INSERT INTO " + CATALOG + "." + DATABASE + "." + table + hint + " SELECT * FROM src";
    if (!attach) {
      tableEnv.executeSql(insert).await();
      return;
    }
    // The INSERT's pipeline joins the DataStream job, where FrazilRouting can reach its sink.
    StreamStatementSet statements = tableEnv.createStatementSet();
    statements.addInsertSql(insert);
    statements.attachAsDataStream();
    FrazilRouting.accelerate(env);
    env.execute("SQL INSERT " + table);
  }

  /** SQL {@code INSERT} attached to the DataStream job, which runs through FrazilRouting. */
  static void writeSqlAttached(File warehouse, String table, List<RowData> rows, boolean upsert)
      throws Exception {
    writeSql(env(), warehouse, table, rows, upsert, true);
  }

  private static org.apache.flink.types.Row toRow(RowData row) {
    return org.apache.flink.types.Row.of(
        row.getLong(0),
        row.isNullAt(1) ? null : row.getString(1).toString(),
        row.isNullAt(2) ? null : row.getString(2).toString(),
        row.isNullAt(3) ? null : row.getDouble(3));
  }

  /**
   * The Dynamic Iceberg Sink's record generator: every row to one table; upserts hash-distributed
   * (partitioned tables route by partition key, and id is the bucket source).
   */
  static JobTables.Generator generator(
      TableIdentifier identifier, PartitionSpec spec, boolean upsert) {
    return new JobTables.Generator(identifier, SCHEMA, spec, upsert, DistributionMode.HASH);
  }

  static List<Record> read(Table table) throws IOException {
    table.refresh();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      return Lists.newArrayList(records);
    }
  }

  /** What the current snapshot references: live data files and their delete files. */
  static final class Files {
    final Set<DataFile> dataFiles = Sets.newHashSet();
    final Set<DeleteFile> deleteFiles = Sets.newHashSet();
  }

  static Files files(Table table) throws IOException {
    table.refresh();
    Files files = new Files();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.dataFiles.add(task.file());
        files.deleteFiles.addAll(task.deletes());
      }
    }
    return files;
  }

  static String createdBy(String location) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(new Path(location), new Configuration()))) {
      return reader.getFooter().getFileMetaData().getCreatedBy();
    }
  }

  static boolean isEqualityDelete(DeleteFile file) {
    return file.content() == FileContent.EQUALITY_DELETES;
  }

  static boolean isDeletionVector(DeleteFile file) {
    return file.format() == FileFormat.PUFFIN;
  }
}
