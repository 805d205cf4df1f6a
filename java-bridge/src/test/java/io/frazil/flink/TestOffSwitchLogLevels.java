package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.DataWriter;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An off switch someone set is logged at INFO (the log says it was heard, nothing is wrong); a
 * fallback Frazil did not choose stays a warning. Each case writes one data file through Iceberg's
 * format model registry, as every Iceberg Flink sink does.
 */
public class TestOffSwitchLogLevels {
  private static boolean installedBefore;

  @TempDir private File dir;

  @BeforeAll
  public static void remember() {
    installedBefore = FrazilFlink.isInstalled();
  }

  @AfterAll
  public static void restore() {
    if (!installedBefore) {
      FrazilFlink.uninstall();
    }
  }

  @BeforeEach
  public void before() {
    assertThat(FrazilFlink.install()).as("the hook is installed").isTrue();
    LogOnce.forgetForTests();
  }

  @AfterEach
  public void after() {
    System.clearProperty(FrazilFlink.FLINK_CONFIG_KEY);
    FrazilFlink.setProcessEnabled(true);
  }

  @Test
  public void aTableSwitchedOffIsInfo() throws IOException {
    try (CapturedLog log = new CapturedLog()) {
      writeOneFile(Map.of(FrazilFlink.TABLE_PROPERTY, "false"), Map.of());
      assertOneLine(log, "write.parquet.frazil.enabled=false", Level.INFO);
    }
  }

  @Test
  public void aProcessSwitchedOffIsInfo() throws IOException {
    try (CapturedLog log = new CapturedLog()) {
      FrazilFlink.setProcessEnabled(false);
      writeOneFile(Map.of(), Map.of());
      assertOneLine(log, "off for this process (frazil.enabled=false)", Level.INFO);
    }
  }

  @Test
  public void theFlinkConfigurationSwitchIsInfo() {
    Configuration config = new Configuration();
    config.set(FrazilBootstrapFileSystemFactory.ENABLED, false);
    try (CapturedLog log = new CapturedLog()) {
      new FrazilBootstrapFileSystemFactory().configure(config);
      assertThat(FrazilFlink.processEnabled()).isFalse();
      assertOneLine(log, "Flink configuration frazil.enabled: false", Level.INFO);
    }
  }

  @Test
  public void theSystemPropertySwitchIsInfo() {
    FrazilFlink.uninstall();
    System.setProperty(FrazilFlink.FLINK_CONFIG_KEY, "false");
    try (CapturedLog log = new CapturedLog()) {
      assertThat(FrazilFlink.install()).as("nothing installed").isFalse();
      assertOneLine(log, "-Dfrazil.enabled=false", Level.INFO);
    }
  }

  @Test
  public void extraFooterMetadataIsAWarning() throws IOException {
    try (CapturedLog log = new CapturedLog()) {
      writeOneFile(Map.of(), Map.of("written-by", "a test"));
      assertOneLine(log, "Frazil fallback: extra Parquet footer metadata", Level.WARN);
    }
  }

  @Test
  public void aCodecFrazilDoesNotWriteIsAWarning() throws IOException {
    try (CapturedLog log = new CapturedLog()) {
      writeOneFile(Map.of(TableProperties.PARQUET_COMPRESSION, "lz4"), Map.of());
      assertOneLine(log, "Frazil fallback: Parquet codec lz4", Level.WARN);
    }
  }

  @Test
  public void onlyTheTwoSwitchesAreSwitchedOff() {
    // A new reason is a warning unless it, too, is a switch someone set.
    EnumSet<StockReason> switchedOff = EnumSet.noneOf(StockReason.class);
    for (StockReason reason : StockReason.values()) {
      if (reason.switchedOff()) {
        switchedOff.add(reason);
      }
    }
    assertThat(switchedOff)
        .containsExactlyInAnyOrder(StockReason.PROCESS_DISABLED, StockReason.TABLE_DISABLED);
  }

  private void writeOneFile(Map<String, String> properties, Map<String, String> meta)
      throws IOException {
    File file = new File(dir, UUID.randomUUID() + ".parquet");
    DataWriter<RowData> writer =
        FormatModelRegistry.<RowData, RowType>dataWriteBuilder(
                FileFormat.PARQUET,
                RowData.class,
                EncryptedFiles.plainAsEncryptedOutput(org.apache.iceberg.Files.localOutput(file)))
            .schema(FlinkJobs.SCHEMA)
            .engineSchema(FlinkJobs.ROW_TYPE)
            .spec(PartitionSpec.unpartitioned())
            .setAll(properties)
            .meta(meta)
            .build();
    try {
      writer.write(FlinkJobs.row(1, "a"));
    } finally {
      writer.close();
    }
    assertThat(FlinkJobs.createdBy(file.getAbsolutePath()))
        .as("Iceberg's writer wrote the file")
        .startsWith("parquet-mr");
  }

  private static void assertOneLine(CapturedLog log, String text, Level level) {
    List<CapturedLog.Line> lines = log.containing(text);
    assertThat(lines).as("logged once: %s", text).hasSize(1);
    assertThat(lines.get(0).level()).as(lines.get(0).message()).isEqualTo(level);
  }
}
