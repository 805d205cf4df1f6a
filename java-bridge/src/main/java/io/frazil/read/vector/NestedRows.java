package io.frazil.read.vector;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/** The converter of a struct column: each field from its file child, or a fixed vector. */
public final class NestedRows {
  private NestedRows() {}

  /**
   * @param ordinals the file child of each expected field (used where {@code converters[i]} is set)
   * @param fixed the vector of each field the file does not provide (constant, default, null)
   */
  public static ColumnConverter converter(
      int[] ordinals, ColumnConverter[] converters, ColumnVector[] fixed) {
    return vector -> {
      StructVector struct = (StructVector) vector;
      ColumnVector[] fields = new ColumnVector[ordinals.length];
      for (int i = 0; i < fields.length; i++) {
        fields[i] =
            converters[i] != null
                ? converters[i].convert((FieldVector) struct.getChildByOrdinal(ordinals[i]))
                : fixed[i];
      }
      return new NestedVectors.Rows(ArrowBuffers.validity(struct), fields);
    };
  }
}
