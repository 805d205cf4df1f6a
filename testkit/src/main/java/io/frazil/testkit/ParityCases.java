package io.frazil.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;

/**
 * The file-level parity matrix (schemas × metrics configurations × writer properties) that
 * java-bridge's TestParquetParity and the validation tool's file-level group both run: the same
 * generated rows written by stock Iceberg and by Frazil.
 */
public final class ParityCases {
  private ParityCases() {}

  /** One file-level case; rows are generated from {@code schemaName}'s hash and the null rate. */
  public record Case(
      String schemaName,
      Schema schema,
      double nullRate,
      int rows,
      Map<String, String> props,
      String metricsName,
      MetricsConfig metrics) {
    /** The case's name in the validation report. */
    public String name() {
      String extra =
          props.isEmpty()
              ? ""
              : " · "
                  + props.entrySet().stream()
                      .map(e -> e.getKey().replace("write.parquet.", "") + "=" + e.getValue())
                      .sorted()
                      .reduce((a, b) -> a + "," + b)
                      .orElse("");
      return String.format(
          Locale.ROOT,
          "%s · metrics=%s · nulls=%s · %d rows%s",
          schemaName,
          metricsName,
          nullRate,
          rows,
          extra);
    }
  }

  /** {@code write.metadata.metrics.default} set to {@code mode}. */
  public static MetricsConfig metrics(String mode) {
    return MetricsConfig.fromProperties(Map.of("write.metadata.metrics.default", mode));
  }

  /** Every metrics configuration of the matrix, by name. */
  public static Map<String, MetricsConfig> metricsModes() {
    Map<String, MetricsConfig> configs = new LinkedHashMap<>();
    configs.put("default", MetricsConfig.getDefault());
    configs.put("none", metrics("none"));
    configs.put("counts", metrics("counts"));
    configs.put("full", metrics("full"));
    configs.put("truncate(4)", metrics("truncate(4)"));
    configs.put(
        "per-column",
        MetricsConfig.fromProperties(
            Map.of(
                "write.metadata.metrics.default", "counts",
                "write.metadata.metrics.column.s", "full",
                "write.metadata.metrics.column.bin", "truncate(2)",
                "write.metadata.metrics.column.l", "none",
                "write.metadata.metrics.column.st.b", "truncate(3)",
                "write.metadata.metrics.column.points.x", "full")));
    return configs;
  }

  /** The schemas of the matrix, by name. */
  public static Map<String, Schema> schemas() {
    Map<String, Schema> schemas = new LinkedHashMap<>();
    schemas.put("primitives", ParitySchemas.PRIMITIVES);
    schemas.put("required", ParitySchemas.REQUIRED);
    schemas.put("nested", ParitySchemas.NESTED);
    schemas.put("v3-types", ParitySchemas.V3_TYPES);
    return schemas;
  }

  /** Every schema × every metrics configuration, then the writer-property cases. */
  public static List<Case> cases() {
    Schema primitives = ParitySchemas.PRIMITIVES;
    Schema nested = ParitySchemas.NESTED;
    List<Case> cases = new ArrayList<>();
    for (Map.Entry<String, Schema> schema : schemas().entrySet()) {
      for (Map.Entry<String, MetricsConfig> config : metricsModes().entrySet()) {
        cases.add(
            new Case(
                schema.getKey(),
                schema.getValue(),
                0.2,
                3000,
                Map.of(),
                config.getKey(),
                config.getValue()));
      }
    }
    // Several row groups, all-null columns, data page v2, other levels and codecs, stats off.
    cases.add(
        new Case(
            "primitives",
            primitives,
            0.1,
            20000,
            Map.of("write.parquet.row-group-size-bytes", "65536"),
            "default",
            MetricsConfig.getDefault()));
    cases.add(
        new Case(
            "nested",
            nested,
            0.1,
            20000,
            Map.of("write.parquet.row-group-size-bytes", "65536"),
            "full",
            metrics("full")));
    cases.add(new Case("primitives", primitives, 1.0, 500, Map.of(), "full", metrics("full")));
    cases.add(
        new Case(
            "primitives",
            primitives,
            0.3,
            3000,
            Map.of(
                "write.parquet.page-version", "v2",
                "write.parquet.compression-level", "9",
                "write.parquet.stats-enabled.column.s", "false",
                "write.parquet.stats-enabled.column.f", "false"),
            "default",
            MetricsConfig.getDefault()));
    cases.add(
        new Case(
            "nested",
            nested,
            0.3,
            3000,
            Map.of("write.parquet.compression-codec", "gzip"),
            "default",
            MetricsConfig.getDefault()));
    cases.add(
        new Case(
            "primitives",
            primitives,
            0.3,
            3000,
            Map.of("write.parquet.compression-codec", "snappy"),
            "default",
            MetricsConfig.getDefault()));
    // Per-column settings name the Iceberg column; Parquet knows "odd-name" as "odd_x2Dname"
    // (found by TestRandomizedParity: Frazil used to miss such columns).
    cases.add(
        new Case(
            "primitives-odd-name-settings",
            primitives,
            0.3,
            1000,
            Map.of(
                "write.parquet.stats-enabled.column.odd-name", "false",
                "write.parquet.bloom-filter-enabled.column.odd-name", "true"),
            "full",
            metrics("full")));
    return cases;
  }
}
