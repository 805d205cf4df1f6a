package io.frazil.iceberg;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Types;

/**
 * {@code make demo}: writes one Nexmark-like bid data file with the stock Iceberg Parquet writer
 * and with Frazil, reads both back with Iceberg's reader, checks rows and metrics agree, and prints
 * a side-by-side summary (medians of alternating runs after a warm-up).
 */
public final class FileWriteDemo {
  static final Schema BID =
      new Schema(
          required(1, "auction", Types.LongType.get()),
          required(2, "bidder", Types.LongType.get()),
          required(3, "price", Types.LongType.get()),
          optional(4, "channel", Types.StringType.get()),
          optional(5, "url", Types.StringType.get()),
          required(6, "date_time", Types.TimestampType.withoutZone()),
          optional(7, "extra", Types.StringType.get()));

  private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple", "channel-7"};

  private FileWriteDemo() {}

  static List<RowData> bids(int count, long seed) {
    Random random = new Random(seed);
    List<RowData> rows = Lists.newArrayListWithCapacity(count);
    long time = 1_700_000_000_000L;
    for (int i = 0; i < count; i += 1) {
      time += random.nextInt(20);
      char[] extra = new char[40 + random.nextInt(60)];
      Arrays.fill(extra, (char) ('a' + random.nextInt(26)));
      rows.add(
          GenericRowData.of(
              1000L + random.nextInt(10_000),
              2000L + random.nextInt(100_000),
              (long) Math.abs(random.nextGaussian() * 10_000),
              StringData.fromString(CHANNELS[random.nextInt(CHANNELS.length)]),
              StringData.fromString(
                  "https://www.nexmark.com/" + random.nextInt(1000) + "/item.htm?query=1"),
              TimestampData.fromEpochMillis(time),
              StringData.fromString(new String(extra))));
    }
    return rows;
  }

  public static void main(String[] args) throws Exception {
    int rowCount = args.length > 0 ? Integer.parseInt(args[0]) : 262_144;
    List<RowData> rows = bids(rowCount, 42);
    File dir = Files.createTempDirectory("frazil-demo").toFile();
    MetricsConfig config = MetricsConfig.getDefault();
    Map<String, String> props = Map.of("write.parquet.compression-codec", "zstd");

    long[] stockNanos = new long[3];
    long[] frazilNanos = new long[3];
    ParityHarness.Written stock = null;
    ParityHarness.Written frazil = null;
    for (int i = -1; i < 3; i += 1) { // iteration -1 is the warm-up
      long start = System.nanoTime();
      stock = ParityHarness.writeStock(new File(dir, "stock.parquet"), BID, rows, props, config);
      long mid = System.nanoTime();
      frazil = ParityHarness.writeFrazil(new File(dir, "frazil.parquet"), BID, rows, props, config);
      long end = System.nanoTime();
      if (i >= 0) {
        stockNanos[i] = mid - start;
        frazilNanos[i] = end - mid;
      }
    }

    List<Record> stockRows = ParityHarness.read(stock.file, BID);
    List<Record> frazilRows = ParityHarness.read(frazil.file, BID);
    boolean rowsEqual = stockRows.equals(frazilRows) && stockRows.size() == rowCount;
    boolean metricsEqual = true;
    try {
      ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
    } catch (AssertionError e) {
      metricsEqual = false;
      System.out.println("Metrics differ: " + e.getMessage());
    }
    String createdBy = ParityHarness.footer(frazil.file).getFileMetaData().getCreatedBy();

    long stockMedian = median(stockNanos);
    long frazilMedian = median(frazilNanos);
    System.out.println();
    System.out.println(
        "Frazil demo: one Iceberg data file, " + rowCount + " bid rows, zstd level 3");
    System.out.printf("%-28s %18s %18s%n", "", "stock Iceberg", "Frazil");
    System.out.printf("%-28s %18d %18d%n", "rows read back", stockRows.size(), frazilRows.size());
    System.out.printf("%-28s %18d %18d%n", "file bytes", stock.length, frazil.length);
    System.out.printf(
        "%-28s %18.1f %18.1f%n", "write ms (median of 3)", stockMedian / 1e6, frazilMedian / 1e6);
    System.out.printf("%-28s %18s %18s%n", "created_by", "parquet-mr", createdBy);
    System.out.printf("%-28s %37s%n", "rows equal", rowsEqual);
    System.out.printf("%-28s %37s%n", "metrics equal", metricsEqual);
    System.out.printf(
        "%-28s %37s%n",
        "speed-up (stock / Frazil)", String.format("%.2fx", (double) stockMedian / frazilMedian));
    System.out.println("(one small run on a shared machine; bench/ has the measured cohorts)");
    if (!rowsEqual || !metricsEqual) {
      System.exit(1);
    }
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
