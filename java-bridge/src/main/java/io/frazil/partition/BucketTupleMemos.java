package io.frazil.partition;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;

/**
 * A bounded LRU cache of {@link BucketTupleMemo}s keyed by (table name, schema id, spec id), for
 * writers that see many tables or evolving specs (the dynamic sink). Sized like the dynamic sink's
 * own caches ({@code dynamic-sink.cache-max-size}, default {@value #DEFAULT_CAPACITY}).
 *
 * <p>An ineligible spec, or one whose source types {@link BucketTupleMemo#create} rejects, is
 * cached as {@link Optional#empty()} so the check is not repeated per row; callers then take stock
 * Iceberg's route, which also reproduces stock's behaviour for inputs stock rejects.
 *
 * <p>The key assumes the Flink {@link RowType} follows from the table's schema id; a lookup with a
 * different (non-equal) row type than the cached entry's rebuilds the entry. A hit with the same
 * row type instance allocates nothing.
 *
 * <p><b>Not thread-safe</b>: use one instance per operator subtask (Flink calls an operator from
 * one thread). Access order is updated on every {@link #get}.
 */
public final class BucketTupleMemos {
  public static final int DEFAULT_CAPACITY = 100;

  private final int capacity;
  private final LinkedHashMap<Key, Entry> entries;
  private final Key probe = new Key(null, 0, 0);

  public BucketTupleMemos() {
    this(DEFAULT_CAPACITY);
  }

  public BucketTupleMemos(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive, got " + capacity);
    }
    this.capacity = capacity;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
            return size() > BucketTupleMemos.this.capacity;
          }
        };
  }

  /**
   * The memo for (table, {@code schema.schemaId()}, {@code spec.specId()}), built on first use;
   * empty when the spec is not memoizable.
   */
  public Optional<BucketTupleMemo> get(
      String tableName, Schema schema, PartitionSpec spec, RowType flinkType) {
    probe.set(tableName, schema.schemaId(), spec.specId());
    Entry entry = entries.get(probe);
    if (entry != null && (entry.flinkType == flinkType || entry.flinkType.equals(flinkType))) {
      return entry.memo;
    }
    Optional<BucketTupleMemo> memo = build(schema, spec, flinkType);
    entries.put(new Key(tableName, schema.schemaId(), spec.specId()), new Entry(flinkType, memo));
    return memo;
  }

  private static Optional<BucketTupleMemo> build(
      Schema schema, PartitionSpec spec, RowType flinkType) {
    if (!BucketTupleMemo.isEligible(spec)) {
      return Optional.empty();
    }
    try {
      return Optional.of(BucketTupleMemo.create(schema, spec, flinkType));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Number of cached entries (eligible or not). */
  public int size() {
    return entries.size();
  }

  public int capacity() {
    return capacity;
  }

  /** True when (table, schema id, spec id) is cached; does not change the access order. */
  public boolean contains(String tableName, int schemaId, int specId) {
    return entries.containsKey(new Key(tableName, schemaId, specId));
  }

  public void clear() {
    entries.clear();
  }

  private static final class Entry {
    final RowType flinkType;
    final Optional<BucketTupleMemo> memo;

    Entry(RowType flinkType, Optional<BucketTupleMemo> memo) {
      this.flinkType = flinkType;
      this.memo = memo;
    }
  }

  private static final class Key {
    private String table;
    private int schemaId;
    private int specId;

    Key(String table, int schemaId, int specId) {
      set(table, schemaId, specId);
    }

    void set(String newTable, int newSchemaId, int newSpecId) {
      this.table = newTable;
      this.schemaId = newSchemaId;
      this.specId = newSpecId;
    }

    @Override
    public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof Key)) {
        return false;
      }
      Key that = (Key) o;
      return schemaId == that.schemaId
          && specId == that.specId
          && Objects.equals(table, that.table);
    }

    @Override
    public int hashCode() {
      return (Objects.hashCode(table) * 31 + schemaId) * 31 + specId;
    }
  }
}
