package io.frazil.flink;

import io.frazil.flink.metrics.FrazilMetrics;
import io.frazil.jni.NativeLoader;
import io.frazil.reflect.PrivateMembers;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.formats.FormatModel;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.util.Pair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Frazil on for every Iceberg Flink sink in this JVM (class loader).
 *
 * <p>All Iceberg Flink sinks (FlinkSink, IcebergSink, the Dynamic Iceberg Sink, SQL) get their
 * data-file appenders from Iceberg's {@link FormatModelRegistry} under the key (PARQUET, {@link
 * RowData}). {@link #install()} replaces that entry with a {@link FrazilFormatModel} that wraps the
 * original: data files are written natively, everything else (equality/position delete files,
 * reads, configurations Frazil does not reproduce exactly) goes to the original model unchanged.
 * Iceberg offers no supported way to replace a registered model, so the swap uses reflection; if
 * the registry's shape is not what this code expects, nothing is changed and a warning says so.
 *
 * <p>It is installed without code changes when the Frazil jar is on a Flink process's classpath
 * (Flink {@code lib/}): Flink instantiates {@link FrazilBootstrapFileSystemFactory} at startup.
 * Jobs may also call {@link #install()} themselves.
 *
 * <p>Off switches: table property {@value #TABLE_PROPERTY}{@code =false} (per table), Flink
 * configuration key {@value #FLINK_CONFIG_KEY}{@code : false} (per cluster), or the JVM system
 * property {@value #FLINK_CONFIG_KEY}{@code =false}.
 */
public final class FrazilFlink {
  /** Table property that turns native writing off for one table. */
  public static final String TABLE_PROPERTY = "write.parquet.frazil.enabled";

  /** Flink configuration key (and JVM system property) that turns Frazil off for a process. */
  public static final String FLINK_CONFIG_KEY = "frazil.enabled";

  private static final Logger LOG = LoggerFactory.getLogger(FrazilFlink.class);
  private static final AtomicLong NATIVE_WRITERS = new AtomicLong();
  private static volatile boolean processEnabled = true;
  private static volatile boolean installed = false;

  private FrazilFlink() {}

  /**
   * Installs the hook (idempotent). Returns true when Parquet data files of Flink sinks in this
   * class loader will be written natively; false when the hook could not be installed.
   */
  public static synchronized boolean install() {
    if (installed) {
      return true;
    }
    if (!enabledBySystemProperty()) {
      // An off switch someone set: INFO, like a table's (see StockReason.switchedOff).
      LogOnce.info("disabled", "Frazil is off: not installed (-D" + FLINK_CONFIG_KEY + "=false)");
      return false;
    }
    try {
      Map<Pair<FileFormat, Class<?>>, FormatModel<?, ?>> models = registryModels();
      Pair<FileFormat, Class<?>> key = Pair.of(FileFormat.PARQUET, RowData.class);
      FormatModel<?, ?> current = models.get(key);
      if (current instanceof FrazilFormatModel) {
        installed = true;
        return true;
      }
      if (current == null) {
        LOG.warn("Frazil not installed: Iceberg registered no Parquet model for Flink RowData");
        return false;
      }
      models.put(key, new FrazilFormatModel(current));
      installed = true;
      LOG.info("Frazil installed: Flink Iceberg sinks write Parquet data files natively");
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.warn("Frazil not installed: Iceberg's format model registry is not as expected", e);
      return false;
    }
  }

  /** Restores Iceberg's own model (tests use this to compare against stock). */
  public static synchronized void uninstall() {
    try {
      Map<Pair<FileFormat, Class<?>>, FormatModel<?, ?>> models = registryModels();
      Pair<FileFormat, Class<?>> key = Pair.of(FileFormat.PARQUET, RowData.class);
      FormatModel<?, ?> current = models.get(key);
      if (current instanceof FrazilFormatModel) {
        models.put(key, ((FrazilFormatModel) current).delegate());
      }
      installed = false;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot restore Iceberg's Parquet model", e);
    }
  }

  /** True when the hook is in the registry. */
  public static boolean isInstalled() {
    return installed;
  }

  /** Sets the process-wide switch (from the Flink configuration key). */
  public static void setProcessEnabled(boolean enabled) {
    processEnabled = enabled;
  }

  /** False when Frazil is switched off for this process (configuration or system property). */
  public static boolean processEnabled() {
    return processEnabled && enabledBySystemProperty();
  }

  /**
   * Data files written natively by this process so far: closed without error with at least one row
   * (the {@code nativeDataFiles} metric, see {@link FrazilMetrics}).
   */
  public static long nativeDataFiles() {
    return FrazilMetrics.nativeDataFiles();
  }

  /** Data files this process delegated to Iceberg's own writer (completed, at least one row). */
  public static long stockDataFiles() {
    return FrazilMetrics.stockDataFiles();
  }

  /**
   * Native data-file writers built by this process so far, including those that got no row or
   * failed.
   */
  public static long nativeWritersBuilt() {
    return NATIVE_WRITERS.get();
  }

  static void countNativeWriter() {
    NATIVE_WRITERS.incrementAndGet();
  }

  /** True when the native library can be loaded; logs the reason once when it cannot. */
  static boolean nativeAvailable() {
    if (NativeLoader.isAvailable()) {
      return true;
    }
    LogOnce.warn(
        "native-unavailable",
        "Frazil's native library could not be loaded; Iceberg data files are written by the"
            + " stock writer: "
            + NativeLoader.failure());
    return false;
  }

  private static boolean enabledBySystemProperty() {
    String value = System.getProperty(FLINK_CONFIG_KEY);
    return value == null || !"false".equals(value.trim().toLowerCase(Locale.ROOT));
  }

  private static Map<Pair<FileFormat, Class<?>>, FormatModel<?, ?>> registryModels()
      throws ReflectiveOperationException {
    // Reading the static field initializes the registry first (its own Generic, Flink, ...
    // registrations), so the entry is there to be replaced.
    return PrivateMembers.FORMAT_MODELS.get(null);
  }
}
