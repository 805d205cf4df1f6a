package io.frazil.flink.routing;

import io.frazil.reflect.HiddenField;
import io.frazil.reflect.PrivateMembers;
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
 * A read-only view of the private fields (settings) inside Iceberg's {@link
 * RowDataTaskWriterFactory}.
 *
 * <p>Iceberg keeps them private and offers no accessors; Frazil's task writers must use exactly the
 * same file writer factory, output file factory, spec and equality fields as the stock writers they
 * stand in for, so they are read by reflection. If a field is missing (another Iceberg version),
 * {@link #open} throws and the caller keeps Iceberg's own writer.
 */
final class TaskWriterFactoryFields {
  private final RowDataTaskWriterFactory factory;

  private TaskWriterFactoryFields(RowDataTaskWriterFactory factory) {
    this.factory = factory;
  }

  static TaskWriterFactoryFields open(RowDataTaskWriterFactory factory)
      throws ReflectiveOperationException {
    TaskWriterFactoryFields view = new TaskWriterFactoryFields(factory);
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
    return (PartitionSpec) read(PrivateMembers.TASK_WRITERS_SPEC);
  }

  Schema schema() throws ReflectiveOperationException {
    return (Schema) read(PrivateMembers.TASK_WRITERS_SCHEMA);
  }

  RowType flinkSchema() throws ReflectiveOperationException {
    return (RowType) read(PrivateMembers.TASK_WRITERS_FLINK_SCHEMA);
  }

  FileFormat format() throws ReflectiveOperationException {
    return (FileFormat) read(PrivateMembers.TASK_WRITERS_FORMAT);
  }

  long targetFileSizeBytes() throws ReflectiveOperationException {
    return (Long) read(PrivateMembers.TASK_WRITERS_TARGET_FILE_SIZE);
  }

  @SuppressWarnings("unchecked")
  Set<Integer> equalityFieldIds() throws ReflectiveOperationException {
    return (Set<Integer>) read(PrivateMembers.TASK_WRITERS_EQUALITY_FIELD_IDS);
  }

  boolean upsert() throws ReflectiveOperationException {
    return (Boolean) read(PrivateMembers.TASK_WRITERS_UPSERT);
  }

  /** Set by {@code initialize()}: format version > 2. */
  boolean useDv() throws ReflectiveOperationException {
    return (Boolean) read(PrivateMembers.TASK_WRITERS_USE_DV);
  }

  @SuppressWarnings("unchecked")
  FileWriterFactory<RowData> fileWriterFactory() throws ReflectiveOperationException {
    return (FileWriterFactory<RowData>) read(PrivateMembers.TASK_WRITERS_FILE_WRITER_FACTORY);
  }

  /** Set by {@code initialize()}. */
  OutputFileFactory outputFileFactory() throws ReflectiveOperationException {
    return (OutputFileFactory) read(PrivateMembers.TASK_WRITERS_OUTPUT_FILE_FACTORY);
  }

  Table table() throws ReflectiveOperationException {
    return tableSupplier().get();
  }

  @SuppressWarnings("unchecked")
  SerializableSupplier<Table> tableSupplier() throws ReflectiveOperationException {
    return (SerializableSupplier<Table>) read(PrivateMembers.TASK_WRITERS_TABLE_SUPPLIER);
  }

  /** What stock {@code create()} does first: refresh a caching table supplier. */
  void refreshTable() throws ReflectiveOperationException {
    PrivateMembers.TASK_WRITERS_REFRESH_TABLE.invoke(factory);
  }

  private Object read(HiddenField field) throws ReflectiveOperationException {
    return field.get(factory);
  }
}
