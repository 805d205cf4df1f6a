package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.read.ReadCounters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * One file read by Iceberg's Flink Parquet reader and by Frazil's native reader ({@link
 * FrazilReadBuilder}), rows compared field by field ({@link FlinkValues#row}); for tests outside
 * this package (the randomized parity cases). The stock side is Iceberg's own builder whether or
 * not Frazil is installed in the registry.
 */
public final class ReadParity {
  private ReadParity() {}

  /** Iceberg's own Flink Parquet read builder for {@code input}. */
  static ReadBuilder<RowData, RowType> stockBuilder(InputFile input) {
    ReadBuilder<RowData, RowType> builder =
        FormatModelRegistry.readBuilder(FileFormat.PARQUET, RowData.class, input);
    return builder instanceof FrazilReadBuilder
        ? ((FrazilReadBuilder) builder).delegate()
        : builder;
  }

  /** Rows of {@code input} read by Iceberg's reader, as {@link FlinkValues#row} values. */
  public static List<List<Object>> readStock(
      InputFile input, Schema projection, Consumer<ReadBuilder<RowData, RowType>> settings)
      throws IOException {
    return read(stockBuilder(input), projection, settings);
  }

  /** Rows of {@code input} read through {@link FrazilReadBuilder}. */
  public static List<List<Object>> readNative(
      InputFile input, Schema projection, Consumer<ReadBuilder<RowData, RowType>> settings)
      throws IOException {
    return read(new FrazilReadBuilder(input, stockBuilder(input)), projection, settings);
  }

  private static List<List<Object>> read(
      ReadBuilder<RowData, RowType> builder,
      Schema projection,
      Consumer<ReadBuilder<RowData, RowType>> settings)
      throws IOException {
    builder.project(projection);
    settings.accept(builder);
    return rows(builder, projection);
  }

  /** Every row {@code builder} (already projected to {@code projection}) reads. */
  static List<List<Object>> rows(ReadBuilder<RowData, RowType> builder, Schema projection)
      throws IOException {
    RowType type = FlinkSchemaUtil.convert(projection);
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<RowData> iterable = builder.build()) {
      for (RowData row : iterable) {
        rows.add(FlinkValues.row(row, type));
      }
    }
    return rows;
  }

  /**
   * Reads {@code input} both ways with the same {@code settings} (applied after the projection) and
   * asserts the same rows, and that Frazil read it natively (not through a fallback to Iceberg's
   * reader).
   */
  public static void assertSameRows(
      InputFile input, Schema projection, Consumer<ReadBuilder<RowData, RowType>> settings)
      throws IOException {
    List<List<Object>> stock = readStock(input, projection, settings);
    long nativeFiles = ReadCounters.nativeFiles();
    List<List<Object>> frazil = readNative(input, projection, settings);
    assertThat(ReadCounters.nativeFiles() - nativeFiles)
        .as("%s read natively (fallbacks: %s)", input.location(), ReadCounters.stockFiles())
        .isEqualTo(1);
    assertThat(frazil).as("rows of %s", input.location()).hasSameSizeAs(stock);
    for (int i = 0; i < stock.size(); i++) {
      assertThat(frazil.get(i)).as("row %s of %s", i, input.location()).isEqualTo(stock.get(i));
    }
  }

  /** {@link #assertSameRows(InputFile, Schema, Consumer)}, with or without reused containers. */
  public static void assertSameRows(InputFile input, Schema projection, boolean reuse)
      throws IOException {
    assertSameRows(input, projection, reuse(reuse));
  }

  /** Settings that ask for reused containers, or nothing. */
  public static Consumer<ReadBuilder<RowData, RowType>> reuse(boolean reuse) {
    return builder -> {
      if (reuse) {
        builder.reuseContainers();
      }
    };
  }

  /**
   * A random projection of {@code schema} by field id: each field is dropped, kept whole or, when
   * nested, pruned to a random subset of its nested fields (struct fields, a list's element struct,
   * a map's value struct; map keys are kept whole); sometimes with {@code _pos}. Fields keep their
   * ids, order and types, so Iceberg prunes the file exactly as for a table scan.
   */
  public static Schema randomProjection(Schema schema, Random random) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      Types.NestedField kept = project(field, random);
      if (kept != null) {
        fields.add(kept);
      }
    }
    if (random.nextInt(4) == 0) {
      fields.add(random.nextInt(fields.size() + 1), MetadataColumns.ROW_POSITION);
    }
    return new Schema(fields);
  }

  private static Types.NestedField project(Types.NestedField field, Random random) {
    int draw = random.nextInt(10);
    if (draw < 3) {
      return null;
    }
    if (draw < 6 || !field.type().isNestedType()) {
      return field;
    }
    Type pruned = prune(field.type(), random);
    return pruned == null ? null : Types.NestedField.from(field).ofType(pruned).build();
  }

  /** {@code type} with a random subset of its nested fields; null when none is kept. */
  private static Type prune(Type type, Random random) {
    switch (type.typeId()) {
      case STRUCT:
        List<Types.NestedField> kept = new ArrayList<>();
        for (Types.NestedField field : type.asStructType().fields()) {
          Types.NestedField projected = project(field, random);
          if (projected != null) {
            kept.add(projected);
          }
        }
        return kept.isEmpty() ? null : Types.StructType.of(kept);
      case LIST:
        Types.ListType list = type.asListType();
        if (!list.elementType().isStructType()) {
          return list;
        }
        Type element = prune(list.elementType(), random);
        if (element == null) {
          return null;
        }
        return list.isElementOptional()
            ? Types.ListType.ofOptional(list.elementId(), element)
            : Types.ListType.ofRequired(list.elementId(), element);
      case MAP:
        Types.MapType map = type.asMapType();
        if (!map.valueType().isStructType()) {
          return map;
        }
        Type value = prune(map.valueType(), random);
        if (value == null) {
          return null;
        }
        return map.isValueOptional()
            ? Types.MapType.ofOptional(map.keyId(), map.valueId(), map.keyType(), value)
            : Types.MapType.ofRequired(map.keyId(), map.valueId(), map.keyType(), value);
      default:
        return type;
    }
  }
}
