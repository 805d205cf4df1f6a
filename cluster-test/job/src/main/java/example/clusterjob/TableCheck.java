package example.clusterjob;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.shaded.org.apache.parquet.format.FileMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.format.Util;

/**
 * Reads a table back and prints one JSON line of facts about it: rows, ids missing, duplicated or
 * unexpected, rows whose columns differ from {@link Rows#values}, data files and the {@code
 * created_by} of each file's Parquet footer, snapshots; the first 20 ranges of missing ids. Exits 1
 * unless the table holds exactly the expected rows. Run with the cluster's lib/ and the job jar on
 * the class path:
 *
 * <pre>
 * --warehouse DIR --table db.t --count N [--start 0] [--step 1] [--list-files false]
 * [--catalog-impl CLASS --catalog-props k=v,...]
 * </pre>
 *
 * <p>The expected ids are {@code start + k * step} for {@code k} in {@code [0, count)}. With {@code
 * --list-files true} the line also maps each data file's name to its {@code created_by}.
 */
public final class TableCheck {
  private TableCheck() {}

  public static void main(String[] argv) throws IOException {
    Args args = new Args(argv);
    String tableName = args.get("table");
    long start = args.getLong("start", 0);
    long step = args.getLong("step", 1);
    int count = args.getInt("count", 0);
    boolean listFiles = "true".equals(args.get("list-files", "false"));
    Table table = Tables.catalog(args).loadTable(TableIdentifier.parse(tableName));

    int[] seen = new int[count];
    long rows = 0;
    long unexpected = 0;
    long mismatched = 0;
    String firstMismatch = null;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows++;
        long id = (Long) record.getField("id");
        long k = (id - start) / step;
        if ((id - start) % step != 0 || k < 0 || k >= count) {
          unexpected++;
          continue;
        }
        seen[(int) k]++;
        List<Object> want = Rows.values(id);
        for (int i = 0; i < want.size(); i++) {
          if (!Objects.equals(want.get(i), record.get(i))) {
            mismatched++;
            if (firstMismatch == null) {
              firstMismatch = "id " + id + ": " + record + " != " + want;
            }
            break;
          }
        }
      }
    }
    long missing = 0;
    long duplicated = 0;
    StringBuilder missingRanges = new StringBuilder();
    int ranges = 0;
    for (int k = 0; k < count; k++) {
      int n = seen[k];
      missing += n == 0 ? 1 : 0;
      duplicated += n > 1 ? n - 1 : 0;
      if (n == 0 && (k == 0 || seen[k - 1] != 0) && ranges < 20) {
        int end = k;
        while (end + 1 < count && seen[end + 1] == 0) {
          end++;
        }
        missingRanges.append(ranges++ == 0 ? "" : " ").append(start + k * step);
        missingRanges.append('-').append(start + end * step);
      }
    }

    Map<String, Integer> createdBy = new TreeMap<>();
    Map<String, String> fileCreatedBy = new TreeMap<>();
    long files = 0;
    long fileRecords = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        fileRecords += task.file().recordCount();
        String location = task.file().location();
        String writer = createdBy(table.io().newInputFile(location));
        createdBy.merge(writer, 1, Integer::sum);
        fileCreatedBy.put(location.substring(location.lastIndexOf('/') + 1), writer);
      }
    }
    int snapshots = 0;
    for (Object ignored : table.snapshots()) {
      snapshots++;
    }

    boolean ok = rows == count && missing == 0 && duplicated == 0 && unexpected == 0;
    ok &= mismatched == 0;
    StringBuilder json = new StringBuilder("{");
    field(json, "table", tableName);
    field(json, "ok", ok);
    field(json, "expected_rows", count);
    field(json, "rows", rows);
    field(json, "missing_ids", missing);
    field(json, "duplicate_rows", duplicated);
    field(json, "missing_id_ranges", missing == 0 ? null : missingRanges.toString());
    field(json, "unexpected_rows", unexpected);
    field(json, "mismatched_rows", mismatched);
    field(json, "first_mismatch", firstMismatch);
    field(json, "data_files", files);
    field(json, "data_file_records", fileRecords);
    field(json, "snapshots", snapshots);
    json.append("\"created_by\":{");
    createdBy.forEach((k, v) -> field(json, k, v));
    trimComma(json);
    json.append('}');
    if (listFiles) {
      json.append(",\"files\":{");
      fileCreatedBy.forEach((k, v) -> field(json, k, v));
      trimComma(json);
      json.append('}');
    }
    json.append('}');
    System.out.println(json);
    System.exit(ok ? 0 : 1);
  }

  /** The {@code created_by} of a Parquet file's footer. */
  static String createdBy(InputFile file) throws IOException {
    long length = file.getLength();
    try (SeekableInputStream in = file.newStream()) {
      byte[] tail = readAt(in, length - 8, 8);
      String magic = new String(tail, 4, 4, StandardCharsets.US_ASCII);
      if (!"PAR1".equals(magic)) {
        throw new IOException(file.location() + " is not a Parquet file (tail " + magic + ")");
      }
      int footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      byte[] footer = readAt(in, length - 8 - footerLength, footerLength);
      FileMetaData metadata = Util.readFileMetaData(new ByteArrayInputStream(footer));
      return String.valueOf(metadata.getCreated_by());
    }
  }

  private static byte[] readAt(SeekableInputStream in, long position, int length)
      throws IOException {
    byte[] bytes = new byte[length];
    in.seek(position);
    int done = 0;
    while (done < length) {
      int n = in.read(bytes, done, length - done);
      if (n < 0) {
        throw new IOException("unexpected end of file");
      }
      done += n;
    }
    return bytes;
  }

  private static void field(StringBuilder json, String key, Object value) {
    json.append('"').append(escape(key)).append("\":");
    if (value == null) {
      json.append("null");
    } else if (value instanceof Number || value instanceof Boolean) {
      json.append(value);
    } else {
      json.append('"').append(escape(value.toString())).append('"');
    }
    json.append(',');
  }

  private static void trimComma(StringBuilder json) {
    if (json.charAt(json.length() - 1) == ',') {
      json.setLength(json.length() - 1);
    }
  }

  private static String escape(String s) {
    StringBuilder out = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
