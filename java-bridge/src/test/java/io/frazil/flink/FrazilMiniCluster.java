package io.frazil.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The setup of every Flink test class that runs Frazil jobs, as one JUnit extension: the shared
 * MiniCluster ({@link FlinkJobs#miniCluster(Configuration)}), Frazil installed once it runs, and
 * after each test the leak check ({@link FlinkJobs#assertNothingLeaked()}). It runs these in the
 * order the same {@code @RegisterExtension}, {@code @BeforeAll} and {@code @AfterEach} in a test
 * class would; a test class's own {@code @AfterEach} methods run before the leak check. Parameters
 * ({@code @InjectMiniCluster}, {@code @InjectClusterRESTAddress}, ...) resolve as with {@link
 * MiniClusterExtension}.
 */
final class FrazilMiniCluster
    implements BeforeAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        AfterAllCallback,
        ParameterResolver {
  private final MiniClusterExtension cluster;
  private final Runnable install;

  private FrazilMiniCluster(MiniClusterExtension cluster, Runnable install) {
    this.cluster = cluster;
    this.install = install;
  }

  /** The default MiniCluster, Frazil installed as a cluster's process start installs it. */
  static FrazilMiniCluster installedLikeACluster() {
    return installedLikeACluster(new Configuration());
  }

  /** The same with {@code conf} added to the MiniCluster's configuration. */
  static FrazilMiniCluster installedLikeACluster(Configuration conf) {
    return new FrazilMiniCluster(FlinkJobs.miniCluster(conf), FlinkJobs::installLikeAClusterDoes);
  }

  /** The default MiniCluster, Frazil installed by {@code install}. */
  static FrazilMiniCluster installedBy(Runnable install) {
    return new FrazilMiniCluster(FlinkJobs.miniCluster(), install);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    cluster.beforeAll(context);
    install.run();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    cluster.beforeEach(context);
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      FlinkJobs.assertNothingLeaked();
    } finally {
      cluster.afterEach(context);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    cluster.afterAll(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster.supportsParameter(parameter, context);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster.resolveParameter(parameter, context);
  }
}
