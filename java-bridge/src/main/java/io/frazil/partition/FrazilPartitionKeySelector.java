package io.frazil.partition;

import io.frazil.reflect.PrivateMembers;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.sink.PartitionKeySelector;

/**
 * A drop-in for Iceberg's {@link PartitionKeySelector} (the {@code keyBy} of {@code
 * write.distribution-mode=hash}): for every row it returns the same partition path string, so rows
 * reach the same subtasks as with stock Iceberg, and restored jobs keep their key groups.
 *
 * <p>When the spec is {@linkplain BucketTupleMemo#isEligible eligible} (bucket transforms only, at
 * most {@value BucketTupleMemo#MAX_TUPLES} tuples) and {@link BucketTupleMemo#create} accepts the
 * source types, the key is {@code memo.path(memo.ordinal(row))}: a precomputed String, no per-row
 * {@code toPath()}, URL escaping, conversion or boxing. Otherwise every call goes to a stock {@link
 * PartitionKeySelector} built with the same arguments (which also reproduces stock's behaviour for
 * inputs stock rejects).
 *
 * <p>Serializable, as Flink ships key selectors to the task managers: only the {@link
 * PartitionSpec}, {@link Schema} and {@link RowType} (all Serializable) travel; the memo is
 * transient and rebuilt on first use after deserialization. Like the stock selector, an instance is
 * used by one thread (one per subtask).
 */
public final class FrazilPartitionKeySelector implements KeySelector<RowData, String> {
  private static final long serialVersionUID = 1L;

  private final PartitionSpec spec;
  private final Schema schema;
  private final RowType flinkType;
  private final boolean memoized;
  private final PartitionKeySelector stock; // null when memoized

  private transient BucketTupleMemo memo;

  public FrazilPartitionKeySelector(PartitionSpec spec, Schema schema, RowType flinkType) {
    this.spec = spec;
    this.schema = schema;
    this.flinkType = flinkType;
    BucketTupleMemo built = null;
    if (BucketTupleMemo.isEligible(spec)) {
      try {
        built = BucketTupleMemo.create(schema, spec, flinkType);
      } catch (IllegalArgumentException e) {
        // A source type or Flink type the memo does not handle: stock decides (and fails where
        // stock fails).
        built = null;
      }
    }
    this.memo = built;
    this.memoized = built != null;
    this.stock = memoized ? null : new PartitionKeySelector(spec, schema, flinkType);
  }

  /**
   * Frazil's selector for the same spec, schema and row type as Iceberg's {@code stock} (read from
   * its private fields, see {@link PrivateMembers}).
   */
  public static FrazilPartitionKeySelector of(PartitionKeySelector stock)
      throws ReflectiveOperationException {
    Schema schema = PrivateMembers.PARTITION_KEY_SELECTOR_SCHEMA.get(stock);
    RowType flinkType = PrivateMembers.PARTITION_KEY_SELECTOR_FLINK_SCHEMA.get(stock);
    PartitionSpec spec =
        PrivateMembers.PARTITION_KEY_SPEC.get(PrivateMembers.PARTITION_KEY_SELECTOR_KEY.get(stock));
    return new FrazilPartitionKeySelector(spec, schema, flinkType);
  }

  @Override
  public String getKey(RowData row) {
    if (memoized) {
      BucketTupleMemo current = memo;
      if (current == null) {
        current = BucketTupleMemo.create(schema, spec, flinkType);
        this.memo = current;
      }
      return current.path(current.ordinal(row));
    }
    return stock.getKey(row);
  }

  /** True when keys come from a {@link BucketTupleMemo}, false when from the stock selector. */
  public boolean isMemoized() {
    return memoized;
  }

  public PartitionSpec spec() {
    return spec;
  }
}
