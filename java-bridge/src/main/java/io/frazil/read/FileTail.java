package io.frazil.read;

import io.frazil.read.vector.UnsupportedReadException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * The end of a Parquet file, read once through Iceberg's {@link InputFile}: the Thrift footer that
 * native code parses, and the bytes parquet-java's footer reader asks for (served from here, see
 * {@link TailCachedInputFile}), so a file's footer crosses the network once.
 */
final class FileTail {
  /** Most footers fit; a larger one costs a second read. */
  private static final int FIRST_READ = 64 * 1024;

  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);

  private final long fileLength;
  private final long tailStart;
  private final byte[] tail;
  private final int footerLength;

  private FileTail(long fileLength, long tailStart, byte[] tail, int footerLength) {
    this.fileLength = fileLength;
    this.tailStart = tailStart;
    this.tail = tail;
    this.footerLength = footerLength;
  }

  static FileTail read(InputFile file, SeekableInputStream stream)
      throws IOException, UnsupportedReadException {
    long length = file.getLength();
    if (length < 12) {
      throw new IOException(
          "Not a Parquet file (" + length + " bytes, shorter than its magic): " + file.location());
    }
    int first = (int) Math.min(length, FIRST_READ);
    byte[] tail = readAt(stream, length - first, first);
    if (matches(tail, tail.length - 4, ENCRYPTED_MAGIC)) {
      throw new UnsupportedReadException("encryptedFooter", "Parquet modular encryption");
    }
    if (!matches(tail, tail.length - 4, MAGIC)) {
      throw new IOException("Not a Parquet file (no PAR1 magic at its end): " + file.location());
    }
    long footerLength =
        ByteBuffer.wrap(tail, tail.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt()
            & 0xFFFFFFFFL;
    if (footerLength + 8 + 4 > length) {
      throw new IOException(
          "Corrupt Parquet file: footer length "
              + footerLength
              + " past the start of the file ("
              + length
              + " bytes): "
              + file.location());
    }
    if (footerLength + 8 > first) {
      int whole = Math.toIntExact(footerLength + 8);
      tail = readAt(stream, length - whole, whole);
    }
    return new FileTail(length, length - tail.length, tail, (int) footerLength);
  }

  private static boolean matches(byte[] bytes, int at, byte[] magic) {
    for (int i = 0; i < magic.length; i++) {
      if (bytes[at + i] != magic[i]) {
        return false;
      }
    }
    return true;
  }

  static byte[] readAt(SeekableInputStream stream, long position, int length) throws IOException {
    byte[] out = new byte[length];
    stream.seek(position);
    int done = 0;
    while (done < length) {
      int n = stream.read(out, done, length - done);
      if (n < 0) {
        throw new EOFException(
            "Reached the end of the stream with " + (length - done) + " bytes left to read");
      }
      done += n;
    }
    return out;
  }

  long fileLength() {
    return fileLength;
  }

  /** The Thrift-encoded {@code FileMetaData}. */
  byte[] footer() {
    byte[] footer = new byte[footerLength];
    System.arraycopy(tail, tail.length - 8 - footerLength, footer, 0, footerLength);
    return footer;
  }

  /** Copies {@code [position, position + length)} if it lies in the tail; false otherwise. */
  boolean copy(long position, byte[] dst, int offset, int length) {
    if (position < tailStart || position + length > fileLength) {
      return false;
    }
    System.arraycopy(tail, (int) (position - tailStart), dst, offset, length);
    return true;
  }
}
