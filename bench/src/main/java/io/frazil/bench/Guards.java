package io.frazil.bench;

import io.frazil.jni.NativeLoader;
import io.frazil.testkit.LoadedLibrary;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.parquet.Parquet;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Checks that make a run fail instead of reporting numbers about the wrong thing. */
final class Guards {
  private static final Configuration HADOOP = new Configuration();

  private Guards() {}

  /** Thrown when a guard fails; the bench exits non-zero. */
  static final class GuardException extends RuntimeException {
    GuardException(String message) {
      super(message);
    }
  }

  static void check(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new GuardException(String.format(format, args));
    }
  }

  /** The footer facts every iteration is checked against. */
  static final class Footer {
    final String createdBy;
    final long rows;
    final int rowGroups;

    Footer(String createdBy, long rows, int rowGroups) {
      this.createdBy = createdBy;
      this.rows = rows;
      this.rowGroups = rowGroups;
    }
  }

  static Footer footer(File file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.getAbsolutePath()), HADOOP))) {
      ParquetMetadata metadata = reader.getFooter();
      long rows = 0;
      for (BlockMetaData block : metadata.getBlocks()) {
        rows += block.getRowCount();
      }
      return new Footer(
          metadata.getFileMetaData().getCreatedBy(), rows, metadata.getBlocks().size());
    }
  }

  /** Reads both files with Iceberg's generic reader and compares them record by record. */
  static long sameContent(File stock, File frazil, Schema schema) throws IOException {
    try (CloseableIterable<Record> left = read(stock, schema);
        CloseableIterable<Record> right = read(frazil, schema);
        CloseableIterator<Record> l = left.iterator();
        CloseableIterator<Record> r = right.iterator()) {
      long row = 0;
      while (l.hasNext()) {
        check(r.hasNext(), "Frazil file ends at row %d, stock file goes on", row);
        Record a = l.next();
        Record b = r.next();
        check(a.equals(b), "Row %d differs:%n  stock  %s%n  frazil %s", row, a, b);
        row++;
      }
      check(!r.hasNext(), "Frazil file has more rows than the stock file (%d)", row);
      return row;
    }
  }

  private static CloseableIterable<Record> read(File file, Schema schema) {
    return Parquet.read(org.apache.iceberg.Files.localInput(file))
        .project(schema)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
        .build();
  }

  /**
   * Fails unless parquet-java's and Iceberg's write-path loggers are quiet: DEBUG/INFO logging
   * there makes the stock arm look many times slower (anchors section 7, pitfall 1).
   */
  static void loggingIsQuiet() {
    for (String name :
        List.of(
            "org.apache.parquet.hadoop.InternalParquetRecordWriter",
            "org.apache.parquet.hadoop.ParquetFileWriter",
            "org.apache.parquet.hadoop.CodecFactory",
            "org.apache.iceberg.parquet.ParquetWriter",
            "io.frazil")) {
      Logger logger = LoggerFactory.getLogger(name);
      check(
          !logger.isInfoEnabled(),
          "Logger %s is enabled at INFO or below (%s); the bench needs WARN"
              + " (bench/src/main/resources/log4j2.properties)",
          name,
          logger.getClass().getName());
    }
  }

  /**
   * The native library this JVM mapped, with its SHA-256, and whether it is byte-identical to the
   * release build ({@code -Dbench.releaseLibrary}); a difference also goes into {@code notes}.
   */
  static String describeNativeLibrary(List<String> notes) {
    LoadedLibrary loaded = LoadedLibrary.find(NativeLoader.bundledResource());
    StringBuilder text = new StringBuilder();
    text.append(loaded.where).append(" (sha256 ").append(loaded.sha256).append(")");
    String release = System.getProperty("bench.releaseLibrary");
    if (release != null && Files.isRegularFile(Paths.get(release))) {
      boolean same = loaded.sha256.equals(LoadedLibrary.sha256(Paths.get(release)));
      text.append(same ? ", identical to " : ", DIFFERENT from ").append(release);
      if (!same) {
        notes.add(
            "WARNING: the loaded native library differs from "
                + release
                + " (stale jar, or the release build changed during the run).");
      }
    }
    return text.toString();
  }

  /**
   * After a full GC, "heap in use X MB of Y MB": what the pre-built rows ({@code what}) take. Adds
   * a warning to {@code notes} above 30% of the heap, where GC pressure from the fixture inflates
   * the allocation-heavy arm.
   */
  static String fixtureHeap(String what, List<String> notes) {
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    long inUse = (runtime.totalMemory() - runtime.freeMemory()) >> 20;
    long max = runtime.maxMemory() >> 20;
    if (inUse > max * 0.3) {
      notes.add(
          String.format(
              Locale.ROOT,
              "WARNING: %s occupy %,d MB of a %,d MB heap (> 30%%); GC pressure from the fixture"
                  + " inflates the allocation-heavy arm. Raise -Dbench.heap.",
              what,
              inUse,
              max));
    }
    return String.format(Locale.ROOT, "heap in use %,d MB of %,d MB", inUse, max);
  }
}
