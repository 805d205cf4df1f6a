package io.frazil.bench;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Command-line flags of {@link FileWriteBench}. */
final class BenchOptions {
  static final String FILE_WRITE = "file-write";
  static final String ARROW_INPUT = "arrow-input";
  static final List<String> ALL_SCHEMAS = List.of("bid", "wide", "nested");
  static final List<String> ALL_COHORTS = List.of(FILE_WRITE, ARROW_INPUT);

  static final String USAGE =
      String.join(
          "\n",
          "usage: FileWriteBench --out DIR [flags]",
          "  --out DIR            where iterations.jsonl, results.md, ratios.svg go (required)",
          "  --smoke              20,000 rows, 1 warm-up, 2 reps, bid only, both cohorts",
          "  --rows N[,N...]      row counts per file (default 262144,2000000)",
          "  --warmups N          warm-up iterations per arm per cell (default 2)",
          "  --reps N             measured iterations per arm per cell (default 5)",
          "  --reps-at R=N[,...]  measured iterations for cells of R rows, instead of --reps"
              + " (default 2000000=3, to keep `make bench` under 15 minutes on 2 cores)",
          "  --schemas a,b        of bid,wide,nested (default all)",
          "  --cohorts a,b        of file-write,arrow-input (default both)",
          "  --seed N             data generator seed (default 42)",
          "  --batch-rows N       rows per Arrow batch, arrow-input cohort (default 8192)",
          "  --tmp DIR            where the data files are written (default java.io.tmpdir)",
          "  --no-gc              skip System.gc() before each iteration",
          "  --no-verify-content  skip reading both verification files back row by row",
          "Flags may also come as one space-separated argument (Maven's -Dbench.args).");

  Path out = null;
  boolean smoke = false;
  List<Integer> rows = List.of(262_144, 2_000_000);
  int warmups = 2;
  int reps = 5;
  final Map<Integer, Integer> repsAt = new LinkedHashMap<>(Map.of(2_000_000, 3));
  List<String> schemas = ALL_SCHEMAS;
  List<String> cohorts = ALL_COHORTS;
  long seed = 42L;
  int batchRows = 8192;
  Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
  boolean gcBetween = true;
  boolean verifyContent = true;
  final List<String> raw = new ArrayList<>();

  int repsFor(int rowCount) {
    return repsAt.getOrDefault(rowCount, reps);
  }

  int maxRows() {
    return rows.stream().mapToInt(Integer::intValue).max().orElseThrow();
  }

  int minRows() {
    return rows.stream().mapToInt(Integer::intValue).min().orElseThrow();
  }

  /** Returns null when only the usage was asked for. */
  static BenchOptions parse(String[] args) {
    List<String> tokens = Flags.tokens(args);

    BenchOptions options = new BenchOptions();
    options.raw.addAll(tokens);
    boolean smoke = tokens.contains("--smoke");
    if (smoke) {
      options.smoke = true;
      options.rows = List.of(20_000);
      options.warmups = 1;
      options.reps = 2;
      options.schemas = List.of("bid");
      options.cohorts = ALL_COHORTS;
      options.repsAt.clear();
    }
    boolean repsAtGiven = false;

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
          options.rows = Flags.positives(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--warmups":
          options.warmups = Flags.nonNegative(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--reps":
          options.reps = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--reps-at":
          if (!repsAtGiven) {
            options.repsAt.clear();
            repsAtGiven = true;
          }
          for (String pair : Flags.value(tokens, ++i, flag).split(",")) {
            String[] parts = pair.split("=");
            if (parts.length != 2) {
              throw new IllegalArgumentException("--reps-at wants ROWS=N pairs, got " + pair);
            }
            options.repsAt.put(Flags.positive(parts[0], flag), Flags.positive(parts[1], flag));
          }
          break;
        case "--schemas":
          options.schemas = Flags.names(Flags.value(tokens, ++i, flag), ALL_SCHEMAS, flag);
          break;
        case "--cohorts":
          options.cohorts = Flags.names(Flags.value(tokens, ++i, flag), ALL_COHORTS, flag);
          break;
        case "--seed":
          options.seed = Long.parseLong(Flags.value(tokens, ++i, flag));
          break;
        case "--batch-rows":
          options.batchRows = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--tmp":
          options.tmp = Flags.path(tokens, ++i, flag);
          break;
        case "--no-gc":
          options.gcBetween = false;
          break;
        case "--no-verify-content":
          options.verifyContent = false;
          break;
        default:
          throw new IllegalArgumentException("Unknown flag " + flag + "\n" + USAGE);
      }
    }

    Flags.requireOut(options.out, USAGE);
    return options;
  }

  /** "5 measured (262,144 rows), 3 measured (2,000,000 rows)". */
  String repsText() {
    List<String> parts = new ArrayList<>();
    for (int rowCount : rows) {
      parts.add(String.format(java.util.Locale.ROOT, "%d (%,d rows)", repsFor(rowCount), rowCount));
    }
    return String.join(", ", parts);
  }

  @Override
  public String toString() {
    return String.format(
        "rows=%s warmups=%d reps=%d repsAt=%s schemas=%s cohorts=%s seed=%d batchRows=%d"
            + " gcBetween=%s verifyContent=%s tmp=%s",
        rows,
        warmups,
        reps,
        repsAt,
        schemas,
        cohorts,
        seed,
        batchRows,
        gcBetween,
        verifyContent,
        tmp);
  }

  static String joinArgs(List<String> args) {
    return String.join(" ", args.isEmpty() ? Arrays.asList("(none)") : args);
  }
}
