package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.flink.routing.FrazilTaskWriterFactory;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Iceberg Flink sink, with Frazil installed the way a cluster installs it, commits exactly
 * the input, with every data file written by Frazil and every delete file by Iceberg.
 */
public class TestFlinkSinks {
  @RegisterExtension
  static final FrazilMiniCluster MINI_CLUSTER = FrazilMiniCluster.installedLikeACluster();

  @TempDir private File warehouse;

  static Stream<Arguments> cases() {
    List<Arguments> cases = Lists.newArrayList();
    for (JobTables.Sink sink : JobTables.Sink.values()) {
      for (int version : new int[] {2, 3}) {
        for (JobTables.Partitioning partitioning : JobTables.Partitioning.values()) {
          cases.add(Arguments.of(sink, partitioning, version, false));
          // Upsert needs every partition source column among the equality fields (id here).
          if (partitioning != JobTables.Partitioning.IDENTITY) {
            cases.add(Arguments.of(sink, partitioning, version, true));
          }
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1} v{2} upsert={3}")
  @MethodSource("cases")
  public void committedTableEqualsInputAndDataFilesAreFrazils(
      JobTables.Sink sink, JobTables.Partitioning partitioning, int version, boolean upsert)
      throws Exception {
    String name =
        (sink + "_" + partitioning + "_v" + version + (upsert ? "_upsert" : ""))
            .toLowerCase(Locale.ROOT);
    Table table = FlinkJobs.createTable(warehouse, name, partitioning, version, Map.of());
    long before = FrazilFlink.nativeDataFiles();
    long memoizedBefore = FrazilTaskWriterFactory.memoizedWriters();

    List<RowData> expected;
    if (!upsert) {
      expected = FlinkJobs.rows(0, 3000, "a");
      FlinkJobs.write(warehouse, name, sink, expected, false);
    } else {
      FlinkJobs.write(warehouse, name, sink, FlinkJobs.rows(0, 1000, "a"), true);
      // The second job updates ids 0..499 twice: the first update of a key is an equality delete
      // (the key was committed earlier), the second a position delete / deletion vector (the key
      // is in a file this job is still writing).
      List<RowData> updates = Lists.newArrayList(FlinkJobs.rows(0, 500, "b"));
      updates.addAll(FlinkJobs.rows(0, 500, "c"));
      FlinkJobs.write(warehouse, name, sink, updates, true);
      expected = Lists.newArrayList(FlinkJobs.rows(0, 500, "c"));
      expected.addAll(FlinkJobs.rows(500, 500, "a"));
    }

    assertThat(rowsOf(FlinkJobs.read(table)))
        .containsExactlyInAnyOrderElementsOf(strings(expected));

    FlinkJobs.Files files = FlinkJobs.files(table);
    assertThat(files.dataFiles).isNotEmpty();
    for (DataFile file : files.dataFiles) {
      assertThat(FlinkJobs.createdBy(file.location()))
          .as("writer of data file %s", file.location())
          .startsWith("frazil version ");
      assertThat(file.recordCount()).isPositive();
    }
    assertThat(FrazilFlink.nativeDataFiles() - before)
        .isGreaterThanOrEqualTo(files.dataFiles.size());
    // FlinkJobs runs DataStream jobs through FrazilRouting: bucket-only tables route by memo
    // there (SQL plans its sink inside the planner, out of reach).
    boolean memoized = sink != JobTables.Sink.SQL && partitioning == JobTables.Partitioning.BUCKET;
    assertThat(FrazilTaskWriterFactory.memoizedWriters() > memoizedBefore)
        .as("task writers created with the partition-key memoizer")
        .isEqualTo(memoized);
    for (DeleteFile file : files.deleteFiles) {
      if (!FlinkJobs.isDeletionVector(file)) {
        assertThat(FlinkJobs.createdBy(file.location()))
            .as("writer of delete file %s", file.location())
            .startsWith("parquet-mr");
      }
    }
    if (upsert) {
      assertThat(files.deleteFiles).anyMatch(FlinkJobs::isEqualityDelete);
      if (version >= 3) {
        assertThat(files.deleteFiles)
            .as("v3 position deletes are deletion vectors")
            .anyMatch(FlinkJobs::isDeletionVector)
            .noneMatch(
                f ->
                    f.content() == org.apache.iceberg.FileContent.POSITION_DELETES
                        && !FlinkJobs.isDeletionVector(f));
      }
    }
  }

  static List<String> strings(List<RowData> rows) {
    return rows.stream()
        .map(
            r ->
                r.getLong(0)
                    + "|"
                    + r.getString(1)
                    + "|"
                    + r.getString(2)
                    + "|"
                    + (r.isNullAt(3) ? "null" : r.getDouble(3)))
        .collect(Collectors.toList());
  }

  static List<String> rowsOf(List<Record> records) {
    return records.stream()
        .map(r -> r.get(0) + "|" + r.get(1) + "|" + r.get(2) + "|" + r.get(3))
        .collect(Collectors.toList());
  }
}
