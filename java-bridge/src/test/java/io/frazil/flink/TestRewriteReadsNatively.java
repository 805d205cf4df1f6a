package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.read.ReadCounters;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteDataFilesActionResult;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.actions.Actions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg's Flink compaction ({@code Actions.rewriteDataFiles}) reads its input files through the
 * format model registry too (RowDataRewriter → RowDataFileScanTaskReader), so with Frazil installed
 * every input file is decoded natively and the output is written natively, and the table keeps
 * exactly its rows.
 */
class TestRewriteReadsNatively {
  @RegisterExtension
  static final FrazilMiniCluster MINI_CLUSTER = FrazilMiniCluster.installedLikeACluster();

  @TempDir private File warehouse;

  @Test
  void theRewriteActionReadsEveryInputFileNativelyAndKeepsTheRows() throws Exception {
    Table table =
        FlinkJobs.createTable(
            warehouse, "rewrite", JobTables.Partitioning.UNPARTITIONED, 2, Map.of());
    for (int append = 0; append < 3; append++) {
      FlinkJobs.write(
          warehouse,
          "rewrite",
          JobTables.Sink.FLINK_SINK,
          FlinkJobs.rows(append * 1000L, 1000, "v" + append),
          false);
    }
    table.refresh();
    List<Record> before = sorted(FlinkJobs.read(table));
    List<DataFile> inputs = List.copyOf(FlinkJobs.files(table).dataFiles);
    assertThat(inputs).as("one file per append and writer subtask").hasSizeGreaterThan(2);

    long nativeReads = ReadCounters.nativeFiles();
    long stockReads = ReadCounters.stockFiles();
    long nativeWrites = FrazilFlink.nativeDataFiles();
    RewriteDataFilesActionResult result =
        Actions.forTable(FlinkJobs.env(1), table).rewriteDataFiles().execute();

    assertThat(result.deletedDataFiles()).hasSameSizeAs(inputs);
    assertThat(ReadCounters.nativeFiles() - nativeReads).isEqualTo(inputs.size());
    assertThat(ReadCounters.stockFiles()).isEqualTo(stockReads);
    assertThat(FrazilFlink.nativeDataFiles() - nativeWrites)
        .isEqualTo(result.addedDataFiles().size());
    table.refresh();
    List<DataFile> outputs = List.copyOf(FlinkJobs.files(table).dataFiles);
    assertThat(outputs).hasSameSizeAs(result.addedDataFiles()).hasSizeLessThan(inputs.size());
    assertThat(FlinkJobs.createdBy(outputs.get(0).location())).startsWith("frazil");
    assertThat(sorted(FlinkJobs.read(table))).isEqualTo(before);
    FlinkJobs.assertNothingLeaked();
  }

  private static List<Record> sorted(List<Record> records) {
    return records.stream().sorted(Comparator.comparing(r -> (Long) r.getField("id"))).toList();
  }
}
