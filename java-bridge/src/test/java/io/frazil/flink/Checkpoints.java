package io.frazil.flink;

import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * Checkpoints triggered by a test on a MiniCluster job, for tests that run a fixed schedule instead
 * of racing periodic checkpoints. Outcomes are strings so that a test can record them and assert on
 * them with the refusal's cause in the message.
 */
final class Checkpoints {
  private Checkpoints() {}

  /** "completed N", or "refused: " and the root cause, within {@code timeoutMs}. */
  static String trigger(MiniCluster cluster, JobID job, long timeoutMs) {
    try {
      return "completed "
          + cluster
              .triggerCheckpoint(job, CheckpointType.CONFIGURED)
              .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      Throwable cause = e;
      while (cause.getCause() != null) {
        cause = cause.getCause();
      }
      return "refused: " + cause;
    }
  }

  /**
   * Triggers until one checkpoint completes or {@code waitMs} has passed (each attempt may itself
   * take up to {@code waitMs}); the last outcome.
   */
  static String triggerUntilCompleted(MiniCluster cluster, JobID job, long waitMs)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + waitMs;
    String result = trigger(cluster, job, waitMs);
    while (!result.startsWith("completed") && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
      result = trigger(cluster, job, waitMs);
    }
    return result;
  }
}
