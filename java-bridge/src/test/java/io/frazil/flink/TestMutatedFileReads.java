package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.ParityHarness;
import io.frazil.jni.NativeParquetReader;
import io.frazil.read.ReadCounters;
import io.frazil.testkit.ParitySchemas;
import io.frazil.testkit.RandomSchemas;
import io.frazil.testkit.RowDataGenerator;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The native reader on mutated real files: stock- and Frazil-written files of several schemas
 * (dictionary and plain pages, v1 and v2 pages, four codecs, one and several row groups) are
 * mutated from a seed (bit flips, overwritten bytes, truncation, a cut-out range, zeroed chunks,
 * the footer length field, page-header bytes, footer bytes, page-body bytes) and each mutant is
 * read natively through {@link FrazilReadBuilder}, bounded by a timeout.
 *
 * <p>Per mutant the outcome must be one of:
 *
 * <ul>
 *   <li>rows, the same rows Iceberg's reader returns for the mutant (corruption neither reader can
 *       detect, such as a flipped bit in a plain value, is accepted only when both return the same
 *       rows);
 *   <li>rows while Iceberg's reader fails, only if they are the unmutated file's rows (the mutation
 *       hit bytes the native reader does not use: statistics, indexes, bloom filters, unprojected
 *       columns);
 *   <li>rows unlike Iceberg's, only if the mutation changed page headers or bodies of a file
 *       without page checksums (Frazil's files, today) and its other changes alone read the same
 *       both ways: two decoders may read undetectable corruption differently (arrow-rs trusts a v2
 *       header's null count, parquet-java counts the levels);
 *   <li>an {@link Exception} whose message names the mutant file, or the very exception (class and
 *       message) Iceberg's reader throws for the mutant (e.g. "Missing required field" when a
 *       footer flip changed a field id);
 *   <li>the file sent to Iceberg's reader by a fallback reason (whatever that reader does).
 * </ul>
 *
 * <p>Never an {@link Error}, a hang past the timeout or a JVM crash, and after every mutant no
 * native reader is open and no Arrow memory is allocated.
 *
 * <p>{@code -Dfrazil.fuzz.mutants} (default 200) mutants, mutant {@code i} drawn from seed {@code
 * base + i * 0x9E3779B97F4A7C15} with the base from {@code -Dfrazil.fuzz.seed} (default 20251201):
 * a failing mutant's seed alone reproduces it, {@code make fuzz SEED=<seed> CASES=1 MUTANTS=1}. The
 * mutant being read is kept in {@code target/mutated-reads/} until its read is done, so a JVM crash
 * leaves the file (its seed in its name) behind.
 */
class TestMutatedFileReads {
  private static final long DEFAULT_SEED = 20251201L;
  private static final int DEFAULT_MUTANTS = 200;
  private static final long STEP = 0x9E3779B97F4A7C15L;
  private static final long TIMEOUT_SECONDS = 60;
  private static final int ROWS = 700;
  private static final Path DIR = Paths.get("target", "mutated-reads");

  private static final List<Base> BASES = new ArrayList<>();
  private static ExecutorService nativeReads;
  private static ExecutorService stockReads;

  /** One real file the mutants start from. */
  private static final class Base {
    final String name;
    final Schema schema;
    final byte[] bytes;
    final int footerStart;
    final int footerEnd;

    /** Page headers: [offset, length]. */
    final List<int[]> headers;

    /** Page bodies: [offset, length]. */
    final List<int[]> bodies;

    final List<List<Object>> rows;

    /** Every page carries a CRC (parquet-java writes them; Frazil's writer does not yet). */
    boolean allPagesChecksummed = true;

    Base(String name, Schema schema, File file) throws IOException {
      this.name = name;
      this.schema = schema;
      this.bytes = java.nio.file.Files.readAllBytes(file.toPath());
      int footerLength =
          ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      this.footerEnd = bytes.length - 8;
      this.footerStart = footerEnd - footerLength;
      this.headers = new ArrayList<>();
      this.bodies = new ArrayList<>();
      ParquetMetadata footer = ParityHarness.footer(file);
      for (BlockMetaData block : footer.getBlocks()) {
        for (ColumnChunkMetaData column : block.getColumns()) {
          long at = column.getStartingPos();
          long end = at + column.getTotalSize();
          while (at < end) {
            ByteArrayInputStream in = new ByteArrayInputStream(bytes, (int) at, (int) (end - at));
            PageHeader header = Util.readPageHeader(in);
            int headerLength = (int) (end - at) - in.available();
            headers.add(new int[] {(int) at, headerLength});
            bodies.add(new int[] {(int) at + headerLength, header.getCompressed_page_size()});
            allPagesChecksummed &= header.isSetCrc();
            at += headerLength + header.getCompressed_page_size();
          }
        }
      }
      this.rows = ReadParity.readStock(Files.localInput(file), schema, builder -> {});
    }
  }

  @BeforeAll
  static void writeBases() throws IOException {
    java.nio.file.Files.createDirectories(DIR);
    nativeReads = Executors.newSingleThreadExecutor(daemon("native"));
    stockReads = Executors.newSingleThreadExecutor(daemon("stock"));
    Map<String, Schema> schemas = new TreeMap<>();
    schemas.put("primitives", ParitySchemas.PRIMITIVES);
    schemas.put("nested", ParitySchemas.NESTED);
    schemas.put("required", ParitySchemas.REQUIRED);
    schemas.put("random3", RandomSchemas.generate(3));
    schemas.put("random8", RandomSchemas.generate(8));
    Map<String, Map<String, String>> settings = new TreeMap<>();
    settings.put("dict-zstd", ImmutableMap.of());
    settings.put(
        "plain-uncompressed",
        ImmutableMap.of(
            "parquet.enable.dictionary", "false",
            "write.parquet.compression-codec", "uncompressed",
            "write.parquet.page-size-bytes", "1024"));
    settings.put(
        "v2-snappy",
        ImmutableMap.of(
            "write.parquet.compression-codec", "snappy",
            "write.parquet.page-version", "v2",
            "write.parquet.page-row-limit", "100"));
    settings.put(
        "gzip-row-groups",
        ImmutableMap.of(
            "write.parquet.compression-codec", "gzip",
            "write.parquet.row-group-size-bytes", "8192"));
    int n = 0;
    for (Map.Entry<String, Schema> schema : schemas.entrySet()) {
      List<RowData> rows = new RowDataGenerator(n++, 0.2).rows(schema.getValue(), ROWS);
      for (Map.Entry<String, Map<String, String>> setting : settings.entrySet()) {
        for (boolean frazil : new boolean[] {false, true}) {
          String name =
              schema.getKey() + "-" + setting.getKey() + "-" + (frazil ? "frazil" : "stock");
          File file = DIR.resolve("base-" + name + ".parquet").toFile();
          if (frazil) {
            ParityHarness.writeFrazil(
                file, schema.getValue(), rows, setting.getValue(), MetricsConfig.getDefault());
          } else {
            ParityHarness.writeStock(
                file, schema.getValue(), rows, setting.getValue(), MetricsConfig.getDefault());
          }
          BASES.add(new Base(name, schema.getValue(), file));
          java.nio.file.Files.delete(file.toPath());
        }
      }
    }
  }

  @AfterAll
  static void stopReads() {
    nativeReads.shutdownNow();
    stockReads.shutdownNow();
  }

  private static java.util.concurrent.ThreadFactory daemon(String what) {
    return runnable -> {
      Thread thread = new Thread(runnable, "mutated-file-read-" + what);
      thread.setDaemon(true);
      return thread;
    };
  }

  private static String property(String name, String fallback) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  @Test
  void mutantsReturnRowsOrFailNamingTheFileAndLeaveNothing() throws Exception {
    long base = Long.parseLong(property("frazil.fuzz.seed", String.valueOf(DEFAULT_SEED)));
    int mutants =
        Integer.parseInt(property("frazil.fuzz.mutants", String.valueOf(DEFAULT_MUTANTS)));
    System.out.printf(
        "mutated-file reads: %d mutants of %d files, base seed %d (a JVM crash leaves the mutant"
            + " being read in %s)%n",
        mutants, BASES.size(), base, DIR.toAbsolutePath());
    long started = System.nanoTime();
    Map<String, Integer> outcomes = new TreeMap<>();
    List<String> violations = new ArrayList<>();
    for (int i = 0; i < mutants; i++) {
      long seed = base + i * STEP;
      String outcome;
      Mutant mutant = Mutant.of(seed);
      try {
        outcome = read(mutant, seed);
      } catch (Violation v) {
        outcome = "VIOLATION " + v.kind;
        violations.add(
            String.format(
                "seed %d (%s): %s; reproduce: make fuzz SEED=%d CASES=1 MUTANTS=1",
                seed, mutant, v.getMessage(), seed));
        if (v.fatal) {
          outcomes.merge(outcome, 1, Integer::sum);
          break;
        }
      }
      outcomes.merge(outcome, 1, Integer::sum);
      long readers = NativeParquetReader.openReaders();
      long bytes = ArrowMemory.allocatedBytes();
      if (readers != 0 || bytes != 0) {
        outcomes.merge("VIOLATION leak", 1, Integer::sum);
        violations.add(
            String.format(
                "seed %d (%s): left %d native readers open and %d Arrow bytes allocated;"
                    + " reproduce: make fuzz SEED=%d CASES=1 MUTANTS=1",
                seed, mutant, readers, bytes, seed));
        break;
      }
    }
    System.out.printf(
        "mutated-file reads: %d mutants in %.1f s, outcomes %s%n",
        mutants, (System.nanoTime() - started) / 1e9, outcomes);
    violations.stream().limit(40).forEach(v -> System.out.println("  " + v));
    assertThat(violations).as("mutants whose read broke a rule (see the class comment)").isEmpty();
  }

  /** A rule broken by one mutant; fatal ones (a hang) end the run. */
  private static final class Violation extends Exception {
    final String kind;
    final boolean fatal;

    Violation(String kind, String message, Throwable cause, boolean fatal) {
      super(message, cause);
      this.kind = kind;
      this.fatal = fatal;
    }
  }

  private String read(Mutant mutant, long seed) throws Exception {
    File file = DIR.resolve("mutant-" + seed + "-" + mutant.kind + ".parquet").toFile();
    java.nio.file.Files.write(file.toPath(), mutant.bytes);
    InputFile input = Files.localInput(file);
    long nativeFiles = ReadCounters.nativeFiles();
    long stockFiles = ReadCounters.stockFiles();
    Object result =
        bounded(
            nativeReads,
            () -> ReadParity.readNative(input, mutant.schema, ReadParity.reuse(mutant.reuse)));
    boolean fellBack = ReadCounters.stockFiles() > stockFiles;
    boolean readNatively = ReadCounters.nativeFiles() > nativeFiles;
    String outcome;
    if (result instanceof TimeoutException) {
      throw new Violation(
          "hang", "the native read did not end within " + TIMEOUT_SECONDS + " s", null, true);
    }
    try {
      if (fellBack && !readNatively) {
        // Iceberg's reader read it (a fallback reason such as an encrypted-footer magic).
        outcome =
            "fallback to Iceberg's reader, "
                + (result instanceof Throwable ? result.getClass().getSimpleName() : "rows");
      } else if (result instanceof Error) {
        throw new Violation("Error", "the read threw " + result, (Error) result, false);
      } else if (result instanceof Exception) {
        Exception e = (Exception) result;
        if (e.getMessage() != null && e.getMessage().contains(input.location())) {
          outcome = "exception " + e.getClass().getSimpleName();
        } else if (sameAsStock(mutant, input, e)) {
          outcome = "exception as Iceberg's reader's, " + e.getClass().getSimpleName();
        } else {
          throw new Violation("unnamed", "the exception does not name the file: " + e, e, false);
        }
      } else {
        outcome = compareWithStock(mutant, input, rows(result));
      }
    } finally {
      java.nio.file.Files.deleteIfExists(file.toPath());
    }
    return outcome;
  }

  private String compareWithStock(Mutant mutant, InputFile input, List<List<Object>> frazil)
      throws Violation, InterruptedException {
    Object stock =
        bounded(stockReads, () -> ReadParity.readStock(input, mutant.schema, builder -> {}));
    if (stock instanceof TimeoutException) {
      // Iceberg's reader hangs on this mutant; its thread is left behind, a new one reads next.
      stockReads.shutdownNow();
      stockReads = Executors.newSingleThreadExecutor(daemon("stock"));
    }
    boolean original = frazil.equals(mutant.originalRows());
    if (stock instanceof List) {
      if (!frazil.equals(rows(stock))
          && mutant.uncheckedPageBytesChanged()
          && otherChangesReadAlike(mutant)) {
        // Corruption no reader can detect (no checksum covers it) may decode to different wrong
        // rows in two decoders (arrow-rs trusts a v2 header's null count, parquet-java counts the
        // levels): accepted, as long as the read ends, names no other file and returns memory.
        return "rows, changed, not Iceberg's (unchecked page bytes)";
      }
      if (!frazil.equals(rows(stock))) {
        throw new Violation(
            "rowsDiffer",
            "the native rows differ from Iceberg's for the same mutant ("
                + frazil.size()
                + " rows, Iceberg "
                + rows(stock).size()
                + "; changed bytes: "
                + mutant.changedRegions()
                + ")",
            null,
            false);
      }
      return original ? "rows, unchanged" : "rows, changed, the same as Iceberg's";
    }
    if (!original) {
      throw new Violation(
          "silent",
          "rows that are not the file's while Iceberg's reader fails: " + stock,
          (Throwable) stock,
          false);
    }
    return "rows, unchanged, Iceberg's reader fails";
  }

  /**
   * The mutant's changes outside pages (footer bytes, say), applied alone to its base, read the
   * same both ways: then only the unchecked page bytes set the two readers apart.
   */
  private boolean otherChangesReadAlike(Mutant mutant) throws InterruptedException {
    byte[] partial = mutant.withoutPageChanges();
    if (partial == null) {
      return true;
    }
    File file = DIR.resolve("partial-mutant-" + System.nanoTime() + ".parquet").toFile();
    try {
      java.nio.file.Files.write(file.toPath(), partial);
      InputFile input = Files.localInput(file);
      Object frazil =
          bounded(nativeReads, () -> ReadParity.readNative(input, mutant.schema, builder -> {}));
      Object stock =
          bounded(stockReads, () -> ReadParity.readStock(input, mutant.schema, builder -> {}));
      return frazil instanceof List && frazil.equals(stock);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      file.delete();
    }
  }

  /** Iceberg's reader throws the same exception, message and all, for the same mutant. */
  private boolean sameAsStock(Mutant mutant, InputFile input, Exception frazil)
      throws InterruptedException {
    Object stock =
        bounded(stockReads, () -> ReadParity.readStock(input, mutant.schema, builder -> {}));
    return stock instanceof Exception
        && stock.getClass() == frazil.getClass()
        && java.util.Objects.equals(((Exception) stock).getMessage(), frazil.getMessage());
  }

  @SuppressWarnings("unchecked")
  private static List<List<Object>> rows(Object result) {
    return (List<List<Object>>) result;
  }

  /** The call's value, what it threw, or a TimeoutException after {@link #TIMEOUT_SECONDS}. */
  private static Object bounded(ExecutorService executor, Callable<?> call)
      throws InterruptedException {
    Future<?> future =
        executor.submit(
            () -> {
              try {
                return call.call();
              } catch (Throwable t) {
                return t;
              }
            });
    try {
      return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      return e;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  /** One mutated copy of a base file. */
  private static final class Mutant {
    final Base base;
    final String kind;
    final String detail;
    final byte[] bytes;
    final Schema schema;
    final boolean reuse;

    private Mutant(
        Base base, String kind, String detail, byte[] bytes, Schema schema, boolean reuse) {
      this.base = base;
      this.kind = kind;
      this.detail = detail;
      this.bytes = bytes;
      this.schema = schema;
      this.reuse = reuse;
    }

    /**
     * The mutant (of the same length as its base) changed page headers or bodies of a file whose
     * pages carry no checksum.
     */
    boolean uncheckedPageBytesChanged() {
      if (base.allPagesChecksummed || bytes.length != base.bytes.length) {
        return false;
      }
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] != base.bytes[i] && inPage(i)) {
          return true;
        }
      }
      return false;
    }

    /** The base with only this mutant's changes outside pages; null if there are none. */
    byte[] withoutPageChanges() {
      byte[] partial = base.bytes.clone();
      boolean any = false;
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] != base.bytes[i] && !inPage(i)) {
          partial[i] = bytes[i];
          any = true;
        }
      }
      return any ? partial : null;
    }

    /** Where the mutant's bytes differ from its base: "footer", "page header", "page body"... */
    String changedRegions() {
      if (bytes.length != base.bytes.length) {
        return "length " + base.bytes.length + " -> " + bytes.length;
      }
      List<String> regions = new ArrayList<>();
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] != base.bytes[i]) {
          regions.add(region(i) + "@" + i);
        }
      }
      return String.join(", ", regions);
    }

    private String region(int offset) {
      if (offset >= base.footerStart && offset < base.footerEnd) {
        return "footer";
      } else if (within(base.headers, offset)) {
        return "page header";
      } else if (within(base.bodies, offset)) {
        return "page body";
      }
      return "other";
    }

    private static boolean within(List<int[]> ranges, int offset) {
      for (int[] range : ranges) {
        if (offset >= range[0] && offset < range[0] + range[1]) {
          return true;
        }
      }
      return false;
    }

    private boolean inPage(int offset) {
      return within(base.headers, offset) || within(base.bodies, offset);
    }

    List<List<Object>> originalRows() {
      if (schema == base.schema) {
        return base.rows;
      }
      try {
        File file = DIR.resolve("original-" + base.name + ".parquet").toFile();
        java.nio.file.Files.write(file.toPath(), base.bytes);
        try {
          return ReadParity.readStock(Files.localInput(file), schema, builder -> {});
        } finally {
          java.nio.file.Files.delete(file.toPath());
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    static Mutant of(long seed) {
      Random random = new Random(seed);
      Base base = BASES.get(random.nextInt(BASES.size()));
      byte[] bytes = base.bytes.clone();
      int length = bytes.length;
      String kind;
      String detail;
      switch (random.nextInt(10)) {
        case 0:
          {
            kind = "bitFlips";
            int flips = 1 + random.nextInt(8);
            for (int i = 0; i < flips; i++) {
              bytes[random.nextInt(length)] ^= (byte) (1 << random.nextInt(8));
            }
            detail = flips + " bits";
            break;
          }
        case 1:
          {
            kind = "overwrite";
            int at = random.nextInt(length);
            int n = Math.min(length - at, 1 + random.nextInt(16));
            for (int i = 0; i < n; i++) {
              bytes[at + i] = (byte) random.nextInt(256);
            }
            detail = n + " bytes at " + at;
            break;
          }
        case 2:
          {
            kind = "truncate";
            int keep =
                random.nextBoolean() ? random.nextInt(length) : length - 1 - random.nextInt(64);
            bytes = Arrays.copyOf(bytes, Math.max(0, keep));
            detail = "to " + keep + " of " + length + " bytes";
            break;
          }
        case 3:
          {
            // A range of the data cut out, the footer kept: offsets point past or into other bytes.
            kind = "cutData";
            int at = 4 + random.nextInt(Math.max(1, base.footerStart - 4));
            int n = 1 + random.nextInt(Math.max(1, Math.min(4096, base.footerStart - at)));
            byte[] cut = new byte[length - n];
            System.arraycopy(bytes, 0, cut, 0, at);
            System.arraycopy(bytes, at + n, cut, at, length - at - n);
            bytes = cut;
            detail = n + " bytes at " + at;
            break;
          }
        case 4:
          {
            kind = "zeroed";
            int at = random.nextInt(length);
            int n = Math.min(length - at, 1 + random.nextInt(random.nextBoolean() ? 64 : 4096));
            Arrays.fill(bytes, at, at + n, (byte) 0);
            detail = n + " bytes at " + at;
            break;
          }
        case 5:
          {
            kind = "footerLength";
            int footerLength = base.footerEnd - base.footerStart;
            int[] choices = {
              0,
              -1,
              length,
              length - 8,
              footerLength + 1 + random.nextInt(16),
              footerLength - 1 - random.nextInt(16),
              random.nextInt(),
              random.nextInt(length)
            };
            int value = choices[random.nextInt(choices.length)];
            ByteBuffer.wrap(bytes, length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(value);
            detail = "footer length " + value + " (was " + footerLength + ")";
            break;
          }
        case 6:
        case 7:
          {
            kind = "pageHeader";
            int[] header = base.headers.get(random.nextInt(base.headers.size()));
            int changes = 1 + random.nextInt(3);
            for (int i = 0; i < changes; i++) {
              int at = header[0] + random.nextInt(header[1]);
              if (random.nextBoolean()) {
                bytes[at] ^= (byte) (1 << random.nextInt(8));
              } else {
                bytes[at] = (byte) random.nextInt(256);
              }
            }
            detail = changes + " bytes of the header at " + header[0];
            break;
          }
        case 8:
          {
            kind = "footer";
            int flips = 1 + random.nextInt(4);
            for (int i = 0; i < flips; i++) {
              int at = base.footerStart + random.nextInt(base.footerEnd - base.footerStart);
              bytes[at] ^= (byte) (1 << random.nextInt(8));
            }
            detail = flips + " bits";
            break;
          }
        default:
          {
            kind = "pageBody";
            int[] body = base.bodies.get(random.nextInt(base.bodies.size()));
            int n = 0;
            if (body[1] > 0) {
              n = 1 + random.nextInt(Math.min(8, body[1]));
              int at = body[0] + random.nextInt(body[1] - n + 1);
              for (int i = 0; i < n; i++) {
                bytes[at + i] = (byte) random.nextInt(256);
              }
            }
            detail = n + " bytes of the page at " + body[0];
            break;
          }
      }
      Schema schema =
          random.nextInt(4) == 0 ? ReadParity.randomProjection(base.schema, random) : base.schema;
      return new Mutant(base, kind, detail, bytes, schema, random.nextBoolean());
    }

    @Override
    public String toString() {
      return String.format(
          "%s of %s: %s%s, reuseContainers=%s",
          kind, base.name, detail, schema == base.schema ? "" : ", projection " + schema, reuse);
    }
  }
}
