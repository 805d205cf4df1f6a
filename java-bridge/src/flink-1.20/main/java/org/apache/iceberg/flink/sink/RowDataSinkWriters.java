package org.apache.iceberg.flink.sink;

import java.io.IOException;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.table.data.RowData;

/**
 * Flink 1.20: {@link Sink} still declares the deprecated {@code createWriter(InitContext)} abstract
 * (Iceberg's 1.20 sinks implement only that one; Flink calls {@code
 * createWriter(WriterInitContext)}, whose default forwards here). Both paths end in {@link
 * #memoized}.
 */
abstract class RowDataSinkWriters implements Sink<RowData> {
  private static final long serialVersionUID = 1L;

  /** The sink whose writers are created. */
  abstract Sink<RowData> delegate();

  /** A writer from {@link #delegate()}, with Frazil's memoizer put in where it applies. */
  abstract SinkWriter<RowData> memoized(SinkWriter<RowData> writer);

  @Override
  @SuppressWarnings("deprecation")
  public SinkWriter<RowData> createWriter(InitContext context) throws IOException {
    return memoized(delegate().createWriter(context));
  }
}
