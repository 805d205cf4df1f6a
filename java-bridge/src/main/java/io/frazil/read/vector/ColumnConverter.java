package io.frazil.read.vector;

import org.apache.arrow.vector.FieldVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/**
 * Copies one decoded Arrow column into a Flink column vector of the table's type. Built once per
 * file from the file's Arrow field and the expected Iceberg type ({@link ColumnConverters}), then
 * applied to every batch.
 */
public interface ColumnConverter {
  ColumnVector convert(FieldVector vector);
}
