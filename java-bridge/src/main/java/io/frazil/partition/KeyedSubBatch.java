package io.frazil.partition;

import io.frazil.exchange.ArrowBatch;
import java.util.Objects;

/**
 * The rows of one partition tuple, cut from a larger batch by {@link ArrowBatchSplitter}, with the
 * key stock Iceberg's {@code PartitionKeySelector} returns for each of them (the partition path).
 * The receiver owns {@link #batch()} and closes it.
 */
public final class KeyedSubBatch {
  private final String key;
  private final ArrowBatch batch;

  public KeyedSubBatch(String key, ArrowBatch batch) {
    this.key = Objects.requireNonNull(key, "key");
    this.batch = Objects.requireNonNull(batch, "batch");
  }

  /**
   * The partition path, e.g. {@code bucket_auction=3/day=2026-12-05} ({@code ""} unpartitioned).
   */
  public String key() {
    return key;
  }

  public ArrowBatch batch() {
    return batch;
  }

  @Override
  public String toString() {
    return "KeyedSubBatch[" + key + ", " + batch + "]";
  }
}
