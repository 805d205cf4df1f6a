package io.frazil.bench;

import io.frazil.flink.FrazilFlink;
import io.frazil.nexmark.NexmarkQuery;
import io.frazil.nexmark.NexmarkSql;
import java.io.BufferedWriter;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.iceberg.hadoop.HadoopCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The Nexmark matrix into Iceberg (docs/nexmark.md): each query's SQL job run alternately with
 * stock Iceberg and with Frazil, warm-up pairs then measured pairs, each committed table validated
 * (rows equal to the query's first trial as multisets, footers' writer), on an in-process
 * MiniCluster or, with {@code --cluster}, on a running cluster.
 *
 * <p>Arms. On the MiniCluster both arms run in this JVM and differ only by Frazil's hook: the stock
 * arm runs with it uninstalled ({@link FrazilFlink#uninstall()}: Iceberg's own Parquet model for
 * writes and reads), the Frazil arm with it installed. On a cluster (Frazil in its {@code lib/})
 * the stock arm's result table carries {@code write.parquet.frazil.enabled=false}; reads have no
 * per-table switch, so there q0-read's stock arm still reads natively.
 */
@Command(
    name = "NexmarkBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Nexmark SQL queries writing Iceberg tables, stock Iceberg against Frazil, alternating"
          + " (docs/nexmark.md)."
    })
public final class NexmarkBench implements Callable<Integer> {
  @Spec CommandSpec cli;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      converter = BenchCli.AbsolutePath.class,
      description = "Where iterations.jsonl, results.md, ratios.svg go.")
  Path out;

  @Option(
      names = "--smoke",
      description =
          "20,000 events, queries q0,q0-read,q5,q17, 0 warm-up pairs, 1 measured pair, 200 ms"
              + " checkpoints (flags given with it still win): checks the harness, not a"
              + " measurement.")
  boolean smoke;

  @Option(
      names = "--queries",
      split = ",",
      paramLabel = "Q",
      description = "Which queries (default: all of them, see docs/nexmark.md).")
  List<String> queries = NexmarkQuery.ALL;

  @Option(
      names = "--events",
      paramLabel = "N",
      defaultValue = "1000000",
      converter = BenchCli.Positive.class,
      description = "Nexmark events per job (people, auctions and bids together).")
  int events;

  @Option(
      names = "--events-per-second",
      paramLabel = "N",
      defaultValue = "10000",
      converter = BenchCli.Positive.class,
      description = "Event-time rate of the generator (sources emit as fast as the job takes).")
  int eventsPerSecond;

  @Option(
      names = "--format-versions",
      split = ",",
      paramLabel = "V",
      defaultValue = "2",
      description = "Iceberg format versions of the result tables (2, 3).")
  List<Integer> formatVersions;

  @Option(
      names = "--pairs",
      paramLabel = "N",
      defaultValue = "3",
      converter = BenchCli.Positive.class,
      description = "Measured (stock, Frazil) pairs per query.")
  int pairs;

  @Option(
      names = "--warmup-pairs",
      paramLabel = "N",
      defaultValue = "1",
      converter = BenchCli.NonNegative.class,
      description = "Warm-up pairs per query, recorded but not summarised.")
  int warmupPairs;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      defaultValue = "2",
      converter = BenchCli.Positive.class,
      description = "Job parallelism (and MiniCluster task slots).")
  int parallelism;

  @Option(
      names = "--checkpoint-ms",
      paramLabel = "MS",
      defaultValue = "1000",
      converter = BenchCli.Positive.class,
      description = "Checkpoint interval.")
  int checkpointMs;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "Generator seed.")
  long seed;

  @Option(
      names = "--cluster",
      paramLabel = "HOST:PORT",
      description =
          "Submit to this running cluster's REST endpoint instead of an in-process MiniCluster"
              + " (Iceberg and Frazil's runtime jar in its lib/, --tmp a path it shares).")
  String cluster;

  @Option(
      names = "--tmp",
      paramLabel = "DIR",
      defaultValue = "${sys:java.io.tmpdir}",
      converter = BenchCli.AbsolutePath.class,
      description = "Where the Hadoop-catalog warehouse goes.")
  Path tmp;

  @Option(
      names = "--keep-tables",
      description = "Do not drop each trial's table after it is validated.")
  boolean keepTables;

  final List<String> notes = new ArrayList<>();
  final List<NexmarkTrial> trials = new ArrayList<>();
  String nativeLibrary = "not loaded";
  private Path warehouse;
  private MiniCluster miniCluster;
  private URI rest;
  private BufferedWriter jsonl;

  public static void main(String[] args) {
    BenchCli.main(args, new NexmarkBench());
  }

  boolean local() {
    return cluster == null;
  }

  @Override
  public Integer call() throws Exception {
    if (smoke) {
      events = BenchCli.given(cli, "--events") ? events : 20_000;
      queries = BenchCli.given(cli, "--queries") ? queries : List.of("q0", "q0-read", "q5", "q17");
      warmupPairs = BenchCli.given(cli, "--warmup-pairs") ? warmupPairs : 0;
      pairs = BenchCli.given(cli, "--pairs") ? pairs : 1;
      checkpointMs = BenchCli.given(cli, "--checkpoint-ms") ? checkpointMs : 200;
    }
    BenchCli.oneOf(cli, "--queries", queries, NexmarkQuery.ALL);
    for (int version : formatVersions) {
      if (version != 2 && version != 3) {
        throw new picocli.CommandLine.ParameterException(
            cli.commandLine(), "--format-versions: " + version + " is not 2 or 3");
      }
    }
    if (!local()) {
      List<String> kept = new ArrayList<>();
      for (String name : queries) {
        if (NexmarkQuery.load(name).readsLandedBids()) {
          notes.add(
              name
                  + " left out on a cluster: its Iceberg source is planned in this client, whose"
                  + " unshaded Iceberg classes do not deserialize in the cluster's Iceberg runtime"
                  + " jar (BaseFile serialVersionUID differs); submit it from a client with the"
                  + " cluster's own jars (e.g. Flink's SQL client).");
        } else {
          kept.add(name);
        }
      }
      queries = kept;
    }
    Guards.loggingIsQuiet();
    JobBench.quietFlinkRuntimeLoggers();
    Files.createDirectories(out);
    Files.createDirectories(tmp);
    warehouse = Files.createTempDirectory(tmp, "frazil-nexmark-");
    long started = System.nanoTime();
    start();
    try (BufferedWriter lines =
        Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      jsonl = lines;
      for (int version : formatVersions) {
        String landed = landBids(version);
        for (String name : queries) {
          runQuery(NexmarkQuery.load(name), version, landed);
        }
      }
    } finally {
      stop();
      if (!keepTables) {
        RunFacts.deleteTree(warehouse);
      }
    }
    boolean ok = new NexmarkReport(this).write((System.nanoTime() - started) / 1e9);
    System.out.printf("%nresults: %s%n", out.resolve("results.md"));
    return ok ? 0 : 1;
  }

  private void start() throws Exception {
    if (!local()) {
      rest = URI.create("http://" + cluster + "/");
      notes.add(
          "Cluster mode: stock arm = result table property write.parquet.frazil.enabled=false;"
              + " reads are native in both arms if the cluster has Frazil; CPU and RSS are this"
              + " client's, not the cluster's.");
      return;
    }
    // Flink initializes file systems (and with them Frazil's bootstrap hook, which installs it)
    // lazily at a MiniCluster's first job: done now, so it cannot happen inside a stock trial.
    FileSystem.initialize(new Configuration(), null);
    Guards.check(FrazilFlink.install(), "FrazilFlink.install() failed: Frazil is not usable");
    Configuration conf = new Configuration();
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("128m"));
    conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, JobBench.CHECKPOINT_HISTORY);
    miniCluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(parallelism)
                .withRandomPorts()
                .build());
    miniCluster.start();
    rest = miniCluster.getRestAddress().get();
  }

  private void stop() throws Exception {
    if (miniCluster != null) {
      miniCluster.close();
    }
    if (local()) {
      FrazilFlink.install();
    }
  }

  /** A job environment: the MiniCluster's, or the cluster's with this module's jars shipped. */
  StreamExecutionEnvironment environment() throws Exception {
    StreamExecutionEnvironment env;
    if (local()) {
      env = new TestStreamEnvironment(miniCluster, parallelism);
    } else {
      String[] hostPort = cluster.split(":");
      env =
          StreamExecutionEnvironment.createRemoteEnvironment(
              hostPort[0],
              Integer.parseInt(hostPort[1]),
              new Configuration(),
              jarOf(NexmarkSql.class),
              jarOf(DataGeneratorSource.class));
      env.setParallelism(parallelism);
    }
    env.configure(
        NexmarkSql.jobConfiguration(
            checkpointMs, warehouse.resolve("checkpoints").toUri().toString()));
    return env;
  }

  private static String jarOf(Class<?> type) throws Exception {
    URL location = type.getProtectionDomain().getCodeSource().getLocation();
    return Path.of(location.toURI()).toString();
  }

  /** Sets the arm for the next job (MiniCluster: the hook; cluster: see {@link #tableOptions}). */
  void arm(String arm) {
    if (!local()) {
      return;
    }
    if ("frazil".equals(arm)) {
      Guards.check(FrazilFlink.install(), "FrazilFlink.install() failed");
    } else {
      FrazilFlink.uninstall();
    }
  }

  /** The result tables' options of {@code arm}. */
  String tableOptions(String arm, int formatVersion) {
    Map<String, String> extra = new LinkedHashMap<>();
    if (!local() && "stock".equals(arm)) {
      extra.put(FrazilFlink.TABLE_PROPERTY, "false");
    }
    return NexmarkSql.with(formatVersion, extra);
  }

  HadoopCatalog catalog() {
    return new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.toString());
  }

  NexmarkSql.Events generator() {
    return new NexmarkSql.Events(events, eventsPerSecond, seed);
  }

  String warehouseUri() {
    return warehouse.toUri().toString();
  }

  /** The bids q0-read reads, landed once per format version by the stock writer, off the clock. */
  private String landBids(int version) throws Exception {
    boolean needed = queries.stream().anyMatch(q -> NexmarkQuery.load(q).readsLandedBids());
    if (!needed) {
      return null;
    }
    String table = "landed_bid_v" + version;
    arm("stock");
    NexmarkSql.landBids(
            NexmarkSql.session(environment(), warehouseUri(), generator()), table, version)
        .getJobExecutionResult()
        .get();
    System.out.printf("landed %,d events' bids in %s%n", events, table);
    return table;
  }

  private void runQuery(NexmarkQuery query, int version, String landed) throws Exception {
    System.out.printf(
        Locale.ROOT,
        "%n[%s v%d, %,d events] %s%n  %d warm-up + %d measured pairs, alternating%n",
        query.name(),
        version,
        events,
        query.title(),
        warmupPairs,
        pairs);
    NexmarkTrial.Reference reference = new NexmarkTrial.Reference();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    for (int rep = 0; rep < warmupPairs + pairs; rep++) {
      String phase = rep < warmupPairs ? "warmup" : "measured";
      int index = rep < warmupPairs ? rep : rep - warmupPairs;
      for (String arm : List.of("stock", "frazil")) {
        NexmarkTrial trial = new NexmarkTrial(trials.size() + 1, query, version, arm, phase, index);
        trial.run(this, landed, http, rest, reference);
        if ("frazil".equals(arm) && local() && trial.dataFiles > 0) {
          nativeLibrary = Guards.describeNativeLibrary(notes);
        }
        trials.add(trial);
        jsonl.write(trial.toJson());
        jsonl.newLine();
        jsonl.flush();
        System.out.println("  " + trial.summary());
      }
    }
  }
}
