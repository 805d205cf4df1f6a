package io.frazil.read.vector;

import org.apache.flink.table.data.columnar.vector.ColumnVector;

/**
 * Base of the read path's column vectors: values copied out of one decoded Arrow batch onto the
 * heap, so a row handed to Flink stays readable after the batch's native memory is released (a
 * consumer that keeps a row past the next call reads stale values, as with Iceberg's reused rows,
 * never freed memory).
 */
abstract class HeapVector implements ColumnVector {
  /** Validity bits as Arrow stores them (bit set = value present), or null when none is null. */
  private final byte[] validity;

  HeapVector(byte[] validity) {
    this.validity = validity;
  }

  @Override
  public boolean isNullAt(int i) {
    return validity != null && (validity[i >> 3] & (1 << (i & 7))) == 0;
  }
}
