package io.frazil.bench;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * What one whole-job trial committed, read after the clock stopped: the live data and delete files
 * of the final snapshot (from its manifests), every data file's Parquet footer, and every row read
 * back through Iceberg's generic reader (deletes applied) as a checksum.
 */
final class JobCheck {
  String createdBy = null;
  final Set<String> createdByValues = new TreeSet<>();
  final Set<String> writerSubtasks = new TreeSet<>();

  /** Per partition path, the writer subtasks of its live data files. */
  final Map<String, Set<String>> writersByPartition = new TreeMap<>();

  long snapshots;
  int dataFiles;
  long dataBytes;
  long manifestRows;
  long footerRows;
  int rowGroups;
  int equalityDeleteFiles;
  long equalityDeleteRows;
  int positionDeleteFiles;
  long positionDeleteRows;
  int deletionVectors;
  long deletionVectorRows;
  long deleteBytes;
  JobRows.Checksum readBack = new JobRows.Checksum();
  final List<String> failures = new ArrayList<>();

  void fail(String format, Object... args) {
    failures.add(String.format(Locale.ROOT, format, args));
  }

  static JobCheck of(Table table, String createdByPrefix) throws IOException {
    JobCheck check = new JobCheck();
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      check.fail("no snapshot was committed");
      return check;
    }
    for (Snapshot each : table.snapshots()) {
      // JobBench creates the main branch before the job: an empty snapshot, not a sink commit.
      if (each.parentId() != null) {
        check.snapshots++;
      }
    }
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile file : reader) {
          check.dataFiles++;
          check.dataBytes += file.fileSizeInBytes();
          check.manifestRows += file.recordCount();
          String location = file.location();
          String name = location.substring(location.lastIndexOf('/') + 1);
          int dash = name.indexOf('-');
          String writer = dash > 0 ? name.substring(0, dash) : name;
          check.writerSubtasks.add(writer);
          check
              .writersByPartition
              .computeIfAbsent(
                  table.specs().get(file.specId()).partitionToPath(file.partition()),
                  k -> new TreeSet<>())
              .add(writer);
          Guards.Footer footer = Guards.footer(localFile(location));
          check.footerRows += footer.rows;
          check.rowGroups += footer.rowGroups;
          String createdBy = footer.createdBy == null ? "(none)" : footer.createdBy;
          check.createdByValues.add(createdBy);
          if (!createdBy.startsWith(createdByPrefix)) {
            check.fail(
                "data file %s: footer created_by '%s', expected '%s...'",
                name, createdBy, createdByPrefix);
          }
          if (footer.rows != file.recordCount()) {
            check.fail(
                "data file %s: footer has %d rows, manifest %d",
                name, footer.rows, file.recordCount());
          }
        }
      }
    }
    check.createdBy = String.join("; ", check.createdByValues);
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile file : reader) {
          check.deleteBytes +=
              file.format() == FileFormat.PUFFIN && file.contentSizeInBytes() != null
                  ? file.contentSizeInBytes()
                  : file.fileSizeInBytes();
          if (file.format() == FileFormat.PUFFIN) {
            check.deletionVectors++;
            check.deletionVectorRows += file.recordCount();
          } else if (file.content() == FileContent.EQUALITY_DELETES) {
            check.equalityDeleteFiles++;
            check.equalityDeleteRows += file.recordCount();
          } else {
            check.positionDeleteFiles++;
            check.positionDeleteRows += file.recordCount();
          }
        }
      }
    }
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        check.readBack.add(JobRows.hash(record));
      }
    }
    return check;
  }

  private static File localFile(String location) {
    return new File(new org.apache.hadoop.fs.Path(location).toUri().getPath());
  }
}
