package io.frazil.nexmark;

import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * The generator as a Flink source (FLIP-27, Flink's {@link DataGeneratorSource} over row indexes):
 * {@code events > 0} is a bounded run of the first {@code events} events, emitted as fast as the
 * job takes them; {@code events == 0} an unbounded one paced to the generator's events per second.
 *
 * <p>Parallel readers interleave, as the specification's generator instances do: the index range is
 * cut into one contiguous split per reader, and {@link Interleaved} maps split {@code s}'s {@code
 * i}-th index to row {@code i * splits + s}, so every reader walks the whole event-time range at
 * the same pace instead of one reader starting at the end of another's range (which would hold half
 * the stream in every windowed operator's state).
 */
public final class NexmarkSource {
  private NexmarkSource() {}

  /** The source of {@code table}'s rows among the first {@code events} events (0: unbounded). */
  public static DataGeneratorSource<RowData> of(
      NexmarkTable table, NexmarkGenerator generator, long events) {
    if (events < 0) {
      throw new IllegalArgumentException(
          "Nexmark events must be >= 0 (0: unbounded), got " + events);
    }
    InternalTypeInfo<RowData> type = InternalTypeInfo.of(table.rowType());
    if (events == 0) {
      // Unbounded: paced to the event-time rate, so event time and wall time advance together.
      return new DataGeneratorSource<>(
          new Interleaved(table, generator, Long.MAX_VALUE),
          Long.MAX_VALUE,
          RateLimiterStrategy.perSecond(rowsPerSecond(table, generator.eventsPerSecond())),
          type);
    }
    long rows = table.rowsOf(events);
    return new DataGeneratorSource<>(new Interleaved(table, generator, rows), rows, type);
  }

  private static double rowsPerSecond(NexmarkTable table, long eventsPerSecond) {
    return Math.max(1e-3, (double) table.rowsOf(eventsPerSecond * 1000L) / 1000.0);
  }

  /**
   * Index → row, interleaving the readers' splits. Flink's number-sequence source cuts {@code [0,
   * rows)} into {@code splits} ranges of {@code rows / splits} indexes, the first {@code rows %
   * splits} one longer; so index {@code i} lies in split {@code s} at offset {@code o}, and {@code
   * o * splits + s} is a one-to-one map of {@code [0, rows)} onto itself (TestNexmarkSource checks
   * every row arrives exactly once).
   */
  static final class Interleaved implements GeneratorFunction<Long, RowData> {
    private static final long serialVersionUID = 1L;
    private final NexmarkTable table;
    private final NexmarkGenerator generator;
    private final long rows;
    private long splits = 1;

    Interleaved(NexmarkTable table, NexmarkGenerator generator, long rows) {
      this.table = table;
      this.generator = generator;
      this.rows = rows;
    }

    @Override
    public void open(SourceReaderContext context) {
      this.splits = Math.max(1, context.currentParallelism());
    }

    @Override
    public RowData map(Long index) {
      return table.row(generator, table.eventIdOf(rowOf(index, rows, splits)));
    }

    static long rowOf(long index, long rows, long splits) {
      long base = rows / splits;
      long longer = rows % splits; // splits 0 .. longer-1 hold base + 1 indexes
      long split;
      long offset;
      if (index < longer * (base + 1)) {
        split = index / (base + 1);
        offset = index % (base + 1);
      } else {
        long rest = index - longer * (base + 1);
        split = longer + rest / base;
        offset = rest % base;
      }
      return offset * splits + split;
    }
  }
}
