package io.frazil.flink;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.formats.FormatModel;
import org.apache.iceberg.formats.ModelWriteBuilder;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.InputFile;

/**
 * Iceberg's (PARQUET, RowData) format model with native data-file writing and reading: every writer
 * and reader Frazil does not take goes to the wrapped original model.
 */
final class FrazilFormatModel implements FormatModel<RowData, RowType> {
  private final FormatModel<RowData, RowType> delegate;

  @SuppressWarnings("unchecked")
  FrazilFormatModel(FormatModel<?, ?> delegate) {
    this.delegate = (FormatModel<RowData, RowType>) delegate;
  }

  FormatModel<RowData, RowType> delegate() {
    return delegate;
  }

  @Override
  public FileFormat format() {
    return delegate.format();
  }

  @Override
  public Class<? extends RowData> type() {
    return delegate.type();
  }

  @Override
  public Class<RowType> schemaType() {
    return delegate.schemaType();
  }

  @Override
  public ModelWriteBuilder<RowData, RowType> writeBuilder(EncryptedOutputFile outputFile) {
    return new FrazilWriteBuilder(outputFile, delegate.writeBuilder(outputFile));
  }

  @Override
  public ReadBuilder<RowData, RowType> readBuilder(InputFile inputFile) {
    return new FrazilReadBuilder(inputFile, delegate.readBuilder(inputFile));
  }
}
