package io.frazil.bench;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Command-line flags of {@link JobBench}. */
final class JobOptions {
  static final List<String> ALL_CELLS = List.of("v2-forward", "v2-keyed", "v3-forward", "v3-keyed");

  static final String USAGE =
      String.join(
          "\n",
          "usage: JobBench --out DIR [flags]",
          "  --out DIR             where iterations.jsonl, results.md, ratios.svg go (required)",
          "  --smoke               20,000 rows, 0 warm-up pairs, 1 measured pair, all four cells,",
          "                        200 ms checkpoints (checks the harness, not a measurement)",
          "  --rows N              input rows per job (default 2000000)",
          "  --pairs N             measured (stock, Frazil) pairs per cell (default 3)",
          "  --warmup-pairs N      warm-up pairs per cell, recorded but not summarised (default 1)",
          "  --cells a,b           of " + String.join(",", ALL_CELLS) + " (default all)",
          "  --checkpoint-ms N     checkpoint interval (default 1000)",
          "  --parallelism N       writer parallelism and task slots (default 2)",
          "  --seed N              data generator seed (default 42)",
          "  --tmp DIR             where the Hadoop-catalog warehouse goes (default java.io.tmpdir)",
          "  --keep-tables         do not drop each trial's table after it is validated",
          "Flags may also come as one space-separated argument (Maven's -Dbench.args).");

  Path out = null;
  boolean smoke = false;
  int rows = 2_000_000;
  int pairs = 3;
  int warmupPairs = 1;
  List<String> cells = ALL_CELLS;
  long checkpointMs = 1000;
  int parallelism = 2;
  long seed = 42L;
  Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
  boolean keepTables = false;
  final List<String> raw = new ArrayList<>();

  /** Returns null when only the usage was asked for. */
  static JobOptions parse(String[] args) {
    List<String> tokens = Flags.tokens(args);
    JobOptions options = new JobOptions();
    options.raw.addAll(tokens);
    if (tokens.contains("--smoke")) {
      options.smoke = true;
      options.rows = 20_000;
      options.pairs = 1;
      options.warmupPairs = 0;
      options.checkpointMs = 200;
    }
    for (int i = 0; i < tokens.size(); i++) {
      String flag = tokens.get(i);
      switch (flag) {
        case "--help":
        case "-h":
          return null;
        case "--smoke":
          break;
        case "--out":
          options.out = Flags.path(tokens, ++i, flag);
          break;
        case "--rows":
          options.rows = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--pairs":
          options.pairs = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--warmup-pairs":
          options.warmupPairs = Flags.nonNegative(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--cells":
          options.cells = Flags.names(Flags.value(tokens, ++i, flag), ALL_CELLS, flag);
          break;
        case "--checkpoint-ms":
          options.checkpointMs = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--parallelism":
          options.parallelism = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--seed":
          options.seed = Long.parseLong(Flags.value(tokens, ++i, flag));
          break;
        case "--tmp":
          options.tmp = Flags.path(tokens, ++i, flag);
          break;
        case "--keep-tables":
          options.keepTables = true;
          break;
        default:
          throw new IllegalArgumentException("Unknown flag " + flag + "\n" + USAGE);
      }
    }
    Flags.requireOut(options.out, USAGE);
    return options;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rows=%d pairs=%d warmupPairs=%d cells=%s checkpointMs=%d parallelism=%d seed=%d tmp=%s"
            + " keepTables=%s",
        rows,
        pairs,
        warmupPairs,
        cells,
        checkpointMs,
        parallelism,
        seed,
        tmp,
        keepTables);
  }
}
