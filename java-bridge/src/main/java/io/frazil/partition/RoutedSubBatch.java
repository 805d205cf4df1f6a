package io.frazil.partition;

import io.frazil.exchange.ArrowBatch;
import java.util.Objects;

/**
 * The rows of a batch that go to one destination (a writer subtask), cut by {@link
 * EqualityKeyRouter}. The receiver owns {@link #batch()} and closes it.
 */
public final class RoutedSubBatch {
  private final int destination;
  private final ArrowBatch batch;

  public RoutedSubBatch(int destination, ArrowBatch batch) {
    this.destination = destination;
    this.batch = Objects.requireNonNull(batch, "batch");
  }

  /** The subtask index the rows' equality keys send them to. */
  public int destination() {
    return destination;
  }

  public ArrowBatch batch() {
    return batch;
  }

  @Override
  public String toString() {
    return "RoutedSubBatch[" + destination + ", " + batch + "]";
  }
}
