package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeParquetReader;
import io.frazil.read.ReadCounters;
import io.frazil.testkit.ParitySchemas;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetWriterWithProperties;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.deltalengthbytearray.DeltaLengthByteArrayValuesWriter;
import org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files Frazil did not write, read natively with the same rows as Iceberg's Flink reader: Iceberg's
 * own Parquet writer driven with parquet-java's properties directly ({@link
 * ParquetWriterWithProperties}), in v1 and v2 data pages, with PLAIN, dictionary, RLE (booleans),
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT values, the
 * codecs parquet-java can write here (uncompressed, snappy, gzip, zstd, lz4_raw, Hadoop's lz4),
 * with and without statistics and page indexes, bloom filters, many pages and row groups. Each case
 * also checks its file really holds the encoding and codec it names (a matrix of PLAIN files would
 * prove nothing). Brotli has no Java codec on this classpath; the Rust test {@code
 * foreign_encodings} reads arrow-rs's brotli files. Two kinds of file go to Iceberg's reader, with
 * their reason: a codec the native library lacks (LZO, {@code codec}), and parquet-java's v2 pages
 * of a column without statistics ({@code v2PagesWithoutNullCounts}: their headers carry a null
 * count of -1, which arrow-rs refuses).
 */
class TestForeignParquetReadParity {
  private static final int ROWS = 4_000;

  @TempDir Path temp;

  @BeforeAll
  static void stockModel() {
    FrazilFlink.uninstall();
  }

  @AfterEach
  void nothingLeft() {
    assertThat(NativeParquetReader.openReaders()).as("native readers left open").isZero();
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left").isZero();
  }

  /** One way of writing: parquet-java properties, a codec, and what the file must then hold. */
  record Writing(
      String name,
      UnaryOperator<ParquetProperties.Builder> properties,
      CompressionCodecName codec,
      Set<Encoding> expected,
      String fallback) {
    Writing(
        String name,
        UnaryOperator<ParquetProperties.Builder> properties,
        CompressionCodecName codec,
        Set<Encoding> expected) {
      this(name, properties, codec, expected, null);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> writings() {
    List<Writing> writings = new ArrayList<>();
    for (CompressionCodecName codec :
        List.of(
            CompressionCodecName.UNCOMPRESSED,
            CompressionCodecName.SNAPPY,
            CompressionCodecName.GZIP,
            CompressionCodecName.ZSTD,
            CompressionCodecName.LZ4_RAW,
            CompressionCodecName.LZ4)) {
      writings.add(
          new Writing(
              "v1 dictionary " + codec, b -> b, codec, EnumSet.of(Encoding.PLAIN_DICTIONARY)));
    }
    writings.add(
        new Writing(
            "v1 plain",
            b -> b.withDictionaryEncoding(false),
            CompressionCodecName.SNAPPY,
            EnumSet.of(Encoding.PLAIN)));
    writings.add(
        new Writing(
            "v2 dictionary",
            b -> b.withWriterVersion(WriterVersion.PARQUET_2_0),
            CompressionCodecName.ZSTD,
            EnumSet.of(Encoding.RLE_DICTIONARY)));
    writings.add(
        new Writing(
            "v2 delta",
            b -> b.withWriterVersion(WriterVersion.PARQUET_2_0).withDictionaryEncoding(false),
            CompressionCodecName.SNAPPY,
            EnumSet.of(Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_BYTE_ARRAY)));
    writings.add(
        new Writing(
            "v2 delta-length byte arrays",
            b ->
                b.withWriterVersion(WriterVersion.PARQUET_2_0)
                    .withDictionaryEncoding(false)
                    .withValuesWriterFactory(new DeltaLengthByteArrays()),
            CompressionCodecName.UNCOMPRESSED,
            EnumSet.of(Encoding.DELTA_LENGTH_BYTE_ARRAY, Encoding.DELTA_BINARY_PACKED)));
    for (WriterVersion version : WriterVersion.values()) {
      writings.add(
          new Writing(
              version + " byte-stream split",
              b ->
                  b.withWriterVersion(version)
                      .withDictionaryEncoding(false)
                      .withByteStreamSplitEncoding(true)
                      .withExtendedByteStreamSplitEncoding(true),
              CompressionCodecName.GZIP,
              EnumSet.of(Encoding.BYTE_STREAM_SPLIT)));
    }
    writings.add(
        new Writing(
            "v1 no statistics, no page index",
            b -> b.withStatisticsEnabled(false).withSizeStatisticsEnabled(false),
            CompressionCodecName.SNAPPY,
            EnumSet.of(Encoding.PLAIN_DICTIONARY)));
    writings.add(
        new Writing(
            "v2 bloom filters",
            b -> b.withWriterVersion(WriterVersion.PARQUET_2_0).withBloomFilterEnabled(true),
            CompressionCodecName.ZSTD,
            EnumSet.of(Encoding.RLE_DICTIONARY)));
    // parquet-java writes num_nulls = -1 into these v2 page headers, which arrow-rs refuses.
    writings.add(
        new Writing(
            "v2 no statistics, no page index",
            b -> b.withWriterVersion(WriterVersion.PARQUET_2_0).withStatisticsEnabled(false),
            CompressionCodecName.ZSTD,
            EnumSet.of(Encoding.RLE_DICTIONARY),
            "v2PagesWithoutNullCounts"));
    List<Arguments> cases = new ArrayList<>();
    for (Writing writing : writings) {
      cases.add(Arguments.of(writing, "primitives", ParitySchemas.PRIMITIVES));
      cases.add(Arguments.of(writing, "nested", ParitySchemas.NESTED));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("writings")
  void filesOfOtherWritersReadTheSameRows(Writing writing, String schemaName, Schema schema)
      throws IOException {
    File file = write(writing, schema, schemaName.hashCode());
    assertFileHolds(file, writing);
    InputFile input = Files.localInput(file);
    if (writing.fallback() == null) {
      ReadParity.assertSameRows(input, schema, false);
      ReadParity.assertSameRows(input, schema, true);
    } else {
      long fallbacks = ReadCounters.stockFiles(writing.fallback());
      long nativeFiles = ReadCounters.nativeFiles();
      assertThat(ReadParity.readNative(input, schema, builder -> {}))
          .isEqualTo(ReadParity.readStock(input, schema, builder -> {}));
      assertThat(ReadCounters.stockFiles(writing.fallback())).isEqualTo(fallbacks + 1);
      assertThat(ReadCounters.nativeFiles()).isEqualTo(nativeFiles);
    }
  }

  @Test
  void aCodecTheLibraryLacksGoesToIcebergsReaderWithTheReasonCodec() throws IOException {
    Schema schema = ParitySchemas.PRIMITIVES;
    Writing uncompressed =
        new Writing(
            "uncompressed",
            b -> b,
            CompressionCodecName.UNCOMPRESSED,
            EnumSet.of(Encoding.PLAIN_DICTIONARY));
    File file = withFooterCodec(write(uncompressed, schema, 7), CompressionCodec.LZO);
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file.toPath()))) {
      assertThat(reader.getRowGroups().get(0).getColumns().get(0).getCodec())
          .isEqualTo(CompressionCodecName.LZO);
    }
    InputFile input = Files.localInput(file);
    // Iceberg's reader has no LZO codec here either: the fallback must fail exactly as it does,
    // rather than decode the pages some other way.
    Throwable stock = catchThrowable(() -> ReadParity.readStock(input, schema, builder -> {}));
    assertThat(stock).as("Iceberg's reader refuses LZO without its codec").isNotNull();
    long fallbacks = ReadCounters.stockFiles("codec");
    long nativeFiles = ReadCounters.nativeFiles();
    assertThatThrownBy(() -> ReadParity.readNative(input, schema, builder -> {}))
        .isInstanceOf(stock.getClass())
        .hasMessage(stock.getMessage());
    assertThat(ReadCounters.stockFiles("codec")).isEqualTo(fallbacks + 1);
    assertThat(ReadCounters.nativeFiles()).isEqualTo(nativeFiles);
  }

  private File write(Writing writing, Schema schema, long seed) throws IOException {
    List<RowData> rows = new RowDataGenerator(seed, 0.15, true).rows(schema, ROWS);
    File file =
        temp.resolve(writing.name().replaceAll("\\W+", "-") + "-" + seed + ".parquet").toFile();
    ParquetProperties properties =
        writing
            .properties()
            .apply(ParquetProperties.builder().withPageRowCountLimit(500).withPageSize(16 * 1024))
            .build();
    ParquetWriterWithProperties.write(
        Files.localOutput(file), schema, rows, properties, writing.codec(), 96 * 1024);
    return file;
  }

  /**
   * The file has several row groups, every chunk in the case's codec, and each expected encoding.
   */
  private static void assertFileHolds(File file, Writing writing) throws IOException {
    Set<Encoding> seen = EnumSet.noneOf(Encoding.class);
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file.toPath()))) {
      assertThat(reader.getRowGroups()).as("row groups of %s", writing).hasSizeGreaterThan(1);
      for (BlockMetaData rowGroup : reader.getRowGroups()) {
        for (ColumnChunkMetaData column : rowGroup.getColumns()) {
          assertThat(column.getCodec())
              .as("codec of %s", column.getPath())
              .isEqualTo(writing.codec());
          seen.addAll(column.getEncodings());
          if (writing.name().contains("no page index")) {
            assertThat(column.getColumnIndexReference()).as("column index").isNull();
            assertThat(column.getStatistics().isEmpty()).as("statistics are empty").isTrue();
          } else {
            assertThat(column.getOffsetIndexReference()).as("offset index").isNotNull();
          }
        }
      }
    }
    assertThat(seen).as("encodings of %s", writing).containsAll(writing.expected());
  }

  /**
   * {@code file} with every column chunk's codec in its footer set to {@code codec} (the pages stay
   * as they were): a file in a codec no writer here can produce.
   */
  private static File withFooterCodec(File file, CompressionCodec codec) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
      long length = raf.length();
      byte[] tail = new byte[8];
      raf.seek(length - 8);
      raf.readFully(tail);
      int footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      long footerStart = length - 8 - footerLength;
      byte[] footer = new byte[footerLength];
      raf.seek(footerStart);
      raf.readFully(footer);
      FileMetaData metadata = Util.readFileMetaData(new java.io.ByteArrayInputStream(footer));
      for (RowGroup rowGroup : metadata.getRow_groups()) {
        for (ColumnChunk chunk : rowGroup.getColumns()) {
          chunk.getMeta_data().setCodec(codec);
        }
      }
      java.io.ByteArrayOutputStream rewritten = new java.io.ByteArrayOutputStream();
      Util.writeFileMetaData(metadata, rewritten);
      raf.setLength(footerStart);
      raf.seek(footerStart);
      raf.write(rewritten.toByteArray());
      ByteBuffer newTail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      newTail.putInt(rewritten.size()).put(new byte[] {'P', 'A', 'R', '1'});
      raf.write(newTail.array());
    }
    return file;
  }

  /**
   * parquet-java's default values writers, except that byte arrays are DELTA_LENGTH_BYTE_ARRAY
   * (which parquet-java never picks on its own).
   */
  static final class DeltaLengthByteArrays implements ValuesWriterFactory {
    private final DefaultValuesWriterFactory defaults = new DefaultValuesWriterFactory();
    private ParquetProperties properties;

    @Override
    public void initialize(ParquetProperties newProperties) {
      this.properties = newProperties;
      defaults.initialize(newProperties);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor descriptor) {
      if (descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY) {
        return new DeltaLengthByteArrayValuesWriter(
            properties.getInitialSlabSize(),
            properties.getPageSizeThreshold(),
            properties.getAllocator());
      }
      return defaults.newValuesWriter(descriptor);
    }
  }
}
