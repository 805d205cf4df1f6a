package io.frazil.flink.routing;

import io.frazil.reflect.HiddenField;
import io.frazil.reflect.PrivateMembers;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.flink.FlinkRowData;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;

/**
 * Iceberg's {@link RowDataWrapper} with the plain field getters built once instead of on every
 * call.
 *
 * <p>For a position whose Flink type needs no conversion (boolean, int, bigint, float, double,
 * date, …), Iceberg 1.11's {@code RowDataWrapper.get} calls {@code FlinkRowData.createFieldGetter}
 * each time, which allocates two lambdas. A partitioned fan-out writer reads every row's partition
 * source columns through it, so identity partitioning on an int column costs the task thread about
 * 40 bytes of garbage a row: with Frazil's encoder off the heap, that is nearly all the heap the
 * writing thread allocates, and in a short run it lands on heap pages nothing had touched yet.
 *
 * <p>Here those positions keep the getter Iceberg's own factory returns for them, built once; a
 * getter depends only on the type and the position, so the values are Iceberg's. Positions with a
 * converting getter (strings, binaries, decimals, times, timestamps, tinyint, smallint, rows) go to
 * Iceberg's code unchanged.
 */
final class CachedGetterRowDataWrapper extends RowDataWrapper {
  private final RowData.FieldGetter[] plainGetters;
  private RowData row;

  private CachedGetterRowDataWrapper(
      RowType rowType, Types.StructType struct, RowData.FieldGetter[] plainGetters) {
    super(rowType, struct);
    this.plainGetters = plainGetters;
  }

  /**
   * A wrapper for rows of {@code rowType} read as {@code struct}; throws if this Iceberg's
   * RowDataWrapper does not keep its getters where Frazil expects them.
   */
  static CachedGetterRowDataWrapper create(RowType rowType, Types.StructType struct)
      throws ReflectiveOperationException {
    return create(rowType, struct, PrivateMembers.ROW_DATA_WRAPPER_GETTERS);
  }

  /**
   * As {@link #create(RowType, Types.StructType)}, reading Iceberg's getters from {@code field}.
   */
  static CachedGetterRowDataWrapper create(
      RowType rowType, Types.StructType struct, HiddenField gettersField)
      throws ReflectiveOperationException {
    // Iceberg's own instance says which positions it converts.
    Object[] icebergGetters = gettersField.get(new RowDataWrapper(rowType, struct));
    List<LogicalType> types = rowType.getChildren();
    if (icebergGetters == null || icebergGetters.length != types.size()) {
      throw new NoSuchFieldException(
          "RowDataWrapper.getters does not hold one getter slot per field of " + rowType);
    }
    RowData.FieldGetter[] plain = new RowData.FieldGetter[types.size()];
    for (int pos = 0; pos < plain.length; pos += 1) {
      if (icebergGetters[pos] == null) {
        plain[pos] = FlinkRowData.createFieldGetter(types.get(pos), pos);
      }
    }
    return new CachedGetterRowDataWrapper(rowType, struct, plain);
  }

  /** True when position {@code pos} reads through a getter built once (tests). */
  boolean cachesGetter(int pos) {
    return plainGetters[pos] != null;
  }

  @Override
  public RowDataWrapper wrap(RowData data) {
    super.wrap(data);
    this.row = data;
    return this;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    RowData.FieldGetter getter = plainGetters[pos];
    if (getter == null) {
      return super.get(pos, javaClass);
    }
    // The same steps as Iceberg's get for these positions, minus building the getter.
    if (row.isNullAt(pos)) {
      return null;
    }
    return javaClass.cast(getter.getFieldOrNull(row));
  }
}
