package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import io.frazil.exchange.ArrowBatchTypeInfo;
import io.frazil.partition.ArrowBatchSplitter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;

/**
 * Writes a stream of {@link ArrowBatch}es into Iceberg tables through Iceberg's own Flink sinks
 * (IcebergSink, FlinkSink, the Dynamic Iceberg Sink), whose data files the installed Frazil hook
 * writes natively:
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
      return IcebergSink.forRowData(ArrowStreams.toSinkRows(batches, layout, table.name()))
          .table(table)
          .tableLoader(loader)
          .append();
    }
    DataStream<Tuple2<String, ArrowBatch>> parts =
        batches
            .flatMap(new PartitionedBatches(layout, table.spec()))
            .name("ArrowBatch → partition parts")
            .returns(PartitionedBatches.typeOf(layout))
            .setParallelism(batches.getParallelism())
            .keyBy(part -> part.f0, Types.STRING);
    DataStream<RowData> rows = writerRows(parts, layout, table.name(), batches.getParallelism());
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

  /**
   * Iceberg's {@link DynamicIcebergSink} builder over the rows of {@code batches}, which must be
   * laid out as {@code layout}: the caller sets the {@code DynamicRecordGenerator} (which sees each
   * batch's rows as {@link RowData}, with their row kind when the layout carries one), the catalog
   * loader and the rest as for any RowData input, then calls {@code append()}. A generator routes
   * each row to a table of its choice, so the batches' layout is not checked against any table
   * here; the Dynamic sink converts each row to its table's schema as it does for any input. The
   * rows reach the generator uncopied ({@link SinkRowsTypeInfo}); a record the generator emits
   * without a distribution mode keeps its row object on the way to the sink's forward writer, so a
   * Frazil appender there writes runs of them as slices of the batch (the direct path), while a
   * record with a distribution mode is serialized to its writer subtask and written as a row.
   *
   * @throws IllegalArgumentException naming the first difference when the stream's declared schema
   *     ({@link ArrowBatchTypeInfo}) is not {@code layout}'s
   */
  public static DynamicIcebergSink.Builder<RowData> dynamicSink(
      DataStream<ArrowBatch> batches, ArrowRowLayout layout) {
    checkLayout(batches, layout);
    return DynamicIcebergSink.forInput(
        ArrowStreams.toSinkRows(batches, layout, "(Dynamic Iceberg Sink input)"));
  }

  /**
   * As {@link #dynamicSink}, with the batches split by their rows' equality fields before the
   * exchange: each row reaches the writer subtask the Dynamic Iceberg Sink's own routing would send
   * it to for table {@code table} with these {@code equalityFields} (a record with a distribution
   * mode and equality fields: {@code safeAbs(key) % writeParallelism} as the slot, each slot a
   * distinct writer), but whole sub-batches cross the network, not rows. The caller's generator
   * must then emit each record <em>forward</em> (no distribution mode) with the same equality
   * fields, so that it is written where it arrived; the rows reach it uncopied, and Frazil's
   * appender writes them as slices of their batch. Upserts of one key stay on one writer, in order,
   * as with the sink's own routing.
   *
   * <p>The rows step runs at {@code writeParallelism}; the sink's writers must run at the same
   * parallelism ({@code writeParallelism(...)} on the returned builder), and {@code
   * maxWriteParallelism} must be the max parallelism of the sink's writers: the environment's, or
   * Flink's default for that parallelism (128 up to 85 writers). A part routed to a subtask that
   * does not exist fails the task, naming the mismatch.
   *
   * @throws IllegalArgumentException as {@link #dynamicSink}, or when an equality field is not a
   *     column of the layout's table
   * @throws io.frazil.partition.UnsupportedSplitException when an equality field is nested or of a
   *     type the native key does not compute
   */
  public static DynamicIcebergSink.Builder<RowData> dynamicSinkRoutedByEqualityFields(
      DataStream<ArrowBatch> batches,
      ArrowRowLayout layout,
      TableIdentifier table,
      Set<String> equalityFields,
      int writeParallelism) {
    checkLayout(batches, layout);
    Set<Integer> ids = new HashSet<>();
    for (String name : equalityFields) {
      org.apache.iceberg.types.Types.NestedField field = layout.tableSchema().findField(name);
      if (field == null) {
        throw new IllegalArgumentException(
            "Equality field '" + name + "' is not a column of " + layout.tableSchema());
      }
      ids.add(field.fieldId());
    }
    int configured = batches.getExecutionEnvironment().getMaxParallelism();
    int maxWriteParallelism =
        configured > 0
            ? configured
            : KeyGroupRangeAssignment.computeDefaultMaxParallelism(writeParallelism);
    DataStream<Tuple2<Integer, ArrowBatch>> parts =
        batches
            .flatMap(
                new EqualityRoutedBatches(
                    layout, ids, table.toString(), writeParallelism, maxWriteParallelism))
            .name("ArrowBatch → equality-key parts")
            .returns(EqualityRoutedBatches.typeOf(layout))
            .setParallelism(batches.getParallelism())
            .partitionCustom(
                new EqualityRoutedBatches.ToSubtask(), new EqualityRoutedBatches.Destination());
    return DynamicIcebergSink.forInput(
        writerRows(parts, layout, table.toString(), writeParallelism));
  }

  /**
   * The rows of the parts that reached each writer subtask, for the writer chained behind (the
   * direct path applies: {@link PartitionRowsToWriter}).
   */
  private static <K> DataStream<RowData> writerRows(
      DataStream<Tuple2<K, ArrowBatch>> parts,
      ArrowRowLayout layout,
      String table,
      int parallelism) {
    return parts
        .flatMap(new PartitionRowsToWriter<K>(layout, table))
        .name("ArrowBatch → RowData")
        .returns(new SinkRowsTypeInfo(layout.rowType()))
        .setParallelism(parallelism);
  }

  private static void checkLayout(DataStream<ArrowBatch> batches, ArrowRowLayout layout) {
    if (!(batches.getType() instanceof ArrowBatchTypeInfo)) {
      throw new IllegalArgumentException(
          "Expected a stream of ArrowBatch typed by ArrowBatchTypeInfo, got " + batches.getType());
    }
    org.apache.arrow.vector.types.pojo.Schema declared =
        ((ArrowBatchTypeInfo) batches.getType()).schema();
    if (!layout.arrowSchema().equals(declared)) {
      throw new IllegalArgumentException(
          "The ArrowBatch stream's schema is not the layout given to the Dynamic Iceberg Sink: "
              + SchemaMismatch.describe(layout.arrowSchema(), declared));
    }
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
