package io.frazil.flink;

import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;

/** Flink's legacy parallel source function (in 2.x it moved to a {@code legacy} package). */
abstract class LegacyParallelSource<T> extends RichParallelSourceFunction<T> {
  private static final long serialVersionUID = 1L;
}
