package io.frazil.partition;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.iceberg.types.Type;

/**
 * How a bucket source field's value is read from a Flink row and hashed: one constant per (Iceberg
 * type, Flink type) pair {@link BucketTupleMemo} accepts. {@link BucketTupleMemo}'s per-row hash
 * switches on it.
 */
enum BucketSourceKind {
  BYTE_AS_INT,
  SHORT_AS_INT,
  INT,
  LONG,
  TIME_MILLIS,
  TIMESTAMP_MICROS_TRUNCATED, // TIMESTAMP -> timestamp(tz)
  TIMESTAMP_MICROS_FLOORED, // TIMESTAMP_LTZ -> timestamp(tz)
  TIMESTAMP_NANOS_EXACT, // TIMESTAMP -> timestamp(tz)_ns
  TIMESTAMP_NANOS_WRAPPING, // TIMESTAMP_LTZ -> timestamp(tz)_ns
  STRING,
  BYTES,
  UUID,
  DECIMAL;

  /**
   * The kind that reads a source of Iceberg type {@code icebergType} from Flink type {@code
   * logical} the way {@code RowDataWrapper} does.
   *
   * @throws IllegalArgumentException for any other pair; the message names {@code sourceName}
   */
  static BucketSourceKind of(Type icebergType, LogicalType logical, String sourceName) {
    LogicalTypeRoot root = logical.getTypeRoot();
    switch (icebergType.typeId()) {
      case INTEGER:
      case DATE:
        switch (root) {
          case TINYINT:
            return BYTE_AS_INT;
          case SMALLINT:
            return SHORT_AS_INT;
          case INTEGER:
          case DATE:
            return INT;
          default:
            break;
        }
        break;
      case LONG:
        if (root == LogicalTypeRoot.BIGINT) {
          return LONG;
        }
        break;
      case TIME:
        if (root == LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE) {
          return TIME_MILLIS;
        }
        break;
      case TIMESTAMP:
        if (root == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE) {
          return TIMESTAMP_MICROS_TRUNCATED;
        } else if (root == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE) {
          return TIMESTAMP_MICROS_FLOORED;
        }
        break;
      case TIMESTAMP_NANO:
        if (root == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE) {
          return TIMESTAMP_NANOS_EXACT;
        } else if (root == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE) {
          return TIMESTAMP_NANOS_WRAPPING;
        }
        break;
      case STRING:
        if (root == LogicalTypeRoot.CHAR || root == LogicalTypeRoot.VARCHAR) {
          return STRING;
        }
        break;
      case UUID:
        if (root == LogicalTypeRoot.BINARY || root == LogicalTypeRoot.VARBINARY) {
          return UUID;
        }
        break;
      case FIXED:
      case BINARY:
        if (root == LogicalTypeRoot.BINARY || root == LogicalTypeRoot.VARBINARY) {
          return BYTES;
        }
        break;
      case DECIMAL:
        if (root == LogicalTypeRoot.DECIMAL) {
          return DECIMAL;
        }
        break;
      default:
        break;
    }
    throw new IllegalArgumentException(
        "Cannot read Iceberg "
            + icebergType
            + " source field '"
            + sourceName
            + "' from Flink type "
            + logical);
  }
}
