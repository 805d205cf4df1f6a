package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import java.util.List;
import java.util.function.Function;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.util.Collector;

/** Emits the parts of a split batch onto a network edge, each closed once emitted. */
final class Parts {
  private Parts() {}

  /**
   * Emits {@code (key, batch)} for every part and closes each part's batch right after (the edge
   * serialized it inside {@code collect}). After a failure the remaining parts are closed without
   * being emitted, and the first failure is thrown: nothing stays allocated.
   */
  static <P, K> void emitAndClose(
      List<P> parts,
      Function<P, K> key,
      Function<P, ArrowBatch> batch,
      Collector<Tuple2<K, ArrowBatch>> out) {
    RuntimeException failure = null;
    for (P part : parts) {
      try {
        if (failure == null) {
          out.collect(Tuple2.of(key.apply(part), batch.apply(part)));
        }
      } catch (RuntimeException e) {
        failure = e;
      } finally {
        batch.apply(part).close();
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
