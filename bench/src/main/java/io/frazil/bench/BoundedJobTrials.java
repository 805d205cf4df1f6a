package io.frazil.bench;

import io.frazil.flink.FrazilFlink;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Stock-only trial loop for the bounded-job row loss (README, "Known upstream issue"): a bounded
 * {@code fromSequence} job into a Hadoop-catalog table per trial, committed rows counted against
 * the input. Frazil is kept out ({@code -Dfrazil.enabled=false} set before Flink loads its file
 * systems, table property off, every data file's {@code created_by} printed). Not part of {@code
 * make test}: the outcome of one trial is timing-dependent. The deterministic proof is {@code
 * TestBoundedJobCommits} in java-bridge.
 *
 * <pre>
 * mvn -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.BoundedJobTrials \
 *     -Dbench.args="--sink flink --trials 15 --interval 100ms"
 * </pre>
 *
 * Flags: {@code --sink flink|iceberg}, {@code --trials}, {@code --rows} (200000), {@code --src-par}
 * (2), {@code --par} (2), {@code --interval} (1s, or off), {@code --spec none|bucket}, {@code
 * --after-finish default|true|false}, {@code --unaligned default|true|false}, {@code --dist
 * default|none|hash|range}, {@code --mode default|BATCH|STREAMING}, {@code --budget-s} (300).
 */
public final class BoundedJobTrials {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));

  private BoundedJobTrials() {}

  public static void main(String[] argv) throws Exception {
    // Before anything loads Flink's file system factories (Frazil's bootstrap factory among them).
    System.setProperty(FrazilFlink.FLINK_CONFIG_KEY, "false");
    String[] args = String.join(" ", argv).trim().split("\\s+");
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String sink = a.getOrDefault("sink", "flink");
    int trials = Integer.parseInt(a.getOrDefault("trials", "10"));
    long rows = Long.parseLong(a.getOrDefault("rows", "200000"));
    int srcPar = Integer.parseInt(a.getOrDefault("src-par", "2"));
    int par = Integer.parseInt(a.getOrDefault("par", "2"));
    String interval = a.getOrDefault("interval", "1s");
    String spec = a.getOrDefault("spec", "none");
    String afterFinish = a.getOrDefault("after-finish", "default");
    String unaligned = a.getOrDefault("unaligned", "default");
    String dist = a.getOrDefault("dist", "default");
    long budgetMs = Long.parseLong(a.getOrDefault("budget-s", "300")) * 1000;
    String label = a.getOrDefault("label", "");
    mode = a.getOrDefault("mode", "default");

    System.out.printf(
        "CONFIG mode="
            + mode
            + " %s sink=%s rows=%d srcPar=%d par=%d interval=%s spec=%s afterFinish=%s"
            + " unaligned=%s dist=%s%n",
        label,
        sink,
        rows,
        srcPar,
        par,
        interval,
        spec,
        afterFinish,
        unaligned,
        dist);

    long start = System.currentTimeMillis();
    int lossy = 0;
    int done = 0;
    List<Long> losses = new ArrayList<>();
    for (int t = 1; t <= trials; t++) {
      if (System.currentTimeMillis() - start > budgetMs) {
        System.out.println("BUDGET exhausted after " + done + " trials");
        break;
      }
      File warehouse = Files.createTempDirectory("rowloss-trial").toFile();
      long t0 = System.currentTimeMillis();
      String err = "";
      try {
        run(warehouse, sink, rows, srcPar, par, interval, spec, afterFinish, unaligned, dist);
      } catch (Exception e) {
        Throwable c = e;
        while (c.getCause() != null) c = c.getCause();
        err = " JOB-FAILED: " + c;
      }
      long ms = System.currentTimeMillis() - t0;
      String line = inspect(warehouse, rows);
      long lost = Long.parseLong(line.replaceAll(".*lost=(-?\\d+).*", "$1"));
      losses.add(lost);
      if (lost != 0) lossy++;
      done++;
      System.out.printf(
          "TRIAL %s %d %dms %s frazilInstalled=%s%s%n",
          label, t, ms, line, FrazilFlink.isInstalled(), err);
      deleteRecursively(warehouse.toPath());
    }
    System.out.printf(
        "SUMMARY %s sink=%s srcPar=%d par=%d spec=%s afterFinish=%s unaligned=%s dist=%s"
            + " trials=%d lossy=%d losses=%s%n",
        label, sink, srcPar, par, spec, afterFinish, unaligned, dist, done, lossy, losses);
    System.exit(0);
  }

  private static String mode = "default";

  static void run(
      File warehouse,
      String sink,
      long rows,
      int srcPar,
      int par,
      String interval,
      String spec,
      String afterFinish,
      String unaligned,
      String dist)
      throws Exception {
    HadoopCatalog catalog =
        new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.getAbsolutePath());
    PartitionSpec ps =
        spec.equals("bucket")
            ? PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build()
            : PartitionSpec.unpartitioned();
    TableIdentifier id = TableIdentifier.of("db", "t");
    Map<String, String> props = new HashMap<>();
    props.put("format-version", "2");
    props.put(FrazilFlink.TABLE_PROPERTY, "false");
    catalog.createTable(id, SCHEMA, ps, props);

    Map<String, String> conf = new HashMap<>();
    if (!interval.equals("off")) {
      conf.put("execution.checkpointing.interval", interval);
    }
    if (!afterFinish.equals("default")) {
      conf.put("execution.checkpointing.checkpoints-after-tasks-finish", afterFinish);
    }
    if (!unaligned.equals("default")) {
      conf.put("execution.checkpointing.unaligned.enabled", unaligned);
    }
    conf.put("rest.port", "0");
    conf.put("restart-strategy.type", "none");
    if (!mode.equals("default")) {
      conf.put("execution.runtime-mode", mode);
    }
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(conf));
    env.setParallelism(par);
    DataStream<RowData> input =
        env.fromSequence(0, rows - 1)
            .setParallelism(srcPar)
            .map(
                (MapFunction<Long, RowData>)
                    v -> GenericRowData.of(v, StringData.fromString("row-" + v)))
            .setParallelism(srcPar)
            .returns(InternalTypeInfo.of(FlinkSchemaUtil.convert(SCHEMA)));
    TableLoader loader =
        TableLoader.fromCatalog(
            CatalogLoader.hadoop(
                "c",
                new org.apache.hadoop.conf.Configuration(),
                Map.of("warehouse", warehouse.getAbsolutePath())),
            id);
    DistributionMode mode = dist.equals("default") ? null : DistributionMode.fromName(dist);
    if (sink.equals("flink")) {
      FlinkSink.Builder b = FlinkSink.forRowData(input).tableLoader(loader).writeParallelism(par);
      if (mode != null) b.distributionMode(mode);
      b.append();
    } else {
      IcebergSink.Builder b =
          IcebergSink.forRowData(input).tableLoader(loader).writeParallelism(par);
      if (mode != null) b.distributionMode(mode);
      b.append();
    }
    env.execute("trial " + sink);
  }

  static String inspect(File warehouse, long rows) throws Exception {
    HadoopCatalog catalog =
        new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.getAbsolutePath());
    Table table = catalog.loadTable(TableIdentifier.of("db", "t"));
    long count = 0;
    BitSet seen = new BitSet();
    long dups = 0;
    try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
      for (Record r : it) {
        count++;
        int v = (int) (long) (Long) r.getField("id");
        if (seen.get(v)) dups++;
        seen.set(v);
      }
    }
    TreeSet<String> committed = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        committed.add(new File(task.file().location().replaceFirst("^file:", "")).getName());
      }
    }
    List<Path> onDisk;
    Path dataDir = warehouse.toPath().resolve("db/t/data");
    if (Files.exists(dataDir)) {
      try (Stream<Path> s = Files.walk(dataDir)) {
        onDisk = s.filter(p -> p.toString().endsWith(".parquet")).collect(Collectors.toList());
      }
    } else {
      onDisk = List.of();
    }
    TreeSet<String> createdBy = new TreeSet<>();
    long orphanRows = 0;
    int orphans = 0;
    for (Path p : onDisk) {
      try (ParquetFileReader r =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(p.toString()),
                  new org.apache.hadoop.conf.Configuration()))) {
        String cb = r.getFooter().getFileMetaData().getCreatedBy();
        createdBy.add(cb.replaceAll(" \\(build.*", ""));
        if (!committed.contains(p.getFileName().toString())) {
          orphans++;
          orphanRows += r.getRecordCount();
        }
      }
    }
    List<String> snaps = new ArrayList<>();
    for (Snapshot s : table.snapshots()) {
      Map<String, String> sum = s.summary();
      snaps.add(
          "ckpt="
              + sum.get("flink.max-committed-checkpoint-id")
              + ":+"
              + sum.getOrDefault("added-records", "0"));
    }
    return String.format(
        "committed=%d distinct=%d dups=%d lost=%d files=%d orphanFiles=%d orphanRows=%d"
            + " createdBy=%s snapshots=%s",
        count,
        seen.cardinality(),
        dups,
        rows - seen.cardinality(),
        committed.size(),
        orphans,
        orphanRows,
        createdBy,
        snaps);
  }

  static void deleteRecursively(Path p) throws Exception {
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted((x, y) -> y.compareTo(x)).forEach(q -> q.toFile().delete());
    }
  }
}
