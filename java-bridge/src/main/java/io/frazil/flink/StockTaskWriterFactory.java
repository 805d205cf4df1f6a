package io.frazil.flink;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.SerializableSupplier;

/**
 * A read-only view of the settings inside Iceberg's {@link RowDataTaskWriterFactory}.
 *
 * <p>Iceberg keeps them private and offers no accessors; Frazil's task writers must use exactly the
 * same file writer factory, output file factory, spec and equality fields as the stock writers they
 * stand in for, so they are read by reflection. If a field is missing (another Iceberg version),
 * {@link #open} throws and the caller keeps Iceberg's own writer.
 */
final class StockTaskWriterFactory {
  private final RowDataTaskWriterFactory factory;

  private StockTaskWriterFactory(RowDataTaskWriterFactory factory) {
    this.factory = factory;
  }

  static StockTaskWriterFactory open(RowDataTaskWriterFactory factory)
      throws ReflectiveOperationException {
    StockTaskWriterFactory view = new StockTaskWriterFactory(factory);
    // Touch every field now so a shape mismatch surfaces before any writer is built.
    view.spec();
    view.schema();
    view.flinkSchema();
    view.format();
    view.targetFileSizeBytes();
    view.equalityFieldIds();
    view.upsert();
    view.fileWriterFactory();
    view.table();
    return view;
  }

  PartitionSpec spec() throws ReflectiveOperationException {
    return (PartitionSpec) read("spec");
  }

  Schema schema() throws ReflectiveOperationException {
    return (Schema) read("schema");
  }

  RowType flinkSchema() throws ReflectiveOperationException {
    return (RowType) read("flinkSchema");
  }

  FileFormat format() throws ReflectiveOperationException {
    return (FileFormat) read("format");
  }

  long targetFileSizeBytes() throws ReflectiveOperationException {
    return (Long) read("targetFileSizeBytes");
  }

  @SuppressWarnings("unchecked")
  Set<Integer> equalityFieldIds() throws ReflectiveOperationException {
    return (Set<Integer>) read("equalityFieldIds");
  }

  boolean upsert() throws ReflectiveOperationException {
    return (Boolean) read("upsert");
  }

  /** Set by {@code initialize()}: format version > 2. */
  boolean useDv() throws ReflectiveOperationException {
    return (Boolean) read("useDv");
  }

  @SuppressWarnings("unchecked")
  FileWriterFactory<RowData> fileWriterFactory() throws ReflectiveOperationException {
    return (FileWriterFactory<RowData>) read("fileWriterFactory");
  }

  /** Set by {@code initialize()}. */
  OutputFileFactory outputFileFactory() throws ReflectiveOperationException {
    return (OutputFileFactory) read("outputFileFactory");
  }

  Table table() throws ReflectiveOperationException {
    return tableSupplier().get();
  }

  @SuppressWarnings("unchecked")
  SerializableSupplier<Table> tableSupplier() throws ReflectiveOperationException {
    return (SerializableSupplier<Table>) read("tableSupplier");
  }

  /** What stock {@code create()} does first: refresh a caching table supplier. */
  void refreshTable() throws ReflectiveOperationException {
    Method method = RowDataTaskWriterFactory.class.getDeclaredMethod("refreshTable");
    method.setAccessible(true);
    method.invoke(factory);
  }

  private Object read(String name) throws ReflectiveOperationException {
    Field field = RowDataTaskWriterFactory.class.getDeclaredField(name);
    field.setAccessible(true);
    return field.get(factory);
  }
}
