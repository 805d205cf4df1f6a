package io.frazil.bench;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.iceberg.FrazilParquet;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.data.FlinkParquetWriters;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;

/** The two sides of every comparison: what is timed is exactly {@link Arm#write(File)}. */
final class Arms {
  private Arms() {}

  /** What one timed write produced (read after the clock stopped). */
  static final class Written {
    final Metrics metrics;
    final long length;

    Written(Metrics metrics, long length) {
      this.metrics = metrics;
      this.length = length;
    }
  }

  interface Arm {
    /** "stock" or "frazil". */
    String name();

    /** The footer {@code created_by} prefix this arm's files must carry. */
    String createdByPrefix();

    /** Off the clock, before each {@link #write}: whatever the write consumes. */
    default void prepare() {}

    /** Builds an appender, adds every row/batch, closes it: one complete Iceberg data file. */
    Written write(File file) throws IOException;
  }

  /** Adds every row (or batch) to the appender and closes it: one complete Iceberg data file. */
  private static <T> Written writeAll(FileAppender<T> appender, List<T> items) throws IOException {
    try (FileAppender<T> closing = appender) {
      for (T item : items) {
        closing.add(item);
      }
    }
    return new Written(appender.metrics(), appender.length());
  }

  /** Iceberg's own writer: {@code Parquet.write} + {@code FlinkParquetWriters}. */
  static Arm stock(
      Schema schema,
      RowType rowType,
      List<RowData> rows,
      Map<String, String> props,
      MetricsConfig config) {
    return new Arm() {
      @Override
      public String name() {
        return "stock";
      }

      @Override
      public String createdByPrefix() {
        return "parquet-mr";
      }

      @Override
      public Written write(File file) throws IOException {
        FileAppender<RowData> appender =
            Parquet.write(Files.localOutput(file))
                .schema(schema)
                .createWriterFunc(msgType -> FlinkParquetWriters.buildWriter(rowType, msgType))
                .setAll(props)
                .metricsConfig(config)
                .overwrite()
                .build();
        return writeAll(appender, rows);
      }
    };
  }

  /** Frazil's RowData appender (rows copied into 8,192-row Arrow batches, encoded in Rust). */
  static Arm frazilRowData(
      Schema schema,
      RowType rowType,
      List<RowData> rows,
      Map<String, String> props,
      MetricsConfig config) {
    return new Arm() {
      @Override
      public String name() {
        return "frazil";
      }

      @Override
      public String createdByPrefix() {
        return "frazil version";
      }

      @Override
      public Written write(File file) throws IOException {
        FileAppender<RowData> appender =
            FrazilParquet.write(Files.localOutput(file))
                .schema(schema)
                .flinkType(rowType)
                .setAll(props)
                .metricsConfig(config)
                .overwrite()
                .buildRowData();
        return writeAll(appender, rows);
      }
    };
  }

  /** Frazil's Arrow appender, fed batches that were built before timing. */
  /** Frazil's Arrow appender for {@code file}, borrowing or taking each batch it is fed. */
  private static FileAppender<VectorSchemaRoot> frazilArrowAppender(
      File file,
      Schema schema,
      Map<String, String> props,
      MetricsConfig config,
      boolean takeOwnership) {
    FrazilParquet.WriteBuilder builder =
        FrazilParquet.write(Files.localOutput(file))
            .schema(schema)
            .setAll(props)
            .metricsConfig(config)
            .overwrite();
    return takeOwnership ? builder.buildArrowTakingOwnership() : builder.buildArrow();
  }

  static Arm frazilArrow(
      Schema schema,
      List<VectorSchemaRoot> batches,
      Map<String, String> props,
      MetricsConfig config) {
    return new Arm() {
      @Override
      public String name() {
        return "frazil";
      }

      @Override
      public String createdByPrefix() {
        return "frazil version";
      }

      @Override
      public Written write(File file) throws IOException {
        return writeAll(frazilArrowAppender(file, schema, props, config, false), batches);
      }
    };
  }

  /**
   * Frazil's Arrow appender taking ownership of each batch ({@code buildArrowTakingOwnership}): it
   * empties the batches it is fed, so each write gets a fresh copy of {@code batches} in new
   * buffers of {@code allocator}, made in {@link Arm#prepare()} (off the clock; the first copy is
   * compared with its original value by value). Freeing them once encoded is the appender's work,
   * on the clock.
   */
  static Arm frazilArrowOwned(
      Schema schema,
      List<VectorSchemaRoot> batches,
      BufferAllocator allocator,
      Map<String, String> props,
      MetricsConfig config) {
    return new Arm() {
      private List<VectorSchemaRoot> copies = List.of();
      private boolean copyChecked = false;

      @Override
      public String name() {
        return "frazil-owned";
      }

      @Override
      public String createdByPrefix() {
        return "frazil version";
      }

      @Override
      public void prepare() {
        closeCopies();
        List<VectorSchemaRoot> made = new ArrayList<>(batches.size());
        this.copies = made;
        try {
          for (VectorSchemaRoot batch : batches) {
            VectorSchemaRoot copy = VectorSchemaRoot.create(batch.getSchema(), allocator);
            made.add(copy);
            copy.allocateNew(); // VectorAppender reads the target's first offset
            VectorSchemaRootAppender.append(false, copy, batch);
            if (!copyChecked) {
              Guards.check(copy.equals(batch), "a copy of an Arrow batch differs from it");
            }
          }
        } catch (RuntimeException e) {
          closeCopies();
          throw e;
        }
        this.copyChecked = true;
      }

      @Override
      public Written write(File file) throws IOException {
        FileAppender<VectorSchemaRoot> appender =
            frazilArrowAppender(file, schema, props, config, true);
        try {
          return writeAll(appender, copies);
        } finally {
          // Emptied by the appender: closing them frees nothing.
          closeCopies();
        }
      }

      private void closeCopies() {
        for (VectorSchemaRoot copy : copies) {
          copy.close();
        }
        this.copies = List.of();
      }
    };
  }

  /**
   * The rows of one schema as Arrow batches of {@code batchRows} rows, built once before timing and
   * kept in (off-heap) memory. A row count that is not a multiple of the batch size gets its own
   * tail batch, so every cell is fed exactly its rows.
   */
  static final class ArrowBatches implements AutoCloseable {
    private final Schema schema;
    private final RowType rowType;
    private final List<RowData> rows;
    private final BufferAllocator allocator;
    private final int batchRows;
    private final List<RowDataArrowWriter> full = new ArrayList<>();
    private final List<RowDataArrowWriter> tails = new ArrayList<>();

    ArrowBatches(
        Schema schema,
        RowType rowType,
        List<RowData> rows,
        int maxRows,
        int batchRows,
        BufferAllocator allocator) {
      this.schema = schema;
      this.rowType = rowType;
      this.rows = rows;
      this.allocator = allocator;
      this.batchRows = batchRows;
      for (int start = 0; start + batchRows <= maxRows; start += batchRows) {
        full.add(build(start, start + batchRows));
      }
    }

    /** The batches holding exactly the first {@code rowCount} rows. */
    List<VectorSchemaRoot> first(int rowCount) {
      List<VectorSchemaRoot> batches = new ArrayList<>();
      int fullCount = rowCount / batchRows;
      for (int b = 0; b < fullCount; b++) {
        batches.add(full.get(b).root());
      }
      if (rowCount % batchRows != 0) {
        RowDataArrowWriter tail = build(fullCount * batchRows, rowCount);
        tails.add(tail);
        batches.add(tail.root());
      }
      return batches;
    }

    BufferAllocator allocator() {
      return allocator;
    }

    long allocatedBytes() {
      return allocator.getAllocatedMemory();
    }

    private RowDataArrowWriter build(int from, int to) {
      RowDataArrowWriter writer = new RowDataArrowWriter(schema, rowType, allocator);
      try {
        for (int r = from; r < to; r++) {
          writer.write(rows.get(r));
        }
        writer.finishBatch();
        return writer;
      } catch (RuntimeException e) {
        writer.close();
        throw e;
      }
    }

    @Override
    public void close() {
      for (RowDataArrowWriter writer : full) {
        writer.close();
      }
      for (RowDataArrowWriter writer : tails) {
        writer.close();
      }
      full.clear();
      tails.clear();
    }
  }
}
