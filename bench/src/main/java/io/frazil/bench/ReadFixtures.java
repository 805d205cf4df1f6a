package io.frazil.bench;

import io.frazil.flink.FrazilFlink;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/**
 * The read cohort's data files, written once by stock Iceberg (zstd 3) before anything is timed:
 * per schema and row count, the file the scan and project cells read, and for the filtered cell a
 * file of {@link ReadBench#FILTER_ROW_GROUPS} row groups with the predicate's threshold.
 */
final class ReadFixtures {
  private final ReadBench bench;
  private final Path workDir;

  /** Per schema and size: the scan/project file and the filtered cell's file with threshold. */
  private final Map<String, Fixture> fixtures = new LinkedHashMap<>();

  static final class Fixture {
    File plain;
    int plainRowGroups;
    File grouped;
    int groupedRowGroups;
    long threshold;
  }

  ReadFixtures(ReadBench bench, Path workDir) {
    this.bench = bench;
    this.workDir = workDir;
  }

  Fixture get(String schemaName, int rowCount) {
    return fixtures.get(schemaName + "|" + rowCount);
  }

  void write() throws IOException {
    FrazilFlink.uninstall();
    for (String schemaName : bench.schemas) {
      Schema schema = Datasets.schema(schemaName);
      RowType rowType = FlinkSchemaUtil.convert(schema);
      long buildStart = System.nanoTime();
      List<RowData> all = Datasets.rows(schemaName, bench.maxRows(), bench.seed);
      System.out.printf(
          "%n[%s] built %,d rows in %.1f s (%s)%n",
          schemaName,
          all.size(),
          (System.nanoTime() - buildStart) / 1e9,
          Guards.fixtureHeap("the " + schemaName + " rows", new ArrayList<>()));
      for (int rowCount : bench.rows) {
        List<RowData> some = all.subList(0, rowCount);
        Fixture fixture = new Fixture();
        fixture.plain = workDir.resolve(schemaName + "-" + rowCount + ".parquet").toFile();
        Arms.stock(schema, rowType, some, FileWriteBench.PROPERTIES, MetricsConfig.getDefault())
            .write(fixture.plain);
        fixture.plainRowGroups = Guards.footer(fixture.plain).rowGroups;
        if (bench.cells.contains("filtered")) {
          Map<String, String> grouped = new HashMap<>(FileWriteBench.PROPERTIES);
          long groupBytes =
              Math.max(16 * 1024, fixture.plain.length() / ReadBench.FILTER_ROW_GROUPS);
          grouped.put("write.parquet.row-group-size-bytes", Long.toString(groupBytes));
          fixture.grouped =
              workDir.resolve(schemaName + "-" + rowCount + "-groups.parquet").toFile();
          Arms.stock(schema, rowType, some, grouped, MetricsConfig.getDefault())
              .write(fixture.grouped);
          fixture.groupedRowGroups = Guards.footer(fixture.grouped).rowGroups;
          fixture.threshold = threshold(schemaName, some.get(rowCount / 10));
        }
        fixtures.put(schemaName + "|" + rowCount, fixture);
        System.out.printf(
            Locale.ROOT,
            "[%s %,d rows] wrote %s (%.2f MB, %d row group(s))%s%n",
            schemaName,
            rowCount,
            fixture.plain.getName(),
            fixture.plain.length() / 1048576.0,
            fixture.plainRowGroups,
            fixture.grouped == null
                ? ""
                : String.format(
                    Locale.ROOT,
                    " and %s (%.2f MB, %d row groups; %s < %d)",
                    fixture.grouped.getName(),
                    fixture.grouped.length() / 1048576.0,
                    fixture.groupedRowGroups,
                    ReadBench.FILTER_COLUMN.get(schemaName),
                    fixture.threshold));
      }
      all = null;
      System.gc();
    }
  }

  /** The filter column's value in {@code row} (timestamps as epoch microseconds). */
  private static long threshold(String schemaName, RowData row) {
    if ("bid".equals(schemaName)) {
      return JobRows.micros(row.getTimestamp(5, 6));
    }
    return row.getLong(0);
  }
}
