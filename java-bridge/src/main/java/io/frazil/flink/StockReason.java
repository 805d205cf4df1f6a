package io.frazil.flink;

/**
 * Why a data file went to Iceberg's own writer. {@link #metricName()} names its counter in the
 * {@code frazil.fallback} metric group (see {@code io.frazil.flink.metrics.FrazilMetrics}).
 */
enum StockReason {
  PROCESS_DISABLED("processDisabled", true),
  TABLE_DISABLED("tableDisabled", true),
  NO_SCHEMA("noSchema", false),
  ENCRYPTION("encryption", false),
  FOOTER_METADATA("footerMetadata", false),
  VARIANT_SHREDDING("variantShredding", false),
  CODEC("codec", false),
  UNSUPPORTED_SCHEMA("unsupportedSchema", false),
  NATIVE_UNAVAILABLE("nativeUnavailable", false),
  ARROW_ACCESS("arrowAccess", false);

  private final String metricName;
  private final boolean switchedOff;

  StockReason(String metricName, boolean switchedOff) {
    this.metricName = metricName;
    this.switchedOff = switchedOff;
  }

  String metricName() {
    return metricName;
  }

  /**
   * True when an off switch someone set chose the stock writer (logged at INFO: the log says it was
   * heard); false when Frazil would have written the file and could not (a warning).
   */
  boolean switchedOff() {
    return switchedOff;
  }
}
