package io.frazil.flink;

import java.io.IOException;
import java.net.URI;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;

/**
 * Installs Frazil when Flink starts, with no code change in jobs.
 *
 * <p>Flink loads every {@link FileSystemFactory} service on its classpath when a JobManager,
 * TaskManager or MiniCluster initializes its file systems, and passes it the cluster configuration.
 * This factory serves no file system (its scheme is never used); it exists to run {@link
 * FrazilFlink#install()} at that moment and to read the {@value FrazilFlink#FLINK_CONFIG_KEY}
 * switch from the Flink configuration.
 */
public final class FrazilBootstrapFileSystemFactory implements FileSystemFactory {
  /** A scheme no path uses. */
  public static final String SCHEME = "frazil-bootstrap";

  /** The per-cluster switch, {@value FrazilFlink#FLINK_CONFIG_KEY}, default on. */
  public static final ConfigOption<Boolean> ENABLED =
      ConfigOptions.key(FrazilFlink.FLINK_CONFIG_KEY)
          .booleanType()
          .defaultValue(true)
          .withDescription("Write Iceberg Parquet data files with Frazil's native encoder.");

  /** The per-cluster switch of the native read path, {@code frazil.read.enabled}, default on. */
  public static final ConfigOption<Boolean> READ_ENABLED =
      ConfigOptions.key(FrazilReadBuilder.READ_SWITCH)
          .booleanType()
          .defaultValue(true)
          .withDescription("Read Iceberg Parquet data files with Frazil's native decoder.");

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public void configure(Configuration config) {
    boolean enabled = config.get(ENABLED);
    FrazilFlink.setProcessEnabled(enabled);
    FrazilReadBuilder.setProcessReadEnabled(config.get(READ_ENABLED));
    if (enabled) {
      FrazilFlink.install();
    } else {
      LogOnce.info(
          "config-off",
          "Frazil is off for this process (Flink configuration "
              + FrazilFlink.FLINK_CONFIG_KEY
              + ": false): Iceberg's writer writes its data files");
    }
  }

  @Override
  public FileSystem create(URI fsUri) throws IOException {
    throw new IOException(
        SCHEME + " is not a file system: Frazil registers it only to start with Flink");
  }
}
