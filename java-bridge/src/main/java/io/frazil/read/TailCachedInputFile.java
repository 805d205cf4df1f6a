package io.frazil.read;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * parquet-java's view of an Iceberg file for its footer, dictionary and bloom-filter readers (the
 * row-group selection is Iceberg's own code on parquet-java's metadata). Reads inside the cached
 * tail are served from memory; anything else goes to one Iceberg stream, opened when first needed.
 */
final class TailCachedInputFile implements InputFile {
  private final org.apache.iceberg.io.InputFile file;
  private final FileTail tail;

  TailCachedInputFile(org.apache.iceberg.io.InputFile file, FileTail tail) {
    this.file = file;
    this.tail = tail;
  }

  @Override
  public long getLength() {
    return tail.fileLength();
  }

  @Override
  public SeekableInputStream newStream() {
    return new Stream();
  }

  @Override
  public String toString() {
    return file.location();
  }

  private final class Stream extends SeekableInputStream {
    private org.apache.iceberg.io.SeekableInputStream stream;
    private long pos;

    private org.apache.iceberg.io.SeekableInputStream stream() throws IOException {
      if (stream == null) {
        stream = file.newStream();
      }
      stream.seek(pos);
      return stream;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      this.pos = newPos;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] bytes, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (pos >= tail.fileLength()) {
        return -1;
      }
      int n = (int) Math.min(len, tail.fileLength() - pos);
      if (!tail.copy(pos, bytes, off, n)) {
        n = stream().read(bytes, off, n);
        if (n < 0) {
          return -1;
        }
      }
      pos += n;
      return n;
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(byte[] bytes, int start, int len) throws IOException {
      int done = 0;
      while (done < len) {
        int n = read(bytes, start + done, len - done);
        if (n < 0) {
          throw new EOFException("Reached the end of " + file.location() + " at " + pos);
        }
        done += n;
      }
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
      if (!buf.hasRemaining()) {
        return 0;
      }
      byte[] bytes = new byte[buf.remaining()];
      int n = read(bytes, 0, bytes.length);
      if (n > 0) {
        buf.put(bytes, 0, n);
      }
      return n;
    }

    @Override
    public void readFully(ByteBuffer buf) throws IOException {
      byte[] bytes = new byte[buf.remaining()];
      readFully(bytes, 0, bytes.length);
      buf.put(bytes);
    }

    @Override
    public void close() throws IOException {
      if (stream != null) {
        stream.close();
      }
    }
  }
}
