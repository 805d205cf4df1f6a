package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.flink.routing.FrazilRouting;
import io.frazil.flink.routing.FrazilTaskWriterFactory;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.flink.sink.TaskWriterFactory;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Frazil's memoized task writers against Iceberg's on the same rows and tables: the same files per
 * partition, the same deletes, the same committed rows; and the routing pass that puts them into
 * FlinkSink jobs.
 */
public class TestFrazilRouting {
  @RegisterExtension
  static final FrazilMiniCluster MINI_CLUSTER =
      FrazilMiniCluster.installedBy(() -> assertThat(FrazilFlink.install()).isTrue());

  private static final long TARGET_FILE_SIZE = 128L * 1024 * 1024;

  @TempDir private File warehouse;

  /** bucket(id, 4) and bucket(id, 3) × bucket(data, 5) (data has nulls: the null slot). */
  private PartitionSpec spec(String shape) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(FlinkJobs.SCHEMA);
    switch (shape) {
      case "bucket4":
        return builder.bucket("id", 4).build();
      case "bucket3x5":
        return builder.bucket("id", 3).bucket("data", 5).build();
      case "bucket32x32":
        return builder.bucket("id", 32).bucket("data", 32).build();
      case "identity":
        return builder.identity("category").build();
      case "identity_id":
        return builder.identity("id").build();
      case "truncate":
        return builder.truncate("data", 2).build();
      case "identity_x_bucket":
        return builder.identity("category").bucket("id", 4).build();
      case "unpartitioned":
        return PartitionSpec.unpartitioned();
      default:
        throw new IllegalArgumentException(shape);
    }
  }

  private Table table(String name, String shape, int version, Map<String, String> props) {
    Map<String, String> properties = Maps.newHashMap(props);
    properties.put(TableProperties.FORMAT_VERSION, String.valueOf(version));
    return FlinkJobs.catalog(warehouse)
        .createTable(
            TableIdentifier.of(FlinkJobs.DATABASE, name),
            FlinkJobs.SCHEMA,
            spec(shape),
            properties);
  }

  /** Rows with ~1 in 9 null {@code data}; with {@code updates} every id appears twice. */
  private static List<RowData> rows(int count, boolean updates) {
    Random random = new Random(7);
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < count; i += 1) {
      long id = updates ? i % (count / 2) : i;
      String data = random.nextInt(9) == 0 ? null : "d" + random.nextInt(1000);
      rows.add(
          GenericRowData.of(
              id,
              data == null ? null : StringData.fromString(data),
              StringData.fromString("c" + (id % 5)),
              id * 0.5));
    }
    return rows;
  }

  private static RowDataTaskWriterFactory stockFactory(Table table, boolean upsert) {
    return new RowDataTaskWriterFactory(
        table,
        FlinkJobs.ROW_TYPE,
        TARGET_FILE_SIZE,
        FileFormat.PARQUET,
        Map.of(),
        upsert ? List.of(1) : List.of(),
        upsert);
  }

  private static WriteResult write(TaskWriterFactory<RowData> factory, List<RowData> rows)
      throws Exception {
    factory.initialize(0, 0);
    TaskWriter<RowData> writer = factory.create();
    for (RowData row : rows) {
      writer.write(row);
    }
    return writer.complete();
  }

  private static String writerClass(TaskWriterFactory<RowData> factory) throws Exception {
    factory.initialize(0, 0);
    TaskWriter<RowData> writer = factory.create();
    String name = writer.getClass().getSimpleName();
    writer.abort();
    return name;
  }

  private static void commit(Table table, WriteResult result) {
    RowDelta delta = table.newRowDelta();
    for (org.apache.iceberg.DataFile file : result.dataFiles()) {
      delta.addRows(file);
    }
    for (org.apache.iceberg.DeleteFile file : result.deleteFiles()) {
      delta.addDeletes(file);
    }
    delta.commit();
  }

  /** partition path → (files, rows) for one content kind, in a stable order. */
  private static Map<String, List<Long>> layout(
      Table table, Iterable<? extends ContentFile<?>> files) {
    Map<String, List<Long>> layout = new TreeMap<>();
    for (ContentFile<?> file : files) {
      String path = table.specs().get(file.specId()).partitionToPath(file.partition());
      layout.computeIfAbsent(path, p -> new ArrayList<>()).add(file.recordCount());
    }
    layout.values().forEach(counts -> counts.sort(Long::compare));
    return layout;
  }

  @ParameterizedTest(name = "{0} v{1} upsert={2}")
  @CsvSource({
    "bucket4, 2, false",
    "bucket4, 3, false",
    "bucket3x5, 2, false",
    "bucket4, 2, true",
    "bucket4, 3, true",
    "bucket3x5, 2, true",
    "bucket3x5, 3, true"
  })
  public void memoizedWritersWriteWhatIcebergsWriterWrites(
      String shape, int version, boolean upsert) throws Exception {
    Map<String, String> props = Map.of();
    String suffix = shape + "_v" + version + (upsert ? "_upsert" : "");
    Table stockTable = table("stock_" + suffix, shape, version, props);
    Table frazilTable = table("frazil_" + suffix, shape, version, props);
    List<RowData> rows = rows(6000, upsert);
    if (upsert && shape.equals("bucket3x5")) {
      // data is a partition source: keep it fixed per id so the key (id) decides the partition,
      // as a sink's validation would require.
      rows =
          rows.stream()
              .map(
                  r ->
                      (RowData)
                          GenericRowData.of(
                              r.getLong(0),
                              StringData.fromString("k" + (r.getLong(0) % 11)),
                              r.getString(2),
                              r.getDouble(3)))
              .collect(Collectors.toList());
    }

    long before = FrazilTaskWriterFactory.memoizedWriters();
    WriteResult stock = write(stockFactory(stockTable, upsert), rows);
    TaskWriterFactory<RowData> frazil =
        FrazilTaskWriterFactory.wrap(stockFactory(frazilTable, upsert));
    WriteResult memoized = write(frazil, rows);
    assertThat(FrazilTaskWriterFactory.memoizedWriters()).isEqualTo(before + 1);

    assertThat(layout(frazilTable, List.of(memoized.dataFiles())))
        .isEqualTo(layout(stockTable, List.of(stock.dataFiles())))
        .isNotEmpty();
    assertThat(layout(frazilTable, List.of(memoized.deleteFiles())))
        .isEqualTo(layout(stockTable, List.of(stock.deleteFiles())));
    assertThat(memoized.referencedDataFiles()).hasSameSizeAs(stock.referencedDataFiles());
    if (upsert) {
      assertThat(memoized.deleteFiles()).isNotEmpty();
    }

    commit(stockTable, stock);
    commit(frazilTable, memoized);
    assertThat(TestFlinkSinks.rowsOf(FlinkJobs.read(frazilTable)))
        .containsExactlyInAnyOrderElementsOf(TestFlinkSinks.rowsOf(FlinkJobs.read(stockTable)));
  }

  /**
   * Appends to specs the memo does not take go through Iceberg's fan-out writer with a row wrapper
   * whose getters are built once: same files per partition, same rows as Iceberg's writer.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"identity", "identity_id", "truncate", "identity_x_bucket"})
  public void cachedGetterWritersWriteWhatIcebergsWriterWrites(String shape) throws Exception {
    Table stockTable = table("stock_cg_" + shape, shape, 2, Map.of());
    Table frazilTable = table("frazil_cg_" + shape, shape, 2, Map.of());
    // 13 ids, each in many rows: identity(id) (a bigint, read through a cached getter) opens 13
    // files, not one per row.
    List<RowData> rows =
        rows(6000, false).stream()
            .map(
                r ->
                    (RowData)
                        GenericRowData.of(
                            r.getLong(0) % 13,
                            r.isNullAt(1) ? null : r.getString(1),
                            r.getString(2),
                            r.getDouble(3)))
            .collect(Collectors.toList());

    long before = FrazilTaskWriterFactory.cachedGetterWriters();
    WriteResult stock = write(stockFactory(stockTable, false), rows);
    WriteResult cached =
        write(FrazilTaskWriterFactory.wrap(stockFactory(frazilTable, false)), rows);
    assertThat(FrazilTaskWriterFactory.cachedGetterWriters()).isEqualTo(before + 1);

    assertThat(layout(frazilTable, List.of(cached.dataFiles())))
        .isEqualTo(layout(stockTable, List.of(stock.dataFiles())))
        .hasSizeGreaterThan(1);
    commit(stockTable, stock);
    commit(frazilTable, cached);
    assertThat(TestFlinkSinks.rowsOf(FlinkJobs.read(frazilTable)))
        .containsExactlyInAnyOrderElementsOf(TestFlinkSinks.rowsOf(FlinkJobs.read(stockTable)));
  }

  @Test
  public void writerChoice() throws Exception {
    Table eligible = table("eligible", "bucket3x5", 2, Map.of());
    assertThat(writerClass(FrazilTaskWriterFactory.wrap(stockFactory(eligible, false))))
        .isEqualTo("MemoizedFanoutWriter");
    assertThat(writerClass(FrazilTaskWriterFactory.wrap(stockFactory(eligible, true))))
        .isEqualTo("FrazilPartitionedDeltaWriter");

    // 33 × 33 tuples is over the bound; identity is not a bucket transform: Iceberg's fan-out
    // writer with getters built once for appends, Iceberg's own writers for deltas.
    Table tooLarge = table("too_large", "bucket32x32", 2, Map.of());
    Table identity = table("identity", "identity", 2, Map.of());
    for (Table table : List.of(tooLarge, identity)) {
      assertThat(writerClass(FrazilTaskWriterFactory.wrap(stockFactory(table, false))))
          .as("append writer for %s", table.name())
          .isEqualTo("CachedGetterFanoutWriter");
      assertThat(writerClass(FrazilTaskWriterFactory.wrap(stockFactory(table, true))))
          .as("delta writer for %s", table.name())
          .isEqualTo(writerClass(stockFactory(table, true)));
    }
    assertThat(writerClass(stockFactory(tooLarge, false)))
        .isEqualTo("RowDataPartitionedFanoutWriter");

    Table memoOff =
        table("memo_off", "bucket4", 2, Map.of(FrazilTaskWriterFactory.TABLE_PROPERTY, "false"));
    Table frazilOff =
        table("frazil_off", "bucket4", 2, Map.of(FrazilFlink.TABLE_PROPERTY, "false"));
    Table identityOff =
        table(
            "identity_off", "identity", 2, Map.of(FrazilTaskWriterFactory.TABLE_PROPERTY, "false"));
    Table unpartitioned = table("unpartitioned", "unpartitioned", 2, Map.of());
    for (Table table : List.of(memoOff, frazilOff, identityOff, unpartitioned)) {
      assertThat(writerClass(FrazilTaskWriterFactory.wrap(stockFactory(table, false))))
          .as("append writer for %s", table.name())
          .isEqualTo(writerClass(stockFactory(table, false)))
          .isNotIn("MemoizedFanoutWriter", "CachedGetterFanoutWriter");
    }

    String previous = System.setProperty(FrazilTaskWriterFactory.SYSTEM_PROPERTY, "false");
    try {
      assertThat(writerClass(FrazilTaskWriterFactory.wrap(stockFactory(eligible, false))))
          .isEqualTo("RowDataPartitionedFanoutWriter");
      assertThat(writerClass(FrazilTaskWriterFactory.wrap(stockFactory(identity, false))))
          .isEqualTo("RowDataPartitionedFanoutWriter");
    } finally {
      if (previous == null) {
        System.clearProperty(FrazilTaskWriterFactory.SYSTEM_PROPERTY);
      } else {
        System.setProperty(FrazilTaskWriterFactory.SYSTEM_PROPERTY, previous);
      }
    }
  }

  /**
   * {@code append}: a table without identifier fields (fan-out writer); {@code delta}: with an
   * identifier field, which FlinkSink turns into equality fields (delta writer, no upsert); {@code
   * upsert}: delta writer in upsert mode.
   */
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "FlinkSink, append",
    "FlinkSink, delta",
    "FlinkSink, upsert",
    "IcebergSink, append",
    "IcebergSink, delta",
    "IcebergSink, upsert"
  })
  public void hashDistributionRoutesThroughTheMemo(String sink, String mode) throws Exception {
    String name = "hash_" + sink.toLowerCase(java.util.Locale.ROOT) + "_" + mode;
    org.apache.iceberg.Schema schema =
        mode.equals("append")
            ? new org.apache.iceberg.Schema(FlinkJobs.SCHEMA.columns())
            : FlinkJobs.SCHEMA;
    Table table =
        FlinkJobs.catalog(warehouse)
            .createTable(
                TableIdentifier.of(FlinkJobs.DATABASE, name),
                schema,
                PartitionSpec.builderFor(schema).bucket("id", 4).build(),
                Map.of(TableProperties.FORMAT_VERSION, "2"));
    List<RowData> rows = FlinkJobs.rows(0, 4000, "a");
    boolean upsert = mode.equals("upsert");

    StreamExecutionEnvironment env = FlinkJobs.env();
    TypeInformation<RowData> typeInfo = InternalTypeInfo.of(FlinkJobs.ROW_TYPE);
    // One source subtask (see README: Iceberg 1.11's FlinkSink and parallel bounded sources).
    DataStream<RowData> input = env.fromData(rows, typeInfo).setParallelism(1);
    if (sink.equals("FlinkSink")) {
      FlinkSink.forRowData(input)
          .tableLoader(FlinkJobs.tableLoader(warehouse, name))
          .distributionMode(DistributionMode.HASH)
          .upsert(upsert)
          .equalityFieldColumns(upsert ? List.of("id") : List.of())
          .writeParallelism(2)
          .append();
    } else {
      IcebergSink.forRowData(input)
          .tableLoader(FlinkJobs.tableLoader(warehouse, name))
          .distributionMode(DistributionMode.HASH)
          .upsert(upsert)
          .equalityFieldColumns(upsert ? List.of("id") : List.of())
          .writeParallelism(2)
          .append();
    }
    long before = FrazilTaskWriterFactory.memoizedWriters();
    long deltaBefore = FrazilTaskWriterFactory.memoizedDeltaWriters();
    // FlinkSink: the stream writer's factory, the hash partitioner's key selector and the writer's
    // state key. IcebergSink: the sink itself, whose writers and distribution are translated later.
    assertThat(FrazilRouting.accelerate(env)).isEqualTo(sink.equals("FlinkSink") ? 3 : 1);
    assertThat(FrazilRouting.accelerate(env)).as("a second pass changes nothing").isZero();
    env.execute(name);

    assertThat(FrazilTaskWriterFactory.memoizedWriters()).isGreaterThan(before);
    long delta = FrazilTaskWriterFactory.memoizedDeltaWriters() - deltaBefore;
    long all = FrazilTaskWriterFactory.memoizedWriters() - before;
    assertThat(delta)
        .as("delta writers among %s memoized writers", all)
        .isEqualTo(mode.equals("append") ? 0 : all);
    assertThat(TestFlinkSinks.rowsOf(FlinkJobs.read(table)))
        .containsExactlyInAnyOrderElementsOf(TestFlinkSinks.strings(rows));
    // Hash distribution by partition: each bucket is written by exactly one subtask, so every
    // data file of a bucket carries the same writer task id in its name.
    Map<String, Set<String>> tasksPerPartition = Maps.newHashMap();
    for (org.apache.iceberg.DataFile file : FlinkJobs.files(table).dataFiles) {
      String path = table.spec().partitionToPath(file.partition());
      String fileName = file.location().substring(file.location().lastIndexOf('/') + 1);
      tasksPerPartition
          .computeIfAbsent(path, p -> new java.util.HashSet<>())
          .add(fileName.split("-")[0]);
      assertThat(path).isEqualTo(table.spec().partitionToPath(partitionOf(table, file)));
    }
    assertThat(tasksPerPartition).hasSize(4);
    assertThat(tasksPerPartition.values()).allMatch(tasks -> tasks.size() == 1);
  }

  /**
   * Dynamic Iceberg Sink: forward appends (writers chained to the generator) and hash-distributed
   * upserts (writer keys from the partition path) both route by memo, and every data file holds
   * exactly the rows of its partition.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"forward", "hash-upsert"})
  public void dynamicSinkRoutesThroughTheMemo(String mode) throws Exception {
    String name = "dynamic_" + mode.replace('-', '_');
    Table table = table(name, "bucket4", 3, Map.of());
    boolean upsert = mode.equals("hash-upsert");
    List<RowData> rows = FlinkJobs.rows(0, 4000, "a");

    long writersBefore = FrazilTaskWriterFactory.memoizedWriters();
    long keysBefore =
        org.apache.iceberg.flink.sink.dynamic.FrazilDynamicRouting.memoizedKeySelectors();
    FlinkJobs.write(warehouse, name, JobTables.Sink.DYNAMIC_SINK, rows, upsert);
    if (upsert) {
      // Update every other id: the equality deletes and deletion vectors must land per partition.
      List<RowData> updates = new ArrayList<>();
      for (long id = 0; id < 4000; id += 2) {
        updates.add(FlinkJobs.row(id, "b-" + id));
      }
      FlinkJobs.write(warehouse, name, JobTables.Sink.DYNAMIC_SINK, updates, true);
      rows = new ArrayList<>(rows);
      for (RowData update : updates) {
        rows.set((int) update.getLong(0), update);
      }
    }

    assertThat(FrazilTaskWriterFactory.memoizedWriters()).isGreaterThan(writersBefore);
    long keys =
        org.apache.iceberg.flink.sink.dynamic.FrazilDynamicRouting.memoizedKeySelectors()
            - keysBefore;
    // One selector per generator subtask and job when rows are hash-distributed; none forward.
    assertThat(keys > 0).as("%s writer-key selectors on the memo", keys).isEqualTo(upsert);
    table.refresh();
    assertThat(TestFlinkSinks.rowsOf(FlinkJobs.read(table)))
        .containsExactlyInAnyOrderElementsOf(TestFlinkSinks.strings(rows));
    Map<String, Set<String>> tasksPerPartition = Maps.newHashMap();
    for (org.apache.iceberg.DataFile file : FlinkJobs.files(table).dataFiles) {
      String path = table.spec().partitionToPath(file.partition());
      assertThat(path).isEqualTo(table.spec().partitionToPath(partitionOf(table, file)));
      String fileName = file.location().substring(file.location().lastIndexOf('/') + 1);
      tasksPerPartition
          .computeIfAbsent(path, p -> new java.util.HashSet<>())
          .add(fileName.split("-")[0]);
    }
    assertThat(tasksPerPartition).hasSize(4);
    if (upsert) {
      // Hash distribution by partition path: each bucket is written by one writer subtask.
      assertThat(tasksPerPartition.values()).allMatch(tasks -> tasks.size() == 1);
    }
  }

  /** SQL INSERT attached to a DataStream job: the planner's FlinkSink routes by memo. */
  @ParameterizedTest(name = "upsert={0}")
  @CsvSource({"false", "true"})
  public void sqlInsertAttachedToTheJobRoutesThroughTheMemo(boolean upsert) throws Exception {
    String name = "sql_" + upsert;
    Table table = table(name, "bucket4", 2, Map.of());
    List<RowData> rows = FlinkJobs.rows(0, 3000, "a");
    long before = FrazilTaskWriterFactory.memoizedWriters();
    FlinkJobs.writeSqlAttached(warehouse, name, rows, upsert);

    assertThat(FrazilTaskWriterFactory.memoizedWriters()).isGreaterThan(before);
    assertThat(TestFlinkSinks.rowsOf(FlinkJobs.read(table)))
        .containsExactlyInAnyOrderElementsOf(TestFlinkSinks.strings(rows));
    for (org.apache.iceberg.DataFile file : FlinkJobs.files(table).dataFiles) {
      assertThat(table.spec().partitionToPath(file.partition()))
          .isEqualTo(table.spec().partitionToPath(partitionOf(table, file)));
    }
  }

  /**
   * Dynamic sink spec evolution: records switch from bucket(id, 4) to bucket(id, 8); the sink
   * evolves the table and the writers build a memo per spec id, so each file is in its own spec's
   * partition.
   */
  @Test
  public void dynamicSinkSpecEvolutionGetsAMemoPerSpec() throws Exception {
    String name = "dynamic_evolution";
    Table table = table(name, "bucket4", 2, Map.of());
    List<RowData> first = FlinkJobs.rows(0, 2000, "a");
    FlinkJobs.write(warehouse, name, JobTables.Sink.DYNAMIC_SINK, first, false);

    PartitionSpec wider = PartitionSpec.builderFor(FlinkJobs.SCHEMA).bucket("id", 8).build();
    List<RowData> second = FlinkJobs.rows(2000, 2000, "b");
    long before = FrazilTaskWriterFactory.memoizedWriters();
    StreamExecutionEnvironment env = FlinkJobs.env();
    DataStream<RowData> input =
        env.fromData(second, InternalTypeInfo.of(FlinkJobs.ROW_TYPE)).setParallelism(1);
    org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink.forInput(input)
        .generator(FlinkJobs.generator(TableIdentifier.of(FlinkJobs.DATABASE, name), wider, false))
        .catalogLoader(FlinkJobs.catalogLoader(warehouse))
        .writeParallelism(2)
        .immediateTableUpdate(true)
        .append();
    assertThat(FrazilRouting.accelerate(env)).isEqualTo(3);
    env.execute(name);
    assertThat(FrazilTaskWriterFactory.memoizedWriters()).isGreaterThan(before);

    table.refresh();
    assertThat(table.specs()).hasSize(2);
    assertThat(table.spec().fields().get(0).transform().toString()).isEqualTo("bucket[8]");
    List<RowData> all = new ArrayList<>(first);
    all.addAll(second);
    assertThat(TestFlinkSinks.rowsOf(FlinkJobs.read(table)))
        .containsExactlyInAnyOrderElementsOf(TestFlinkSinks.strings(all));
    Map<Integer, Integer> filesPerSpec = Maps.newHashMap();
    for (org.apache.iceberg.DataFile file : FlinkJobs.files(table).dataFiles) {
      PartitionSpec spec = table.specs().get(file.specId());
      filesPerSpec.merge(file.specId(), 1, Integer::sum);
      assertThat(spec.partitionToPath(file.partition()))
          .as("file %s of spec %s", file.location(), file.specId())
          .isEqualTo(spec.partitionToPath(partitionOf(table, spec, file)));
    }
    assertThat(filesPerSpec.keySet()).containsExactlyInAnyOrder(0, 1);
  }

  /** The partition recomputed from the file's own rows by Iceberg's PartitionKey. */
  private static org.apache.iceberg.StructLike partitionOf(
      Table table, org.apache.iceberg.DataFile file) throws java.io.IOException {
    return partitionOf(table, table.spec(), file);
  }

  private static org.apache.iceberg.StructLike partitionOf(
      Table table, PartitionSpec spec, org.apache.iceberg.DataFile file)
      throws java.io.IOException {
    org.apache.iceberg.PartitionKey key = new org.apache.iceberg.PartitionKey(spec, table.schema());
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> records =
        org.apache.iceberg.parquet.Parquet.read(table.io().newInputFile(file.location()))
            .project(table.schema())
            .createReaderFunc(
                type ->
                    org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(
                        table.schema(), type))
            .build()) {
      org.apache.iceberg.PartitionKey first = null;
      for (org.apache.iceberg.data.Record record : records) {
        key.partition(record);
        if (first == null) {
          first = key.copy();
        } else {
          assertThat(key).as("every row of %s in one partition", file.location()).isEqualTo(first);
        }
      }
      return first;
    }
  }

  @Test
  public void rowKindsReachTheDeltaWriter() throws Exception {
    Table stockTable = table("kinds_stock", "bucket4", 2, Map.of());
    Table frazilTable = table("kinds_frazil", "bucket4", 2, Map.of());
    List<RowData> rows = new ArrayList<>(FlinkJobs.rows(0, 100, "a"));
    for (long id = 0; id < 50; id += 1) {
      RowData delete = FlinkJobs.row(id, "a-" + id);
      delete.setRowKind(RowKind.DELETE);
      rows.add(delete);
    }
    // Not upsert: deletes carry the whole row (equality delete on every column).
    RowDataTaskWriterFactory stockFactory =
        new RowDataTaskWriterFactory(
            stockTable,
            FlinkJobs.ROW_TYPE,
            TARGET_FILE_SIZE,
            FileFormat.PARQUET,
            Map.of(),
            List.of(1),
            false);
    RowDataTaskWriterFactory frazilDelegate =
        new RowDataTaskWriterFactory(
            frazilTable,
            FlinkJobs.ROW_TYPE,
            TARGET_FILE_SIZE,
            FileFormat.PARQUET,
            Map.of(),
            List.of(1),
            false);
    WriteResult stock = write(stockFactory, rows);
    WriteResult memoized = write(FrazilTaskWriterFactory.wrap(frazilDelegate), rows);
    commit(stockTable, stock);
    commit(frazilTable, memoized);
    assertThat(TestFlinkSinks.rowsOf(FlinkJobs.read(frazilTable)))
        .hasSize(50)
        .containsExactlyInAnyOrderElementsOf(TestFlinkSinks.rowsOf(FlinkJobs.read(stockTable)));
  }
}
