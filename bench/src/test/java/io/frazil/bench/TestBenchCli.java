package io.frazil.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The bench programs' flags as the Makefile, bench/README.md and FanoutBench's child JVMs pass
 * them: defaults, what --smoke changes and what it leaves, list and number forms, and the exit
 * status of a bad flag. Nothing here runs a bench (bad flags stop before it starts).
 */
class TestBenchCli {
  /** Parses {@code args} into {@code command} as main would, then applies --smoke. */
  private static <C extends Callable<Integer>> C parse(C command, String... args) {
    new CommandLine(command).parseArgs(BenchCli.tokens(args));
    return command;
  }

  /** The exit status main would return, with picocli's messages kept out of the test log. */
  private static int status(Callable<Integer> command, String... args) {
    CommandLine cli = new CommandLine(command);
    StringWriter sink = new StringWriter();
    cli.setOut(new PrintWriter(sink));
    cli.setErr(new PrintWriter(sink));
    return cli.execute(BenchCli.tokens(args));
  }

  @Test
  void fileWriteDefaultsAndSmoke() {
    FileWriteBench full = parse(new FileWriteBench(), "--out", "x");
    full.resolve();
    assertEquals(List.of(262_144, 2_000_000), full.rows);
    assertEquals(Map.of(2_000_000, 3), full.repsAt);
    assertEquals(List.of("bid", "wide", "nested"), full.schemas);
    assertEquals(Paths.get("x").toAbsolutePath(), full.out);
    assertFalse(full.noGc);

    // Maven's -Dbench.args can arrive as one argument; --smoke does not override --reps.
    FileWriteBench smoke = parse(new FileWriteBench(), "--smoke --out x --reps 4 --no-gc");
    smoke.resolve();
    assertEquals(List.of(20_000), smoke.rows);
    assertEquals(1, smoke.warmups);
    assertEquals(4, smoke.reps);
    assertEquals(List.of("bid"), smoke.schemas);
    assertEquals(Map.of(), smoke.repsAt);
    assertTrue(smoke.noGc);
    assertEquals(
        List.of("--smoke", "--out", "x", "--reps", "4", "--no-gc"), BenchCli.args(smoke.cli));
  }

  @Test
  void repsAtReplacesItsDefault() {
    FileWriteBench bench = parse(new FileWriteBench(), "--out", "x", "--reps-at", "262144=4");
    bench.resolve();
    assertEquals(Map.of(262_144, 4), bench.repsAt);
  }

  @Test
  void badFlagsExitTwoAndHelpZero() {
    assertEquals(2, status(new FileWriteBench(), "--rows", "20000"));
    assertEquals(2, status(new FileWriteBench(), "--out", "x", "--bogus"));
    assertEquals(2, status(new FileWriteBench(), "--out", "x", "--rows", "0"));
    assertEquals(2, status(new FileWriteBench(), "--out", "x", "--schemas", "bid,tall"));
    assertEquals(2, status(new JobBench(), "--out", "x", "--cells", "v4-forward"));
    assertEquals(2, status(new RoutingBench(), "--out", "x", "--hot-rows", "-1"));
    assertEquals(2, status(new FanoutBench(), "--out", "x", "--heap", "lots"));
    assertEquals(2, status(new FanoutTrial(), "--arm", "both", "--partitions", "1"));
    assertEquals(2, status(new FanoutTrial(), "--arm", "stock"));
    assertEquals(2, status(new ReadBench(), "--out", "x", "--cells", "scan,sort"));
    assertEquals(2, status(new ReadBench(), "--out", "x", "--jobs", "copy,merge"));
    assertEquals(2, status(new ReadBench(), "--out", "x", "--rss-heap", "lots"));
    for (Callable<Integer> command :
        List.of(
            new FileWriteBench(),
            new RoutingBench(),
            new JobBench(),
            new FanoutBench(),
            new FanoutTrial(),
            new ReadBench(),
            new Soak())) {
      assertEquals(0, status(command, "--help"), command.getClass().getSimpleName());
    }
  }

  @Test
  void numbersMayCarrySeparators() {
    JobBench bench = parse(new JobBench(), "--out", "x", "--rows", "2,000,000", "--pairs", "1_0");
    bench.resolve();
    assertEquals(2_000_000, bench.rows);
    assertEquals(10, bench.pairs);
  }

  @Test
  void jobAndRoutingSmoke() {
    JobBench job = parse(new JobBench(), "--smoke", "--out", "x", "--cells", "v2-forward");
    job.resolve();
    assertEquals(20_000, job.rows);
    assertEquals(0, job.warmupPairs);
    assertEquals(200, job.checkpointMs);
    assertEquals(List.of("v2-forward"), job.cells);

    RoutingBench routing = parse(new RoutingBench(), "--smoke", "--out", "x", "--warmups", "0");
    routing.resolve();
    assertEquals(20_000, routing.rows);
    assertEquals(0, routing.warmups);
    assertEquals(2, routing.reps);
    assertEquals(List.of(4, 16_384), routing.bucketCounts);
  }

  @Test
  void fanoutHeapsAndSmoke() {
    FanoutBench full = parse(new FanoutBench(), "--out", "x", "--heap", "6G");
    full.resolve();
    assertEquals("6g", full.heap);
    assertEquals(List.of("2g", "1g", "512m", "256m"), full.oomHeaps);
    assertEquals(List.of(1, 16, 128, 1024), full.partitions);

    FanoutBench none = parse(new FanoutBench(), "--out", "x", "--oom-heaps", "none");
    none.resolve();
    assertEquals(List.of(), none.oomHeaps);

    FanoutBench smoke =
        parse(new FanoutBench(), "--smoke", "--out", "x", "--heap", "1g", "--pretouch");
    smoke.resolve();
    assertEquals("1g", smoke.heap);
    assertEquals(List.of(1, 16), smoke.partitions);
    assertEquals(List.of(), smoke.oomHeaps);
    assertEquals(20_000, smoke.poolRows);
    assertTrue(smoke.pretouch);
  }

  /** What FanoutBench passes each child JVM is what FanoutTrial reads. */
  @Test
  void fanoutTrialReadsTheArgumentsItIsGiven() {
    FanoutBench bench =
        parse(new FanoutBench(), "--out", "x", "--rows", "30000", "--seed", "7", "--tmp", "/t");
    bench.resolve();
    FanoutTrial trial =
        parse(new FanoutTrial(), bench.trialArgs("frazil", 16).toArray(new String[0]));
    assertEquals("frazil", trial.arm);
    assertEquals(16, trial.partitions);
    assertEquals(30_000, trial.rows);
    assertEquals(bench.poolRows, trial.poolRows);
    assertEquals(bench.warmupRows, trial.warmupRows);
    assertEquals(7L, trial.seed);
    assertEquals(Path.of("/t"), trial.tmp);
  }

  @Test
  void readDefaultsAndSmoke() {
    ReadBench full = parse(new ReadBench(), "--out", "x");
    full.resolve();
    assertEquals(List.of(262_144, 2_000_000), full.rows);
    assertEquals(Map.of(2_000_000, 3), full.repsAt);
    assertEquals(List.of("bid", "wide", "nested"), full.schemas);
    assertEquals(List.of("scan", "project", "filtered"), full.cells);
    assertEquals(List.of("source-discard", "copy"), full.jobs);
    assertEquals(2_000_000, full.jobRows);
    assertEquals(2, full.rssTrials);
    assertEquals("2g", full.rssHeap);

    ReadBench smoke = parse(new ReadBench(), "--smoke --out x --cells project --jobs none");
    smoke.resolve();
    assertEquals(List.of(20_000), smoke.rows);
    assertEquals(1, smoke.warmups);
    assertEquals(2, smoke.reps);
    assertEquals(Map.of(), smoke.repsAt);
    assertEquals(List.of("project"), smoke.cells);
    assertEquals(List.of(), smoke.jobs);
    assertEquals(20_000, smoke.jobRows);
    assertEquals(0, smoke.jobWarmupPairs);
    assertEquals(1, smoke.rssTrials);
    assertEquals("512m", smoke.rssHeap);
    assertEquals(200, smoke.checkpointMs);
  }
}
