package io.frazil.iceberg;

import java.io.File;
import java.io.IOException;
import org.apache.iceberg.Files;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/** A file whose stream opens but fails every write with "disk full". */
final class FailingOutputFile implements OutputFile {
  private final File file;

  FailingOutputFile(File file) {
    this.file = file;
  }

  @Override
  public PositionOutputStream create() {
    return createOrOverwrite();
  }

  @Override
  public PositionOutputStream createOrOverwrite() {
    return new PositionOutputStream() {
      @Override
      public long getPos() {
        return 0;
      }

      @Override
      public void write(int b) throws IOException {
        throw new IOException("disk full");
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        throw new IOException("disk full");
      }
    };
  }

  @Override
  public String location() {
    return file.getAbsolutePath();
  }

  @Override
  public InputFile toInputFile() {
    return Files.localInput(file);
  }
}
