package io.frazil.flink.routing;

import io.frazil.partition.BucketTupleMemo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.io.BaseTaskWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * The append-only partitioned fan-out writer of Iceberg's Flink sink, with the partition looked up
 * by bucket ordinal.
 *
 * <p>Like Iceberg's {@code PartitionedFanoutWriter}, one rolling data-file writer per partition is
 * opened on the partition's first row and all stay open until {@link #close()}. The writers sit in
 * a slot per ordinal instead of a {@code HashMap<PartitionKey, …>}; each is created with the memo's
 * prebuilt key, which nothing mutates, so no per-partition copy is needed.
 */
final class MemoizedFanoutWriter extends BaseTaskWriter<RowData> {
  private final BucketTupleMemo memo;
  private final List<RollingFileWriter> writers;
  private final List<Integer> opened = new ArrayList<>();

  MemoizedFanoutWriter(
      BucketTupleMemo memo,
      FileFormat format,
      FileWriterFactory<RowData> fileWriterFactory,
      OutputFileFactory fileFactory,
      FileIO io,
      long targetFileSize) {
    super(memo.spec(), format, fileWriterFactory, fileFactory, io, targetFileSize);
    this.memo = memo;
    this.writers = new ArrayList<>(Collections.nCopies(memo.size(), null));
  }

  @Override
  public void write(RowData row) throws IOException {
    int ordinal = memo.ordinal(row);
    RollingFileWriter writer = writers.get(ordinal);
    if (writer == null) {
      writer = new RollingFileWriter(memo.key(ordinal));
      writers.set(ordinal, writer);
      opened.add(ordinal);
    }
    writer.write(row);
  }

  /** Closes every open partition writer, in the order they were opened; the first failure wins. */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (int ordinal : opened) {
      try {
        writers.get(ordinal).close();
      } catch (IOException | RuntimeException e) {
        if (failure == null) {
          failure = e instanceof IOException ? (IOException) e : new IOException(e);
        } else if (e != failure && e != failure.getCause()) {
          // The same exception twice would be self-suppression, or a cycle through the cause.
          failure.addSuppressed(e);
        }
      }
      writers.set(ordinal, null);
    }
    opened.clear();
    super.close();
    if (failure != null) {
      throw failure;
    }
  }
}
