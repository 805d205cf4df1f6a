package org.apache.iceberg.flink.sink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.table.data.RowData;

/**
 * Flink 2.x: a {@link Sink} creates its writers only through {@code
 * createWriter(WriterInitContext)} (the sink that extends this implements it); nothing else to
 * bridge.
 */
abstract class RowDataSinkWriters implements Sink<RowData> {
  private static final long serialVersionUID = 1L;

  /** The sink whose writers are created. */
  abstract Sink<RowData> delegate();

  /** A writer from {@link #delegate()}, with Frazil's memoizer put in where it applies. */
  abstract SinkWriter<RowData> memoized(SinkWriter<RowData> writer);
}
