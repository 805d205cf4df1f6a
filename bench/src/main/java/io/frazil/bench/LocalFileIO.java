package io.frazil.bench;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import org.apache.iceberg.Files;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * A {@link FileIO} over plain local files, for benchmark tables whose data files should cost what
 * an object store's do: nothing per file beyond the bytes.
 *
 * <p>Why not Hadoop's local file system: without Hadoop's native library, {@code
 * RawLocalFileSystem} sets each new file's permission by forking {@code chmod}, and forking a JVM
 * with gigabytes resident takes milliseconds. At 1,024 open partitions that fork was most of both
 * arms' write time (sampled stacks of the writing thread), so the fan-out cohort measured process
 * creation instead of Parquet writing. Object stores (S3FileIO and the like) have no such step.
 * Both arms use this class; table metadata still goes through the Hadoop catalog.
 *
 * <p>Output is buffered (64 KiB), as Hadoop's streams and object-store uploads are: Iceberg's own
 * {@code Files.localOutput} writes every call straight to a {@code RandomAccessFile}, which turns
 * the Parquet writer's many small header writes into system calls.
 */
public final class LocalFileIO implements FileIO {

  @Override
  public InputFile newInputFile(String path) {
    return Files.localInput(file(path));
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new BufferedOutputFile(file(path));
  }

  /** Opens {@code file} for writing through a 64 KiB buffer. */
  static OutputFile output(File file) {
    return new BufferedOutputFile(file);
  }

  @Override
  public void deleteFile(String path) {
    File file = file(path);
    if (file.exists() && !file.delete()) {
      throw new RuntimeIOException("Failed to delete %s", file);
    }
  }

  /** Accepts a bare path or a {@code file:} URI (Hadoop qualifies warehouse paths that way). */
  static File file(String path) {
    if (path.startsWith("file:")) {
      return new File(URI.create(path).getPath());
    }
    return new File(path);
  }

  private static final class BufferedOutputFile implements OutputFile {
    private static final int BUFFER_BYTES = 64 * 1024;
    private final File file;

    BufferedOutputFile(File file) {
      this.file = file;
    }

    @Override
    public PositionOutputStream create() {
      if (file.exists()) {
        throw new AlreadyExistsException("File already exists: %s", file);
      }
      return createOrOverwrite();
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      File parent = file.getAbsoluteFile().getParentFile();
      if (!parent.isDirectory() && !parent.mkdirs()) {
        throw new RuntimeIOException("Failed to create the directory %s", parent);
      }
      try {
        return new CountingStream(
            new BufferedOutputStream(new FileOutputStream(file), BUFFER_BYTES));
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to create " + file, e);
      }
    }

    @Override
    public String location() {
      return file.toString();
    }

    @Override
    public InputFile toInputFile() {
      return Files.localInput(file);
    }
  }

  /** Keeps the position itself, so {@code getPos} never asks the file system. */
  private static final class CountingStream extends PositionOutputStream {
    private final BufferedOutputStream out;
    private long pos;

    CountingStream(BufferedOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      pos += 1;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      pos += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
