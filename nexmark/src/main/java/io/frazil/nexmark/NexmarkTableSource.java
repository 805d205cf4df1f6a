package io.frazil.nexmark;

import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;

/** The SQL face of {@link NexmarkSource}: an insert-only scan of one {@link NexmarkTable}. */
final class NexmarkTableSource implements ScanTableSource {
  private final NexmarkTable table;
  private final NexmarkGenerator generator;
  private final long events;

  NexmarkTableSource(NexmarkTable table, NexmarkGenerator generator, long events) {
    this.table = table;
    this.generator = generator;
    this.events = events;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return ChangelogMode.insertOnly();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    return SourceProvider.of(NexmarkSource.of(table, generator, events));
  }

  @Override
  public DynamicTableSource copy() {
    return new NexmarkTableSource(table, generator, events);
  }

  @Override
  public String asSummaryString() {
    return "frazil-nexmark("
        + table.optionValue()
        + ", "
        + (events == 0 ? "unbounded" : events)
        + ")";
  }
}
