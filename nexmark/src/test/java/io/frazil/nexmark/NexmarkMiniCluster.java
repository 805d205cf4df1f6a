package io.frazil.nexmark;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One TaskManager with two slots: the tests' jobs run at parallelism 2. */
final class NexmarkMiniCluster {
  private NexmarkMiniCluster() {}

  static MiniClusterExtension twoSlots() {
    Configuration conf = new Configuration();
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(conf)
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .build());
  }
}
