package io.frazil.flink;

import io.frazil.flink.metrics.FrazilMetrics;
import io.frazil.iceberg.FrazilParquetAppender;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.io.FileAppender;

/**
 * A data-file appender (Frazil's or Iceberg's) that reports its file to {@link FrazilMetrics} once
 * it is closed without error with at least one row; everything else is forwarded unchanged.
 */
final class CountedAppender implements FileAppender<RowData> {
  private final FileAppender<RowData> delegate;
  private final FrazilMetrics.FileCounter counter;

  /** Why Iceberg's writer writes this file; null when Frazil does. */
  private final StockReason stockReason;

  private boolean counted = false;

  CountedAppender(
      FileAppender<RowData> delegate, FrazilMetrics.FileCounter counter, StockReason stockReason) {
    this.delegate = delegate;
    this.counter = counter;
    this.stockReason = stockReason;
  }

  @Override
  public void add(RowData row) {
    delegate.add(row);
  }

  @Override
  public void addAll(Iterator<RowData> values) {
    delegate.addAll(values);
  }

  @Override
  public void addAll(Iterable<RowData> values) {
    delegate.addAll(values);
  }

  @Override
  public Metrics metrics() {
    return delegate.metrics();
  }

  @Override
  public long length() {
    return delegate.length();
  }

  @Override
  public List<Long> splitOffsets() {
    return delegate.splitOffsets();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
    if (!counted) {
      this.counted = true;
      count();
    }
  }

  private void count() {
    Long rows = delegate.metrics().recordCount();
    if (rows == null || rows <= 0) {
      return;
    }
    if (stockReason != null) {
      counter.stockFile(stockReason.metricName(), rows);
    } else {
      long nanos =
          delegate instanceof FrazilParquetAppender
              ? ((FrazilParquetAppender) delegate).encodeNanos()
              : 0L;
      counter.nativeFile(rows, delegate.length(), nanos);
    }
  }
}
