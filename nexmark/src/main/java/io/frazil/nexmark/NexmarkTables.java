package io.frazil.nexmark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * What a Nexmark job committed, read back with Iceberg's own generic reader (deletes applied, so an
 * upsert table reads as its final rows), and the writer of each live data file from its Parquet
 * footer. Two arms' tables are equal when their rows are equal as multisets.
 */
public final class NexmarkTables {
  private NexmarkTables() {}

  /** The committed state of one table. */
  public static final class Committed {
    /** One 64-bit hash per committed row, sorted: the row multiset. */
    public final long[] rowHashes;

    /** Live data files and their footers' {@code created_by} values. */
    public final int dataFiles;

    public final long dataBytes;
    public final TreeSet<String> createdBy;

    Committed(long[] rowHashes, int dataFiles, long dataBytes, TreeSet<String> createdBy) {
      this.rowHashes = rowHashes;
      this.dataFiles = dataFiles;
      this.dataBytes = dataBytes;
      this.createdBy = createdBy;
    }

    public long rows() {
      return rowHashes.length;
    }

    /** True when every data file's footer says it was written by {@code prefix...}. */
    public boolean allWrittenBy(String prefix) {
      return dataFiles > 0 && createdBy.stream().allMatch(c -> c.startsWith(prefix));
    }
  }

  public static Committed read(Table table) throws IOException {
    table.refresh();
    List<Long> hashes = new ArrayList<>();
    int columns = table.schema().columns().size();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        hashes.add(hash(record, columns));
      }
    }
    long[] sorted = new long[hashes.size()];
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = hashes.get(i);
    }
    Arrays.sort(sorted);

    int files = 0;
    long bytes = 0;
    TreeSet<String> createdBy = new TreeSet<>();
    Configuration conf = new Configuration();
    if (table.currentSnapshot() != null) {
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          DataFile file = task.file();
          files++;
          bytes += file.fileSizeInBytes();
          createdBy.add(createdBy(file.location(), conf));
        }
      }
    }
    return new Committed(sorted, files, bytes, createdBy);
  }

  /** Null when both tables hold the same rows; else what differs, one line. */
  public static String difference(Committed expected, Committed actual) {
    if (Arrays.equals(expected.rowHashes, actual.rowHashes)) {
      return null;
    }
    long onlyExpected = 0;
    long onlyActual = 0;
    int i = 0;
    int j = 0;
    long[] a = expected.rowHashes;
    long[] b = actual.rowHashes;
    while (i < a.length || j < b.length) {
      if (j == b.length || (i < a.length && a[i] < b[j])) {
        onlyExpected++;
        i++;
      } else if (i == a.length || b[j] < a[i]) {
        onlyActual++;
        j++;
      } else {
        i++;
        j++;
      }
    }
    return String.format(
        Locale.ROOT,
        "%,d vs %,d rows; %,d rows only in the first table, %,d only in the second",
        a.length,
        b.length,
        onlyExpected,
        onlyActual);
  }

  /** The first {@code n} rows Iceberg's reader returns, as text (for a failure message). */
  public static List<String> firstRows(Table table, int n) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        if (rows.size() == n) {
          break;
        }
        StringBuilder row = new StringBuilder("(");
        for (int f = 0; f < table.schema().columns().size(); f++) {
          row.append(f == 0 ? "" : ", ").append(record.get(f));
        }
        rows.add(row.append(')').toString());
      }
    }
    return rows;
  }

  private static String createdBy(String location, Configuration conf) throws IOException {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(location);
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))) {
      ParquetMetadata footer = reader.getFooter();
      String createdBy = footer.getFileMetaData().getCreatedBy();
      return createdBy == null ? "(none)" : createdBy;
    }
  }

  /**
   * A 64-bit hash of the row's first {@code columns} values (the table's columns; the reader
   * appends {@code _pos} when it applies position deletes), FNV-1a over their text, then mixed.
   */
  static long hash(Record record, int columns) {
    long h = 0xcbf29ce484222325L;
    for (int f = 0; f < columns; f++) {
      Object value = record.get(f);
      String text = value == null ? "\u0000null" : value.toString();
      for (int c = 0; c < text.length(); c++) {
        h = (h ^ text.charAt(c)) * 0x100000001b3L;
      }
      h = (h ^ 0x1f) * 0x100000001b3L; // field separator
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb34a1d7ec53L;
    return h ^ (h >>> 33);
  }
}
