package io.frazil.read;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeParquetReader;
import io.frazil.jni.NativeReaderException;
import io.frazil.read.vector.UnsupportedReadException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/**
 * Rows of one Parquet data file, decoded natively: for each row group the plan selected, the
 * projected column chunks are fetched through the file's {@code FileIO} stream and handed to native
 * code, which decodes them into Arrow batches; each batch is copied into Flink column vectors and
 * released at once, and rows are {@link ColumnarRowData} views over those vectors.
 *
 * <p>With {@code reuseContainers} the same row object is returned each time (as Iceberg's reader
 * does); without it every row is its own view. Either way a row stays readable after the next call
 * (the vectors are on the heap); only the reused object moves on.
 */
public final class NativeRowReader implements CloseableIterator<RowData> {
  /** Column-chunk bytes are copied to native memory through a buffer of this size. */
  private static final int FETCH_BUFFER = 1 << 20;

  private final InputFile file;
  private final SeekableInputStream stream;
  private final ReadPlan plan;
  private final ReadSettings settings;
  private final BufferAllocator allocator;
  private final NativeParquetReader decoder;
  private final VectorSchemaRoot root;
  private final RowConverter converter;
  private final ReadListener listener;
  private final ColumnarRowData reused;
  private final List<Field> fileFields;
  private byte[] fetchBuffer;

  private int nextRowGroup = 0;
  private BlockMetaData rowGroup = null;
  private long rowsLeftInGroup = 0;
  private long nextPosition = 0;
  private long batchPosition = 0;
  private VectorizedColumnBatch batch = null;
  private int rowsInBatch = 0;
  private int nextRow = 0;
  private boolean closed = false;

  private NativeRowReader(
      InputFile file,
      SeekableInputStream stream,
      ReadPlan plan,
      ReadSettings settings,
      BufferAllocator allocator,
      NativeParquetReader decoder,
      VectorSchemaRoot root,
      RowConverter converter,
      ReadListener listener,
      List<Field> fileFields) {
    this.file = file;
    this.stream = stream;
    this.plan = plan;
    this.settings = settings;
    this.allocator = allocator;
    this.decoder = decoder;
    this.root = root;
    this.converter = converter;
    this.listener = listener;
    this.reused = settings.reuseContainers ? new ColumnarRowData() : null;
    this.fileFields = fileFields;
  }

  /**
   * Opens {@code file} for {@code settings}; throws {@link UnsupportedReadException}, before any
   * row is read and with everything released, when the file must be read by Iceberg's reader. What
   * it reads is counted into {@code listener}.
   */
  public static NativeRowReader open(InputFile file, ReadSettings settings, ReadListener listener)
      throws UnsupportedReadException {
    SeekableInputStream stream = file.newStream();
    BufferAllocator allocator = null;
    NativeParquetReader decoder = null;
    VectorSchemaRoot root = null;
    try {
      FileTail tail = FileTail.read(file, stream);
      ReadPlan plan = ReadPlan.plan(file, tail, settings);
      List<Field> fields = Collections.emptyList();
      if (plan.leaves.length > 0) {
        allocator = ArrowMemory.newReaderAllocator(file.location());
        decoder =
            NativeParquetReader.parseFooter(tail.footer(), tail.fileLength(), settings.batchRows);
        Schema schema;
        try (ArrowSchema exported = ArrowSchema.allocateNew(allocator)) {
          decoder.exportSchema(plan.leaves, exported.memoryAddress());
          schema = Data.importSchema(allocator, exported, null);
        }
        fields = schema.getFields();
        root = VectorSchemaRoot.create(schema, allocator);
      }
      RowConverter converter =
          RowConverter.root(
              settings.projection.asStruct(), plan.projection, fields, settings.idToConstant);
      listener.fileOpened();
      return new NativeRowReader(
          file, stream, plan, settings, allocator, decoder, root, converter, listener, fields);
    } catch (UnsupportedReadException | Error e) {
      closeAll(e, root, decoder, allocator, stream);
      throw e;
    } catch (RuntimeException e) {
      RuntimeException wrapped = readFailure(file, e);
      closeAll(wrapped, root, decoder, allocator, stream);
      throw wrapped;
    } catch (IOException e) {
      // Problems closing go onto the IOException itself, the cause of what is thrown.
      closeAll(e, root, decoder, allocator, stream);
      throw readFailure(file, e);
    }
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    try {
      while (nextRow >= rowsInBatch) {
        if (!loadBatch()) {
          return false;
        }
      }
      return true;
    } catch (RuntimeException | IOException e) {
      RuntimeException wrapped = readFailure(file, e);
      closeAfterFailure(wrapped);
      throw wrapped;
    }
  }

  @Override
  public RowData next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    int row = nextRow++;
    if (reused != null) {
      reused.setRowId(row);
      return reused;
    }
    return new ColumnarRowData(batch, row);
  }

  private boolean loadBatch() throws IOException {
    int rows = decoder == null ? decodeBatch(null, null) : decodeBatch(root, allocator);
    if (rows == 0) {
      return false;
    }
    try {
      batch = converter.convert(decoder == null ? null : root, rows, batchPosition);
    } finally {
      if (decoder != null) {
        root.clear();
      }
    }
    rowsInBatch = rows;
    nextRow = 0;
    if (reused != null) {
      reused.setVectorizedColumnBatch(batch);
    }
    return true;
  }

  /**
   * How this file's decoded batches become batches of {@code target} (the table's Arrow layout of
   * the projection) without rows, or null when they cannot exactly (see {@link BatchAssembly}).
   */
  public BatchAssembly batchAssembly(org.apache.arrow.vector.types.pojo.Schema target) {
    if (decoder == null) {
      return null;
    }
    return BatchAssembly.plan(
        settings.projection, plan.projection, fileFields, settings.idToConstant, target);
  }

  /**
   * The next decoded batch as a root of {@code assembly}'s layout whose buffers are accounted in
   * {@code into} (the caller owns and closes it), or null at the end of the file. Not to be mixed
   * with {@link #next()} on one reader.
   */
  public VectorSchemaRoot nextBatch(BatchAssembly assembly, BufferAllocator into) {
    if (closed) {
      return null;
    }
    // Imported straight into {@code into}'s accounting: the decoded buffers never belong to this
    // reader's allocator, so handing them over moves no memory between allocators.
    VectorSchemaRoot decoded = VectorSchemaRoot.create(root.getSchema(), into);
    try {
      int rows = decodeBatch(decoded, into);
      if (rows == 0) {
        return null;
      }
      return assembly.assemble(decoded, rows, into);
    } catch (RuntimeException | IOException e) {
      RuntimeException wrapped = readFailure(file, e);
      closeAfterFailure(wrapped);
      throw wrapped;
    } finally {
      decoded.close();
    }
  }

  /**
   * Decodes the next batch (into {@code into}, imported in {@code importer}'s accounting, when
   * columns are read) and returns its rows, 0 at the end of the file; {@code batchPosition} is the
   * file position of its first row.
   */
  private int decodeBatch(VectorSchemaRoot into, BufferAllocator importer) throws IOException {
    while (rowsLeftInGroup == 0) {
      if (nextRowGroup >= plan.rowGroups.size()) {
        return 0;
      }
      startRowGroup(plan.rowGroups.get(nextRowGroup++));
    }
    int rows;
    if (decoder == null) {
      rows = (int) Math.min(rowsLeftInGroup, settings.batchRows);
    } else {
      try (ArrowArray exported = ArrowArray.allocateNew(allocator)) {
        rows = decoder.nextBatch(exported.memoryAddress());
        if (rows == 0) {
          throw new NativeReaderException(
              "row group "
                  + rowGroup.getOrdinal()
                  + " ended after "
                  + (rowGroup.getRowCount() - rowsLeftInGroup)
                  + " of its "
                  + rowGroup.getRowCount()
                  + " rows");
        }
        Data.importIntoVectorSchemaRoot(importer, exported, into, null);
      }
    }
    if (rows > rowsLeftInGroup) {
      if (decoder != null) {
        into.clear();
      }
      throw new NativeReaderException(
          "row group " + rowGroup.getOrdinal() + " decoded more rows than its footer states");
    }
    rowsLeftInGroup -= rows;
    batchPosition = nextPosition;
    nextPosition += rows;
    return rows;
  }

  private void startRowGroup(BlockMetaData next) throws IOException {
    rowGroup = next;
    rowsLeftInGroup = next.getRowCount();
    nextPosition = next.getRowIndexOffset();
    if (decoder == null) {
      return;
    }
    for (long[] range : ranges(next)) {
      fetch(range[0], Math.toIntExact(range[1]));
    }
    decoder.startRowGroup(next.getOrdinal(), plan.leaves);
    listener.rowGroupRead();
  }

  /**
   * The projected column chunks of {@code block}, sorted, adjacent ones merged: [offset, length].
   */
  private List<long[]> ranges(BlockMetaData block) {
    List<long[]> chunks = new ArrayList<>();
    for (ColumnChunkMetaData column : block.getColumns()) {
      if (projected(column.getPath().toArray())) {
        chunks.add(new long[] {column.getStartingPos(), column.getTotalSize()});
      }
    }
    chunks.sort((a, b) -> Long.compare(a[0], b[0]));
    List<long[]> merged = new ArrayList<>();
    for (long[] chunk : chunks) {
      long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && last[0] + last[1] == chunk[0]) {
        last[1] += chunk[1];
      } else {
        merged.add(chunk.clone());
      }
    }
    return merged;
  }

  private boolean projected(String[] path) {
    for (org.apache.parquet.column.ColumnDescriptor column : plan.projection.getColumns()) {
      if (Arrays.equals(column.getPath(), path)) {
        return true;
      }
    }
    return false;
  }

  private void fetch(long offset, int length) throws IOException {
    if (fetchBuffer == null) {
      fetchBuffer = new byte[Math.min(FETCH_BUFFER, Math.max(length, 1))];
    } else if (fetchBuffer.length < Math.min(FETCH_BUFFER, length)) {
      fetchBuffer = new byte[Math.min(FETCH_BUFFER, length)];
    }
    decoder.beginRange(offset, length);
    stream.seek(offset);
    int left = length;
    while (left > 0) {
      int n = stream.read(fetchBuffer, 0, Math.min(left, fetchBuffer.length));
      if (n < 0) {
        throw new IOException(
            "Truncated Parquet file: "
                + left
                + " bytes of the column chunks at "
                + offset
                + " are past its end");
      }
      decoder.appendRange(fetchBuffer, n);
      left -= n;
    }
    listener.bytesFetched(length);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    batch = null;
    RuntimeException problem = closeAll(null, root, decoder, allocator, stream);
    if (problem != null) {
      throw problem;
    }
  }

  private void closeAfterFailure(Throwable failure) {
    if (!closed) {
      closed = true;
      closeAll(failure, root, decoder, allocator, stream);
    }
  }

  /**
   * Closes each resource in order; problems go onto {@code failure} as suppressed, or, without a
   * failure, the first is returned.
   */
  private static RuntimeException closeAll(Throwable failure, AutoCloseable... resources) {
    RuntimeException first = null;
    for (AutoCloseable resource : resources) {
      if (resource == null) {
        continue;
      }
      try {
        resource.close();
      } catch (Exception e) {
        if (failure != null) {
          failure.addSuppressed(e);
        } else if (first == null) {
          first =
              e instanceof RuntimeException
                  ? (RuntimeException) e
                  : new RuntimeIOException(new IOException(e), "Failed to close a Parquet read");
        }
      }
    }
    return first;
  }

  /**
   * What the caller sees when reading {@code file} failed with {@code e} (a RuntimeException or an
   * IOException): an IOException in a {@link RuntimeIOException} naming the file, anything else as
   * {@link #wrap} leaves or wraps it.
   */
  private static RuntimeException readFailure(InputFile file, Exception e) {
    if (e instanceof IOException) {
      return new RuntimeIOException(
          (IOException) e, "Failed to read Parquet file %s", file.location());
    }
    return wrap(file, (RuntimeException) e);
  }

  private static RuntimeException wrap(InputFile file, RuntimeException e) {
    if (e instanceof ValidationException) {
      // Raised by Iceberg's own classes planning the read (a filter naming no column, say),
      // exactly as Iceberg's reader raises it: callers and Iceberg's tests expect that type.
      return e;
    }
    if (e instanceof NativeReaderException
        && e.getMessage() != null
        && e.getMessage().contains(file.location())) {
      return e;
    }
    if (e instanceof IllegalArgumentException
        && e.getMessage() != null
        && e.getMessage().startsWith("Missing required field")) {
      return e;
    }
    return new NativeReaderException(
        "Cannot read Parquet file " + file.location() + ": " + e.getMessage(), e);
  }
}
