package io.frazil.validation;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.ParityHarness;
import io.frazil.iceberg.ParityHarness.Written;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.ParityCases;
import io.frazil.testkit.ParityCases.Case;
import io.frazil.testkit.ParitySchemas;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * File level: the same generated rows written by stock Iceberg ({@code Parquet.write} with {@code
 * FlinkParquetWriters}) and by Frazil, over a type matrix × metrics modes × writer properties: the
 * cases of java-bridge's TestParquetParity ({@link ParityCases}), written by its {@link
 * ParityHarness}, checked here into the report.
 */
final class FileParity {
  static final String GROUP = "file-level";

  private FileParity() {}

  /**
   * The cases: java-bridge's TestParquetParity matrix ({@link ParityCases#cases()}), or in a smoke
   * run two primitives cases.
   */
  static List<Case> cases(boolean smoke) {
    if (!smoke) {
      return ParityCases.cases();
    }
    List<Case> cases = new ArrayList<>();
    for (String mode : new String[] {"default", "full"}) {
      cases.add(
          new Case(
              "primitives",
              ParitySchemas.PRIMITIVES,
              0.2,
              2000,
              Map.of(),
              mode,
              ParityCases.metricsModes().get(mode)));
    }
    return cases;
  }

  static CaseResult run(Case c, File dir) {
    CaseResult result = new CaseResult(GROUP, c.name());
    result.params.put("schema", c.schemaName());
    result.params.put("metrics", c.metricsName());
    result.params.put("null_rate", c.nullRate());
    result.params.put("rows", c.rows());
    result.params.put("properties", new java.util.TreeMap<>(c.props()));
    Check rows = result.check(CaseResult.ROWS);
    Check footer = result.check(CaseResult.FOOTER);
    Check metrics = result.check(CaseResult.METRICS);
    Check resources = result.check(CaseResult.RESOURCES);
    result.check(CaseResult.DELETES).notApplicable("file level: data files only");
    long start = System.nanoTime();
    String stage = "write";
    try {
      List<RowData> input =
          new RowDataGenerator(c.schemaName().hashCode(), c.nullRate()).rows(c.schema(), c.rows());
      Map<String, String> props = new LinkedHashMap<>(c.props());
      // Tables created by Iceberg >= 1.4 persist zstd; without it stock would fall back to gzip.
      props.putIfAbsent("write.parquet.compression-codec", "zstd");
      File caseDir = new File(dir, "case-" + Integer.toHexString(c.name().hashCode()));
      if (!caseDir.mkdirs() && !caseDir.isDirectory()) {
        throw new IOException("cannot create " + caseDir);
      }
      Written stock =
          ParityHarness.writeStock(
              new File(caseDir, "stock.parquet"), c.schema(), input, props, c.metrics());
      Written frazil =
          ParityHarness.writeFrazil(
              new File(caseDir, "frazil.parquet"), c.schema(), input, props, c.metrics());
      resources(resources);

      stage = "read back";
      List<Record> expected = ParityHarness.read(stock.file, c.schema());
      List<Record> actual = ParityHarness.read(frazil.file, c.schema());
      rows.set("input", input.size());
      rows.set("stock", expected.size());
      rows.set("frazil", actual.size());
      rows.equal(c.rows(), expected.size(), "stock rows read back");
      rows.equal(c.rows(), actual.size(), "Frazil rows read back");
      int mismatches = 0;
      for (int i = 0; i < Math.min(expected.size(), actual.size()); i += 1) {
        if (!expected.get(i).equals(actual.get(i))) {
          mismatches += 1;
          rows.fail("row " + i + ": stock " + expected.get(i) + " != Frazil " + actual.get(i));
        }
      }
      rows.expect(mismatches == 0, "%d rows differ", mismatches);
      rows.note(String.format(Locale.ROOT, "%d = %d rows", expected.size(), actual.size()));

      stage = "footer";
      ParquetMetadata stockFooter = ParquetChecks.footer(stock.file.getAbsolutePath());
      ParquetMetadata frazilFooter = ParquetChecks.footer(frazil.file.getAbsolutePath());
      String codec = props.get("write.parquet.compression-codec").toUpperCase(Locale.ROOT);
      ParquetChecks.nativeFooterWitnesses(footer, frazilFooter, c.schema(), "frazil", codec);
      MessageType stockSchema = stockFooter.getFileMetaData().getSchema();
      MessageType frazilSchema = frazilFooter.getFileMetaData().getSchema();
      ParquetChecks.sameType(
          footer,
          stockSchema,
          frazilSchema,
          stockSchema.getName(),
          !ParquetChecks.hasFloatingPointColumns(stockSchema));
      footer.equal(
          stockFooter.getFileMetaData().getKeyValueMetaData(),
          frazilFooter.getFileMetaData().getKeyValueMetaData(),
          "key-value metadata (stock vs Frazil)");
      footer.expect(
          stockFooter.getFileMetaData().getCreatedBy().startsWith(ParquetChecks.STOCK_CREATED_BY),
          "stock created_by is '%s'",
          stockFooter.getFileMetaData().getCreatedBy());
      footer.equal(
          stockFooter.getBlocks().stream().mapToLong(b -> b.getRowCount()).sum(),
          frazilFooter.getBlocks().stream().mapToLong(b -> b.getRowCount()).sum(),
          "footer row count");
      if (stockFooter.getBlocks().size() > 1) {
        footer.expect(
            frazilFooter.getBlocks().size() > 1,
            "stock wrote %d row groups, Frazil %d",
            stockFooter.getBlocks().size(),
            frazilFooter.getBlocks().size());
      }
      footer.note(
          String.format(
              Locale.ROOT,
              "%d nodes, %d row groups",
              footer.get("schema nodes"),
              frazilFooter.getBlocks().size()));

      stage = "metrics";
      ParquetChecks.sameMetrics(metrics, stock.metrics, frazil.metrics, "stock vs Frazil");
      Metrics imported = ParquetUtil.fileMetrics(Files.localInput(frazil.file), c.metrics());
      Set<Integer> floats = ParquetChecks.floatingPointIds(c.schema());
      Metrics m = frazil.metrics;
      ParquetChecks.agreesWithFooter(
          metrics,
          m.recordCount(),
          m.columnSizes(),
          m.valueCounts(),
          m.nullValueCounts(),
          m.lowerBounds(),
          m.upperBounds(),
          imported,
          floats,
          "Frazil vs ParquetUtil.fileMetrics");
      metrics.equal(
          ParquetChecks.rowGroupStarts(frazilFooter), frazil.splitOffsets, "split offsets");
      metrics.equal(frazil.file.length(), frazil.length, "length() after close");
      metrics.note(
          String.format(
              Locale.ROOT,
              "%d fields, %d split offsets",
              m.valueCounts() == null ? 0 : m.valueCounts().size(),
              frazil.splitOffsets.size()));
    } catch (Throwable t) {
      Check target =
          stage.equals("write") || stage.equals("read back")
              ? rows
              : stage.equals("footer") ? footer : metrics;
      target.failWith(stage, t);
    } finally {
      resources(resources);
      resources.note(resources.get("checks") + " checks");
      result.millis = (System.nanoTime() - start) / 1_000_000;
      result.close();
    }
    return result;
  }

  static void resources(Check check) {
    check.count("checks", 1);
    check.equal(0L, ArrowMemory.allocatedBytes(), "Arrow bytes left allocated");
    check.equal(0L, NativeParquetWriter.liveWriterCount(), "native writers left open");
  }
}
