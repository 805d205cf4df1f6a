package io.frazil.flink;

/**
 * One line as each phase of the demo starts and one as it ends, with seconds: the phases take from
 * seconds to a minute each, and a silent console looks stuck.
 */
final class DemoProgress {
  private final long start = System.nanoTime();
  private String phase = null;
  private long phaseStart = 0L;

  /** Ends the current phase, if any, and starts {@code name}. */
  void begin(String name, String what) {
    end();
    phase = name;
    phaseStart = System.nanoTime();
    print(String.format("demo: %s: %s ...", name, what));
  }

  /** Ends the current phase. */
  void end() {
    if (phase != null) {
      long now = System.nanoTime();
      print(
          String.format(
              "demo: %s done in %.1f s (%.0f s since start)",
              phase, seconds(now - phaseStart), seconds(now - start)));
      phase = null;
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private static void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
