package io.frazil.flink;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs Frazil before any test class loads when {@code -Dfrazil.install.for.tests=true} (the
 * {@code iceberg-suites} profile), so Iceberg's own, unchanged test classes write through it.
 */
public final class InstallFrazilForTests implements LauncherSessionListener {
  @Override
  public void launcherSessionOpened(LauncherSession session) {
    if (Boolean.getBoolean("frazil.install.for.tests") && !FrazilFlink.install()) {
      throw new IllegalStateException("Frazil could not be installed for Iceberg's test suites");
    }
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (Boolean.getBoolean("frazil.install.for.tests")) {
      // Proof the suites really wrote through Frazil: printed into the Maven log.
      System.out.println(
          "Frazil data files written natively: "
              + FrazilFlink.nativeDataFiles()
              + ", delegated to Iceberg's writer: "
              + FrazilFlink.stockDataFiles());
      System.out.println(
          "Frazil data files read natively: "
              + io.frazil.read.ReadCounters.nativeFiles()
              + ", read by Iceberg's reader: "
              + io.frazil.read.ReadCounters.stockFiles());
    }
  }
}
