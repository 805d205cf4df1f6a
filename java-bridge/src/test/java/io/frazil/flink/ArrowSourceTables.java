package io.frazil.flink;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;

/**
 * Source tables of the Arrow source tests, written by Iceberg's own generic Parquet writer (not
 * Frazil's): the rows of {@link ArrowJobRows} whose day is one of three, partitioned by identity on
 * that day (so the day is a partition constant when read), two files per partition (ids split by
 * {@code id / 400 % 2}).
 */
final class ArrowSourceTables {
  static final PartitionSpec BY_DAY =
      PartitionSpec.builderFor(ArrowJobRows.SCHEMA).identity("day").build();

  private ArrowSourceTables() {}

  /** The ids written: those whose day is one of the first three (and whose day is null). */
  static List<Long> ids(int count) {
    List<Long> ids = new ArrayList<>();
    for (long id = 0; ids.size() < count; id++) {
      if (id % 400 < 3) {
        ids.add(id);
      }
    }
    return ids;
  }

  static Table create(File warehouse, String name, Schema schema, PartitionSpec spec) {
    return FlinkJobs.catalog(warehouse)
        .createTable(TableIdentifier.of(FlinkJobs.DATABASE, name), schema, spec);
  }

  /** Writes rows {@code ids} into {@code table}, two files per partition; returns the files. */
  static List<DataFile> write(Table table, List<Long> ids) throws IOException {
    Schema schema = table.schema();
    PartitionKey key = new PartitionKey(table.spec(), schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    Map<String, List<Record>> groups = new LinkedHashMap<>();
    Map<String, PartitionKey> keys = new LinkedHashMap<>();
    for (long id : ids) {
      Record record = record(schema, id);
      key.partition(wrapper.wrap(record));
      String group = key.toPath() + "/" + (id / 400 % 2);
      groups.computeIfAbsent(group, g -> new ArrayList<>()).add(record);
      keys.putIfAbsent(group, key.copy());
    }
    GenericAppenderFactory factory = new GenericAppenderFactory(schema, table.spec());
    List<DataFile> files = new ArrayList<>();
    AppendFiles append = table.newAppend();
    for (Map.Entry<String, List<Record>> group : groups.entrySet()) {
      StructLike partition = table.spec().isPartitioned() ? keys.get(group.getKey()) : null;
      String path = table.spec().isPartitioned() ? keys.get(group.getKey()).toPath() + "/" : "";
      EncryptedOutputFile out =
          table
              .encryption()
              .encrypt(
                  table
                      .io()
                      .newOutputFile(
                          table.location() + "/data/" + path + UUID.randomUUID() + ".parquet"));
      DataWriter<Record> writer = factory.newDataWriter(out, FileFormat.PARQUET, partition);
      try (DataWriter<Record> closing = writer) {
        for (Record record : group.getValue()) {
          closing.write(record);
        }
      }
      files.add(writer.toDataFile());
      append.appendFile(writer.toDataFile());
    }
    append.commit();
    return files;
  }

  /** Writes each list of {@code files} as one data file of unpartitioned {@code table}. */
  static void writeFiles(Table table, List<List<Record>> files) throws IOException {
    GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
    AppendFiles append = table.newAppend();
    for (List<Record> records : files) {
      EncryptedOutputFile out =
          table
              .encryption()
              .encrypt(
                  table
                      .io()
                      .newOutputFile(table.location() + "/data/" + UUID.randomUUID() + ".parquet"));
      DataWriter<Record> writer = factory.newDataWriter(out, FileFormat.PARQUET, null);
      try (DataWriter<Record> closing = writer) {
        for (Record record : records) {
          closing.write(record);
        }
      }
      append.appendFile(writer.toDataFile());
    }
    append.commit();
  }

  /** Deletes the first {@code count} rows of {@code file} with a position delete file. */
  static void deleteFirstRows(Table table, DataFile file, int count) throws IOException {
    GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
    EncryptedOutputFile out =
        table
            .encryption()
            .encrypt(
                table
                    .io()
                    .newOutputFile(
                        table.location() + "/data/" + UUID.randomUUID() + "-deletes.parquet"));
    PositionDeleteWriter<Record> writer =
        factory.newPosDeleteWriter(out, FileFormat.PARQUET, file.partition());
    PositionDelete<Record> delete = PositionDelete.create();
    try (PositionDeleteWriter<Record> closing = writer) {
      for (long position = 0; position < count; position++) {
        closing.write(delete.set(file.location(), position));
      }
    }
    table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
  }

  static Record record(Schema schema, long id) {
    Object[] values = ArrowJobRows.values(id);
    GenericRecord record = GenericRecord.create(schema);
    for (int i = 0; i < values.length; i++) {
      record.set(i, values[i]);
    }
    return record;
  }
}
