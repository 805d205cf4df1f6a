package io.frazil.flink;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.flink.metrics.FrazilMetrics;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.FrazilParquet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.encryption.NativeEncryptionOutputFile;
import org.apache.iceberg.formats.ModelWriteBuilder;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;

/**
 * Records a data-file writer's settings while forwarding each of them to Iceberg's own builder,
 * then builds a native appender when Frazil reproduces the configuration exactly, and Iceberg's
 * appender otherwise. Delete files always go to Iceberg.
 */
final class FrazilWriteBuilder implements ModelWriteBuilder<RowData, RowType> {
  private static final String[] NATIVE_CODECS = {"zstd", "gzip", "snappy", "uncompressed"};

  private final EncryptedOutputFile file;
  private final ModelWriteBuilder<RowData, RowType> delegate;
  private final Map<String, String> properties = Maps.newHashMap();
  private Schema schema = null;
  private RowType engineSchema = null;
  private FileContent content = null;
  private MetricsConfig metricsConfig = MetricsConfig.getDefault();
  private boolean overwrite = false;
  private boolean encrypted = false;
  private boolean extraMetadata = false;

  FrazilWriteBuilder(EncryptedOutputFile file, ModelWriteBuilder<RowData, RowType> delegate) {
    this.file = file;
    this.delegate = delegate;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> schema(Schema newSchema) {
    this.schema = newSchema;
    delegate.schema(newSchema);
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> engineSchema(RowType newSchema) {
    this.engineSchema = newSchema;
    delegate.engineSchema(newSchema);
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> set(String property, String value) {
    properties.put(property, value);
    delegate.set(property, value);
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> meta(String property, String value) {
    this.extraMetadata = true;
    delegate.meta(property, value);
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> content(FileContent newContent) {
    this.content = newContent;
    delegate.content(newContent);
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> metricsConfig(MetricsConfig newMetricsConfig) {
    this.metricsConfig = newMetricsConfig;
    delegate.metricsConfig(newMetricsConfig);
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> overwrite() {
    this.overwrite = true;
    delegate.overwrite();
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> withFileEncryptionKey(ByteBuffer encryptionKey) {
    this.encrypted = true;
    delegate.withFileEncryptionKey(encryptionKey);
    return this;
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> withAADPrefix(ByteBuffer aadPrefix) {
    this.encrypted = true;
    delegate.withAADPrefix(aadPrefix);
    return this;
  }

  @Override
  public FileAppender<RowData> build() throws IOException {
    if (content != FileContent.DATA) {
      return delegate.build();
    }
    FrazilMetrics.FileCounter counter = FrazilMetrics.forCurrentThread();
    StockReason reason = stockReason();
    if (reason != null) {
      return new CountedAppender(delegate.build(), counter, reason);
    }
    FrazilFlink.countNativeWriter();
    return new CountedAppender(
        FrazilParquet.write(file.encryptingOutputFile())
            .schema(schema)
            .flinkType(engineSchema)
            .setAll(properties)
            .metricsConfig(metricsConfig)
            .overwrite(overwrite)
            .buildRowData(),
        counter,
        null);
  }

  /** Why this data file must be written by Iceberg's own writer, or null if Frazil can. */
  private StockReason stockReason() {
    if (!FrazilFlink.processEnabled()) {
      return logged(
          StockReason.PROCESS_DISABLED,
          "process-off",
          "Frazil is off for this process ("
              + FrazilFlink.FLINK_CONFIG_KEY
              + "=false): Iceberg's writer writes its data files");
    }
    String tableSwitch = properties.get(FrazilFlink.TABLE_PROPERTY);
    if (tableSwitch != null && "false".equals(tableSwitch.trim().toLowerCase(Locale.ROOT))) {
      return logged(
          StockReason.TABLE_DISABLED,
          "table-off",
          "Frazil is off for a table ("
              + FrazilFlink.TABLE_PROPERTY
              + "=false): Iceberg's writer writes its data files");
    }
    if (schema == null) {
      return logged(
          StockReason.NO_SCHEMA, "no-schema", "a data writer was built without an Iceberg schema");
    }
    if (file instanceof NativeEncryptionOutputFile || encrypted) {
      return logged(
          StockReason.ENCRYPTION,
          "encryption",
          "Parquet modular encryption is written by Iceberg's writer");
    }
    if (extraMetadata) {
      return logged(
          StockReason.FOOTER_METADATA,
          "meta",
          "extra Parquet footer metadata is written by Iceberg's writer");
    }
    if (Boolean.parseBoolean(properties.get(TableProperties.PARQUET_SHRED_VARIANTS))) {
      return logged(
          StockReason.VARIANT_SHREDDING,
          "shredding",
          "variant shredding is written by Iceberg's writer");
    }
    String codec =
        properties
            .getOrDefault(
                TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT)
            .trim()
            .toLowerCase(Locale.ROOT);
    if (!java.util.Arrays.asList(NATIVE_CODECS).contains(codec)) {
      return logged(
          StockReason.CODEC,
          "codec-" + codec,
          "Parquet codec " + codec + " is written by Iceberg's writer");
    }
    String unsupported = IcebergArrowSchema.unsupportedReason(schema);
    if (unsupported != null) {
      return logged(
          StockReason.UNSUPPORTED_SCHEMA,
          "schema-" + unsupported,
          unsupported + "; written by Iceberg's writer");
    }
    if (!FrazilFlink.nativeAvailable()) {
      return StockReason.NATIVE_UNAVAILABLE;
    }
    Throwable arrowProblem = ArrowMemory.accessProblem();
    if (arrowProblem != null) {
      LogOnce.warn(
          "arrow-access",
          ArrowMemory.accessAdvice() + "; Iceberg data files are written by the stock writer",
          arrowProblem);
      return StockReason.ARROW_ACCESS;
    }
    return null;
  }

  /** Logs once per {@code logKey}: an off switch at INFO, any other reason as a warning. */
  private static StockReason logged(StockReason reason, String logKey, String message) {
    if (reason.switchedOff()) {
      LogOnce.info(logKey, message);
    } else {
      LogOnce.warn(logKey, "Frazil fallback: " + message);
    }
    return reason;
  }
}
