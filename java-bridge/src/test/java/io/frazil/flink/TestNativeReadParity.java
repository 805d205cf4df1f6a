package io.frazil.flink;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.ParityHarness;
import io.frazil.jni.NativeParquetReader;
import io.frazil.jni.NativeReaderException;
import io.frazil.read.ReadCounters;
import io.frazil.testkit.ParitySchemas;
import io.frazil.testkit.RandomSchemas;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Read parity: the same file read by Iceberg's Flink Parquet reader and by Frazil's native reader
 * gives the same rows, compared field by field through Flink's getters, for files written by stock
 * Iceberg and by Frazil, with projections, metadata columns, constants, schema evolution, splits
 * and row-group filters. Every case also asserts the native reader really read the file.
 */
class TestNativeReadParity {
  @TempDir Path temp;

  @BeforeAll
  static void stockModel() {
    // The stock side is Iceberg's own model; the native side wraps a builder of it directly.
    FrazilFlink.uninstall();
  }

  @AfterEach
  void nothingLeft() {
    assertThat(NativeParquetReader.openReaders()).as("native readers left open").isZero();
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left").isZero();
  }

  static Stream<Arguments> schemas() {
    List<Arguments> cases = new ArrayList<>();
    cases.add(Arguments.of("primitives", ParitySchemas.PRIMITIVES));
    cases.add(Arguments.of("required", ParitySchemas.REQUIRED));
    cases.add(Arguments.of("nested", ParitySchemas.NESTED));
    cases.add(Arguments.of("v3", ParitySchemas.V3_TYPES));
    for (long seed = 1; seed <= 12; seed++) {
      cases.add(Arguments.of("random-" + seed, RandomSchemas.generate(seed)));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  void stockAndFrazilFilesReadTheSameRows(String name, Schema schema) throws IOException {
    List<RowData> rows = new RowDataGenerator(name.hashCode(), 0.2).rows(schema, 3_000);
    for (boolean frazilWritten : new boolean[] {false, true}) {
      File file = write(schema, rows, frazilWritten, ImmutableMap.of());
      assertSameRows(Files.localInput(file), schema, builder -> {});
      assertSameRows(Files.localInput(file), schema, builder -> builder.reuseContainers());
    }
  }

  @Test
  void projectionsAndMetadataColumnsAndConstants() throws IOException {
    Schema schema = ParitySchemas.NESTED;
    List<RowData> rows = new RowDataGenerator(7, 0.3).rows(schema, 5_000);
    File file = write(schema, rows, true, ImmutableMap.of());
    InputFile input = Files.localInput(file);
    // Two of the columns, reordered, one nested struct pruned to a single field.
    Schema twoColumns =
        new Schema(
            optional(
                3,
                "st",
                Types.StructType.of(
                    optional(
                        6,
                        "inner",
                        Types.StructType.of(optional(7, "c", Types.DecimalType.of(20, 2)))))),
            required(1, "id", Types.LongType.get()));
    assertSameRows(input, twoColumns, builder -> {});
    // Metadata columns and idToConstant values, as RowDataFileScanTaskReader passes them.
    Schema withMetadata =
        new Schema(
            required(1, "id", Types.LongType.get()),
            MetadataColumns.ROW_POSITION,
            MetadataColumns.IS_DELETED,
            MetadataColumns.FILE_PATH,
            MetadataColumns.SPEC_ID,
            optional(100, "part", Types.StringType.get()));
    Map<Integer, Object> constants =
        ImmutableMap.of(
            MetadataColumns.FILE_PATH.fieldId(),
            StringData.fromString(file.toString()),
            MetadataColumns.SPEC_ID.fieldId(),
            3,
            100,
            StringData.fromString("p-1"));
    assertSameRows(input, withMetadata, builder -> builder.idToConstant(constants));
    // Only metadata: no column of the file is decoded.
    Schema positionsOnly = new Schema(MetadataColumns.ROW_POSITION);
    assertSameRows(input, positionsOnly, builder -> {});
    // v3 row lineage inherited from the data file's first row id and sequence number.
    Schema lineage =
        new Schema(
            required(1, "id", Types.LongType.get()),
            MetadataColumns.ROW_ID,
            MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);
    Map<Integer, Object> lineageConstants =
        ImmutableMap.of(
            MetadataColumns.ROW_ID.fieldId(), 1_000L,
            MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(), 42L);
    assertSameRows(input, lineage, builder -> builder.idToConstant(lineageConstants));
  }

  @Test
  void schemaEvolution() throws IOException {
    Schema written =
        new Schema(
            required(1, "id", Types.IntegerType.get()),
            optional(2, "f", Types.FloatType.get()),
            optional(3, "dec", Types.DecimalType.of(9, 2)),
            optional(4, "name", Types.StringType.get()));
    List<RowData> rows = new RowDataGenerator(11, 0.2).rows(written, 4_000);
    InputFile input = Files.localInput(write(written, rows, true, ImmutableMap.of()));
    Schema evolved =
        new Schema(
            optional(4, "renamed", Types.StringType.get()),
            required(1, "id", Types.LongType.get()),
            optional(2, "f", Types.DoubleType.get()),
            optional(3, "dec", Types.DecimalType.of(20, 2)),
            optional(5, "added", Types.StringType.get()),
            Types.NestedField.optional("with_default")
                .withId(6)
                .ofType(Types.IntegerType.get())
                .withInitialDefault(org.apache.iceberg.expressions.Literal.of(17))
                .build());
    assertSameRows(input, evolved, builder -> {});
    Schema missingRequired = new Schema(required(9, "gone", Types.IntegerType.get()));
    assertThatThrownBy(() -> readNative(input, missingRequired, builder -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Missing required field: gone");
  }

  @Test
  void splitsAndRowGroupFilters() throws IOException {
    Schema schema =
        new Schema(
            required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));
    List<RowData> rows = new ArrayList<>();
    for (long i = 0; i < 20_000; i++) {
      rows.add(
          org.apache.flink.table.data.GenericRowData.of(i, StringData.fromString("v" + (i % 97))));
    }
    Map<String, String> small = ImmutableMap.of("write.parquet.row-group-size-bytes", "16384");
    File file = temp.resolve("row-groups.parquet").toFile();
    List<Long> offsets =
        ParityHarness.writeStock(file, schema, rows, small, MetricsConfig.getDefault())
            .splitOffsets;
    InputFile input = Files.localInput(file);
    assertThat(offsets).as("row groups").hasSizeGreaterThan(3);
    for (int i = 0; i < offsets.size(); i++) {
      long start = offsets.get(i);
      long end = i + 1 < offsets.size() ? offsets.get(i + 1) : file.length();
      assertSameRows(
          input,
          new Schema(schema.columns().get(0), MetadataColumns.ROW_POSITION),
          builder -> builder.split(start, end - start));
    }
    long before = ReadCounters.nativeRowGroups();
    assertSameRows(input, schema, builder -> builder.filter(Expressions.lessThan("id", 3_000L)));
    assertThat(ReadCounters.nativeRowGroups() - before)
        .as("row groups decoded under the filter")
        .isLessThan(offsets.size());
  }

  @Test
  void filterColumnNamesFollowCaseSensitivityAsInIceberg() throws IOException {
    Schema schema =
        new Schema(
            required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));
    List<RowData> rows = new ArrayList<>();
    for (long i = 0; i < 1_000; i++) {
      rows.add(org.apache.flink.table.data.GenericRowData.of(i, StringData.fromString("v" + i)));
    }
    InputFile input = Files.localInput(write(schema, rows, true, ImmutableMap.of()));
    assertSameRows(
        input,
        schema,
        builder -> builder.filter(Expressions.lessThan("ID", 10L)).caseSensitive(false));
    // Case-sensitive, "ID" names no column: the same exception type and message as Iceberg's.
    Consumer<ReadBuilder<RowData, RowType>> sensitive =
        builder -> builder.filter(Expressions.lessThan("ID", 10L)).caseSensitive(true);
    assertThatThrownBy(() -> read(stockBuilder(input), schema, sensitive))
        .isInstanceOf(org.apache.iceberg.exceptions.ValidationException.class)
        .hasMessageContaining("Cannot find field 'ID'");
    assertThatThrownBy(() -> readNative(input, schema, sensitive))
        .isInstanceOf(org.apache.iceberg.exceptions.ValidationException.class)
        .hasMessageContaining("Cannot find field 'ID'");
  }

  @Test
  void corruptAndTruncatedFilesFailWithTheFileNamedAndNothingLeft() throws IOException {
    Schema schema = ParitySchemas.PRIMITIVES;
    List<RowData> rows = new RowDataGenerator(3, 0.1).rows(schema, 2_000);
    File file = write(schema, rows, true, ImmutableMap.of());
    File truncated = temp.resolve("truncated.parquet").toFile();
    java.nio.file.Files.write(
        truncated.toPath(),
        java.util.Arrays.copyOf(
            java.nio.file.Files.readAllBytes(file.toPath()), (int) file.length() / 2));
    assertThatThrownBy(() -> readNative(Files.localInput(truncated), schema, builder -> {}))
        .hasMessageContaining(truncated.toString());
    // Garbage in the first column chunk: the decoder fails, the reader names the file.
    File corrupt = temp.resolve("corrupt.parquet").toFile();
    java.nio.file.Files.copy(file.toPath(), corrupt.toPath());
    try (RandomAccessFile raf = new RandomAccessFile(corrupt, "rw")) {
      raf.seek(4);
      raf.write(new byte[64]);
    }
    assertThatThrownBy(() -> readNative(Files.localInput(corrupt), schema, builder -> {}))
        .isInstanceOf(NativeReaderException.class)
        .hasMessageContaining(corrupt.toString());
  }

  @Test
  void theReadSwitchSendsFilesToIcebergsReader() throws IOException {
    Schema schema = ParitySchemas.REQUIRED;
    List<RowData> rows = new RowDataGenerator(5, 0).rows(schema, 500);
    InputFile input = Files.localInput(write(schema, rows, true, ImmutableMap.of()));
    List<List<Object>> stock = read(stockBuilder(input), schema, builder -> {});
    long nativeFiles = ReadCounters.nativeFiles();
    long disabled = ReadCounters.stockFiles("disabled");
    System.setProperty(FrazilReadBuilder.READ_SWITCH, "false");
    try {
      assertThat(readNative(input, schema, builder -> {})).isEqualTo(stock);
    } finally {
      System.clearProperty(FrazilReadBuilder.READ_SWITCH);
    }
    assertThat(ReadCounters.nativeFiles()).isEqualTo(nativeFiles);
    assertThat(ReadCounters.stockFiles("disabled")).isEqualTo(disabled + 1);
  }

  @Test
  void aColumnReadDifferentlyByIcebergGoesToIcebergsReader() throws IOException {
    // INT96 timestamps (Spark/Hive files): Iceberg's Flink reader refuses them; so must we.
    org.apache.parquet.schema.MessageType int96 =
        org.apache.parquet.schema.MessageTypeParser.parseMessageType(
            "message m { required int64 id = 1; optional int96 ts = 2; }");
    File file = temp.resolve("int96.parquet").toFile();
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
    org.apache.parquet.hadoop.example.GroupWriteSupport.setSchema(int96, conf);
    try (org.apache.parquet.hadoop.ParquetWriter<org.apache.parquet.example.data.Group> writer =
        org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(
                new org.apache.hadoop.fs.Path(file.toURI()))
            .withConf(conf)
            .withType(int96)
            .build()) {
      org.apache.parquet.example.data.simple.SimpleGroupFactory groups =
          new org.apache.parquet.example.data.simple.SimpleGroupFactory(int96);
      for (long i = 0; i < 10; i++) {
        writer.write(
            groups
                .newGroup()
                .append("id", i)
                .append(
                    "ts", org.apache.parquet.io.api.Binary.fromConstantByteArray(new byte[12])));
      }
    }
    Schema schema =
        new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "ts", Types.TimestampType.withoutZone()));
    InputFile input = Files.localInput(file);
    assertThatThrownBy(() -> read(stockBuilder(input), schema, builder -> {}))
        .isInstanceOf(UnsupportedOperationException.class);
    long fallbacks = ReadCounters.stockFiles("columnType");
    assertThatThrownBy(() -> readNative(input, schema, builder -> {}))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(ReadCounters.stockFiles("columnType")).isEqualTo(fallbacks + 1);
    // The id column alone is read natively, and agrees.
    assertSameRows(input, new Schema(schema.columns().get(0)), builder -> {});
  }

  private File write(Schema schema, List<RowData> rows, boolean frazil, Map<String, String> props)
      throws IOException {
    File file =
        temp.resolve((frazil ? "frazil-" : "stock-") + System.nanoTime() + ".parquet").toFile();
    if (frazil) {
      ParityHarness.writeFrazil(file, schema, rows, props, MetricsConfig.getDefault());
    } else {
      ParityHarness.writeStock(file, schema, rows, props, MetricsConfig.getDefault());
    }
    return file;
  }

  private static ReadBuilder<RowData, RowType> stockBuilder(InputFile input) {
    return ReadParity.stockBuilder(input);
  }

  private static List<List<Object>> read(
      ReadBuilder<RowData, RowType> builder,
      Schema projection,
      Consumer<ReadBuilder<RowData, RowType>> settings)
      throws IOException {
    builder.project(projection);
    settings.accept(builder);
    return ReadParity.rows(builder, projection);
  }

  private static List<List<Object>> readNative(
      InputFile input, Schema projection, Consumer<ReadBuilder<RowData, RowType>> settings)
      throws IOException {
    return ReadParity.readNative(input, projection, settings);
  }

  private static void assertSameRows(
      InputFile input, Schema projection, Consumer<ReadBuilder<RowData, RowType>> settings)
      throws IOException {
    ReadParity.assertSameRows(input, projection, settings);
  }
}
