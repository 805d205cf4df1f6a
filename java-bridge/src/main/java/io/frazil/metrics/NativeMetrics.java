package io.frazil.metrics;

import io.frazil.jni.NativeFileSummary;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BinaryUtil;
import org.apache.iceberg.util.UnicodeUtil;

/**
 * Builds Iceberg {@link Metrics} for a Frazil data file the way Iceberg Java's {@code
 * ParquetMetrics} does for its own files, from the native encoder's untruncated facts.
 *
 * <p>Per leaf with mode other than {@code none}: the column size always; nothing else for leaves
 * under a list or map; float/double counts, NaN counts and bounds from values measured while
 * writing; other types' counts and bounds only when every row group had statistics; bounds only for
 * {@code truncate(N)} and {@code full}, with strings and binary truncated to N.
 */
public final class NativeMetrics {
  private NativeMetrics() {}

  public static Metrics build(
      NativeFileSummary summary, Schema schema, MetricsConfig metricsConfig) {
    Map<Integer, Long> columnSizes = Maps.newHashMap();
    Map<Integer, Long> valueCounts = Maps.newHashMap();
    Map<Integer, Long> nullCounts = Maps.newHashMap();
    Map<Integer, Long> nanCounts = Maps.newHashMap();
    Map<Integer, ByteBuffer> lowerBounds = Maps.newHashMap();
    Map<Integer, ByteBuffer> upperBounds = Maps.newHashMap();
    Map<Integer, Type> originalTypes = Maps.newHashMap();

    for (NativeFileSummary.Column column : summary.columns()) {
      int id = column.fieldId();
      MetricsModes.MetricsMode mode = MetricsUtil.metricsMode(schema, metricsConfig, id);
      if (mode == MetricsModes.None.get()) {
        continue;
      }
      columnSizes.merge(id, column.columnSize(), Long::sum);

      Types.NestedField field = schema.findField(id);
      if (column.repeated() || !column.hasCounts() || field == null) {
        continue;
      }
      valueCounts.put(id, column.valueCount());
      nullCounts.put(id, column.nullCount());
      if (column.floatMetrics()) {
        nanCounts.put(id, column.nanCount());
      }

      int truncateLength = truncateLength(mode);
      if (truncateLength <= 0) {
        continue;
      }
      Type.PrimitiveType type = field.type().asPrimitiveType();
      originalTypes.put(id, type);
      ByteBuffer lower = truncateLower(type, column.lowerBound(), truncateLength);
      ByteBuffer upper = truncateUpper(type, column.upperBound(), truncateLength);
      if (lower != null) {
        lowerBounds.put(id, lower);
      }
      if (upper != null) {
        upperBounds.put(id, upper);
      }
    }

    return new Metrics(
        summary.recordCount(),
        columnSizes,
        valueCounts,
        nullCounts,
        nanCounts,
        lowerBounds,
        upperBounds,
        originalTypes);
  }

  private static int truncateLength(MetricsModes.MetricsMode mode) {
    if (mode == MetricsModes.None.get() || mode == MetricsModes.Counts.get()) {
      return 0;
    } else if (mode instanceof MetricsModes.Truncate) {
      return ((MetricsModes.Truncate) mode).length();
    } else {
      return Integer.MAX_VALUE;
    }
  }

  private static ByteBuffer truncateLower(Type.PrimitiveType type, ByteBuffer value, int length) {
    if (value == null) {
      return null;
    }
    switch (type.typeId()) {
      case STRING:
        return utf8(UnicodeUtil.truncateStringMin(string(value), length));
      case BINARY:
        return BinaryUtil.truncateBinaryMin(value, length);
      default:
        return value;
    }
  }

  private static ByteBuffer truncateUpper(Type.PrimitiveType type, ByteBuffer value, int length) {
    if (value == null) {
      return null;
    }
    switch (type.typeId()) {
      case STRING:
        return utf8(UnicodeUtil.truncateStringMax(string(value), length));
      case BINARY:
        return BinaryUtil.truncateBinaryMax(value, length);
      default:
        return value;
    }
  }

  private static String string(ByteBuffer utf8) {
    return StandardCharsets.UTF_8.decode(utf8.duplicate()).toString();
  }

  private static ByteBuffer utf8(String value) {
    return value == null ? null : ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
  }
}
