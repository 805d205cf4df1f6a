package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.IcebergSource;

/**
 * Reads an Iceberg table as a stream of {@link ArrowBatch}es, laid out as {@link
 * ArrowRowLayout#appendOnly} of the (projected) table schema, so that they go straight into {@link
 * FrazilArrowSink} for a table of that schema:
 *
 * <pre>{@code
 * DataStream<ArrowBatch> batches = FrazilArrowSource.forTable(loader).stream(env, "orders");
 * }</pre>
 *
 * <p>It is Iceberg's own FLIP-27 {@link IcebergSource} (split planning, assignment, streaming
 * discovery, checkpointed split positions) with {@link ArrowBatchReaderFunction} as its reader
 * function; see there where the rows come from and how positions count them.
 *
 * <p>Ownership: a batch belongs to the source until its {@code collect} returns. When the stream is
 * built with {@link Builder#stream} on an environment whose object reuse is off, the source closes
 * each batch after emitting it (a chained successor received a copy, a network edge serialized it);
 * with object reuse on, the successor receives that very instance and owns it. A source from {@link
 * Builder#build()} never closes what it emitted: whatever Flink drops then is released by the
 * {@link ArrowBatch} cleaner.
 */
public final class FrazilArrowSource {
  private FrazilArrowSource() {}

  /** File scan tasks whose native decoded batches were handed over as they are (process total). */
  public static long decodedTasks() {
    return SplitBatches.DECODED_TASKS.get();
  }

  /** File scan tasks read as rows and then written into batches (process total). */
  public static long rowTasks() {
    return SplitBatches.ROW_TASKS.get();
  }

  /** A source of {@code loader}'s table: every column, bounded, batches of 8,192 rows. */
  public static Builder forTable(TableLoader loader) {
    return new Builder(loader);
  }

  /** Settings of a source; those not here are Iceberg's, through {@link #set}. */
  public static final class Builder {
    private final TableLoader loader;
    private Schema projection;
    private final List<Expression> filters = new ArrayList<>();
    private boolean streaming = false;
    private Duration monitorInterval;
    private boolean caseSensitive = false;
    private int batchRows = ArrowStreams.DEFAULT_BATCH_ROWS;
    private final List<String[]> options = new ArrayList<>();

    private Builder(TableLoader loader) {
      this.loader = loader;
    }

    /** Reads only these columns (a projection of the table's schema, field ids kept). */
    public Builder project(Schema columns) {
      this.projection = columns;
      return this;
    }

    /** Iceberg filters: planning prunes files by them, and rows not matching are dropped. */
    public Builder filters(List<Expression> expressions) {
      this.filters.addAll(expressions);
      return this;
    }

    /** Keeps reading the snapshots appended after the first one (Iceberg's streaming mode). */
    public Builder streaming(boolean isStreaming) {
      this.streaming = isStreaming;
      return this;
    }

    public Builder monitorInterval(Duration interval) {
      this.monitorInterval = interval;
      return this;
    }

    public Builder caseSensitive(boolean isCaseSensitive) {
      this.caseSensitive = isCaseSensitive;
      return this;
    }

    /**
     * The most rows in a batch built from rows (tasks not handed over as decoded batches, whose
     * size is the native reader's, 4,096 rows); a batch never spans two files.
     */
    public Builder batchRows(int rows) {
      this.batchRows = rows;
      return this;
    }

    /** One of Iceberg's read options ({@code FlinkReadOptions}), e.g. a starting strategy. */
    public Builder set(String key, String value) {
      options.add(new String[] {key, value});
      return this;
    }

    /** The source; it never closes a batch it emitted (see the class comment). */
    public IcebergSource<ArrowBatch> build() {
      return build(false);
    }

    /** The batches of the table on {@code env}, typed {@code layout().typeInfo()}. */
    public DataStreamSource<ArrowBatch> stream(StreamExecutionEnvironment env, String name) {
      Table table = load();
      boolean closeEmitted = !env.getConfig().isObjectReuseEnabled();
      return env.fromSource(
          build(table, closeEmitted),
          WatermarkStrategy.noWatermarks(),
          name,
          layout(table).typeInfo());
    }

    /** The layout of the batches this source emits. */
    public ArrowRowLayout layout() {
      return layout(load());
    }

    IcebergSource<ArrowBatch> build(boolean closeEmitted) {
      return build(load(), closeEmitted);
    }

    private IcebergSource<ArrowBatch> build(Table table, boolean closeEmitted) {
      ArrowRowLayout layout = layout(table);
      ArrowBatchReaderFunction reader =
          new ArrowBatchReaderFunction(
              table.schema(),
              layout,
              table.properties().get(TableProperties.DEFAULT_NAME_MAPPING),
              caseSensitive,
              table.io(),
              table.encryption(),
              filters,
              batchRows,
              closeEmitted);
      IcebergSource.Builder<ArrowBatch> source =
          IcebergSource.<ArrowBatch>builder()
              .tableLoader(loader)
              .table(table)
              .readerFunction(reader)
              .caseSensitive(caseSensitive)
              .streaming(streaming)
              .filters(filters)
              .project(layout.tableSchema());
      if (monitorInterval != null) {
        source.monitorInterval(monitorInterval);
      }
      for (String[] option : options) {
        source.set(option[0], option[1]);
      }
      return source.build();
    }

    private ArrowRowLayout layout(Table table) {
      return ArrowRowLayout.appendOnly(projection != null ? projection : table.schema());
    }

    /** The table, loaded through a clone so that {@code loader} stays unopened for the source. */
    private Table load() {
      try (TableLoader copy = loader.clone()) {
        copy.open();
        return copy.loadTable();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot load the table of " + loader, e);
      }
    }
  }
}
