package io.frazil.flink;

import org.apache.flink.streaming.api.functions.source.legacy.RichParallelSourceFunction;

/** Flink's legacy parallel source function, which 2.x moved to a {@code legacy} package. */
abstract class LegacyParallelSource<T> extends RichParallelSourceFunction<T> {
  private static final long serialVersionUID = 1L;
}
