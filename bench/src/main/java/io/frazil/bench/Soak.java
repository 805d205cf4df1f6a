package io.frazil.bench;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.FrazilParquet;
import io.frazil.iceberg.FrazilParquetAppender;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.ParitySchemas;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code make soak}: opens, writes, fails, abandons and closes many Frazil writers in one JVM, as a
 * long-running TaskManager does, and watches what stays behind. Every {@code --sample} writers it
 * records the process's resident memory, Arrow's allocated bytes and the live native writers; at
 * the end it prints the slope of resident memory over the second half of the run and fails unless
 * Arrow bytes and live native writers are both back to zero.
 *
 * <p>Writers cycle through schemas (primitives, required columns, nesting) and fates: most write
 * 1–2,000 rows and close; some meet a null in a required column, an output stream that fails, a
 * codec Frazil refuses, or are closed without a row. Every failure must be the expected exception.
 */
@Command(
    name = "Soak",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Opens, writes, fails, abandons and closes many Frazil writers in one JVM and checks that"
          + " nothing stays behind (make soak)."
    })
public final class Soak implements Callable<Integer> {
  /** What happens to one writer. */
  enum Fate {
    WRITTEN,
    NULL_IN_REQUIRED_COLUMN,
    FAILING_STREAM,
    REFUSED_CODEC,
    NO_ROWS
  }

  private static final Schema[] SCHEMAS = {
    ParitySchemas.PRIMITIVES, ParitySchemas.REQUIRED, ParitySchemas.NESTED
  };

  @Option(
      names = "--writers",
      paramLabel = "N",
      defaultValue = "10000",
      converter = BenchCli.Positive.class,
      description = "Writers opened one after another.")
  int writers;

  @Option(
      names = "--sample",
      paramLabel = "N",
      defaultValue = "500",
      converter = BenchCli.Positive.class,
      description = "Record RSS, Arrow bytes and live native writers every N writers.")
  int sample;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "20261201",
      description = "Seed of the schema, fate and row choices.")
  long seed;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "bench/target/soak",
      description = "Where soak.jsonl and summary.txt go.")
  Path out;

  public static void main(String[] args) {
    BenchCli.main(args, new Soak());
  }

  @Override
  public Integer call() throws IOException {
    return run(writers, sample, seed, out) ? 0 : 1;
  }

  static boolean run(int writers, int sample, long seed, Path out) throws IOException {
    Files.createDirectories(out);
    Path scratch = Files.createTempDirectory("frazil-soak");
    Random random = new Random(seed);
    List<List<RowData>> pools = new ArrayList<>();
    for (Schema schema : SCHEMAS) {
      pools.add(new RowDataGenerator(seed, 0.1).rows(schema, 2_000));
    }
    Map<Fate, Integer> fates = new EnumMap<>(Fate.class);
    List<long[]> samples = new ArrayList<>();
    long started = System.nanoTime();
    try (PrintWriter jsonl =
        new PrintWriter(
            Files.newBufferedWriter(out.resolve("soak.jsonl"), StandardCharsets.UTF_8))) {
      for (int w = 0; w < writers; w += 1) {
        int which = random.nextInt(SCHEMAS.length);
        Fate fate = fate(random, which);
        File file = scratch.resolve("w" + w + ".parquet").toFile();
        writeOne(SCHEMAS[which], pools.get(which), fate, file, random);
        Files.deleteIfExists(file.toPath());
        fates.merge(fate, 1, Integer::sum);
        if ((w + 1) % sample == 0 || w + 1 == writers) {
          long[] point = {
            w + 1,
            MemoryProbes.procStatusKb("VmRSS"),
            ArrowMemory.allocatedBytes(),
            NativeParquetWriter.liveWriterCount()
          };
          samples.add(point);
          String line =
              String.format(
                  Locale.ROOT,
                  "{\"writers\":%d,\"rss_kb\":%d,\"arrow_bytes\":%d,\"live_native_writers\":%d,"
                      + "\"seconds\":%.1f}",
                  point[0],
                  point[1],
                  point[2],
                  point[3],
                  (System.nanoTime() - started) / 1e9);
          jsonl.println(line);
          System.out.println(line);
        }
      }
    } finally {
      Files.deleteIfExists(scratch);
    }
    long[] last = samples.get(samples.size() - 1);
    double slope = slopeKbPerThousand(samples.subList(samples.size() / 2, samples.size()));
    String summary =
        String.format(
            Locale.ROOT,
            "soak: %d writers %s in %.1f s; RSS %d MB at the end, slope over the second half %.1f"
                + " KB per 1,000 writers; Arrow bytes %d, live native writers %d",
            writers,
            fates,
            (System.nanoTime() - started) / 1e9,
            last[1] / 1024,
            slope,
            last[2],
            last[3]);
    System.out.println(summary);
    Files.writeString(out.resolve("summary.txt"), summary + "\n", StandardCharsets.UTF_8);
    boolean clean = last[2] == 0 && last[3] == 0;
    if (!clean) {
      System.out.println("soak: FAILED: memory left allocated after every writer closed");
    }
    return clean;
  }

  private static Fate fate(Random random, int schema) {
    int roll = random.nextInt(20);
    if (roll == 0 && SCHEMAS[schema] == ParitySchemas.REQUIRED) {
      return Fate.NULL_IN_REQUIRED_COLUMN;
    }
    switch (roll) {
      case 1:
        return Fate.FAILING_STREAM;
      case 2:
        return Fate.REFUSED_CODEC;
      case 3:
        return Fate.NO_ROWS;
      default:
        return Fate.WRITTEN;
    }
  }

  private static void writeOne(
      Schema schema, List<RowData> pool, Fate fate, File file, Random random) throws IOException {
    OutputFile output =
        fate == Fate.FAILING_STREAM
            ? new FailingAfter(org.apache.iceberg.Files.localOutput(file), 64)
            : org.apache.iceberg.Files.localOutput(file);
    FrazilParquet.WriteBuilder builder =
        FrazilParquet.write(output).schema(schema).batchRows(256 + random.nextInt(4096));
    if (fate == Fate.REFUSED_CODEC) {
      builder.set("write.parquet.compression-codec", "brotli");
    }
    FrazilParquetAppender appender = builder.buildRowData();
    int rows = fate == Fate.NO_ROWS ? 0 : 1 + random.nextInt(pool.size());
    int offset = random.nextInt(pool.size());
    Throwable failure = null;
    try {
      for (int r = 0; r < rows; r += 1) {
        if (fate == Fate.NULL_IN_REQUIRED_COLUMN && r == rows / 2) {
          appender.add(new GenericRowData(schema.columns().size()));
        } else {
          appender.add(pool.get((offset + r) % pool.size()));
        }
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      appender.close();
    } catch (IOException | RuntimeException e) {
      if (failure == null) {
        failure = e;
      }
    }
    boolean expectFailure =
        fate == Fate.NULL_IN_REQUIRED_COLUMN
            || fate == Fate.REFUSED_CODEC
            || fate == Fate.FAILING_STREAM;
    if (expectFailure != (failure != null)) {
      throw new IllegalStateException(
          "writer with fate "
              + fate
              + " ended "
              + (failure == null ? "without" : "with")
              + " a failure",
          failure);
    }
    if (!expectFailure && fate == Fate.WRITTEN && appender.metrics().recordCount() != rows) {
      throw new IllegalStateException(
          "wrote " + rows + " rows, metrics say " + appender.metrics().recordCount());
    }
  }

  /** Least-squares slope of RSS (KB) against writers, per 1,000 writers. */
  static double slopeKbPerThousand(List<long[]> points) {
    int n = points.size();
    if (n < 2) {
      return 0.0;
    }
    double meanX = 0;
    double meanY = 0;
    for (long[] p : points) {
      meanX += p[0];
      meanY += p[1];
    }
    meanX /= n;
    meanY /= n;
    double num = 0;
    double den = 0;
    for (long[] p : points) {
      num += (p[0] - meanX) * (p[1] - meanY);
      den += (p[0] - meanX) * (p[0] - meanX);
    }
    return den == 0 ? 0.0 : 1000.0 * num / den;
  }

  /** An output whose stream fails once {@code limit} bytes were written. */
  private static final class FailingAfter implements OutputFile {
    private final OutputFile delegate;
    private final long limit;

    FailingAfter(OutputFile delegate, long limit) {
      this.delegate = delegate;
      this.limit = limit;
    }

    @Override
    public PositionOutputStream create() {
      return wrap(delegate.create());
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return wrap(delegate.createOrOverwrite());
    }

    private PositionOutputStream wrap(PositionOutputStream out) {
      return new PositionOutputStream() {
        @Override
        public long getPos() throws IOException {
          return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
          check(1);
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          check(len);
          out.write(b, off, len);
        }

        private void check(int len) throws IOException {
          if (out.getPos() + len > limit) {
            throw new IOException("injected: disk full after " + limit + " bytes");
          }
        }

        @Override
        public void close() throws IOException {
          out.close();
        }
      };
    }

    @Override
    public String location() {
      return delegate.location();
    }

    @Override
    public InputFile toInputFile() {
      return delegate.toInputFile();
    }
  }
}
