package io.frazil.flink;

/**
 * Why a data file went to Iceberg's own writer. {@link #metricName()} names its counter in the
 * {@code frazil.fallback} metric group (see {@code io.frazil.flink.metrics.FrazilMetrics}).
 */
enum StockReason {
  PROCESS_DISABLED("processDisabled"),
  TABLE_DISABLED("tableDisabled"),
  NO_SCHEMA("noSchema"),
  ENCRYPTION("encryption"),
  FOOTER_METADATA("footerMetadata"),
  VARIANT_SHREDDING("variantShredding"),
  CODEC("codec"),
  UNSUPPORTED_SCHEMA("unsupportedSchema"),
  NATIVE_UNAVAILABLE("nativeUnavailable"),
  ARROW_ACCESS("arrowAccess");

  private final String metricName;

  StockReason(String metricName) {
    this.metricName = metricName;
  }

  String metricName() {
    return metricName;
  }
}
