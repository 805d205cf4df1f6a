package io.frazil.validation;

import io.frazil.flink.FrazilFlink;
import io.frazil.testkit.JobTables;
import io.frazil.testkit.JobTables.Partitioning;
import io.frazil.testkit.JobTables.Sink;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Flink jobs on the shared MiniCluster (adapted from java-bridge's FlinkJobs / TestFlinkSinks; the
 * tables, sinks and Dynamic Iceberg Sink generator are testkit's {@link JobTables}): for each case,
 * a stock table ({@code write.parquet.frazil.enabled=false}) and a Frazil table get the same input
 * through the same sink; then rows, footers, manifest metrics, delete files and native resources
 * are checked.
 */
final class JobParity {
  static final String GROUP = "flink-job";
  static final String CATALOG = JobTables.CATALOG;
  static final String DATABASE = JobTables.DATABASE;

  /** One job case: both arms run it. */
  record Case(
      Sink sink,
      Partitioning partitioning,
      int formatVersion,
      boolean upsert,
      int rows,
      Map<String, String> props,
      int writeParallelism,
      long checkpointMillis,
      String extra) {
    String name() {
      return String.format(
          Locale.ROOT,
          "%s · %s · v%d · %s%s",
          sink.label,
          partitioning.name().toLowerCase(Locale.ROOT),
          formatVersion,
          upsert ? "upsert" : "append",
          extra.isEmpty() ? "" : " · " + extra);
    }

    String tableName() {
      return (sink
              + "_"
              + partitioning
              + "_v"
              + formatVersion
              + (upsert ? "_upsert" : "_append")
              + (extra.isEmpty() ? "" : "_x" + Integer.toHexString(extra.hashCode())))
          .toLowerCase(Locale.ROOT);
    }
  }

  private JobParity() {}

  static List<Case> cases(boolean smoke) {
    List<Case> cases = new ArrayList<>();
    if (smoke) {
      for (Sink sink : new Sink[] {Sink.FLINK_SINK, Sink.SQL}) {
        for (int version : new int[] {2, 3}) {
          for (boolean upsert : new boolean[] {false, true}) {
            cases.add(
                new Case(sink, Partitioning.BUCKET, version, upsert, 2000, Map.of(), 2, 200, ""));
          }
        }
      }
      return cases;
    }
    for (Sink sink : Sink.values()) {
      for (int version : new int[] {2, 3}) {
        for (Partitioning partitioning : Partitioning.values()) {
          cases.add(new Case(sink, partitioning, version, false, 50000, Map.of(), 2, 200, ""));
          // Upsert needs every partition source column among the equality fields (id here).
          if (partitioning != Partitioning.IDENTITY) {
            cases.add(new Case(sink, partitioning, version, true, 50000, Map.of(), 2, 200, ""));
          }
        }
      }
    }
    // Several row groups per file, rolled files, another zstd level; no periodic checkpoints so
    // the file and row-group cuts come from the writer alone.
    cases.add(
        new Case(
            Sink.FLINK_SINK,
            Partitioning.UNPARTITIONED,
            2,
            false,
            60000,
            Map.of(
                TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "65536",
                TableProperties.PARQUET_COMPRESSION_LEVEL, "9",
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1048576"),
            1,
            0,
            "64 KiB row groups, zstd 9, 1 MiB files, no checkpoints"));
    return cases;
  }

  static CaseResult run(Case c, File warehouse) {
    CaseResult result = new CaseResult(GROUP, c.name());
    result.params.put("sink", c.sink().label);
    result.params.put("partitioning", c.partitioning().name().toLowerCase(Locale.ROOT));
    result.params.put("format_version", c.formatVersion());
    result.params.put("mode", c.upsert() ? "upsert" : "append");
    result.params.put("input_rows", c.rows());
    result.params.put("write_parallelism", c.writeParallelism());
    result.params.put("checkpoint_ms", c.checkpointMillis());
    result.params.put("table_properties", new TreeMap<>(c.props()));
    Check rows = result.check(CaseResult.ROWS);
    Check footer = result.check(CaseResult.FOOTER);
    Check metrics = result.check(CaseResult.METRICS);
    Check deletes = result.check(CaseResult.DELETES);
    Check resources = result.check(CaseResult.RESOURCES);
    long start = System.nanoTime();
    Check current = rows;
    try {
      Map<String, String> stockProps = new HashMap<>(c.props());
      stockProps.put(FrazilFlink.TABLE_PROPERTY, "false");
      Table stock = createTable(warehouse, c.tableName() + "_stock", c, stockProps);
      Table frazil = createTable(warehouse, c.tableName() + "_frazil", c, c.props());
      result.params.put(
          "zstd_level",
          frazil
              .properties()
              .getOrDefault(TableProperties.PARQUET_COMPRESSION_LEVEL, "3 (default)"));

      long nativeBefore = FrazilFlink.nativeDataFiles();
      List<JobRow> expected = runArm(c, warehouse, stock, resources);
      long nativeAfterStock = FrazilFlink.nativeDataFiles();
      runArm(c, warehouse, frazil, resources);
      long nativeAfterFrazil = FrazilFlink.nativeDataFiles();

      // committed-result parity
      List<String> want = sortedCanonical(expected);
      List<String> stockRows = read(stock);
      List<String> frazilRows = read(frazil);
      rows.set("expected", want.size());
      rows.set("stock", stockRows.size());
      rows.set("frazil", frazilRows.size());
      sameRows(rows, want, stockRows, "stock table vs input");
      sameRows(rows, want, frazilRows, "Frazil table vs input");
      sameRows(rows, stockRows, frazilRows, "Frazil table vs stock table");
      rows.note(
          String.format(
              Locale.ROOT, "%d = %d = %d", want.size(), stockRows.size(), frazilRows.size()));

      ScanFiles stockFiles = files(stock);
      ScanFiles frazilFiles = files(frazil);

      // native footer witnesses
      current = footer;
      footer.expect(!frazilFiles.data.isEmpty(), "the Frazil table has no data files");
      for (DataFile file : frazilFiles.data) {
        footer.count("data files", 1);
        footer.equal(FileFormat.PARQUET, file.format(), "%s: format", shortName(file.location()));
        ParquetMetadata parsed = ParquetChecks.footer(file.location());
        ParquetChecks.nativeFooterWitnesses(
            footer, parsed, frazil.schema(), shortName(file.location()), "ZSTD");
        footer.equal(
            file.recordCount(),
            parsed.getBlocks().stream().mapToLong(b -> b.getRowCount()).sum(),
            "%s: footer rows vs manifest record count",
            shortName(file.location()));
      }
      for (DataFile file : stockFiles.data) {
        footer.count("stock data files", 1);
        String createdBy = ParquetChecks.footer(file.location()).getFileMetaData().getCreatedBy();
        footer.expect(
            createdBy.startsWith(ParquetChecks.STOCK_CREATED_BY),
            "stock-arm data file %s was written by '%s' (the table property must switch Frazil"
                + " off)",
            shortName(file.location()),
            createdBy);
      }
      footer.equal(
          0L, nativeAfterStock - nativeBefore, "native data files written for the stock table");
      footer.expect(
          nativeAfterFrazil - nativeAfterStock >= frazilFiles.data.size(),
          "FrazilFlink.nativeDataFiles() grew by %d for %d committed data files",
          nativeAfterFrazil - nativeAfterStock,
          frazilFiles.data.size());
      footer.note(
          String.format(
              Locale.ROOT,
              "%d files, %d chunks, %d row groups, zstd level %s",
              footer.get("data files"),
              footer.get("column chunks"),
              footer.get("row groups"),
              result.params.get("zstd_level")));

      // metrics parity: manifest vs Iceberg's own footer import, split offsets vs row groups
      current = metrics;
      MetricsConfig config = MetricsConfig.forTable(frazil);
      Set<Integer> floats = ParquetChecks.floatingPointIds(frazil.schema());
      for (DataFile file : frazilFiles.data) {
        metrics.count("data files", 1);
        String name = shortName(file.location());
        Metrics imported =
            ParquetUtil.fileMetrics(frazil.io().newInputFile(file.location()), config);
        ParquetChecks.agreesWithFooter(
            metrics,
            file.recordCount(),
            file.columnSizes(),
            file.valueCounts(),
            file.nullValueCounts(),
            file.lowerBounds(),
            file.upperBounds(),
            imported,
            floats,
            name + " manifest vs ParquetUtil.fileMetrics");
        ParquetMetadata parsed = ParquetChecks.footer(file.location());
        metrics.equal(
            ParquetChecks.rowGroupStarts(parsed),
            file.splitOffsets(),
            "%s: manifest split offsets vs row-group starts",
            name);
        metrics.count(
            "split offsets", file.splitOffsets() == null ? 0 : file.splitOffsets().size());
      }
      metrics.expect(!frazilFiles.data.isEmpty(), "the Frazil table has no data files");
      metrics.note(
          String.format(
              Locale.ROOT,
              "%d files, %d split offsets",
              metrics.get("data files"),
              metrics.get("split offsets")));

      // deletes
      current = deletes;
      checkDeletes(deletes, c, stockFiles, "stock");
      checkDeletes(deletes, c, frazilFiles, "Frazil");
      if (c.upsert()) {
        Map<String, Long> ids =
            frazilRows.stream()
                .collect(
                    Collectors.groupingBy(
                        r -> r.substring(0, r.indexOf('|')), Collectors.counting()));
        long duplicates = ids.values().stream().filter(n -> n > 1).count();
        deletes.equal(0L, duplicates, "ids read back more than once from the Frazil table");
        long updated = frazilRows.stream().filter(r -> r.contains("|c-")).count();
        deletes.equal((long) c.rows() / 4, updated, "keys read back with their last update");
        deletes.set("updated keys", updated);
      }
      deletes.note(
          c.upsert()
              ? String.format(
                  Locale.ROOT,
                  "Frazil: %d eq, %d pos, %d DV",
                  deletes.get("Frazil equality deletes"),
                  deletes.get("Frazil position deletes"),
                  deletes.get("Frazil deletion vectors"))
              : "no delete files");
      resources.note(resources.get("jobs") + " jobs");
    } catch (Throwable t) {
      current.failWith("case aborted", t);
    } finally {
      result.millis = (System.nanoTime() - start) / 1_000_000;
      result.close();
    }
    return result;
  }

  private static void checkDeletes(Check check, Case c, ScanFiles files, String arm) {
    long equality = 0;
    long position = 0;
    long vectors = 0;
    for (DeleteFile file : files.deletes.values()) {
      if (file.format() == FileFormat.PUFFIN) {
        vectors += 1;
        check.equal(
            FileContent.POSITION_DELETES, file.content(), "%s: content of a Puffin delete", arm);
        continue;
      }
      if (file.content() == FileContent.EQUALITY_DELETES) {
        equality += 1;
      } else {
        position += 1;
      }
      try {
        String createdBy = ParquetChecks.footer(file.location()).getFileMetaData().getCreatedBy();
        check.expect(
            createdBy.startsWith(ParquetChecks.STOCK_CREATED_BY),
            "%s: delete file %s written by '%s', not Iceberg's parquet-mr",
            arm,
            shortName(file.location()),
            createdBy);
      } catch (IOException e) {
        check.failWith(arm + ": delete file " + shortName(file.location()), e);
      }
    }
    check.set(arm + " equality deletes", equality);
    check.set(arm + " position deletes", position);
    check.set(arm + " deletion vectors", vectors);
    if (!c.upsert()) {
      check.equal(0L, equality + position + vectors, "%s: delete files of an append job", arm);
      return;
    }
    check.expect(equality > 0, "%s: upsert produced no equality delete file", arm);
    if (c.formatVersion() >= 3) {
      check.expect(vectors > 0, "%s: v3 upsert produced no deletion vector", arm);
      check.equal(0L, position, "%s: v3 Parquet position delete files", arm);
    } else {
      check.equal(0L, vectors, "%s: v2 deletion vectors", arm);
    }
  }

  private static void sameRows(
      Check check, List<String> expected, List<String> actual, String what) {
    if (check.equal(expected.size(), actual.size(), "%s: row count", what)
        && expected.equals(actual)) {
      check.expect(true, "");
      return;
    }
    Map<String, Integer> diff = new TreeMap<>();
    expected.forEach(r -> diff.merge(r, 1, Integer::sum));
    actual.forEach(r -> diff.merge(r, -1, Integer::sum));
    List<String> shown = new ArrayList<>();
    diff.forEach(
        (row, n) -> {
          if (n != 0 && shown.size() < 5) {
            shown.add((n > 0 ? "missing " : "unexpected ") + row);
          }
        });
    long differing = diff.values().stream().filter(n -> n != 0).count();
    check.expect(false, "%s: %d rows differ, e.g. %s", what, differing, shown);
  }

  private static List<String> sortedCanonical(List<JobRow> rows) {
    List<String> out = rows.stream().map(JobRow::canonical).collect(Collectors.toList());
    Collections.sort(out);
    return out;
  }

  /** The expected table content after this case's jobs; resources are checked after each job. */
  private static List<JobRow> runArm(Case c, File warehouse, Table table, Check resources)
      throws Exception {
    String name = table.name().substring(table.name().lastIndexOf('.') + 1);
    if (!c.upsert()) {
      List<JobRow> rows = JobRow.rows(0, c.rows(), "a");
      write(c, warehouse, table, name, rows, false);
      resourcesAfterJob(resources);
      return rows;
    }
    int keys = c.rows() / 2;
    int updated = c.rows() / 4;
    write(c, warehouse, table, name, JobRow.rows(0, keys, "a"), true);
    resourcesAfterJob(resources);
    // The second job updates ids 0..updated-1 twice, b then c back to back: the first update of a
    // key is an equality delete (the key was committed earlier), the second a position delete /
    // deletion vector (the key is in a file this job is still writing).
    List<JobRow> updates = new ArrayList<>();
    for (long id = 0; id < updated; id += 1) {
      updates.add(JobRow.of(id, "b"));
      updates.add(JobRow.of(id, "c"));
    }
    write(c, warehouse, table, name, updates, true);
    resourcesAfterJob(resources);
    List<JobRow> expected = new ArrayList<>(JobRow.rows(0, updated, "c"));
    expected.addAll(JobRow.rows(updated, keys - updated, "a"));
    return expected;
  }

  private static void resourcesAfterJob(Check check) {
    check.count("jobs", 1);
    check.equal(
        0L,
        io.frazil.iceberg.ArrowMemory.allocatedBytes(),
        "Arrow bytes left allocated after a job");
    check.equal(
        0L,
        io.frazil.jni.NativeParquetWriter.liveWriterCount(),
        "native writers left open after a job");
  }

  private static Table createTable(File warehouse, String name, Case c, Map<String, String> props) {
    return JobTables.createTable(
        warehouse, name, JobRow.SCHEMA, c.partitioning(), c.formatVersion(), props);
  }

  private static StreamExecutionEnvironment env(Case c) {
    // The MiniCluster's TestStreamEnvironment (set as context by Validate).
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(c.writeParallelism());
    if (c.checkpointMillis() > 0) {
      env.enableCheckpointing(c.checkpointMillis(), CheckpointingMode.EXACTLY_ONCE);
    }
    return env;
  }

  /** Writes the rows into the table with the case's sink and waits for the job to finish. */
  private static void write(
      Case c, File warehouse, Table table, String name, List<JobRow> rows, boolean upsert)
      throws Exception {
    StreamExecutionEnvironment env = env(c);
    TableIdentifier identifier = TableIdentifier.of(DATABASE, name);
    CatalogLoader loader = JobTables.catalogLoader(warehouse);
    List<String> equalityColumns = upsert ? List.of("id") : List.of();
    RowType rowType = FlinkSchemaUtil.convert(table.schema());
    List<RowData> data = rows.stream().map(JobRow::toRowData).collect(Collectors.toList());
    switch (c.sink()) {
      case FLINK_SINK:
        {
          // One source subtask (README, "Known upstream issue").
          DataStream<RowData> input =
              env.fromData(data, InternalTypeInfo.of(rowType)).setParallelism(1);
          FlinkSink.forRowData(input)
              .tableLoader(TableLoader.fromCatalog(loader, identifier))
              .writeParallelism(c.writeParallelism())
              .upsert(upsert)
              .equalityFieldColumns(equalityColumns)
              .append();
          env.execute("FlinkSink " + name);
          break;
        }
      case ICEBERG_SINK:
        {
          DataStream<RowData> input =
              env.fromData(data, InternalTypeInfo.of(rowType)).setParallelism(1);
          IcebergSink.forRowData(input)
              .tableLoader(TableLoader.fromCatalog(loader, identifier))
              .writeParallelism(c.writeParallelism())
              .upsert(upsert)
              .equalityFieldColumns(equalityColumns)
              .append();
          env.execute("IcebergSink " + name);
          break;
        }
      case DYNAMIC_SINK:
        {
          DataStream<RowData> input =
              env.fromData(data, InternalTypeInfo.of(rowType)).setParallelism(1);
          DynamicIcebergSink.forInput(input)
              .generator(
                  new JobTables.Generator(
                      identifier, table.schema(), table.spec(), upsert, /* sink default */ null))
              .catalogLoader(loader)
              .writeParallelism(c.writeParallelism())
              .append();
          env.execute("DynamicIcebergSink " + name);
          break;
        }
      case SQL:
        {
          StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);
          tableEnv.executeSql(JobTables.createCatalogSql(warehouse));
          List<Row> external = rows.stream().map(JobRow::toRow).collect(Collectors.toList());
          DataStream<Row> input = env.fromData(external, JobRow.ROW_TYPE_INFO).setParallelism(1);
          tableEnv.createTemporaryView("src", tableEnv.fromDataStream(input));
          String hint = upsert ? " /*+ OPTIONS('upsert-enabled'='true') */" : "";
          tableEnv
              .executeSql(
                  "INSERT INTO "
                      + CATALOG
                      + "."
                      + DATABASE
                      + "."
                      + name
                      + hint
                      + " "
                      + JobRow.SQL_SELECT)
              .await();
          break;
        }
      default:
        throw new IllegalArgumentException("Unknown sink " + c.sink());
    }
  }

  private static List<String> read(Table table) throws IOException {
    table.refresh();
    List<String> out = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        out.add(JobRow.canonical(record));
      }
    }
    Collections.sort(out);
    return out;
  }

  /** What the current snapshot references: live data files (with stats) and their deletes. */
  private static final class ScanFiles {
    final List<DataFile> data = new ArrayList<>();
    final Map<String, DeleteFile> deletes = new LinkedHashMap<>();
  }

  private static ScanFiles files(Table table) throws IOException {
    table.refresh();
    ScanFiles files = new ScanFiles();
    Set<String> seen = new java.util.HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        if (seen.add(task.file().location())) {
          files.data.add(task.file().copy());
        }
        for (DeleteFile delete : task.deletes()) {
          files.deletes.putIfAbsent(
              delete.location() + "@" + delete.contentOffset(), delete.copy());
        }
      }
    }
    return files;
  }

  private static String shortName(String location) {
    int slash = location.lastIndexOf('/');
    return slash < 0 ? location : location.substring(slash + 1);
  }
}
