package io.frazil.flink;

import io.frazil.flink.metrics.ReadMetrics;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.read.NativeRowReader;
import io.frazil.read.ReadCounters;
import io.frazil.read.ReadListener;
import io.frazil.read.ReadSettings;
import io.frazil.read.vector.UnsupportedReadException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;

/**
 * Records a data-file read's settings while forwarding each of them to Iceberg's own builder, then
 * reads the file natively when Frazil reproduces the read exactly, and with Iceberg's reader
 * otherwise: per file, with the reason logged once (INFO) and counted ({@link ReadCounters}).
 */
final class FrazilReadBuilder implements ReadBuilder<RowData, RowType> {
  /** JVM system property (and Flink configuration key) that turns native reading off. */
  static final String READ_SWITCH = "frazil.read.enabled";

  private static final int BATCH_ROWS = 4096;

  private final InputFile file;
  private final ReadBuilder<RowData, RowType> delegate;
  private final Map<String, String> properties = Maps.newHashMap();
  private Schema projection = null;
  private Map<Integer, ?> idToConstant = ImmutableMap.of();
  private Long start = null;
  private Long length = null;
  private Expression filter = null;
  private boolean caseSensitive = true;
  private NameMapping nameMapping = null;
  private boolean reuseContainers = false;
  private boolean engineProjection = false;

  FrazilReadBuilder(InputFile file, ReadBuilder<RowData, RowType> delegate) {
    this.file = file;
    this.delegate = delegate;
  }

  /** Iceberg's own builder this one forwards every setting to (tests read stock through it). */
  ReadBuilder<RowData, RowType> delegate() {
    return delegate;
  }

  @Override
  public ReadBuilder<RowData, RowType> split(long newStart, long newLength) {
    this.start = newStart;
    this.length = newLength;
    delegate.split(newStart, newLength);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> project(Schema schema) {
    this.projection = schema;
    delegate.project(schema);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> engineProjection(RowType schema) {
    this.engineProjection = true;
    delegate.engineProjection(schema);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> caseSensitive(boolean newCaseSensitive) {
    this.caseSensitive = newCaseSensitive;
    delegate.caseSensitive(newCaseSensitive);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> filter(Expression newFilter) {
    this.filter = newFilter;
    delegate.filter(newFilter);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> set(String key, String value) {
    properties.put(key, value);
    delegate.set(key, value);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> reuseContainers() {
    this.reuseContainers = true;
    delegate.reuseContainers();
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> recordsPerBatch(int rowsPerBatch) {
    delegate.recordsPerBatch(rowsPerBatch);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> idToConstant(Map<Integer, ?> newIdToConstant) {
    this.idToConstant = newIdToConstant;
    delegate.idToConstant(newIdToConstant);
    return this;
  }

  @Override
  public ReadBuilder<RowData, RowType> withNameMapping(NameMapping newNameMapping) {
    this.nameMapping = newNameMapping;
    delegate.withNameMapping(newNameMapping);
    return this;
  }

  @Override
  public CloseableIterable<RowData> build() {
    // The counters of the task this read runs for (a task or split fetcher thread), which also
    // registers the TaskManager's gauges.
    ReadListener listener = ReadMetrics.forCurrentThread();
    String reason = stockReason();
    if (reason != null) {
      return stock(listener, reason, reason + ": " + stockDetail(reason));
    }
    ReadSettings settings =
        new ReadSettings(
            projection,
            idToConstant,
            start,
            length,
            filter,
            caseSensitive,
            nameMapping,
            reuseContainers,
            properties,
            BATCH_ROWS);
    return new NativeIterable(settings, listener);
  }

  private CloseableIterable<RowData> stock(ReadListener listener, String reason, String message) {
    listener.stockFile(reason);
    LogOnce.info(
        "read-" + reason,
        "Frazil read fallback: Iceberg's reader reads such files (" + message + ")");
    return delegate.build();
  }

  /** Reasons known before the file is opened; null when the file may be read natively. */
  private String stockReason() {
    if (!FrazilFlink.processEnabled() || !readEnabled()) {
      return "disabled";
    }
    if (projection == null) {
      return "noProjection";
    }
    if (engineProjection) {
      return "engineProjection";
    }
    if (hasUnsupportedType(projection)) {
      return "unsupportedType";
    }
    if (!FrazilFlink.nativeAvailable()) {
      return "nativeUnavailable";
    }
    if (ArrowMemory.accessProblem() != null) {
      return "arrowAccess";
    }
    return null;
  }

  private String stockDetail(String reason) {
    switch (reason) {
      case "disabled":
        return "native reading is switched off (" + READ_SWITCH + " or frazil.enabled is false)";
      case "engineProjection":
        return "an engine projection was requested";
      case "unsupportedType":
        return "the projection has a variant, geometry, geography or unknown column";
      case "arrowAccess":
        return ArrowMemory.accessAdvice();
      default:
        return reason;
    }
  }

  private static volatile boolean processReadEnabled = true;

  /** Sets the process-wide read switch (from the Flink configuration key). */
  static void setProcessReadEnabled(boolean enabled) {
    processReadEnabled = enabled;
  }

  static boolean readEnabled() {
    String value = System.getProperty(READ_SWITCH);
    return processReadEnabled
        && (value == null || !"false".equals(value.trim().toLowerCase(Locale.ROOT)));
  }

  private static boolean hasUnsupportedType(Schema schema) {
    return TypeUtil.find(
            schema,
            type ->
                type.typeId() == Type.TypeID.VARIANT
                    || type.typeId() == Type.TypeID.GEOMETRY
                    || type.typeId() == Type.TypeID.GEOGRAPHY
                    || type.typeId() == Type.TypeID.UNKNOWN)
        != null;
  }

  /** Opens the file natively at {@code iterator()}, or Iceberg's reader for what it cannot read. */
  private final class NativeIterable implements CloseableIterable<RowData> {
    private final ReadSettings settings;
    private final ReadListener listener;
    private final List<CloseableIterator<RowData>> opened = new ArrayList<>();
    private CloseableIterable<RowData> stock = null;

    NativeIterable(ReadSettings settings, ReadListener listener) {
      this.settings = settings;
      this.listener = listener;
    }

    @Override
    public CloseableIterator<RowData> iterator() {
      CloseableIterator<RowData> rows;
      try {
        rows = NativeRowReader.open(file, settings, listener);
      } catch (UnsupportedReadException e) {
        if (stock == null) {
          stock = stock(listener, e.reason(), e.getMessage());
        }
        rows = stock.iterator();
      } catch (LinkageError e) {
        // A class the read path links against is missing or different (a packaging problem:
        // the runtime jar's parquet-java relocation, say). Nothing was left open; Iceberg's
        // reader still reads the file, and the warning names the class.
        if (stock == null) {
          listener.stockFile("linkage");
          LogOnce.warn(
              "read-linkage",
              "Frazil read fallback: the native read path cannot link ("
                  + e
                  + "); Iceberg's reader reads data files",
              e);
          stock = delegate.build();
        }
        rows = stock.iterator();
      }
      opened.add(rows);
      return rows;
    }

    @Override
    public void close() throws IOException {
      IOException problem = null;
      for (CloseableIterator<RowData> rows : opened) {
        try {
          rows.close();
        } catch (IOException e) {
          problem = problem == null ? e : problem;
        }
      }
      opened.clear();
      if (stock != null) {
        stock.close();
      }
      if (problem != null) {
        throw problem;
      }
    }
  }
}
