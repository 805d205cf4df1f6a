package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import io.frazil.partition.ArrowBatchSplitter;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;

/**
 * Writes a stream of {@link ArrowBatch}es into an Iceberg table through Iceberg's own Flink sinks,
 * whose data files the installed Frazil hook writes natively:
 *
 * <pre>{@code
 * DataStream<ArrowBatch> batches = ...; // typed ArrowRowLayout.appendOnly(table.schema()).typeInfo()
 * FrazilArrowSink.append(batches, tableLoader);
 * }</pre>
 *
 * <p>Each batch is turned into row views right before Iceberg's writer ({@link ArrowBatchesToRows},
 * chained to the writer): Iceberg's sink then does what it does for any RowData stream
 * (distribution, rolling, equality deletes, checkpoints, exactly-once commits). The rows reach
 * Frazil's appender as they were emitted (their type keeps Flink's chain from copying them, {@link
 * SinkRowsTypeInfo}), so the appender hands each run of consecutive rows of a batch to the native
 * writer as a slice of the batch, with no conversion (the direct path; {@code
 * -Dfrazil.arrow.direct.enabled=false} turns it off). Rows that are copied on the way (a keyed
 * distribution mode serializes them to the writer subtask) are written like any rows. The batches'
 * layout, with or without the row kind column, is read from the stream's {@link
 * io.frazil.exchange.ArrowBatchTypeInfo}; a stream whose schema is not the table's is refused when
 * the job is built, and a batch of another schema that reaches the sink fails its task, naming the
 * difference.
 *
 * <p>Ownership: the batches belong to whoever emitted them until they reach the sink's conversion
 * step, which closes each one after copying its rows out (see {@link ArrowBatchesToRows}).
 */
public final class FrazilArrowSink {
  private FrazilArrowSink() {}

  /**
   * Appends the batches' rows (or applies them by row kind, if the layout carries one) with
   * Iceberg's {@link IcebergSink} and its defaults. IcebergSink, not FlinkSink: a bounded job
   * through FlinkSink can lose its last files (docs/upstream-issues.md). A partitioned table with
   * {@code write.distribution-mode=hash} gets the Arrow form of that distribution: each batch is
   * split by partition natively and whole parts are keyed by partition path to the subtask stock
   * would send their rows to ({@link #splitsByPartition}).
   */
  public static DataStreamSink<RowData> append(DataStream<ArrowBatch> batches, TableLoader loader) {
    Table table = load(loader);
    ArrowRowLayout layout = ArrowRowLayout.of(table.schema(), batches.getType());
    if (!splitsByPartition(table, layout)) {
      return IcebergSink.forRowData(rows(batches, table)).table(table).tableLoader(loader).append();
    }
    DataStream<RowData> rows =
        batches
            .flatMap(new PartitionedBatches(layout, table.spec()))
            .name("ArrowBatch → partition parts")
            .returns(PartitionedBatches.typeOf(layout))
            .setParallelism(batches.getParallelism())
            .keyBy(part -> part.f0, Types.STRING)
            .flatMap(new PartitionRowsToWriter(layout, table.name()))
            .name("ArrowBatch → RowData")
            .returns(new SinkRowsTypeInfo(layout.rowType()))
            .setParallelism(batches.getParallelism());
    // The rows are at the subtask stock's hash distribution would send them to: no other shuffle.
    return IcebergSink.forRowData(rows)
        .table(table)
        .tableLoader(loader)
        .distributionMode(DistributionMode.NONE)
        .writeParallelism(batches.getParallelism())
        .append();
  }

  /**
   * True when the table asks for {@code write.distribution-mode=hash} on a partitioned spec with no
   * identifier fields (stock keys such rows by partition path), the batches carry inserts only, and
   * native code computes every partition field: then {@link #append} splits batches by partition
   * and keys whole parts instead of rows. Otherwise rows go through Iceberg's own distribution.
   */
  static boolean splitsByPartition(Table table, ArrowRowLayout layout) {
    String mode =
        table
            .properties()
            .getOrDefault(
                TableProperties.WRITE_DISTRIBUTION_MODE,
                TableProperties.WRITE_DISTRIBUTION_MODE_NONE);
    if (table.spec().isUnpartitioned()
        || layout.hasRowKind()
        || !table.schema().identifierFieldIds().isEmpty()
        || DistributionMode.fromName(mode) != DistributionMode.HASH) {
      return false;
    }
    return ArrowBatchSplitter.supports(table.spec(), table.schema(), layout.arrowSchema());
  }

  /** Iceberg's {@link IcebergSink} builder over the batches' rows, table and loader set. */
  public static IcebergSink.Builder icebergSink(
      DataStream<ArrowBatch> batches, TableLoader loader) {
    Table table = load(loader);
    return IcebergSink.forRowData(rows(batches, table)).table(table).tableLoader(loader);
  }

  /** Iceberg's {@link FlinkSink} builder over the batches' rows, table and loader set. */
  public static FlinkSink.Builder flinkSink(DataStream<ArrowBatch> batches, TableLoader loader) {
    Table table = load(loader);
    return FlinkSink.forRowData(rows(batches, table)).table(table).tableLoader(loader);
  }

  private static DataStream<RowData> rows(DataStream<ArrowBatch> batches, Table table) {
    ArrowRowLayout layout = ArrowRowLayout.of(table.schema(), batches.getType());
    return ArrowStreams.toSinkRows(batches, layout, table.name());
  }

  /** The table, loaded through a clone so that {@code loader} stays unopened for the sink. */
  private static Table load(TableLoader loader) {
    try (TableLoader copy = loader.clone()) {
      copy.open();
      return copy.loadTable();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load the table of " + loader, e);
    }
  }
}
