package io.frazil.bench;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/** Flags of {@link FanoutBench}. */
final class FanoutOptions {
  static final String USAGE =
      "FanoutBench: one Iceberg Flink task writer with N open partition files, stock vs Frazil,"
          + " one child JVM per trial (bench/README.md, \"Fan-out cohort\")\n"
          + "  --rows R              rows per trial (2,000,000)\n"
          + "  --partitions A,B,..   N values (1,16,128,1024)\n"
          + "  --trials T            measured trials per arm and N (3)\n"
          + "  --warmup-trials W     discarded trials per arm and N before them (1)\n"
          + "  --heap SIZE           -Xms = -Xmx of every grid trial (4g: stock needs more than 2g at N=1,024)\n"
          + "  --memory-budget B     -Dfrazil.memory.budget of every trial (the process default"
          + " when unset: 25% of the heap)\n"
          + "  --frazil-routing      task writers from FrazilTaskWriterFactory, as after"
          + " FrazilRouting.accelerate(env) in a job (default: Iceberg's factory, the jar alone)\n"
          + "  --pretouch            -XX:+AlwaysPreTouch in every trial: the whole heap resident from"
          + " the start, as in a TaskManager that has run for a while\n"
          + "  --oom-heaps A,B,..    descending heaps of the OOM search ('none' skips it;"
          + " 2g,1g,512m,256m)\n"
          + "  --oom-partitions N    N of the OOM search (1024)\n"
          + "  --pool-rows P         distinct pre-built rows, cycled (131072; a multiple of N)\n"
          + "  --warmup-rows W       JIT warm-up write inside each trial JVM (65536; 0 = none)\n"
          + "  --timeout-s S         per grid trial (900); --oom-timeout-s per OOM-search trial"
          + " (300)\n"
          + "  --seed S              (42)\n"
          + "  --tmp DIR             parent of the trials' warehouses (java.io.tmpdir)\n"
          + "  --smoke               20,000 rows, N=1,16, 0 warm-up + 1 trial, 2,000-row JIT"
          + " warm-up, 512m heap, no OOM search: checks the harness, not a measurement\n"
          + "  --report-only         rewrite results.md and fanout.svg from --out's iterations.jsonl"
          + " (same flags as the run)\n"
          + "  --out DIR             results directory (required)";

  int rows = 2_000_000;
  List<Integer> partitions = List.of(1, 16, 128, 1024);
  int trials = 3;
  int warmupTrials = 1;
  String heap = "4g";
  String memoryBudget = null;
  boolean frazilRouting;
  boolean pretouch;
  List<String> oomHeaps = List.of("2g", "1g", "512m", "256m");
  int oomPartitions = 1024;
  int poolRows = 131_072;
  int warmupRows = 65_536;
  int timeoutS = 900;
  int oomTimeoutS = 300;
  long seed = 42;
  Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
  boolean smoke;
  boolean reportOnly;
  Path out;
  List<String> raw;

  static FanoutOptions parse(String[] args) {
    FanoutOptions o = new FanoutOptions();
    List<String> tokens = Flags.tokens(args);
    o.raw = tokens;
    if (tokens.contains("--smoke")) {
      o.smoke = true;
      o.rows = 20_000;
      o.partitions = List.of(1, 16);
      o.trials = 1;
      o.warmupTrials = 0;
      o.heap = "512m";
      o.oomHeaps = List.of();
      o.poolRows = 20_000;
      o.warmupRows = 2_000;
      o.timeoutS = 180;
    }
    for (int i = 0; i < tokens.size(); i++) {
      String flag = tokens.get(i);
      switch (flag) {
        case "--help":
          return null;
        case "--smoke":
          break;
        case "--report-only":
          o.reportOnly = true;
          break;
        case "--rows":
          o.rows = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--partitions":
          o.partitions = Flags.positives(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--trials":
          o.trials = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--warmup-trials":
          o.warmupTrials = Flags.nonNegative(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--heap":
          o.heap = heap(Flags.value(tokens, ++i, flag));
          break;
        case "--memory-budget":
          o.memoryBudget = Flags.value(tokens, ++i, flag);
          break;
        case "--frazil-routing":
          o.frazilRouting = true;
          break;
        case "--pretouch":
          o.pretouch = true;
          break;
        case "--oom-heaps":
          String list = Flags.value(tokens, ++i, flag);
          o.oomHeaps =
              "none".equals(list)
                  ? List.of()
                  : List.of(list.split(",")).stream().map(FanoutOptions::heap).toList();
          break;
        case "--oom-partitions":
          o.oomPartitions = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--pool-rows":
          o.poolRows = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--warmup-rows":
          o.warmupRows = Flags.nonNegative(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--timeout-s":
          o.timeoutS = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--oom-timeout-s":
          o.oomTimeoutS = Flags.positive(Flags.value(tokens, ++i, flag), flag);
          break;
        case "--seed":
          o.seed = Long.parseLong(Flags.value(tokens, ++i, flag));
          break;
        case "--tmp":
          o.tmp = Flags.path(tokens, ++i, flag);
          break;
        case "--out":
          o.out = Flags.path(tokens, ++i, flag);
          break;
        default:
          throw new IllegalArgumentException("Unknown flag " + flag + "\n" + USAGE);
      }
    }
    Flags.requireOut(o.out, USAGE);
    return o;
  }

  /** A JVM heap size: digits with an optional k/m/g suffix. */
  static String heap(String text) {
    if (!text.matches("[0-9]+[kKmMgG]?")) {
      throw new IllegalArgumentException("not a heap size: " + text);
    }
    return text.toLowerCase(java.util.Locale.ROOT);
  }

  /** Bytes of a heap size. */
  static long heapBytes(String heap) {
    char unit = heap.charAt(heap.length() - 1);
    long shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : 0;
    String digits = shift == 0 ? heap : heap.substring(0, heap.length() - 1);
    return Long.parseLong(digits) << shift;
  }

  @Override
  public String toString() {
    return String.format(
        java.util.Locale.ROOT,
        "rows %,d, N %s, %d warm-up + %d measured trial(s) per arm and N, heap %s, OOM search %s"
            + " at N=%d, pool %,d rows, JIT warm-up %,d rows, seed %d",
        rows,
        partitions,
        warmupTrials,
        trials,
        heap,
        oomHeaps.isEmpty() ? "off" : oomHeaps,
        oomPartitions,
        poolRows,
        warmupRows,
        seed);
  }
}
