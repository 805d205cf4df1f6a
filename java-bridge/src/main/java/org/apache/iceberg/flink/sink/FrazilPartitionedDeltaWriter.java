package org.apache.iceberg.flink.sink;

import io.frazil.partition.BucketTupleMemo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.Tasks;

/**
 * Iceberg's partitioned equality-delta writer (upserts, CDC) with the partition looked up by bucket
 * ordinal.
 *
 * <p>It lives in Iceberg's package because its base class, {@code BaseDeltaTaskWriter}, is
 * package-private: everything about inserts, equality deletes, position deletes and deletion
 * vectors is that base class's, unchanged. Only {@link #route} differs from Iceberg's {@code
 * PartitionedDeltaWriter}: a slot per ordinal instead of a {@code HashMap<PartitionKey, …>}. The
 * class links only when Iceberg's Flink classes come from the same class loader as Frazil's; the
 * caller falls back to Iceberg's writer otherwise.
 */
public final class FrazilPartitionedDeltaWriter extends BaseDeltaTaskWriter {
  private final BucketTupleMemo memo;
  private final List<RowDataDeltaWriter> writers;
  private final List<Integer> opened = new ArrayList<>();

  @SuppressWarnings("checkstyle:ParameterNumber")
  public FrazilPartitionedDeltaWriter(
      BucketTupleMemo memo,
      FileFormat format,
      FileWriterFactory<RowData> fileWriterFactory,
      OutputFileFactory fileFactory,
      FileIO io,
      long targetFileSize,
      Schema schema,
      RowType flinkSchema,
      Set<Integer> equalityFieldIds,
      boolean upsert,
      boolean useDv) {
    super(
        memo.spec(),
        format,
        fileWriterFactory,
        fileFactory,
        io,
        targetFileSize,
        schema,
        flinkSchema,
        equalityFieldIds,
        upsert,
        useDv);
    this.memo = memo;
    this.writers = new ArrayList<>(Collections.nCopies(memo.size(), null));
  }

  @Override
  RowDataDeltaWriter route(RowData row) {
    int ordinal = memo.ordinal(row);
    RowDataDeltaWriter writer = writers.get(ordinal);
    if (writer == null) {
      writer = new RowDataDeltaWriter(memo.key(ordinal), dvFileWriter());
      writers.set(ordinal, writer);
      opened.add(ordinal);
    }
    return writer;
  }

  @Override
  public void close() {
    try {
      // Same order as Iceberg's writer: the deletion-vector writer first, then the partitions.
      super.close();
      List<RowDataDeltaWriter> open = new ArrayList<>(opened.size());
      for (int ordinal : opened) {
        open.add(writers.get(ordinal));
        writers.set(ordinal, null);
      }
      opened.clear();
      Tasks.foreach(open)
          .throwFailureWhenFinished()
          .noRetry()
          .run(RowDataDeltaWriter::close, IOException.class);
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to close equality delta writer", e);
    }
  }
}
