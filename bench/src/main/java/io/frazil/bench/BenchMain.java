package io.frazil.bench;

import java.util.function.Function;

/** The shared {@code main} of the bench programs: parse, print usage, run, exit with a status. */
final class BenchMain {
  /** A bench run: true when every guard and validation passed. */
  interface Run<O> {
    boolean run(O options) throws Exception;
  }

  private BenchMain() {}

  /**
   * Exits 2 on bad flags (with the parser's message), 0 after printing {@code usage} when the
   * parser returns null (--help), else 0 or 1 by the run's outcome; a throwable is printed as
   * "BENCH FAILED".
   */
  static <O> void main(String[] args, Function<String[], O> parse, String usage, Run<O> run) {
    O options;
    try {
      options = parse.apply(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    if (options == null) {
      System.out.println(usage);
      return;
    }
    int status;
    try {
      status = run.run(options) ? 0 : 1;
    } catch (Throwable t) {
      System.err.println();
      System.err.println("BENCH FAILED: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.exit(status);
  }
}
