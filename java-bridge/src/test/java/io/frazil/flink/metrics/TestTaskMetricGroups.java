package io.frazil.flink.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Outside a Flink task thread the lookup is empty and never throws. */
public class TestTaskMetricGroups {
  @Test
  public void theTestThreadIsNoTask() {
    // Surefire opens java.lang like Flink's env.java.opts.all: the reflection itself works here.
    assertThat(TaskMetricGroups.canReadThreads()).isTrue();
    assertThat(TaskMetricGroups.current()).isEmpty();
  }

  @Test
  public void aThreadRunningSomeOtherRunnableIsNoTask() throws Exception {
    AtomicReference<Object> seen = new AtomicReference<>();
    Thread thread = new Thread(() -> seen.set(TaskMetricGroups.current()), "not-a-task");
    thread.start();
    thread.join();
    assertThat(seen.get()).isEqualTo(java.util.Optional.empty());
    assertThat(TaskMetricGroups.of(thread)).isEmpty();
  }

  @Test
  public void filesWrittenOutsideATaskCountOnlyPerProcess() {
    FrazilMetrics.FileCounter counter = FrazilMetrics.forCurrentThread();
    long files = FrazilMetrics.nativeDataFiles();
    long stock = FrazilMetrics.stockDataFiles("testReason");
    counter.nativeFile(10, 100, 1000);
    counter.stockFile("testReason", 5);
    assertThat(FrazilMetrics.nativeDataFiles()).isEqualTo(files + 1);
    assertThat(FrazilMetrics.stockDataFiles("testReason")).isEqualTo(stock + 1);
  }
}
